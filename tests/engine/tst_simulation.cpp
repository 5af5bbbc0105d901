// SPDX-License-Identifier: GPL-3.0-or-later
// Physical claims of the variational integrator, measured on the shared scenes (engine/scenes):
// bounded energy error, zero constraint drift, accurate dissipation, conserved momentum, robustness
// through singular configurations. Each test states the acceptance criterion it checks.
#include <QTest>

#include <cmath>
#include <fstream>
#include <sstream>

#include "sanitizer_build.h"
#include "state_checks.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "scenes/scenes.h"
#include "io/mech_edit.h"
#include "io/mech_reader.h"
#include "simulation.h"
#include "system/keyframe.h"
#include "test_paths.h"

using namespace ms;

namespace {

std::unique_ptr<Simulation> make(const std::string& scene, const std::map<std::string, std::string>& p = {},
                                 double dt = 0) {
  Model m = buildScene(scene, p);
  if (dt > 0) m.solver.dt = dt;
  return std::make_unique<Simulation>(compile(m));
}

}  // namespace

class TestSimulation : public QObject {
  Q_OBJECT
 private slots:
  void doublePendulumEnergyStaysBounded();
  void threeLinkLoopHasNoConstraintDrift();
  void dampedPendulumDissipatesLikeAFineStepRun();
  void freeBodyConservesMomentumAndFlips();
  void doubleFourBarPassesSingularConfigurations();
  void initialConditionsAreConsistent();
  void minimalCoordinatesAreSettable();
  void energyErrorIsSecondOrder();
  void scenesRejectBadParameters();
  void pdControllerHoldsTarget();
  void jointSpringConservesEnergy();
  void externalWrenchChangesMomentumExactly();
  void springBetweenBodiesOscillates();
  void modelPdControllerTracksSinusoid();
  void keyframesRestoreTheStateExactly();
  void keyframeErrorsAreExplained();
};

void TestSimulation::doublePendulumEnergyStaysBounded() {
  // Acceptance: double-pendulum, Δt = 0.01, 3600 s: max |E − E0| over the last tenth is no larger
  // than 1.5× that over the first tenth.
  auto sim = make("double-pendulum");
  QCOMPARE(sim->settings().dt, 0.01);
  const double E0 = sim->metrics().energy;
  QVERIFY(std::abs(E0) < 1e-12);  // both links horizontal: E0 = 0 J
  // The sanitizer build (scripts/test.sh) looks for memory errors, not drift: 360 s there.
  const bool sanitizer = test::sanitizerBuild();
  const long steps = sanitizer ? 36000 : 360000, tenth = steps / 10;
  double first = 0, last = 0;
  for (long s = 1; s <= steps; ++s) {
    QVERIFY2(sim->step(), sim->metrics().message.c_str());
    const double dE = std::abs(sim->metrics().energy - E0);
    if (s <= tenth) first = std::max(first, dE);
    if (s > steps - tenth) last = std::max(last, dE);
  }
  qInfo("double pendulum %ld s: max|E-E0| first tenth %.4g J, last tenth %.4g J, ratio %.3f", steps / 100, first, last,
        last / first);
  QVERIFY(first > 0);
  QVERIFY(last <= 1.5 * first);
}

void TestSimulation::threeLinkLoopHasNoConstraintDrift() {
  // Acceptance: three-link-loop, Δt = 0.01, 60 s: max constraint violation ≤ 1e-9 m at every step.
  auto sim = make("three-link-loop");
  double worst = 0;
  double minZ = 1e9, maxZ = -1e9;
  for (int s = 0; s < 6000; ++s) {
    QVERIFY2(sim->step(), sim->metrics().message.c_str());
    worst = std::max(worst, sim->metrics().constraintViolation);
    minZ = std::min(minZ, sim->state().bodies[1].x.z());
    maxZ = std::max(maxZ, sim->state().bodies[1].x.z());
  }
  qInfo("three-link loop 60 s: max constraint violation %.3g m, coupler height range %.3f m", worst, maxZ - minZ);
  QVERIFY(worst <= 1e-9);
  QVERIFY(maxZ - minZ > 0.1);  // the loop really moves
}

