// SPDX-License-Identifier: GPL-3.0-or-later
// Primal-dual interior-point Newton driver for complementarity problems (the contact/friction
// part of one variational-integrator step, Brüdigam et al. 2023 §3.3–3.5 eqs (22)–(29),
// Appendix D), following the primal-dual barrier method of Nocedal & Wright, Numerical
// Optimization (2nd ed.), Algorithm 19.1, with the μ update of Mehrotra's predictor–corrector
// (N&W §14.2, Algorithm 14.3; default) or the monotone Fiacco–McCormick rule.
//
// Problem (y free: velocities, joint impulses; m complementarity pairs (s_i, γ_i)):
//   F(y, γ)     = 0                      equalities, e.g. (29a), (29b), (29d)
//   c(y, γ) − s = 0                      slacks of the inequalities, e.g. φ(z₂) in (29c),
//                                        C_f γ − Eᵀβ in (29e), η in (29f)
//   s ≥ 0, γ ≥ 0, s∘γ = 0                complementarity (23)
// (c may depend on γ: the friction cone slack C_f γ − Eᵀβ does; an LCP w = Mz + q is c(γ) = Mγ + q
// with no y at all.) The driver solves the perturbed system s∘γ = μ for a decreasing μ > 0 and
// keeps s, γ > 0 strictly. Each Newton step solves
//   [ F_y  F_γ   0 ] [Δy]     [ −F         ]
//   [ c_y  c_γ  −I ] [Δγ]  =  [ −(c − s)   ]
//   [ 0    S    Γ  ] [Δs]     [ r          ]     S = diag(s), Γ = diag(γ),
// where r = μ·1 − s∘γ (− Δs_aff∘Δγ_aff for the Mehrotra corrector) is chosen by the driver.
// The problem assembles and factors its own matrix (the driver never forms one); the slack rows
// can be eliminated locally, Δs = Γ⁻¹(r − SΔγ), leaving [F_y F_γ; c_y c_γ + SΓ⁻¹] — this is what a
// contact node of the graph LDU does and what DenseNcp below does densely.
//
// Iteration (one "iteration" = one factorisation):
//   1. converged when ‖[F; c − s]‖∞ ≤ tol and max(s∘γ) ≤ complementarityTol;
//   2. Mehrotra rule (default): μ = sᵀγ/m, affine step (r = −s∘γ), μ_aff = complementarity after
//      the affine step to the boundary, σ = (μ_aff/μ)³, target μ_t = max(σμ, μ_min), corrector
//      r = μ_t − s∘γ − Δs_aff∘Δγ_aff (second back-substitution, same factorisation).
//      Monotone rule (N&W Alg. 19.1 with the Fiacco–McCormick update of IPOPT, Wächter & Biegler
//      2006 eq. 7): when the barrier error max(‖[F; c − s]‖∞, ‖s∘γ − μ‖∞) ≤ κ_ε·μ,
//      μ ← max(μ_min, min(κ_μ·μ, μ^θ)); μ_t = μ. Both: μ_min = min(tol, complementarityTol)/10;
//   3. fraction to the boundary (N&W (19.9)): α_max = min(1, −τ·s_i/Δs_i over Δs_i < 0,
//      −τ·γ_i/Δγ_i over Δγ_i < 0), τ = max(τ_min, 1 − μ) — one common α for s, γ and y, since F
//      couples them;
//   4. backtracking α ← α/2 from α_max on the merit φ = ‖F‖² + ‖c − s‖² + ‖s∘γ − μ_t‖² (μ_t the
//      target of this step), accepting the first α with φ(α) ≤ φ(0) + c₁·α·φ'(0), where
//      φ'(0) = −2(‖F‖² + ‖c − s‖² + ‖s∘γ − μ_t‖² + (s∘γ − μ_t)ᵀ·corr) is exact for an exact Jacobian
//      (corr = Δs_aff∘Δγ_aff, 0 for the monotone rule). If the corrected direction is not a descent
//      direction or its line search fails, the pure Newton direction (corr = 0) is tried. Once
//      ‖[F; c − s]‖∞ ≤ tol at both points (its rounding noise would dominate φ), sufficient decrease
//      of the complementarity part ‖s∘γ − μ_t‖² alone is also accepted.
//   5. recentring (anti-jamming): after jamSteps accepted steps in a row shorter than jamAlpha (a
//      pair pinned at the boundary far off the central path cuts every step to nothing), each pair
//      with s_i γ_i < jamCentrality·sᵀγ/m has its smaller member raised so that s_i γ_i = sᵀγ/m
//      (InteriorPointProblem::raisePairs); the iteration goes on from there. Measured on the
//      rubber-footed quadruped (docs/engine.md, contacts).
// Degenerate pairs (s_i = γ_i = 0 at the solution) converge only like √μ, linearly: expect ~20–35
// iterations to reach s_i, γ_i ≤ 1e-9 there, 5–15 for nondegenerate problems.
// Allocation: the driver allocates two m-vectors in reserve() (called by solve() when a problem has
// more pairs than reserved); a problem must not allocate in its methods after construction. Then solve()
// allocates only the report message at the end.
#pragma once

