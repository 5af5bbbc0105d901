// SPDX-License-Identifier: GPL-3.0-or-later
// The gallery models that have no built-in scene (models/scissor-lift.mech, trep-closed-chain.mech,
// four-bar.mech, slider-crank.mech) behave as their comments say: the native scissor lift follows
// the one-degree-of-freedom reference of trep §VI-C, the converted closed-chain device equals its
// .trep original and keeps its energy bounded for 120 s, and the four-bar and slider-crank keep
// their loops closed, keep their energy bounded and turn their cranks all the way round. Each test
// states the acceptance criterion it checks. (tst_mech_reader checks that every gallery file reads
// without diagnostics and simulates 10 s; tests/cli/gallery_tests.cmake runs them through the CLI.)
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "io/model_file.h"
#include "simulation.h"
#include "system/compiled_system.h"

#include "scissor_reference.h"
#include "test_paths.h"

using namespace ms;

namespace {


using test::modelPath;

// Loads a gallery file through the engine's one entry point; false (and the diagnostics) on error.
bool load(const std::string& file, Model& m, std::string& messages,
          const std::map<std::string, std::string>& params = {}) {
  Diagnostics d;
  const bool ok = loadModel(modelPath(file), params, m, d);
  messages = modelPath(file) + "\n" + d.format();
  return ok;
}

// Angle of a body about the world x axis (for bodies that only turn about x): q = (cos φ/2, sin φ/2, 0, 0).
double angleAboutX(const Vec4& q) { return 2 * std::atan2(q(1), q(0)); }

// Wraps an angle difference into (−π, π].
double wrap(double a) {
  while (a > kPi) a -= 2 * kPi;
  while (a <= -kPi) a += 2 * kPi;
  return a;
}

// Energy and constraint statistics of a run of `steps` steps: the engine's energy metric, for the
// variational integrator the discrete energy K(v_k) + ½(V(x_k) + V(x_k+1)) of the interval leaving
// knot k (O(Δt²), Simulation::potentialEnergy); max |E − E0| over the first and the last tenth of the
// run and over all of it; the largest constraint violation; the ranges of the
// potential and kinetic energy. `each` is called after every step (return false to stop the run).
struct RunStats {
  bool ok = true;
  std::string failure;
  double firstTenth = 0, lastTenth = 0, overall = 0;  // engine energy metric
  double worstViolation = 0, vMin = 1e300, vMax = -1e300, kMax = 0;
};

RunStats run(Simulation& sim, long steps, const std::function<void(long)>& each = {}) {
  RunStats r;
  const long tenth = steps / 10;
  const double E0 = sim.metrics().energy;
  r.worstViolation = sim.metrics().constraintViolation;
  for (long s = 1; s <= steps; ++s) {
    if (!sim.step()) {
      r.ok = false;
      r.failure = sim.metrics().message;
      return r;
    }
    const StepMetrics& mt = sim.metrics();
    r.worstViolation = std::max(r.worstViolation, mt.constraintViolation);
    const double dE = std::abs(mt.energy - E0);
    r.overall = std::max(r.overall, dE);
    if (s <= tenth) r.firstTenth = std::max(r.firstTenth, dE);
    if (s > steps - tenth) r.lastTenth = std::max(r.lastTenth, dE);
    r.vMin = std::min(r.vMin, mt.potential);
    r.vMax = std::max(r.vMax, mt.potential);
    r.kMax = std::max(r.kMax, mt.kinetic);
    if (each) each(s);
  }
  return r;
}

}  // namespace

class TestGallery : public QObject {
  Q_OBJECT
 private slots:
  void scissorLiftFollowsOneDofReference();
  void scissorLiftSegmentsParameter();
  void closedChainEqualsTrepAndKeepsEnergy();
  void fourBarCrankTurns();
  void sliderCrankTurns();
};