void TestSimulation::dampedPendulumDissipatesLikeAFineStepRun() {
  // Acceptance: damped-pendulum at Δt = 0.1: energy decay within 5 % of a Δt = 1e-4 run of the same
  // integrator at t = 5 s and t = 10 s.
  auto coarse = make("damped-pendulum");
  auto fine = make("damped-pendulum", {}, 1e-4);
  QCOMPARE(coarse->settings().dt, 0.1);
  const double E0c = coarse->metrics().energy, E0f = fine->metrics().energy;
  QVERIFY(std::abs(E0c - E0f) < 1e-12);
  for (double T : {5.0, 10.0}) {
    while (coarse->state().time < T - 1e-9) QVERIFY(coarse->step());
    while (fine->state().time < T - 1e-9) QVERIFY(fine->step());
    const double decayC = E0c - coarse->metrics().energy, decayF = E0f - fine->metrics().energy;
    qInfo("damped pendulum t=%.0f s: energy decay %.5f J (dt 0.1) vs %.5f J (dt 1e-4), %.2f %%", T, decayC, decayF,
          100 * std::abs(decayC - decayF) / decayF);
    QVERIFY(decayF > 0.5);
    QVERIFY(std::abs(decayC - decayF) <= 0.05 * decayF);
  }
}

void TestSimulation::freeBodyConservesMomentumAndFlips() {
  // Acceptance: free-body: world angular momentum conserved to 1e-8 relative over 100 s; energy
  // bounded; the flip about the intermediate axis happens.
  auto sim = make("free-body");
  const Vec3 L0 = sim->angularMomentum();
  const double E0 = sim->metrics().energy;
  double worstL = 0, worstE = 0;
  int flips = 0;
  double prevSign = sim->state().bodies[0].w.y() > 0 ? 1 : -1;
  for (int s = 0; s < 10000; ++s) {
    QVERIFY2(sim->step(), sim->metrics().message.c_str());
    worstL = std::max(worstL, (sim->angularMomentum() - L0).norm() / L0.norm());
    worstE = std::max(worstE, std::abs(sim->metrics().energy - E0) / E0);
    const double sign = sim->state().bodies[0].w.y() > 0 ? 1 : -1;
    if (sign != prevSign) ++flips;
    prevSign = sign;
  }
  qInfo("free body 100 s: angular momentum relative drift %.3g, energy relative error %.3g, %d flips", worstL, worstE,
        flips);
  QVERIFY(worstL <= 1e-8);
  QVERIFY(worstE <= 1e-2);
  QVERIFY(flips >= 2);
}

void TestSimulation::doubleFourBarPassesSingularConfigurations() {
  // Acceptance: double-four-bar, Δt = 0.01, 10 s through its singular configurations: converges
  // every step, energy bounded.
  auto sim = make("double-four-bar");
  const double E0 = sim->metrics().energy;
  double worstE = 0, worstG = 0;
  int crossings = 0;
  double prevY = sim->state().bodies[0].x.y();
  for (int s = 0; s < 1000; ++s) {
    QVERIFY2(sim->step(), sim->metrics().message.c_str());
    worstE = std::max(worstE, std::abs(sim->metrics().energy - E0));
    worstG = std::max(worstG, sim->metrics().constraintViolation);
    // Crank 1's centre passes y = 0 (crank vertical) between the horizontal (singular) positions.
    const double y = sim->state().bodies[0].x.y();
    if ((y > 0) != (prevY > 0)) ++crossings;
    prevY = y;
  }
  qInfo("double four-bar 10 s: max|E-E0| %.4g J of E0 %.3f J, max violation %.3g, %d half-turns", worstE, E0, worstG,
        crossings);
  QVERIFY(crossings >= 4);           // it keeps revolving, through the collinear configurations
  QVERIFY(worstE <= 0.05 * std::abs(E0));
  QVERIFY(worstG <= 1e-9);
}

