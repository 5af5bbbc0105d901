// SPDX-License-Identifier: GPL-3.0-or-later
// Derivation: midpoint_gc_step.h and gc_step.h.
#include "integrator/gc/midpoint_gc_step.h"

#include <cstdio>
#include <limits>
#include <string>

namespace ms {

MidpointGCIntegrator::MidpointGCIntegrator(std::shared_ptr<const CompiledSystem> sys)
    : GcIntegrator(std::move(sys), false), lu_(n() + m()) {
  dz_.setZero(n() + m());
  dqtry_.setZero(n());
  ltry_.setZero(m());
}

bool MidpointGCIntegrator::solve(const StepSettings& st, const Inputs& in, StepReport& rep) {
  const int nc = n(), nm = m();
  evaluate(st, in, dq1_, lambda_, true);
  double r = residualNorm();
  for (int it = 0;; ++it) {
    const Check c = checkIteration(st, it, r, std::numeric_limits<double>::infinity(), "Newton", rep);
    if (c != Check::Continue) return c == Check::Converged;
    // Newton direction from the dense LU of the analytic Jacobian.
    assembleJacobian(st, in, dq1_, lambda_);
    lu_.compute(jac_);
    dz_ = lu_.solve(res_);
    dz_ = -dz_;
    if (!dz_.allFinite()) {
      rep.status = StepStatus::SingularMatrix;
      rep.message = "the Newton matrix of the discrete Euler-Lagrange equations is singular";
      return false;
    }
    // Backtracking: the first step length that lowers the residual.
    double alpha = 1;
    bool accepted = false;
    for (int ls = 0; ls <= st.maxLineSearch; ++ls, alpha *= 0.5) {
      dqtry_ = dq1_ + alpha * dz_.head(nc);
      if (nm > 0) ltry_ = lambda_ + alpha * dz_.tail(nm);
      evaluate(st, in, dqtry_, ltry_, true);
      const double rt = residualNorm();
      if (rt < r) {
        dq1_ = dqtry_;
        lambda_ = ltry_;
        r = rt;
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "Newton stalled after %d iterations: no step length lowers the residual %.3g (tolerance %.3g)",
                    it + 1, r, st.tolerance);
      rep.iterations = it + 1;
      rep.status = StepStatus::NotConverged;
      rep.message = buf;
      return false;
    }
  }
}

}  // namespace ms
