// SPDX-License-Identifier: GPL-3.0-or-later
// Joint dampers and the D terms of PD controllers between two moving bodies, stiff enough that an
// effort evaluated at the start of the step is unstable: c Δt / I > 2 for a light link (a shank of
// 0.1 kg with I = 0.0013 kg m² under a knee servo with kd = 3, the quadruped's case). The variational
// step applies them at the step's unknown velocity with the damper efforts as unknowns of the joint
// node (variational_step.cc), so Newton is exact and converges in a few iterations; measured here:
// iterations per step, energy never rising, the relative motion damped out, a servo tracking its
// target, and (the reason for all this) the same servo evaluated explicitly diverging.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "integrator/integrator_options.h"
#include "simulation.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {

constexpr double kShankInertia = 0.0013;  // about the knee axis, kg m²

// A thigh hinged to the world and a light shank hinged to the thigh, both about y.
Model leg(double kneeDamping, bool gravity) {
  Model m;
  m.name = "leg";
  BodyDesc thigh, shank;
  thigh.name = "thigh";
  thigh.mass = 1.0;
  thigh.inertia = Vec3(0.012, 0.012, 0.001).asDiagonal();
  shank.name = "shank";
  shank.mass = 0.1;
  shank.inertia = Vec3(kShankInertia, kShankInertia, 0.0001).asDiagonal();
  m.bodies = {thigh, shank};
  JointDesc hip, knee;
  hip.name = "hip";
  hip.parent = -1;
  hip.child = 0;
  hip.parentAnchor = Vec3(0, 0, 1.0);
  hip.childAnchor = Vec3(0, 0, 0.2);
  hip.axis = Vec3::UnitY();
  hip.initialPosition = {0.3};
  hip.initialVelocity = {1.0};
  knee.name = "knee";
  knee.parent = 0;
  knee.child = 1;
  knee.parentAnchor = Vec3(0, 0, -0.2);
  knee.childAnchor = Vec3(0, 0, 0.2);
  knee.axis = Vec3::UnitY();
  knee.initialPosition = {-0.5};
  knee.initialVelocity = {5.0};
  if (kneeDamping > 0) knee.damping = {kneeDamping};
  m.joints = {hip, knee};
  if (!gravity) m.gravity.setZero();
  return m;
}

}  // namespace

class TestJointDamping : public QObject {
  Q_OBJECT
 private slots:
  void stiffDamperBetweenBodiesConverges();
  void stiffServoTracksItsTarget();
  void explicitServoDivergesWhereTheImplicitOneDoesNot();
  void limitedServoStaysWithinItsLimit();
};

void TestJointDamping::stiffDamperBetweenBodiesConverges() {
  // Knee dampers with c Δt / I = 2.3, 23 and 230 (Δt = 1 ms), no gravity: 2 s, every step within a
  // few Newton iterations, the kinetic energy never rising and the knee's relative motion gone.
  for (double c : {3.0, 30.0, 300.0}) {
    Simulation sim(compile(leg(c, false)));
    const double e0 = sim.metrics().energy;
    double highest = e0;
    int mostIterations = 0;
    for (int k = 0; k < 2000; ++k) {
      QVERIFY2(sim.step(), qPrintable(QString("c = %1: %2").arg(c).arg(QString::fromStdString(sim.metrics().message))));
      QVERIFY(sim.metrics().residual < sim.settings().tolerance);
      mostIterations = std::max(mostIterations, sim.metrics().iterations);
      highest = std::max(highest, sim.metrics().energy);
    }
    const double kneeRate = sim.jointVelocity(1)(0);
    qInfo("knee damper c = %g (c dt / I = %.1f): at most %d iterations per step, energy %.6f J -> %.6f J "
          "(highest %.3g J above the start), knee rate after 2 s %.2e rad/s",
          c, c * 1e-3 / kShankInertia, mostIterations, e0, sim.metrics().energy, highest - e0, kneeRate);
    QVERIFY(mostIterations <= 4);
    QVERIFY(highest <= e0 * (1 + 1e-12));
    QVERIFY(sim.metrics().energy < 0.9 * e0);
    QVERIFY(std::abs(kneeRate) < 0.01);  // what remains is the slow creep of the knee under the centrifugal load
  }
}