void TestGallery::scissorLiftFollowsOneDofReference() {
  // Acceptance: models/scissor-lift.mech as written (5 segments, L = 1 m, mL = 1 kg, I = mL L²/12
  // about the pins, slider mS = 1 kg, θ0 = 45°, at rest), Δt = 0.01, 15 s, follows the
  // one-degree-of-freedom reference of trep §VI-C (tests/engine/scissor_reference.h, RK4 with
  // h = 1e-4, the same reference as tst_trep_import) with integrated squared angle error
  // ∫(θ_ref − θ)² dt < 0.1 (eq. 47), swings through the fully extended pose θ = π/2, and keeps its
  // loops closed to 1e-9 m at every step. θ is read from the centre of link A1,
  // (½ L cos θ, −½ L sin θ) in the y-z plane.
  Model m;
  std::string messages;
  QVERIFY2(load("scissor-lift.mech", m, messages), messages.c_str());
  QCOMPARE(int(m.bodies.size()), 11);      // 10 links + slider
  QCOMPARE(int(m.joints.size()), 3 * 5 + 1);  // 10 link pins, the rail, 5 loop pins
  QCOMPARE(m.solver.dt, 0.01);
  const int a1 = m.bodyIndex("A1");
  QVERIFY(a1 >= 0);
  QCOMPARE(m.bodies[a1].mass, 1.0);
  QVERIFY(std::abs(m.bodies[a1].inertia(0, 0) - 1.0 / 12) < 1e-15);  // about the pin axis x

  const long steps = 1500;
  ms_test::ScissorLift lift;  // 5 segments, L = mL = mS = 1, I = 1/12, g = 9.81
  const std::vector<double> ref = ms_test::rk4(lift.lagrangian(), kPi / 4, 0.0, 1e-4, steps * 100, 100);

  Simulation sim(compile(m));
  auto theta = [&]() {
    const Vec3 x = sim.state().bodies[a1].x;
    return std::atan2(-x.z(), x.y());
  };
  QVERIFY(std::abs(theta() - kPi / 4) < 1e-12);
  QVERIFY(std::abs(sim.state().bodies[a1].x.x()) < 1e-12);  // in the y-z plane
  double err = 0, worst = 0, thMin = 10, thMax = -10, worstViolation = sim.metrics().constraintViolation;
  for (long k = 1; k <= steps; ++k) {
    QVERIFY2(sim.step(), sim.metrics().message.c_str());
    const double th = theta();
    err += (ref[k] - th) * (ref[k] - th) * 0.01;
    worst = std::max(worst, std::abs(ref[k] - th));
    thMin = std::min(thMin, th);
    thMax = std::max(thMax, th);
    worstViolation = std::max(worstViolation, sim.metrics().constraintViolation);
    QVERIFY2(sim.metrics().constraintViolation <= 1e-9,
             qPrintable(QString("step %1: violation %2").arg(k).arg(sim.metrics().constraintViolation)));
  }
  qInfo("scissor-lift.mech (5 segments, dt = 0.01, 15 s): integrated squared angle error %.4g rad^2 s, max |dtheta| "
        "%.3g rad, theta range [%.3f, %.3f] rad, max violation %.3g m",
        err, worst, thMin, thMax, worstViolation);
  QVERIFY(thMin > kPi / 4 - 0.01);     // it starts at rest at the top of its swing ...
  QVERIFY(thMax > kPi / 2 + 0.5);      // ... and swings through the fully extended pose
  QVERIFY(err < 0.1);
}

void TestGallery::scissorLiftSegmentsParameter() {
  // Acceptance: `segments` sets the number of segments (--set segments=8 gives 17 bodies and
  // 25 joints); the 8-segment lift simulates 5 s at Δt = 0.01 with its loops closed to 1e-9 m and
  // follows its own one-degree-of-freedom reference (N = 8) with ∫(θ_ref − θ)² dt < 0.1; one
  // segment (no right-hand loop pins) works too.
  for (const int n : {8, 1}) {
    Model m;
    std::string messages;
    QVERIFY2(load("scissor-lift.mech", m, messages, {{"segments", std::to_string(n)}}), messages.c_str());
    QCOMPARE(int(m.bodies.size()), 2 * n + 1);
    QCOMPARE(int(m.joints.size()), 3 * n + 1);
    const long steps = 500;
    ms_test::ScissorLift lift;
    lift.segments = n;
    const std::vector<double> ref = ms_test::rk4(lift.lagrangian(), kPi / 4, 0.0, 1e-4, steps * 100, 100);
    Simulation sim(compile(m));
    const int a1 = m.bodyIndex("A1");
    double err = 0, worstViolation = 0, thMax = -10;
    for (long k = 1; k <= steps; ++k) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      const Vec3 x = sim.state().bodies[a1].x;
      const double th = std::atan2(-x.z(), x.y());
      err += (ref[k] - th) * (ref[k] - th) * 0.01;
      thMax = std::max(thMax, th);
      worstViolation = std::max(worstViolation, sim.metrics().constraintViolation);
    }
    qInfo("scissor-lift.mech, segments = %d, 5 s: integrated squared angle error %.4g rad^2 s, theta max %.3f rad, "
          "max violation %.3g m",
          n, err, thMax, worstViolation);
    QVERIFY(worstViolation <= 1e-9);
    QVERIFY(thMax > kPi / 2 + 0.5);
    QVERIFY(err < 0.1);
  }
}

