// SPDX-License-Identifier: GPL-3.0-or-later
// Soft contacts (contact/soft_contact.h, Hammoud et al. 2021 (1)–(2), (21)–(22), (28)) with the
// exponential integrator and explicit Euler: the cone projection, forces as generalised forces,
// a resting box at the static penetration m g/(4K), a box sliding down a 30° incline with
// a = g (sin θ − μ cos θ) and sticking on a 20° one.
#include <QTest>

#include <cmath>

#include "sanitizer_build.h"
#include "allocation_counter.h"
#include "contact/soft_contact.h"
#include "integrator/explicit_rk.h"
#include "core/quaternion.h"
#include "integrator/integrator_options.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {

constexpr double kG = 9.81;


std::unique_ptr<Simulation> makeSoft(const std::string& scene, const std::map<std::string, std::string>& p,
                                     IntegratorKind kind, double dt, double K = 1e5, double B = 300) {
  auto sim = std::make_unique<Simulation>(compile(buildScene(scene, p)));
  IntegratorOptions o;
  o.kind = kind;
  o.contacts = ContactModel::Soft;
  o.contactStiffness = K;
  o.contactDamping = B;
  sim->setIntegrator(o);
  sim->settings().dt = dt;
  sim->reset();
  return sim;
}

void runUntil(Simulation& sim, double t) {
  while (sim.state().time < t - 1e-9)
    if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
}

// Velocity of the box along the incline's downhill direction (plane tilted about x: normal (0, −sin θ, cos θ)).
Vec3 downhill(double thetaDeg) {
  const double t = thetaDeg * 3.141592653589793 / 180;
  const Vec3 n(0, -std::sin(t), std::cos(t));
  return (Vec3(0, 0, -1) - n * n.dot(Vec3(0, 0, -1))).normalized();
}

}  // namespace