void TestJointDamping::stiffServoTracksItsTarget() {
  // Servos on hip and knee with kd Δt / I_shank = 2.3 and 23, under gravity, following sinusoids for
  // 10 s: every step converges and the knee follows its target.
  for (double kd : {3.0, 30.0}) {
    Model m = leg(0, true);
    ControllerDesc hip, knee;
    hip.joint = 0;
    hip.kp = 400;
    hip.kd = 10;
    hip.amplitude = 0.3;
    hip.frequency = 1.0;
    knee.joint = 1;
    knee.kp = 60;
    knee.kd = kd;
    knee.offset = -0.5;
    knee.amplitude = 0.4;
    knee.frequency = 1.0;
    knee.phase = 1.0;
    m.controllers = {hip, knee};
    Simulation sim(compile(m));
    double worstError = 0, fastest = 0;
    int mostIterations = 0;
    for (int k = 0; k < 10000; ++k) {
      QVERIFY2(sim.step(), qPrintable(QString::fromStdString(sim.metrics().message)));
      mostIterations = std::max(mostIterations, sim.metrics().iterations);
      const double t = sim.state().time;
      const double target = knee.offset + knee.amplitude * std::sin(2 * M_PI * knee.frequency * t + knee.phase);
      fastest = std::max(fastest, std::abs(sim.jointVelocity(1)(0)));
      if (t >= 9.0) worstError = std::max(worstError, std::abs(sim.jointPosition(1)(0) - target));
    }
    qInfo("knee servo kd = %g (kd dt / I = %.1f): at most %d iterations per step, fastest knee rate %.2f rad/s, "
          "tracking error in the last second %.4f rad",
          kd, kd * 1e-3 / kShankInertia, mostIterations, fastest, worstError);
    QVERIFY(mostIterations <= 4);
    QVERIFY(fastest < 10.0);  // the target's rate is at most 2.5 rad/s
    QVERIFY(worstError < 0.2);
  }
}

void TestJointDamping::explicitServoDivergesWhereTheImplicitOneDoesNot() {
  // The same knee servo (kd = 30, kd Δt / I = 23) stepped by RK4, which evaluates the D term at
  // its stages: it diverges (non-finite, a failed step, or a knee rate above 100 rad/s within 1 s),
  // which is the instability the implicit D term removes. The variational step is the test above.
  Model m = leg(0, false);
  ControllerDesc knee;
  knee.joint = 1;
  knee.kp = 60;
  knee.kd = 30;
  m.controllers = {knee};
  Simulation sim(compile(m));
  IntegratorOptions rk4;
  rk4.kind = IntegratorKind::RK4;
  sim.setIntegrator(rk4);
  bool diverged = false;
  for (int k = 0; k < 1000 && !diverged; ++k)
    diverged = !sim.step() || !(std::abs(sim.jointVelocity(1)(0)) < 100.0);
  qInfo("RK4, knee servo kd dt / I = 23: diverged = %d at t = %.3f s", int(diverged), sim.state().time);
  QVERIFY(diverged);
}

void TestJointDamping::limitedServoStaysWithinItsLimit() {
  // A stiff knee servo (kd Δt / I = 23) holding the knee of a leg released at rest, with an effort
  // limit of 0.02 N m, below the shank's weight torque: as the leg falls, the effort at the start of
  // a step is within the limit while at the step's velocity the D term resisting the fall is not.
  // The effort applied in every step stays within the limit (such a step is taken again clamped:
  // 30 steps here; without that, the effort reached 0.13 N m) and reaches it; every step converges.
  Model m = leg(0, true);
  m.joints[0].initialVelocity = {0.0};
  m.joints[1].initialVelocity = {0.0};
  ControllerDesc knee;
  knee.joint = 1;
  knee.kp = 0.5;
  knee.kd = 30;
  knee.offset = -0.5;
  knee.effortLimit = 0.02;
  m.controllers = {knee};
  Simulation sim(compile(m));
  double largest = 0;
  int atLimit = 0;
  for (int k = 0; k < 5000; ++k) {
    QVERIFY2(sim.step(), qPrintable(QString::fromStdString(sim.metrics().message)));
    const double u = std::abs(sim.actuatorEffort(1)(0));
    largest = std::max(largest, u);
    atLimit += u > 0.999 * knee.effortLimit;
  }
  qInfo("limited knee servo: largest effort %.15g N m (limit 0.02), %d of 5000 steps at the limit", largest, atLimit);
  QVERIFY(largest <= knee.effortLimit * (1 + 1e-12));
  QVERIFY(atLimit > 100);
}

QTEST_APPLESS_MAIN(TestJointDamping)
#include "tst_joint_damping.moc"