#include <string>

#include <Eigen/LU>

#include "core/types.h"

namespace ms {

// ---------------------------------------------------------------------------------------------
// Settings, report, trace
// ---------------------------------------------------------------------------------------------

enum class InteriorPointMuRule {
  Mehrotra,  // predictor–corrector, σ = (μ_aff/μ)³, two back-substitutions per factorisation (default)
  Monotone,  // N&W Alg. 19.1: one barrier problem per μ, superlinear decrease of μ
};

struct InteriorPointSettings {
  double tol = 1e-10;                // on ‖[F; c − s]‖∞
  double complementarityTol = 1e-10; // on max_i s_i·γ_i
  int maxIterations = 50;            // factorisations
  int maxLineSearch = 30;            // step halvings per iteration
  double tauMin = 0.95;              // fraction to the boundary τ = max(tauMin, 1 − μ)
  double armijo = 1e-4;              // sufficient-decrease constant c₁
  InteriorPointMuRule muRule = InteriorPointMuRule::Mehrotra;
  double initialMu = -1.0;           // monotone rule; ≤ 0: μ₀ = sᵀγ/m at the starting point
  double muDecrease = 0.2;           // κ_μ (monotone rule)
  double muSuperlinear = 1.5;        // θ (monotone rule)
  double barrierTolFactor = 10.0;    // κ_ε: decrease μ when the barrier error ≤ κ_ε·μ
  double infeasibilityMuFactor = 0.1; // Mehrotra: μ_t ≥ this · min(μ, ‖[F; c − s]‖∞) (anti-jamming)
  // Recentring (anti-jamming): after jamSteps consecutive accepted steps shorter than jamAlpha, every
  // pair with s_i γ_i < jamCentrality · sᵀγ/m has its smaller member raised so that s_i γ_i = sᵀγ/m.
  double jamAlpha = 1e-6;
  int jamSteps = 2;
  double jamCentrality = 1e-2;
  // > 0: the solve stops (status Abandoned) at the first accepted step shorter than this — for a
  // caller that has another start to try when this one jams (the contact step's centred warm start).
  double abandonAlpha = 0;
  // false: the report carries no message (solve() then allocates nothing, whatever its outcome).
  bool reportMessage = true;
};

enum class InteriorPointStatus {
  Converged,
  MaxIterations,     // iteration limit reached (slow progress, or the problem has no solution)
  LineSearchFailed,  // no step length gave sufficient decrease of the merit function
  NonFinite,         // NaN/Inf in the residual or the Newton direction
  Singular,          // the problem could not factor its Newton matrix
  InvalidStart,      // a slack or dual of the starting point is not > 0
  Abandoned,         // a step shorter than InteriorPointSettings::abandonAlpha (the caller starts again)
};

const char* toString(InteriorPointStatus status);

struct InteriorPointReport {
  InteriorPointStatus status = InteriorPointStatus::MaxIterations;
  int iterations = 0;            // factorisations performed
  double residual = 0.0;         // ‖[F; c − s]‖∞ at the returned iterate
  double complementarity = 0.0;  // max s_i·γ_i at the returned iterate
  double mu = 0.0;               // barrier parameter at the end
  std::string message;           // plain-language outcome
  bool converged() const { return status == InteriorPointStatus::Converged; }
};

// State after an accepted step (iteration 0: the starting point).
struct InteriorPointTrace {
  int iteration = 0;
  double mu = 0.0;               // barrier target used for the step (μ_t)
  double alphaMax = 0.0;         // fraction-to-the-boundary limit
  double alpha = 0.0;            // accepted step length
  int lineSearchSteps = 0;       // halvings before acceptance
  double residual = 0.0;         // ‖[F; c − s]‖∞
  double complementarity = 0.0;  // max s∘γ
  double minSlack = 0.0;
  double minDual = 0.0;
  double merit = 0.0;            // φ at the accepted point with the step's μ_t
};

class InteriorPointProblem;

// Optional per-iteration callback (diagnostics, tests).
class InteriorPointObserver {
 public:
  virtual ~InteriorPointObserver() = default;
  virtual void onIterate(const InteriorPointProblem& problem, const InteriorPointTrace& trace) = 0;
};

// ---------------------------------------------------------------------------------------------
// The problem interface: the caller owns the iterates, the direction and the linear algebra
// ---------------------------------------------------------------------------------------------

enum class IpIterate { Current, Trial };

struct IpEqualityNorms {
  double squared = 0.0;  // ‖F‖² + ‖c − s‖²
  double maxAbs = 0.0;   // ‖[F; c − s]‖∞ (NaN/Inf if any entry is non-finite)
};

class InteriorPointProblem {
 public:
  virtual ~InteriorPointProblem() = default;
  // Number of complementarity pairs m (length of s and γ).
  virtual int numPairs() const = 0;
  // Slacks s and duals γ of an iterate, and the s/γ parts of the last Newton direction.
  virtual Eigen::Ref<const VecX> slack(IpIterate which) const = 0;
  virtual Eigen::Ref<const VecX> dual(IpIterate which) const = 0;
  virtual Eigen::Ref<const VecX> slackStep() const = 0;
  virtual Eigen::Ref<const VecX> dualStep() const = 0;
  // Evaluate F and c − s at an iterate (kept for solveNewton when `which` is Current).
  virtual IpEqualityNorms evaluate(IpIterate which) = 0;
  // Assemble and factor the Newton matrix at the current iterate. false: singular/non-finite.
  virtual bool factor() = 0;
  // With the factorisation of factor(): solve for the direction (Δy, Δγ, Δs) with right-hand side
  // [−F; −(c − s); r], F and c − s of the current iterate. May be called several times per
  // factorisation. false: the direction is non-finite.
  virtual bool solveNewton(const Eigen::Ref<const VecX>& complementarityRhs) = 0;
  // trial = current + alpha·direction.
  virtual void apply(double alpha) = 0;
  // current = trial (together with the residual evaluated at the trial).
  virtual void accept() = 0;
  // Raises the current iterate's slack s_i to s_i' and dual γ_i to γ_i' (recentring of jammed
  // pairs; both ≥ the current values). The driver re-evaluates the current iterate afterwards.
  virtual void raisePairs(const Eigen::Ref<const VecX>& s, const Eigen::Ref<const VecX>& gamma) = 0;
};

// ---------------------------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------------------------

class InteriorPointSolver {
 public:
  explicit InteriorPointSolver(const InteriorPointSettings& settings = {}) : settings_(settings) {}
  InteriorPointSettings& settings() { return settings_; }
  const InteriorPointSettings& settings() const { return settings_; }
  // Size the work vectors for up to m pairs (allocates; solve() calls it when a problem has more).
  void reserve(int numPairs);
  // Solve from the problem's current iterate (which must have s > 0, γ > 0). On return the
  // problem's current iterate is the last accepted one.
  InteriorPointReport solve(InteriorPointProblem& problem, InteriorPointObserver* observer = nullptr);

