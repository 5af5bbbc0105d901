// SPDX-License-Identifier: GPL-3.0-or-later
// The Newton matrix of a variational step by central finite differences of its residual, for
// checking the analytic matrix (VariationalIntegrator::matrix()).
#pragma once

#include "integrator/variational_step.h"

namespace ms::test {

// Column c of Fd = (r(x + h e_c) − r(x − h e_c)) / 2h over the unknowns x = [vel; lambda] (body
// velocities, then joint/contact multipliers). False if a residual cannot be evaluated.
inline bool newtonByFiniteDifferences(VariationalIntegrator& vi, const StepSettings& st, const Inputs& in,
                                      const State& state, const VecX& vel, const VecX& lambda, MatX& Fd,
                                      double h = 1e-6) {
  const int nv = int(vel.size()), n = nv + int(lambda.size());
  Fd.resize(n, n);
  for (int c = 0; c < n; ++c) {
    VecX vp = vel, vm = vel, lp = lambda, lm = lambda;
    if (c < nv) {
      vp(c) += h;
      vm(c) -= h;
    } else {
      lp(c - nv) += h;
      lm(c - nv) -= h;
    }
    VecX rp, rm;
    if (!vi.residualAt(st, in, state, vp, lp, rp, false) || !vi.residualAt(st, in, state, vm, lm, rm, false))
      return false;
    Fd.col(c) = (rp - rm) / (2 * h);
  }
  return true;
}

}  // namespace ms::test
