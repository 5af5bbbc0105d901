// SPDX-License-Identifier: GPL-3.0-or-later
// Sleeping (engine/integrator/vi_sleep.cc, (solver (sleep S))): a resting stack falls asleep and
// then costs no interior-point iteration while staying exactly where it was; it wakes when a ball
// falls on it and when a body is pushed; a box on an incline just steeper than atan μ, slow enough
// to look at rest, is never put to sleep (its friction is at the cone) and slides as it should; a run
// is the same run twice, and from a state set in its middle.
#include <QTest>

#include <cmath>

#include "model_text.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {

// A scene with sleeping after `sleep` seconds of rest.
std::unique_ptr<Simulation> sleepy(const std::string& scene, const std::map<std::string, std::string>& p, double sleep) {
  Model m = buildScene(scene, p);
  m.solver.sleepTime = sleep;
  return std::make_unique<Simulation>(compile(m));
}

void stepTo(Simulation& sim, double t) {
  while (sim.state().time < t - 1e-9)
    if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
}

}  // namespace

class TestSleeping : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Five cubes at rest: asleep from about the sleep time on, no iterations, poses unchanged to the
  // last bit, the contact forces still those that hold the stack (the bottom cube carries 5 × 9.81 N).
  void restingStackFallsAsleep() {
    auto sim = sleepy("box-stack", {{"n", "5"}}, 0.3);
    int firstAsleep = -1;
    for (int s = 0; s < 100 && firstAsleep < 0; ++s) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      if (sim->metrics().sleeping == 5) firstAsleep = s + 1;
    }
    qInfo("5-cube stack with (sleep 0.3): asleep from step %d", firstAsleep);
    QVERIFY(firstAsleep >= 30 && firstAsleep <= 40);
    const State asleep = sim->state();
    double loadedForce = 0;
    std::vector<ContactPoint> contacts;
    for (int s = 0; s < 100; ++s) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      QCOMPARE(sim->metrics().sleeping, 5);
      QCOMPARE(sim->metrics().iterations, 0);
      QVERIFY(sim->metrics().penetration <= 1e-9);
    }
    for (size_t i = 0; i < asleep.bodies.size(); ++i) {
      QCOMPARE(sim->state().bodies[i].x, asleep.bodies[i].x);
      QCOMPARE(sim->state().bodies[i].q, asleep.bodies[i].q);
      QVERIFY(sim->state().bodies[i].v.isZero(0.0));
    }
    // The ground's contacts carry the whole stack's weight.
    sim->loadedContacts(contacts);
    for (const ContactPoint& c : contacts)
      if (c.bodyA < 0) loadedForce += c.force.z();
    qInfo("asleep: the ground carries %.9f N (5 x 9.81 = 49.05)", loadedForce);
    QVERIFY(std::abs(loadedForce - 5 * 9.81) < 1e-6);
  }

  // A ball dropped from 2 m above a sleeping stack wakes it when it arrives; a push wakes a body.
  void touchAndPushWake() {
    Model m = test::parseMech(R"((mechanism "stack-and-ball"
        (solver (sleep 0.2))
        (ground floor)
        (body low (mass 1) (shape box 0.2 0.2 0.2) (position 0 0 0.1))
        (body high (mass 1) (shape box 0.2 0.2 0.2) (position 0 0 0.3))
        (body ball (mass 0.5) (shape sphere 0.05) (position 0.05 0 2.45))
        (body loner (mass 1) (shape box 0.2 0.2 0.2) (position 1 0 0.1))))");
    Simulation sim(compile(m));
    // The stack and the loner fall asleep while the ball falls (3 bodies asleep).
    stepTo(sim, 0.4);
    QCOMPARE(sim.metrics().sleeping, 3);
    // The ball arrives at about t = 0.64 s: the stack wakes, the top cube is pushed down.
    int wokenAt = -1;
    for (int s = 0; s < 60 && wokenAt < 0; ++s) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      if (sim.metrics().sleeping < 3) wokenAt = int(sim.state().step);
    }
    qInfo("the ball woke the stack at step %d (t = %.2f s); sleeping %d", wokenAt, sim.state().time,
          sim.metrics().sleeping);
    QVERIFY(wokenAt > 0);
    QCOMPARE(sim.metrics().sleeping, 1);  // the loner sleeps on
    stepTo(sim, sim.state().time + 0.05);
    QVERIFY(sim.state().bodies[2].x.z() < 0.47);  // the ball sits on the stack (top at 0.4 m)
    QVERIFY(sim.metrics().penetration <= 1e-6);
    // A push on the sleeping loner wakes it and moves it.
    const Vec3 x0 = sim.state().bodies[3].x;
    sim.inputs().force[3] = Vec3(20, 0, 0);
    QVERIFY(sim.step());
    sim.inputs().force[3].setZero();
    stepTo(sim, sim.state().time + 0.1);
    qInfo("pushed loner moved %.4f m", (sim.state().bodies[3].x - x0).norm());
    QVERIFY(sim.state().bodies[3].x.x() > x0.x() + 1e-3);
  }

  // tan θ just above μ: the box accelerates at g (sin θ − μ cos θ) ≈ 0.0034 m/s² and moves under
  // 1 mm/s for its first 0.3 s — velocity alone would put it to sleep. Its friction is at the cone:
  // it never sleeps, and it slides as without sleeping.
  void slowSlideNeverSleeps() {
    const double mu = 0.5, theta = std::atan(mu) + 0.02 * M_PI / 180, g = 9.81;
    const double a = g * (std::sin(theta) - mu * std::cos(theta));
    char angle[32];
    std::snprintf(angle, sizeof angle, "%.12g", theta * 180 / M_PI);
    auto sim = sleepy("box-incline", {{"angle_deg", angle}, {"mu", "0.5"}}, 0.1);
    const Vec3 x0 = sim->state().bodies[0].x;
    for (int s = 0; s < 200; ++s) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      QCOMPARE(sim->metrics().sleeping, 0);
    }
    const double t = sim->state().time, d = (sim->state().bodies[0].x - x0).norm();
    qInfo("slow slide: %.6f m in %.2f s (1/2 a t^2 = %.6f m)", d, t, 0.5 * a * t * t);
    QVERIFY(std::abs(d - 0.5 * a * t * t) < 0.1 * 0.5 * a * t * t);
  }

  // The same run twice gives the same states; a run from a state set in its middle (rest times
  // included) continues as the original.
  void deterministic() {
    auto run = [](Simulation& sim, int steps) {
      for (int s = 0; s < steps; ++s)
        if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
    };
    auto a = sleepy("box-stack", {{"n", "3"}}, 0.2), b = sleepy("box-stack", {{"n", "3"}}, 0.2);
    run(*a, 15);
    const State middle = a->state();
    run(*a, 30);
    run(*b, 45);
    b->setState(middle);
    run(*b, 30);
    QCOMPARE(a->metrics().sleeping, 3);
    QCOMPARE(b->metrics().sleeping, 3);
    QCOMPARE(a->state().restTime, b->state().restTime);
    for (size_t i = 0; i < a->state().bodies.size(); ++i) {
      QCOMPARE(a->state().bodies[i].x, b->state().bodies[i].x);
      QCOMPARE(a->state().bodies[i].q, b->state().bodies[i].q);
    }
  }

  // With n_f = 8 friction directions (a companion node per contact, docs/engine.md) a resting box
  // sleeps too and keeps its weight on the ground.
  void sleepsWithEightFrictionDirections() {
    Simulation sim(compile(test::parseMech(R"((mechanism "box-nf8"
        (solver (sleep 0.2) (friction-directions 8))
        (ground floor)
        (body box (mass 1) (shape box 0.2 0.2 0.2) (position 0 0 0.1))))")));
    stepTo(sim, 0.5);
    QCOMPARE(sim.metrics().sleeping, 1);
    QCOMPARE(sim.metrics().iterations, 0);
    std::vector<ContactPoint> contacts;
    sim.loadedContacts(contacts);
    double fz = 0;
    for (const ContactPoint& c : contacts) fz += c.force.z();
    QVERIFY(std::abs(fz - 9.81) < 1e-6);
  }

  // Without (sleep ...) nothing sleeps and no rest time is kept.
  void offByDefault() {
    auto sim = std::make_unique<Simulation>(compile(buildScene("box-stack", {{"n", "3"}})));
    stepTo(*sim, 1.0);
    QCOMPARE(sim->metrics().sleeping, 0);
    QVERIFY(sim->state().restTime.empty());
  }
};

QTEST_GUILESS_MAIN(TestSleeping)
#include "tst_sleeping.moc"