 private:
  InteriorPointSettings settings_;
  VecX rhs_;   // complementarity right-hand side r
  VecX corr_;  // Δs_aff∘Δγ_aff (Mehrotra corrector)
};

// ---------------------------------------------------------------------------------------------
// Dense reference problem (tests, small examples)
// ---------------------------------------------------------------------------------------------

// F(y, γ), c(y, γ) and their Jacobians. Implementations must not allocate (outputs are sized).
class DenseNcpFunctions {
 public:
  virtual ~DenseNcpFunctions() = default;
  virtual int numFree() const = 0;
  virtual int numPairs() const = 0;
  virtual void evaluate(const VecX& y, const VecX& gamma, VecX& F, VecX& c) const = 0;
  virtual void jacobian(const VecX& y, const VecX& gamma, MatX& Fy, MatX& Fg, MatX& cy, MatX& cg) const = 0;
};

// Mixed linear complementarity problem: F = A·y + B·γ + a, c = C·y + D·γ + d.
class LinearNcp final : public DenseNcpFunctions {
 public:
  LinearNcp(MatX A, MatX B, VecX a, MatX C, MatX D, VecX d);
  // LCP(M, q): w = M z + q ≥ 0, z ≥ 0, w∘z = 0 (no free variables; γ = z, s = w).
  static LinearNcp lcp(const MatX& M, const VecX& q);
  int numFree() const override { return static_cast<int>(a_.size()); }
  int numPairs() const override { return static_cast<int>(d_.size()); }
  void evaluate(const VecX& y, const VecX& gamma, VecX& F, VecX& c) const override;
  void jacobian(const VecX& y, const VecX& gamma, MatX& Fy, MatX& Fg, MatX& cy, MatX& cg) const override;

