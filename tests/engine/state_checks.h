// SPDX-License-Identifier: GPL-3.0-or-later
// Checks on a simulation state shared by the engine tests.
#pragma once

#include <algorithm>

#include "core/quaternion.h"
#include "system/state.h"

namespace ms::test {

// Every body's pose and velocities are finite.
inline bool finiteState(const State& s) {
  for (const BodyState& b : s.bodies)
    if (!(b.x.allFinite() && b.q.allFinite() && b.v.allFinite() && b.w.allFinite())) return false;
  return true;
}

// Largest difference of positions, orientations, linear and (world) angular velocities between two
// states (1e300 when they have different bodies).
inline double stateDistance(const State& a, const State& b) {
  if (a.bodies.size() != b.bodies.size()) return 1e300;
  double d = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const BodyState &p = a.bodies[i], &q = b.bodies[i];
    d = std::max({d, (p.x - q.x).lpNorm<Eigen::Infinity>(), (p.q - q.q).lpNorm<Eigen::Infinity>(),
                  (p.v - q.v).lpNorm<Eigen::Infinity>(),
                  (quat::rotation(p.q) * p.w - quat::rotation(q.q) * q.w).lpNorm<Eigen::Infinity>()});
  }
  return d;
}

}  // namespace ms::test
