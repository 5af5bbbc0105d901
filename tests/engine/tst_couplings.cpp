// SPDX-License-Identifier: GPL-3.0-or-later
// Joint couplings (model.h CouplingDesc; URDF's <mimic>, MJCF's <equality><joint>, the model
// language's (coupling …)): θ_joint = offset + multiplier · θ_reference held as a constraint of the
// variational integrator. Measured here: a pendulum coupled 1:1 to another on the same axis moves
// exactly as the two welded together; a 2:1 gear pair follows the reduced one-coordinate equation of
// motion (RK4 at a fine step) and keeps its energy; the Newton matrix with a coupling whose joints
// share a body equals finite differences; a URDF gripper's mimic finger moves against the other with
// the acceleration of an Atwood machine; MJCF's polycoef with refs becomes the right offset; the
// .mech reader, writer and edits keep couplings and report bad ones at their place; the MJCF and
// URDF writers export them; the other integrators refuse them.
#include <QTest>

#include <cmath>

#include "core/check.h"
#include "allocation_counter.h"
#include "engine/integrator_refusal.h"
#include "engine/rename_then_delete.h"
#include "engine/newton_fd.h"
#include "integrator/integrator_options.h"
#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "io/mjcf_import.h"
#include "io/mjcf_writer.h"
#include "io/urdf_import.h"
#include "io/urdf_writer.h"
#include "simulation.h"
#include "system/initial_conditions.h"

using namespace ms;

namespace {

constexpr double kG = 9.81;

// A rod hanging from a hinge about x at the origin: centre of mass at depth l, inertia Ic about it.
BodyDesc rod(const std::string& name, double mass, double l, double ic) {
  BodyDesc b;
  b.name = name;
  b.mass = mass;
  b.inertia = Vec3(ic, ic, ic).asDiagonal();
  b.position = Vec3(0, 0, -l);
  return b;
}
JointDesc hinge(const std::string& name, int child, double l, double angle) {
  JointDesc j;
  j.name = name;
  j.child = child;
  j.axis = Vec3::UnitX();
  j.childAnchor = Vec3(0, 0, l);
  j.initialPosition = {angle};
  return j;
}

// Rods A (0.5 kg, 0.3 m) and B (1.2 kg, 0.5 m) on hinges at the origin about x; B's angle is
// offset + multiplier · A's (a coupling), or B is welded to A (welded).
Model rodPair(double multiplier, double offset, bool welded) {
  Model m;
  m.name = "rods";
  m.bodies = {rod("a", 0.5, 0.3, 0.004), rod("b", 1.2, 0.5, 0.02)};
  m.joints = {hinge("ja", 0, 0.3, 0.8)};
  if (welded) {
    JointDesc w;
    w.name = "weld";
    w.type = JointType::Fixed;
    w.parent = 0;
    w.child = 1;
    w.parentAnchor = Vec3(0, 0, 0.3);  // the hinge point in A's frame
    w.childAnchor = Vec3(0, 0, 0.5);
    m.joints.push_back(w);
  } else {
    m.joints.push_back(hinge("jb", 1, 0.5, 0));
    CouplingDesc c;
    c.name = "gear";
    c.joint = 1;
    c.reference = 0;
    c.multiplier = multiplier;
    c.offset = offset;
    m.couplings = {c};
  }
  m.solver.dt = 1e-3;
  return m;
}

// The reduced equation of the coupled pair, θ = A's angle: (I_A + m² I_B) θ̈ = −m_A g l_A sin θ −
// m m_B g l_B sin(m θ + o), by RK4 with step h from θ(0) = θ0 at rest; θ at time t.
double reducedAngle(double multiplier, double offset, double theta0, double t, double h) {
  const double ia = 0.004 + 0.5 * 0.3 * 0.3, ib = 0.02 + 1.2 * 0.5 * 0.5;
  const auto acc = [&](double th) {
    return (-0.5 * kG * 0.3 * std::sin(th) - multiplier * 1.2 * kG * 0.5 * std::sin(multiplier * th + offset)) /
           (ia + multiplier * multiplier * ib);
  };
  double th = theta0, w = 0;
  const int n = int(std::lround(t / h));
  for (int i = 0; i < n; ++i) {
    const double k1 = w, l1 = acc(th);
    const double k2 = w + 0.5 * h * l1, l2 = acc(th + 0.5 * h * k1);
    const double k3 = w + 0.5 * h * l2, l3 = acc(th + 0.5 * h * k2);
    const double k4 = w + h * l3, l4 = acc(th + h * k3);
    th += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    w += h / 6 * (l1 + 2 * l2 + 2 * l3 + l4);
  }
  return th;
}

double couplingError(const Simulation& sim) {
  double worst = 0;
  for (const CouplingDesc& c : sim.system().model.couplings)
    worst = std::max(worst, std::abs(couplingResidual(sim.system(), c, sim.state())));
  return worst;
}

// A palm welded to the world with two fingers sliding along +y and −y; finger2 mimics finger1.
const char* kGripper = R"(<robot name="gripper">
  <link name="world"/>
  <link name="palm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="base" type="fixed"><parent link="world"/><child link="palm"/></joint>
  <link name="left"><inertial><mass value="0.3"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="right"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="finger1" type="prismatic"><parent link="palm"/><child link="left"/><origin xyz="0 0.02 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
  <joint name="finger2" type="prismatic"><parent link="palm"/><child link="right"/><origin xyz="0 -0.02 0.1"/>
    <axis xyz="0 -1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/>
    <mimic joint="finger1" multiplier="1" offset="0"/></joint>
</robot>)";

}  // namespace