void TestSimulation::initialConditionsAreConsistent() {
  // The initial knot and the next one both satisfy every constraint (discretely consistent ż0).
  for (const char* scene : {"three-link-loop", "double-four-bar", "four-link-segments", "chain"}) {
    auto sim = make(scene);
    QVERIFY2(sim->metrics().constraintViolation < 1e-12, scene);
    QVERIFY(sim->step());
    QVERIFY2(sim->metrics().constraintViolation < 1e-10, scene);
  }
}

void TestSimulation::minimalCoordinatesAreSettable() {
  auto sim = make("pendulum");
  QCOMPARE(sim->jointDof(0), 1);
  QVERIFY(std::abs(sim->jointPosition(0)(0) - M_PI / 2) < 1e-12);
  sim->setInitialJointState(0, {0.3}, {1.5});
  QVERIFY(std::abs(sim->jointPosition(0)(0) - 0.3) < 1e-12);
  // The rate is the joint's at the initial knot (the variational integrator's first step turns it
  // into the first interval's): 1.5 there, up to the O(ε²) of the central difference over ±1e-5 s
  // that makes the initial velocities consistent with the joints (makeInitialState), and the first
  // step moves θ by about 1.5 Δt.
  qInfo("pendulum set to 0.3 rad, 1.5 rad/s: rate at the knot %.15f", sim->jointVelocity(0)(0));
  QVERIFY(std::abs(sim->jointVelocity(0)(0) - 1.5) < 1e-9);
  const double th0 = sim->jointPosition(0)(0);
  QVERIFY(sim->step());
  QVERIFY(std::abs((sim->jointPosition(0)(0) - th0) / sim->settings().dt - 1.5) < 0.1);
  QVERIFY_THROWS_EXCEPTION(ms::UserError, sim->setInitialJointState(0, {0.1, 0.2}, {}));
}

void TestSimulation::energyErrorIsSecondOrder() {
  // The pendulum (a 1 kg cube on a massless 1 m rod) released at 1 rad with 2 rad/s: the initial
  // energy is the exact ½ m l² θ̇² − m g l cos θ (velocities at the knot), and the reported energy's
  // largest error over 2 s falls 4× when Δt halves (the half-kick start and the energy at the knot;
  // a first-order start or measure falls 2×).
  double err[2];
  for (int k = 0; k < 2; ++k) {
    Model m = buildScene("pendulum", {{"angle", "1.0"}});
    m.solver.dt = k == 0 ? 0.01 : 0.005;
    m.joints[0].initialVelocity = {2.0};
    Simulation sim(compile(m));
    const double J = sim.system().bodies[0].inertia(0, 0) + 1.0;  // the cube's own inertia + m l²
    const double exact = 0.5 * J * 4.0 - 9.81 * std::cos(1.0);
    const double e0 = sim.kineticEnergy() + sim.potentialEnergy();
    QVERIFY2(std::abs(e0 - exact) < 1e-9, qPrintable(QString::number(e0 - exact)));
    err[k] = 0;
    while (sim.state().time < 2.0 - 1e-9) {
      QVERIFY(sim.step());
      err[k] = std::max(err[k], std::abs(sim.metrics().energy - exact));
    }
  }
  qInfo("pendulum, 2 s: max |E - E0| %.3e J at dt 0.01, %.3e J at 0.005 (ratio %.2f)", err[0], err[1], err[0] / err[1]);
  QVERIFY(err[0] / err[1] > 3.5 && err[0] / err[1] < 4.5);
}

void TestSimulation::scenesRejectBadParameters() {
  QVERIFY_THROWS_EXCEPTION(ms::UserError, buildScene("no-such-scene"));
  QVERIFY_THROWS_EXCEPTION(ms::UserError, buildScene("chain", {{"n", "abc"}}));
  QVERIFY_THROWS_EXCEPTION(ms::UserError, buildScene("chain", {{"n", "0"}}));
  QVERIFY_THROWS_EXCEPTION(ms::UserError, buildScene("chain", {{"joint", "weld"}}));
  QVERIFY_THROWS_EXCEPTION(ms::UserError, buildScene("pendulum", {{"links", "2"}}));
  Model bad = buildScene("pendulum");
  bad.bodies[0].mass = -1;
  QVERIFY_THROWS_EXCEPTION(ms::UserError, compile(bad));
  for (const SceneInfo& info : sceneCatalog()) QVERIFY(!buildScene(info.name).bodies.empty());
}

