// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/integrator/accel_dynamics: the bias Ġν of every joint type (to the world and
// between bodies, and of joints with dropped redundant rows) against finite differences of g along
// the constant-velocity path, the KKT solution against a dense check of both block rows, applied
// forces against the potential energy and the variational integrator's conventions, and no heap
// allocation in accelerations().
#include <QTest>

#include <random>

#include "test_random.h"
#include "allocation_counter.h"
#include "core/quaternion.h"
#include "integrator/accel_dynamics.h"
#include "model/joint_kinds.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/compiled_system.h"

using namespace ms;
using Params = std::map<std::string, std::string>;

namespace {

test::SeededRandom rnd(4242);
Vec4 randQuat() { return quat::fromRotationVector(rnd.randVec(1.5)); }

// Two bodies; one joint of type t from the world (body 0 then is free) or from body 0 to body 1,
// with random anchors, axis and offset.
std::shared_ptr<const CompiledSystem> twoBodies(JointType t, bool world) {
  Model m;
  m.name = "two-bodies";
  for (int i = 0; i < 2; ++i) {
    BodyDesc b;
    b.name = "b" + std::to_string(i);
    b.mass = 1.0 + 0.7 * i;
    b.inertia = Vec3(0.1 + 0.05 * i, 0.2, 0.3 - 0.04 * i).asDiagonal();
    b.position = rnd.randVec(1.0);
    m.bodies.push_back(b);
  }
  JointDesc j;
  j.name = "j";
  j.type = t;
  j.parent = world ? -1 : 0;
  j.child = 1;
  j.parentAnchor = rnd.randVec(0.5);
  j.childAnchor = rnd.randVec(0.5);
  j.axis = rnd.randVec(1.0);
  j.offset = randQuat();
  m.joints.push_back(j);
  return compile(m);
}

State randomState(const CompiledSystem& sys) {
  State s;
  s.bodies.resize(sys.bodies.size());
  s.lambda.assign(sys.joints.size(), Vec6::Zero());
  for (BodyState& b : s.bodies) {
    b.x = rnd.randVec(1.0);
    b.q = randQuat();
    b.v = rnd.randVec(1.5);
    b.w = rnd.randVec(2.0);
  }
  return s;
}

// The state moved along the constant-velocity path by time t: x + v t, q·exp(ω t/2).
State along(const State& s, double t) {
  State o = s;
  for (BodyState& b : o.bodies) {
    b.x += b.v * t;
    b.q = quat::mul(b.q, quat::fromRotationVector(b.w * t));
  }
  return o;
}

Vec6 rows(const JointGeometry& g, const State& s) {
  JointConstraintEval e;
  evalJointConstraint(g, jointPoses(g, s), e);
  return e.g;
}

// First and second derivatives of joint k's rows along the path (fourth-order stencils).
void pathDerivatives(const CompiledSystem& sys, int k, const State& s, Vec6& d1, Vec6& d2) {
  const JointGeometry& g = sys.joints[k].geo;
  const double h = 1e-3;
  const Vec6 m2 = rows(g, along(s, -2 * h)), m1 = rows(g, along(s, -h)), z = rows(g, s), p1 = rows(g, along(s, h)),
             p2 = rows(g, along(s, 2 * h));
  d1 = (m2 - 8 * m1 + 8 * p1 - p2) / (12 * h);
  d2 = (-m2 + 16 * m1 - 30 * z + 16 * p1 - p2) / (12 * h * h);
}

// Dense G (constrained rows of every joint), stacked as the KKT rows.
MatX denseG(const CompiledSystem& sys, const State& s, std::vector<int>& rowJoint) {
  int m = 0;
  for (const CompiledJoint& j : sys.joints) m += j.node >= 0 ? j.geo.constrained() : 0;
  MatX G = MatX::Zero(m, 6 * sys.bodies.size());
  rowJoint.assign(m, -1);
  int r = 0;
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    if (j.node < 0) continue;
    JointConstraintEval e;
    evalJointConstraint(j.geo, jointPoses(j.geo, s), e);
    const int c = j.geo.constrained();
    if (j.geo.parent >= 0) {
      G.block(r, 6 * j.geo.parent, c, 3) = e.dxa.topRows(c);
      G.block(r, 6 * j.geo.parent + 3, c, 3) = e.dtha.topRows(c);
    }
    G.block(r, 6 * j.geo.child, c, 3) = e.dxb.topRows(c);
    G.block(r, 6 * j.geo.child + 3, c, 3) = e.dthb.topRows(c);
    for (int q = 0; q < c; ++q) rowJoint[r + q] = int(k);
    r += c;
  }
  return G;
}