void TestGallery::closedChainEqualsTrepAndKeepsEnergy() {
  // Acceptance: models/trep-closed-chain.mech (the converter's output for Listing 1) describes the
  // same bodies as models/trep-closed-chain.trep (names, masses, inertias, joint count) and gives
  // the same trajectory: every body's position within 1e-9 m and orientation within 1e-9 over the
  // first 1 s. Run alone for 120 s at Δt = 0.01 (the paper's Fig. 8): constraint violation ≤ 1e-9 m
  // at every step; energy bounded: max |E − E0| over the last tenth ≤ 1.5× that over the first
  // tenth, and in absolute terms ≤ 1 % of the potential-energy range swept.
  Model mech, trep;
  std::string messages;
  QVERIFY2(load("trep-closed-chain.mech", mech, messages), messages.c_str());
  QVERIFY2(load("trep-closed-chain.trep", trep, messages), messages.c_str());
  QCOMPARE(mech.bodies.size(), size_t(7));
  QCOMPARE(mech.bodies.size(), trep.bodies.size());
  QCOMPARE(mech.joints.size(), trep.joints.size());
  QCOMPARE(mech.solver.dt, 0.01);
  for (size_t i = 0; i < trep.bodies.size(); ++i) {
    QCOMPARE(mech.bodies[i].name, trep.bodies[i].name);
    QCOMPARE(mech.bodies[i].mass, trep.bodies[i].mass);
    QVERIFY((mech.bodies[i].inertia - trep.bodies[i].inertia).norm() <= 1e-15);
  }
  for (size_t j = 0; j < trep.joints.size(); ++j) {
    QCOMPARE(mech.joints[j].name, trep.joints[j].name);
    QCOMPARE(int(mech.joints[j].type), int(trep.joints[j].type));
  }

  {
    Simulation a(compile(mech)), b(compile(trep));
    double worstX = 0, worstQ = 0;
    for (int s = 0; s <= 100; ++s) {
      if (s > 0) {
        QVERIFY2(a.step(), a.metrics().message.c_str());
        QVERIFY2(b.step(), b.metrics().message.c_str());
      }
      for (size_t i = 0; i < trep.bodies.size(); ++i) {
        const BodyState &p = a.state().bodies[i], &q = b.state().bodies[i];
        worstX = std::max(worstX, (p.x - q.x).norm());
        worstQ = std::max(worstQ, std::min((p.q - q.q).norm(), (p.q + q.q).norm()));
      }
    }
    qInfo("trep-closed-chain.mech vs .trep, 1 s: max position difference %.3g m, orientation %.3g", worstX, worstQ);
    QVERIFY(worstX <= 1e-9);
    QVERIFY(worstQ <= 1e-9);
  }

  Simulation sim(compile(mech));
  QVERIFY(sim.metrics().constraintViolation <= 1e-9);
  const RunStats r = run(sim, 12000);
  QVERIFY2(r.ok, r.failure.c_str());
  const double range = r.vMax - r.vMin;
  qInfo("trep-closed-chain.mech 120 s: max violation %.3g m; potential range %.4g J; energy max|E-E0| first tenth "
        "%.4g J, last tenth %.4g J (ratio %.3f), overall %.4g J",
        r.worstViolation, range, r.firstTenth, r.lastTenth, r.lastTenth / r.firstTenth, r.overall);
  QVERIFY(r.worstViolation <= 1e-9);
  QVERIFY(range > 1.0);  // it really moves
  QVERIFY(r.lastTenth <= 1.5 * r.firstTenth);
  QVERIFY(r.overall <= 0.01 * range);
}

namespace {

// A crank mechanism of the gallery over 10 s at its own Δt: loop closures ≤ 1e-9 m at every step,
// energy bounded (last tenth ≤ 1.5× first tenth; max |E − E0| ≤ 1 % of the largest kinetic
// energy), and the crank joint's angle
// (Simulation::jointPosition, unwrapped) turns at least `minTurns` full turns in one direction.
// `each` checks more per step; returns the number of turns.
double checkCrank(const char* file, const char* crankJoint, double minTurns,
                  const std::function<void(const Simulation&)>& each) {
  Model m;
  std::string messages;
  if (!load(file, m, messages)) {
    QTest::qFail(messages.c_str(), __FILE__, __LINE__);
    return 0;
  }
  const int crank = m.jointIndex(crankJoint);
  if (crank < 0) {
    QTest::qFail("no crank joint", __FILE__, __LINE__);
    return 0;
  }
  Simulation sim(compile(m));
  const long steps = std::lround(10.0 / m.solver.dt);
  double angle = sim.jointPosition(crank)(0), turned = 0;
  bool violationOk = sim.metrics().constraintViolation <= 1e-9;
  const RunStats r = run(sim, steps, [&](long) {
    const double a = sim.jointPosition(crank)(0);
    turned += wrap(a - angle);
    angle = a;
    violationOk = violationOk && sim.metrics().constraintViolation <= 1e-9;
    each(sim);
  });
  const double turns = turned / (2 * kPi);
  qInfo("%s, dt = %g, 10 s: crank turns %.3f; max violation %.3g m; max kinetic energy %.4g J; energy max|E-E0| "
        "first tenth %.4g J, last tenth %.4g J, overall %.4g J",
        file, m.solver.dt, turns, r.worstViolation, r.kMax, r.firstTenth, r.lastTenth, r.overall);
  if (!r.ok) QTest::qFail(r.failure.c_str(), __FILE__, __LINE__);
  if (!violationOk) QTest::qFail("constraint violation above 1e-9 m", __FILE__, __LINE__);
  if (!(r.lastTenth <= 1.5 * r.firstTenth))
    QTest::qFail("energy error grows", __FILE__, __LINE__);
  if (!(r.overall <= 0.01 * r.kMax))
    QTest::qFail("energy error too large", __FILE__, __LINE__);
  if (!(std::abs(turns) >= minTurns)) QTest::qFail("the crank does not turn all the way round", __FILE__, __LINE__);
  return turns;
}

}  // namespace