class TestSoftContact : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void coneProjection() {
    const Vec3 n = Vec3::UnitZ();
    // Inside: unchanged; outside: tangential part scaled to μ λₙ; pulling: zero.
    QVERIFY((projectFrictionCone(Vec3(0.1, 0.2, 1), n, 0.5) - Vec3(0.1, 0.2, 1)).norm() < 1e-15);
    const Vec3 p = projectFrictionCone(Vec3(3, 4, 2), n, 0.5);
    QVERIFY(std::abs(p.z() - 2) < 1e-15);
    QVERIFY(std::abs(p.head<2>().norm() - 1.0) < 1e-14);
    QVERIFY(std::abs(p.x() / p.y() - 0.75) < 1e-14);
    QVERIFY(projectFrictionCone(Vec3(1, 0, -1), n, 0.5).isZero());
  }

  // A world force at a body point as a generalised force: its power equals Fᵀ(point velocity)
  // for any (v, ω), and J ν̇ (pointAcceleration) is the same Jacobian.
  void generalisedForceIsTheJacobianTranspose() {
    auto sys = compile(buildScene("box-drop", {{"height", "0"}}));
    State s = Simulation(sys).state();
    s.bodies[0].q = quat::fromAxisAngle(Vec3(1, 2, 3), 0.3);
    s.bodies[0].x.z() = 0.2;  // corners below the ground
    SoftPoints pts;
    evaluateSoftContacts(*sys, s, pts);
    QVERIFY(!pts.empty());
    const SoftPoint& c = pts[0];
    const Vec3 F(0.3, -1.2, 2.5);
    VecX f = VecX::Zero(6), nu(6);
    nu << 0.4, -0.1, 0.7, 1.3, -0.6, 0.2;
    addPointForce(c, F, f);
    QVERIFY(std::abs(f.dot(nu) - F.dot(pointAcceleration(c, nu))) < 1e-12);
    // Point velocity by finite differences of the pose.
    const double h = 1e-7;
    const Vec3 p1 = s.bodies[0].x + h * nu.head<3>() +
                    quat::rotation(quat::mul(s.bodies[0].q, quat::fromRotationVector(h * nu.tail<3>()))) * c.lB;
    const Vec3 fd = (p1 - c.p) / h;
    QVERIFY2((fd - pointAcceleration(c, nu)).norm() < 1e-5, "J ν ≠ finite-difference point velocity");
  }

  // A box resting on its four bottom corners settles where each carries m g/4: penetration
  // m g/(4K) (K = 1e5 N/m: 24.5 µm), with the exponential integrator (Δt = 10 ms) and explicit
  // Euler (Δt = 0.5 ms).
  void restingBoxSettlesAtStaticPenetration() {
    const double K = 1e5, expected = 1.0 * kG / (4 * K);
    struct Case {
      IntegratorKind kind;
      double dt;
    } cases[] = {{IntegratorKind::Exponential, 0.01}, {IntegratorKind::ExplicitEuler, 0.0005}};
    for (const Case& cs : cases) {
      auto sim = makeSoft("box-drop", {{"height", "0"}}, cs.kind, cs.dt, K);
      runUntil(*sim, test::sanitizerBuild() ? 0.5 : 1.0);
      const double pen = sim->metrics().penetration, speed = sim->state().bodies[0].v.norm();
      qInfo("resting box, %s dt = %g s: penetration %.4g m (m g/(4K) = %.4g m, error %.2f %%), %d contacts, "
            "speed %.2g m/s",
            toString(cs.kind), cs.dt, pen, expected, 100 * (pen / expected - 1), sim->metrics().contacts, speed);
      QCOMPARE(sim->metrics().contacts, 4);
      QVERIFY(std::abs(pen / expected - 1) < 0.02);
      QVERIFY(speed < 1e-4);
    }
  }

  // 30° incline, μ = 0.3: the box slides with a = g (sin θ − μ cos θ) = 2.356 m/s².
  void slidesDownAnInclineWithCoulombFriction() {
    const double theta = 30, mu = 0.3, t = theta * 3.141592653589793 / 180;
    const double expected = kG * (std::sin(t) - mu * std::cos(t));
    const Vec3 d = downhill(theta);
    struct Case {
      IntegratorKind kind;
      double dt;
    } cases[] = {{IntegratorKind::Exponential, 0.005}, {IntegratorKind::ExplicitEuler, 0.0005}};
    for (const Case& cs : cases) {
      auto sim = makeSoft("box-incline", {{"angle_deg", "30"}, {"mu", "0.3"}}, cs.kind, cs.dt);
      runUntil(*sim, 0.2);
      const double v1 = sim->state().bodies[0].v.dot(d), t1 = sim->state().time;
      runUntil(*sim, 0.7);
      const double v2 = sim->state().bodies[0].v.dot(d), t2 = sim->state().time;
      const double a = (v2 - v1) / (t2 - t1);
      qInfo("30 deg incline, mu 0.3, %s dt = %g s: a = %.4f m/s^2 (g (sin - mu cos) = %.4f, error %.2f %%)",
            toString(cs.kind), cs.dt, a, expected, 100 * (a / expected - 1));
      QVERIFY(std::abs(a / expected - 1) < 0.03);
    }
  }

  // 20° incline, μ = 0.5 (tan θ = 0.36 < μ): the box sticks; soft anchors allow a small creep only.
  void sticksOnAShallowIncline() {
    const Vec3 d = downhill(20);
    struct Case {
      IntegratorKind kind;
      double dt;
    } cases[] = {{IntegratorKind::Exponential, 0.01}, {IntegratorKind::ExplicitEuler, 0.0005}};
    for (const Case& cs : cases) {
      auto sim = makeSoft("box-incline", {{"angle_deg", "20"}, {"mu", "0.5"}}, cs.kind, cs.dt);
      const Vec3 x0 = sim->state().bodies[0].x;
      runUntil(*sim, 0.5);
      const double s1 = (sim->state().bodies[0].x - x0).dot(d);
      runUntil(*sim, test::sanitizerBuild() ? 1.0 : 2.0);
      const double s2 = (sim->state().bodies[0].x - x0).dot(d), speed = sim->state().bodies[0].v.norm();
      qInfo("20 deg incline, mu 0.5, %s dt = %g s: downhill displacement %.3g m at 0.5 s, %.3g m at the end, "
            "speed %.2g m/s",
            toString(cs.kind), cs.dt, s1, s2, speed);
      QVERIFY(std::abs(s2) < 1e-4);       // the anchors' elastic offset only
      QVERIFY(std::abs(s2 - s1) < 1e-5);  // no creep once settled
      QVERIFY(speed < 1e-4);
    }
  }

  // The soft contact hooks of the explicit integrators allocate nothing per step (box resting on
  // its corners, anchors in use), for one- and four-stage methods.
  void explicitStepsWithSoftContactsDoNotAllocate() {
    auto sys = compile(buildScene("box-drop", {{"height", "0"}}));
    Simulation sim(sys);
    for (IntegratorKind k : {IntegratorKind::ExplicitEuler, IntegratorKind::RK4}) {
      IntegratorOptions o;
      o.kind = k;
      o.contacts = ContactModel::Soft;
      ExplicitIntegrator integ(k, o, sys);
      State s = sim.state();
      StepSettings st = sim.settings();
      st.dt = 0.0005;
      for (int n = 0; n < 5; ++n) integ.step(st, sim.inputs(), s);  // warm-up, contacts anchored
      g_allocations = 0;
      g_countAllocations = true;
      StepReport rep;
      for (int n = 0; n < 20; ++n) rep = integ.step(st, sim.inputs(), s);
      g_countAllocations = false;
      QCOMPARE(rep.status, StepStatus::Ok);
      QCOMPARE(rep.activeContacts, 4);
      QVERIFY(rep.penetration > 0);
      QCOMPARE(g_allocations.load(), 0L);
    }
  }

  // The anchor state lives in State: a copy taken mid-contact continues identically (history).
  void anchorsAreStateAndBranchingRepeats() {
    auto sim = makeSoft("box-incline", {{"angle_deg", "30"}, {"mu", "0.3"}}, IntegratorKind::Exponential, 0.005);
    runUntil(*sim, 0.3);
    const State branch = sim->state();
    int anchored = 0;
    for (int a : branch.softActive) anchored += a != 0;
    QCOMPARE(anchored, 4);
    for (int k = 0; k < 20; ++k) QVERIFY(sim->step());
    const State first = sim->state();
    sim->setState(branch);
    for (int k = 0; k < 20; ++k) QVERIFY(sim->step());
    QVERIFY((sim->state().bodies[0].x - first.bodies[0].x).norm() == 0);
    QVERIFY(sim->state().softActive == first.softActive);
  }
};

QTEST_GUILESS_MAIN(TestSoftContact)
#include "tst_soft_contact.moc"