class TstCouplings : public QObject {
  Q_OBJECT
 private slots:
  // B coupled 1:1 to A on the same axis is B welded to A: the same constraint manifold and the same
  // discrete Lagrangian, so the same discrete trajectory (to the solver's tolerance), 3 s at Δt 1e-3.
  void oneToOneCouplingMovesAsAWeld() {
    Simulation coupled(compile(rodPair(1, 0, false))), welded(compile(rodPair(1, 0, true)));
    QVERIFY(couplingError(coupled) < 1e-12);
    double worst = 0, worstCoupling = 0;
    for (int i = 0; i < 3000; ++i) {
      QVERIFY2(coupled.step(), coupled.metrics().message.c_str());
      QVERIFY2(welded.step(), welded.metrics().message.c_str());
      for (int b = 0; b < 2; ++b)
        worst = std::max(worst, (coupled.state().bodies[b].x - welded.state().bodies[b].x).norm());
      worstCoupling = std::max(worstCoupling, couplingError(coupled));
    }
    qInfo("1:1 coupling vs weld, 3 s: max body position difference %.3g m, max coupling residual %.3g rad", worst,
          worstCoupling);
    QVERIFY(worst < 1e-8);
    QVERIFY(worstCoupling < 1e-10);
  }

  // A 2:1 gear pair with an offset against its reduced equation (RK4 at Δt 1e-5) at t = 1 s, for Δt
  // 1e-3 and 2.5e-4, beside the same measure of the 1:1 pair welded together (no coupling): the
  // differences fall with the step as the weld's do (second order, 16x per 4x), so the coupling adds
  // no error of its own; the coupling holds to rounding and the
  // energy error stays bounded over 10 s at Δt 1e-3 (the last second against the first).
  void gearPairFollowsTheReducedEquation() {
    double diff[2][2] = {{0, 0}, {0, 0}};
    for (int pair = 0; pair < 2; ++pair) {
      const double m = pair == 0 ? 1 : 2, o = pair == 0 ? 0 : 0.3;
      const double expected = reducedAngle(m, o, 0.8, 1.0, 1e-5);
      for (int k = 0; k < 2; ++k) {
        Model model = rodPair(m, o, pair == 0);
        model.solver.dt = k == 0 ? 1e-3 : 2.5e-4;
        Simulation sim(compile(model));
        if (pair == 1) QVERIFY(std::abs(sim.jointPosition(1)[0] - (o + m * 0.8)) < 1e-12);  // starts where the coupling puts it
        const int perSecond = int(std::lround(1 / model.solver.dt));
        const double e0 = sim.kineticEnergy() + sim.potentialEnergy();
        double first = 0, last = 0, worstCoupling = 0;
        const int steps = k == 0 ? 10 * perSecond : perSecond;
        for (int i = 1; i <= steps; ++i) {
          QVERIFY2(sim.step(), sim.metrics().message.c_str());
          if (i == perSecond) diff[pair][k] = std::abs(sim.jointPosition(0)[0] - expected);
          const double err = std::abs(sim.kineticEnergy() + sim.potentialEnergy() - e0);
          if (i <= perSecond) first = std::max(first, err);
          if (i > steps - perSecond) last = std::max(last, err);
          worstCoupling = std::max(worstCoupling, couplingError(sim));
        }
        qInfo("%s, dt %.2e: angle at 1 s off the reduced equation (%.9f rad) by %.3g rad; coupling residual %.3g rad; "
              "max |E - E0| first second %.3g J, last second %.3g J (E0 %.3f J)",
              pair == 0 ? "1:1 pair welded" : "2:1 gear pair", model.solver.dt, expected, diff[pair][k], worstCoupling,
              first, last, e0);
        QVERIFY(worstCoupling < 1e-10);
        if (k == 0) QVERIFY(last <= 1.5 * first);
      }
    }
    const double weldRatio = diff[0][0] / diff[0][1], gearRatio = diff[1][0] / diff[1][1];
    qInfo("difference falls %.2fx (weld) and %.2fx (gear) when dt falls 4x", weldRatio, gearRatio);
    QVERIFY(diff[1][0] < 1e-5);
    QVERIFY(gearRatio > 0.9 * weldRatio && gearRatio > 14);
  }

