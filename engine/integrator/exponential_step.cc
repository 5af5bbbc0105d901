// SPDX-License-Identifier: GPL-3.0-or-later
// The exponential integrator (Hammoud et al. 2021 (9)–(11), (16), (23)–(30)); see exponential_step.h.
#include "integrator/exponential_step.h"

#include <cmath>
#include <utility>

#include <unsupported/Eigen/MatrixFunctions>

#include "core/denormals.h"
#include "core/quaternion.h"
#include "system/initial_conditions.h"

namespace ms {
void contactSpaceIntegrals(const MatX& A, const VecX& b, const VecX& x0, double t, VecX& xint, VecX& xint2) {
  const int n = int(A.rows());
  // Ā (30): the state x extended by three clock states whose flow produces the integrals.
  MatX abar = MatX::Zero(n + 3, n + 3);
  abar.topLeftCorner(n, n) = A;
  abar.block(0, n, n, 1) = b;
  abar.block(0, n + 1, n, 1) = x0;
  abar(n, n + 1) = 1;
  abar(n + 1, n + 2) = 1;
  abar *= t;
  const MatX E = abar.exp();  // scaling and squaring with Padé (Higham 2005); allocates
  xint = E.block(0, n + 1, n, 1);
  xint2 = E.block(0, n + 2, n, 1);
}

bool contactSpaceIntegralsModal(const Eigen::Ref<const MatX>& ups, double K, double B, const Eigen::Ref<const VecX>& pdd,
                                const Eigen::Ref<const VecX>& x0, double t, ModalWork& w, Eigen::Ref<VecX> xint,
                                Eigen::Ref<VecX> xint2) {
  const int r = int(ups.rows());
  if (r > kModalCapacity) return false;
  // Υ = Q Λ Qᵀ (Υ = J M⁻¹ Jᵀ is symmetric positive semi-definite; symmetrised against round-off).
  w.ups = 0.5 * (ups + ups.transpose());
  w.eig.compute(w.ups);
  if (w.eig.info() != Eigen::Success) return false;
  const auto& Q = w.eig.eigenvectors();
  // Modal initial state and forcing: y = Qᵀ Δp, ẏ = Qᵀ Δṗ, c = Qᵀ p̈_free.
  w.y0.noalias() = Q.transpose() * x0.head(r);
  w.v0.noalias() = Q.transpose() * x0.tail(r);
  w.c.noalias() = Q.transpose() * pdd;
  for (auto* v : {&w.yi, &w.vi, &w.yi2, &w.vi2}) v->resize(r);  // fixed capacity: no allocation
  for (int i = 0; i < r; ++i) {
    // Each mode: ÿ = −λ(K y + B ẏ) + c, integrated exactly by the 5 × 5 form of (29)–(30).
    const double lam = std::max(0.0, w.eig.eigenvalues()(i));
    Eigen::Matrix<double, 5, 5> abar = Eigen::Matrix<double, 5, 5>::Zero();
    abar(0, 1) = 1;
    abar(1, 0) = -lam * K;
    abar(1, 1) = -lam * B;
    abar(1, 2) = w.c(i);
    abar(0, 3) = w.y0(i);
    abar(1, 3) = w.v0(i);
    abar(2, 3) = 1;
    abar(3, 4) = 1;
    abar *= t;
    const Eigen::Matrix<double, 5, 5> E = abar.exp();
    w.yi(i) = E(0, 3);
    w.vi(i) = E(1, 3);
    w.yi2(i) = E(0, 4);
    w.vi2(i) = E(1, 4);
  }
  // Back to contact space.
  xint.head(r).noalias() = Q * w.yi.head(r);
  xint.segment(r, r).noalias() = Q * w.vi.head(r);
  xint2.head(r).noalias() = Q * w.yi2.head(r);
  xint2.segment(r, r).noalias() = Q * w.vi2.head(r);
  return xint.head(2 * r).allFinite() && xint2.head(2 * r).allFinite();
}

// The dense form: Ā (30) for A = [0, I; −ΥK, −ΥB], b = [0; p̈_free], its exponential (29) and the two
// columns x_int, x_int2 (first 2r rows), in matrices of type Mat (fixed capacity or dynamic).
template <typename Mat>
void denseIntegrals(const Eigen::Ref<const MatX>& ups, double K, double B, const Eigen::Ref<const VecX>& pdd,
                    const Eigen::Ref<const VecX>& x0, double t, Mat& abar, Mat& E, VecX& xint, VecX& xint2) {
  const int r = int(ups.rows()), n = 2 * r;
  abar.setZero(n + 3, n + 3);
  abar.block(0, r, r, r).setIdentity();
  abar.block(r, 0, r, r) = -K * ups;
  abar.block(r, r, r, r) = -B * ups;
  abar.block(r, n, r, 1) = pdd;
  abar.block(0, n + 1, n, 1) = x0;
  abar(n, n + 1) = 1;
  abar(n + 1, n + 2) = 1;
  abar *= t;
  E = abar.exp();
  xint.head(n) = E.block(0, n + 1, n, 1);
  xint2.head(n) = E.block(0, n + 2, n, 1);
}

ExponentialIntegrator::ExponentialIntegrator(std::shared_ptr<const CompiledSystem> system,
                                             const IntegratorOptions& options)
    : sys_(std::move(system)), opt_(options), dyn_(sys_) {
  const int nb = int(sys_->bodies.size()), nj = int(sys_->joints.size()), nc = int(sys_->contacts.size());
  points_.reserve(nc);
  for (VecX* v : {&u_, &accFree_, &acc1_, &acc2_, &fcol_, &col_, &f1_, &f2_}) v->setZero(6 * nb);
  c_.setZero(6 * nj);
  pddFree_.setZero(3 * nc);
  x0_.setZero(6 * nc);
  xint_.setZero(6 * nc);
  xint2_.setZero(6 * nc);
  ups_.setZero(3 * nc, 3 * nc);
}

StepReport ExponentialIntegrator::step(const StepSettings& st, const Inputs& in, State& state) {
  const FlushDenormalsScope noSubnormals;
  StepReport rep;
  rep.iterations = 3;  // KKT solves: ν̇_free, (24), (26); plus 3 per point in contact for Υ
  const double dt = st.dt, K = opt_.contactStiffness, B = opt_.contactDamping;
  const int nb = int(sys_->bodies.size());
  if (!dyn_.factor(state)) {
    rep.status = StepStatus::SingularMatrix;
    rep.message = "the KKT matrix of the joints is singular";
    return rep;
  }
  // 1. Free accelerations.
  dyn_.appliedForces(st, in, state, u_);
  dyn_.constraintRhs(state, 0, 0, c_);
  dyn_.solve(u_, &c_, accFree_);
  // 2. Points in contact, Υ and p̈_free.
  evaluateSoftContacts(*sys_, state, points_);
  const int m = int(points_.size());
  rep.iterations += 3 * m;
  f1_ = u_;
  f2_ = u_;
  if (m > 0) {
    const int n = 6 * m, r = 3 * m;
    for (int i = 0; i < m; ++i) {
      for (int d = 0; d < 3; ++d) {
        // Column 3i+d of Υ: the contact accelerations caused by a unit force along world axis d at point i.
        addPointForce(points_[i], Vec3::Unit(d), fcol_);
        dyn_.solve(fcol_, nullptr, col_);
        for (int j = 0; j < m; ++j) ups_.block<3, 1>(3 * j, 3 * i + d) = pointAcceleration(points_[j], col_);
        fcol_.segment<6>(6 * points_[i].body).setZero();
        if (points_[i].bodyA >= 0) fcol_.segment<6>(6 * points_[i].bodyA).setZero();
      }
      pddFree_.segment<3>(3 * i) = pointAcceleration(points_[i], accFree_) + points_[i].bias;
      x0_.segment<3>(3 * i) = points_[i].dp;
      x0_.segment<3>(r + 3 * i) = points_[i].dpdot;
    }
    // λ = C D x with C = I (sticking) or (n − μŝ)nᵀ (slipping, see SoftPoint::forceMap): ΥC, by
    // 3 × 3 blocks (fixed size: no temporary on the heap).
    bool anySlipping = false;
    for (int j = 0; j < m; ++j) {
      if (!points_[j].slipping) continue;
      anySlipping = true;
      const Mat3 C = points_[j].forceMap();
      for (int i = 0; i < m; ++i) {
        const Mat3 blk = ups_.block<3, 3>(3 * i, 3 * j);
        ups_.block<3, 3>(3 * i, 3 * j).noalias() = blk * C;
      }
    }
    // 3. The integrals of x over the step. Every point sticking: Υ is symmetric, and the modes of
    // ΥK, ΥB integrate one by one (contactSpaceIntegralsModal). Otherwise Ā (30) for
    // A = [0, I; −ΥK, −ΥB], b = [0; p̈_free] (11), and e^{δt Ā} (29), on workspace of fixed capacity.
    bool done = false;
    if (!anySlipping)
      done = contactSpaceIntegralsModal(ups_.topLeftCorner(r, r), K, B, pddFree_.head(r), x0_.head(n), dt, modal_,
                                        xint_.head(n), xint2_.head(n));
    if (!done && n + 3 <= kDenseCapacity) {
      denseIntegrals(ups_.topLeftCorner(r, r), K, B, pddFree_.head(r), x0_.head(n), dt, abarCap_, expCap_, xint_,
                     xint2_);
      done = true;
    }
    if (!done) {
      // More points in contact than the fixed workspace holds: dynamic matrices (allocates).
      MatX E;
      denseIntegrals(ups_.topLeftCorner(r, r), K, B, pddFree_.head(r), x0_.head(n), dt, abar_, E, xint_, xint2_);
    }
    // 4. Average forces (23), (25), projected onto the cones, applied through Jᵀ.
    for (int i = 0; i < m; ++i) {
      const SoftPoint& p = points_[i];
      Vec3 avg = (-K * xint_.segment<3>(3 * i) - B * xint_.segment<3>(r + 3 * i)) / dt;
      Vec3 avg2 = (-K * xint2_.segment<3>(3 * i) - B * xint2_.segment<3>(r + 3 * i)) * (2.0 / (dt * dt));
      if (p.slipping) {
        avg = p.forceMap() * avg;
        avg2 = p.forceMap() * avg2;
      }
      // The projection of λ̄ as a scaling S of the force (normal clamp, tangential factor) applied to
      // λ̄̄ too: velocity and position then follow one force history S λ(t) (see the header).
      const Mat3 S = coneScaling(avg, p.n, p.mu);
      addPointForce(p, S * avg, f1_);
      addPointForce(p, S * avg2, f2_);
    }
  }
  dyn_.solve(f1_, &c_, acc1_);
  dyn_.solve(f2_, &c_, acc2_);
  // Velocities (24) and positions (26).
  next_ = state;
  for (int i = 0; i < nb; ++i) {
    BodyState& b = next_.bodies[i];
    const BodyState& b0 = state.bodies[i];
    b.v = b0.v + dt * acc1_.segment<3>(6 * i);
    b.w = b0.w + dt * acc1_.segment<3>(6 * i + 3);
    b.x = b0.x + dt * b0.v + (0.5 * dt * dt) * acc2_.segment<3>(6 * i);
    const Vec3 rot = dt * b0.w + (0.5 * dt * dt) * acc2_.segment<3>(6 * i + 3);
    b.q = quat::mul(b0.q, quat::fromRotationVector(rot)).normalized();
    if (!b.x.allFinite() || !b.q.allFinite() || !b.v.allFinite() || !b.w.allFinite()) {
      rep.status = StepStatus::NonFinite;
      rep.message = "non-finite state (body '" + sys_->bodies[i].name + "')";
      return rep;
    }
  }
  // 5. Anchors (28), contact metrics, joint drift.
  updateSoftAnchors(*sys_, opt_, next_, &rep);
  rep.constraintViolation = constraintViolation(*sys_, next_);
  next_.time += dt;
  next_.step += 1;
  std::swap(state, next_);
  return rep;
}

}  // namespace ms
