// SPDX-License-Identifier: GPL-3.0-or-later
// Checks on a simulation state shared by the engine tests.
#pragma once

#include "system/state.h"

namespace ms::test {

// Every body's pose and velocities are finite.
inline bool finiteState(const State& s) {
  for (const BodyState& b : s.bodies)
    if (!(b.x.allFinite() && b.q.allFinite() && b.v.allFinite() && b.w.allFinite())) return false;
  return true;
}

}  // namespace ms::test
