// SPDX-License-Identifier: GPL-3.0-or-later
// The Newton driver of the equality path (a step without contact or limit candidates): (20a)–(20b)
// solved for ż1 and λ by Newton's method with a backtracking line search on the weighted residual
// 2-norm (Appendix D without the barrier), the Newton matrix factorised by the graph LDU
// (Algorithms 1–4). Converged when the weighted residual ∞-norm (body rows divided by
// max(1 N, Σm|g|)) is below the tolerance.
// - Warm start: the previous solution, extrapolated in time on trees (velocities and multipliers
//   move smoothly from step to step), by the order that predicted the last solution best.
// - Simplified Newton: after a full step that contracted the residual strongly the next iteration
//   reuses the factorisation.
// - When the line search finds no decrease, the residual is tested against its round-off level
//   (atRoundoffLevel, vi_step_control.cc); a solve that fails is subdivided by advance.
// - A root reached only through a shortened step or slow convergence may be non-physical: the
//   interval is then solved again in halves (the root check at the end of stepEqualityPath).
// How these rules were chosen: docs/engine.md, "The step".
#include <algorithm>
#include <cmath>
#include <string>

#include "integrator/vi_internal.h"

namespace ms {

namespace {
// A Newton step that shrinks the residual ∞-norm below this fraction lets the next iteration reuse
// the factorisation (simplified Newton); measured on chains: ~0.9 factorisations per step instead of 2.15.
constexpr double kReuseContraction = 1e-2;
// Coefficients of the polynomial extrapolation of order p through the last p + 1 values, newest
// first: x_k ≈ Σ_j c[p][j] x_{k−1−j}, c[p][j] = (−1)^j C(p + 1, j + 1).
constexpr double kExtrapolation[vi::kStartHistory - 1][vi::kStartHistory - 1] = {
    {1, 0, 0, 0, 0}, {2, -1, 0, 0, 0}, {3, -3, 1, 0, 0}, {4, -6, 4, -1, 0}, {5, -10, 10, -5, 1}};
// Iterations to reach kCoarseResidual above which a tree's full-interval solution is solved again
// in half intervals (solve()).
constexpr int kPlainIterations = 3;
constexpr double kCoarseResidual = 1e-6;
// A warm start with a residual below this fraction of the tolerance is accepted without a Newton
// iteration (solve()).
constexpr double kWarmStartFraction = 1e-3;
// Steps between two choices of the extrapolation order.
constexpr int kOrderInterval = 8;

// Warm start of an equality-path solve: m.cur holds the previous solution (this step's plain start).
// It is pushed into the history, and, when the previous solves were consecutive full intervals,
// replaced by the polynomial extrapolation of the history. The order (0 = the plain start … 4) is
// the one that would have predicted the newest solution best from the older ones (∞-norm over the
// nbRows body velocities), chosen again every kOrderInterval steps: smooth motion of a few links
// gains from high orders (10-link chain: mean start residual 3e-3 with order 1, 1e-4 with order 4;
// 2.01 → 1.06 Newton iterations per step), fast motion of long chains does not (300 links: order 4
// takes 3.0 iterations per step against 2.0 with order 1).
void extrapolateWarmStart(VariationalIntegrator::Impl& m, int nRows, int nbRows, bool consecutive, long step) {
  constexpr int K = vi::kStartHistory;
  m.historyHead = (m.historyHead + 1) % K;
  m.historyCount = consecutive ? std::min(m.historyCount + 1, K) : 1;
  m.startHistory[m.historyHead].head(nRows) = m.cur.head(nRows);
  if (m.historyCount < 2) return;
  auto past = [&](int j) -> const VecX& { return m.startHistory[(m.historyHead + K - j) % K]; };
  // Choose the order by predicting the newest solution from the older ones.
  if (step % kOrderInterval == 0 || m.extrapolationOrder > m.historyCount - 2) {
    const int maxOrder = m.historyCount - 2;
    double err[K - 1] = {0, 0, 0, 0, 0};
    for (int i = 0; i < nbRows; ++i) {
      for (int p = 0; p <= maxOrder; ++p) {
        double pred = 0;
        for (int j = 0; j <= p; ++j) pred += kExtrapolation[p][j] * past(j + 1)(i);
        err[p] = std::max(err[p], std::abs(pred - past(0)(i)));
      }
    }
    int best = 0;
    for (int p = 1; p <= maxOrder; ++p)
      if (err[p] < err[best]) best = p;
    m.extrapolationOrder = best;
  }
  // Extrapolate from the newest extrapolationOrder + 1 solutions.
  const int p = std::min(m.extrapolationOrder, m.historyCount - 1);
  m.cur.head(nRows) = kExtrapolation[p][0] * past(0).head(nRows);
  for (int j = 1; j <= p; ++j) m.cur.head(nRows) += kExtrapolation[p][j] * past(j).head(nRows);
}

}  // namespace

// The equality path of one solve (prepared, warm-started from the state, no candidates): Newton's
// method from the extrapolated warm start, then the root check, then finish.
StepReport VariationalIntegrator::stepEqualityPath(const StepSettings& st, double h0, State& state) {
  Impl& m = *impl_;
  StepReport rep;
  const int nb = int(sys_->bodies.size());
  // Equality path of a tree: extrapolate the warm start in time from the previous steps' solutions
  // (velocities and multipliers move smoothly from step to step; with order p the extrapolation
  // error is O(Δt^(p+1))), when this state is the one the previous full-interval solve started one
  // step before (extrapolateWarmStart).
  // Not with closed loops: near a singular configuration the extrapolated start leads Newton to the
  // other branch (four-link-segments: 45 instead of 0 revisited steps, energy criterion failed).
  {
    const bool consecutive = !watchSingular_ && state.step == m.prevStartStep + 1 && h0 == st.dt &&
                             m.prevStartH == st.dt;
    m.prevStartStep = state.step;
    m.prevStartH = h0;
    extrapolateWarmStart(m, 6 * sys_->numNodes, 6 * nb, consecutive, state.step);
  }
  if (!vi::evaluate(*sys_, m, m.cur, m.residual, &matrix_)) {
    rep.status = StepStatus::AngularVelocityLimit;
    if (finalAttempt_) rep.message = "the warm start needs |w| >= 2/dt (eq. 13): reduce the time step";
    return rep;
  }

  // Convergence test and line search on the weighted residual.
  const int nbRows = 6 * nb, njRows = int(m.residual.size()) - nbRows;
  auto infNorm = [&](const VecX& r) {
    const double b = m.bodyWeight * r.head(nbRows).lpNorm<Eigen::Infinity>();
    return njRows > 0 ? std::max(b, r.tail(njRows).lpNorm<Eigen::Infinity>()) : b;
  };
  auto twoNorm = [&](const VecX& r) {
    return std::sqrt(m.bodyWeight * m.bodyWeight * r.head(nbRows).squaredNorm() + r.tail(njRows).squaredNorm());
  };
  // Newton iterations with backtracking on the weighted residual 2-norm.
  double rnorm = infNorm(m.residual);
  int it = 0;
  bool reuseFactor = false;
  bool backtracked = false;  // an iteration was accepted with a shortened Newton step
  int toCoarse = -1;         // iterations until the residual was below kCoarseResidual (or tolerance)
  const double coarse = std::max(st.tolerance, kCoarseResidual);
  for (;; ++it) {
    if (toCoarse < 0 && rnorm < coarse) toCoarse = it;
    if (!std::isfinite(rnorm)) {
      rep.status = StepStatus::NonFinite;
      rep.message = "non-finite residual in Newton iteration " + std::to_string(it);
      return rep;
    }
    // The warm start alone is accepted only well inside the tolerance; otherwise one Newton
    // iteration polishes it (at rest the previous solution is the start, and accepting it as it was
    // let the pivot regularisation's ~1e-10 relative error of the first solve creep on).
    if (rnorm < st.tolerance && (it > 0 || rnorm < kWarmStartFraction * st.tolerance)) break;
    const bool polishing = rnorm < st.tolerance;
    if (it >= st.maxIterations) {
      rep.status = StepStatus::NotConverged;
      if (finalAttempt_)
        rep.message = "Newton did not reach tolerance " + vi::num(st.tolerance) + " in " +
                      std::to_string(st.maxIterations) + " iterations (weighted residual " + vi::num(rnorm) + ")";
      rep.iterations = it;
      rep.residual = rnorm;
      return rep;
    }
    if (!reuseFactor && !matrix_.factor()) {
      rep.status = StepStatus::SingularMatrix;
      if (finalAttempt_)
        rep.message = "singular Newton matrix in iteration " + std::to_string(it + 1) +
                      " (redundant or degenerate constraints?)";
      return rep;
    }
    m.delta = -m.residual;
    matrix_.solve(m.delta, m.delta);
    const double r2 = twoNorm(m.residual);
    double alpha = 1.0;
    bool accepted = false;
    bool omegaLimited = false;
    for (int ls = 0; ls <= st.maxLineSearch; ++ls, alpha *= 0.5) {
      m.trial = m.cur + alpha * m.delta;
      // Residual only: the matrix is assembled once the step is accepted and more work remains.
      if (!vi::evaluate(*sys_, m, m.trial, m.trialResidual, nullptr)) {
        omegaLimited = true;
        continue;
      }
      if (twoNorm(m.trialResidual) < r2) {
        accepted = true;
        break;
      }
    }
    if (!accepted && polishing) break;  // the start was within the tolerance already: kept
    if (!accepted && reuseFactor) {
      // The frozen matrix no longer gives a descent direction: back to a fresh Newton matrix.
      reuseFactor = false;
      vi::evaluate(*sys_, m, m.cur, m.residual, &matrix_);
      continue;
    }
    if (!accepted && !omegaLimited && atRoundoffLevel()) {
      // Attainable accuracy: no decrease is possible below the round-off of the residual itself.
      rep.stalled = true;
      break;
    }
    if (!accepted) {
      rep.status = omegaLimited ? StepStatus::AngularVelocityLimit : StepStatus::NotConverged;
      if (finalAttempt_)
        rep.message = omegaLimited ? "the solution needs |w| >= 2/dt (eq. 13): reduce the time step"
                                   : "line search found no decrease of the residual (weighted residual " + vi::num(rnorm) + ")";
      rep.iterations = it + 1;
      rep.residual = rnorm;
      return rep;
    }
    const double previous = rnorm;
    backtracked = backtracked || alpha < 1.0;
    m.cur.swap(m.trial);
    m.residual.swap(m.trialResidual);
    rnorm = infNorm(m.residual);
    if (rnorm >= st.tolerance && std::isfinite(rnorm)) {
      // Simplified Newton near convergence: after a full step that contracted the residual
      // strongly, the next iteration reuses this factorisation (the matrix barely changes);
      // otherwise, or when that stops contracting, the matrix is assembled and factorised anew.
      reuseFactor = alpha == 1.0 && rnorm < kReuseContraction * previous;
      if (!reuseFactor) vi::evaluate(*sys_, m, m.cur, m.residual, &matrix_);
    }
  }

  rep.iterations = it;
  rep.residual = rnorm;
  // A solution of a tree reached only through a shortened Newton step, or after more than
  // kPlainIterations iterations to get below kCoarseResidual (Newton's quadratic regime, reached in
  // one iteration on ordinary steps, whatever the tolerance), may be another root of the discrete
  // equations: the start was outside the physical root's basin. An interval of Δt or Δt/2 is then
  // solved again in halves (closer start, smaller motion per interval), which keep their solutions
  // (checking Δt only let long chains take such roots at Δt/2).
  // Shorter intervals are not checked: near a rotation fold (docs/engine.md) Newton converges
  // linearly, and refusing those solves subdivided a spinner down to Δt/64 with a worse attitude.
  if (!watchSingular_ && rootChecked_ && (backtracked || toCoarse > kPlainIterations)) {
    rep.status = StepStatus::NotConverged;
    return rep;
  }
  if (!excludedLimitsHold()) return stepWithAllLimits(st, state);
  finish(st, state, rep);
  return rep;
}

}  // namespace ms