Inputs emptyInputs(const CompiledSystem& sys) {
  Inputs in;
  in.force.assign(sys.bodies.size(), Vec3::Zero());
  in.torque.assign(sys.bodies.size(), Vec3::Zero());
  in.actuator.assign(sys.joints.size(), Vec6::Zero());
  return in;
}

}  // namespace

class TestAccelDynamics : public QObject {
  Q_OBJECT
 private slots:
  void biasMatchesFiniteDifferencesForEveryJoint();
  void biasMatchesFiniteDifferencesWithDroppedRows();
  void kktSolutionSatisfiesBothRows();
  void baumgarteTermsEnterTheConstraintRows();
  void pendulumStartsWithTheAnalyticAcceleration();
  void conservativeForcesAreMinusTheEnergyGradient();
  void jointEffortsMatchTheVariationalConvention();
  void velocityProjectionMakesGvZero();
  void accelerationsDoNotAllocate();
};

void TestAccelDynamics::biasMatchesFiniteDifferencesForEveryJoint() {
  double worst2 = 0, worst1 = 0;
  for (int t = 0; t < kNumJointTypes; ++t) {
    const JointKind& kind = jointKindAt(t);
    for (bool world : {true, false}) {
      for (int trial = 0; trial < 5; ++trial) {
        auto sys = twoBodies(kind.type, world);
        AccelDynamics dyn(sys);
        const State s = randomState(*sys);
        Vec6 d1, d2;
        pathDerivatives(*sys, 0, s, d1, d2);
        const Vec6 bias = dyn.jointBias(0, s), rate = dyn.constraintRate(0, s);
        const double e2 = (bias - d2).lpNorm<Eigen::Infinity>(), e1 = (rate - d1).lpNorm<Eigen::Infinity>();
        worst2 = std::max(worst2, e2);
        worst1 = std::max(worst1, e1);
        const QByteArray what = QByteArray(kind.name) + (world ? " to the world" : " between bodies");
        QVERIFY2(e2 <= 1e-6 * std::max(1.0, d2.lpNorm<Eigen::Infinity>()), what.constData());
        QVERIFY2(e1 <= 1e-8 * std::max(1.0, d1.lpNorm<Eigen::Infinity>()), what.constData());
        // Padding rows stay zero.
        for (int r = kind.constrained(); r < 6; ++r) QCOMPARE(bias(r), 0.0);
      }
    }
  }
  qInfo("12 joint types x {world, body} x 5 random states: max |Gdot nu - d2g/dt2| = %.3g, max |G nu - dg/dt| = %.3g",
        worst2, worst1);
}

void TestAccelDynamics::biasMatchesFiniteDifferencesWithDroppedRows() {
  // The three-link loop and the double four-bar drop redundant rows of their closing joints: the
  // bias must have exactly the rows evalJointConstraint keeps.
  int dropped = 0;
  for (const char* scene : {"three-link-loop", "double-four-bar", "four-link-segments"}) {
    auto sys = compile(buildScene(scene));
    AccelDynamics dyn(sys);
    const State s = randomState(*sys);
    for (size_t k = 0; k < sys->joints.size(); ++k) {
      dropped += sys->joints[k].hasDroppedRows;
      Vec6 d1, d2;
      pathDerivatives(*sys, int(k), s, d1, d2);
      const Vec6 bias = dyn.jointBias(int(k), s);
      QVERIFY2((bias - d2).lpNorm<Eigen::Infinity>() <= 1e-6 * std::max(1.0, d2.lpNorm<Eigen::Infinity>()), scene);
    }
  }
  qInfo("joints with dropped rows checked: %d", dropped);
  QVERIFY(dropped > 0);
}

