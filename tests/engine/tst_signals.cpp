// SPDX-License-Identifier: GPL-3.0-or-later
// The signal catalogue (engine/signals): names and units, selection by glob with a clear error,
// joint coordinates as the minimal-coordinate readout, degrees, body angles, and the reaction
// wrenches of joints checked against statics and Newton's second law (issue 15's acceptance).
#include <QTest>

#include <cmath>
#include <set>

#include "model_text.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "io/mech_reader.h"
#include "io/model_file.h"
#include "signals/signals.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "test_paths.h"

using namespace ms;

namespace {

Model parse(const std::string& text) { return test::parseMech(text); }

Model gallery(const std::string& file, const std::map<std::string, std::string>& params = {}) {
  Model m;
  Diagnostics d;
  if (!loadModel(test::modelPath(file), params, m, d)) qFatal("%s does not load: %s", file.c_str(), d.format().c_str());
  return m;
}

// Values of the named signals (each must exist) at the simulation's state.
std::vector<double> values(const SignalCatalogue& c, const Simulation& sim, const std::vector<std::string>& names,
                           AngleUnit angles = AngleUnit::Radians) {
  std::vector<int> sel;
  for (const std::string& n : names) {
    const int i = c.find(n);
    if (i < 0) qFatal("no signal %s", n.c_str());
    sel.push_back(i);
  }
  std::vector<double> out;
  c.evaluate(sim, sel, angles, out);
  return out;
}

Vec3 vec(const SignalCatalogue& c, const Simulation& sim, const std::string& prefix) {
  const auto v = values(c, sim, {prefix + ".x", prefix + ".y", prefix + ".z"});
  return Vec3(v[0], v[1], v[2]);
}

}  // namespace

class TestSignals : public QObject {
  Q_OBJECT
 private slots:
  void catalogueNamesAndUnits();
  void selectionByGlobAndErrors();
  void jointCoordinatesAreTheMinimalReadout();
  void bodyAnglesAndDegrees();
  void hangingPendulumTransmitsItsWeight();
  void torqueAboutAHingeIsItsEffort();
  void sliderAgainstItsLimitTransmitsItsWeight();
  void threeLinkLoopGroundReactionsBalanceNewton();
  void contactForceOfARestingBox();
};

void TestSignals::catalogueNamesAndUnits() {
  for (const char* file : {"four-bar.mech", "quadruped.mech", "damped-pendulum.mech", "limited-pendulum.mech",
                           "contact-pairs.mech", "chain-spherical.mech"}) {
    const auto sys = compile(gallery(file));
    const SignalCatalogue c(*sys);
    std::set<std::string> names;
    for (int i = 0; i < c.size(); ++i) {
      QVERIFY2(names.insert(c.info(i).name).second, (std::string(file) + ": duplicate " + c.info(i).name).c_str());
      QCOMPARE(c.find(c.info(i).name), i);
    }
    // Every joint has its wrench, every body its pose, the system its totals.
    for (const CompiledJoint& j : sys->joints) QVERIFY(c.find(j.name + ".torque_local.z") >= 0);
    for (const CompiledBody& b : sys->bodies) QVERIFY(c.find(b.name + ".yaw") >= 0);
    QVERIFY(c.find("system.energy") >= 0);
  }
  const auto sys = compile(gallery("limited-pendulum.mech"));
  const SignalCatalogue c(*sys);
  QCOMPARE(c.header(c.find("hinge.angle"), AngleUnit::Radians), std::string("hinge.angle [rad]"));
  QCOMPARE(c.header(c.find("hinge.angle_rate"), AngleUnit::Degrees), std::string("hinge.angle_rate [deg/s]"));
  QCOMPARE(c.header(c.find("hinge.limit"), AngleUnit::Degrees), std::string("hinge.limit [N*m]"));
  QCOMPARE(c.header(c.find("hinge.force.z"), AngleUnit::Degrees), std::string("hinge.force.z [N]"));
  QCOMPARE(c.header(c.find("system.angular_momentum.x"), AngleUnit::Radians), std::string("system.angular_momentum.x [N*m*s]"));
  // Springs and dampers appear where the joint has them.
  const auto damped = compile(gallery("damped-pendulum.mech"));
  const SignalCatalogue cd(*damped);
  bool damper = false;
  for (int i = 0; i < cd.size(); ++i) damper = damper || cd.info(i).name.find(".damper") != std::string::npos;
  QVERIFY(damper);
}

