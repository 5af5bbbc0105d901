// SPDX-License-Identifier: GPL-3.0-or-later
// Soft contacts (Hammoud et al. 2021 (1)–(2), (21)–(22), (28)); see soft_contact.h.
#include "contact/soft_contact.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "contact/contact_geometry.h"
#include "core/quaternion.h"

namespace ms {

void groupCandidatesAt(const CompiledContactGroup& grp, const State& s, contact::ContactSet& out, contact::BodyPose& zb,
                       contact::BodyPose& za) {
  zb.x = s.bodies[grp.body].x;
  zb.q = s.bodies[grp.body].q;
  if (grp.bodyA >= 0) {
    za.x = s.bodies[grp.bodyA].x;
    za.q = s.bodies[grp.bodyA].q;
  }
  contact::groupCandidates(grp.plane, grp.shapeA, grp.bodyA >= 0 ? &za : nullptr, grp.shape, zb, out);
}

namespace {

constexpr double kTwoPi = 2.0 * kPi;
// Below this tangential speed [m/s] a slipping point takes its slip direction from its anchor offset.
constexpr double kSlipSpeed = 1e-6;

// Calls fn(group, contact index, geometry) for every candidate of every contact group at s.
template <class Fn>
void forEachCandidate(const CompiledSystem& sys, const State& s, Fn&& fn) {
  for (const CompiledContactGroup& grp : sys.contactGroups) {
    contact::BodyPose z, za;
    contact::ContactSet set;
    groupCandidatesAt(grp, s, set, z, za);
    for (int k = 0; k < grp.count && k < set.count; ++k) fn(grp, grp.first + k, set.contacts[k]);
  }
}

// The point of candidate c with the anchor of `mode` (0: provisional, A's witness point; 1 sticking;
// 2 slipping) at `anchorA` (A's frame, used for modes 1 and 2).
void makePoint(const CompiledContactGroup& grp, int ci, const contact::Contact& c, const State& s, int mode,
               const Vec3& anchorA, SoftPoint& pt) {
  pt.contact = ci;
  pt.body = grp.body;
  pt.bodyA = grp.bodyA;
  pt.mu = grp.friction;
  pt.phi = c.phi;
  pt.n = c.normal;
  pt.slipping = mode == 2;
  const BodyState& b = s.bodies[grp.body];
  pt.RB = quat::rotation(b.q);
  pt.lB = c.localB;
  pt.p = c.pointB;
  Vec3 xA = Vec3::Zero(), vA = Vec3::Zero(), wA = Vec3::Zero();
  pt.RA.setIdentity();
  if (grp.bodyA >= 0) {
    const BodyState& a = s.bodies[grp.bodyA];
    pt.RA = quat::rotation(a.q);
    xA = a.x;
    vA = a.v;
    wA = a.w;
  }
  pt.lA = mode == 0 ? c.localA : anchorA;
  pt.p0 = xA + pt.RA * pt.lA;
  pt.dp = pt.p - pt.p0;
  // Velocities of B's material point and of A's material point at the anchor (ω in body frames).
  const Vec3 pdotB = b.v + pt.RB * b.w.cross(pt.lB);
  const Vec3 pdotA = vA + pt.RA * wA.cross(pt.lA);
  pt.dpdot = pdotB - pdotA;
  pt.slip.setZero();
  if (pt.slipping) {
    // ŝ: the tangential sliding velocity's direction, or at rest the anchor offset's (the direction
    // of the last slip, (28) placed the anchor behind the point).
    const Vec3 vt = pt.dpdot - pt.n * pt.n.dot(pt.dpdot), dt = pt.dp - pt.n * pt.n.dot(pt.dp);
    if (vt.norm() > kSlipSpeed) pt.slip = vt.normalized();
    else if (dt.norm() > 0) pt.slip = dt.normalized();
  }
  pt.bias = pt.RB * b.w.cross(b.w.cross(pt.lB)) - pt.RA * wA.cross(wA.cross(pt.lA));
}

int modeOf(const State& s, int ci) { return ci < int(s.softActive.size()) ? s.softActive[ci] : 0; }
Vec3 anchorOf(const State& s, int ci) { return ci < int(s.softAnchor.size()) ? s.softAnchor[ci] : Vec3::Zero(); }

}  // namespace

double evaluateSoftContacts(const CompiledSystem& sys, const State& s, SoftPoints& out) {
  out.clear();
  double minGap = std::numeric_limits<double>::infinity();
  forEachCandidate(sys, s, [&](const CompiledContactGroup& grp, int ci, const contact::Contact& c) {
    if (!(c.phi <= 0)) {
      if (c.phi < minGap) minGap = c.phi;
      return;
    }
    minGap = std::min(minGap, c.phi);
    out.emplace_back();
    makePoint(grp, ci, c, s, modeOf(s, ci), anchorOf(s, ci), out.back());
  });
  return minGap;
}

Vec3 projectFrictionCone(const Vec3& lambda, const Vec3& n, double mu) {
  const double ln = n.dot(lambda);
  if (!(ln > 0)) return Vec3::Zero();
  Vec3 lt = lambda - n * ln;
  const double t = lt.norm(), cap = mu * ln;
  if (t > cap) lt *= cap / t;
  return n * ln + lt;
}

Mat3 coneScaling(const Vec3& lambda, const Vec3& n, double mu) {
  const double ln = n.dot(lambda);
  if (!(ln > 0)) return Mat3::Zero();
  const double t = (lambda - n * ln).norm(), cap = mu * ln;
  const double s = t > cap ? cap / t : 1.0;
  const Mat3 N = n * n.transpose();
  return N + s * (Mat3::Identity() - N);
}

void addPointForce(const SoftPoint& c, const Vec3& F, VecX& f) {
  f.segment<3>(6 * c.body) += F;
  f.segment<3>(6 * c.body + 3) += c.lB.cross(c.RB.transpose() * F);
  if (c.bodyA >= 0) {
    f.segment<3>(6 * c.bodyA) -= F;
    f.segment<3>(6 * c.bodyA + 3) -= c.lA.cross(c.RA.transpose() * F);
  }
}

Vec3 pointAcceleration(const SoftPoint& c, const VecX& accel) {
  Vec3 a = accel.segment<3>(6 * c.body) + c.RB * accel.segment<3>(6 * c.body + 3).cross(c.lB);
  if (c.bodyA >= 0) a -= accel.segment<3>(6 * c.bodyA) + c.RA * accel.segment<3>(6 * c.bodyA + 3).cross(c.lA);
  return a;
}

void addSoftContactForces(const CompiledSystem& sys, const IntegratorOptions& o, const State& s, VecX& f) {
  const double K = o.contactStiffness, B = o.contactDamping;
  forEachCandidate(sys, s, [&](const CompiledContactGroup& grp, int ci, const contact::Contact& c) {
    if (!(c.phi <= 0)) return;
    SoftPoint pt;
    makePoint(grp, ci, c, s, modeOf(s, ci), anchorOf(s, ci), pt);
    addPointForce(pt, projectFrictionCone(softForceRaw(pt, K, B), pt.n, pt.mu), f);
  });
}

void updateSoftAnchors(const CompiledSystem& sys, const IntegratorOptions& o, State& s, StepReport* report) {
  const double K = o.contactStiffness, B = o.contactDamping;
  const size_t nc = sys.contacts.size();
  if (s.softAnchor.size() != nc) s.softAnchor.assign(nc, Vec3::Zero());
  if (s.softActive.size() != nc) s.softActive.assign(nc, 0);
  if (s.contactImpulse.size() != nc) s.contactImpulse.assign(nc, Vec6::Zero());
  if (s.contactGap.size() != nc) s.contactGap.assign(nc, 0.0);
  const int nf = sys.frictionDirections;
  const bool companion = nf > kFrictionDirections && s.contactFriction.size() == nc;
  double minGap = std::numeric_limits<double>::infinity();
  int active = 0;
  forEachCandidate(sys, s, [&](const CompiledContactGroup& grp, int ci, const contact::Contact& c) {
    s.contactGap[ci] = c.phi;
    s.contactImpulse[ci].setZero();
    if (companion) s.contactFriction[ci].setZero();
    if (std::isfinite(c.phi)) minGap = std::min(minGap, c.phi);
    if (!(c.phi <= 0)) {
      s.softActive[ci] = 0;  // the point has left: release its anchor
      return;
    }
    if (s.softActive[ci] == 0) s.softAnchor[ci] = c.localA;  // first detection: A's witness point
    // Sticking test: the force with the anchor moving with body A.
    SoftPoint pt;
    makePoint(grp, ci, c, s, 1, s.softAnchor[ci], pt);
    const Vec3 raw = softForceRaw(pt, K, B);
    const double ln = pt.n.dot(raw);
    Vec3 lt = raw - pt.n * ln;
    const double t = lt.norm(), cap = pt.mu * std::max(ln, 0.0);
    if (ln > 0 && t <= cap) {
      s.softActive[ci] = 1;
    } else {
      // Slipping (28): the projected tangential force, and the anchor placed so the spring gives it.
      lt = ln > 0 ? Vec3(lt * (cap / t)) : Vec3::Zero();
      const Vec3 tangentialGap = (pt.p - pt.p0) - pt.n * pt.n.dot(pt.p - pt.p0);
      const Vec3 p0 = pt.p0 + tangentialGap + lt / K;
      Vec3 xA = Vec3::Zero();
      if (grp.bodyA >= 0) xA = s.bodies[grp.bodyA].x;
      s.softAnchor[ci] = pt.RA.transpose() * (p0 - xA);
      s.softActive[ci] = 2;
    }
    if (!(ln > 0)) return;
    ++active;
    // Record the force for display: λₙ and the tangential force split over the two neighbouring
    // friction directions d_k = cos(2πk/n_f) t1 + sin(2πk/n_f) t2 (non-negative weights).
    Vec6& y = s.contactImpulse[ci];
    y[0] = ln;
    const double tn = lt.norm();
    if (tn <= 0) return;
    Vec3 t1, t2;
    contact::frictionBasis(pt.n, t1, t2);
    double ang = std::atan2(lt.dot(t2), lt.dot(t1));
    if (ang < 0) ang += kTwoPi;
    const double step = kTwoPi / nf;
    const int k0 = std::min(nf - 1, int(ang / step)), k1 = (k0 + 1) % nf;
    const double a0 = ang - k0 * step;  // angle from d_k0, in [0, step)
    // lt = w0 d_k0 + w1 d_k1 with |lt|: solve the 2×2 system in the (d_k0, d_k0⊥) frame.
    const double w1 = tn * std::sin(a0) / std::sin(step), w0 = tn * std::cos(a0) - w1 * std::cos(step);
    auto put = [&](int k, double w) {
      if (k < kFrictionDirections) y[2 + k] += w;
      else if (companion) s.contactFriction[ci][k - kFrictionDirections] += w;
    };
    put(k0, w0);
    put(k1, w1);
  });
  if (report) {
    report->penetration = std::isfinite(minGap) ? std::max(0.0, -minGap) : 0.0;
    report->activeContacts = active;
  }
}

}  // namespace ms
