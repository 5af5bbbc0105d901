// SPDX-License-Identifier: GPL-3.0-or-later
// Joint constraints of Brüdigam et al. 2023, Appendix B (B.1, B.3, B.5–B.7, Tables B.1–B.2).
// Conventions and derivative formulas are listed in joint_constraint.h.
#include "dynamics/joint_constraint.h"

#include <cmath>

#include <Eigen/SVD>

#include "core/check.h"
#include "core/quaternion.h"

namespace ms {
namespace {

// Orthonormal axis frame [V1 V2 V3] from the SVD of skew(axis) (B.5–B.6); V3 = axis itself.
Mat3 axisFrame(const Vec3& axis) {
  const Vec3 a = axis.normalized();
  Eigen::JacobiSVD<Mat3> svd(quat::skew(a), Eigen::ComputeFullV);
  Mat3 V = svd.matrixV();
  Vec3 v1 = V.col(0), v2 = V.col(1);
  // Make [v1 v2 a] right-handed.
  if (v1.cross(v2).dot(a) < 0) v2 = -v2;
  Mat3 out;
  out.col(0) = v1;
  out.col(1) = v2;
  out.col(2) = a;
  return out;
}

// Rows of the selection matrix for n constrained directions (Table B.1), transposed into rows.
Mat3 selectionRows(const Mat3& axes, int n) {
  Mat3 D = Mat3::Zero();
  if (n == 1) D.row(0) = axes.col(2).transpose();
  if (n == 2) D.topRows<2>() = axes.leftCols<2>().transpose();
  if (n == 3) D.setIdentity();
  return D;
}

// Rows of the nullspace matrix for f free directions.
Mat3 nullspaceRows(const Mat3& axes, int f) {
  Mat3 C = Mat3::Zero();
  if (f == 1) C.row(0) = axes.col(2).transpose();
  if (f == 2) C.topRows<2>() = axes.leftCols<2>().transpose();
  if (f == 3) C.setIdentity();
  return C;
}

// Shared kinematic quantities of the two general constraints at one configuration.
struct Kin {
  Mat3 Ra, Rb, RoTRaT;
  Vec3 e, RaTe, gT;
  Vec4 u, p;  // u = q_a⁻¹ q_b, p = q_off⁻¹ u
};

Kin kinematics(const JointGeometry& j, const JointPoses& z) {
  Kin k;
  k.Ra = quat::rotation(z.qa);
  k.Rb = quat::rotation(z.qb);
  k.RoTRaT = j.Ro.transpose() * k.Ra.transpose();
  k.e = z.xb + k.Rb * j.pb - z.xa;
  k.RaTe = k.Ra.transpose() * k.e;
  k.gT = j.Ro.transpose() * (k.RaTe - j.pa);
  k.u = quat::mul(quat::conj(z.qa), z.qb);
  k.p = quat::mul(quat::conj(j.qoff), k.u);
  return k;
}

// ∂g_T/∂θ_a, ∂g_T/∂θ_b and ∂p/∂θ_a, ∂p/∂θ_b (see header), written out with 3×3 blocks:
//   ∂p/∂θ_b = ½ [−p_vᵀ; p_s I + p_v^×]
//   ∂p/∂θ_a = −½ L(o) R(u) Vᵀ with o = q_off⁻¹:
//     = ½ [o_s u_vᵀ + o_vᵀ R_u ; −((o_s I + o_v^×) R_u − o_v u_vᵀ)],  R_u = u_s I − u_v^×
void kinematicDerivatives(const JointGeometry& j, const Kin& k, Mat3& dTtha, Mat3& dTthb, Mat43& dPtha,
                          Mat43& dPthb) {
  dTtha = j.Ro.transpose() * quat::skew(k.RaTe);
  dTthb = -k.RoTRaT * k.Rb * quat::skew(j.pb);
  // Child: δp = ½ L(p) Vᵀ δθ.
  dPthb.row(0) = -0.5 * k.p.tail<3>().transpose();
  dPthb.bottomRows<3>() = 0.5 * (k.p(0) * Mat3::Identity() + quat::skew(k.p.tail<3>()));
  // Parent: δp = −½ L(o) R(u) Vᵀ δθ, R(u)Vᵀ = [−u_vᵀ; u_s I − u_v^×].
  const double os = j.qoff(0);
  const Vec3 ov = -j.qoff.tail<3>();
  const Vec3 uv = k.u.tail<3>();
  const Mat3 Ru = k.u(0) * Mat3::Identity() - quat::skew(uv);
  dPtha.row(0) = 0.5 * (os * uv.transpose() + ov.transpose() * Ru);
  dPtha.bottomRows<3>() = -0.5 * ((os * Mat3::Identity() + quat::skew(ov)) * Ru - ov * uv.transpose());
}

}  // namespace

JointGeometry makeJointGeometry(JointType type, int parent, int child, const Vec3& pa, const Vec3& pb,
                                const Vec3& axis, const Vec4& qoff) {
  MS_ASSERT(axis.norm() > 0, "joint axis must be non-zero (validated by compile)");
  const JointKind& kind = jointKind(type);
  JointGeometry j;
  j.type = type;
  j.parent = parent;
  j.child = child;
  j.pa = pa;
  j.pb = pb;
  j.qoff = qoff.normalized();
  j.Ro = quat::rotation(j.qoff);
  j.axes = axisFrame(axis);
  j.nT = kind.translationalConstrained;
  j.nR = kind.rotationalConstrained;
  j.fT = kind.freeTranslational();
  j.fR = kind.freeRotational();
  j.DT = selectionRows(j.axes, j.nT);
  j.DR = selectionRows(j.axes, j.nR);
  j.CT = nullspaceRows(j.axes, j.fT);
  // Rotational free coordinates: the angle about V3 (1) or the rotation vector in the joint frame (3).
  j.CR = nullspaceRows(j.axes, j.fR);
  return j;
}

Vec6 jointConstraintValue(const JointGeometry& j, const JointPoses& z) {
  const Kin k = kinematics(j, z);
  // Stack [D_Tᵀ g_T; D_Rᵀ vec(p)] and pad with zeros.
  Vec6 g = Vec6::Zero();
  const Vec3 gt = j.DT * k.gT, gr = j.DR * k.p.tail<3>();
  for (int r = 0; r < j.nT; ++r) g(r) = gt(r);
  for (int r = 0; r < j.nR; ++r) g(j.nT + r) = gr(r);
  return g;
}

void evalJointConstraint(const JointGeometry& j, const JointPoses& z, JointConstraintEval& out) {
  const Kin k = kinematics(j, z);
  Mat3 dTtha, dTthb;
  Mat43 dPtha, dPthb;
  kinematicDerivatives(j, k, dTtha, dTthb, dPtha, dPthb);
  out.g.setZero();
  out.dxa.setZero();
  out.dtha.setZero();
  out.dxb.setZero();
  out.dthb.setZero();
  // Translational rows D_Tᵀ g_T and their Jacobians.
  for (int r = 0; r < j.nT; ++r) {
    const Eigen::RowVector3d d = j.DT.row(r);
    out.g(r) = d * k.gT;
    out.dxa.row(r) = -d * k.RoTRaT;
    out.dxb.row(r) = d * k.RoTRaT;
    out.dtha.row(r) = d * dTtha;
    out.dthb.row(r) = d * dTthb;
  }
  // Rotational rows D_Rᵀ vec(p) and their Jacobians.
  for (int r = 0; r < j.nR; ++r) {
    const Eigen::RowVector3d d = j.DR.row(r);
    out.g(j.nT + r) = d * k.p.tail<3>();
    out.dtha.row(j.nT + r) = d * dPtha.bottomRows<3>();
    out.dthb.row(j.nT + r) = d * dPthb.bottomRows<3>();
  }
}

void evalJointMinimal(const JointGeometry& j, const JointPoses& z, JointMinimalEval& out) {
  const Kin k = kinematics(j, z);
  Mat3 dTtha, dTthb;
  Mat43 dPtha, dPthb;
  kinematicDerivatives(j, k, dTtha, dTthb, dPtha, dPthb);
  out.theta.setZero();
  out.dxa.setZero();
  out.dtha.setZero();
  out.dxb.setZero();
  out.dthb.setZero();
  // Translational coordinates C_Tᵀ g_T.
  for (int r = 0; r < j.fT; ++r) {
    const Eigen::RowVector3d c = j.CT.row(r);
    out.theta(r) = c * k.gT;
    out.dxa.row(r) = -c * k.RoTRaT;
    out.dxb.row(r) = c * k.RoTRaT;
    out.dtha.row(r) = c * dTtha;
    out.dthb.row(r) = c * dTthb;
  }
  if (j.fR == 0) return;
  // Rotational coordinates from p with its sign canonicalised (p_s ≥ 0).
  const double sgn = k.p(0) < 0 ? -1.0 : 1.0;
  const Vec4 p = sgn * k.p;
  Eigen::Matrix<double, 3, 4> dr;  // ∂(coordinates)/∂p, first fR rows used
  dr.setZero();
  if (j.fR == 1) {
    // Angle about V3: θ = 2 atan2(a·p_v, p_s).
    const Vec3 a = j.axes.col(2);
    const double s = a.dot(p.tail<3>()), c = p(0), den = s * s + c * c;
    out.theta(j.fT) = 2.0 * std::atan2(s, c);
    dr(0, 0) = -2.0 * s / den;
    dr.block<1, 3>(0, 1) = (2.0 * c / den) * a.transpose();
  } else {
    // Rotation vector of p in the joint frame.
    out.theta.segment<3>(j.fT) = quat::toRotationVector(p);
    dr = quat::rotationVectorJacobian(p);
  }
  const Mat43 dpa = sgn * dPtha, dpb = sgn * dPthb;
  for (int r = 0; r < j.fR; ++r) {
    out.dtha.row(j.fT + r) = dr.row(r) * dpa;
    out.dthb.row(j.fT + r) = dr.row(r) * dpb;
  }
}

void restrictConstraintRows(JointGeometry& j, const bool keep[6]) {
  Mat3 DT = Mat3::Zero(), DR = Mat3::Zero();
  int nT = 0, nR = 0;
  for (int r = 0; r < j.nT; ++r)
    if (keep[r]) DT.row(nT++) = j.DT.row(r);
  for (int r = 0; r < j.nR; ++r)
    if (keep[j.nT + r]) DR.row(nR++) = j.DR.row(r);
  j.DT = DT;
  j.DR = DR;
  j.nT = nT;
  j.nR = nR;
}

void jointForwardKinematics(const JointGeometry& j, const Vec3& xa, const Vec4& qa, const Vec6& theta,
                            Vec3& xb, Vec4& qb) {
  // Relative rotation in the joint frame from the rotational coordinates.
  Vec3 rotvec = Vec3::Zero();
  if (j.fR == 1) rotvec = j.axes.col(2) * theta(j.fT);
  if (j.fR == 3) rotvec = theta.segment<3>(j.fT);
  qb = quat::mul(quat::mul(qa, j.qoff), quat::fromRotationVector(rotvec));
  // Relative translation in the joint frame from the translational coordinates: g_T = C_T t.
  Vec3 gT = Vec3::Zero();
  for (int r = 0; r < j.fT; ++r) gT += j.CT.row(r).transpose() * theta(r);
  const Mat3 Ra = quat::rotation(qa);
  xb = xa + Ra * (j.pa + j.Ro * gT) - quat::rotation(qb) * j.pb;
}

}  // namespace ms