void TestSignals::selectionByGlobAndErrors() {
  const auto sys = compile(gallery("four-bar.mech"));
  const SignalCatalogue c(*sys);
  const std::vector<int> crank = c.select("crank-shaft.*");
  QCOMPARE(int(crank.size()), 3 + 12);  // angle, rate, effort and the wrench
  for (int i : crank) QVERIFY(c.info(i).name.rfind("crank-shaft.", 0) == 0);
  QCOMPARE(int(c.select("*.force.z").size()), int(sys->joints.size()));
  try {
    c.select("crank-shaft.angel");
    QFAIL("an unknown signal was accepted");
  } catch (const UserError& e) {
    const std::string msg = e.what();
    QVERIFY2(msg.find("no signal matches 'crank-shaft.angel'") != std::string::npos, msg.c_str());
    QVERIFY2(msg.find("did you mean 'crank-shaft.angle'") != std::string::npos, msg.c_str());
  }
}

void TestSignals::jointCoordinatesAreTheMinimalReadout() {
  Simulation sim(compile(gallery("four-bar.mech")));
  const SignalCatalogue c(*sim.systemPtr());
  for (int s = 0; s < 50; ++s) QVERIFY2(sim.step(), sim.metrics().message.c_str());
  for (size_t k = 0; k < sim.system().joints.size(); ++k) {
    const CompiledJoint& j = sim.system().joints[k];
    if (j.geo.freeCoordinates() != 1) continue;
    const auto v = values(c, sim, {j.name + ".angle", j.name + ".angle_rate"});
    QCOMPARE(v[0], sim.jointPosition(int(k))[0]);
    QCOMPARE(v[1], sim.jointVelocity(int(k))[0]);
    const auto deg = values(c, sim, {j.name + ".angle", j.name + ".angle_rate"}, AngleUnit::Degrees);
    QVERIFY(std::abs(deg[0] - v[0] * 180 / kPi) <= 1e-12 * std::max(1.0, std::abs(deg[0])));
    QVERIFY(std::abs(deg[1] - v[1] * 180 / kPi) <= 1e-12 * std::max(1.0, std::abs(deg[1])));
  }
}

void TestSignals::bodyAnglesAndDegrees() {
  // A free body turned by yaw 30°, pitch −20°, roll 10° (Z-Y-X) reads those angles back.
  Model m = parse("(mechanism \"b\" (gravity 0 0 0) (body box (mass 1) (shape box 0.1 0.2 0.3)))");
  Simulation sim(compile(m));
  State s = sim.state();
  const double yaw = 30 * kPi / 180, pitch = -20 * kPi / 180, roll = 10 * kPi / 180;
  s.bodies[0].q = quat::mul(quat::mul(quat::fromAxisAngle(Vec3::UnitZ(), yaw), quat::fromAxisAngle(Vec3::UnitY(), pitch)),
                            quat::fromAxisAngle(Vec3::UnitX(), roll));
  s.bodies[0].x = Vec3(1, 2, 3);
  sim.setState(s);
  const SignalCatalogue c(*sim.systemPtr());
  const auto deg = values(c, sim, {"box.roll", "box.pitch", "box.yaw", "box.x", "box.z"}, AngleUnit::Degrees);
  QVERIFY(std::abs(deg[0] - 10) <= 1e-12);
  QVERIFY(std::abs(deg[1] + 20) <= 1e-12);
  QVERIFY(std::abs(deg[2] - 30) <= 1e-12);
  QCOMPARE(deg[3], 1.0);  // lengths are not converted
  QCOMPARE(deg[4], 3.0);
}

