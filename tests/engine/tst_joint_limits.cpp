// SPDX-License-Identifier: GPL-3.0-or-later
// Joint limits (revolute angle, prismatic travel) as inequality constraints of the interior-point
// step (Brüdigam et al. 2023, (22)–(29), Appendix D): a pendulum falling onto its upper limit, a
// double pendulum whose elbow has limits (a limit node between two bodies: a cycle in the graph),
// a slider coming to rest at its travel limit, the Newton matrix against finite differences, the
// gallery's limited-pendulum.mech, and the compile error for limits on other joint types.
#include <QTest>

#include <cmath>
#include <random>

#include "allocation_counter.h"
#include "core/check.h"
#include "integrator/variational_step.h"
#include "io/model_file.h"
#include "newton_fd.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "test_paths.h"

using namespace ms;

namespace {

Mat3 cubeInertia(double m, double a) { return Mat3::Identity() * (m * a * a / 6.0); }

BodyDesc cube(const std::string& name) {
  BodyDesc b;
  b.name = name;
  b.mass = 1.0;
  b.inertia = cubeInertia(1.0, 0.1);
  return b;
}

JointDesc hinge(const std::string& name, int parent, int child, const Vec3& pa, const Vec3& pb, double angle) {
  JointDesc j;
  j.name = name;
  j.type = JointType::Revolute;
  j.parent = parent;
  j.child = child;
  j.parentAnchor = pa;
  j.childAnchor = pb;
  j.axis = Vec3::UnitX();
  j.initialPosition = {angle};
  return j;
}

// A 1 kg cube on a massless 1 m rod about world x, horizontal at angle 0 (the cube at −y): gravity
// turns it towards positive angles, onto the upper limit.
Model limitedPendulum(double lower, double upper) {
  Model m;
  m.name = "limited-pendulum";
  m.bodies.push_back(cube("bob"));
  JointDesc j = hinge("hinge", -1, 0, Vec3::Zero(), Vec3(0, 1, 0), 0.0);
  j.lowerLimit = {lower};
  j.upperLimit = {upper};
  m.joints.push_back(j);
  return m;
}

// A double pendulum started with its first link horizontal; the elbow (link1–link2) has limits.
Model limitedDoublePendulum(double lower, double upper) {
  Model m;
  m.name = "limited-double-pendulum";
  m.bodies.push_back(cube("link1"));
  m.bodies.push_back(cube("link2"));
  m.joints.push_back(hinge("shoulder", -1, 0, Vec3::Zero(), Vec3(0, 0, 1), M_PI / 2));
  JointDesc elbow = hinge("elbow", 0, 1, Vec3::Zero(), Vec3(0, 0, 1), 0.0);
  elbow.lowerLimit = {lower};
  elbow.upperLimit = {upper};
  m.joints.push_back(elbow);
  return m;
}

// A 1 kg block on a prismatic joint to the world along an axis inclined 30° above the y axis,
// starting at 0 with travel limits [lower, upper]: gravity slides it down onto the lower limit.
Model limitedSlider(double lower, double upper) {
  Model m;
  m.name = "limited-slider";
  m.bodies.push_back(cube("block"));
  JointDesc j;
  j.name = "slide";
  j.type = JointType::Prismatic;
  j.parent = -1;
  j.child = 0;
  j.axis = Vec3(0, std::cos(M_PI / 6), std::sin(M_PI / 6));
  j.initialPosition = {0.0};
  j.lowerLimit = {lower};
  j.upperLimit = {upper};
  m.joints.push_back(j);
  return m;
}

struct LimitRun {
  double minTheta = 1e9, maxTheta = -1e9, maxViolation = 0, maxJointViolation = 0;
  int steps = 0, maxIterations = 0, stepsAtLimit = 0;
  long iterations = 0;
};

// Runs `duration` seconds, measuring joint `joint`'s coordinate (at every knot) and the metrics.
bool run(Simulation& sim, int joint, double duration, LimitRun& out, std::string& why) {
  while (sim.state().time < duration - 1e-9) {
    if (!sim.step()) {
      why = sim.metrics().message;
      return false;
    }
    const double th = sim.jointPosition(joint)[0];
    if (!std::isfinite(th)) {
      why = "non-finite joint coordinate";
      return false;
    }
    for (const BodyState& b : sim.state().bodies)
      if (!b.x.allFinite() || !b.v.allFinite() || !b.w.allFinite()) {
        why = "non-finite state";
        return false;
      }
    out.minTheta = std::min(out.minTheta, th);
    out.maxTheta = std::max(out.maxTheta, th);
    out.maxViolation = std::max(out.maxViolation, sim.metrics().limitViolation);
    out.maxJointViolation = std::max(out.maxJointViolation, sim.metrics().constraintViolation);
    out.maxIterations = std::max(out.maxIterations, sim.metrics().iterations);
    out.iterations += sim.metrics().iterations;
    out.stepsAtLimit += sim.metrics().limits > 0;
    ++out.steps;
  }
  return true;
}

}  // namespace

