// SPDX-License-Identifier: GPL-3.0-or-later
// Fixed tendons (model.h TendonDesc; MJCF's <tendon><fixed>, the model language's (tendon …)): a
// length L = Σ coef · θ with a spring and a damper acting on every term's coordinate, and actuators
// along it. Measured here: a wheel held by a tendon spring oscillates with the period of the spring
// k·coef² on its inertia, and its energy (which counts ½ k (L − L₀)²) stays bounded; a tendon damper
// takes the energy out at the rate c L̇²; an actuator on a tendon pushes each term's coordinate with
// coef times its output; the .mech reader and writer keep tendons and report bad ones at their
// place; the generalized-coordinate integrators refuse them. (Against MuJoCo: tst_mjcf_fidelity.)
#include <QTest>

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "engine/integrator_refusal.h"
#include "engine/rename_then_delete.h"
#include "integrator/integrator_options.h"
#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "signals/signals.h"
#include "simulation.h"

using namespace ms;

namespace {

constexpr double kI = 0.02;  // kg m², the wheel's inertia about its axle

// Without gravity: a wheel on a hinge about x, and a cart on a slide along y; a tendon
// coefW · θ_wheel + coefC · x_cart with stiffness k, rest length 0, damping c.
Model wheelAndCart(double k, double c, double coefW, double coefC) {
  Model m;
  m.name = "tendons";
  m.gravity = Vec3::Zero();
  BodyDesc w;
  w.name = "wheel";
  w.mass = 1;
  w.inertia = Vec3(kI, kI, kI).asDiagonal();
  BodyDesc cart = w;
  cart.name = "cart";
  cart.mass = 2;
  cart.position = Vec3(1, 0, 0);
  m.bodies = {w, cart};
  JointDesc h;
  h.name = "axle";
  h.child = 0;
  h.axis = Vec3::UnitX();
  h.initialPosition = {0.2};
  JointDesc s;
  s.name = "rail";
  s.type = JointType::Prismatic;
  s.child = 1;
  s.parentAnchor = Vec3(1, 0, 0);
  s.axis = Vec3::UnitY();
  m.joints = {h, s};
  TendonDesc t;
  t.name = "belt";
  if (coefW != 0) t.terms.push_back({0, 0, coefW});
  if (coefC != 0) t.terms.push_back({1, 0, coefC});
  t.stiffness = k;
  t.damping = c;
  m.tendons = {t};
  m.solver.dt = 1e-3;
  return m;
}

}  // namespace