  // The Newton matrix with a coupling whose joints share a body (a hand on a hinge with two fingers,
  // finger2 = −finger1 + 0.1): central finite differences of the residual.
  void newtonMatrixMatchesFiniteDifferences() {
    Model m;
    m.name = "hand";
    m.bodies = {rod("hand", 1, 0.2, 0.01), rod("f1", 0.2, 0.3, 0.001), rod("f2", 0.3, 0.3, 0.001)};
    m.bodies[1].position = Vec3(0.05, 0, -0.3);
    m.bodies[2].position = Vec3(-0.05, 0, -0.3);
    m.joints = {hinge("wrist", 0, 0.2, 0.4)};
    for (int f : {1, 2}) {
      JointDesc j;
      j.name = f == 1 ? "j1" : "j2";
      j.parent = 0;
      j.child = f;
      j.axis = Vec3::UnitY();
      j.parentAnchor = Vec3(f == 1 ? 0.05 : -0.05, 0, -0.2);
      j.childAnchor = Vec3(0, 0, 0.1);
      j.initialPosition = {f == 1 ? 0.2 : 0.0};
      m.joints.push_back(j);
    }
    CouplingDesc c;
    c.name = "mimic";
    c.joint = 2;
    c.reference = 1;
    c.multiplier = -1;
    c.offset = 0.1;
    m.couplings = {c};
    auto sys = compile(m);
    QCOMPARE(sys->couplings.size(), size_t(1));
    QCOMPARE(sys->couplings[0].numBodies, 3);
    Simulation sim(sys);
    for (int s = 0; s < 200; ++s) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    QVERIFY(couplingError(sim) < 1e-10);
    bool ok = false;
    const double worst = test::worstNewtonError(sys, sim, 17, ok);
    QVERIFY(ok);
    qInfo("coupling Newton matrix (three bodies) vs finite differences: worst relative error %.3g", worst);
    QVERIFY(worst < 1e-6);
  }

