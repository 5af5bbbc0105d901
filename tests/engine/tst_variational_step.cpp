// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/integrator/variational_step: the assembled Newton matrix equals the finite-
// difference derivative of the residual (20a)–(20b) for every joint type; the graph LDU solves the
// Newton system like a dense solver; failures are reported, never stepped through.
#include <QtTest/QtTest>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include <Eigen/LU>

#include "core/quaternion.h"
#include "integrator/variational_step.h"
#include "newton_fd.h"
#include "simulation.h"

using namespace ms;

// Count heap allocations made by this test executable (for the no-allocation-in-a-step check).
static std::atomic<long> gAllocations{0};
void* operator new(std::size_t n) {
  ++gAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  ++gAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

std::mt19937 rng(777);
double uni(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
Vec3 randVec(double s) { return Vec3(uni(-s, s), uni(-s, s), uni(-s, s)); }

// Two bodies: world —T→ body 1 —T→ body 2, with a spring and damper on the world joint.
Model twoBodyModel(JointType t) {
  Model m;
  m.name = "two-body";
  for (int i = 0; i < 2; ++i) {
    BodyDesc b;
    b.name = "b" + std::to_string(i);
    b.mass = 1.0 + i;
    b.inertia << 0.3, 0.02, 0.01, 0.02, 0.4, 0.03, 0.01, 0.03, 0.5;
    m.bodies.push_back(b);
  }
  const int nf = jointKind(t).freeCoordinates();
  for (int i = 0; i < 2; ++i) {
    JointDesc j;
    j.name = "j" + std::to_string(i);
    j.type = t;
    j.parent = i - 1;
    j.child = i;
    j.parentAnchor = i == 0 ? Vec3(0.1, 0.2, 0.3) : Vec3(0.0, 0.0, -0.5);
    j.childAnchor = Vec3(0.05, -0.1, 0.5);
    j.axis = Vec3(0.3, -0.5, 1.0);
    j.offset = quat::fromRotationVector(Vec3(0.2, -0.1, 0.3));
    for (int c = 0; c < nf; ++c) j.initialPosition.push_back(uni(-0.7, 0.7));
    for (int c = 0; c < nf; ++c) j.initialVelocity.push_back(uni(-1, 1));
    if (i == 0 && nf > 0) {
      j.stiffness = {3.0};
      j.damping = {0.7};
    }
    m.joints.push_back(j);
  }
  return m;
}

}  // namespace

class TestVariationalStep : public QObject {
  Q_OBJECT
 private slots:
  void newtonMatrixMatchesFiniteDifferences();
  void graphSolveMatchesDenseSolve();
  void stepSatisfiesConstraintsAndResidual();
  void angularVelocityLimitIsReported();
  void stepDoesNotAllocate();
};

void TestVariationalStep::newtonMatrixMatchesFiniteDifferences() {
  for (int t = 0; t < kNumJointTypes; ++t) {
    const JointType type = jointKindAt(t).type;
    auto sys = compile(twoBodyModel(type));
    Simulation sim(sys);
    VariationalIntegrator vi(sys);
    StepSettings st;
    Inputs in = sim.inputs();
    for (auto& a : in.actuator) a.setConstant(0.3);
    in.force[1] = Vec3(0.5, -0.2, 0.1);
    in.torque[1] = Vec3(0.1, 0.2, -0.3);
    const int nb = 2, nn = sys->numNodes;
    VecX vel(6 * nb), lam(6 * (nn - nb));
    for (int i = 0; i < vel.size(); ++i) vel(i) = uni(-1, 1);
    for (int i = 0; i < lam.size(); ++i) lam(i) = uni(-2, 2);
    VecX r;
    QVERIFY(vi.residualAt(st, in, sim.state(), vel, lam, r, true));
    const MatX F = vi.matrix().toDense();
    // Central differences of the residual in every unknown.
    MatX Fd;
    QVERIFY(test::newtonByFiniteDifferences(vi, st, in, sim.state(), vel, lam, Fd));
    // Padding rows of joints are identity in F and zero in the residual: compare real rows only.
    for (int row = 0; row < F.rows(); ++row) {
      const int node = row / 6, k = row % 6;
      if (node >= nb) {
        const int joint = sys->nodeJoint[node];
        if (k >= sys->joints[joint].geo.constrained()) continue;
      }
      for (int col = 0; col < F.cols(); ++col) {
        const double scale = 1.0 + std::abs(Fd(row, col));
        const double err = std::abs(F(row, col) - Fd(row, col)) / scale;
        // The damper's parent–child coupling is deliberately left out of the matrix (quasi-Newton);
        // joint j0 is attached to the world, so there is none here and every entry must match.
        QVERIFY2(err < 2e-6, qPrintable(QString("%1: F(%2,%3) = %4, finite difference %5")
                                            .arg(jointKindAt(t).name)
                                            .arg(row)
                                            .arg(col)
                                            .arg(F(row, col))
                                            .arg(Fd(row, col))));
      }
    }
  }
}

void TestVariationalStep::graphSolveMatchesDenseSolve() {
  for (int t = 0; t < kNumJointTypes; ++t) {
    auto sys = compile(twoBodyModel(jointKindAt(t).type));
    Simulation sim(sys);
    VariationalIntegrator vi(sys);
    StepSettings st;
    const int nb = 2, nn = sys->numNodes;
    VecX vel = VecX::Zero(6 * nb), lam = VecX::Zero(6 * (nn - nb)), r;
    for (int i = 0; i < nb; ++i) {
      vel.segment<3>(6 * i) = sim.state().bodies[i].v;
      vel.segment<3>(6 * i + 3) = sim.state().bodies[i].w;
    }
    QVERIFY(vi.residualAt(st, sim.inputs(), sim.state(), vel, lam, r, true));
    const MatX F = vi.matrix().toDense();
    GraphLDU ldu = vi.matrix();
    QVERIFY(ldu.factor());
    VecX x = -r;
    ldu.solve(x, x);
    const VecX xd = F.fullPivLu().solve(-r);
    QVERIFY2((x - xd).norm() <= 1e-9 * (1 + xd.norm()), jointKindAt(t).name);
  }
}

void TestVariationalStep::stepSatisfiesConstraintsAndResidual() {
  for (int t = 0; t < kNumJointTypes; ++t) {
    auto sys = compile(twoBodyModel(jointKindAt(t).type));
    Simulation sim(sys);
    int iterations = 0;
    for (int s = 0; s < 100; ++s) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      QVERIFY(sim.metrics().residual < 1e-10);
      QVERIFY(sim.metrics().constraintViolation < 1e-10);
      iterations += sim.metrics().iterations;
    }
    // Under gravity every moving mechanism needs Newton work each step; a fixed joint is a static
    // equilibrium that the warm start already solves after the first step.
    if (jointKindAt(t).type == JointType::Fixed) QVERIFY(iterations >= 1);
    else QVERIFY2(iterations >= 100, jointKindAt(t).name);
    QCOMPARE(sim.state().step, 100L);
  }
}

