// SPDX-License-Identifier: GPL-3.0-or-later
// Derivation: riqn_step.h and gc_step.h.
#include "integrator/gc/riqn_step.h"

#include <cmath>
#include <cstdio>

namespace ms {

RiqnIntegrator::RiqnIntegrator(std::shared_ptr<const CompiledSystem> sys) : GcIntegrator(std::move(sys), true) {
  dq_.setZero(n());
}

bool RiqnIntegrator::solve(const StepSettings& st, const Inputs& in, StepReport& rep) {
  // The articulated inertias of the knot q_k (usually left by the last step's rates): every update
  // solves with M(q_k).
  if (!knotFactored_ && !(knotFactored_ = gc::factorMass(tree_, knot_, aba_))) {
    rep.status = StepStatus::SingularMatrix;
    rep.message = "the articulated-body inertia is singular (a massless subtree or a chart singularity)";
    return false;
  }
  // DRNEA at the initial guess.
  evaluate(st, in, dq1_, none_, false);
  double r0 = residualNorm();
  for (int it = 0;; ++it) {
    const Check c = checkIteration(st, it, residualNorm(), 1e8 * (r0 + 1), "RIQN", rep);
    if (c != Check::Continue) return c == Check::Converged;
    // Impulse-based update: q ← q + h M(q_k)⁻¹ F.
    gc::solveFactoredMass(tree_, knot_, res_, dq_, aba_);
    dq1_ += h_ * dq_;
    evaluate(st, in, dq1_, none_, false);
  }
}

}  // namespace ms