void TestAccelDynamics::kktSolutionSatisfiesBothRows() {
  for (const char* scene : {"chain", "three-link-loop", "double-four-bar", "four-link-segments"}) {
    auto sys = compile(buildScene(scene, std::string(scene) == "chain" ? Params{{"n", "5"}, {"joint", "spherical"}} : Params{}));
    Simulation sim(sys);
    State s = sim.state();
    for (BodyState& b : s.bodies) {
      b.v += rnd.randVec(0.5);
      b.w += rnd.randVec(0.5);
    }
    AccelDynamics dyn(sys);
    Inputs in = emptyInputs(*sys);
    in.force[0] = rnd.randVec(3.0);
    in.torque[0] = rnd.randVec(3.0);
    VecX f, c, a, lambda;
    QVERIFY(dyn.factor(s));
    dyn.appliedForces(sim.settings(), in, s, f);
    dyn.constraintRhs(s, 0.0, 0.0, c);
    dyn.solve(f, &c, a, &lambda);
    // Dense check: M a − Gᵀλ = f and G a = c.
    std::vector<int> rowJoint;
    const MatX G = denseG(*sys, s, rowJoint);
    VecX lam(G.rows()), cr(G.rows());
    std::vector<int> seen(sys->joints.size(), 0);
    for (int r = 0; r < G.rows(); ++r) {
      const int k = rowJoint[r];
      lam(r) = lambda(6 * k + seen[k]);
      cr(r) = c(6 * k + seen[k]);
      ++seen[k];
    }
    VecX Ma(a.size());
    for (size_t i = 0; i < sys->bodies.size(); ++i) {
      Ma.segment<3>(6 * i) = sys->bodies[i].mass * a.segment<3>(6 * i);
      Ma.segment<3>(6 * i + 3) = sys->bodies[i].inertia * a.segment<3>(6 * i + 3);
    }
    const double dyn1 = (Ma - G.transpose() * lam - f).lpNorm<Eigen::Infinity>();
    const double con1 = (G * a - cr).lpNorm<Eigen::Infinity>();
    const double scale = std::max({1.0, f.lpNorm<Eigen::Infinity>(), (G.transpose() * lam).lpNorm<Eigen::Infinity>()});
    qInfo("%s: |M a - G'l - f| = %.3g, |G a - c| = %.3g (scale %.3g)", scene, dyn1, con1, scale);
    QVERIFY2(dyn1 <= 1e-12 * scale, scene);
    QVERIFY2(con1 <= 1e-12 * std::max(1.0, cr.lpNorm<Eigen::Infinity>()), scene);
  }
}

void TestAccelDynamics::baumgarteTermsEnterTheConstraintRows() {
  auto sys = twoBodies(JointType::Revolute, false);
  AccelDynamics dyn(sys);
  const State s = randomState(*sys);  // violates the joint: g ≠ 0, Gν ≠ 0
  VecX c0, c1;
  dyn.constraintRhs(s, 0, 0, c0);
  const double alpha = 3, beta = 7;
  dyn.constraintRhs(s, alpha, beta, c1);
  JointConstraintEval e;
  evalJointConstraint(sys->joints[0].geo, jointPoses(sys->joints[0].geo, s), e);
  const Vec6 expected = c0.head<6>() - 2 * alpha * dyn.constraintRate(0, s) - beta * beta * e.g;
  QVERIFY((c1.head<6>() - expected).lpNorm<Eigen::Infinity>() < 1e-12);
  QVERIFY(e.g.lpNorm<Eigen::Infinity>() > 1e-3);
}

