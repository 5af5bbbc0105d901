// SPDX-License-Identifier: GPL-3.0-or-later
// The Newton matrix of a variational step by central finite differences of its residual, for
// checking the analytic matrix (VariationalIntegrator::matrix()).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "integrator/variational_step.h"
#include "simulation.h"
#include "system/compiled_system.h"

namespace ms::test {

// Rows of joint k's node that the residual defines: its constraint rows, then (if the joint is
// damped in this step: its own dampers or Inputs::damping) one damper-effort row per free
// coordinate. The remaining rows are padding (identity in F, zero in the residual).
inline int definedJointRows(const CompiledSystem& sys, const Inputs& in, int k) {
  const CompiledJoint& j = sys.joints[size_t(k)];
  const bool damped = j.hasDamper || (size_t(k) < in.damping.size() && in.damping[size_t(k)].any());
  return j.geo.constrained() + (damped ? j.geo.freeCoordinates() : 0);
}

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

// Worst |F − Fd| / (1 + |Fd|) over random velocities and multipliers at the simulation's state.
inline double worstNewtonError(const std::shared_ptr<const CompiledSystem>& sys, Simulation& sim, unsigned seed, bool& ok) {
  VariationalIntegrator vi(sys);
  const StepSettings st = sim.settings();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1, 1);
  const int nb = int(sys->bodies.size()), nn = sys->numNodes;
  double worst = 0;
  ok = true;
  for (int trial = 0; trial < 5; ++trial) {
    VecX vel(6 * nb), lam(6 * (nn - nb));
    for (int i = 0; i < vel.size(); ++i) vel(i) = 0.5 * uni(rng);
    for (int i = 0; i < lam.size(); ++i) lam(i) = 2 + uni(rng);
    VecX r;
    ok = ok && vi.residualAt(st, sim.inputs(), sim.state(), vel, lam, r, true);
    const MatX F = vi.matrix().toDense();
    MatX Fd;
    ok = ok && newtonByFiniteDifferences(vi, st, sim.inputs(), sim.state(), vel, lam, Fd);
    for (int row = 0; row < F.rows(); ++row) {
      // Padding rows of joint nodes are identity in F and zero in the residual (as in
      // tst_variational_step); every row of a limit node, padding included, is compared.
      const int node = row / 6, joint = sys->nodeJoint[node];
      if (node >= nb && joint >= 0 && row % 6 >= definedJointRows(*sys, sim.inputs(), joint)) continue;
      for (int c = 0; c < F.cols(); ++c)
        worst = std::max(worst, std::abs(F(row, c) - Fd(row, c)) / (1.0 + std::abs(Fd(row, c))));
    }
  }
  return worst;
}

}  // namespace ms::test