void TestSignals::hangingPendulumTransmitsItsWeight() {
  // At rest hanging: the hinge carries m·g upwards and no torque, in the world and joint frames,
  // at every step of 100 s (a start accepted without iteration once let the solution creep until a
  // 1e-10 m correction made a 1.0e-7 relative spike at step 1019).
  Simulation sim(compile(gallery("pendulum.mech", {{"angle", "0"}})));
  const SignalCatalogue c(*sim.systemPtr());
  const double mg = 1.0 * 9.81;
  for (int s = 0; s < 10000; ++s) {
    QVERIFY2(sim.step(), sim.metrics().message.c_str());
    const Vec3 f = vec(c, sim, "joint1.force"), t = vec(c, sim, "joint1.torque");
    QVERIFY2((f - Vec3(0, 0, mg)).norm() <= 1e-9 * mg, qPrintable(QString("%1 %2 %3").arg(f.x()).arg(f.y()).arg(f.z())));
    QVERIFY2(t.norm() <= 1e-9 * mg, qPrintable(QString::number(t.norm())));
    // The joint frame is the world's here (no offset, world parent).
    QVERIFY((vec(c, sim, "joint1.force_local") - f).norm() <= 1e-12 * mg);
  }
}

void TestSignals::torqueAboutAHingeIsItsEffort() {
  // A hinge transmits no torque about its axis but its efforts: on the damped pendulum the torque
  // about the axis is the damper's −c·θ̇ (and that reads the rate signal), with an actuator torque
  // added on top of it.
  Simulation sim(compile(gallery("damped-pendulum.mech")));
  const SignalCatalogue c(*sim.systemPtr());
  const JointGeometry& g = sim.system().joints[0].geo;
  const double damping = sim.system().joints[0].damping[0];
  QVERIFY(damping > 0);
  sim.inputs().actuator[0][0] = 0.25;
  double largest = 0;
  for (int s = 0; s < 200; ++s) {
    QVERIFY2(sim.step(), sim.metrics().message.c_str());
    const auto v = values(c, sim, {"joint.damper", "joint.angle_rate", "joint.effort"});
    QVERIFY(std::abs(v[0] + damping * v[1]) <= 1e-12 * std::max(1.0, std::abs(v[0])));
    QCOMPARE(v[2], 0.25);
    const double aboutAxis = vec(c, sim, "joint.torque_local").dot(g.axes.col(2));
    QVERIFY2(std::abs(aboutAxis - (v[0] + v[2])) <= 1e-9, qPrintable(QString("%1 vs %2").arg(aboutAxis).arg(v[0] + v[2])));
    largest = std::max(largest, std::abs(v[0]));
  }
  QVERIFY(largest > 1e-3);  // the damper did act
}

void TestSignals::sliderAgainstItsLimitTransmitsItsWeight() {
  // A 1 kg block on a prismatic joint resting on its lower stop: along a vertical axis the stop
  // carries m·g; along an axis tilted by 30° the joint carries m·g in all (the stop m·g·cos 30°
  // along the axis, the constraint the rest), and its local force has m·g·cos 30° on the axis.
  const double mg = 9.81;
  for (const char* axis : {"0 0 1", "0 0.5 0.8660254037844386"}) {
    const std::string text = std::string("(mechanism \"slider\" (gravity 0 0 -9.81) (body block (mass 1) (shape box 0.1 0.1 0.1)"
                                         " (joint prismatic slide (axis ") + axis + ") (position 0) (lower 0) (upper 1))))";
    Simulation sim(compile(parse(text)));
    const SignalCatalogue c(*sim.systemPtr());
    // Started exactly on the stop, the interior point settles it within a few steps (5.7e-7 relative
    // on steps 2-3); from step 10 on, every step of 100 s carries m·g.
    for (int s = 0; s < 10000; ++s) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      const Vec3 f = vec(c, sim, "slide.force");
      if (s >= 10)
        QVERIFY2((f - Vec3(0, 0, mg)).norm() <= 1e-9 * mg,
                 qPrintable(QString("step %5: %1 %2 %3 (axis %4)").arg(f.x()).arg(f.y()).arg(f.z()).arg(axis).arg(s + 1)));
    }
    const Vec3 f = vec(c, sim, "slide.force");
    const Vec3 a = Vec3(0, std::string(axis) == "0 0 1" ? 0.0 : 0.5, std::string(axis) == "0 0 1" ? 1.0 : 0.8660254037844386);
    const double limit = values(c, sim, {"slide.limit"})[0];
    QVERIFY2(std::abs(limit - mg * a.z()) <= 1e-8 * mg, qPrintable(QString::number(limit)));
    // In the joint frame the axis is the frame's z axis (default axis 0 0 1 rotated by the offset).
    const Mat3 frame = quat::rotation(sim.system().joints[0].geo.qoff);
    const Vec3 axisWorld = frame * sim.system().joints[0].geo.axes.col(2);
    QVERIFY((axisWorld - a).norm() <= 1e-12);
    const Vec3 local = vec(c, sim, "slide.force_local");
    QVERIFY2(std::abs(local.dot(sim.system().joints[0].geo.axes.col(2)) - mg * a.z()) <= 1e-8 * mg,
             qPrintable(QString::number(local.dot(sim.system().joints[0].geo.axes.col(2)))));
  }
}