 private:
  MatX A_, B_, C_, D_;
  VecX a_, d_;
};

// Dense implementation of InteriorPointProblem: eliminates Δs per pair and factors the reduced
// (n_y + m)² matrix [F_y F_γ; c_y c_γ + SΓ⁻¹] with partial-pivoting LU. All storage is allocated in
// the constructor. The functions object must outlive the problem.
class DenseNcp final : public InteriorPointProblem {
 public:
  explicit DenseNcp(const DenseNcpFunctions& functions);
  // Starting point (s, γ must be > 0; the driver checks). The second form sets s = γ = value.
  void setStart(const VecX& y, const VecX& s, const VecX& gamma);
  void setStart(const VecX& y, double value = 1.0);

  int numFree() const { return f_.numFree(); }
  const VecX& y() const { return cur_.y; }
  const VecX& s() const { return cur_.s; }
  const VecX& gamma() const { return cur_.g; }

  int numPairs() const override { return f_.numPairs(); }
  Eigen::Ref<const VecX> slack(IpIterate which) const override { return it(which).s; }
  Eigen::Ref<const VecX> dual(IpIterate which) const override { return it(which).g; }
  Eigen::Ref<const VecX> slackStep() const override { return ds_; }
  Eigen::Ref<const VecX> dualStep() const override { return dg_; }
  IpEqualityNorms evaluate(IpIterate which) override;
  bool factor() override;
  bool solveNewton(const Eigen::Ref<const VecX>& complementarityRhs) override;
  void apply(double alpha) override;
  void accept() override;
  void raisePairs(const Eigen::Ref<const VecX>& s, const Eigen::Ref<const VecX>& gamma) override;

 private:
  // One iterate with its residuals F and c − s.
  struct Iterate {
    VecX y, s, g, F, c, r;  // r = c − s
  };
  const Iterate& it(IpIterate which) const { return which == IpIterate::Current ? cur_ : trial_; }

  const DenseNcpFunctions& f_;
  Iterate cur_, trial_;
  VecX dy_, dg_, ds_;
  MatX Fy_, Fg_, cy_, cg_, K_;
  Eigen::PartialPivLU<MatX> lu_;
  VecX rhs_, sol_;
};

// One implicit step of a point mass (block) touching a plane with a linearised friction cone —
// the maximum-dissipation form (28a)–(28e) for one contact with n_f directions:
//   y = v (velocity over the step, ż₁), pairs ordered [γ, ψ, β₁..β_{n_f}] with slacks
//   s = [φ(z₂) = gap + Δt·nᵀv,   μ_f·γ − Σβ_k,   η_k = b_kᵀv + ψ],
//   F = m(v − v₀) − Δt(m·g + f) − n·γ − Σ b_k·β_k      (impulses γ, β in N·s).
// b_k = cos(2πk/n_f)·t₁ + sin(2πk/n_f)·t₂ are built in the contact's tangent plane: t₁ is the
// tangentHint projected onto the plane (or any tangent if the hint is parallel to n), t₂ = n × t₁.
struct PointContactStep {
  double mass = 1.0;
  double dt = 0.01;
  double frictionCoefficient = 0.5;
  int numDirections = 4;                  // n_f, even, ≥ 4
  Vec3 normal = Vec3::UnitZ();            // plane normal (normalised internally)
  Vec3 tangentHint = Vec3::UnitX();       // b₁ direction (projected onto the plane)
  Vec3 gravity = Vec3(0.0, 0.0, -9.81);
  Vec3 force = Vec3::Zero();              // applied force during the step
  Vec3 velocity = Vec3::Zero();           // v₀ (previous step velocity)
  double gap = 0.0;                       // distance of the contact point above the plane at z₁
};

struct PointContactNcp {
  LinearNcp functions;
  MatX directions;  // 3 × n_f, column k = b_{k+1}
  Vec3 normal;      // normalised
  static constexpr int kNormal = 0;     // pair index of (φ, γ)
  static constexpr int kCone = 1;       // pair index of (μγ − Σβ, ψ)
  static constexpr int kFriction = 2;   // first pair of (η_k, β_k)
};

PointContactNcp makePointContactStep(const PointContactStep& params);

}  // namespace ms