void TestVariationalStep::angularVelocityLimitIsReported() {
  // A free body spinning faster than 2/Δt cannot be stepped (eq. 13): reported, state untouched.
  Model m;
  m.name = "spinner";
  BodyDesc b;
  b.name = "b";
  b.angularVelocity = Vec3(0, 0, 150.0);  // < 2/Δt at Δt = 0.01 for the initial state
  m.bodies.push_back(b);
  m.gravity.setZero();
  auto sys = compile(m);
  Simulation sim(sys);
  QVERIFY(sim.step());
  State s = sim.state();
  s.bodies[0].w = Vec3(0, 0, 250.0);  // ≥ 2/Δt = 200
  sim.setState(s);
  QVERIFY(!sim.step());
  QVERIFY(sim.metrics().status == StepStatus::AngularVelocityLimit);
  QVERIFY(sim.metrics().message.find("step 2") != std::string::npos);
  QVERIFY(sim.failed());
  QVERIFY(!sim.step());  // refuses to continue until reset
  QCOMPARE(sim.state().step, 1L);
  sim.reset();
  QVERIFY(sim.step());
}

void TestVariationalStep::stepDoesNotAllocate() {
  // After construction, stepping (Newton, line search, graph LDU) performs no heap allocation:
  // a tree (chain with dampers), a closed loop with fill-in and every joint type.
  std::vector<Model> models;
  for (int t = 0; t < kNumJointTypes; ++t) models.push_back(twoBodyModel(jointKindAt(t).type));
  Model loop;
  loop.name = "loop";
  for (int i = 0; i < 3; ++i) {
    BodyDesc b;
    b.name = "l" + std::to_string(i);
    b.inertia = Vec3(0.1, 0.1, 0.01).asDiagonal();
    loop.bodies.push_back(b);
  }
  for (int i = 0; i < 4; ++i) {
    JointDesc j;
    j.name = "j" + std::to_string(i);
    j.type = JointType::Spherical;
    j.parent = (i == 0 || i == 3) ? -1 : i - 1;  // j3 pins the last link to the world: a loop
    j.child = i == 3 ? 2 : i;
    j.parentAnchor = i == 0 ? Vec3::Zero() : (i == 3 ? Vec3(0, 2.0, 0) : Vec3(0, 0, -0.5));
    j.childAnchor = i == 3 ? Vec3(0, 0, -0.5) : Vec3(0, 0, 0.5);
    j.damping = {0.1};
    loop.joints.push_back(j);
  }
  loop.bodies[0].position = Vec3(0, 0.25, -0.4);
  loop.bodies[1].position = Vec3(0, 1.0, -0.8);
  loop.bodies[2].position = Vec3(0, 1.75, -0.4);
  loop.joints[0].initialPosition.clear();
  models.push_back(loop);
  for (const Model& m : models) {
    auto sys = compile(m);
    Simulation sim(sys);
    QVERIFY(sim.step());  // warm-up
    const long before = gAllocations.load();
    for (int s = 0; s < 20; ++s) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    QVERIFY2(gAllocations.load() == before, m.name.c_str());
  }
}

QTEST_APPLESS_MAIN(TestVariationalStep)
#include "tst_variational_step.moc"