void TestAccelDynamics::pendulumStartsWithTheAnalyticAcceleration() {
  // Pendulum (1 kg, 0.1 m cube on a massless 1 m rod) released at several angles from rest:
  // angular acceleration about the pivot = torque of gravity / (m l² + J_xx).
  for (double angle : {M_PI / 2, 0.3, 2.5}) {
    auto sys = compile(buildScene("pendulum", {{"angle", std::to_string(angle)}}));
    Simulation sim(sys);
    const State& s = sim.state();
    AccelDynamics dyn(sys);
    VecX a;
    QVERIFY(dyn.accelerations(sim.settings(), sim.inputs(), s, 0, 0, a));
    const double m = sys->bodies[0].mass, Jxx = sys->bodies[0].inertia(0, 0);
    const Vec3 r = s.bodies[0].x;  // COM from the pivot at the origin
    const double l = r.norm();
    const double torque = r.cross(m * sim.settings().gravity).x();
    const double expected = torque / (m * l * l + Jxx);
    const Vec3 alphaWorld = quat::rotation(s.bodies[0].q) * a.segment<3>(3);
    const Vec3 accExpected = Vec3(expected, 0, 0).cross(r);  // tangential, from rest
    qInfo("pendulum at %.3f rad: angular acceleration %.15f rad/s^2, analytic %.15f", angle, alphaWorld.x(), expected);
    QVERIFY(std::abs(alphaWorld.x() - expected) <= 1e-12 * std::abs(9.81));
    QVERIFY(alphaWorld.tail<2>().norm() <= 1e-12);
    QVERIFY((a.head<3>() - accExpected).norm() <= 1e-12 * 10);
  }
}

void TestAccelDynamics::conservativeForcesAreMinusTheEnergyGradient() {
  // Gravity, a joint spring and a spring between a body and the world: at zero velocity the applied
  // generalised forces are −∂V/∂(x, θ) of Simulation::potentialEnergy.
  Model m = buildScene("double-pendulum");
  m.joints[1].stiffness = {7.0};
  m.joints[1].restPosition = {0.4};
  SpringDesc sp;
  sp.name = "sp";
  sp.bodyA = -1;
  sp.bodyB = 1;
  sp.anchorA = Vec3(0.3, 0.5, 0.2);
  sp.anchorB = Vec3(0.05, -0.02, 0.03);
  sp.stiffness = 11;
  sp.restLength = 0.2;
  m.springs.push_back(sp);
  auto sys = compile(m);
  Simulation sim(sys);
  State s = sim.state();
  for (BodyState& b : s.bodies) {
    b.v.setZero();
    b.w.setZero();
  }
  AccelDynamics dyn(sys);
  VecX f;
  dyn.appliedForces(sim.settings(), sim.inputs(), s, f);
  const double h = 1e-6;
  double worst = 0;
  for (size_t i = 0; i < s.bodies.size(); ++i)
    for (int c = 0; c < 6; ++c) {
      double V[2];
      for (int side = 0; side < 2; ++side) {
        State p = s;
        const double d = side ? h : -h;
        if (c < 3) p.bodies[i].x(c) += d;
        else {
          Vec3 r = Vec3::Zero();
          r(c - 3) = d;
          p.bodies[i].q = quat::mul(p.bodies[i].q, quat::fromRotationVector(r));
        }
        sim.setState(p);
        V[side] = sim.potentialEnergy();
      }
      const double grad = (V[1] - V[0]) / (2 * h);
      worst = std::max(worst, std::abs(f(6 * i + c) + grad));
    }
  qInfo("conservative forces vs -dV: max difference %.3g", worst);
  QVERIFY(worst < 1e-7);
}

