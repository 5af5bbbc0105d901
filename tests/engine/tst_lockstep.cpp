// SPDX-License-Identifier: GPL-3.0-or-later
// The lockstep runner of engine/comparison.h: copies with different time steps stay at the same
// simulated time, a failing copy stops while the others go on, a branch starts every copy from one
// state, and invalid copies are refused with the copy's name. Also the lessons table's integrity.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "comparison.h"
#include "core/check.h"
#include "scenes/lessons.h"
#include "scenes/scenes.h"

using namespace ms;

class TestLockstep : public QObject {
  Q_OBJECT
 private slots:
  void copiesWithDifferentStepsStayInLockstep();
  void aFailingCopyStopsAndTheOthersGoOn();
  void branchStartsEveryCopyFromOneState();
  void aCopyThatBlowsUpStops();
  void invalidCopiesAreRefusedWithTheirName();
  void fromARunningSimulationTheReferenceIsThatSimulation();
  void restoringAnInstantRevivesLaterStops();
  void equalCostMatchesTheCostPerSimulatedSecond();
  void theDragActsOnTheReferenceOnly();
  void lessonsAreWellFormed();
};

void TestLockstep::copiesWithDifferentStepsStayInLockstep() {
  auto sys = compile(buildScene("double-pendulum"));
  Comparison c(sys, {{"coarse", {}, 0.01}, {"fine", {}, 0.0025}, {"odd", {}, 0.003}});
  for (int k = 0; k < 100; ++k) c.step();
  QCOMPARE(c.running(), 3);
  QVERIFY(std::abs(c.time() - 1.0) < 1e-12);
  QCOMPARE(c.simulation(0).state().step, 100L);
  QCOMPARE(c.simulation(1).state().step, 400L);
  // Every copy at most one of its own steps before the reference time, never past it.
  for (int i = 0; i < c.size(); ++i) {
    const double lag = c.time() - c.simulation(i).state().time;
    QVERIFY2(lag > -1e-9 && lag < c.copy(i).dt, c.copy(i).label.c_str());
  }
  QCOMPARE(c.simulation(2).state().step, 333L);  // 0.999 s: the next knot, 1.002 s, is past 1 s
  // Same mechanism, same integrator: the fine copy tracks the coarse one (first-order method).
  const double dx = (c.simulation(0).state().bodies[1].x - c.simulation(1).state().bodies[1].x).norm();
  qInfo("double pendulum after 1 s: dt 0.01 vs 0.0025 differ by %.3g m", dx);
  QVERIFY(dx > 0 && dx < 0.2);
}

void TestLockstep::aFailingCopyStopsAndTheOthersGoOn() {
  // Δt = 100 s needs |ω| ≥ 2/Δt in the pendulum's first step: that copy fails, the other runs on.
  auto sys = compile(buildScene("pendulum"));
  Comparison c(sys, {{"ok", {}, 0.01}, {"too coarse", {}, 100}});
  c.advanceTo(200.0);
  QCOMPARE(c.running(), 1);
  QVERIFY(!c.simulation(0).failed());
  QVERIFY(c.simulation(1).failed());
  QVERIFY(c.simulation(1).metrics().message.rfind("step 1", 0) == 0);
  QCOMPARE(c.simulation(1).state().step, 0L);
  QVERIFY(std::abs(c.simulation(0).state().time - 200.0) < 1e-9);
  QVERIFY2(c.stopReason(1).rfind("step 1", 0) == 0, c.stopReason(1).c_str());
}

void TestLockstep::aCopyThatBlowsUpStops() {
  // Lesson 6: explicit Euler on K = 1e5 N/m contacts at Δt = 10 ms pumps energy in at the impact
  // without ever producing a non-finite number; the runner stops it, the exponential copy goes on.
  const Lesson& l = findLesson("stiff-contact");
  std::vector<ComparisonCopy> copies;
  for (const LessonVariant& v : l.variants) copies.push_back({v.label, v.options, v.dt});
  Comparison c(compile(lessonModel(l)), copies);
  int steps[2] = {0, 0};
  c.advanceTo(1.0, [&](int i) { ++steps[i]; });
  QCOMPARE(c.running(), 1);
  QVERIFY(!c.stopped(0));
  QVERIFY(c.stopped(1));
  QVERIFY(!c.simulation(1).failed());  // the step itself succeeded: the energy test stopped it
  const std::string why = c.stopReason(1);
  qInfo("lesson 6 in lockstep: %s stopped after %d steps: %s", c.copy(1).label.c_str(), steps[1], why.c_str());
  QVERIFY2(why.find("unstable: the energy went from") != std::string::npos, why.c_str());
  QCOMPARE(steps[0], 100);
  QVERIFY(steps[1] < 100);
  QCOMPARE(long(steps[1]), c.simulation(1).state().step);
  // Starting again clears it.
  c.reset();
  QCOMPARE(c.running(), 2);
  QVERIFY(c.stopReason(1).empty());
}

