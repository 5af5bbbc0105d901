// SPDX-License-Identifier: GPL-3.0-or-later
// Broad phase of collision detection: which bodies' bounding boxes overlap. Axis-aligned boxes
// (world) of every collision shape, inflated by the caller for a step's motion, and a
// sweep-and-prune along x (Baraff 1992; Ericson, Real-Time Collision Detection §7.5): the boxes
// are kept sorted by their lower x bound with an insertion sort, which is O(n + swaps) for the
// coherent motion of a simulation, and each box is tested against the boxes that start before its
// upper x bound. The cost per update is O(n + k_x) with k_x the pairs overlapping along x, instead
// of the n²/2 pair tests of a brute-force loop. No allocation once the capacity of boxes and pairs
// has been reached.
#pragma once

#include <utility>
#include <vector>

#include "contact/contact_geometry.h"
#include "core/types.h"

namespace ms::contact {

struct Aabb {
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
  bool overlaps(const Aabb& o) const {
    return lo.x() <= o.hi.x() && o.lo.x() <= hi.x() && lo.y() <= o.hi.y() && o.lo.y() <= hi.y() && lo.z() <= o.hi.z() &&
           o.lo.z() <= hi.z();
  }
  void inflate(double margin) {
    lo.array() -= margin;
    hi.array() += margin;
  }
  void merge(const Aabb& o) {
    lo = lo.cwiseMin(o.lo);
    hi = hi.cwiseMax(o.hi);
  }
};

// The world box of a shape at its body's pose (a plane has none: returns false).
bool shapeAabb(const ContactShape& s, const BodyPose& z, Aabb& out);

class SweepAndPrune {
 public:
  // Boxes of items 0..n−1 (their order is the items' numbering); then pairs() lists every (i, j),
  // i < j, whose boxes overlap, sorted. An item with `enabled[i] == false` (or enabled empty: all
  // enabled) takes part in no pair.
  void update(const std::vector<Aabb>& boxes, const std::vector<char>& enabled = {});
  const std::vector<std::pair<int, int>>& pairs() const { return pairs_; }
  // Pair tests made by the last update (for the scaling benchmark and tests).
  long tests() const { return tests_; }

 private:
  std::vector<int> order_;  // items sorted by lower x bound (kept between updates)
  std::vector<std::pair<int, int>> pairs_;
  long tests_ = 0;
};

}  // namespace ms::contact
