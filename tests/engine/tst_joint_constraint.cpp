// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/dynamics/joint_constraint: analytic Jacobians against central finite
// differences for every joint type at random poses, minimal coordinates, forward kinematics, and
// the degrees of freedom each joint removes (Table B.2).
#include <QTest>

#include <random>

#include <Eigen/SVD>

#include "test_random.h"
#include "core/quaternion.h"
#include "dynamics/joint_constraint.h"

using namespace ms;

namespace {

test::SeededRandom rnd(12345);
Vec4 randQuat() { return quat::fromRotationVector(rnd.randVec(1.5)); }

JointGeometry randomJoint(JointType t, bool world) {
  return makeJointGeometry(t, world ? -1 : 0, 1, rnd.randVec(0.5), rnd.randVec(0.5), rnd.randVec(1.0), randQuat());
}

JointPoses randomPoses(bool world) {
  JointPoses z;
  z.xa = world ? Vec3::Zero() : rnd.randVec(1.0);
  z.qa = world ? Vec4(1, 0, 0, 0) : randQuat();
  z.xb = rnd.randVec(1.0);
  z.qb = randQuat();
  return z;
}

// Perturb coordinate c (0–2 position, 3–5 body-frame rotation) of body a or b.
JointPoses perturb(const JointPoses& z, bool bodyB, int c, double h) {
  JointPoses p = z;
  Vec3& x = bodyB ? p.xb : p.xa;
  Vec4& q = bodyB ? p.qb : p.qa;
  if (c < 3) x(c) += h;
  else {
    Vec3 d = Vec3::Zero();
    d(c - 3) = h;
    q = quat::mul(q, quat::fromRotationVector(d));
  }
  return p;
}

template <class F>
Eigen::Matrix<double, 6, 6> numericJacobian(const JointPoses& z, bool bodyB, F f) {
  const double h = 1e-6;
  Eigen::Matrix<double, 6, 6> J;
  for (int c = 0; c < 6; ++c) J.col(c) = (f(perturb(z, bodyB, c, h)) - f(perturb(z, bodyB, c, -h))) / (2 * h);
  return J;
}

Eigen::Matrix<double, 6, 6> stack(const Mat6x3& dx, const Mat6x3& dth) {
  Eigen::Matrix<double, 6, 6> J;
  J << dx, dth;
  return J;
}

}  // namespace

class TestJointConstraint : public QObject {
  Q_OBJECT
 private slots:
  void jointKindsMatchTableB2();
  void constraintJacobiansMatchFiniteDifferences();
  void minimalJacobiansMatchFiniteDifferences();
  void forwardKinematicsRoundTrip();
  void eachJointRemovesExactlyItsDegreesOfFreedom();
  void quaternionAlgebra();
};

void TestJointConstraint::jointKindsMatchTableB2() {
  // (translational, rotational) constrained rows of Table B.2.
  const int expected[kNumJointTypes][2] = {{3, 3}, {2, 3}, {1, 3}, {0, 3}, {3, 2}, {2, 2},
                                           {1, 2}, {0, 2}, {3, 0}, {2, 0}, {1, 0}, {0, 0}};
  for (int i = 0; i < kNumJointTypes; ++i) {
    const JointKind& k = jointKindAt(i);
    QCOMPARE(k.translationalConstrained, expected[i][0]);
    QCOMPARE(k.rotationalConstrained, expected[i][1]);
    QVERIFY(jointTypeFromName(k.name).has_value());
    QVERIFY(*jointTypeFromName(k.name) == k.type);
  }
  QVERIFY(!jointTypeFromName("hinge-ish").has_value());
}

void TestJointConstraint::constraintJacobiansMatchFiniteDifferences() {
  int checked = 0;
  for (int t = 0; t < kNumJointTypes; ++t)
    for (int world = 0; world < 2; ++world)
      for (int trial = 0; trial < 20; ++trial) {
        const JointGeometry j = randomJoint(jointKindAt(t).type, world);
        const JointPoses z = randomPoses(world);
        JointConstraintEval e;
        evalJointConstraint(j, z, e);
        QVERIFY((e.g - jointConstraintValue(j, z)).norm() < 1e-14);
        auto f = [&](const JointPoses& p) { return jointConstraintValue(j, p); };
        const double errB = (stack(e.dxb, e.dthb) - numericJacobian(z, true, f)).lpNorm<Eigen::Infinity>();
        QVERIFY2(errB < 1e-7, qPrintable(QString("%1 child block error %2").arg(jointKindAt(t).name).arg(errB)));
        if (!world) {
          const double errA = (stack(e.dxa, e.dtha) - numericJacobian(z, false, f)).lpNorm<Eigen::Infinity>();
          QVERIFY2(errA < 1e-7, qPrintable(QString("%1 parent block error %2").arg(jointKindAt(t).name).arg(errA)));
        }
        // Padding rows are zero.
        for (int r = j.constrained(); r < 6; ++r) QCOMPARE(e.g(r), 0.0);
        ++checked;
      }
  QCOMPARE(checked, kNumJointTypes * 2 * 20);
}

