// SPDX-License-Identifier: GPL-3.0-or-later
// Mutable simulation state (the knot z_k and the velocity ż_k leaving it) and per-step inputs.
#pragma once

#include <vector>

#include <Eigen/StdVector>

#include "core/types.h"
#include "dynamics/joint_constraint.h"

namespace ms {

struct BodyState {
  Vec3 x = Vec3::Zero();           // position of the centre of mass (world)
  Vec4 q = Vec4(1, 0, 0, 0);       // orientation, body → world
  Vec3 v = Vec3::Zero();           // linear velocity (world): x_{k+1} = x_k + v Δt   (eq. 11)
  Vec3 w = Vec3::Zero();           // angular velocity (body frame): q_{k+1} = q_k·ω̄ Δt/2 (eq. 17)
  EIGEN_MAKE_ALIGNED_OPERATOR_NEW
};

// Two bodies, a < b: a pair of automatic collisions (CompiledSystem::autoPairs).
struct BodyPair {
  int a = 0, b = 0;
  bool operator==(const BodyPair& o) const { return a == o.a && b == o.b; }
  bool operator<(const BodyPair& o) const { return a < o.a || (a == o.a && b < o.b); }
};

// State::interval of a state whose velocities are the continuous ones at its knot (an initial
// state, a keyframe, a baseline's state): the variational integrator's next step first turns them
// into the velocities of the interval leaving the knot (the half kick of the discrete Legendre
// transform, VariationalIntegrator::step), so that its trajectories are second order from the start.
constexpr double kVelocitiesAtKnot = -1.0;

struct State {
  double time = 0;
  long step = 0;
  // Variational integrator: the length of the interval the velocities belong to (the next knot is
  // z ⊕ ż·interval), when it differs from the time step (around a subdivided step); 0: the time step;
  // kVelocitiesAtKnot: the velocities are the continuous ones at the knot.
  double interval = 0;
  std::vector<BodyState, Eigen::aligned_allocator<BodyState>> bodies;
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> lambda;  // per joint (padded), warm start
  // Variational integrator, after a step: per body, the velocity at the knot [v; ω] (ω body frame),
  // (h₊ ż₋ + h₋ ż₊)/(h₋ + h₊) of the intervals h₋, h₊ on either side — second order where the
  // interval's own velocity is first order; the energy is measured with it. Empty: the bodies' own
  // velocities are the knot's (an initial state, the baselines).
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> knotVelocity;
  // Per contact (CompiledSystem::contacts) after the step that produced this state: impulses
  // [γ, ψ, β₁..β₄] in N (forces over the step) and the gap φ(z₂) in m at the next knot.
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> contactImpulse;
  std::vector<double> contactGap;
  // Per contact, with n_f > 4 friction directions only (empty otherwise): the impulses
  // [β₅..β_{n_f}, 0…] in N of the contact's companion node.
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> contactFriction;
  // Per joint limit (CompiledSystem::limits) after the step: efforts [γ_lo, γ_hi] (N·m or N, γ_lo
  // pushes the coordinate up, γ_hi down) and the coordinate θ(z₂) at the next knot.
  std::vector<Eigen::Vector2d, Eigen::aligned_allocator<Eigen::Vector2d>> limitImpulse;
  std::vector<double> limitPosition;
  // Soft contacts (contact/soft_contact.h, Hammoud et al. 2021), per contact: the anchor point p₀ in
  // body A's frame (world coordinates for a ground plane) and its mode: 0 no anchor (φ > 0),
  // 1 sticking (ṗ₀ moves with body A), 2 slipping (ṗ₀ᵗ = ṗᵗ, anchor placed by eq. 28).
  std::vector<Vec3, Eigen::aligned_allocator<Vec3>> softAnchor;
  std::vector<int> softActive;
  // The automatic collision pairs (sorted) whose contacts follow the model's in the per-contact
  // vectors above: the state belongs to the system compiled with them (withAutoPairs; empty: the
  // model's own system).
  std::vector<BodyPair> autoPairs;
  // Sleeping (StepSettings::sleepTime, vi_sleep.cc): per body, the time [s] it has been at rest
  // (empty: none has); a state set from outside keeps them, so a run from it is the same run.
  std::vector<double> restTime;
};

// Inputs applied during a step; sized once by the Simulation.
struct Inputs {
  std::vector<Vec3, Eigen::aligned_allocator<Vec3>> force;   // per body, world frame, at the COM
  std::vector<Vec3, Eigen::aligned_allocator<Vec3>> torque;  // per body, world frame
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> actuator;  // per joint, in minimal coordinates
  // Per joint, in minimal coordinates: damping c ≥ 0 added to the joint's own dampers for this step
  // (the D terms of PD controllers), effort −c θ̇ at the step's unknown velocity for integrators
  // with implicitJointDamping(); empty or 0: none.
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> damping;
};

// The poses of a joint's two bodies in a state (the world: origin, identity).
inline JointPoses jointPoses(const JointGeometry& j, const State& s) {
  JointPoses z;
  z.xa = j.parent >= 0 ? s.bodies[j.parent].x : Vec3::Zero();
  z.qa = j.parent >= 0 ? s.bodies[j.parent].q : Vec4(1, 0, 0, 0);
  z.xb = s.bodies[j.child].x;
  z.qb = s.bodies[j.child].q;
  return z;
}

// A joint's minimal-coordinate rates θ̇ = J_min ż for the state's velocities, with J_min the
// Jacobian `e` evaluated at some pose (child's part, then the parent's).
inline Vec6 jointRate(const JointGeometry& j, const JointMinimalEval& e, const State& s) {
  const BodyState& c = s.bodies[size_t(j.child)];
  Vec6 rate = e.dxb * c.v + e.dthb * c.w;
  if (j.parent >= 0) rate += e.dxa * s.bodies[size_t(j.parent)].v + e.dtha * s.bodies[size_t(j.parent)].w;
  return rate;
}

}  // namespace ms
