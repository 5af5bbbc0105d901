// SPDX-License-Identifier: GPL-3.0-or-later
// `--integrator riqn`: Lee, Liu, Park & Srinivasa 2016, a linear-time variational integrator.
// The DEL residual F(q_{k+1}) of gc_step.h is evaluated by DRNEA (gc_dynamics.h: one pass from the
// root for the midpoint kinematics and twists, one pass from the leaves for the subtree momenta and
// gravity wrenches — O(n)), and the root is found by RIQN, the recursive impulse-based quasi-Newton
// method (their (24)–(25), Algorithm 3): the Jacobian ∂F/∂q_{k+1} is approximated by its dominant
// term −M(q̄)/h, so the update
//     q_{k+1} ← q_{k+1} + h M(q_k)⁻¹ F
// is an impulse F applied to the tree at rest, computed by the articulated-body algorithm in O(n)
// (gc_dynamics.h). The mass matrix is taken at the knot q_k, as their forward-dynamics step does:
// its articulated inertias are computed once per step and each update is two O(n) vector sweeps. Convergence is linear (the neglected terms are O(h) relative to M/h).
// Initial guess: q_k + h q̇_k (their IG2). Trees only: loop-closing joints are refused, as the paper
// has none; contacts and joint limits too.
#pragma once

#include "integrator/gc/gc_step.h"

namespace ms {

class RiqnIntegrator final : public gc::GcIntegrator {
 public:
  explicit RiqnIntegrator(std::shared_ptr<const CompiledSystem> sys);
  const char* name() const override { return "riqn"; }

 protected:
  bool solve(const StepSettings& settings, const Inputs& inputs, StepReport& report) override;

 private:
  VecX dq_, none_;
};

}  // namespace ms