  // URDF <mimic>: finger2 (0.1 kg) follows finger1 (0.3 kg) on mirrored axes; with gravity along −y
  // the pair is an Atwood machine: finger1 falls with a = (0.3 − 0.1)/(0.3 + 0.1) g; the variational
  // integrator (Störmer–Verlet from the half kick of the start) is exact for a constant
  // acceleration: x = ½ a t². The limits (±1 m) stay away.
  void urdfMimicGripperIsAnAtwoodMachine() {
    Model m;
    Diagnostics d;
    QVERIFY2(importUrdfString(kGripper, "gripper.urdf", "", m, d), d.format().c_str());
    QVERIFY2(d.format().find("mimic") == std::string::npos, d.format().c_str());
    QCOMPARE(m.couplings.size(), size_t(1));
    QCOMPARE(m.joints[size_t(m.couplings[0].joint)].name, std::string("finger2"));
    QCOMPARE(m.joints[size_t(m.couplings[0].reference)].name, std::string("finger1"));
    m.gravity = Vec3(0, -kG, 0);
    m.solver.dt = 1e-3;
    Simulation sim(compile(m));
    const int f1 = sim.system().model.jointIndex("finger1"), f2 = sim.system().model.jointIndex("finger2");
    for (int i = 0; i < 500; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    const double t = sim.state().time, a = 0.2 / 0.4 * kG;
    const double x1 = sim.jointPosition(f1)[0], x2 = sim.jointPosition(f2)[0];
    qInfo("mimic gripper at %.3f s: finger1 %.12f m, finger2 %.12f m, Atwood %.12f m", t, x1, x2, -0.5 * a * t * t);
    QVERIFY(std::abs(x1 - x2) < 1e-10);
    QVERIFY(std::abs(x1 + 0.5 * a * t * t) < 1e-10);
    // Written back: the mimic is in the URDF, and the file reads to the same coupling.
    const std::string urdf = writeUrdf(m);
    QVERIFY2(urdf.find("<mimic joint=\"finger1\" multiplier=\"1\" offset=\"0\"/>") != std::string::npos, urdf.c_str());
  }

  // MJCF <equality><joint polycoef="a0 a1 …"> with refs: y − y0 = a0 + a1 (x − x0) → θ1 = (y0 + a0 −
  // a1 x0) + a1 θ2; joint1 alone is held at y0 + a0; non-linear terms are a warning at their place;
  // the writer exports the coupling as an equality that reads back to the same one.
  void mjcfJointEqualityBecomesACoupling() {
    const std::string xml = R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="a"><joint name="ja" type="hinge" axis="1 0 0" ref="0.2"/><geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/>
      <body name="b" pos="0 0 -0.3"><joint name="jb" type="hinge" axis="1 0 0" ref="-0.1"/><geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/></body>
    </body>
    <body name="c" pos="0.5 0 0"><joint name="jc" type="slide" axis="0 0 1"/><geom type="sphere" size="0.05"/></body>
  </worldbody>
  <equality>
    <joint name="elbow" joint1="jb" joint2="ja" polycoef="0.05 -2 0.1 0 0"/>
    <joint joint1="jc" polycoef="0.01 0 0 0 0"/>
  </equality>
</mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "eq.xml", "", m, d), d.format().c_str());
    QVERIFY2(d.format().find("eq.xml:10:49: warning: only the linear part") != std::string::npos && d.format().find("only the linear part") != std::string::npos,
             d.format().c_str());
    QCOMPARE(m.couplings.size(), size_t(2));
    const CouplingDesc& e = m.couplings[0];
    QCOMPARE(e.name, std::string("elbow"));
    QCOMPARE(e.multiplier, -2.0);
    QVERIFY(std::abs(e.offset - (-0.1 + 0.05 + 2 * 0.2)) < 1e-14);
    QCOMPARE(m.couplings[1].reference, -1);
    QVERIFY(std::abs(m.couplings[1].offset - 0.01) < 1e-15);
    Simulation sim(compile(m));
    for (int i = 0; i < 300; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    QVERIFY(couplingError(sim) < 1e-10);
    QVERIFY(std::abs(sim.jointPosition(m.jointIndex("jc"))[0] - 0.01) < 1e-10);  // held against gravity
    // Exported and read back: the same couplings (the refs of the written joints are their initial coordinates).
    const std::string out = writeMjcf(m, MjcfWriteOptions{});
    Model back;
    Diagnostics d2;
    QVERIFY2(importMjcfString(out, "out.xml", "", back, d2), (d2.format() + out).c_str());
    QCOMPARE(back.couplings.size(), size_t(2));
    QVERIFY(std::abs(back.couplings[0].multiplier + 2) < 1e-12);
    QVERIFY2(std::abs(back.couplings[0].offset - e.offset) < 1e-9, out.c_str());
    QVERIFY(std::abs(back.couplings[1].offset - 0.01) < 1e-9);
  }