void TestJointConstraint::minimalJacobiansMatchFiniteDifferences() {
  for (int t = 0; t < kNumJointTypes; ++t)
    for (int world = 0; world < 2; ++world)
      for (int trial = 0; trial < 20; ++trial) {
        const JointGeometry j = randomJoint(jointKindAt(t).type, world);
        // Poses near a valid configuration (angles well inside (−π, π) so no wrap-around).
        Vec6 theta = Vec6::Zero();
        for (int c = 0; c < j.freeCoordinates(); ++c) theta(c) = rnd.uni(-1, 1);
        JointPoses z = randomPoses(world);
        jointForwardKinematics(j, z.xa, z.qa, theta, z.xb, z.qb);
        z.xb += rnd.randVec(0.05);  // slightly off the constraint manifold
        z.qb = quat::mul(z.qb, quat::fromRotationVector(rnd.randVec(0.05)));
        JointMinimalEval e;
        evalJointMinimal(j, z, e);
        auto f = [&](const JointPoses& p) {
          JointMinimalEval m;
          evalJointMinimal(j, p, m);
          return Vec6(m.theta);
        };
        const double errB = (stack(e.dxb, e.dthb) - numericJacobian(z, true, f)).lpNorm<Eigen::Infinity>();
        QVERIFY2(errB < 1e-6, qPrintable(QString("%1 child minimal error %2").arg(jointKindAt(t).name).arg(errB)));
        if (!world) {
          const double errA = (stack(e.dxa, e.dtha) - numericJacobian(z, false, f)).lpNorm<Eigen::Infinity>();
          QVERIFY2(errA < 1e-6, qPrintable(QString("%1 parent minimal error %2").arg(jointKindAt(t).name).arg(errA)));
        }
      }
}

void TestJointConstraint::forwardKinematicsRoundTrip() {
  for (int t = 0; t < kNumJointTypes; ++t)
    for (int trial = 0; trial < 20; ++trial) {
      const JointGeometry j = randomJoint(jointKindAt(t).type, false);
      Vec6 theta = Vec6::Zero();
      for (int c = 0; c < j.freeCoordinates(); ++c) theta(c) = rnd.uni(-2, 2);
      JointPoses z = randomPoses(false);
      jointForwardKinematics(j, z.xa, z.qa, theta, z.xb, z.qb);
      // The pose satisfies the joint and reproduces its coordinates.
      QVERIFY(jointConstraintValue(j, z).norm() < 1e-12);
      JointMinimalEval e;
      evalJointMinimal(j, z, e);
      QVERIFY2((e.theta - theta).norm() < 1e-10, jointKindAt(t).name);
    }
}

void TestJointConstraint::eachJointRemovesExactlyItsDegreesOfFreedom() {
  for (int t = 0; t < kNumJointTypes; ++t) {
    const JointKind& kind = jointKindAt(t);
    for (int trial = 0; trial < 10; ++trial) {
      const JointGeometry j = randomJoint(kind.type, trial % 2 == 0);
      Vec6 theta = Vec6::Zero();
      for (int c = 0; c < j.freeCoordinates(); ++c) theta(c) = rnd.uni(-1, 1);
      JointPoses z = randomPoses(trial % 2 == 0);
      jointForwardKinematics(j, z.xa, z.qa, theta, z.xb, z.qb);
      JointConstraintEval e;
      evalJointConstraint(j, z, e);
      // The child's 6 velocity directions: the constraint Jacobian has full row rank = constrained
      // rows, so the allowed motions form a (6 − constrained)-dimensional space.
      const Eigen::Matrix<double, 6, 6> G = stack(e.dxb, e.dthb);
      Eigen::MatrixXd N = Eigen::MatrixXd::Identity(6, 6);  // allowed child motions
      if (kind.constrained() > 0) {
        Eigen::JacobiSVD<Eigen::MatrixXd> svd(G.topRows(kind.constrained()), Eigen::ComputeFullV);
        QCOMPARE(int(svd.rank()), kind.constrained());
        N = svd.matrixV().rightCols(6 - kind.constrained());
      }
      // Motion along every free coordinate keeps the constraint satisfied (to second order).
      for (int c = 0; c < j.freeCoordinates(); ++c) {
        Vec6 th = theta;
        th(c) += 1e-3;
        JointPoses p = z;
        jointForwardKinematics(j, p.xa, p.qa, th, p.xb, p.qb);
        QVERIFY(jointConstraintValue(j, p).norm() < 1e-12);
        QVERIFY((p.xb - z.xb).norm() + (p.qb - z.qb).norm() > 1e-5);  // the child really moved
      }
      // A constrained motion is absent: moving the child against each constrained row violates it.
      for (int r = 0; r < kind.constrained(); ++r) {
        const Vec6 dir = G.row(r).transpose().normalized();
        JointPoses p = z;
        p.xb += 1e-4 * dir.head<3>();
        p.qb = quat::mul(p.qb, quat::fromRotationVector(1e-4 * dir.tail<3>()));
        QVERIFY(std::abs(jointConstraintValue(j, p)(r)) > 1e-6);
      }
      // Minimal-coordinate Jacobian restricted to the allowed motions has full rank (coordinates are
      // a chart of the free motion).
      if (kind.constrained() < 6) {
        JointMinimalEval me;
        evalJointMinimal(j, z, me);
        const Eigen::MatrixXd M = stack(me.dxb, me.dthb).topRows(j.freeCoordinates()) * N;
        QCOMPARE(int(Eigen::JacobiSVD<Eigen::MatrixXd>(M).rank()), j.freeCoordinates());
      }
    }
  }
}

