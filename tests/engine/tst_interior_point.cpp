// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of the primal-dual interior-point driver (solver/interior_point.h; Nocedal & Wright
// Alg. 19.1, Brüdigam et al. 2023 §3.3–3.5 and Appendices C–D) on the dense reference problem:
// LCPs against closed forms and brute-force active-set enumeration, degenerate and infeasible
// LCPs, one implicit step of a block pushed on a plane with a linearised friction cone (stick and
// slide in closed form), the fraction-to-the-boundary rule at every iterate, and no allocation
// per iteration. Every case runs with both μ rules (monotone and Mehrotra).
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "core/types.h"
#include "solver/interior_point.h"

#include "allocation_counter.h"

using namespace ms;

namespace {

using Rng = std::mt19937_64;
constexpr InteriorPointMuRule kRules[] = {InteriorPointMuRule::Mehrotra, InteriorPointMuRule::Monotone};

const char* ruleName(InteriorPointMuRule r) { return r == InteriorPointMuRule::Monotone ? "monotone" : "mehrotra"; }

// Records every iterate and checks that s, γ stay > 0 and obey the fraction-to-the-boundary rule
// s_new ≥ (1 − τ)·s_old with 1 − τ = min(1 − τ_min, μ) (same for γ). Storage is sized up front.
class Recorder final : public InteriorPointObserver {
 public:
  explicit Recorder(int m, double tauMin) : tauMin_(tauMin), prevS_(m), prevG_(m) { traces.reserve(256); }
  void onIterate(const InteriorPointProblem& p, const InteriorPointTrace& t) override {
    const Eigen::Ref<const VecX> s = p.slack(IpIterate::Current);
    const Eigen::Ref<const VecX> g = p.dual(IpIterate::Current);
    // 1 − τ as the driver computes it (τ = 1 − μ rounds), less the rounding of s + α·Δs.
    const double keep = 1.0 - std::max(tauMin_, 1.0 - t.mu) - 1e-15;
    for (Eigen::Index i = 0; i < s.size(); ++i) {
      if (!(s[i] > 0.0) || !(g[i] > 0.0) || !std::isfinite(s[i]) || !std::isfinite(g[i])) interior = false;
      if (t.iteration > 0 && (s[i] < keep * prevS_[i] || g[i] < keep * prevG_[i])) {
        if (fractionRule)
          qWarning("fraction-to-the-boundary violated at iteration %d: s %.3e -> %.3e, gamma %.3e -> %.3e, 1 - tau %.3e",
                   t.iteration, prevS_[i], s[i], prevG_[i], g[i], keep);
        fractionRule = false;
      }
    }
    if (t.alpha > t.alphaMax || t.alphaMax > 1.0) fractionRule = false;
    if (t.iteration > 0) minAlphaMax = std::min(minAlphaMax, t.alphaMax);
    prevS_ = s;
    prevG_ = g;
    if (traces.size() < traces.capacity()) traces.push_back(t);
  }
  std::vector<InteriorPointTrace> traces;
  bool interior = true;
  bool fractionRule = true;
  double minAlphaMax = 1.0;  // smallest fraction-to-the-boundary limit seen (< 1: the rule cut a step)

