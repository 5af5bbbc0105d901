// SPDX-License-Identifier: GPL-3.0-or-later
// The exponential integrator (integrator/exponential_step.h, Hammoud et al. 2021): the integrals
// x_int, x_int2 of the contact-space dynamics (11) from the augmented exponential (29)–(30) against
// a closed form and a fine RK4 quadrature; the claims of lessons 4 (soft contacts penetrate, rigid
// ones do not) and 6 (at Δt = 10 ms, K = 1e5 N/m the exponential integrator stays bounded while
// explicit Euler diverges).
#include <QTest>

#include <cmath>
#include <random>

#include <unsupported/Eigen/MatrixFunctions>

#include "sanitizer_build.h"
#include "allocation_counter.h"
#include "integrator/exponential_step.h"
#include "scenes/lessons.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {


// x_int, x_int2 by RK4 on the extended system (x, x_int, x_int2)' = (A x + b, x, x_int), N steps.
void quadrature(const MatX& A, const VecX& b, const VecX& x0, double t, int N, VecX& xint, VecX& xint2) {
  const int n = int(A.rows());
  VecX y = VecX::Zero(3 * n);
  y.head(n) = x0;
  auto f = [&](const VecX& z) {
    VecX d(3 * n);
    d.head(n) = A * z.head(n) + b;
    d.segment(n, n) = z.head(n);
    d.tail(n) = z.segment(n, n);
    return d;
  };
  const double h = t / N;
  for (int k = 0; k < N; ++k) {
    const VecX k1 = f(y), k2 = f(y + 0.5 * h * k1), k3 = f(y + 0.5 * h * k2), k4 = f(y + h * k3);
    y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  xint = y.segment(n, n);
  xint2 = y.tail(n);
}

// A of (11) for a random symmetric positive definite Υ (m points).
MatX contactMatrix(int m, double K, double B, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  MatX R(3 * m, 3 * m);
  for (int i = 0; i < R.size(); ++i) R(i) = u(rng);
  const MatX ups = R * R.transpose() / (3 * m) + MatX::Identity(3 * m, 3 * m);  // [1/kg], well conditioned
  MatX A = MatX::Zero(6 * m, 6 * m);
  A.topRightCorner(3 * m, 3 * m).setIdentity();
  A.bottomLeftCorner(3 * m, 3 * m) = -K * ups;
  A.bottomRightCorner(3 * m, 3 * m) = -B * ups;
  return A;
}

struct RunResult {
  double maxPenetration = 0, maxEnergy = -1e300, finalEnergy = 0, finalSpeed = 0, e0 = 0;
  bool failed = false;
  std::string message;
  double failTime = 0;
};

RunResult runVariant(const Lesson& lesson, const LessonVariant& v, double duration) {
  Simulation sim(compile(lessonModel(lesson)));
  sim.setIntegrator(v.options);
  sim.settings().dt = v.dt;
  sim.reset();
  RunResult r;
  r.e0 = sim.metrics().energy;
  while (sim.state().time < duration - 1e-9) {
    if (!sim.step()) {
      r.failed = true;
      r.message = sim.metrics().message;
      r.failTime = sim.state().time;
      break;
    }
    r.maxPenetration = std::max(r.maxPenetration, sim.metrics().penetration);
    r.maxEnergy = std::max(r.maxEnergy, sim.metrics().energy);
  }
  r.finalEnergy = sim.metrics().energy;
  r.finalSpeed = sim.state().bodies[0].v.norm();
  return r;
}

}  // namespace

