// SPDX-License-Identifier: GPL-3.0-or-later
// Joint constraints of Brüdigam et al. 2023, Appendix B.
//
// Joint frame: the parent frame rotated by the offset q_off (as a URDF joint frame). The axis V3
// and its perpendiculars V1, V2 (B.5–B.6) are expressed in the joint frame.
//   translational (B.1, rotated into the joint frame):
//       g_T = Q(q_off)ᵀ ( Q(q_a)ᵀ (x_b + Q(q_b) p_b − x_a) − p_a )
//   rotational (B.3):  g_R = V L(q_off)ᵀ L(q_a)ᵀ q_b = vec(q_off⁻¹ · q_a⁻¹ · q_b)
// Constraint rows (B.7a): [D_Tᵀ g_T; D_Rᵀ g_R] with D from Table B.1 (none, V3, V1:2, I).
// Minimal coordinates (B.7b): translational C_Tᵀ g_T; rotational: the angle about V3
// (2·atan2(V3·p_v, p_s)) or the rotation vector of p = q_off⁻¹q_a⁻¹q_b in the joint frame.
//
// Derivatives are taken with respect to x (world) and θ, a small body-frame rotation
// (q → q·[1, δθ/2]). The paper's rotational Jacobian (A.8) is 2·∂/∂θ.
//   ∂g_T/∂x_b = Q_oᵀQ_aᵀ,  ∂g_T/∂x_a = −Q_oᵀQ_aᵀ
//   ∂g_T/∂θ_b = −Q_oᵀQ_aᵀQ_b p_b^×,  ∂g_T/∂θ_a = Q_oᵀ (Q_aᵀ e)^×,  e = x_b + Q_b p_b − x_a
//   ∂p/∂θ_b = ½ L(p) Vᵀ,  ∂p/∂θ_a = −½ L(q_off⁻¹) R(q_a⁻¹q_b) Vᵀ
// A joint to the world has x_a = 0, q_a = 1 and no parent columns.
#pragma once

#include "core/types.h"
#include "model/joint_kinds.h"

namespace ms {

using Mat6x3 = Eigen::Matrix<double, 6, 3>;

// Everything about one joint that is fixed at compile time.
struct JointGeometry {
  JointType type = JointType::Revolute;
  int parent = -1, child = 0;  // body indices, -1 = world
  Vec3 pa = Vec3::Zero(), pb = Vec3::Zero();
  Vec4 qoff = Vec4(1, 0, 0, 0);
  Mat3 Ro = Mat3::Identity();   // Q(q_off)
  Mat3 axes = Mat3::Identity(); // columns V1, V2, V3 (joint frame)
  int nT = 3, nR = 2;           // constrained translational / rotational rows
  int fT = 0, fR = 1;           // free translational / rotational coordinates
  // Rows selecting constrained directions (first nT / nR rows used) and free directions.
  Mat3 DT = Mat3::Identity(), DR = Mat3::Identity(), CT = Mat3::Identity(), CR = Mat3::Identity();
  int constrained() const { return nT + nR; }
  int freeCoordinates() const { return fT + fR; }
};

JointGeometry makeJointGeometry(JointType type, int parent, int child, const Vec3& pa, const Vec3& pb,
                                const Vec3& axis, const Vec4& qoff);

// Pose pair of the two connected bodies (world: x = 0, q = 1).
struct JointPoses {
  Vec3 xa, xb;
  Vec4 qa, qb;
};

// Constraint values and Jacobians at one configuration, padded to 6 rows (rows ≥ constrained() are 0).
struct JointConstraintEval {
  Vec6 g;
  Mat6x3 dxa, dtha, dxb, dthb;  // ∂g/∂x, ∂g/∂θ for parent (a) and child (b)
};

// Minimal coordinates and their Jacobians at one configuration, padded to 6 (rows ≥ free() are 0).
struct JointMinimalEval {
  Vec6 theta;
  Mat6x3 dxa, dtha, dxb, dthb;
};

void evalJointConstraint(const JointGeometry& j, const JointPoses& z, JointConstraintEval& out);
void evalJointMinimal(const JointGeometry& j, const JointPoses& z, JointMinimalEval& out);
// Constraint values only (cheaper; used for metrics and projections).
Vec6 jointConstraintValue(const JointGeometry& j, const JointPoses& z);

// Keep only the constraint rows with keep[r] (r < constrained(), translational rows first); used to
// drop rows that are redundant with the rest of the mechanism.
void restrictConstraintRows(JointGeometry& j, const bool keep[6]);

// Child pose that realises minimal coordinates `theta` (size freeCoordinates()) given the parent pose.
void jointForwardKinematics(const JointGeometry& j, const Vec3& xa, const Vec4& qa, const Vec6& theta,
                            Vec3& xb, Vec4& qb);

}  // namespace ms
