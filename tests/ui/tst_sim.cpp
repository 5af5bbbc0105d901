// SPDX-License-Identifier: GPL-3.0-or-later
// The simulation thread (ui/sim): transport (run, pause, step, step back, seek, reset), one sample
// per step in order, history bounds, real-time pacing, perturbation forces and auto-pause on a
// failed step. No widgets: runs under any QPA platform.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "scenes/scenes.h"
#include "sim/sim_controller.h"
#include "system/compiled_system.h"

using namespace ms;
using namespace ms::ui;

namespace {
std::shared_ptr<const CompiledSystem> scene(const std::string& name, const std::map<std::string, std::string>& p = {}) {
  return compile(buildScene(name, p));
}
// Drains samples, applying rewinds like the plots do; returns the accumulated timeline.
struct Timeline {
  std::vector<StepSample> samples;
  void drain(SimController& c) {
    std::vector<StepSample> fresh;
    double to = 0;
    if (c.takeSamples(fresh, &to))
      while (!samples.empty() && samples.back().time > to) samples.pop_back();
    samples.insert(samples.end(), fresh.begin(), fresh.end());
  }
};
void waitFor(const std::function<bool()>& cond, int ms = 10000) {
  QElapsedTimer t;
  t.start();
  while (!cond() && t.elapsed() < ms) {
    QCoreApplication::processEvents();
    QThread::msleep(2);
  }
}
}  // namespace