class TestExponential : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // (29)–(30) against the closed form A⁻¹(…) (A invertible) with Eigen's exp of A alone, and
  // against RK4 quadrature of (16), for a random well-scaled A and for stiff contact dynamics
  // (K = 1e5, B = 300, Δt = 10 ms, two points).
  void integralsMatchClosedFormAndQuadrature() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    struct Case {
      const char* name;
      MatX A;
      double t;
    };
    MatX Arand(5, 5);
    for (int i = 0; i < Arand.size(); ++i) Arand(i) = u(rng);
    const Case cases[] = {{"random 5x5", Arand, 0.7}, {"contact K=1e5 B=300, 2 points", contactMatrix(2, 1e5, 300, rng), 0.01}};
    for (const Case& c : cases) {
      const int n = int(c.A.rows());
      VecX b(n), x0(n);
      for (int i = 0; i < n; ++i) {
        b(i) = u(rng);
        x0(i) = 1e-3 * u(rng);
      }
      VecX xi, xi2, qi, qi2;
      contactSpaceIntegrals(c.A, b, x0, c.t, xi, xi2);
      quadrature(c.A, b, x0, c.t, 20000, qi, qi2);
      // Closed form: x(t) = e^{tA} x0 + A⁻¹(e^{tA} − I) b, x_int = A⁻¹(x(t) − x0 − b t),
      // x_int2 = A⁻¹(x_int − x0 t − b t²/2).
      const MatX E = (c.t * c.A).exp();
      const auto lu = c.A.fullPivLu();
      const VecX xt = E * x0 + lu.solve((E - MatX::Identity(n, n)) * b);
      const VecX ci = lu.solve(xt - x0 - b * c.t);
      const VecX ci2 = lu.solve(ci - x0 * c.t - b * (0.5 * c.t * c.t));
      const double s1 = qi.lpNorm<Eigen::Infinity>(), s2 = qi2.lpNorm<Eigen::Infinity>();
      const double eq1 = (xi - qi).lpNorm<Eigen::Infinity>() / s1, eq2 = (xi2 - qi2).lpNorm<Eigen::Infinity>() / s2;
      const double ec1 = (xi - ci).lpNorm<Eigen::Infinity>() / s1, ec2 = (xi2 - ci2).lpNorm<Eigen::Infinity>() / s2;
      qInfo("%s: relative error of x_int / x_int2 vs RK4 quadrature %.2g / %.2g, vs closed form %.2g / %.2g", c.name,
            eq1, eq2, ec1, ec2);
      QVERIFY(eq1 < 1e-8 && eq2 < 1e-8);
      QVERIFY(ec1 < 1e-6 && ec2 < 1e-6);
    }
  }

  // Lesson 4: soft contacts penetrate measurably (> 1e-4 m), the VI's rigid ones ≤ 1e-5 m.
  // The modal form (every point sticking: Υ symmetric, one 5 × 5 exponential per mode) against the
  // dense (6m+3)-square exponential of (30), for 1, 4 and 10 points, including a singular Υ (a
  // zero mode: free motion) and a stiff and a soft contact.
  void modalIntegralsMatchDense() {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int m : {1, 4, 10}) {
      for (auto [K, B] : {std::pair{1e5, 300.0}, std::pair{1e3, 5.0}}) {
        const int r = 3 * m, n = 6 * m;
        MatX R(r, r);
        for (int i = 0; i < R.size(); ++i) R(i) = u(rng);
        MatX ups = R * R.transpose() / r;
        if (m == 4) ups.row(0).setZero(), ups.col(0).setZero();  // a direction no force moves
        MatX A = MatX::Zero(n, n);
        A.topRightCorner(r, r).setIdentity();
        A.bottomLeftCorner(r, r) = -K * ups;
        A.bottomRightCorner(r, r) = -B * ups;
        VecX pdd(r), x0(n), b = VecX::Zero(n);
        for (int i = 0; i < r; ++i) pdd(i) = 10 * u(rng);
        for (int i = 0; i < n; ++i) x0(i) = 1e-3 * u(rng);
        b.tail(r) = pdd;
        VecX di, di2, mi = VecX::Zero(n), mi2 = VecX::Zero(n);
        contactSpaceIntegrals(A, b, x0, 0.01, di, di2);
        ModalWork w;
        QVERIFY(contactSpaceIntegralsModal(ups, K, B, pdd, x0, 0.01, w, mi, mi2));
        const double e1 = (mi - di).lpNorm<Eigen::Infinity>() / di.lpNorm<Eigen::Infinity>();
        const double e2 = (mi2 - di2).lpNorm<Eigen::Infinity>() / di2.lpNorm<Eigen::Infinity>();
        qInfo("%2d points, K = %g, B = %g: modal vs dense x_int %.2g, x_int2 %.2g (relative)", m, K, B, e1, e2);
        QVERIFY(e1 < 1e-9 && e2 < 1e-9);
      }
    }
  }

  // No heap allocation in a step: the soft box drop from the fall through the impact to rest (every
  // point sticking: the modal form), and a box sliding down an incline at μ = 0.2 (points slipping:
  // the dense form of fixed capacity).
  void stepDoesNotAllocate() {
    const std::pair<const char*, std::map<std::string, std::string>> cases[] = {{"box-drop", {}},
                                                                                {"box-incline", {{"mu", "0.2"}}}};
    for (const auto& [scene, params] : cases) {
      auto sim = std::make_unique<Simulation>(compile(buildScene(scene, params)));
      IntegratorOptions o;
      o.kind = IntegratorKind::Exponential;
      o.contacts = ContactModel::Soft;
      sim->setIntegrator(o);
      sim->reset();
      QVERIFY(sim->step());
#ifdef MS_TEST_COUNTS_MALLOC
      g_allocations = 0;
      g_countAllocations = true;
#endif
      bool ok = true;
      int maxContacts = 0;
      for (int k = 0; k < 299 && ok; ++k) {
        ok = sim->step();
        maxContacts = std::max(maxContacts, sim->metrics().contacts);
      }
#ifdef MS_TEST_COUNTS_MALLOC
      g_countAllocations = false;
      qInfo("soft %s, 299 steps (up to %d points in contact): %ld allocations", scene, maxContacts, g_allocations.load());
      QCOMPARE(g_allocations.load(), 0L);
#endif
      QVERIFY(ok);
      QVERIFY(maxContacts >= 4);
    }
  }

  void lessonContactSoftPenetratesRigidDoesNot() {
    const Lesson& l = findLesson("contact");
    const double duration = test::sanitizerBuild() ? 0.6 : 1.5;  // the box lands at t ≈ 0.29 s
    for (const LessonVariant& v : l.variants) {
      const RunResult r = runVariant(l, v, duration);
      qInfo("lesson 4, %s (dt = %g s): max penetration %.3g m, final speed %.2g m/s%s", v.label.c_str(), v.dt,
            r.maxPenetration, r.finalSpeed, r.failed ? (" FAILED: " + r.message).c_str() : "");
      QVERIFY2(!r.failed, r.message.c_str());
      if (v.options.contacts == ContactModel::Rigid) QVERIFY(r.maxPenetration <= 1e-5);
      else QVERIFY(r.maxPenetration > 1e-4);
    }
  }

  // Lesson 6: Δt = 10 ms, K = 1e5 N/m: exponential bounded (small penetration, energy never above
  // its start, box at rest), explicit Euler diverges (step failure or energy blow-up).
  void lessonStiffContactExponentialStableEulerDiverges() {
    const Lesson& l = findLesson("stiff-contact");
    const double duration = test::sanitizerBuild() ? 1.0 : 3.0;
    bool sawExp = false, sawEuler = false;
    for (const LessonVariant& v : l.variants) {
      QCOMPARE(v.dt, 0.01);
      QCOMPARE(v.options.contactStiffness, 1e5);
      const RunResult r = runVariant(l, v, duration);
      qInfo("lesson 6, %s (dt = %g s): max penetration %.3g m, E0 = %.4g J, max E = %.4g J, final E = %.4g J, "
            "final speed %.2g m/s%s%s",
            v.label.c_str(), v.dt, r.maxPenetration, r.e0, r.maxEnergy, r.finalEnergy, r.finalSpeed,
            r.failed ? ", failed: " : "", r.failed ? r.message.c_str() : "");
      if (v.options.kind == IntegratorKind::Exponential) {
        sawExp = true;
        QVERIFY2(!r.failed, r.message.c_str());
        QVERIFY(r.maxPenetration < 0.02);  // contact found at step starts: up to v·Δt = 2.8 cm of free flight into the ground
        QVERIFY(r.maxEnergy <= r.e0 + 1e-9 * std::abs(r.e0));
        QVERIFY(r.finalSpeed < 1e-3);
      } else {
        sawEuler = true;
        QCOMPARE(v.options.kind, IntegratorKind::ExplicitEuler);
        QVERIFY2(r.failed || r.maxEnergy > 100 * std::abs(r.e0), "explicit Euler did not diverge");
      }
    }
    QVERIFY(sawExp && sawEuler);
  }
};

QTEST_GUILESS_MAIN(TestExponential)
#include "tst_exponential.moc"