void TestAccelDynamics::jointEffortsMatchTheVariationalConvention() {
  // An actuator effort, a joint spring and a damper on the pendulum, and a wrench on the body: the
  // acceleration equals the variational integrator's (ω₁ − ω₀)/(1.5 Δt) of its first tiny step from
  // the same state (first-order agreement, Δt = 1e-5).
  Model m = buildScene("pendulum", {{"angle", "1.0"}});
  m.joints[0].stiffness = {5.0};
  m.joints[0].restPosition = {0.2};
  m.joints[0].damping = {0.8};
  m.joints[0].initialVelocity = {1.3};
  m.solver.dt = 1e-5;
  auto sys = compile(m);
  Simulation sim(sys);
  sim.inputs().actuator[0](0) = 2.5;
  sim.inputs().force[0] = Vec3(0.3, -0.7, 0.2);
  sim.inputs().torque[0] = Vec3(0.4, 0.1, -0.3);
  // The initial state holds the velocities at the knot t = 0: the first step is the half kick, then
  // the interval [Δt, 2Δt], whose velocities are those at t = 1.5 Δt within O(Δt²).
  const State s0 = sim.state();
  AccelDynamics dyn(sys);
  VecX a;
  QVERIFY(dyn.accelerations(sim.settings(), sim.inputs(), s0, 0, 0, a));
  QVERIFY2(sim.step(), sim.metrics().message.c_str());
  const State& s1 = sim.state();
  const double dt = sim.settings().dt;
  const Vec3 vdot = (s1.bodies[0].v - s0.bodies[0].v) / (1.5 * dt);
  const Vec3 wdot = (s1.bodies[0].w - s0.bodies[0].w) / (1.5 * dt);
  qInfo("pendulum with actuator, spring, damper, wrench: omega_dot accel-level (%.6f %.6f %.6f), VI (%.6f %.6f %.6f)",
        a(3), a(4), a(5), wdot(0), wdot(1), wdot(2));
  QVERIFY((a.segment<3>(3) - wdot).norm() <= 1e-3 * a.segment<3>(3).norm());
  QVERIFY((a.head<3>() - vdot).norm() <= 1e-3 * a.head<3>().norm());
  // And the effort really matters: without it the acceleration differs by u / I about the axis.
  Inputs in = sim.inputs();
  in.actuator[0](0) = 0;
  VecX a0;
  QVERIFY(dyn.accelerations(sim.settings(), in, s0, 0, 0, a0));
  QVERIFY((a - a0).norm() > 1.0);
}

void TestAccelDynamics::velocityProjectionMakesGvZero() {
  auto sys = compile(buildScene("three-link-loop"));
  Simulation sim(sys);
  State s = sim.state();
  for (BodyState& b : s.bodies) {
    b.v += rnd.randVec(1.0);
    b.w += rnd.randVec(1.0);
  }
  AccelDynamics dyn(sys);
  QVERIFY(dyn.projectVelocities(s));
  double worst = 0;
  for (size_t k = 0; k < sys->joints.size(); ++k) worst = std::max(worst, dyn.constraintRate(int(k), s).lpNorm<Eigen::Infinity>());
  // The full rows of joints that dropped some hold too.
  for (const CompiledJoint& j : sys->joints) {
    if (!j.hasDroppedRows) continue;
    JointConstraintEval e;
    evalJointConstraint(j.full, jointPoses(j.full, s), e);
    const BodyState& b = s.bodies[j.full.child];
    Vec6 gd = e.dxb * b.v + e.dthb * b.w;
    if (j.full.parent >= 0) gd += e.dxa * s.bodies[j.full.parent].v + e.dtha * s.bodies[j.full.parent].w;
    worst = std::max(worst, gd.lpNorm<Eigen::Infinity>());
  }
  qInfo("three-link loop: |G nu| after projection %.3g", worst);
  QVERIFY(worst < 1e-12);
}

void TestAccelDynamics::accelerationsDoNotAllocate() {
  for (const char* scene : {"chain", "three-link-loop", "four-link-segments"}) {
    auto sys = compile(buildScene(scene));
    Simulation sim(sys);
    sim.inputs().actuator[0](0) = 1.0;  // the minimal-coordinate path too
    AccelDynamics dyn(sys);
    VecX a(6 * sys->bodies.size());
    const State s = sim.state();
    QVERIFY(dyn.accelerations(sim.settings(), sim.inputs(), s, 2.0, 3.0, a));  // warm-up
    g_allocations = 0;
    g_countAllocations = true;
    bool ok = true;
    for (int k = 0; k < 10; ++k) ok = dyn.accelerations(sim.settings(), sim.inputs(), s, 2.0, 3.0, a) && ok;
    g_countAllocations = false;
    QVERIFY(ok);
    qInfo("%s: %ld allocations in 10 accelerations() calls", scene, g_allocations.load());
    QCOMPARE(g_allocations.load(), 0L);
  }
}

QTEST_APPLESS_MAIN(TestAccelDynamics)
#include "tst_accel_dynamics.moc"
