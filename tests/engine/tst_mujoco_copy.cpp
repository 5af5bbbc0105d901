// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/integrator/mujoco_copy (and the MJCF it is given, io/mjcf_writer): the figures
// the issue measured with Debian's MuJoCo 2.2.2 (box-drop overshoot, three-link-loop drift), the
// conversion checked against the variational integrator at small steps (double pendulum, spherical
// chain, damped pendulum), refusals with their reasons, states set from outside, failure handling
// and no allocation per step. Built only when CMake found MuJoCo.
#include <QTest>

#include <cmath>

#include "allocation_counter.h"
#include "comparison.h"
#include "core/check.h"
#include "integrator/mujoco_copy.h"
#include "io/mjcf_writer.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/initial_conditions.h"

using namespace ms;
using Params = std::map<std::string, std::string>;

namespace {

IntegratorOptions mujoco(MuJoCoScheme s = MuJoCoScheme::Euler) {
  IntegratorOptions o;
  o.kind = IntegratorKind::MuJoCo;
  o.mujocoScheme = s;
  return o;
}

// A simulation of `m` at step dt (0: the model's) with the given integrator.
std::unique_ptr<Simulation> make(Model m, const IntegratorOptions& o, double dt = 0) {
  if (dt > 0) m.solver.dt = dt;
  auto sim = std::make_unique<Simulation>(compile(m));
  sim->setIntegrator(o);
  sim->reset();
  return sim;
}

// Steps until time T (to within half a step); false on a failed step.
bool runTo(Simulation& sim, double T) {
  while (sim.state().time < T - 0.5 * sim.settings().dt)
    if (!sim.step()) return false;
  return true;
}

// Largest distance between the bodies' centres of mass of two states.
double poseDistance(const State& a, const State& b) {
  double d = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i) d = std::max(d, (a.bodies[i].x - b.bodies[i].x).norm());
  return d;
}

// Largest COM distance between the MuJoCo copy and the variational integrator over [0, T] at step dt.
double followError(const Model& m, double dt, double T, MuJoCoScheme s = MuJoCoScheme::Euler) {
  auto mj = make(m, mujoco(s), dt);
  auto vi = make(m, IntegratorOptions(), dt);
  double err = 0;
  while (vi->state().time < T - 0.5 * dt) {
    if (!mj->step() || !vi->step()) return 1e9;
    err = std::max(err, poseDistance(mj->state(), vi->state()));
  }
  return err;
}

// The box drop's first contact: the largest penetration from the first step that ends below the
// ground until the box moves up again; then how high its bottom face flies above the ground before
// it falls back (the highest step end).
struct Landing {
  double overshoot = 0;  // m
  double touchdown = 0;  // s, first step that ends below the ground
  double rebound = 0;    // m, highest bottom face above the ground after the first contact
};
Landing landing(Simulation& sim, double T = 1.5) {
  Landing r;
  bool touched = false, rising = false;
  while (sim.state().time < T) {
    if (!sim.step()) break;
    const double pen = sim.metrics().penetration, vz = sim.state().bodies[0].v.z();
    const double bottom = sim.state().bodies[0].x.z() - 0.25;
    if (!touched && pen > 0) touched = true, r.touchdown = sim.state().time;
    if (touched && !rising) {
      r.overshoot = std::max(r.overshoot, pen);
      if (vz > 0) rising = true;
    }
    if (rising) {
      r.rebound = std::max(r.rebound, bottom);
      if (vz < 0) break;
    }
  }
  return r;
}

}  // namespace