class TstTendons : public QObject {
  Q_OBJECT
 private slots:
  // The wheel alone on the tendon: θ̈ = −k coef² θ / I, period 2π √(I / (k coef²)); 20 s at Δt 1e-3,
  // the energy with the tendon's ½ k L² bounded (variational: the spring is taken at the knot): its
  // error oscillates within ω Δt of E0 (first order) and does not grow (the last 2 s against the first).
  void springSetsThePeriodAndEnergyIsBounded() {
    const double k = 3, coef = 0.5;
    Simulation sim(compile(wheelAndCart(k, 0, coef, 0)));
    const double e0 = sim.kineticEnergy() + sim.potentialEnergy();
    QVERIFY(std::abs(e0 - 0.5 * k * std::pow(coef * 0.2, 2)) < 1e-12);  // the potential counts the tendon
    std::vector<double> crossings;
    double last = sim.jointPosition(0)(0), worst = 0, first = 0, final = 0;
    for (int i = 0; i < 20000; ++i) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      const double now = sim.jointPosition(0)(0);
      if (last < 0 && now >= 0) crossings.push_back(sim.state().time - 1e-3 * now / (now - last));
      last = now;
      const double err = std::abs(sim.kineticEnergy() + sim.potentialEnergy() - e0);
      worst = std::max(worst, err);
      if (i < 2000) first = std::max(first, err);
      if (i >= 18000) final = std::max(final, err);
    }
    QVERIFY(crossings.size() >= 4);
    const double period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
    const double expected = 2 * M_PI * std::sqrt(kI / (k * coef * coef));
    qInfo("tendon spring: period %.6f s, expected %.6f s (%.1e); max |E - E0| over 20 s %.2e J of %.2e J", period, expected,
          std::abs(period - expected) / expected, worst, e0);
    QVERIFY(std::abs(period - expected) <= 1e-4 * expected);
    const double omega = std::sqrt(k * coef * coef / kI);
    qInfo("max |E - E0| in the first 2 s %.2e J, in the last 2 s %.2e J (omega dt E0 = %.2e J)", first, final, omega * 1e-3 * e0);
    QVERIFY(worst <= omega * 1e-3 * e0);
    QVERIFY(final <= 1.5 * first);
    // Its signals: length coef · θ, tension −k L.
    const SignalCatalogue catalogue(sim.system());
    std::vector<double> v;
    QVERIFY(catalogue.find("belt.length") >= 0 && catalogue.find("belt.tension") >= 0);
    catalogue.evaluate(sim, {catalogue.find("belt.length"), catalogue.find("belt.tension")}, AngleUnit::Radians, v);
    QVERIFY(std::abs(v[0] - coef * sim.jointPosition(0)(0)) < 1e-15);
    QVERIFY(std::abs(v[1] + k * v[0]) < 1e-12);
  }

  // The damper: the energy lost over a step is the damper's work c L̇² Δt (to a step's accuracy), and
  // it decays as exp(−c coef² t / I) for this light damping.
  void damperDissipates() {
    const double k = 3, c = 0.004, coef = 0.5;
    Simulation sim(compile(wheelAndCart(k, c, coef, 0)));
    const double e0 = sim.kineticEnergy() + sim.potentialEnergy();
    for (int i = 0; i < 5000; ++i) QVERIFY(sim.step());
    const double e5 = sim.kineticEnergy() + sim.potentialEnergy();
    const double expected = e0 * std::exp(-c * coef * coef / kI * 5.0);
    qInfo("tendon damper: energy after 5 s %.6e J, expected %.6e J", e5, expected);
    QVERIFY(std::abs(e5 - expected) <= 0.02 * expected);
  }

  // An actuator on a tendon 0.5 θ + 2 x (no spring): gear 3, input 0.4 → output 1.2; the cart feels
  // 2 · 1.2 N (a = 2.4 / 2 m/s²), the wheel 0.5 · 1.2 N·m; 0.3 s from rest. RK4 is exact for a
  // constant force (½ a t²); the VI's knots (z1 = z0 + ż0 Δt from rest) give ½ a t (t − Δt) for the
  // translation.
  void actuatorActsAlongTheTendon() {
    for (IntegratorKind kind : {IntegratorKind::Variational, IntegratorKind::RK4}) {
      Model m = wheelAndCart(0, 0, 0.5, 2);
      m.joints[0].initialPosition.clear();
      ActuatorDesc a;
      a.tendon = 0;
      a.effort = {0.4};
      a.gear = 3;
      m.actuators = {a};
      Simulation sim(compile(m));
      IntegratorOptions o;
      o.kind = kind;
      sim.setIntegrator(o);
      for (int i = 0; i < 300; ++i) QVERIFY(sim.step());
      const double t = sim.state().time;
      const double tt = t * t;  // exact for a constant acceleration (the VI from its start's half kick)
      const double x = sim.jointPosition(1)(0), th = sim.jointPosition(0)(0);
      qInfo("%s: cart %.9f m (expected %.9f), wheel %.9f rad (expected %.9f)", toString(kind), x, 0.5 * 1.2 * tt, th,
            0.5 * 0.6 / kI * tt);
      QVERIFY(std::abs(x - 0.5 * 1.2 * tt) <= 1e-9);
      // (The VI's rotation update is not linear in the rate: 7e-6 of the angle here.)
      QVERIFY(std::abs(th - 0.5 * 0.6 / kI * tt) <= 1e-4 * th);
    }
  }

  // (tendon …) and an actuator on it: read, written back to the same model, mistakes at their place.
  void modelLanguage() {
    const std::string text = R"((mechanism t
  (body w (mass 1) (shape sphere 0.1) (joint revolute axle (axis 1 0 0)))
  (body c (mass 2) (shape box 0.1 0.1 0.1) (joint prismatic rail (axis 0 1 0)))
  (tendon belt (joint axle 0.5) (joint rail -2) (stiffness 3) (rest-length 0.1) (damping 0.2))
  (actuator belt (effort 0.4) (gear 3)))
)";
    MechParseResult r;
    Diagnostics d;
    QVERIFY2(readMechText(text, "t.mech", {}, r, d), d.format().c_str());
    const Model& m = r.model;
    QCOMPARE(m.tendons.size(), size_t(1));
    QCOMPARE(m.tendons[0].terms.size(), size_t(2));
    QCOMPARE(m.tendons[0].terms[1].joint, 1);
    QCOMPARE(m.tendons[0].terms[1].coef, -2.0);
    QCOMPARE(m.tendons[0].stiffness, 3.0);
    QCOMPARE(m.tendons[0].restLength, 0.1);
    QCOMPARE(m.tendons[0].damping, 0.2);
    QCOMPARE(m.actuators[0].tendon, 0);
    const std::string written = writeMech(m);
    MechParseResult again;
    Diagnostics d2;
    QVERIFY2(readMechText(written, "w.mech", {}, again, d2), (d2.format() + written).c_str());
    QCOMPARE(again.model.tendons.size(), size_t(1));
    QCOMPARE(again.model.tendons[0].terms[0].coef, 0.5);
    QCOMPARE(again.model.tendons[0].restLength, 0.1);
    QCOMPARE(again.model.actuators[0].tendon, 0);
    QCOMPARE(again.model.actuators[0].gear, 3.0);
    // Mistakes: an unknown joint, a coordinate the joint has not, a negative stiffness, two inputs.
    const struct {
      const char* tendon;
      const char* expect;
    } bad[] = {
        {"(tendon belt (joint axlee 0.5))", "unknown joint 'axlee' (did you mean 'axle'?)"},
        {"(tendon belt (joint axle 0.5 1))", "joint 'axle' (revolute) has 1 free coordinate; there is no coordinate 1"},
        {"(tendon belt (joint axle 0.5) (stiffness -1))", "stiffness must not be negative (got -1)"},
        {"(tendon belt (joint axle 1)) (actuator belt (effort 1 2))", "tendon 'belt' has one length: (effort ...) takes 1 number (got 2)"},
        {"(tendon belt (stiffness 1))", "tendon 'belt' needs at least one (joint NAME COEF)"},
    };
    for (const auto& b : bad) {
      const std::string t = std::string("(mechanism t (body w (mass 1) (shape sphere 0.1) (joint revolute axle (axis 1 0 0))) ") +
                            b.tendon + ")";
      MechParseResult p;
      Diagnostics dd;
      QVERIFY(!readMechText(t, "bad.mech", {}, p, dd));
      QVERIFY2(dd.format().find(b.expect) != std::string::npos, dd.format().c_str());
    }
  }

  // Edits from the Model tree keep tendons consistent: renaming a joint renames its terms, deleting a
  // body deletes the tendons through its joint and the actuators on them.
  void editsFollowTendons() {
    const std::string text = R"((mechanism t
  (body w (mass 1) (shape sphere 0.1) (joint revolute axle (axis 1 0 0)))
  (body c (mass 2) (shape box 0.1 0.1 0.1) (joint prismatic rail (axis 0 1 0)))
  (tendon belt (joint axle 0.5) (joint rail -2) (stiffness 3))
  (actuator belt (effort 0.4)))
)";
    std::string renamed, why;
    MechParseResult r3;
    QVERIFY2(test::renameJointThenDeleteBody(text, "hub", 1, renamed, r3, why), why.c_str());
    QVERIFY2(renamed.find("(joint hub 0.5)") != std::string::npos, renamed.c_str());
    QVERIFY(r3.model.tendons.empty() && r3.model.actuators.empty());
    QCOMPARE(r3.model.bodies.size(), size_t(1));
  }

  // midpoint-gc and riqn integrate each joint's own efforts: they refuse a model with tendons.
  void generalizedCoordinateIntegratorsRefuseThem() {
    Simulation sim(compile(wheelAndCart(3, 0, 0.5, 1)));
    for (IntegratorKind k : {IntegratorKind::MidpointGC, IntegratorKind::RIQN})
      QVERIFY(test::refusesIntegrator(sim, k, "the model has tendons"));
  }
};

QTEST_APPLESS_MAIN(TstTendons)
#include "tst_tendons.moc"
