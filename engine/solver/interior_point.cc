// SPDX-License-Identifier: GPL-3.0-or-later
// Primal-dual interior-point driver (Nocedal & Wright Alg. 19.1 / Mehrotra predictor–corrector)
// and the dense reference problems. Equations and rules: see interior_point.h.
#include "solver/interior_point.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace ms {

namespace {

// max |v_i| (0 for an empty vector; NaN propagates).
double maxAbs(const Eigen::Ref<const VecX>& v) {
  double m = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double a = std::abs(v[i]);
    if (!(a <= m)) m = a;  // also picks up NaN
  }
  return m;
}

// Complementarity statistics of (s, γ) for a target μ.
struct ComplementarityStats {
  double max = 0.0;          // max s_i γ_i
  double sum = 0.0;          // Σ s_i γ_i
  double squaredDev = 0.0;   // Σ (s_i γ_i − μ)²
  double maxDev = 0.0;       // max |s_i γ_i − μ|
  double minSlack = kInf;
  double minDual = kInf;
  bool finite = true;
};

ComplementarityStats complementarity(const Eigen::Ref<const VecX>& s, const Eigen::Ref<const VecX>& g, double mu) {
  ComplementarityStats st;
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    const double p = s[i] * g[i];
    const double dev = p - mu;
    st.max = std::max(st.max, p);
    st.sum += p;
    st.squaredDev += dev * dev;
    st.maxDev = std::max(st.maxDev, std::abs(dev));
    st.minSlack = std::min(st.minSlack, s[i]);
    st.minDual = std::min(st.minDual, g[i]);
  }
  st.finite = std::isfinite(st.sum) && std::isfinite(st.squaredDev);
  return st;
}

// Largest α ≤ 1 with v + α·dv ≥ (1 − τ)·v, i.e. α ≤ −τ·v_i/dv_i for every dv_i < 0.
double fractionToBoundary(const Eigen::Ref<const VecX>& v, const Eigen::Ref<const VecX>& dv, double tau) {
  double alpha = 1.0;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (dv[i] < 0.0) alpha = std::min(alpha, -tau * v[i] / dv[i]);
  return alpha;
}

bool allFinite(const Eigen::Ref<const VecX>& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

}  // namespace