void TestSimulation::pdControllerHoldsTarget() {
  // A per-step control callback sets the joint actuator (eq. 1a/1b) from the state: a PD law drives
  // the pendulum from horizontal to a 30° target and holds it against gravity.
  auto sim = make("pendulum");
  const double target = M_PI / 6, kp = 200, kd = 30;
  sim->setControlCallback([&](const Simulation& s, Inputs& in) {
    in.actuator[0](0) = kp * (target - s.jointPosition(0)(0)) - kd * s.jointVelocity(0)(0) +
                        9.81 * std::sin(s.jointPosition(0)(0));  // gravity compensation (m g l sin θ)
  });
  for (int s = 0; s < 500; ++s) QVERIFY(sim->step());
  qInfo("PD: angle %.6f rad (target %.6f), rate %.2e rad/s", sim->jointPosition(0)(0), target, sim->jointVelocity(0)(0));
  QVERIFY(std::abs(sim->jointPosition(0)(0) - target) < 1e-3);
  QVERIFY(std::abs(sim->jointVelocity(0)(0)) < 1e-3);
}

void TestSimulation::jointSpringConservesEnergy() {
  // A torsional spring in a revolute joint without gravity: a harmonic oscillator whose total energy
  // (kinetic + spring potential) stays bounded and whose period matches 2π√(I/k).
  Model m = buildScene("pendulum");
  m.gravity.setZero();
  m.joints[0].stiffness = {4.0};
  m.joints[0].restPosition = {0.0};
  m.joints[0].initialPosition = {0.5};
  auto sys = compile(m);
  Simulation sim(sys);
  const double E0 = sim.metrics().energy;
  QVERIFY(std::abs(E0 - 0.5 * 4.0 * 0.25) < 1e-12);
  double worst = 0, lastCross = -1, period = 0;
  double prev = sim.jointPosition(0)(0);
  for (int s = 0; s < 2000; ++s) {
    QVERIFY(sim.step());
    worst = std::max(worst, std::abs(sim.metrics().energy - E0) / E0);
    const double th = sim.jointPosition(0)(0);
    if (prev < 0 && th >= 0) {
      if (lastCross >= 0) period = sim.state().time - lastCross;
      lastCross = sim.state().time;
    }
    prev = th;
  }
  const double I = 1.0 + 1.0 * 0.01 / 6.0;  // point mass at 1 m plus the cube's own inertia
  const double expected = 2 * M_PI * std::sqrt(I / 4.0);
  qInfo("spring: relative energy error %.3g, period %.4f s (expected %.4f s)", worst, period, expected);
  QVERIFY(worst < 0.02);
  QVERIFY(std::abs(period - expected) < 0.02 * expected);
}

void TestSimulation::externalWrenchChangesMomentumExactly() {
  // A constant external force on a free body changes its momentum by F·t, step by step (eq. 10): the
  // state's velocity is the interval's after the knot at t, whose momentum is the knot's plus F Δt/2
  // (the start's half kick gives the first interval F Δt/2 over the initial momentum).
  Model m = buildScene("free-body");
  m.wrenches.push_back({0, Vec3(1.0, -2.0, 0.5), Vec3::Zero()});
  auto sys = compile(m);
  Simulation sim(sys);
  const Vec3 p0 = sim.linearMomentum();
  for (int s = 0; s < 100; ++s) QVERIFY(sim.step());
  const Vec3 dp = sim.linearMomentum() - p0;
  QVERIFY((dp - Vec3(1.0, -2.0, 0.5) * (sim.state().time + 0.5 * sim.settings().dt)).norm() < 1e-9);
  // Runtime perturbation forces go through the same input.
  sim.inputs().force[0] += Vec3(0, 0, 3.0);
  const Vec3 p1 = sim.linearMomentum();
  QVERIFY(sim.step());
  QVERIFY(((sim.linearMomentum() - p1) - Vec3(1.0, -2.0, 3.5) * sim.settings().dt).norm() < 1e-10);
}