class TestJointLimits : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // A pendulum released at 0 falls onto its upper limit 0.5 rad and stays within it for 5 s.
  void pendulumStopsAtItsLimit() {
    auto sys = compile(limitedPendulum(-0.5, 0.5));
    QCOMPARE(int(sys->limits.size()), 1);
    Simulation sim(sys);
    LimitRun r;
    std::string why;
    QVERIFY2(run(sim, 0, 5.0, r, why), why.c_str());
    const double overshoot = std::max(r.maxTheta - 0.5, -0.5 - r.minTheta);
    const double speed = sim.state().bodies[0].v.norm();
    qInfo("limited pendulum, 5 s: angle in [%.9f, %.9f] rad, max overshoot %.3g rad, max limit violation metric "
          "%.3g, %d of %d steps at the limit, final speed %.3g m/s, limit effort %.4f N m, max joint violation %.3g, "
          "mean %.2f (max %d) interior-point iterations per step",
          r.minTheta, r.maxTheta, overshoot, r.maxViolation, r.stepsAtLimit, r.steps, speed,
          sim.state().limitImpulse[0][1], r.maxJointViolation, double(r.iterations) / r.steps, r.maxIterations);
    QVERIFY(overshoot <= 1e-6);
    QVERIFY(r.maxViolation <= 1e-6);
    QVERIFY(r.maxTheta >= 0.5 - 1e-6);
    QVERIFY(r.maxJointViolation <= 1e-9);
    // At rest on the limit: the upper-limit effort holds the weight's moment m g l cos(0.5).
    const double expected = 9.81 * std::cos(0.5);
    qInfo("limited pendulum: upper-limit effort %.6f N m, m g l cos(0.5) = %.6f N m", sim.state().limitImpulse[0][1],
          expected);
    QVERIFY(std::abs(sim.state().limitImpulse[0][1] - expected) < 1e-3 * expected);
    QVERIFY(speed < 1e-6);
  }

  // Limits beyond ±π (a range 0 … 3.5 rad, as robot arms' URDFs give them) or at exactly ±π (UR
  // arms: ±3.14159265): the angle, given in (−π, π], is continued from step to step, so the pendulum
  // swings past π onto its upper limit and stops there, instead of failing where the angle wraps.
  void limitsBeyondPiHoldWhereTheAngleWraps() {
    for (const auto& [lower, upper] : {std::pair{0.0, 3.5}, std::pair{-3.14159265, 3.14159265}}) {
      Model m = limitedPendulum(lower, upper);
      m.joints[0].initialPosition = {2.5};
      m.joints[0].initialVelocity = {6.0};
      Simulation sim(compile(m));
      double maxCoordinate = -INFINITY, minRaw = INFINITY;
      for (int i = 0; i < 300; ++i) {
        QVERIFY2(sim.step(), sim.metrics().message.c_str());
        minRaw = std::min(minRaw, sim.jointPosition(0)(0));
        maxCoordinate = std::max(maxCoordinate, sim.state().limitPosition[0]);
        QVERIFY(sim.metrics().limitViolation <= 1e-6);
      }
      qInfo("limits [%g, %g]: the angle reached %.4f rad (wrapped); the limit coordinate at most %.9f rad", lower, upper,
            minRaw, maxCoordinate);
      QVERIFY(minRaw < -M_PI + 0.3 || upper <= M_PI);  // past π (wrapped) when the limit lies beyond it
      QVERIFY(std::abs(maxCoordinate - upper) <= 1e-6);  // stopped at the upper limit
    }
  }

  // The elbow of a double pendulum (limit node adjacent to two bodies: a cycle with the joint node).
  void doublePendulumElbowStaysWithinItsLimits() {
    auto sys = compile(limitedDoublePendulum(-0.5, 0.5));
    qInfo("limited double pendulum: %d nodes, fill-in %d, %d loop closures", sys->numNodes, sys->order.fillIn,
          int(sys->order.loopClosures.size()));
    QVERIFY(sys->order.loopClosures.size() >= 1);  // the limit node closes a cycle
    Simulation sim(sys);
    LimitRun r;
    std::string why;
    QVERIFY2(run(sim, 1, 5.0, r, why), why.c_str());
    const double overshoot = std::max(r.maxTheta - 0.5, -0.5 - r.minTheta);
    const double reached = std::max(r.maxTheta, -r.minTheta);
    qInfo("limited double pendulum, 5 s: elbow angle in [%.9f, %.9f] rad, max overshoot %.3g rad, limit violation "
          "metric %.3g, %d of %d steps at a limit, max joint violation %.3g, mean %.2f (max %d) iterations per step",
          r.minTheta, r.maxTheta, overshoot, r.maxViolation, r.stepsAtLimit, r.steps, r.maxJointViolation,
          double(r.iterations) / r.steps, r.maxIterations);
    QVERIFY(overshoot <= 1e-6);
    QVERIFY(r.maxViolation <= 1e-6);
    QVERIFY(reached >= 0.5 - 1e-6);
    QVERIFY(r.maxJointViolation <= 1e-9);
  }

  // A block on an inclined prismatic joint slides down onto its lower travel limit and rests there.
  void sliderComesToRestAtItsTravelLimit() {
    auto sys = compile(limitedSlider(-0.3, 0.4));
    Simulation sim(sys);
    LimitRun r;
    std::string why;
    QVERIFY2(run(sim, 0, 3.0, r, why), why.c_str());
    const double pos = sim.jointPosition(0)[0];
    const double speed = sim.state().bodies[0].v.norm();
    const double expected = 9.81 * std::sin(M_PI / 6);  // the weight's component along the axis
    qInfo("limited slider, 3 s: travel in [%.9f, %.9f] m, final %.9f m (distance to the limit %.3g m), speed %.3g "
          "m/s, lower-limit effort %.6f N (m g sin 30 deg = %.6f N), max limit violation %.3g, mean %.2f (max %d) "
          "iterations per step",
          r.minTheta, r.maxTheta, pos, std::abs(pos + 0.3), speed, sim.state().limitImpulse[0][0], expected,
          r.maxViolation, double(r.iterations) / r.steps, r.maxIterations);
    QVERIFY(std::abs(pos + 0.3) <= 1e-6);
    QVERIFY(r.minTheta >= -0.3 - 1e-6);
    QVERIFY(r.maxViolation <= 1e-6);
    QVERIFY(speed < 1e-6);
    QVERIFY(std::abs(sim.state().limitImpulse[0][0] - expected) < 1e-3 * expected);
  }

  // The Newton matrix with limits (efforts through J_min(z1), rows ±θ(z2) with the compliance,
  // padding rows) equals central finite differences of the residual, with the limit active (the
  // pendulum at rest on it; the double pendulum's elbow against it), for one and two bodies.
  void newtonMatrixMatchesFiniteDifferences() {
    {
      auto sys = compile(limitedPendulum(-0.5, 0.5));
      Simulation sim(sys);
      for (int s = 0; s < 100; ++s) QVERIFY2(sim.step(), sim.metrics().message.c_str());
      qInfo("pendulum after 1 s: angle %.9f rad, %d limit(s) active", sim.jointPosition(0)[0], sim.metrics().limits);
      QVERIFY(sim.metrics().limits == 1);
      bool ok = false;
      const double worst = test::worstNewtonError(sys, sim, 11, ok);
      QVERIFY(ok);
      qInfo("limit Newton matrix (one body) vs finite differences: worst relative error %.3g", worst);
      QVERIFY(worst < 1e-6);
    }
    {
      auto sys = compile(limitedDoublePendulum(-0.5, 0.5));
      Simulation sim(sys);
      int active = 0;
      for (int s = 0; s < 500 && !active; ++s) {
        QVERIFY2(sim.step(), sim.metrics().message.c_str());
        active = sim.metrics().limits;
      }
      qInfo("double pendulum at t = %.2f s: elbow %.9f rad, %d limit(s) active", sim.state().time,
            sim.jointPosition(1)[0], active);
      QVERIFY(active == 1);
      bool ok = false;
      const double worst = test::worstNewtonError(sys, sim, 13, ok);
      QVERIFY(ok);
      qInfo("limit Newton matrix (two bodies, cycle) vs finite differences: worst relative error %.3g", worst);
      QVERIFY(worst < 1e-6);
      // The graph LDU with the cycle's fill-in solves the assembled matrix like a dense LU.
      VariationalIntegrator vi(sys);
      const int nb = int(sys->bodies.size()), nn = sys->numNodes;
      VecX vel = VecX::Constant(6 * nb, 0.1), lam = VecX::Constant(6 * (nn - nb), 1.0), r;
      QVERIFY(vi.residualAt(sim.settings(), sim.inputs(), sim.state(), vel, lam, r, true));
      GraphLDU F = vi.matrix();
      const MatX dense = F.toDense();
      QVERIFY(F.factor());
      VecX x;
      F.solve(r, x);
      const VecX ref = dense.fullPivLu().solve(r);
      // Backward errors ‖F x − r‖∞ / (‖F‖∞ ‖x‖∞ + ‖r‖∞) of both (the forward difference is bounded
      // by the condition number: the limit rows carry only ε_l on their diagonal).
      auto backward = [&](const VecX& sol) {
        return (dense * sol - r).lpNorm<Eigen::Infinity>() /
               (dense.lpNorm<Eigen::Infinity>() * sol.lpNorm<Eigen::Infinity>() + r.lpNorm<Eigen::Infinity>());
      };
      const double diff = (x - ref).lpNorm<Eigen::Infinity>() / ref.lpNorm<Eigen::Infinity>();
      qInfo("graph LDU with the limit cycle: backward error %.3g (dense LU %.3g), relative difference %.3g",
            backward(x), backward(ref), diff);
      QVERIFY(backward(x) < 1e-13);
      QVERIFY(diff < 1e-5);
    }
  }

  // models/limited-pendulum.mech: compiles with one limit, runs 10 s within its limits.
  void galleryModelRunsWithinItsLimits() {
    Model m;
    Diagnostics d;
    QVERIFY2(loadModel(test::modelPath("limited-pendulum.mech"), {}, m, d), d.format().c_str());
    auto sys = compile(m);
    QCOMPARE(int(sys->limits.size()), 1);
    const CompiledLimit& l = sys->limits[0];
    Simulation sim(sys);
    LimitRun r;
    std::string why;
    QVERIFY2(run(sim, l.joint, 10.0, r, why), why.c_str());
    const double overshoot = std::max(r.maxTheta - l.upper, l.lower - r.minTheta);
    qInfo("limited-pendulum.mech, 10 s: angle in [%.6f, %.6f] rad (limits [%.6f, %.6f]), overshoot %.3g rad, "
          "%d of %d steps at a limit, max joint violation %.3g",
          r.minTheta, r.maxTheta, l.lower, l.upper, overshoot, r.stepsAtLimit, r.steps, r.maxJointViolation);
    QVERIFY(overshoot <= 1e-6);
    QVERIFY(r.stepsAtLimit > 0);
    QVERIFY(r.maxJointViolation <= 1e-9);
  }

  // Limits on a joint with several free coordinates are a compile error that says so.
  // Steps allocate nothing, also when a limit joins or leaves the interior-point problem (the
  // double pendulum's elbow swings onto and off its limits: the number of pairs changes).
  void stepsDoNotAllocateWhenLimitsComeAndGo() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc is not interposed in this build (sanitizer or non-glibc)");