  void modelLanguage() {
    const std::string text = R"((mechanism t
  (body a (mass 1) (shape sphere 0.1) (joint revolute ja (axis 1 0 0) (position 0.3)))
  (body b (mass 2) (shape box 0.1 0.1 0.1) (joint revolute jb (axis 1 0 0)))
  (coupling gear (joint jb) (follows ja) (multiplier -2) (offset 0.1)))
)";
    MechParseResult r;
    Diagnostics d;
    QVERIFY2(readMechText(text, "t.mech", {}, r, d), d.format().c_str());
    QCOMPARE(r.model.couplings.size(), size_t(1));
    const CouplingDesc& c = r.model.couplings[0];
    QCOMPARE(c.joint, 1);
    QCOMPARE(c.reference, 0);
    QCOMPARE(c.multiplier, -2.0);
    QCOMPARE(c.offset, 0.1);
    // The coupled joint starts where the coupling puts it (its own initial position is overridden).
    Simulation sim(compile(r.model));
    QVERIFY(std::abs(sim.jointPosition(1)[0] - (0.1 - 2 * 0.3)) < 1e-12);
    const std::string written = writeMech(r.model);
    MechParseResult again;
    Diagnostics d2;
    QVERIFY2(readMechText(written, "w.mech", {}, again, d2), (d2.format() + written).c_str());
    QCOMPARE(again.model.couplings.size(), size_t(1));
    QCOMPARE(again.model.couplings[0].reference, 0);
    QCOMPARE(again.model.couplings[0].multiplier, -2.0);
    QCOMPARE(again.model.couplings[0].offset, 0.1);
    const struct {
      const char* coupling;
      const char* expect;
    } bad[] = {
        {"(coupling c (joint jbb) (follows ja))", "unknown joint 'jbb' (did you mean 'jb'?)"},
        {"(coupling c (joint jb 1) (follows ja))", "joint 'jb' (revolute) has 1 free coordinate; there is no coordinate 1"},
        {"(coupling c (follows ja))", "coupling 'c' needs (joint NAME)"},
        {"(coupling c (joint ja) (follows ja))", "joint 'ja' cannot follow itself"},
        {"(coupling c (joint jb) (follows ja) (multiplier))", "multiplier"},
        {"(coupling c (joint jb) (follows ja) (ratio 2))", "unknown coupling property 'ratio'"},
    };
    const std::string bodies = "(mechanism t (body a (mass 1) (shape sphere 0.1) (joint revolute ja (axis 1 0 0))) "
                               "(body b (mass 1) (shape sphere 0.1) (joint revolute jb (axis 1 0 0))) ";
    for (const auto& b : bad) {
      MechParseResult p;
      Diagnostics dd;
      QVERIFY(!readMechText(bodies + b.coupling + ")", "bad.mech", {}, p, dd));
      QVERIFY2(dd.format().find(b.expect) != std::string::npos, dd.format().c_str());
      QVERIFY2(dd.format().find("bad.mech:1:") != std::string::npos, dd.format().c_str());
    }
    // What only the compile step sees: a cycle, and a coordinate driven twice.
    for (const auto& [couplings, expect] :
         {std::pair{"(coupling c (joint jb) (follows ja)) (coupling d (joint ja) (follows jb))", "the couplings form a cycle"},
          std::pair{"(coupling c (joint jb) (follows ja)) (coupling d (joint jb) (offset 1))", "already follows another coupling"}}) {
      MechParseResult p;
      Diagnostics dd;
      QVERIFY2(readMechText(bodies + couplings + ")", "bad.mech", {}, p, dd), dd.format().c_str());
      try {
        compile(p.model);
        QFAIL("compiled");
      } catch (const UserError& e) {
        QVERIFY2(std::string(e.what()).find(expect) != std::string::npos, e.what());
      }
    }
  }

  void editsFollowCouplings() {
    const std::string text = R"((mechanism t
  (body a (mass 1) (shape sphere 0.1) (joint revolute ja (axis 1 0 0)))
  (body b (mass 2) (shape box 0.1 0.1 0.1) (joint revolute jb (axis 1 0 0)))
  (coupling gear (joint jb) (follows ja) (multiplier 2)))
)";
    std::string renamed, why;
    MechParseResult r3;
    QVERIFY2(test::renameJointThenDeleteBody(text, "hub", 0, renamed, r3, why), why.c_str());
    QVERIFY2(renamed.find("(follows hub)") != std::string::npos, renamed.c_str());
    QVERIFY(r3.model.couplings.empty());
    QCOMPARE(r3.model.bodies.size(), size_t(1));
  }

  // Steps allocate nothing with a coupling, on the equality path and in the contact step's islands
  // (a ball bouncing on a ground beside the gear pair: two islands).
  void stepsDoNotAllocate() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc is not interposed in this build (sanitizer or non-glibc)");