void TestSignals::threeLinkLoopGroundReactionsBalanceNewton() {
  // Σ over bodies of m(v − v₀)/Δt = Σ m g + the forces of the two joints to the ground (the loop's
  // internal joints cancel): every step over 10 s, to 1e-8 of the weight.
  Simulation sim(compile(gallery("three-link-loop.mech")));
  const SignalCatalogue c(*sim.systemPtr());
  const CompiledSystem& sys = sim.system();
  double mass = 0;
  for (const CompiledBody& b : sys.bodies) mass += b.mass;
  const Vec3 g = sim.settings().gravity;
  const double dt = sim.settings().dt, weight = mass * g.norm();
  double worst = 0;
  // (The first step also gives the initial velocities their half kick: the balance holds from the second.)
  QVERIFY2(sim.step(), sim.metrics().message.c_str());
  for (int s = 0; s < 1000; ++s) {
    Vec3 before = Vec3::Zero();
    for (size_t i = 0; i < sys.bodies.size(); ++i) before += sys.bodies[i].mass * sim.state().bodies[i].v;
    QVERIFY2(sim.step(), sim.metrics().message.c_str());
    QCOMPARE(sim.metrics().substeps, 1);
    Vec3 after = Vec3::Zero();
    for (size_t i = 0; i < sys.bodies.size(); ++i) after += sys.bodies[i].mass * sim.state().bodies[i].v;
    const Vec3 ground = vec(c, sim, "pin1.force") + vec(c, sim, "pin2.force");
    const double err = ((after - before) / dt - mass * g - ground).norm() / weight;
    worst = std::max(worst, err);
  }
  qInfo("three-link loop: largest |Σ m a − Σ m g − ground reactions| / weight over 10 s: %.2e", worst);
  QVERIFY2(worst <= 1e-8, qPrintable(QString::number(worst)));
}

void TestSignals::contactForceOfARestingBox() {
  // A box at rest on the ground: the normal force is its weight, friction ~0.
  Simulation sim(compile(gallery("box-drop.mech")));
  const SignalCatalogue c(*sim.systemPtr());
  for (int s = 0; s < 300; ++s) QVERIFY2(sim.step(), sim.metrics().message.c_str());
  const std::string body = sim.system().bodies[0].name;
  const auto v = values(c, sim, {"contact." + body + ".normal", "contact." + body + ".friction"});
  const double mg = sim.system().bodies[0].mass * 9.81;
  QVERIFY2(std::abs(v[0] - mg) <= 1e-6 * mg, qPrintable(QString("%1 vs %2").arg(v[0]).arg(mg)));
  QVERIFY2(v[1] <= 1e-6 * mg, qPrintable(QString::number(v[1])));
}

QTEST_APPLESS_MAIN(TestSignals)
#include "tst_signals.moc"