void TestGallery::fourBarCrankTurns() {
  // Acceptance: models/four-bar.mech (Grashof crank-rocker, started at its highest point with a
  // 2 rad/s push), 10 s: checkCrank with at least 5 full crank turns (about 7.4 expected, measured
  // from a one-degree-of-freedom model when the file was written); the rocker only rocks, between
  // 11.4° and 51.4° from vertical (the limits of the linkage's geometry, ±0.5°); the ground link
  // stays where it is welded.
  Model m;
  std::string messages;
  QVERIFY2(load("four-bar.mech", m, messages), messages.c_str());
  const int rocker = m.jointIndex("rocker-pivot"), ground = m.bodyIndex("ground");
  QVERIFY(rocker >= 0 && ground >= 0);
  double rMin = 10, rMax = -10, groundMoved = 0;
  const double turns = checkCrank("four-bar.mech", "crank-shaft", 5, [&](const Simulation& sim) {
    const double r = sim.jointPosition(rocker)(0);
    rMin = std::min(rMin, r);
    rMax = std::max(rMax, r);
    groundMoved = std::max(groundMoved, (sim.state().bodies[ground].x - Vec3(0, 0.2, 0)).norm());
  });
  if (QTest::currentTestFailed()) return;
  qInfo("four-bar: %.3f crank turns; rocker between %.2f and %.2f degrees; ground moved %.3g m", turns,
        rMin * 180 / kPi, rMax * 180 / kPi, groundMoved);
  QVERIFY(rMin >= (11.4 - 0.5) * kPi / 180 && rMax <= (51.4 + 0.5) * kPi / 180);
  QVERIFY(rMax - rMin >= 39 * kPi / 180);  // it swings through (nearly) its whole range
  QVERIFY(groundMoved <= 1e-9);
}

void TestGallery::sliderCrankTurns() {
  // Acceptance: models/slider-crank.mech (in-line, r = 0.1 m, l = 0.3 m, started upright with a
  // 2 rad/s push), 10 s: checkCrank with at least 5 full crank turns (about 11 expected); the slider
  // stays on its guide (y between l − r = 0.2 m and l + r = 0.4 m, z = 0, to 1e-9 m) and reaches
  // both dead centres (within 1 mm), and it does not turn.
  Model m;
  std::string messages;
  QVERIFY2(load("slider-crank.mech", m, messages), messages.c_str());
  const int slider = m.bodyIndex("slider");
  QVERIFY(slider >= 0);
  double yMin = 10, yMax = -10, offLine = 0, turned = 0;
  const double turns = checkCrank("slider-crank.mech", "shaft", 5, [&](const Simulation& sim) {
    const BodyState& s = sim.state().bodies[slider];
    yMin = std::min(yMin, s.x.y());
    yMax = std::max(yMax, s.x.y());
    offLine = std::max({offLine, std::abs(s.x.x()), std::abs(s.x.z())});
    turned = std::max(turned, std::abs(angleAboutX(s.q)));
  });
  if (QTest::currentTestFailed()) return;
  qInfo("slider-crank: %.3f crank turns; slider y in [%.6f, %.6f] m, off its line %.3g m, turned %.3g rad", turns, yMin,
        yMax, offLine, turned);
  QVERIFY(yMin >= 0.2 - 1e-9 && yMax <= 0.4 + 1e-9);
  QVERIFY(yMin <= 0.2 + 1e-3 && yMax >= 0.4 - 1e-3);
  QVERIFY(offLine <= 1e-9);
  QVERIFY(turned <= 1e-9);
}

QTEST_APPLESS_MAIN(TestGallery)
#include "tst_gallery.moc"