#endif
    for (bool withBall : {false, true}) {
      Model m = rodPair(2, 0.3, false);
      if (withBall) {
        BodyDesc ball = rod("ball", 1, 0, 0.004);
        ball.position = Vec3(2, 0, 0.3);
        ShapeDesc sphere;
        sphere.kind = ShapeDesc::Kind::Sphere;
        sphere.size = Vec3(0.1, 0, 0);
        ball.collisions = {sphere};
        m.bodies.push_back(ball);
        GroundDesc g;
        g.name = "floor";
        g.point = Vec3(0, 0, -1);
        m.grounds = {g};
      }
      Simulation sim(compile(m));
      for (int s = 0; s < 5; ++s) QVERIFY(sim.step());
      g_allocations = 0;
      g_countAllocations = true;
      bool ok = true;
      int contactSteps = 0;
      for (int s = 0; s < 1000; ++s) {
        ok = sim.step() && ok;
        contactSteps += sim.metrics().contacts > 0;
      }
      g_countAllocations = false;
      QVERIFY(ok);
      qInfo("gear pair%s, 1000 steps: %d with contacts, %ld allocations", withBall ? " and a bouncing ball" : "", contactSteps,
            g_allocations.load());
      QVERIFY(!withBall || contactSteps > 0);
      QCOMPARE(g_allocations.load(), 0L);
      QVERIFY(couplingError(sim) < 1e-10);  // the coupling joins the rods into one island
    }
  }

  void otherIntegratorsRefuseThem() {
    Simulation sim(compile(rodPair(2, 0, false)));
    for (IntegratorKind k : {IntegratorKind::RK4, IntegratorKind::ExplicitEuler, IntegratorKind::MidpointGC, IntegratorKind::RIQN})
      QVERIFY(test::refusesIntegrator(sim, k, "only the variational integrator enforces"));
  }
};

QTEST_APPLESS_MAIN(TstCouplings)
#include "tst_couplings.moc"
