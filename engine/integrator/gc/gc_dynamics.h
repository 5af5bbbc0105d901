// SPDX-License-Identifier: GPL-3.0-or-later
// The Lagrangian of a tree in generalized coordinates, its derivatives, the articulated-body solve
// and the loop constraints, all on the twist kinematics of gc_tree.h.
//
// L(q, q̇) = Σ_b ½ V_bᵀ G_b V_b + Σ_b m_b gᵀ c_b. With the subtree sums (i's subtree: every body
// downstream of coordinate i)
//     P_i = Σ_{b ∈ sub i} G_b V_b  (momentum),  Gc_i = Σ G_b,  Mc_i = Σ m_b c_b,  m_i = Σ m_b,
//     Fg_i = (Mc_i × g; m_i g)  (gravity wrench),  Z_i = ad_{ξ_i} V_i,
// the gradients are (DRNEA: one pass down for V, one up for the sums; O(n))
//     ∂L/∂q̇_i = ξ_iᵀ P_i,      ∂L/∂q_i = −P_iᵀ Z_i + ξ_iᵀ Fg_i
// (∂G_b/∂q_i = −ad_iᵀG_b − G_b ad_i and ∂V_b/∂q_i = ad_i(V_b − V_i) give the first). The second
// derivatives, for k upstream of or equal to i (zero for unrelated coordinates):
//     M_ki = M_ik = ξ_kᵀ Gc_i ξ_i
//     ∂(∂L/∂q̇_k)/∂q_i = −ξ_kᵀ (ad_iᵀ P_i + Gc_i Z_i),   ∂(∂L/∂q̇_i)/∂q_k = −ξ_iᵀ Gc_i Z_k  (k ≠ i)
//     ∂²T/∂q_i∂q_k = Z_kᵀ Gc_i Z_i + P_iᵀ ad_i Z_k  (symmetric)
//     ∂²(gᵀΣmc)/∂q_i∂q_k = (ad_k ξ_i)ᵀ Fg_i + ω_i·((ω_k × Mc_i + m_i v_k) × g),
//     ∂²(gᵀΣmc)/∂q_k∂q_i = ω_k·((ω_i × Mc_i + m_i v_i) × g)  (k ≠ i)
// These are trep's ∂L/∂q, ∂²L/∂q∂q, ∂²L/∂q̇∂q (seed 001 §IV-B) evaluated by subtree sums instead of
// frame by frame. Finite-difference checks: tests/engine/tst_gc_integrators.cpp.
//
// Articulated-body solve (Featherstone's ABA at zero velocity and gravity, in the world frame):
// M⁻¹τ in O(n), used by RIQN for its update and by both integrators to turn momenta into rates.
#pragma once

#include "integrator/gc/gc_tree.h"

namespace ms::gc {

struct Terms {
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> P, Z, Fg;
  std::vector<Mat6, Eigen::aligned_allocator<Mat6>> Gc;  // filled with composite = true
  std::vector<Vec3, Eigen::aligned_allocator<Vec3>> Mc;
  VecX m;   // subtree mass
  VecX p;   // ∂L/∂q̇
  VecX Lq;  // ∂L/∂q
  void resize(const GcTree& t);
};

// DRNEA: the gradients of L at the kinematics k (forwardKinematics and velocities done).
void lagrangianGradients(const GcTree& t, const Kinematics& k, const Vec3& gravity, Terms& out, bool composite);

// Dense second derivatives after lagrangianGradients(…, composite = true): the mass matrix M,
// A(j, i) = ∂(∂L/∂q̇_j)/∂q_i and H = ∂²L/∂q∂q (gravity included).
void lagrangianHessians(const GcTree& t, const Kinematics& k, const Terms& terms, const Vec3& gravity, MatX& M, MatX& A,
                        MatX& H);

// Workspace of the articulated-body solve.
struct AbaWork {
  std::vector<Mat6, Eigen::aligned_allocator<Mat6>> IA;
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> pA, U, a;
  VecX D, u;
  void resize(const GcTree& t);
};
// out = M(q)⁻¹ tau at the configuration of k (forwardKinematics done). False when an articulated
// inertia along an axis is not positive (a massless subtree or a chart singularity).
bool solveMass(const GcTree& t, const Kinematics& k, const VecX& tau, VecX& out, AbaWork& w);
// The same in two parts: the articulated inertias of the configuration (6×6 work per axis), then any
// number of solves with them (6-vector work per axis). solveFactoredMass needs the axes ξ of the
// configuration factorMass saw.
bool factorMass(const GcTree& t, const Kinematics& k, AbaWork& w);
void solveFactoredMass(const GcTree& t, const Kinematics& k, const VecX& tau, VecX& out, AbaWork& w);

// Generalized forces of world wrenches W_b (about the origin, (torque; force)) on the bodies:
// Q_i = ξ_iᵀ Σ_{b ∈ sub i} W_b. `acc` is per-coordinate workspace.
void generalizedForces(const GcTree& t, const Kinematics& k, const std::vector<Vec6, Eigen::aligned_allocator<Vec6>>& W,
                       std::vector<Vec6, Eigen::aligned_allocator<Vec6>>& acc, VecX& Q);

// Loop constraints h(q) (the constraint rows of every loop joint, joint_constraint.h) at the poses
// written in `poses` (writeBodies of k), and their Jacobian Dh = ∂h/∂q when Dh != nullptr.
void loopConstraints(const GcTree& t, const Kinematics& k, const State& poses, VecX& h, MatX* Dh);

}  // namespace ms::gc
