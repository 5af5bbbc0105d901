// SPDX-License-Identifier: GPL-3.0-or-later
// Initial conditions: poses from the joints' initial minimal coordinates (forward kinematics along
// the spanning tree), projected onto all constraints (loop closures included); velocities made
// constraint-consistent in the discrete sense: the knot z1 = z0 ⊕ ż0Δt also satisfies g(z1) = 0.
#pragma once

#include "model/model.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

// Builds the state at t = 0 from the initial values in `initial` (same bodies/joints as `sys`).
// Throws UserError when the pose cannot be projected onto the constraints.
State makeInitialState(const CompiledSystem& sys, const Model& initial, double dt);

// Gauss–Newton projection of the poses onto g = 0 (minimum-norm steps). Returns the final ‖g‖∞.
double projectOntoConstraints(const CompiledSystem& sys, State& state, int maxIterations = 50);

// Largest |g| over all joints at the state's poses.
double constraintViolation(const CompiledSystem& sys, const State& state);

}  // namespace ms