void TestJointConstraint::quaternionAlgebra() {
  for (int trial = 0; trial < 50; ++trial) {
    const Vec4 q = randQuat(), p = randQuat();
    const Vec3 x = rnd.randVec(2);
    // A.5a: q·p = L(q)p = R(p)q
    QVERIFY((quat::mul(q, p) - quat::L(q) * p).norm() < 1e-14);
    QVERIFY((quat::mul(q, p) - quat::R(p) * q).norm() < 1e-14);
    // A.5b: T q = q⁻¹
    QVERIFY((quat::mul(q, quat::T() * q) - quat::identity()).norm() < 1e-14);
    // A.6: Q(q) = V R(q)ᵀ L(q) Vᵀ and rotation by q·x^·q⁻¹
    const Mat3 Q = quat::V() * quat::R(q).transpose() * quat::L(q) * quat::V().transpose();
    QVERIFY((Q - quat::rotation(q)).norm() < 1e-14);
    const Vec4 xq(0, x(0), x(1), x(2));
    QVERIFY((quat::mul(quat::mul(q, xq), quat::conj(q)).tail<3>() - Q * x).norm() < 1e-13);
    // Agrees with Eigen's Hamilton quaternion.
    const Eigen::Quaterniond e(q(0), q(1), q(2), q(3));
    QVERIFY((e.toRotationMatrix() - Q).norm() < 1e-14);
    // Rotation-vector round trip and its Jacobian (A.7/A.8 style derivative) by finite differences.
    const Vec3 r = rnd.randVec(1.7);  // |r| < π: inside the canonical range
    QVERIFY((quat::toRotationVector(quat::fromRotationVector(r)) - r).norm() < 1e-12);
    const Vec4 u = quat::fromRotationVector(r);
    const Mat34 Jr = quat::rotationVectorJacobian(u);
    for (int c = 0; c < 4; ++c) {
      Vec4 d = Vec4::Zero();
      d(c) = 1e-7;
      const Vec3 fd = (quat::toRotationVector(u + d) - quat::toRotationVector(u - d)) / 2e-7;
      QVERIFY((fd - Jr.col(c)).norm() < 1e-6);
    }
    // Increment map (eq. 13/17) keeps unit norm; its Jacobian Φ(ω) against finite differences.
    const double dt = 0.01;
    const Vec3 w = rnd.randVec(50);
    Vec4 inc;
    QVERIFY(quat::incrementFromVelocity(w, dt, inc));
    QVERIFY(std::abs(inc.norm() - 1) < 1e-14);
    const Mat3 Phi = quat::incrementJacobian(w, dt);
    for (int c = 0; c < 3; ++c) {
      Vec3 dw = Vec3::Zero();
      dw(c) = 1e-6;
      Vec4 ip, im;
      quat::incrementFromVelocity(w + dw, dt, ip);
      quat::incrementFromVelocity(w - dw, dt, im);
      // Body-frame rotation between q·inc(ω−dω) and q·inc(ω+dω).
      const Vec3 fd = quat::toRotationVector(quat::mul(quat::conj(im), ip)) / 2e-6;
      QVERIFY((fd - Phi.col(c)).norm() < 1e-7);
    }
    // Rotational Jacobian (A.8) and gradient (A.7) equal 2·∂/∂θ (θ: body-frame rotation), here for
    // f(q) = Q(q) x (vector) and its first component (scalar), by finite differences.
    Eigen::Matrix<double, 3, 4> dfdq;
    for (int c = 0; c < 4; ++c) {
      Vec4 d = Vec4::Zero();
      d(c) = 1e-7;
      dfdq.col(c) = (quat::rotation(q + d) * x - quat::rotation(q - d) * x) / 2e-7;
    }
    Mat3 dfdth;
    for (int c = 0; c < 3; ++c) {
      Vec3 d = Vec3::Zero();
      d(c) = 1e-7;
      dfdth.col(c) = (quat::rotation(quat::mul(q, quat::fromRotationVector(d))) * x -
                      quat::rotation(quat::mul(q, quat::fromRotationVector(-d))) * x) /
                     2e-7;
    }
    QVERIFY((quat::rotationalJacobian<3>(q, dfdq) - 2.0 * dfdth).norm() < 1e-6);
    const Vec4 grad = dfdq.row(0).transpose();
    QVERIFY((quat::rotationalGradient(q, grad) - 2.0 * dfdth.row(0).transpose()).norm() < 1e-6);
    // |ω| ≥ 2/Δt has no increment (eq. 13).
    QVERIFY(!quat::incrementFromVelocity(Vec3(2.0 / dt, 0, 0), dt, inc));
  }
}

QTEST_APPLESS_MAIN(TestJointConstraint)
#include "tst_joint_constraint.moc"
