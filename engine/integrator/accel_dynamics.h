// SPDX-License-Identifier: GPL-3.0-or-later
// Acceleration-level dynamics in maximal coordinates, for the baseline (non-variational) integrators.
//
// Per body the generalised velocity is ν = [v; ω] (v world frame, ω body frame, as in BodyState) and
// the configuration evolves by ẋ = v, q̇ = ½ q·[0, ω]. Newton–Euler with the joint constraints g(z) = 0
// (rows of joint_constraint.h, G = [∂g/∂x, ∂g/∂θ] with θ a body-frame rotation) gives the KKT system
//     M ν̇ − Gᵀλ = f(z, ν),      G ν̇ = −Ġν − 2α Gν − β² g     (α, β: Baumgarte gains, 0 = none)
// with M = blockdiag(m I, J) and f = [m g + f_ext + f_joint; τ_body − ω×Jω + τ_joint]. Its matrix has
// the graph of the variational Newton matrix (bodies and joint nodes), so it is factorised by the same
// graph LDU (Algorithms 1–4) in the compiled elimination order; contact and limit nodes are padded
// with identity rows. Ġν is evaluated analytically per joint (constant v and body-frame ω).
#pragma once

#include <memory>

#include "integrator/integrator.h"
#include "solver/ldu_graph.h"

namespace ms {

// Springs between bodies, and joint actuators, springs and dampers (efforts in minimal coordinates),
// added to f (6 per body: force world at the COM, torque body frame) at state s. Joints with
// skipJoint[k] != 0 are left out. `scratch` is workspace.
void addForceElements(const CompiledSystem& sys, const Inputs& in, const State& s, VecX& f, JointMinimalEval& scratch,
                      const std::vector<char>* skipJoint = nullptr);

class AccelDynamics {
 public:
  explicit AccelDynamics(std::shared_ptr<const CompiledSystem> system);
  const CompiledSystem& system() const { return *sys_; }
  int numBodies() const;

  // Applied generalised forces f at state s, 6 per body [force (world); torque (body frame)]:
  // gravity, external wrenches and actuator efforts of `in`, springs and dampers (joint and
  // between bodies), and the gyroscopic term −ω×Jω.
  void appliedForces(const StepSettings& st, const Inputs& in, const State& s, VecX& f) const;

  // Assembles and factorises the KKT matrix at the configuration of s. False if singular.
  bool factor(const State& s);
  // After factor(s): solves M ν̇ − Gᵀλ = f, G ν̇ = c for ν̇ (6 per body) and λ (6 per joint, padded).
  // `c` is 6 per joint (rows ≥ constrained() ignored); nullptr means c = 0. lambda may be nullptr.
  void solve(const VecX& f, const VecX* c, VecX& accel, VecX* lambda = nullptr) const;
  // Right-hand side of the constraint rows at s: −Ġν − 2α Gν − β² g, 6 per joint.
  void constraintRhs(const State& s, double alpha, double beta, VecX& c) const;
  // Everything above: ν̇ at state s with inputs `in` (false if the KKT matrix is singular).
  bool accelerations(const StepSettings& st, const Inputs& in, const State& s, double alpha, double beta, VecX& accel);

  // Ġν of joint j at s (6 rows, padded), for tests against finite differences.
  Vec6 jointBias(int j, const State& s) const;
  // ġ = Gν of joint j at s (6 rows, padded).
  Vec6 constraintRate(int j, const State& s) const;
  // Replaces the velocities of s by the nearest ones in the mass metric with Gν = 0 (one KKT solve;
  // e.g. the variational integrator's discrete velocities, which satisfy g(z ⊕ νΔt) = 0, not Gν = 0).
  // False if the KKT matrix is singular (s unchanged then).
  bool projectVelocities(State& s);

 private:
  std::shared_ptr<const CompiledSystem> sys_;
  GraphLDU kkt_;
  mutable VecX rhs_, sol_, f_, c_;
  VecX accel_;
  mutable JointConstraintEval eval_;
  mutable JointMinimalEval minimal_;
};

}  // namespace ms