void TestLockstep::branchStartsEveryCopyFromOneState() {
  auto sys = compile(buildScene("three-link-loop"));
  Comparison a(sys, {{"VI", {}, 0.01}});
  for (int k = 0; k < 37; ++k) a.step();
  const State s = a.simulation(0).state();
  Comparison b(sys, {{"VI 10 ms", {}, 0.01}, {"VI 5 ms", {}, 0.005}});
  b.setState(s);
  QCOMPARE(b.time(), s.time);
  for (int i = 0; i < b.size(); ++i) {
    QCOMPARE(b.simulation(i).state().time, s.time);
    QVERIFY((b.simulation(i).state().bodies[2].x - s.bodies[2].x).norm() == 0);
  }
  b.step();
  QVERIFY(std::abs(b.simulation(1).state().time - (s.time + 0.01)) < 1e-12);
  QCOMPARE(b.simulation(1).state().step, s.step + 2);
  // A baseline branched from the VI's state starts on the constraints and tangent to them: RK4's
  // loop violation after 0.1 s stays at the level of its truncation error.
  IntegratorOptions rk4;
  rk4.kind = IntegratorKind::RK4;
  Comparison c(sys, {{"VI", {}, 0.01}, {"RK4", rk4, 0.01}});
  c.setState(s);
  QVERIFY((c.simulation(1).state().bodies[2].x - s.bodies[2].x).norm() == 0);
  for (int k = 0; k < 10; ++k) c.step();
  const double viol = c.simulation(1).metrics().constraintViolation;
  qInfo("RK4 branched from the VI at t = %.2f s: loop violation %.3g m after 0.1 s", s.time, viol);
  QVERIFY(viol < 1e-5);
}

void TestLockstep::invalidCopiesAreRefusedWithTheirName() {
  auto sys = compile(buildScene("box-drop"));
  IntegratorOptions expo;
  expo.kind = IntegratorKind::Exponential;  // rigid contacts: makes no sense
  try {
    Comparison c(sys, {{"VI", {}, 0.01}, {"expo rigid", expo, 0.01}});
    QFAIL("accepted the exponential integrator with rigid contacts");
  } catch (const UserError& e) {
    QVERIFY2(QString(e.what()).startsWith("copy 'expo rigid': the exponential integrator"), e.what());
  }
  QVERIFY_THROWS_EXCEPTION(UserError, Comparison(sys, {{"zero", {}, 0.0}}));
  QVERIFY_THROWS_EXCEPTION(UserError, Comparison(sys, {}));
}

void TestLockstep::fromARunningSimulationTheReferenceIsThatSimulation() {
  auto sys = compile(buildScene("double-pendulum"));
  auto ref = std::make_shared<Simulation>(sys);
  for (int k = 0; k < 20; ++k) QVERIFY(ref->step());
  const State start = ref->state();
  IntegratorOptions expo;
  expo.kind = IntegratorKind::Exponential;  // refused for a mechanism without soft contacts
  Comparison c(ref, {{"ref", {}, 0}, {"fine", {}, 0.0025}, {"refused", expo, 0.01}});
  // Copy 0 is the simulation passed in, with its own Δt kept (0 asked for it).
  QCOMPARE(&c.simulation(0), ref.get());
  QCOMPARE(c.copy(0).dt, 0.01);
  QCOMPARE(c.time(), start.time);
  QCOMPARE(c.simulation(1).state().time, start.time);
  // The refused copy is listed, stopped, and has no simulation; the others run.
  QVERIFY(!c.started(2));
  QVERIFY(c.stopped(2));
  QVERIFY2(c.failure(2).rfind("cannot start: ", 0) == 0, c.failure(2).c_str());
  QCOMPARE(c.running(), 2);
  int samples[3] = {0, 0, 0};
  for (int k = 0; k < 10; ++k) c.step([&](int i) { ++samples[i]; });
  QCOMPARE(samples[0], 10);
  QCOMPARE(samples[1], 40);
  QCOMPARE(samples[2], 0);
  QVERIFY(std::abs(c.time() - (start.time + 0.1)) < 1e-12);
  QCOMPARE(c.steps(1), 40L);
  QVERIFY(c.microsecondsPerStep(1) > 0);
  // A restart (here: back to the initial conditions) keeps the refusal and clears the counts.
  c.restart([](Simulation& sim) { sim.reset(); });
  QCOMPARE(c.time(), 0.0);
  QCOMPARE(c.steps(1), 0L);
  QVERIFY(c.stopped(2));
  QCOMPARE(c.running(), 2);
}

