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
    const double r = residualNorm();
    rep.iterations = it;
    rep.residual = r;
    if (!std::isfinite(r) || r > 1e8 * (r0 + 1)) {
      rep.status = StepStatus::NonFinite;
      rep.message = "RIQN diverged (the residual of the discrete Euler-Lagrange equations grew without bound)";
      return false;
    }
    if (r <= st.tolerance) return true;
    if (it >= st.maxIterations) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "RIQN did not converge in %d iterations (residual %.3g > tolerance %.3g)",
                    st.maxIterations, r, st.tolerance);
      rep.status = StepStatus::NotConverged;
      rep.message = buf;
      return false;
    }
    // Impulse-based update: q ← q + h M(q_k)⁻¹ F.
    gc::solveFactoredMass(tree_, knot_, res_, dq_, aba_);
    dq1_ += h_ * dq_;
    evaluate(st, in, dq1_, none_, false);
  }
}

}  // namespace ms