class TstMuJoCoCopy : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { qInfo("MuJoCo %s", MuJoCoIntegrator::version().c_str()); }

  // The figure, measured independently with Debian's MuJoCo: a 0.5 m, 1 kg cube whose
  // bottom face starts 0.4 m above the ground (the scene's `height`), Δt = 0.01, overshoots 2.67 cm
  // into the ground at its first contact (MuJoCo detects the contact only after the step that
  // penetrates; its soft contact then pushes the box back).
  void boxDropOvershoot() {
    auto sim = make(buildScene("box-drop"), mujoco());
    QCOMPARE(sim->settings().dt, 0.01);
    const Landing l = landing(*sim);
    qInfo("box drop (bottom face 0.4 m up): first contact at t = %.2f s, overshoot %.3f cm, bounces %.2f cm above the ground",
          l.touchdown, 100 * l.overshoot, 100 * l.rebound);
    QVERIFY2(std::abs(l.overshoot - 0.0267) <= 0.0005, qPrintable(QString::number(100 * l.overshoot) + " cm"));
    // The centre of mass at 0.4 m instead (bottom face 0.15 m up) lands slower and does not match.
    auto low = make(buildScene("box-drop", {{"height", "0.15"}}), mujoco());
    const Landing l2 = landing(*low);
    qInfo("box drop (centre of mass 0.4 m up): overshoot %.3f cm", 100 * l2.overshoot);
    QVERIFY(std::abs(l2.overshoot - 0.0267) > 0.002);
    // The box comes to rest on the ground, resting a little inside it (MuJoCo's soft contact).
    QVERIFY(runTo(*sim, 3.0));
    qInfo("box drop at 3 s: penetration %.3f mm, speed %.2e m/s, %d contacts", 1e3 * sim->metrics().penetration,
          sim->state().bodies[0].v.norm(), sim->metrics().contacts);
    QVERIFY(sim->state().bodies[0].v.norm() < 1e-2);
    QVERIFY(sim->metrics().penetration < 0.005);
    QVERIFY(sim->metrics().contacts >= 4);
  }

  // The three-link loop (both ends pinned) keeps its loop closure in MuJoCo with soft equality
  // constraints: the violation grows to millimetres within 60 s (the variational integrator keeps
  // it at 1e-10). The revolute loop joint is two connects along the axis (mjcf_writer.h).
  void threeLinkLoopDrifts() {
    auto sim = make(buildScene("three-link-loop"), mujoco());
    double worst = 0, at10 = 0;
    while (sim->state().time < 60 - 0.005) {
      QVERIFY2(sim->step(), qPrintable(QString::fromStdString(sim->metrics().message)));
      worst = std::max(worst, sim->metrics().constraintViolation);
      if (std::abs(sim->state().time - 10) < 0.005) at10 = sim->metrics().constraintViolation;
    }
    const double e = sim->metrics().energy;
    qInfo("three-link loop, MuJoCo Euler, dt 0.01: violation %.3g m at 10 s, %.3g m at 60 s, max %.3g m; energy %.4g J",
          at10, sim->metrics().constraintViolation, worst, e);
    QVERIFY(worst >= 1e-3);
    QVERIFY(worst < 0.1);  // still the same mechanism, not blown apart
  }

  // The same with one connect at the joint point: the planar loop's tree removes the rotations a
  // single connect leaves free, so the figures are of the same kind.
  void threeLinkLoopOneConnect() {
    const auto sys = compile(buildScene("three-link-loop"));
    MjcfWriteOptions one;
    one.revoluteLoop = MjcfWriteOptions::RevoluteLoop::OneConnect;
    MuJoCoIntegrator integ(sys, MuJoCoScheme::Euler, one);
    QCOMPARE(integ.mjcfInfo().loopConstraints, 1);
    Simulation ref(sys);
    ref.setIntegrator(mujoco());
    State s = ref.state();
    Inputs in = ref.inputs();
    double worst = 0, last = 0;
    for (int k = 0; k < 6000; ++k) {
      const StepReport r = integ.step(ref.settings(), in, s);
      QCOMPARE(r.status, StepStatus::Ok);
      worst = std::max(worst, r.constraintViolation);
      last = r.constraintViolation;
    }
    qInfo("three-link loop with one connect: violation %.3g m at 60 s, max %.3g m", last, worst);
    QVERIFY(worst >= 1e-3);
    QVERIFY(worst < 0.1);
  }

  // The conversion checked against the variational integrator: both are first-order methods, so at
  // small steps their trajectories agree to O(Δt) and the gap halves with Δt. A wrong frame, axis,
  // anchor or inertia would leave an O(1) gap that does not shrink.
  void doublePendulumFollowsTheVariationalIntegrator() {
    const Model m = buildScene("double-pendulum");
    const double e2 = followError(m, 0.002, 1.0), e1 = followError(m, 0.001, 1.0);
    qInfo("double pendulum, 1 s: max COM distance MuJoCo vs VI %.3g m at dt 0.002, %.3g m at dt 0.001 (ratio %.2f)", e2,
          e1, e2 / e1);
    QVERIFY(e1 < 0.02);
    QVERIFY(e1 < 0.65 * e2);
    // MuJoCo's RK4 at the small step: what is left is the VI's own first-order error.
    const double r1 = followError(m, 0.001, 1.0, MuJoCoScheme::RK4);
    qInfo("double pendulum, MuJoCo RK4 vs VI at dt 0.001: %.3g m", r1);
    QVERIFY(r1 < 0.02);
  }

  // Ball joints (qpos relative to the reference rotation, qvel in the child frame) and a free body.
  void sphericalChainFollowsTheVariationalIntegrator() {
    Model m = buildScene("chain", {{"n", "3"}, {"joint", "spherical"}});
    m.joints[1].initialVelocity = {0.5, -1.0, 2.0};
    const double e2 = followError(m, 0.002, 1.0), e1 = followError(m, 0.001, 1.0);
    qInfo("spherical chain n = 3, 1 s: max COM distance %.3g m at dt 0.002, %.3g m at dt 0.001", e2, e1);
    QVERIFY(e1 < 0.02);
    QVERIFY(e1 < 0.65 * e2);
  }

  // Joint damping (MJCF damping) and a motor (MJCF <motor>, ctrl = the effort).
  void dampedAndDrivenPendulum() {
    Model m = buildScene("damped-pendulum");
    ActuatorDesc a;
    a.joint = 0;
    a.effort = {2.0};
    m.actuators.push_back(a);
    const double e2 = followError(m, 0.002, 2.0), e1 = followError(m, 0.001, 2.0);
    qInfo("damped, driven pendulum, 2 s: %.3g m at dt 0.002, %.3g m at dt 0.001", e2, e1);
    QVERIFY(e1 < 0.01);
    QVERIFY(e1 < 0.65 * e2);
  }

  // A spring between the world and a body (MJCF spatial tendon with stiffness, damping, springlength)
  // and a damped ball joint (its damper applied by the copy as body wrenches).
  void springsAndBallDampers() {
    Model m = buildScene("double-pendulum");
    SpringDesc sp;
    sp.bodyA = -1;
    sp.bodyB = 1;
    sp.anchorA = Vec3(0, 1.5, 0.5);
    sp.stiffness = 20;
    sp.restLength = 0.5;
    sp.damping = 0.5;
    m.springs.push_back(sp);
    m.joints[1].type = JointType::Spherical;
    m.joints[1].initialPosition = {0, 0.3, 0};
    m.joints[1].initialVelocity = {1, 0, 0};
    m.joints[1].damping = {0.2};
    const double e2 = followError(m, 0.002, 1.0), e1 = followError(m, 0.001, 1.0);
    qInfo("double pendulum with a spring and a damped ball joint, 1 s: %.3g m at dt 0.002, %.3g m at dt 0.001", e2, e1);
    QVERIFY(e1 < 0.02);
    QVERIFY(e1 < 0.65 * e2);
  }

  // What MuJoCo cannot take is refused with the reason; the integrator stays as it was.
  void unsupportedJointIsRefused() {
    Model m = buildScene("pendulum");
    m.joints[0].type = JointType::Cylindrical;
    m.joints[0].initialPosition.clear();
    auto sim = std::make_unique<Simulation>(compile(m));
    try {
      sim->setIntegrator(mujoco());
      QFAIL("a cylindrical joint was accepted");
    } catch (const UserError& e) {
      qInfo("refused: %s", e.what());
      QVERIFY(QString(e.what()).contains("cylindrical"));
      QVERIFY(QString(e.what()).contains("MuJoCo"));
    }
    QCOMPARE(sim->integratorOptions().kind, IntegratorKind::Variational);
    // A prismatic joint closing a loop has no MuJoCo equality constraint: a slider on two parallel
    // rails, the second rail closing the loop (its rows are redundant; the engine drops them).
    Model loop = buildScene("pendulum");
    loop.joints[0].type = JointType::Prismatic;
    loop.joints[0].initialPosition.clear();
    loop.joints.push_back(loop.joints[0]);
    loop.joints[1].name = "rail2";
    try {
      MuJoCoIntegrator integ(compile(loop));
      QFAIL("a prismatic loop joint was accepted");
    } catch (const UserError& e) {
      qInfo("refused: %s", e.what());
      QVERIFY(QString(e.what()).contains("prismatic"));
      QVERIFY(QString(e.what()).contains("loop"));
    }
  }

  // MuJoCo's XML reader refuses elements nested more than 100 deep: a deeper tree is given to it as
  // files joined by <include>s (splitMjcfByNesting). A 250-link chain loads, and its first steps
  // follow the variational integrator's (both start from the same poses and velocities).
  void deepTreeIsCutIntoFiles() {
    const auto shallow = std::make_unique<MuJoCoIntegrator>(compile(buildScene("chain", {{"n", "90"}})));
    QCOMPARE(shallow->mjcfFiles().size(), size_t(1));
    Model m = buildScene("chain", {{"n", "250"}});
    const auto deep = std::make_unique<MuJoCoIntegrator>(compile(m));
    QCOMPARE(deep->mjcfFiles().size(), size_t(3));
    const double dt = 1e-4;
    auto mj = make(m, mujoco(MuJoCoScheme::RK4), dt);
    auto vi = make(m, IntegratorOptions(), dt);
    double err = 0;
    for (int k = 0; k < 20; ++k) {
      QVERIFY(mj->step());
      QVERIFY(vi->step());
      err = std::max(err, poseDistance(mj->state(), vi->state()));
    }
    qInfo("250-link chain in 3 MJCF files: max COM distance MuJoCo RK4 vs VI over 20 steps of 1e-4 s: %.3g m", err);
    QVERIFY(err < 1e-6);
  }

  // MuJoCo's implicit step needs more of its arena than MuJoCo's compiler gives a long chain: the
  // copy sizes it (a 600-link chain overflowed it at the first step).
  void implicitStepOfALongChain() {
    auto sim = make(buildScene("chain", {{"n", "600"}}), mujoco(MuJoCoScheme::Implicit), 0.01);
    for (int k = 0; k < 2; ++k) QVERIFY2(sim->step(), sim->metrics().message.c_str());
    QVERIFY(std::isfinite(sim->state().bodies.back().x.z()));
  }

  void modelMuJoCoCannotLoadIsRefused() {
    // A body lighter than MuJoCo's smallest mass (mjMINVAL): our compiler accepts it, MuJoCo does not.
    Model m = buildScene("pendulum");
    m.bodies[0].mass = 1e-20;
    m.bodies[0].inertia = Mat3::Identity() * 1e-22;
    auto sim = std::make_unique<Simulation>(compile(m));
    try {
      sim->setIntegrator(mujoco());
      QFAIL("MuJoCo loaded a body of 1e-20 kg");
    } catch (const UserError& e) {
      qInfo("refused: %s", e.what());
      QVERIFY(QString(e.what()).startsWith("MuJoCo cannot load the model: "));
      QVERIFY(QString(e.what()).contains("inertia"));
      QVERIFY(!QString(e.what()).contains('\n'));  // one line (the CLI prints one)
    }
  }

  // A state set from outside (reset, history, another integrator's state) is the one stepped from.
  void stateSetFromOutsideIsHonoured() {
    const Model m = buildScene("double-pendulum");
    auto sim = make(m, mujoco());
    const State start = sim->state();
    QVERIFY(sim->step());
    const State first = sim->state();
    QVERIFY(runTo(*sim, 1.0));
    QVERIFY(poseDistance(sim->state(), first) > 0.1);
    const State ownAt1 = sim->state();
    // Back to the start: the same first step, to the last bit.
    sim->setState(start);
    QVERIFY(sim->step());
    QCOMPARE(poseDistance(sim->state(), first), 0.0);
    QCOMPARE(sim->state().bodies[1].v, first.bodies[1].v);
    // A state from the variational integrator at 1 s: one MuJoCo step from it lands next to the VI's.
    auto vi = make(m, IntegratorOptions(), 0.01);
    QVERIFY(runTo(*vi, 1.0));
    const State viAt1 = vi->state();
    QVERIFY(vi->step());
    sim->setState(viAt1);
    QVERIFY(sim->step());
    const double d = poseDistance(sim->state(), vi->state());
    // The two first-order steps differ by O(a Δt²) (~ 20 m/s² · 1e-4 s²); MuJoCo's own trajectory
    // is decimetres away by then.
    qInfo("one step from the VI's state at 1 s: %.3g m from the VI's next state; MuJoCo's own state at 1 s %.3g m "
          "from the VI's", d, poseDistance(ownAt1, viAt1));
    QVERIFY(d < 5e-3);
    QVERIFY(poseDistance(ownAt1, viAt1) > 10 * d);
    // reset() restarts too.
    sim->reset();
    QVERIFY(sim->step());
    QCOMPARE(poseDistance(sim->state(), first), 0.0);
  }

  // MuJoCo's RK4 and implicit integrators run the box drop; a blow-up stops with the reason.
  void schemesAndFailures() {
    for (MuJoCoScheme s : {MuJoCoScheme::RK4, MuJoCoScheme::Implicit}) {
      auto sim = make(buildScene("box-drop"), mujoco(s));
      QCOMPARE(describe(sim->integratorOptions()), std::string("mujoco (") + toString(s) + ")");
      const Landing l = landing(*sim);
      qInfo("box drop, MuJoCo %s: overshoot %.3f cm", toString(s), 100 * l.overshoot);
      QVERIFY(l.overshoot > 0.005 && l.overshoot < 0.05);
    }
    // A stiff spring at a huge step: MuJoCo's explicit step diverges; the copy stops on it.
    Model m = buildScene("pendulum");
    m.joints[0].stiffness = {1e9};
    m.joints[0].restPosition = {0};
    auto sim = make(m, mujoco(), 0.01);
    bool failed = false;
    for (int k = 0; k < 2000 && !failed; ++k) failed = !sim->step();
    QVERIFY(failed);
    qInfo("diverged: %s", sim->metrics().message.c_str());
    QCOMPARE(sim->metrics().status, StepStatus::NonFinite);
    QVERIFY(sim->state().bodies[0].x.allFinite());
    // Options that make no sense: a MuJoCo scheme for another integrator.
    IntegratorOptions bad;
    bad.mujocoScheme = MuJoCoScheme::RK4;
    QVERIFY_THROWS_EXCEPTION(UserError, sim->setIntegrator(bad));
  }

  // A ghost beside the variational integrator (the app's and the lessons' lockstep runner): the box
  // drop in both, then both branched from the VI's state at 0.2 s (before the landing).
  void runsInLockstepBesideTheVariationalIntegrator() {
    Comparison cmp(compile(buildScene("box-drop")), {{"VI", IntegratorOptions(), 0.01}, {"MuJoCo", mujoco(), 0.01}});
    QCOMPARE(cmp.advanceTo(0.2), 2);
    const State branch = cmp.simulation(0).state();
    QVERIFY(cmp.advanceTo(1.0) == 2);
    QVERIFY(cmp.simulation(1).metrics().penetration < 0.03);
    cmp.setState(branch);
    QCOMPARE(poseDistance(cmp.simulation(1).state(), branch), 0.0);
    QCOMPARE(cmp.advanceTo(1.0), 2);
    QVERIFY(std::abs(cmp.simulation(1).state().time - 1.0) < 1e-9);
  }

  void noAllocationPerStep() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc is not counted in this build");
#endif
    for (const char* scene : {"box-drop", "three-link-loop"}) {
      auto sim = make(buildScene(scene), mujoco());
      for (int k = 0; k < 5; ++k) QVERIFY(sim->step());
      g_allocations = 0;
      g_countAllocations = true;
      for (int k = 0; k < 20; ++k) sim->step();
      g_countAllocations = false;
      qInfo("%s: %ld allocations in 20 steps", scene, g_allocations.load());
      QCOMPARE(g_allocations.load(), 0L);
    }
  }
};

QTEST_APPLESS_MAIN(TstMuJoCoCopy)
#include "tst_mujoco_copy.moc"
