// SPDX-License-Identifier: GPL-3.0-or-later
// Sweep-and-prune broad phase and the world boxes of collision shapes (broad_phase.h).
#include "contact/broad_phase.h"

#include <algorithm>

#include "contact/geometry_internal.h"

namespace ms::contact {

bool shapeAabb(const ContactShape& s, const BodyPose& z, Aabb& out) {
  const Placed p = place(s, z);
  const Mat3& R = p.Rs;
  // Half extents along the world axes of a box of half sizes h in the shape frame: |R| h.
  auto boxAround = [&](const Vec3& centre, const Vec3& h) {
    const Vec3 e = R.cwiseAbs() * h;
    out.lo = centre - e;
    out.hi = centre + e;
  };
  switch (s.kind) {
    case ContactShape::Kind::Sphere:
      out.lo = p.o.array() - s.radius;
      out.hi = p.o.array() + s.radius;
      return true;
    case ContactShape::Kind::Capsule: {
      // The segment's box, grown by the radius.
      const Vec3 a = R.col(2) * s.halfLength;
      out.lo = (p.o - a).cwiseMin(p.o + a).array() - s.radius;
      out.hi = (p.o - a).cwiseMax(p.o + a).array() + s.radius;
      return true;
    }
    case ContactShape::Kind::Box: boxAround(p.o, s.halfExtents); return true;
    case ContactShape::Kind::Cylinder: {
      // Each disc spans r·√(1 − a_k²) along world axis k; the two discs' centres ± h a.
      const Vec3 a = R.col(2);
      const Vec3 disc = (Vec3::Ones() - a.cwiseAbs2()).cwiseMax(0.0).cwiseSqrt() * s.radius;
      const Vec3 ends = (a * s.halfLength).cwiseAbs();
      out.lo = p.o - ends - disc;
      out.hi = p.o + ends + disc;
      return true;
    }
    case ContactShape::Kind::Convex: {
      const std::vector<Vec3>& v = s.convex->hull.vertices;
      out.lo = out.hi = p.o + R * v.front();
      for (const Vec3& q : v) {
        const Vec3 w = p.o + R * q;
        out.lo = out.lo.cwiseMin(w);
        out.hi = out.hi.cwiseMax(w);
      }
      return true;
    }
    case ContactShape::Kind::Plane: return false;
  }
  return false;
}

void SweepAndPrune::update(const std::vector<Aabb>& boxes, const std::vector<char>& enabled) {
  const int n = int(boxes.size());
  // Keep the previous order (coherence) when the item count is unchanged.
  if (int(order_.size()) != n) {
    order_.resize(n);
    for (int i = 0; i < n; ++i) order_[i] = i;
  }
  // Insertion sort by lower x bound: few swaps when the boxes moved a little.
  for (int k = 1; k < n; ++k) {
    const int item = order_[k];
    const double key = boxes[item].lo.x();
    int m = k - 1;
    while (m >= 0 && boxes[order_[m]].lo.x() > key) {
      order_[m + 1] = order_[m];
      --m;
    }
    order_[m + 1] = item;
  }
  // Sweep: each box against the boxes that start before it ends along x.
  pairs_.clear();
  tests_ = 0;
  const bool all = enabled.empty();
  for (int k = 0; k < n; ++k) {
    const int i = order_[k];
    if (!all && !enabled[i]) continue;
    const Aabb& a = boxes[i];
    for (int m = k + 1; m < n; ++m) {
      const int j = order_[m];
      const Aabb& b = boxes[j];
      if (b.lo.x() > a.hi.x()) break;
      if (!all && !enabled[j]) continue;
      ++tests_;
      if (a.overlaps(b)) pairs_.emplace_back(std::min(i, j), std::max(i, j));
    }
  }
  std::sort(pairs_.begin(), pairs_.end());
}

}  // namespace ms::contact