void TestSimulation::springBetweenBodiesOscillates() {
  // Two free 1 kg and 3 kg bodies joined by a spring (k = 12, rest 1 m) stretched to 1.2 m: the
  // period is 2π√(μ/k) with μ = 0.75 kg, energy stays bounded, momentum is conserved exactly.
  Model m;
  m.name = "two-masses";
  m.gravity.setZero();
  for (int i = 0; i < 2; ++i) {
    BodyDesc b;
    b.name = i == 0 ? "a" : "b";
    b.mass = i == 0 ? 1.0 : 3.0;
    b.inertia = Mat3::Identity() * 0.01;
    b.position = Vec3(i == 0 ? 0.0 : 1.2, 0, 0);
    m.bodies.push_back(b);
  }
  SpringDesc sp;
  sp.name = "spring";
  sp.bodyA = 0;
  sp.bodyB = 1;
  sp.stiffness = 12;
  sp.restLength = 1.0;
  m.springs.push_back(sp);
  Simulation sim(compile(m));
  const double E0 = sim.metrics().energy;
  QVERIFY(std::abs(E0 - 0.5 * 12 * 0.04) < 1e-12);
  double worst = 0, lastMin = -1, period = 0, prevGap = 1.2, prevSlope = -1;
  for (int s = 0; s < 1000; ++s) {
    QVERIFY(sim.step());
    QVERIFY(sim.linearMomentum().norm() < 1e-12);
    worst = std::max(worst, std::abs(sim.metrics().energy - E0) / E0);
    const double gap = (sim.state().bodies[1].x - sim.state().bodies[0].x).norm();
    const double slope = gap - prevGap;
    if (prevSlope < 0 && slope >= 0) {  // a minimum of the gap
      if (lastMin >= 0) period = sim.state().time - lastMin;
      lastMin = sim.state().time;
    }
    prevSlope = slope;
    prevGap = gap;
  }
  const double expected = 2 * M_PI * std::sqrt(0.75 / 12);
  qInfo("spring between bodies: period %.4f s (expected %.4f s), relative energy error %.3g", period, expected, worst);
  QVERIFY(std::abs(period - expected) < 0.03 * expected);
  QVERIFY(worst < 0.05);
}

void TestSimulation::modelPdControllerTracksSinusoid() {
  // A PD controller described in the model (paper Alg. 6/8 style sinusoidal target) drives the
  // pendulum joint; after the transient the tracking error is small.
  Model m = buildScene("pendulum");
  ControllerDesc c;
  c.name = "pd";
  c.joint = 0;
  c.kp = 400;
  c.kd = 40;
  c.offset = 0.5;
  c.amplitude = 0.3;
  c.frequency = 0.5;
  m.controllers.push_back(c);
  Simulation sim(compile(m));
  double worst = 0;
  for (int s = 0; s < 600; ++s) {
    QVERIFY(sim.step());
    const double t = sim.state().time;
    if (t > 3) worst = std::max(worst, std::abs(sim.jointPosition(0)(0) - (0.5 + 0.3 * std::sin(M_PI * t))));
  }
  qInfo("PD controller tracking error after 3 s: %.4f rad", worst);
  QVERIFY(worst < 0.05);
  m.controllers[0].coordinate = 1;  // a revolute joint has one coordinate
  QVERIFY_THROWS_EXCEPTION(ms::UserError, compile(m));
}

using test::stateDistance;