void TestLockstep::restoringAnInstantRevivesLaterStops() {
  // Explicit Euler at 50 ms pumps energy into the double pendulum: the runner stops that copy soon.
  // (A VI copy starved of Newton iterations no longer does: its steps are refined until one
  // iteration suffices, VariationalIntegrator::advance.)
  auto sys = compile(buildScene("double-pendulum"));
  auto ref = std::make_shared<Simulation>(sys);
  IntegratorOptions euler;
  euler.kind = IntegratorKind::ExplicitEuler;
  ComparisonCopy starved{"euler", euler, 0.05};
  Comparison c(ref, {{"ref", {}, 0.01}, starved});
  const LockstepState atStart = c.saveState();
  const State refAtStart = ref->state();
  for (int k = 0; k < 3000 && c.running() == 2; ++k) c.step();
  QCOMPARE(c.running(), 1);
  QVERIFY(c.stopped(1));
  QVERIFY(c.stoppedAt(1) > 0 && c.stoppedAt(1) <= c.time() + 0.05 + 1e-12);
  qInfo("euler copy stopped at t = %.2f s: %s", c.stoppedAt(1), c.failure(1).c_str());
  // Back to t = 0: the stop lies in that instant's future, so the copy runs again from there.
  ref->setState(refAtStart);
  c.restoreState(atStart);
  QCOMPARE(c.time(), 0.0);
  QCOMPARE(c.running(), 2);
  QCOMPARE(c.simulation(1).state().time, 0.0);
}

void TestLockstep::equalCostMatchesTheCostPerSimulatedSecond() {
  auto sys = compile(buildScene("double-pendulum"));
  auto ref = std::make_shared<Simulation>(sys);
  IntegratorOptions rk4;
  rk4.kind = IntegratorKind::RK4;
  Comparison c(ref, {{"VI", {}, 0.01}, {"RK4", rk4, 0.01}});
  c.equalizeCost();
  const double c0 = c.calibratedMicroseconds(0), c1 = c.calibratedMicroseconds(1), dt1 = c.copy(1).dt;
  qInfo("equal cost: VI %.3g us/step at dt 0.01, RK4 %.3g us/step at dt %.3g", c0, c1, dt1);
  QVERIFY(c0 > 0 && c1 > 0);
  QCOMPARE(c.simulation(1).settings().dt, dt1);
  // dt1 = c1 / (c0 / dt0), rounded to three significant digits, unless clamped to [1e-5, 1] s.
  const double wanted = std::clamp(c1 / (c0 / 0.01), 1e-5, 1.0);
  QVERIFY2(std::abs(dt1 - wanted) <= 0.006 * wanted, qPrintable(QString("dt1 %1, wanted %2").arg(dt1).arg(wanted)));
}

void TestLockstep::theDragActsOnTheReferenceOnly() {
  auto sys = compile(buildScene("pendulum"));
  auto ref = std::make_shared<Simulation>(sys);
  Comparison c(ref, {{"dragged", {}, 0.01}, {"free", {}, 0.01}});
  Drag d;
  d.active = true;
  d.body = 0;
  d.target = ref->state().bodies[0].x + Vec3(0, 0, 5);  // up, far above the body
  c.setDrag(d);
  for (int k = 0; k < 30; ++k) c.step();
  const double zDragged = c.simulation(0).state().bodies[0].x.z(), zFree = c.simulation(1).state().bodies[0].x.z();
  qInfo("after 0.3 s: dragged body at z = %.3f m, free one at z = %.3f m", zDragged, zFree);
  QVERIFY(zDragged > zFree + 1e-3);
  // An inactive drag sets no force.
  Inputs in = c.simulation(1).inputs();
  applyDrag(c.simulation(1), Drag(), in);
  for (const Vec3& f : in.force) QCOMPARE(f.norm(), 0.0);
}

void TestLockstep::lessonsAreWellFormed() {
  QCOMPARE(int(lessons().size()), 11);
  for (const Lesson& l : lessons()) {
    QCOMPARE(&findLesson(std::to_string(l.number)), &l);
    QCOMPARE(&findLesson(l.id), &l);
    QVERIFY(l.variants.size() >= 2);
    QVERIFY(!l.explanation.empty() && !l.claim.empty() && !l.followUp.empty());
    // The model builds and compiles, and every variant's options fit it.
    auto sys = compile(lessonModel(l));
    for (const LessonVariant& v : l.variants) {
      QVERIFY(v.dt > 0);
      QVERIFY(v.tolerance >= 0);
      // (A build without MuJoCo lists lessons 9 and 10 with that copy refused at start.)
      if (unavailableReason(v.options.kind).empty()) validateIntegratorOptions(v.options, *sys);
    }
  }
  QVERIFY_THROWS_EXCEPTION(UserError, findLesson("12"));
  QVERIFY_THROWS_EXCEPTION(UserError, findLesson("energy "));
}

QTEST_APPLESS_MAIN(TestLockstep)
#include "tst_lockstep.moc"
