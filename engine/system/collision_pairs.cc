// SPDX-License-Identifier: GPL-3.0-or-later
// Automatic collision pairs: broad phase over the bodies' boxes, distances, hysteresis
// (collision_pairs.h).
#include "system/collision_pairs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/quaternion.h"

namespace ms {
namespace {

using contact::ContactShape;

bool isPolytope(ContactShape::Kind k) { return k == ContactShape::Kind::Box || k == ContactShape::Kind::Convex; }

contact::BodyPose pose(const State& s, int b) { return {s.bodies[size_t(b)].x, s.bodies[size_t(b)].q}; }

// The world box of body b's collision shapes (a plane shape: unbounded).
contact::Aabb bodyBox(const CompiledSystem& sys, const State& s, int b) {
  const contact::BodyPose z = pose(s, b);
  contact::Aabb box;
  bool first = true;
  for (const ContactShape& sh : sys.bodyShapes[size_t(b)]) {
    contact::Aabb one;
    if (!contact::shapeAabb(sh, z, one)) {
      one.lo.setConstant(-std::numeric_limits<double>::infinity());
      one.hi.setConstant(std::numeric_limits<double>::infinity());
    }
    if (first) box = one;
    else box.merge(one);
    first = false;
  }
  return box;
}

double bodyReach(const CompiledSystem& sys, int b) {
  double r = 0;
  for (const ContactShape& sh : sys.bodyShapes[size_t(b)]) r = std::max(r, contact::shapeReach(sh));
  return r;
}

}  // namespace

double bodyDistance(const CompiledSystem& sys, int a, int b, const State& s) {
  const contact::BodyPose za = pose(s, a), zb = pose(s, b);
  double d = std::numeric_limits<double>::infinity();
  contact::ContactSet set;
  for (const ContactShape& sa : sys.bodyShapes[size_t(a)])
    for (const ContactShape& sb : sys.bodyShapes[size_t(b)]) {
      if (contact::pairCandidateCount(sa, sb) == 0) continue;
      if (isPolytope(sa.kind) && isPolytope(sb.kind)) {
        contact::Contact c;
        contact::polytopeSignedDistance(sa, za, sb, zb, c);
        d = std::min(d, c.phi);
        continue;
      }
      contact::pairCandidates(sa, za, sb, zb, set);
      for (int k = 0; k < set.count; ++k) d = std::min(d, set.contacts[k].phi);
    }
  return d;
}

void nearPairs(const CompiledSystem& sys, const State& s, double margin, std::vector<BodyPair>& out) {
  out.clear();
  const std::vector<int>& bodies = sys.collidingBodies;
  std::vector<contact::Aabb> boxes(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    boxes[i] = bodyBox(sys, s, bodies[i]);
    boxes[i].inflate(margin);
  }
  contact::SweepAndPrune sap;
  sap.update(boxes);
  for (const auto& [i, j] : sap.pairs()) {
    const int a = std::min(bodies[size_t(i)], bodies[size_t(j)]), b = std::max(bodies[size_t(i)], bodies[size_t(j)]);
    if (sys.mayCollide(a, b)) out.push_back({a, b});
  }
  std::sort(out.begin(), out.end());
}

// The colliding bodies' boxes at s, body k's inflated by inflate[k] (null: not inflated).
void CollisionPairs::boxes(const CompiledSystem& sys, const State& s, const double* inflate) {
  const std::vector<int>& bodies = sys.collidingBodies;
  boxes_.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    boxes_[i] = bodyBox(sys, s, bodies[i]);
    if (inflate) boxes_[i].inflate(inflate[i]);
  }
}

bool CollisionPairs::select(const CompiledSystem& sys, const State& s, double dt, const Vec3& gravity,
                            const std::vector<BodyPair>& active, std::vector<BodyPair>& out) {
  out.clear();
  const std::vector<int>& bodies = sys.collidingBodies;
  const size_t n = bodies.size();
  // Motion bound of every colliding body over the step, and its box inflation for keeping pairs.
  motion_.resize(n);
  inflate_.resize(n);
  const double fall = gravity.norm() * dt * dt;
  for (size_t i = 0; i < n; ++i) {
    const BodyState& b = s.bodies[size_t(bodies[i])];
    motion_[i] = 2 * (b.v.norm() + b.w.norm() * bodyReach(sys, bodies[i])) * dt + fall;
    inflate_[i] = 2 * motion_[i] + 0.5 * kKeepGap;
  }
  boxes(sys, s, inflate_.data());
  before_.update(boxes_);
  // Near pairs: kept if active, added if close.
  for (const auto& [i, j] : before_.pairs()) {
    const int a = std::min(bodies[size_t(i)], bodies[size_t(j)]), b = std::max(bodies[size_t(i)], bodies[size_t(j)]);
    const BodyPair p{a, b};
    if (std::binary_search(active.begin(), active.end(), p)) {
      out.push_back(p);
      continue;
    }
    if (!sys.mayCollide(a, b)) continue;
    if (bodyDistance(sys, a, b, s) < motion_[size_t(i)] + motion_[size_t(j)] + kAddGap) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  // Pairs no longer near are dropped with the next change, or once they are a quarter of the pairs:
  // each change compiles the contact part of the system again, while a far pair's contacts only
  // hold slack.
  size_t added = 0;
  for (const BodyPair& p : out) added += !std::binary_search(active.begin(), active.end(), p);
  if (added == 0 && 4 * (active.size() - out.size()) <= active.size()) {
    out = active;
    return false;
  }
  return out != active;
}

bool CollisionPairs::missed(const CompiledSystem& sys, const State& s, double dt, const std::vector<BodyPair>& active,
                            std::vector<BodyPair>& out) {
  out.clear();
  // The configuration the step's contacts were imposed at: the next knot z ⊕ ż·h (eqs. 11, 17).
  const double h = s.interval > 0 ? s.interval : dt;
  next_.bodies.resize(s.bodies.size());
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const BodyState& b = s.bodies[i];
    next_.bodies[i].x = b.x + b.v * h;
    Vec4 inc;
    next_.bodies[i].q = quat::incrementFromVelocity(b.w, h, inc) ? Vec4(quat::mul(b.q, inc)) : b.q;
  }
  const std::vector<int>& bodies = sys.collidingBodies;
  boxes(sys, next_, nullptr);
  after_.update(boxes_);
  for (const auto& [i, j] : after_.pairs()) {
    const int a = std::min(bodies[size_t(i)], bodies[size_t(j)]), b = std::max(bodies[size_t(i)], bodies[size_t(j)]);
    const BodyPair p{a, b};
    if (std::binary_search(active.begin(), active.end(), p) || !sys.mayCollide(a, b)) continue;
    if (bodyDistance(sys, a, b, next_) < 0) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return !out.empty();
}

}  // namespace ms
