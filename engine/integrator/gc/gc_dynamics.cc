// SPDX-License-Identifier: GPL-3.0-or-later
// Derivation: gc_dynamics.h (twist form of Johnson & Murphey 2009 §III–IV; ABA: Featherstone 2008).
#include "integrator/gc/gc_dynamics.h"

#include <algorithm>

#include "dynamics/joint_constraint.h"

namespace ms::gc {

void Terms::resize(const GcTree& t) {
  const size_t n = t.coords.size();
  P.assign(n, Vec6::Zero());
  Z.assign(n, Vec6::Zero());
  Fg.assign(n, Vec6::Zero());
  Gc.assign(n, Mat6::Zero());
  Mc.assign(n, Vec3::Zero());
  m.setZero(n);
  p.setZero(n);
  Lq.setZero(n);
}

void lagrangianGradients(const GcTree& t, const Kinematics& k, const Vec3& gravity, Terms& out, bool composite) {
  const int n = t.size();
  const CompiledSystem& sys = *t.sys;
  for (int i = 0; i < n; ++i) {
    out.P[i].setZero();
    out.Mc[i].setZero();
    if (composite) out.Gc[i].setZero();
  }
  out.m.setZero();
  // Each body's momentum, first moment of mass and inertia on the coordinate carrying it.
  for (size_t b = 0; b < t.bodyCoord.size(); ++b) {
    const int c = t.bodyCoord[b];
    if (c < 0) continue;
    const double mb = sys.bodies[b].mass;
    out.P[c].noalias() += k.G[b] * k.V[c];
    out.Mc[c] += mb * k.x[b];
    out.m(c) += mb;
    if (composite) out.Gc[c] += k.G[b];
  }
  // Subtree sums, leaves to root (children have larger indices than their parents).
  for (int i = n - 1; i >= 0; --i) {
    const int p = t.coords[i].parent;
    if (p < 0) continue;
    out.P[p] += out.P[i];
    out.Mc[p] += out.Mc[i];
    out.m(p) += out.m(i);
    if (composite) out.Gc[p] += out.Gc[i];
  }
  // ∂L/∂q̇_i = ξ_iᵀP_i and ∂L/∂q_i = −P_iᵀZ_i + ξ_iᵀFg_i.
  for (int i = 0; i < n; ++i) {
    out.Z[i] = ad(k.xi[i], k.V[i]);
    out.Fg[i] << out.Mc[i].cross(gravity), out.m(i) * gravity;
    out.p(i) = k.xi[i].dot(out.P[i]);
    out.Lq(i) = -out.P[i].dot(out.Z[i]) + k.xi[i].dot(out.Fg[i]);
  }
}

void lagrangianHessians(const GcTree& t, const Kinematics& k, const Terms& s, const Vec3& g, MatX& M, MatX& A, MatX& H) {
  const int n = t.size();
  M.setZero(n, n);
  A.setZero(n, n);
  H.setZero(n, n);
  for (int i = 0; i < n; ++i) {
    const Vec6& xi = k.xi[i];
    const Vec3 wi = xi.head<3>(), vi = xi.tail<3>();
    const Vec6 Gxi = s.Gc[i] * xi, GZi = s.Gc[i] * s.Z[i];
    const Vec6 Y = adT(xi, s.P[i]) + GZi;
    // Gravity: the subtree's first moment moved by coordinate i itself.
    const Vec3 ownMove = (wi.cross(s.Mc[i]) + s.m(i) * vi).cross(g);
    // Every k upstream of or equal to i.
    for (int c = i; c >= 0; c = t.coords[c].parent) {
      const Vec6& xk = k.xi[c];
      const Vec3 wk = xk.head<3>(), vk = xk.tail<3>();
      M(c, i) = xk.dot(Gxi);
      M(i, c) = M(c, i);
      A(c, i) = -xk.dot(Y);
      if (c != i) A(i, c) = -s.Z[c].dot(Gxi);
      // Kinetic part (symmetric).
      const double T2 = s.Z[c].dot(GZi) + s.P[i].dot(ad(xi, s.Z[c]));
      // Gravity part: (i, k) and (k, i).
      const double Vik = ad(xk, xi).dot(s.Fg[i]) + wi.dot((wk.cross(s.Mc[i]) + s.m(i) * vk).cross(g));
      H(i, c) += T2 + Vik;
      if (c != i) H(c, i) += T2 + wk.dot(ownMove);
    }
  }
}

void AbaWork::resize(const GcTree& t) {
  const size_t n = t.coords.size();
  IA.assign(n, Mat6::Zero());
  pA.assign(n, Vec6::Zero());
  U.assign(n, Vec6::Zero());
  a.assign(n, Vec6::Zero());
  D.setZero(n);
  u.setZero(n);
}

bool factorMass(const GcTree& t, const Kinematics& k, AbaWork& w) {
  const int n = t.size();
  for (int i = 0; i < n; ++i) w.IA[i].setZero();
  for (size_t b = 0; b < t.bodyCoord.size(); ++b)
    if (t.bodyCoord[b] >= 0) w.IA[t.bodyCoord[b]] += k.G[b];
  // Articulated inertias, leaves to root.
  for (int i = n - 1; i >= 0; --i) {
    w.U[i].noalias() = w.IA[i] * k.xi[i];
    w.D(i) = k.xi[i].dot(w.U[i]);
    const double scale = std::max(1e-300, w.IA[i].diagonal().cwiseAbs().maxCoeff());
    if (!(w.D(i) > 1e-13 * scale)) return false;
    const int p = t.coords[i].parent;
    if (p >= 0) w.IA[p].noalias() += w.IA[i] - w.U[i] * w.U[i].transpose() / w.D(i);
  }
  return true;
}

void solveFactoredMass(const GcTree& t, const Kinematics& k, const VecX& tau, VecX& out, AbaWork& w) {
  const int n = t.size();
  for (int i = 0; i < n; ++i) w.pA[i].setZero();
  // Bias forces of the applied generalized forces, leaves to root.
  for (int i = n - 1; i >= 0; --i) {
    w.u(i) = tau(i) - k.xi[i].dot(w.pA[i]);
    const int p = t.coords[i].parent;
    if (p >= 0) w.pA[p] += w.pA[i] + w.U[i] * (w.u(i) / w.D(i));
  }
  // Accelerations, root to leaves.
  for (int i = 0; i < n; ++i) {
    const int p = t.coords[i].parent;
    const Vec6 ap = p >= 0 ? w.a[p] : Vec6::Zero();
    out(i) = (w.u(i) - w.U[i].dot(ap)) / w.D(i);
    w.a[i] = ap + k.xi[i] * out(i);
  }
}

bool solveMass(const GcTree& t, const Kinematics& k, const VecX& tau, VecX& out, AbaWork& w) {
  if (!factorMass(t, k, w)) return false;
  solveFactoredMass(t, k, tau, out, w);
  return true;
}

void generalizedForces(const GcTree& t, const Kinematics& k, const std::vector<Vec6, Eigen::aligned_allocator<Vec6>>& W,
                       std::vector<Vec6, Eigen::aligned_allocator<Vec6>>& acc, VecX& Q) {
  const int n = t.size();
  for (int i = 0; i < n; ++i) acc[i].setZero();
  for (size_t b = 0; b < t.bodyCoord.size(); ++b)
    if (t.bodyCoord[b] >= 0) acc[t.bodyCoord[b]] += W[b];
  for (int i = n - 1; i >= 0; --i) {
    Q(i) = k.xi[i].dot(acc[i]);
    if (t.coords[i].parent >= 0) acc[t.coords[i].parent] += acc[i];
  }
}

void loopConstraints(const GcTree& t, const Kinematics& k, const State& poses, VecX& h, MatX* Dh) {
  const CompiledSystem& sys = *t.sys;
  if (Dh) Dh->setZero(t.numLoopRows, t.size());
  JointConstraintEval e;
  for (size_t l = 0; l < t.loopJoints.size(); ++l) {
    const JointGeometry& geo = sys.joints[t.loopJoints[l]].geo;
    const int row = t.loopRow[l], r = geo.constrained();
    const JointPoses z = jointPoses(geo, poses);
    if (!Dh) {
      h.segment(row, r) = jointConstraintValue(geo, z).head(r);
      continue;
    }
    evalJointConstraint(geo, z, e);
    h.segment(row, r) = e.g.head(r);
    // ∂g/∂q_c = ∂g/∂x (ω_c × x + v_c) + ∂g/∂θ (Rᵀ ω_c) for each coordinate c upstream of a side.
    auto side = [&](int body, const Mat6x3& dx, const Mat6x3& dth) {
      if (body < 0) return;
      const Vec3& xb = k.x[body];
      const Mat3& Rb = k.R[body];
      for (int c = t.bodyCoord[body]; c >= 0; c = t.coords[c].parent) {
        const Vec3 w = k.xi[c].head<3>();
        const Vec3 pointRate = w.cross(xb) + k.xi[c].tail<3>();
        const Vec3 bodyRate = Rb.transpose() * w;
        Dh->block(row, c, r, 1) += (dx * pointRate + dth * bodyRate).head(r);
      }
    };
    side(geo.parent, e.dxa, e.dtha);
    side(geo.child, e.dxb, e.dthb);
  }
}

}  // namespace ms::gc