void TestSimulation::keyframesRestoreTheStateExactly() {
  // The four-bar (a closed loop) after 43 steps, saved into the text of the model (setKeyframe),
  // read back and loaded into a new simulation: the same state to 1e-12, and the same motion after.
  Model model;
  std::string failure;
  QVERIFY2(test::loadGallery("four-bar.mech", {}, model, failure), failure.c_str());
  Simulation sim(compile(model));
  for (int k = 0; k < 43; ++k) QVERIFY(sim.step());
  const State saved = sim.state();
  const KeyframeDesc kf = sim.keyframe("mid-swing");
  QCOMPARE(kf.bodies.size(), sim.system().bodies.size());
  for (int k = 0; k < 25; ++k) QVERIFY(sim.step());
  const State later = sim.state();
  QVERIFY(stateDistance(saved, later) > 1e-2);  // it did move on
  // Through the text.
  std::string text;
  {
    std::ifstream in(test::modelPath("four-bar.mech"));
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  Diagnostics d;
  const sexpr::Document doc = sexpr::Document::parse(text, "four-bar.mech", d);
  MechParseResult parsed;
  QVERIFY(readMech(doc, {}, parsed, d));
  const MechEdit e = setKeyframe(doc, parsed, kf);
  QVERIFY2(e.ok, e.error.c_str());
  MechParseResult reread;
  QVERIFY2(readMech(e.doc, {}, reread, d), d.format().c_str());
  Simulation other(compile(reread.model));
  other.loadKeyframe("mid-swing");
  QVERIFY2(stateDistance(other.state(), saved) <= 1e-12, qPrintable(QString::number(stateDistance(other.state(), saved))));
  QCOMPARE(other.state().time, 0.0);
  QCOMPARE(other.state().step, 0L);
  QVERIFY(other.metrics().constraintViolation < 1e-10);
  // The same simulation, loaded by description: also the saved state, and the steps that follow
  // are the ones that followed the save (to the Newton tolerance).
  sim.loadKeyframe(kf);
  QVERIFY(stateDistance(sim.state(), saved) <= 1e-12);
  for (int k = 0; k < 25; ++k) {
    QVERIFY(sim.step());
    QVERIFY(other.step());
  }
  QVERIFY2(stateDistance(sim.state(), later) < 1e-8, qPrintable(QString::number(stateDistance(sim.state(), later))));
  QVERIFY(stateDistance(other.state(), later) < 1e-8);
  // "Use as initial state": reset() goes back to it, until the joints' coordinates are set again.
  other.setInitialKeyframe("mid-swing");
  QCOMPARE(other.initialKeyframe(), std::string("mid-swing"));
  for (int k = 0; k < 5; ++k) QVERIFY(other.step());
  other.reset();
  QVERIFY(stateDistance(other.state(), saved) <= 1e-12);
  other.setInitialJointState(0, {}, {});
  QCOMPARE(other.initialKeyframe(), std::string());
  Simulation fresh(compile(reread.model));
  QVERIFY(stateDistance(other.state(), fresh.state()) == 0);
}

void TestSimulation::keyframeErrorsAreExplained() {
  Model model;
  std::string failure;
  QVERIFY2(test::loadGallery("double-pendulum.mech", {}, model, failure), failure.c_str());
  Simulation sim(compile(model));
  QVERIFY(sim.step());
  const State before = sim.state();
  KeyframeDesc kf = sim.keyframe("k");
  auto message = [&](auto&& f) {
    try {
      f();
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  QCOMPARE(message([&] { sim.loadKeyframe("k"); }), std::string("the model has no keyframe 'k' (its keyframes: none)"));
  KeyframeDesc moved = kf;
  moved.bodies[1].position.z() += 0.03;  // link2 off its hinge
  QCOMPARE(message([&] { sim.loadKeyframe(moved); }),
           std::string("keyframe 'k' does not fit joint 'joint2' (violation 0.03): was the model changed since it was saved?"));
  KeyframeDesc missing = kf;
  missing.bodies.pop_back();
  QCOMPARE(message([&] { sim.setInitialKeyframe(missing); }),
           std::string("keyframe 'k' has no state for body 'link2': was the model changed since it was saved?"));
  KeyframeDesc extra = kf;
  extra.bodies[0].body = "link0";
  QVERIFY(message([&] { sim.loadKeyframe(extra); }).find("names body 'link0' that the model does not have") != std::string::npos);
  // Nothing changed by the refusals.
  QCOMPARE(sim.initialKeyframe(), std::string());
  QVERIFY(stateDistance(sim.state(), before) == 0);
}

QTEST_APPLESS_MAIN(TestSimulation)
#include "tst_simulation.moc"