 private:
  double tauMin_;
  VecX prevS_, prevG_;
};

struct Run {
  InteriorPointReport report;
  VecX y, s, g;
  bool interior = true;
  bool fractionRule = true;
  double minAlphaMax = 1.0;
  int observed = 0;
};

// Solves a dense problem from y0 (zeros if empty) and s = γ = start.
Run solveDense(const DenseNcpFunctions& f, const InteriorPointSettings& st, const VecX& y0 = VecX(), double start = 1.0) {
  DenseNcp problem(f);
  problem.setStart(y0.size() ? y0 : VecX::Zero(f.numFree()), start);
  Recorder rec(f.numPairs(), st.tauMin);
  InteriorPointSolver solver(st);
  Run r;
  r.report = solver.solve(problem, &rec);
  r.y = problem.y();
  r.s = problem.s();
  r.g = problem.gamma();
  r.interior = rec.interior;
  r.fractionRule = rec.fractionRule;
  r.minAlphaMax = rec.minAlphaMax;
  r.observed = static_cast<int>(rec.traces.size());
  return r;
}

InteriorPointSettings lcpSettings(InteriorPointMuRule rule) {
  InteriorPointSettings st;
  st.tol = 1e-12;
  st.complementarityTol = 1e-13;
  st.muRule = rule;
  return st;
}

// Iteration counts gathered for the summary printed at the end.
std::vector<std::string>& summary() {
  static std::vector<std::string> rows;
  return rows;
}
void logIterations(const std::string& name, InteriorPointMuRule rule, const InteriorPointReport& rep) {
  char line[256];
  std::snprintf(line, sizeof line, "%-34s %-9s %3d iterations  residual %.1e  complementarity %.1e  (%s)", name.c_str(),
                ruleName(rule), rep.iterations, rep.residual, rep.complementarity, toString(rep.status));
  summary().push_back(line);
}

// Brute-force LCP: tries every active set A (w_A = 0, z_{¬A} = 0). Returns false if none fits.
bool bruteForceLcp(const MatX& M, const VecX& q, VecX& z) {
  const int n = static_cast<int>(q.size());
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> a;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) a.push_back(i);
    z = VecX::Zero(n);
    if (!a.empty()) {
      const int k = static_cast<int>(a.size());
      MatX Maa(k, k);
      VecX qa(k);
      for (int i = 0; i < k; ++i) {
        qa[i] = q[a[i]];
        for (int j = 0; j < k; ++j) Maa(i, j) = M(a[i], a[j]);
      }
      Eigen::FullPivLU<MatX> lu(Maa);
      if (!lu.isInvertible()) continue;
      const VecX za = lu.solve(-qa);
      for (int i = 0; i < k; ++i) z[a[i]] = za[i];
    }
    const VecX w = M * z + q;
    if (z.minCoeff() >= -1e-12 && w.minCoeff() >= -1e-12) return true;
  }
  return false;
}

// z ≥ 0, w = Mz + q ≥ 0 and min(w, z) ≈ 0 componentwise, to tol.
void checkLcp(const MatX& M, const VecX& q, const VecX& z, double tol, const char* what) {
  const VecX w = M * z + q;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) worst = std::max(worst, std::abs(std::min(w[i], z[i])));
  const QByteArray msg = QByteArray(what) + QByteArray(": max|min(w, z)| = ") + QByteArray::number(worst, 'e', 2) +
                         QByteArray(", min z = ") + QByteArray::number(z.minCoeff(), 'e', 2) +
                         QByteArray(", min w = ") + QByteArray::number(w.minCoeff(), 'e', 2);
  QVERIFY2(worst <= tol && z.minCoeff() >= -tol && w.minCoeff() >= -tol, msg.constData());
}

// Random positive-definite (not symmetric) n×n matrix: AAᵀ/n + 0.2 I + skew.
MatX randomPdMatrix(Rng& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  MatX a(n, n), k(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      a(i, j) = u(rng);
      k(i, j) = u(rng);
    }
  return a * a.transpose() / n + 0.2 * MatX::Identity(n, n) + 0.5 * (k - k.transpose());
}