class TestSim : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Load → paused at t = 0 with one sample; stepping by hand gives one sample per step, in order.
  void loadAndStep() {
    SimController c;
    c.load(scene("double-pendulum"));
    c.sync();
    Snapshot s = c.snapshot();
    QVERIFY(s.system);
    QCOMPARE(s.state.step, 0L);
    QVERIFY(!s.running);
    QCOMPARE(s.historyCount, 1);
    for (int i = 0; i < 5; ++i) c.stepOnce();
    c.sync();
    s = c.snapshot();
    QCOMPARE(s.state.step, 5L);
    QCOMPARE(s.historyCount, 6);
    Timeline tl;
    tl.drain(c);
    QCOMPARE(int(tl.samples.size()), 6);
    for (int i = 0; i < 6; ++i) QCOMPARE(tl.samples[i].step, long(i));
    QVERIFY(tl.samples[5].iterations > 0);
  }

  // Running as fast as possible: steps advance without the caller doing anything; every step has
  // exactly one sample; pause stops it.
  void runPauseEverySample() {
    SimController c;
    c.load(scene("double-pendulum"));
    c.setSpeed(0);
    c.setRunning(true);
    Timeline tl;
    waitFor([&] {
      tl.drain(c);
      return tl.samples.size() > 500;
    });
    c.setRunning(false);
    c.sync();
    tl.drain(c);
    const Snapshot s = c.snapshot();
    QVERIFY(!s.running);
    QVERIFY(s.state.step > 500);
    QCOMPARE(long(tl.samples.size()), s.state.step + 1);
    for (size_t i = 0; i < tl.samples.size(); ++i) QCOMPARE(tl.samples[i].step, long(i));
    // Paused: nothing moves.
    QThread::msleep(50);
    c.sync();
    QCOMPARE(c.snapshot().state.step, s.state.step);
  }

  // Step back and seek restore kept states exactly; stepping on from the past discards the future
  // and the samples after it.
  void stepBackSeekAndResume() {
    SimController c;
    c.load(scene("double-pendulum"));
    for (int i = 0; i < 20; ++i) c.stepOnce();
    c.sync();
    const Snapshot s20 = c.snapshot();
    Timeline tl;
    tl.drain(c);
    c.stepBack();
    c.stepBack();
    c.sync();
    Snapshot s = c.snapshot();
    QCOMPARE(s.state.step, 18L);
    QCOMPARE(s.historyCursor, 18);
    QCOMPARE(s.historyCount, 21);
    c.seek(20);
    c.sync();
    s = c.snapshot();
    QCOMPARE(s.state.step, 20L);
    QCOMPARE((s.state.bodies[1].x - s20.state.bodies[1].x).norm(), 0.0);
    c.seek(10);
    c.stepOnce();
    c.sync();
    s = c.snapshot();
    QCOMPARE(s.state.step, 11L);
    QCOMPARE(s.historyCount, 12);
    tl.drain(c);
    QCOMPARE(int(tl.samples.size()), 12);
    QCOMPARE(tl.samples.back().step, 11L);
  }

  // Reset: t = 0, initial state, fresh timeline; the history is bounded by its capacity.
  void resetAndHistoryCapacity() {
    SimController c;
    c.load(scene("pendulum"));
    c.setHistoryCapacity(50);
    for (int i = 0; i < 120; ++i) c.stepOnce();
    c.sync();
    Snapshot s = c.snapshot();
    QCOMPARE(s.historyCount, 50);
    QCOMPARE(s.state.step, 120L);
    c.stepBack();
    c.sync();
    QCOMPARE(c.snapshot().state.step, 119L);
    c.reset();
    c.sync();
    s = c.snapshot();
    QCOMPARE(s.state.step, 0L);
    QCOMPARE(s.historyCount, 1);
    Timeline tl;
    tl.drain(c);
    QCOMPARE(int(tl.samples.size()), 1);
    QCOMPARE(tl.samples[0].time, 0.0);
  }

  // A chain beyond its stability limit (tst_variational_step, chainBeyondItsStabilityLimitIsRefined):
  // the snapshot carries the refinement (shown in the status bar) until a reset.
  void refinementReachesTheSnapshot() {
    Model m = buildScene("chain", {{"n", "20"}});
    m.joints[0].initialPosition = {0.3};
    m.solver.dt = 0.05;
    SimController c;
    c.load(compile(m));
    for (int i = 0; i < 30; ++i) c.stepOnce();
    c.sync();
    Snapshot s = c.snapshot();
    QVERIFY(s.refinedInterval > 0 && s.refinedInterval <= 0.025);
    QVERIFY(s.refinedAt > 0 && s.refinedAt <= 1.5);
    QVERIFY(s.subdividedSteps > 0);
    c.reset();
    c.sync();
    QCOMPARE(c.snapshot().refinedInterval, 0.0);
  }

  // A step that cannot converge pauses the simulation and reports the step and reason.
  void failureAutoPauses() {
    SimController c;
    QSignalSpy spy(&c, &SimController::failed);
    c.load(scene("double-pendulum"));
    c.sync();
    StepSettings st = c.stepSettings();
    st.maxIterations = 1;
    st.tolerance = 1e-300;
    c.setStepSettings(st);
    c.setRunning(true);
    waitFor([&] { return spy.count() > 0; });
    QCOMPARE(spy.count(), 1);
    const QString msg = spy.at(0).at(0).toString();
    QVERIFY2(msg.contains("step 1"), qPrintable(msg));
    c.sync();
    const Snapshot s = c.snapshot();
    QVERIFY(s.failed);
    QVERIFY(!s.running);
    QCOMPARE(QString::fromStdString(s.failure), msg);
    // The failed step adds no plot sample: one per step taken, plus t = 0 (a repeated sample here
    // made tst_responsiveness count step + 2 when its chain failed at step 115567).
    Timeline tl;
    tl.drain(c);
    QCOMPARE(long(tl.samples.size()), s.state.step + 1);
    // Running again is refused until reset.
    c.setRunning(true);
    c.sync();
    QVERIFY(!c.snapshot().running);
  }

  // Real time: over ~1 s of wall time the simulated time advances by about 1 s.
  void realTimePacing() {
    SimController c;
    c.load(scene("pendulum"));
    c.setSpeed(1.0);
    c.setRunning(true);
    QElapsedTimer wall;
    wall.start();
    QThread::msleep(1200);
    c.sync();
    const Snapshot s = c.snapshot();
    const double ratio = s.state.time / (wall.elapsed() / 1000.0);
    qInfo("real-time: simulated %.3f s in %.3f s wall, achieved RTF reported %.3f", s.state.time,
          wall.elapsed() / 1000.0, s.achievedRealTimeFactor);
    QVERIFY(ratio > 0.9 && ratio < 1.02);
    QVERIFY(s.achievedRealTimeFactor > 0.9 && s.achievedRealTimeFactor < 1.1);
  }

  // The perturbation spring pulls the body toward its target.
  void perturbationPulls() {
    SimController c;
    c.load(scene("free-body"));
    c.sync();
    const Snapshot s0 = c.snapshot();
    StepSettings st = c.stepSettings();
    st.gravity.setZero();
    c.setStepSettings(st);
    Perturbation p;
    p.active = true;
    p.body = 0;
    p.target = s0.state.bodies[0].x + Vec3(1, 0, 0);
    c.setPerturbation(p);
    for (int i = 0; i < 30; ++i) c.stepOnce();
    c.sync();
    const Snapshot s = c.snapshot();
    QVERIFY2(s.state.bodies[0].x.x() - s0.state.bodies[0].x.x() > 0.2, "body did not follow the drag");
    QVERIFY(s.perturbation.active);
  }
};

QTEST_GUILESS_MAIN(TestSim)
#include "tst_sim.moc"