#endif
    Simulation sim(compile(limitedDoublePendulum(-0.5, 0.5)));
    for (int s = 0; s < 5; ++s) QVERIFY(sim.step());
    g_allocations = 0;
    g_countAllocations = true;
    bool ok = true;
    int changes = 0, previous = -1;
    for (int s = 0; s < 300; ++s) {
      ok = sim.step() && ok;
      const int active = sim.metrics().limits;
      changes += previous >= 0 && active != previous;
      previous = active;
    }
    g_countAllocations = false;
    QVERIFY(ok);
    qInfo("limited double pendulum, 300 steps: the number of active limits changed %d times, %ld allocations", changes,
          g_allocations.load());
    QVERIFY(changes >= 2);
    QCOMPARE(g_allocations.load(), 0L);
  }

  void limitsOnOtherJointTypesAreRejected() {
    Model m = limitedPendulum(-0.5, 0.5);
    m.joints[0].type = JointType::Spherical;
    m.joints[0].initialPosition.clear();
    m.joints[0].lowerLimit = {-0.5, -0.5, -0.5};
    m.joints[0].upperLimit = {0.5, 0.5, 0.5};
    QString what;
    try {
      compile(m);
    } catch (const UserError& e) {
      what = e.what();
    }
    qInfo("%s", qPrintable(what));
    QVERIFY(what.contains("limits are supported on revolute and prismatic joints"));
  }
};

QTEST_GUILESS_MAIN(TestJointLimits)
#include "tst_joint_limits.moc"
