// SPDX-License-Identifier: GPL-3.0-or-later
// Initial conditions: poses from the joints' initial minimal coordinates (forward kinematics along
// the spanning tree), projected onto all constraints (loop closures included); velocities made
// constraint-consistent: central differences of poses ±kVelocityProbe apart, each projected.
#pragma once

#include <vector>

#include "model/model.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

// A state of `sys` at t = 0 with its bodies at the origin, unrotated and at rest, and every
// multiplier, impulse and per-contact or per-limit entry sized and zero.
State zeroState(const CompiledSystem& sys);

// Builds the state at t = 0 from the initial values in `initial` (same bodies/joints as `sys`).
// Throws UserError when the pose cannot be projected onto the constraints.
// Its velocities are the continuous ones at t = 0 (State::interval = kVelocitiesAtKnot).
// Bodies in `held` (indices) keep the pose their own values and the tree joints give them, and their
// velocity: the projection moves only the others (Assemble holding a body in place, as a CAD
// program's fixed part) — their velocity only when their motion at the given rates is one the
// mechanism can make (else they move with the others at the velocity probes).
State makeInitialState(const CompiledSystem& sys, const Model& initial, const std::vector<int>& held = {});
// Half the time between the two poses whose difference gives the initial velocities, s: an error
// of O(ε²) (1e-10 relative at 10 rad/s) against a round-off of ~1e-16 m / ε.
inline constexpr double kVelocityProbe = 1e-5;

// Rounding level of the constraint values at these poses: 1e-13·(1 m + the largest |position
// coordinate|) (the constraint rows subtract positions of that size).
double constraintRoundoff(const State& state);
// A projected pose is accepted when ‖g‖∞ ≤ kProjectionTolerance·constraintRoundoff (1e-12 at the
// scale of a metre).
inline constexpr double kProjectionTolerance = 10.0;

// Gauss–Newton projection of the poses onto g = 0 (minimum-norm steps) down to ‖g‖∞ ≤ 1e-13, unless
// the poses are already at the rounding level (constraintRoundoff). Returns the final ‖g‖∞. The
// bodies in `held` do not move (their columns are left out of the steps).
double projectOntoConstraints(const CompiledSystem& sys, State& state, int maxIterations = 50,
                              const std::vector<int>& held = {});

// Largest |g| over all joints and couplings at the state's poses.
double constraintViolation(const CompiledSystem& sys, const State& state);

// A coupling's residual θ_a − multiplier·θ_b − offset at the state's poses (rad or m; modulo 2π when
// couplingWraps), and optionally its gradient: per side (0: the joint, 1: the reference, joint −1
// when absent) the coefficient times the coordinate's Jacobians (B.7b).
struct CouplingGradient {
  int joint[2] = {-1, -1};
  Vec3 dxa[2], dtha[2], dxb[2], dthb[2];
};
double couplingResidual(const CompiledSystem& sys, const CouplingDesc& c, const State& state,
                        CouplingGradient* gradient = nullptr);
// Whether a coupling compares modulo 2π: both coordinates revolute angles (in (−π, π]) and
// |multiplier| = 1, so that the residual is continuous where the angles wrap.
bool couplingWraps(const CompiledSystem& sys, const CouplingDesc& c);

}  // namespace ms