const char* toString(InteriorPointStatus status) {
  switch (status) {
    case InteriorPointStatus::Converged: return "converged";
    case InteriorPointStatus::MaxIterations: return "iteration limit reached";
    case InteriorPointStatus::LineSearchFailed: return "line search failed";
    case InteriorPointStatus::NonFinite: return "non-finite values";
    case InteriorPointStatus::Singular: return "singular Newton matrix";
    case InteriorPointStatus::InvalidStart: return "invalid starting point";
    case InteriorPointStatus::Abandoned: return "abandoned (a short step)";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

void InteriorPointSolver::reserve(int numPairs) {
  rhs_.resize(numPairs);
  corr_.resize(numPairs);
}

InteriorPointReport InteriorPointSolver::solve(InteriorPointProblem& problem, InteriorPointObserver* observer) {
  const InteriorPointSettings& cfg = settings_;
  const int m = problem.numPairs();
  if (rhs_.size() < m) reserve(m);  // capacity: a problem may use fewer pairs in a later solve
  const bool mehrotra = cfg.muRule == InteriorPointMuRule::Mehrotra;
  // Smallest barrier parameter: a central point at μ_min meets both tolerances with margin.
  const double muMin = std::max(std::min(cfg.tol, cfg.complementarityTol) / 10.0, 1e-300);

  InteriorPointReport rep;
  char msg[512];
  // Fills the report (the only allocation of solve()) and returns it.
  auto finish = [&](InteriorPointStatus status, const char* text) {
    rep.status = status;
    // A message only when something went wrong: a converged solve inside a time step allocates
    // nothing.
    if (status != InteriorPointStatus::Converged && cfg.reportMessage) rep.message = text;
    return std::move(rep);
  };

  // Starting point: strictly interior and finite.
  ComplementarityStats cs = complementarity(problem.slack(IpIterate::Current), problem.dual(IpIterate::Current), 0.0);
  if (!(cs.minSlack > 0.0) || !(cs.minDual > 0.0) || !cs.finite) {
    std::snprintf(msg, sizeof msg,
                  "The starting point is not strictly inside the feasible region: every slack and dual must be "
                  "positive and finite (smallest slack %.3g, smallest dual %.3g).",
                  cs.minSlack, cs.minDual);
    return finish(InteriorPointStatus::InvalidStart, msg);
  }
  IpEqualityNorms eq = problem.evaluate(IpIterate::Current);
  const double startResidual = eq.maxAbs;
  rep.residual = eq.maxAbs;
  rep.complementarity = cs.max;
  if (!std::isfinite(eq.maxAbs) || !std::isfinite(eq.squared)) {
    std::snprintf(msg, sizeof msg, "The residual at the starting point is not finite (NaN or infinity).");
    return finish(InteriorPointStatus::NonFinite, msg);
  }

  // Initial barrier parameter: given, or the average complementarity of the start.
  double mu = cfg.initialMu > 0.0 ? cfg.initialMu : (m > 0 ? cs.sum / m : muMin);
  mu = std::max(mu, muMin);
  rep.mu = mu;

  // Trace of the starting point.
  if (observer) {
    InteriorPointTrace tr;
    tr.mu = mu;
    tr.residual = eq.maxAbs;
    tr.complementarity = cs.max;
    tr.minSlack = cs.minSlack;
    tr.minDual = cs.minDual;
    tr.merit = eq.squared + complementarity(problem.slack(IpIterate::Current), problem.dual(IpIterate::Current), mu).squaredDev;
    observer->onIterate(problem, tr);
  }

  int shortSteps = 0;  // consecutive accepted steps shorter than jamAlpha
  for (int iter = 0;; ++iter) {
    // 1. Convergence on both the equalities and the complementarity.
    // (No message: finish() keeps none for a converged solve, and formatting one cost 7 % of a
    // resting box's step.)
    if (eq.maxAbs <= cfg.tol && cs.max <= cfg.complementarityTol) return finish(InteriorPointStatus::Converged, "");
    if (iter >= cfg.maxIterations) {
      // The residual hardly moved: typical of a problem without solution (infeasible).
      const bool stalled = eq.maxAbs > cfg.tol && eq.maxAbs > 0.1 * startResidual;
      std::snprintf(msg, sizeof msg,
                    "Not converged after %d iterations: equality residual %.2e (tolerance %.1e, %.2e at the start), "
                    "complementarity %.2e (tolerance %.1e). %s",
                    iter, eq.maxAbs, cfg.tol, startResidual, cs.max, cfg.complementarityTol,
                    stalled ? "The equalities stayed violated while the iterates stayed inside s > 0, gamma > 0: the "
                              "problem most likely has no solution."
                            : "More iterations may be needed.");
      return finish(InteriorPointStatus::MaxIterations, msg);
    }

    // 2a. Monotone rule: decrease μ while the barrier problem for μ is solved to κ_ε·μ.
    if (!mehrotra) {
      const auto barrierError = [&](double mu_) {
        return std::max(eq.maxAbs,
                        complementarity(problem.slack(IpIterate::Current), problem.dual(IpIterate::Current), mu_).maxDev);
      };
      while (mu > muMin && barrierError(mu) <= cfg.barrierTolFactor * mu)
        mu = std::max(muMin, std::min(cfg.muDecrease * mu, std::pow(mu, cfg.muSuperlinear)));
    }

    // Factor the Newton matrix at the current iterate (once per iteration).
    if (!problem.factor()) {
      std::snprintf(msg, sizeof msg,
                    "The Newton matrix is singular at iteration %d (equality residual %.2e, complementarity %.2e); "
                    "check for redundant constraints or a zero pivot.",
                    iter + 1, eq.maxAbs, cs.max);
      return finish(InteriorPointStatus::Singular, msg);
    }
    rep.iterations = iter + 1;

    const Eigen::Ref<const VecX> s = problem.slack(IpIterate::Current);
    const Eigen::Ref<const VecX> g = problem.dual(IpIterate::Current);
    const Eigen::Ref<const VecX> ds = problem.slackStep();
    const Eigen::Ref<const VecX> dg = problem.dualStep();
    // Solves with r = target − s∘γ (− corr); false if the direction is not finite.
    auto direction = [&](double target, bool withCorr) {
      for (int i = 0; i < m; ++i) rhs_[i] = target - s[i] * g[i] - (withCorr ? corr_[i] : 0.0);
      return problem.solveNewton(rhs_.head(m)) && allFinite(ds) && allFinite(dg);
    };
    const char* nonFiniteDirection = "The Newton direction became NaN or infinite at iteration %d (equality residual "
                                     "%.2e, complementarity %.2e); the Newton matrix is probably near-singular.";

    // 2b. Target μ_t of this step and its direction.
    double muTarget = mu;
    bool withCorr = false;
    if (mehrotra) {
      // Predictor (affine) step r = −s∘γ, its fraction-to-the-boundary length (τ = 1) and the
      // complementarity it would reach; σ = (μ_aff/μ)³.
      const double muNow = m > 0 ? cs.sum / m : muMin;
      if (!direction(0.0, false)) {
        std::snprintf(msg, sizeof msg, nonFiniteDirection, iter + 1, eq.maxAbs, cs.max);
        return finish(InteriorPointStatus::NonFinite, msg);
      }
      const double aAff = std::min(fractionToBoundary(s, ds, 1.0), fractionToBoundary(g, dg, 1.0));
      double sumAff = 0.0;
      for (int i = 0; i < m; ++i) sumAff += (s[i] + aAff * ds[i]) * (g[i] + aAff * dg[i]);
      const double muAff = m > 0 ? std::max(sumAff, 0.0) / m : 0.0;
      const double ratio = muNow > 0.0 ? std::min(1.0, muAff / muNow) : 0.0;
      muTarget = std::max(muMin, ratio * ratio * ratio * muNow);
      // Safeguard against jamming: complementarity is not driven far below the infeasibility
      // (a pair stuck at the boundary long before the equalities hold stalls the method).
      muTarget = std::max(muTarget, cfg.infeasibilityMuFactor * std::min(muNow, eq.maxAbs));
      // Corrector: second-order term of the complementarity, same factorisation.
      for (int i = 0; i < m; ++i) corr_[i] = ds[i] * dg[i];
      withCorr = true;
      mu = muTarget;
    }
    if (!direction(muTarget, withCorr)) {
      std::snprintf(msg, sizeof msg, nonFiniteDirection, iter + 1, eq.maxAbs, cs.max);
      return finish(InteriorPointStatus::NonFinite, msg);
    }

    // 3–4. Fraction to the boundary, then backtracking on the merit φ with sufficient decrease.
    const double tau = std::max(cfg.tauMin, 1.0 - muTarget);
    const ComplementarityStats cs0 = complementarity(s, g, muTarget);
    const double phi0 = eq.squared + cs0.squaredDev;
    double alphaMax = 0.0, alpha = 0.0, phi = 0.0;
    int halvings = 0;
    bool accepted = false, trialNonFinite = false;
    IpEqualityNorms eqTrial;
    ComplementarityStats csTrial;
    for (int attempt = 0; attempt < 2 && !accepted; ++attempt) {
      // Directional derivative of φ along the direction (exact for an exact Jacobian).
      double corrTerm = 0.0;
      if (withCorr)
        for (int i = 0; i < m; ++i) corrTerm += (s[i] * g[i] - muTarget) * corr_[i];
      double slope = -2.0 * (phi0 + corrTerm);
      double slopeComp = -2.0 * (cs0.squaredDev + corrTerm);
      if (withCorr && !(slope < 0.0)) {
        // The corrected direction does not descend: use the pure Newton direction for μ_t.
        withCorr = false;
        if (!direction(muTarget, false)) {
          std::snprintf(msg, sizeof msg, nonFiniteDirection, iter + 1, eq.maxAbs, cs.max);
          return finish(InteriorPointStatus::NonFinite, msg);
        }
        slope = -2.0 * phi0;
        slopeComp = -2.0 * cs0.squaredDev;
      }
      alphaMax = std::min(fractionToBoundary(s, ds, tau), fractionToBoundary(g, dg, tau));
      alpha = alphaMax;
      for (halvings = 0; halvings <= cfg.maxLineSearch; ++halvings, alpha *= 0.5) {
        problem.apply(alpha);
        eqTrial = problem.evaluate(IpIterate::Trial);
        csTrial = complementarity(problem.slack(IpIterate::Trial), problem.dual(IpIterate::Trial), muTarget);
        phi = eqTrial.squared + csTrial.squaredDev;
        if (!std::isfinite(phi) || !std::isfinite(eqTrial.maxAbs) || !(csTrial.minSlack > 0.0) ||
            !(csTrial.minDual > 0.0)) {
          trialNonFinite = trialNonFinite || !std::isfinite(phi) || !std::isfinite(eqTrial.maxAbs);
          continue;
        }
        // Sufficient decrease of φ; or, once the equalities are within tolerance at both points
        // (where their rounding noise would dominate φ), of the complementarity part alone.
        const bool armijo = phi <= phi0 + cfg.armijo * alpha * slope;
        const bool armijoComp = eq.maxAbs <= cfg.tol && eqTrial.maxAbs <= cfg.tol && slopeComp < 0.0 &&
                                csTrial.squaredDev <= cs0.squaredDev + cfg.armijo * alpha * slopeComp;
        if (armijo || armijoComp) {
          accepted = true;
          break;
        }
      }
      if (!accepted && withCorr) {
        // Retry once with the pure Newton direction (a descent direction for φ).
        withCorr = false;
        if (!direction(muTarget, false)) {
          std::snprintf(msg, sizeof msg, nonFiniteDirection, iter + 1, eq.maxAbs, cs.max);
          return finish(InteriorPointStatus::NonFinite, msg);
        }
      } else {
        break;
      }
    }
    if (!accepted) {
      std::snprintf(msg, sizeof msg,
                    "Stopped at iteration %d: no step length down to %.1e (from the boundary limit %.2e) reduced the "
                    "merit function (equality residual %.2e, complementarity %.2e). %s",
                    iter + 1, alpha * 2.0, alphaMax, eq.maxAbs, cs.max,
                    trialNonFinite ? "Trial points gave NaN or infinite residuals: the functions are probably "
                                     "evaluated outside their domain."
                                   : "The problem may have no solution, or the tolerance is below the attainable "
                                     "accuracy, or the Jacobian is inaccurate.");
      return finish(InteriorPointStatus::LineSearchFailed, msg);
    }

    // Accept the trial point.
    problem.accept();
    eq = eqTrial;
    cs = complementarity(problem.slack(IpIterate::Current), problem.dual(IpIterate::Current), 0.0);
    rep.residual = eq.maxAbs;
    rep.complementarity = cs.max;
    // A start that jams: the caller tries another (abandonAlpha).
    if (alpha < cfg.abandonAlpha) {
      std::snprintf(msg, sizeof msg, "Abandoned at iteration %d: step length %.2e below %.2e.", iter + 1, alpha,
                    cfg.abandonAlpha);
      return finish(InteriorPointStatus::Abandoned, msg);
    }
    // Jammed (every step cut to almost nothing by a pair at the boundary far off the central path):
    // recentre the off-centre pairs — the smaller of s_i, γ_i raised so that s_i γ_i = sᵀγ/m.
    shortSteps = alpha < cfg.jamAlpha ? shortSteps + 1 : 0;
    if (shortSteps >= cfg.jamSteps && m > 0 && cs.max > cfg.complementarityTol) {
      const double avg = cs.sum / m;
      rhs_.head(m) = problem.slack(IpIterate::Current);
      corr_.head(m) = problem.dual(IpIterate::Current);
      bool raised = false;
      for (int i = 0; i < m; ++i) {
        if (!(rhs_[i] * corr_[i] < cfg.jamCentrality * avg)) continue;
        if (rhs_[i] < corr_[i]) rhs_[i] = avg / corr_[i];
        else corr_[i] = avg / rhs_[i];
        raised = true;
      }
      if (raised) {
        problem.raisePairs(rhs_.head(m), corr_.head(m));
        eq = problem.evaluate(IpIterate::Current);
        cs = complementarity(problem.slack(IpIterate::Current), problem.dual(IpIterate::Current), 0.0);
        shortSteps = 0;
      }
    }
    rep.residual = eq.maxAbs;
    rep.complementarity = cs.max;
    rep.mu = mu;
    if (observer) {
      InteriorPointTrace tr;
      tr.iteration = iter + 1;
      tr.mu = muTarget;
      tr.alphaMax = alphaMax;
      tr.alpha = alpha;
      tr.lineSearchSteps = halvings;
      tr.residual = eq.maxAbs;
      tr.complementarity = cs.max;
      tr.minSlack = cs.minSlack;
      tr.minDual = cs.minDual;
      tr.merit = phi;
      observer->onIterate(problem, tr);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// LinearNcp
// ---------------------------------------------------------------------------------------------

LinearNcp::LinearNcp(MatX A, MatX B, VecX a, MatX C, MatX D, VecX d)
    : A_(std::move(A)), B_(std::move(B)), C_(std::move(C)), D_(std::move(D)), a_(std::move(a)), d_(std::move(d)) {
  const Eigen::Index n = a_.size(), m = d_.size();
  eigen_assert(A_.rows() == n && A_.cols() == n && B_.rows() == n && B_.cols() == m);
  eigen_assert(C_.rows() == m && C_.cols() == n && D_.rows() == m && D_.cols() == m);
  (void)n;
  (void)m;
}

LinearNcp LinearNcp::lcp(const MatX& M, const VecX& q) {
  const Eigen::Index n = q.size();
  return LinearNcp(MatX(0, 0), MatX(0, n), VecX(0), MatX(n, 0), M, q);
}

void LinearNcp::evaluate(const VecX& y, const VecX& gamma, VecX& F, VecX& c) const {
  // F = A y + B γ + a
  F = a_;
  if (a_.size() > 0) {
    F.noalias() += A_ * y;
    if (d_.size() > 0) F.noalias() += B_ * gamma;
  }
  // c = C y + D γ + d
  c = d_;
  if (d_.size() > 0) {
    c.noalias() += D_ * gamma;
    if (a_.size() > 0) c.noalias() += C_ * y;
  }
}

void LinearNcp::jacobian(const VecX&, const VecX&, MatX& Fy, MatX& Fg, MatX& cy, MatX& cg) const {
  Fy = A_;
  Fg = B_;
  cy = C_;
  cg = D_;
}

// ---------------------------------------------------------------------------------------------
// DenseNcp
// ---------------------------------------------------------------------------------------------

DenseNcp::DenseNcp(const DenseNcpFunctions& functions) : f_(functions) {
  const int n = f_.numFree(), m = f_.numPairs();
  // All storage, once.
  for (Iterate* x : {&cur_, &trial_}) {
    x->y = VecX::Zero(n);
    x->s = VecX::Ones(m);
    x->g = VecX::Ones(m);
    x->F = VecX::Zero(n);
    x->c = VecX::Zero(m);
    x->r = VecX::Zero(m);
  }
  dy_ = VecX::Zero(n);
  dg_ = VecX::Zero(m);
  ds_ = VecX::Zero(m);
  Fy_ = MatX::Zero(n, n);
  Fg_ = MatX::Zero(n, m);
  cy_ = MatX::Zero(m, n);
  cg_ = MatX::Zero(m, m);
  K_ = MatX::Zero(n + m, n + m);
  lu_ = Eigen::PartialPivLU<MatX>(n + m);
  rhs_ = VecX::Zero(n + m);
  sol_ = VecX::Zero(n + m);
}

void DenseNcp::setStart(const VecX& y, const VecX& s, const VecX& gamma) {
  eigen_assert(y.size() == cur_.y.size() && s.size() == cur_.s.size() && gamma.size() == cur_.g.size());
  cur_.y = y;
  cur_.s = s;
  cur_.g = gamma;
}

void DenseNcp::setStart(const VecX& y, double value) {
  eigen_assert(y.size() == cur_.y.size());
  cur_.y = y;
  cur_.s.setConstant(value);
  cur_.g.setConstant(value);
}

IpEqualityNorms DenseNcp::evaluate(IpIterate which) {
  Iterate& x = which == IpIterate::Current ? cur_ : trial_;
  // F(y, γ), c(y, γ) and c − s
  f_.evaluate(x.y, x.g, x.F, x.c);
  x.r = x.c - x.s;
  IpEqualityNorms n;
  n.squared = x.F.squaredNorm() + x.r.squaredNorm();
  n.maxAbs = std::max(maxAbs(x.F), maxAbs(x.r));
  if (!std::isfinite(n.squared)) n.maxAbs = std::numeric_limits<double>::quiet_NaN();
  return n;
}

bool DenseNcp::factor() {
  const int n = f_.numFree(), m = f_.numPairs();
  // Jacobian blocks at the current iterate.
  f_.jacobian(cur_.y, cur_.g, Fy_, Fg_, cy_, cg_);
  // Reduced matrix [F_y F_γ; c_y c_γ + SΓ⁻¹] (Δs eliminated per pair).
  K_.topLeftCorner(n, n) = Fy_;
  K_.topRightCorner(n, m) = Fg_;
  K_.bottomLeftCorner(m, n) = cy_;
  K_.bottomRightCorner(m, m) = cg_;
  K_.bottomRightCorner(m, m).diagonal() += cur_.s.cwiseQuotient(cur_.g);
  if (!allFinite(Eigen::Map<const VecX>(K_.data(), K_.size()))) return false;
  lu_.compute(K_);
  // Singular if a pivot vanishes relative to the largest one.
  const auto d = lu_.matrixLU().diagonal();
  double big = 0.0, small = kInf;
  for (Eigen::Index i = 0; i < d.size(); ++i) {
    big = std::max(big, std::abs(d[i]));
    small = std::min(small, std::abs(d[i]));
  }
  return d.size() == 0 || (std::isfinite(big) && small > 0.0);
}

bool DenseNcp::solveNewton(const Eigen::Ref<const VecX>& r) {
  const int n = f_.numFree(), m = f_.numPairs();
  // Right-hand side [−F; −(c − s) + Γ⁻¹r].
  rhs_.head(n) = -cur_.F;
  rhs_.tail(m) = r.cwiseQuotient(cur_.g) - cur_.r;
  sol_ = lu_.solve(rhs_);
  // Back-substitute the slack step Δs = Γ⁻¹(r − SΔγ).
  dy_ = sol_.head(n);
  dg_ = sol_.tail(m);
  ds_ = (r - cur_.s.cwiseProduct(dg_)).cwiseQuotient(cur_.g);
  return allFinite(sol_) && allFinite(ds_);
}

void DenseNcp::apply(double alpha) {
  trial_.y = cur_.y + alpha * dy_;
  trial_.s = cur_.s + alpha * ds_;
  trial_.g = cur_.g + alpha * dg_;
}

void DenseNcp::raisePairs(const Eigen::Ref<const VecX>& s, const Eigen::Ref<const VecX>& gamma) {
  cur_.s = s;
  cur_.g = gamma;
}

void DenseNcp::accept() {
  cur_.y.swap(trial_.y);
  cur_.s.swap(trial_.s);
  cur_.g.swap(trial_.g);
  cur_.F.swap(trial_.F);
  cur_.c.swap(trial_.c);
  cur_.r.swap(trial_.r);
}

// ---------------------------------------------------------------------------------------------
// Point contact with a linearised friction cone
// ---------------------------------------------------------------------------------------------

PointContactNcp makePointContactStep(const PointContactStep& p) {
  const int nf = p.numDirections;
  eigen_assert(nf >= 4 && nf % 2 == 0);
  const int m = 2 + nf;
  const Vec3 n = p.normal.normalized();
  // Tangent basis in the contact plane: t₁ from the hint, else from the axis least aligned with n.
  Vec3 t1 = p.tangentHint - n * n.dot(p.tangentHint);
  if (!(t1.norm() > 1e-9 * std::max(1.0, p.tangentHint.norm()))) {
    Eigen::Index axis = 0;
    n.cwiseAbs().minCoeff(&axis);
    const Vec3 e = Vec3::Unit(axis);
    t1 = e - n * n.dot(e);
  }
  t1.normalize();
  const Vec3 t2 = n.cross(t1);
  MatX dirs(3, nf);
  const double pi = std::acos(-1.0);
  for (int k = 0; k < nf; ++k) {
    const double th = 2.0 * pi * k / nf;
    dirs.col(k) = std::cos(th) * t1 + std::sin(th) * t2;
  }

  // F = m(v − v₀) − Δt(m g + f) − n γ − Σ b_k β_k   (29a without joints)
  MatX A = p.mass * MatX::Identity(3, 3);
  MatX B = MatX::Zero(3, m);
  B.col(PointContactNcp::kNormal) = -n;
  B.middleCols(PointContactNcp::kFriction, nf) = -dirs;
  VecX a = -p.mass * p.velocity - p.dt * (p.mass * p.gravity + p.force);
  // φ(z₂) = gap + Δt nᵀv   (29c);   μ_f γ − Σβ   (29e);   η_k = b_kᵀ v + ψ   (29d, 29f)
  MatX C = MatX::Zero(m, 3);
  MatX D = MatX::Zero(m, m);
  VecX d = VecX::Zero(m);
  C.row(PointContactNcp::kNormal) = p.dt * n.transpose();
  d[PointContactNcp::kNormal] = p.gap;
  D(PointContactNcp::kCone, PointContactNcp::kNormal) = p.frictionCoefficient;
  D.block(PointContactNcp::kCone, PointContactNcp::kFriction, 1, nf).setConstant(-1.0);
  C.middleRows(PointContactNcp::kFriction, nf) = dirs.transpose();
  D.block(PointContactNcp::kFriction, PointContactNcp::kCone, nf, 1).setOnes();
  return PointContactNcp{LinearNcp(std::move(A), std::move(B), std::move(a), std::move(C), std::move(D), std::move(d)),
                         std::move(dirs), n};
}

}  // namespace ms
