// SPDX-License-Identifier: GPL-3.0-or-later
// models/quadruped.mech, the 12-joint quadruped with point feet of Brüdigam et al. 2023 §5.4 and
// Appendix E (Algorithm 6's leg PD controller; the model's Δt 5 ms). Issue acceptance: "quadruped walks
// forward under its controller for 10 s with feet never penetrating more than 1e-4 m".
//   - trotsForwardFor10s: the model's defaults (the trot b = 0.15, a1 = 0.15, a2 = −0.15, foot
//     friction 0.6) for 10 s: every step converges, no NaN, penetration ≤ 1e-4 m, joint violation
//     ≤ 1e-9, the torso stays up and moves forward by at least 3 m (measured 4.1 m). Also for foot
//     friction 0.5 and 0.7.
//   - fiveMillisecondsWalksAsOneMillisecond: the default trot at Δt 5 ms (the model's) and 1 ms
//     walks the same distance in 10 s within 10 % (issue 31: 5 ms became the default because it
//     does; measured 4.114 and 4.123 m).
//   - standsFor10s: a1 = a2 = 0 (Algorithm 6's stance under its gains): as above, and in place.
//   - highFrictionTrots: foot friction 0.75, 0.8 and 1.0 for 10 s: as the default trot (at least
//     2 m forward). Until the contact step recentred jammed pairs and retried from the momentum
//     scale, these stopped within the first steps (tangential impacts, see the test).
//   - rubberFeetTrots: foot friction 1.5 and 2.0 for 10 s, as above. μ = 1.5 stopped at 6.995 s until
//     a failed contact step was retried with the friction polygons turned by half a sector.
// Each test prints its measured figures with qInfo().
#include <QTest>

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "sanitizer_build.h"
#include "io/model_file.h"
#include "simulation.h"
#include "system/compiled_system.h"

#include "state_checks.h"
#include "test_paths.h"

using namespace ms;

namespace {

// What one run measured.
struct QuadRun {
  bool loaded = false;
  bool ok = false;        // every step converged with a finite state
  std::string failure;    // the failing step's message
  double dt = 0;
  long steps = 0, done = 0;
  double seconds = 0;       // wall time of the stepping loop
  double x0 = 0, x1 = 0;    // torso x at the start and the end [m]
  double minHeight = 1e9;   // lowest torso height [m]
  double maxPenetration = 0, maxViolation = 0;
  int maxIterations = 0;
  double meanIterations = 0;
};

// `dt` > 0: that step instead of the model's.
QuadRun run(const std::map<std::string, std::string>& params, double duration, double dt = 0) {
  QuadRun r;
  Model m;
  if (!test::loadGallery("quadruped.mech", params, m, r.failure)) return r;
  r.loaded = true;
  const int torso = m.bodyIndex("torso");
  Simulation sim(compile(m));
  if (dt > 0) {
    sim.settings().dt = dt;
    sim.reset();  // initial conditions depend on Δt
  }
  r.dt = sim.settings().dt;
  r.steps = std::lround(duration / r.dt);
  r.x0 = sim.state().bodies[torso].x.x();
  double iterations = 0;
  QElapsedTimer timer;
  timer.start();
  for (long k = 1; k <= r.steps; ++k) {
    if (!sim.step()) {
      r.failure = sim.metrics().message;
      break;
    }
    if (!test::finiteState(sim.state())) {
      r.failure = "non-finite state at step " + std::to_string(k);
      break;
    }
    const StepMetrics& mt = sim.metrics();
    r.done = k;
    r.maxPenetration = std::max(r.maxPenetration, mt.penetration);
    r.maxViolation = std::max(r.maxViolation, mt.constraintViolation);
    r.maxIterations = std::max(r.maxIterations, mt.iterations);
    iterations += mt.iterations;
    r.minHeight = std::min(r.minHeight, sim.state().bodies[torso].x.z());
  }
  r.seconds = timer.elapsed() / 1000.0;
  r.x1 = sim.state().bodies[torso].x.x();
  r.meanIterations = r.done > 0 ? iterations / r.done : 0;
  r.ok = r.done == r.steps;
  return r;
}

void report(const char* what, const QuadRun& r) {
  const double t = r.done * r.dt;
  qInfo("%s: %ld of %ld steps (t = %.3f s)%s%s; walked %.4f m (mean %.4f m/s), lowest torso %.4f m, "
        "max penetration %.3g m, max joint violation %.3g, interior-point iterations mean %.2f max %d, wall %.2f s",
        what, r.done, r.steps, t, r.ok ? "" : ", stopped: ", r.ok ? "" : r.failure.c_str(), r.x1 - r.x0,
        t > 0 ? (r.x1 - r.x0) / t : 0.0, r.minHeight, r.maxPenetration, r.maxViolation, r.meanIterations,
        r.maxIterations, r.seconds);
}

}  // namespace