VecX randomVec(Rng& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX v(n);
  for (int i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

// Solves LCP(M, q) with both μ rules; checks convergence, interior iterates, complementarity and
// (if given) the known solution.
// Returns the smallest fraction-to-the-boundary limit over both runs.
double solveAndCheckLcp(const std::string& name, const MatX& M, const VecX& q, const VecX* expected, double solTol,
                        double compTol = 1e-13, double minTol = 1e-9, int maxIterations = 30) {
  double minAlphaMax = 1.0;
  const LinearNcp f = LinearNcp::lcp(M, q);
  for (InteriorPointMuRule rule : kRules) {
    InteriorPointSettings st = lcpSettings(rule);
    st.complementarityTol = compTol;
    const Run r = solveDense(f, st);
    logIterations(name, rule, r.report);
    const QByteArray what = QByteArray::fromStdString(name + " (" + ruleName(rule) + "): " + r.report.message);
    minAlphaMax = std::min(minAlphaMax, r.minAlphaMax);
    [&] {
      QVERIFY2(r.report.converged(), what.constData());
      QVERIFY2(r.interior, what.constData());
      QVERIFY2(r.fractionRule, what.constData());
      QCOMPARE(r.observed, r.report.iterations + 1);
      QVERIFY2(r.report.iterations <= maxIterations, what.constData());
      QVERIFY(r.report.complementarity <= compTol);
      checkLcp(M, q, r.g, minTol, what.constData());
      // s is w up to the equality residual.
      QVERIFY((r.s - (M * r.g + q)).lpNorm<Eigen::Infinity>() <= 1e-12);
      if (expected) {
        const double err = (r.g - *expected).lpNorm<Eigen::Infinity>();
        QVERIFY2(err <= solTol, (what + " error " + QByteArray::number(err, 'e', 2)).constData());
      }
    }();
    if (QTest::currentTestFailed()) break;
  }
  return minAlphaMax;
}

// Friction-step closed form: block of mass m resting on a plane (normal n, gravity −g·n), pushed by
// f along a cone direction for one step Δt from rest.
struct FrictionCase {
  int numDirections;
  double pushFactor;   // |f| / (μ_f m g)
  int pushDirection;   // index of the cone direction the push follows
  double tilt;         // rotation of the plane normal about y (rad)
};

}  // namespace

class TestInteriorPoint : public QObject {
  Q_OBJECT

 private slots:
  // Closed-form 2×2 and 3×3 LCPs: interior solution, one active component, mixed.
  void lcpSmall() {
    MatX M2(2, 2);
    M2 << 2, 1, 1, 2;
    VecX q(2), z(2);
    q << -5, -6;
    z << 4.0 / 3.0, 7.0 / 3.0;
    solveAndCheckLcp("LCP 2x2 (both z > 0)", M2, q, &z, 1e-10);
    q << -1, 2;
    z << 0.5, 0.0;
    solveAndCheckLcp("LCP 2x2 (z2 = 0)", M2, q, &z, 1e-10);
    MatX M3(3, 3);
    M3 << 4, 1, 0, 1, 3, 1, 0, 1, 2;
    VecX q3(3), z3(3);
    q3 << -1, 2, -3;
    z3 << 0.25, 0.0, 1.5;
    solveAndCheckLcp("LCP 3x3 (mixed)", M3, q3, &z3, 1e-10);
    VecX zb;
    QVERIFY(bruteForceLcp(M3, q3, zb));
    QVERIFY((zb - z3).norm() < 1e-12);
  }

  // q ≥ 0: the solution is z = 0 (w = q).
  void lcpNonnegativeQ() {
    Rng rng(7);
    const MatX M = randomPdMatrix(rng, 6);
    VecX q = randomVec(rng, 6).cwiseAbs() + VecX::Constant(6, 0.1);
    const VecX z = VecX::Zero(6);
    solveAndCheckLcp("LCP 6x6 q >= 0 (z = 0)", M, q, &z, 1e-12);
  }

  // Random positive-definite LCPs, n ≤ 10, against brute-force active-set enumeration.
  void lcpRandomBruteForce() {
    Rng rng(20230611);
    for (int n : {2, 3, 5, 8, 10}) {
      for (int trial = 0; trial < 3; ++trial) {
        const MatX M = randomPdMatrix(rng, n);
        const VecX q = randomVec(rng, n);
        VecX zb;
        QVERIFY(bruteForceLcp(M, q, zb));
        solveAndCheckLcp("LCP random " + std::to_string(n) + "x" + std::to_string(n) + " #" + std::to_string(trial), M,
                         q, &zb, 1e-8);
      }
    }
  }

  // Random 20×20 positive-definite LCPs, checked by complementarity. The fraction-to-the-boundary
  // rule must have cut some step (α_max < 1) while all iterates stayed interior.
  void lcpRandom20() {
    Rng rng(42);
    double minAlphaMax = 1.0;
    for (int trial = 0; trial < 3; ++trial) {
      const MatX M = randomPdMatrix(rng, 20);
      const VecX q = randomVec(rng, 20);
      minAlphaMax = std::min(minAlphaMax,
                             solveAndCheckLcp("LCP random 20x20 #" + std::to_string(trial), M, q, nullptr, 0.0));
      if (QTest::currentTestFailed()) return;
    }
    qInfo("smallest fraction-to-the-boundary limit: %.3g", minAlphaMax);
    QVERIFY(minAlphaMax < 1.0);
  }

  // No complementarity pairs: plain (damped) Newton on F(y) = 0 — one iteration for linear F.
  void equalitiesOnly() {
    MatX A(2, 2);
    A << 3, 1, -1, 2;
    VecX a(2);
    a << 1, -2;
    const LinearNcp f(A, MatX(2, 0), a, MatX(0, 2), MatX(0, 0), VecX(0));
    for (InteriorPointMuRule rule : kRules) {
      const Run r = solveDense(f, lcpSettings(rule));
      QVERIFY2(r.report.converged(), r.report.message.c_str());
      QCOMPARE(r.report.iterations, 1);
      QVERIFY((A * r.y + a).norm() < 1e-14);
    }
  }

  // A Newton matrix with a zero row ends with status Singular; NaN residuals with NonFinite (at the
  // start) or LineSearchFailed (only far trial points are NaN) — never with NaN iterates.
  void singularAndNonFinite() {
    // F = 0·y + 0·γ + 1: no y can satisfy it and the matrix has a zero row.
    const LinearNcp singular(MatX::Zero(1, 1), MatX::Zero(1, 1), VecX::Ones(1), MatX::Zero(1, 1), MatX::Ones(1, 1),
                             VecX::Ones(1));
    const Run rs = solveDense(singular, lcpSettings(InteriorPointMuRule::Mehrotra));
    QCOMPARE(rs.report.status, InteriorPointStatus::Singular);
    qInfo("singular: %s", rs.report.message.c_str());

    // F(y) = y − 1, but NaN for y > 0.5 (a model evaluated outside its domain).
    struct NanAbove final : DenseNcpFunctions {
      double limit;
      explicit NanAbove(double l) : limit(l) {}
      int numFree() const override { return 1; }
      int numPairs() const override { return 0; }
      void evaluate(const VecX& y, const VecX&, VecX& F, VecX&) const override {
        F[0] = y[0] > limit ? std::numeric_limits<double>::quiet_NaN() : y[0] - 1.0;
      }
      void jacobian(const VecX&, const VecX&, MatX& Fy, MatX&, MatX&, MatX&) const override { Fy(0, 0) = 1.0; }
    };
    for (InteriorPointMuRule rule : kRules) {
      const Run r0 = solveDense(NanAbove(-1.0), lcpSettings(rule));
      QCOMPARE(r0.report.status, InteriorPointStatus::NonFinite);
      const Run r1 = solveDense(NanAbove(0.5), lcpSettings(rule));
      QCOMPARE(r1.report.status, InteriorPointStatus::LineSearchFailed);
      QVERIFY(r1.y.allFinite() && r1.y[0] <= 0.5 && r1.y[0] >= 0.49);
      QVERIFY(std::isfinite(r1.report.residual));
      if (rule == InteriorPointMuRule::Mehrotra) {
        qInfo("non-finite start: %s", r0.report.message.c_str());
        qInfo("non-finite trial points: %s", r1.report.message.c_str());
      }
    }
  }

  // Degenerate LCPs (w_i = z_i = 0 at the solution). Degenerate pairs converge like √μ, so the
  // complementarity tolerance is 1e-19 to get both w_i, z_i ≤ 1e-9.
  void lcpDegenerate() {
    MatX M2(2, 2);
    M2 << 2, 1, 1, 2;
    VecX z(2), w(2);
    z << 1, 0;
    w << 0, 0;
    VecX q = w - M2 * z;
    solveAndCheckLcp("LCP 2x2 degenerate (w2 = z2 = 0)", M2, q, &z, 1e-8, 1e-19, 1e-9, 40);
    const VecX zero = VecX::Zero(2);
    solveAndCheckLcp("LCP 2x2 q = 0 (all degenerate)", M2, VecX::Zero(2), &zero, 1e-8, 1e-19, 1e-9, 40);
    // 8×8 with z = (1, 0, 2, 0, 0, 0.5, 0, 0), w = (0, 1, 0, 0, 0, 0, 2, 0): pairs 3, 4, 7 degenerate.
    Rng rng(99);
    const MatX M = randomPdMatrix(rng, 8);
    VecX z8(8), w8(8);
    z8 << 1, 0, 2, 0, 0, 0.5, 0, 0;
    w8 << 0, 1, 0, 0, 0, 0, 2, 0;
    const VecX q8 = w8 - M * z8;
    solveAndCheckLcp("LCP 8x8 degenerate (3 pairs)", M, q8, &z8, 1e-8, 1e-19, 1e-9, 40);
  }

  // Infeasible LCPs end with a non-converged status, finite values and interior iterates.
  void lcpInfeasible() {
    MatX M1(1, 1);
    M1 << -2;
    VecX q1(1);
    q1 << -1;  // w = −2z − 1 < 0 for every z ≥ 0
    MatX M2(2, 2);
    M2 << 2, 1, -1, -1;
    VecX q2(2);
    q2 << -1, -1;  // w2 = −z1 − z2 − 1 < 0
    int k = 0;
    for (const auto& [M, q] : {std::make_pair(M1, q1), std::make_pair(M2, q2)}) {
      const LinearNcp f = LinearNcp::lcp(M, q);
      VecX zb;
      QVERIFY(!bruteForceLcp(M, q, zb));
      for (InteriorPointMuRule rule : kRules) {
        const Run r = solveDense(f, lcpSettings(rule));
        logIterations("LCP infeasible #" + std::to_string(k), rule, r.report);
        qInfo("infeasible #%d (%s): %s", k, ruleName(rule), r.report.message.c_str());
        QVERIFY(!r.report.converged());
        QVERIFY(r.report.status == InteriorPointStatus::LineSearchFailed ||
                r.report.status == InteriorPointStatus::MaxIterations);
        QVERIFY(r.report.message.find("no solution") != std::string::npos);
        QVERIFY(std::isfinite(r.report.residual) && r.report.residual > 0.1);
        QVERIFY(r.s.allFinite() && r.g.allFinite());
        QVERIFY(r.interior);
        QVERIFY(r.fractionRule);
        QVERIFY(r.report.iterations <= lcpSettings(rule).maxIterations);
      }
      ++k;
    }
  }

  // A starting point on the boundary is refused with a clear status.
  void invalidStart() {
    MatX M(1, 1);
    M << 1;
    VecX q(1);
    q << -1;
    const LinearNcp f = LinearNcp::lcp(M, q);
    DenseNcp p(f);
    p.setStart(VecX(), 0.0);
    InteriorPointSolver solver;
    const InteriorPointReport rep = solver.solve(p);
    QCOMPARE(rep.status, InteriorPointStatus::InvalidStart);
    QCOMPARE(rep.iterations, 0);
    qInfo("invalid start: %s", rep.message.c_str());
  }

  // One implicit step of a block on a plane with a linearised friction cone (28a)–(28e).
  void frictionStep_data() {
    QTest::addColumn<int>("numDirections");
    QTest::addColumn<double>("pushFactor");
    QTest::addColumn<int>("pushDirection");
    QTest::addColumn<double>("tilt");
    for (int nf : {4, 8})
      for (double factor : {0.5, 0.95, 1.05, 2.0})
        for (int dir : {0, 1, nf / 2 + 1})
          for (double tilt : {0.0, 0.3}) {
            const QByteArray name = QByteArray("nf=") + QByteArray::number(nf) + " push=" +
                                    QByteArray::number(factor) + "*mu*m*g dir=" + QByteArray::number(dir) +
                                    " tilt=" + QByteArray::number(tilt);
            QTest::newRow(name.constData()) << nf << factor << dir << tilt;
          }
  }
  void frictionStep() {
    QFETCH(int, numDirections);
    QFETCH(double, pushFactor);
    QFETCH(int, pushDirection);
    QFETCH(double, tilt);
    const double mass = 2.0, g = 9.81, dt = 0.01, mu = 0.5;
    PointContactStep p;
    p.mass = mass;
    p.dt = dt;
    p.frictionCoefficient = mu;
    p.numDirections = numDirections;
    p.normal = Vec3(std::sin(tilt), 0.0, std::cos(tilt));
    p.gravity = -g * p.normal;
    p.tangentHint = Vec3::UnitX();
    // The cone directions only depend on the normal and the hint: build once to pick the push.
    const PointContactNcp probe = makePointContactStep(p);
    const Vec3 dir = probe.directions.col(pushDirection);
    QVERIFY(std::abs(dir.dot(probe.normal)) < 1e-14);
    const double push = pushFactor * mu * mass * g;
    p.force = push * dir;
    const PointContactNcp ncp = makePointContactStep(p);

    // Closed form: normal impulse m g Δt; stick (v = 0, friction = −f Δt) below μ m g, else slide
    // along the push with v = (|f| − μ m g) Δt / m and friction impulse μ·(m g Δt) against it.
    const double normalImpulse = mass * g * dt;
    const bool slides = pushFactor > 1.0;
    const Vec3 vExpected = slides ? Vec3((push - mu * mass * g) * dt / mass * dir) : Vec3::Zero();
    const Vec3 frictionExpected = slides ? Vec3(-mu * normalImpulse * dir) : Vec3(-push * dt * dir);

    // The interior point stops at s∘γ ≈ μ > 0, e.g. the block floats at φ ≈ μ/γ above the plane:
    // v_z ≈ μ/(γΔt), normal impulse off by m·v_z. With γ ≈ 0.2 N·s, Δt = 0.01 s and m = 2 kg the
    // errors are ≲ 1e3·complementarityTol; checked at the brief's 1e-10 and at 1e-14.
    for (InteriorPointMuRule rule : kRules)
      for (double compTol : {1e-10, 1e-14}) {
      InteriorPointSettings st;
      st.muRule = rule;
      st.tol = 1e-10;
      st.complementarityTol = compTol;
      const double vTol = 1e3 * compTol, impulseTol = 2e3 * compTol;
      const Run r = solveDense(ncp.functions, st);
      const QByteArray what = QByteArray(QTest::currentDataTag()) + " (" + ruleName(rule) + ", complementarity " +
                              QByteArray::number(compTol) + "): " + QByteArray::fromStdString(r.report.message);
      if (tilt == 0.0 && pushDirection == 0)
        logIterations("friction nf=" + std::to_string(numDirections) + " push " + std::to_string(pushFactor).substr(0, 4) +
                          (slides ? " slide" : " stick") + (compTol < 1e-12 ? " tol 1e-14" : " tol 1e-10"),
                      rule, r.report);
      QVERIFY2(r.report.converged(), what.constData());
      QVERIFY2(r.interior && r.fractionRule, what.constData());
      QVERIFY2(r.report.iterations <= 30, what.constData());
      QVERIFY2(r.report.complementarity <= compTol, what.constData());
      QVERIFY((r.s.array() * r.g.array()).maxCoeff() <= compTol);
      const Vec3 v = r.y;
      const double gamma = r.g[PointContactNcp::kNormal];
      Vec3 friction = Vec3::Zero();
      for (int k = 0; k < numDirections; ++k) friction += r.g[PointContactNcp::kFriction + k] * ncp.directions.col(k);
      const double eV = (v - vExpected).norm(), eN = std::abs(gamma - normalImpulse),
                   eF = (friction - frictionExpected).norm();
      const QByteArray errs = what + " |v error| " + QByteArray::number(eV, 'e', 2) + " |normal error| " +
                              QByteArray::number(eN, 'e', 2) + " |friction error| " + QByteArray::number(eF, 'e', 2);
      QVERIFY2(eV <= vTol, errs.constData());
      QVERIFY2(eN <= impulseTol, errs.constData());
      QVERIFY2(eF <= impulseTol, errs.constData());
      // Tangential velocity zero when sticking (to the solver's accuracy).
      if (!slides) QVERIFY2((v - ncp.normal * ncp.normal.dot(v)).norm() <= vTol, errs.constData());
      // Friction force within the cone: |Σβ_k b_k| ≤ μ γ.
      QVERIFY(friction.norm() <= mu * gamma * (1.0 + 1e-9));
    }
  }

  // After construction, solve() allocates nothing per iteration: a 3-iteration run and a full run
  // allocate the same (the report message only).
  void noAllocationPerIteration() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc is not interposed in this build");
#else
    Rng rng(5);
    const MatX M = randomPdMatrix(rng, 20);
    const VecX q = randomVec(rng, 20);
    const LinearNcp lcp = LinearNcp::lcp(M, q);
    PointContactStep p;
    p.numDirections = 8;
    p.force = Vec3(10.0, 0.0, 0.0);
    const PointContactNcp contact = makePointContactStep(p);
    for (const DenseNcpFunctions* f : {static_cast<const DenseNcpFunctions*>(&lcp),
                                       static_cast<const DenseNcpFunctions*>(&contact.functions)}) {
      for (InteriorPointMuRule rule : kRules) {
        DenseNcp problem(*f);
        const VecX y0 = VecX::Zero(f->numFree());
        InteriorPointSettings st;
        st.muRule = rule;
        InteriorPointSolver solver(st);
        solver.reserve(f->numPairs());
        long counts[2] = {0, 0};
        int iterations[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
          solver.settings().maxIterations = k == 0 ? 3 : 50;
          problem.setStart(y0, 1.0);
          InteriorPointReport rep;
          rep.message.reserve(1024);
          g_allocations = 0;
          g_countAllocations = true;
          rep = solver.solve(problem);
          g_countAllocations = false;
          counts[k] = g_allocations;
          iterations[k] = rep.iterations;
        }
        qInfo("allocations (%s, m = %d): %ld in %d iterations, %ld in %d iterations", ruleName(rule), f->numPairs(),
              counts[0], iterations[0], counts[1], iterations[1]);
        QVERIFY(iterations[1] > iterations[0]);
        // Independent of the iteration count: a converged solve allocates nothing; a capped one only
        // its report message (operator new and its malloc both count).
        QCOMPARE(counts[1], 0L);
        QVERIFY(counts[0] <= 2);
      }
    }
#endif
  }

  void cleanupTestCase() {
    qInfo("Iteration counts:");
    for (const std::string& row : summary()) qInfo("  %s", row.c_str());
  }
};

QTEST_APPLESS_MAIN(TestInteriorPoint)
#include "tst_interior_point.moc"