class TestQuadruped : public QObject {
  Q_OBJECT
  // What every run must hold: every step converged, the feet do not sink, the joints hold, the
  // torso stays up (standing height 0.39 m: it does not fall).
  static void holds(const QuadRun& r) {
    QVERIFY2(r.ok, r.failure.c_str());
    QVERIFY(r.maxPenetration <= 1e-4);
    QVERIFY(r.maxViolation <= 1e-9);
    QVERIFY(r.minHeight > 0.3);
  }

  // The default trot with foot friction `mu` for `duration` s: every step converges, feet do not
  // sink, joints hold, the torso stays up and moves forward at `minSpeed` m/s or more.
  void trots(const char* mu, double duration, double minSpeed) {
    const QuadRun r = run({{"mu", mu}}, duration);
    QVERIFY2(r.loaded, r.failure.c_str());
    report((std::string("quadruped (trot, foot friction ") + mu + ")").c_str(), r);
    QCOMPARE(r.dt, 0.005);
    holds(r);
    if (QTest::currentTestFailed()) return;
    QVERIFY(r.x1 - r.x0 >= minSpeed * duration);
  }

  // trots() for each foot friction of `mus` over 10 s; the sanitizer build (memory errors, not
  // physics) only `sanitizerMu` over `sanitizerDuration`.
  void trotsEach(std::initializer_list<const char*> mus, const char* sanitizerMu, double sanitizerDuration,
                 double minSpeed) {
    const bool sanitizer = test::sanitizerBuild();
    for (const char* mu : mus) {
      if (sanitizer && std::string(mu) != sanitizerMu) continue;
      trots(mu, sanitizer ? sanitizerDuration : 10.0, minSpeed);
      if (QTest::currentTestFailed()) return;
    }
  }

 private Q_SLOTS:
  // The acceptance criterion: the default trot walks forward for 10 s without penetration.
  void trotsForwardFor10s() {
    // The sanitizer build walks the default for 2 s.
    trotsEach({"0.6", "0.5", "0.7"}, "0.6", 2.0, 0.3);
  }

  // The model's Δt 5 ms against 1 ms: the default trot walks as far in 10 s (within 10 %), and both
  // hold the same checks as trots(). The sanitizer build compares 2 s (in its first second the
  // robot is still speeding up: 0.25 m).
  void fiveMillisecondsWalksAsOneMillisecond() {
    const double duration = test::sanitizerBuild() ? 2.0 : 10.0;
    const QuadRun coarse = run({}, duration), fine = run({}, duration, 0.001);
    QVERIFY2(coarse.loaded && fine.loaded, coarse.failure.c_str());
    report("quadruped (trot, the model's dt)", coarse);
    report("quadruped (trot, dt 1 ms)", fine);
    QCOMPARE(coarse.dt, 0.005);
    holds(coarse);
    if (QTest::currentTestFailed()) return;
    holds(fine);
    if (QTest::currentTestFailed()) return;
    const double walked = coarse.x1 - coarse.x0, reference = fine.x1 - fine.x0;
    QVERIFY(reference >= 0.3 * duration);
    QVERIFY2(std::abs(walked - reference) <= 0.1 * reference,
             qPrintable(QString("5 ms: %1 m, 1 ms: %2 m").arg(walked).arg(reference)));
  }

  // a1 = a2 = 0: Algorithm 6's stance for 10 s, in place.
  void standsFor10s() {
    const bool sanitizer = test::sanitizerBuild();
    const QuadRun r = run({{"a1", "0"}, {"a2", "0"}}, sanitizer ? 2.0 : 10.0);
    QVERIFY2(r.loaded, r.failure.c_str());
    report("quadruped (stand)", r);
    holds(r);
    if (QTest::currentTestFailed()) return;
    QVERIFY(std::abs(r.x1 - r.x0) < 0.05);
  }

  // Rubber feet, μ = 0.75 … 1.0: a sliding foot that touches down needs a tangential impact (a
  // normal impulse thousands of times its weight for one step); the contact step reaches it from a
  // start at the momentum scale and by recentring jammed pairs (variational_step.cc,
  // interior_point.h). Every step completes (some subdivided), feet do not sink, the trot goes on.
  void highFrictionTrots() { trotsEach({"0.75", "0.8", "1.0"}, "1.0", 1.0, 0.2); }

  // μ = 1.5 and 2.0: on a sticking foot one friction pair (η, β) of the pyramid is degenerate and
  // the interior point zig-zags on it (its slack and its dual alternately ~1e-10) in every retry
  // and at every subdivision; the contact step then solves the step again with the friction
  // polygons turned by π/n_f, where that pair is not degenerate (variational_step.cc,
  // stepWithContacts; docs/engine.md, contacts). Until then μ = 1.5 stopped at t = 6.995 s.
  void rubberFeetTrots() { trotsEach({"1.5", "2.0"}, "1.5", 1.0, 0.2); }
};

QTEST_GUILESS_MAIN(TestQuadruped)
#include "tst_quadruped.moc"
