// SPDX-License-Identifier: GPL-3.0-or-later
// Derivation: gc_step.h (midpoint DEL equations in position–momentum form).
#include "integrator/gc/gc_step.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "core/quaternion.h"
#include "integrator/accel_dynamics.h"
#include "system/initial_conditions.h"

namespace ms::gc {
namespace {
// The middle Euler angle β at which a chart is re-centred (singular at ±π/2).
constexpr double kChartLimit = 1.0;
bool allFinite(const VecX& v) { return v.allFinite(); }
}  // namespace

GcIntegrator::GcIntegrator(std::shared_ptr<const CompiledSystem> sys, bool refuseLoops)
    : tree_(buildGcTree(std::move(sys), refuseLoops)), Sldlt_(tree_.numLoopRows) {
  const int nc = n(), nm = m(), nb = int(tree_.bodyCoord.size());
  kin_.resize(tree_);
  knot_.resize(tree_);
  terms_.resize(tree_);
  aba_.resize(tree_);
  charts_.assign(tree_.joints.size(), quat::identity());
  for (VecX* v : {&q0_, &p0_, &p1_, &qdPrev_, &qdPrev2_, &qd0_, &dq1_, &qbar_, &qd_, &Q_, &Qb_, &tmp_, &tmp2_}) v->setZero(nc);
  lambda_.setZero(nm);
  hval_.setZero(nm);
  mu_.setZero(nm);
  activeRow_.assign(nm, 1);
  res_.setZero(nc + nm);
  jac_.setZero(nc + nm, nc + nm);
  Dh0_.setZero(nm, nc);
  Dh1_.setZero(nm, nc);
  MinvDhT_.setZero(nc, nm);
  S_.setZero(nm, nm);
  Mh_.setZero(nc, nc);
  Ah_.setZero(nc, nc);
  Hh_.setZero(nc, nc);
  f6_.setZero(6 * nb);
  W_.assign(nb, Vec6::Zero());
  acc_.assign(nc, Vec6::Zero());
  scratch_.bodies.resize(nb);
  // Elements that always act through the bodies: springs between bodies, springs and dampers on
  // joints that are not one-coordinate tree joints.
  const CompiledSystem& cs = *tree_.sys;
  staticBodyForces_ = !cs.model.springs.empty();
  for (size_t k = 0; k < cs.joints.size(); ++k)
    if (!tree_.effortOnCoordinate[k] && (cs.joints[k].hasSpring || cs.joints[k].hasDamper)) staticBodyForces_ = true;
}

bool GcIntegrator::bodyForcesActive(const Inputs& in) const {
  if (staticBodyForces_) return true;
  for (const Vec3& f : in.force)
    if (f.squaredNorm() > 0) return true;
  for (const Vec3& t : in.torque)
    if (t.squaredNorm() > 0) return true;
  for (size_t k = 0; k < in.actuator.size() && k < tree_.effortOnCoordinate.size(); ++k)
    if (!tree_.effortOnCoordinate[k] && in.actuator[k].any()) return true;
  return false;
}

void GcIntegrator::forcing(const Inputs& in, const VecX& qbar, const VecX& qd) {
  Q_.setZero();
  // One-coordinate tree joints: spring, damper and actuator on their coordinate.
  for (const GcJoint& g : tree_.joints) {
    if (g.joint < 0 || !tree_.effortOnCoordinate[g.joint]) continue;
    const int c = g.first;
    double u = -g.stiffness * (qbar(c) - g.rest) - g.damping * qd(c);
    if (size_t(g.joint) < in.actuator.size()) u += in.actuator[g.joint](0);
    Q_(c) += u;
  }
  if (!bodyForcesActive(in)) return;
  // Everything else through the bodies, at the midpoint poses and velocities.
  const CompiledSystem& cs = *tree_.sys;
  writeBodies(tree_, kin_, scratch_, true);
  const int nb = int(tree_.bodyCoord.size());
  for (int b = 0; b < nb; ++b) {
    f6_.segment<3>(6 * b) = size_t(b) < in.force.size() ? in.force[b] : Vec3::Zero();
    f6_.segment<3>(6 * b + 3) = size_t(b) < in.torque.size() ? Vec3(kin_.R[b].transpose() * in.torque[b]) : Vec3::Zero();
  }
  addForceElements(cs, in, scratch_, f6_, minimal_, &tree_.effortOnCoordinate);
  // World wrenches about the origin: (R τ_body + x × f; f).
  for (int b = 0; b < nb; ++b) {
    const Vec3 f = f6_.segment<3>(6 * b);
    W_[b] << kin_.R[b] * f6_.segment<3>(6 * b + 3) + kin_.x[b].cross(f), f;
  }
  generalizedForces(tree_, kin_, W_, acc_, Qb_);
  Q_ += Qb_;
}

void GcIntegrator::evaluate(const StepSettings& st, const Inputs& in, const VecX& dq, const VecX& lambda, bool composite) {
  const int nc = n(), nm = m();
  // Loop constraints at the next knot q_k + Δq.
  if (nm > 0) {
    tmp2_ = q0_ + dq;
    forwardKinematics(tree_, charts_, tmp2_, kin_);
    writeBodies(tree_, kin_, scratch_, false);
    loopConstraints(tree_, kin_, scratch_, hval_, composite ? &Dh1_ : nullptr);
    if (composite) maskDependentRows(Dh1_);
  }
  // Kinematics, gradients and forcing at the midpoint.
  // (The increment is the unknown: q̇ = Δq/h has no cancellation of q_{k+1} − q_k.)
  qbar_ = q0_ + 0.5 * dq;
  qd_ = dq / h_;
  forwardKinematics(tree_, charts_, qbar_, kin_);
  velocities(tree_, qd_, kin_);
  lagrangianGradients(tree_, kin_, st.gravity, terms_, composite);
  forcing(in, qbar_, qd_);
  // F = p_k + (h/2)(∂L/∂q + Q) − ∂L/∂q̇ − Dh(q_k)ᵀλ and h(q_{k+1}).
  res_.head(nc) = p0_ + 0.5 * h_ * (terms_.Lq + Q_) - terms_.p;
  if (nm > 0) {
    res_.head(nc).noalias() -= Dh0_.transpose() * lambda;
    res_.tail(nm) = hval_;
    for (int r = 0; r < nm; ++r)
      if (!activeRow_[r]) res_(nc + r) = lambda(r);
  }
}

void GcIntegrator::assembleJacobian(const StepSettings& st, const Inputs& in, const VecX& dq, const VecX& lambda) {
  const int nc = n(), nm = m();
  const double h = h_;
  lagrangianHessians(tree_, kin_, terms_, st.gravity, Mh_, Ah_, Hh_);
  // ∂F/∂q1 = (h/4) H + ½(Aᵀ − A) − M/h (q̄ moves by ½, q̇ by 1/h).
  auto J = jac_.topLeftCorner(nc, nc);
  J = 0.25 * h * Hh_ + 0.5 * (Ah_.transpose() - Ah_) - Mh_ / h;
  if (!bodyForcesActive(in)) {
    // One-coordinate joint springs and dampers: (h/2)(−k/2 − c/h).
    for (const GcJoint& g : tree_.joints)
      if (g.joint >= 0 && tree_.effortOnCoordinate[g.joint]) J(g.first, g.first) += -0.25 * h * g.stiffness - 0.5 * g.damping;
  } else {
    // Forces through the bodies: central differences of (h/2) Q in q1 (all of the forcing).
    const double eps = 1e-6;
    for (int c = 0; c < nc; ++c) {
      for (int sgn : {1, -1}) {
        tmp2_ = dq;
        tmp2_(c) += sgn * eps;
        qbar_ = q0_ + 0.5 * tmp2_;
        qd_ = tmp2_ / h;
        forwardKinematics(tree_, charts_, qbar_, kin_);
        velocities(tree_, qd_, kin_);
        forcing(in, qbar_, qd_);
        if (sgn > 0) tmp_ = Q_;
        else tmp_ -= Q_;
      }
      J.col(c) += 0.5 * h * tmp_ / (2 * eps);
    }
    // Restore the terms of (Δq, λ).
    evaluate(st, in, dq, lambda, true);
  }
  if (nm > 0) {
    jac_.topRightCorner(nc, nm) = -Dh0_.transpose();
    jac_.bottomLeftCorner(nm, nc) = Dh1_;
    jac_.bottomRightCorner(nm, nm).setZero();
    for (int r = 0; r < nm; ++r)
      if (!activeRow_[r]) jac_(nc + r, nc + r) = 1;
  }
}

bool GcIntegrator::ratesFromMomenta(const VecX& p, VecX& qd) {
  knotFactored_ = factorMass(tree_, knot_, aba_);
  if (!knotFactored_) return false;
  solveFactoredMass(tree_, knot_, p, qd, aba_);
  const int nm = m();
  if (nm == 0) return true;
  // Project onto Dh q̇ = 0 in the metric of M: q̇ −= M⁻¹Dhᵀ (Dh M⁻¹ Dhᵀ)⁻¹ Dh q̇.
  writeBodies(tree_, knot_, scratch_, false);
  loopConstraints(tree_, knot_, scratch_, hval_, &Dh1_);
  maskDependentRows(Dh1_);
  for (int r = 0; r < nm; ++r) {
    tmp_ = Dh1_.row(r).transpose();
    solveFactoredMass(tree_, knot_, tmp_, tmp2_, aba_);
    MinvDhT_.col(r) = tmp2_;
  }
  S_.noalias() = Dh1_ * MinvDhT_;
  for (int r = 0; r < nm; ++r)
    if (!activeRow_[r]) S_(r, r) = 1;
  Sldlt_.compute(S_);
  hval_.noalias() = Dh1_ * qd;
  mu_ = Sldlt_.solve(hval_);
  qd.noalias() -= MinvDhT_ * mu_;
  return true;
}

void GcIntegrator::recenterCharts() {
  bool changed = false;
  for (size_t gi = 0; gi < tree_.joints.size(); ++gi) {
    const GcJoint& g = tree_.joints[gi];
    const int rf = g.rotationFirst;
    if (rf < 0 || std::abs(q0_(rf + 1)) <= kChartLimit) continue;
    // Old chart axes E (world) and new ones E' = the child's chart frame at the current angles.
    Mat3 E;
    for (int i = 0; i < 3; ++i) E.col(i) = knot_.xi[rf + i].head<3>();
    const Mat3 Rc = knot_.R[g.childBody];
    // ω = E α̇ = E' α̇': α̇' = E'ᵀ E α̇, and momenta as covectors p' = E'ᵀ E⁻ᵀ p.
    const Vec3 pr = p0_.segment<3>(rf), qr = qd0_.segment<3>(rf);
    p0_.segment<3>(rf) = Rc.transpose() * E.transpose().inverse() * pr;
    qd0_.segment<3>(rf) = Rc.transpose() * E * qr;
    qdPrev_.segment<3>(rf) = Rc.transpose() * E * qdPrev_.segment<3>(rf);
    qdPrev2_.segment<3>(rf) = Rc.transpose() * E * qdPrev2_.segment<3>(rf);
    Vec4 turn = quat::identity();
    for (int i = 0; i < 3; ++i) turn = quat::mul(turn, quat::fromAxisAngle(Vec3::Unit(i), q0_(rf + i)));
    charts_[gi] = quat::mul(charts_[gi], turn).normalized();
    q0_.segment<3>(rf).setZero();
    changed = true;
  }
  if (changed) {
    forwardKinematics(tree_, charts_, q0_, knot_);
    knotFactored_ = false;  // the axes changed
  }
}

void GcIntegrator::begin(const StepSettings& st, const State& state) {
  const int nb = int(tree_.bodyCoord.size());
  h_ = st.dt;
  scratch_ = state;
  coordinatesFromState(tree_, state, q0_, charts_);
  forwardKinematics(tree_, charts_, q0_, knot_);
  selectIndependentRows();
  // Momenta of the state's body velocities: p_i = ξ_iᵀ Σ G_b V_b (V_b from the COM velocity and
  // the body-frame angular velocity).
  auto momentaOfBodies = [&](bool fromState) {
    for (int b = 0; b < nb; ++b) {
      Vec6 Vb;
      if (fromState) {
        const Vec3 w = knot_.R[b] * state.bodies[b].w;
        Vb << w, state.bodies[b].v - w.cross(knot_.x[b]);
      } else {
        Vb = bodyTwist(tree_, knot_, b);
      }
      W_[b] = knot_.G[b] * Vb;
    }
    generalizedForces(tree_, knot_, W_, acc_, p0_);
  };
  momentaOfBodies(true);
  if (!ratesFromMomenta(p0_, qd0_)) qd0_.setZero();
  // With loops the rates were projected: take the momenta of the projected rates.
  if (m() > 0) {
    velocities(tree_, qd0_, knot_);
    momentaOfBodies(false);
  }
  lambda_.setZero();
  prevRates_ = 0;
  started_ = true;
  lastStep_ = state.step;
  // Loop-constraint Jacobian at the knot (the multipliers act through it).
  if (m() > 0) {
    writeBodies(tree_, knot_, scratch_, false);
    loopConstraints(tree_, knot_, scratch_, hval_, &Dh0_);
    maskDependentRows(Dh0_);
  }
}

void GcIntegrator::selectIndependentRows() {
  const int nm = m();
  activeRow_.assign(nm, 1);
  if (nm == 0) return;
  // Rank-revealing QR of Dhᵀ at the knot: its leading pivots are independent rows.
  writeBodies(tree_, knot_, scratch_, false);
  loopConstraints(tree_, knot_, scratch_, hval_, &Dh0_);
  Eigen::ColPivHouseholderQR<MatX> qr(Dh0_.transpose());
  qr.setThreshold(1e-9);
  activeRow_.assign(nm, 0);
  for (int i = 0; i < qr.rank(); ++i) activeRow_[qr.colsPermutation().indices()(i)] = 1;
}

void GcIntegrator::maskDependentRows(MatX& Dh) const {
  for (int r = 0; r < m(); ++r)
    if (!activeRow_[r]) Dh.row(r).setZero();
}

GcIntegrator::Check GcIntegrator::checkIteration(const StepSettings& st, int it, double r, double blowUp,
                                                 const char* method, StepReport& rep) const {
  rep.iterations = it;
  rep.residual = r;
  if (!std::isfinite(r) || r > blowUp) {
    rep.status = StepStatus::NonFinite;
    rep.message = std::string(method) + ": the residual of the discrete Euler-Lagrange equations " +
                  (std::isfinite(r) ? "grew without bound" : "is not finite");
    return Check::Failed;
  }
  if (r <= st.tolerance) return Check::Converged;
  if (it >= st.maxIterations) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s did not converge in %d iterations (residual %.3g > tolerance %.3g)", method,
                  st.maxIterations, r, st.tolerance);
    rep.status = StepStatus::NotConverged;
    rep.message = buf;
    return Check::Failed;
  }
  return Check::Continue;
}

void GcIntegrator::residual(const StepSettings& st, const Inputs& in, const VecX& q1, const VecX& lambda, VecX& out) {
  h_ = st.dt;
  dq1_ = q1 - q0_;
  evaluate(st, in, dq1_, lambda, false);
  out = res_;
}

void GcIntegrator::jacobian(const StepSettings& st, const Inputs& in, const VecX& q1, const VecX& lambda, MatX& out) {
  h_ = st.dt;
  dq1_ = q1 - q0_;
  evaluate(st, in, dq1_, lambda, true);
  assembleJacobian(st, in, dq1_, lambda);
  out = jac_;
}

StepReport GcIntegrator::step(const StepSettings& st, const Inputs& in, State& state) {
  StepReport rep;
  if (!started_ || state.step != lastStep_ || st.dt != h_) begin(st, state);
  // Weight of the DEL rows in the convergence test (gc_step.h residualNorm).
  double weight = 0;
  for (const CompiledBody& b : tree_.sys->bodies) weight += b.mass * st.gravity.norm();
  rowWeight_ = 1.0 / (h_ * std::max(1.0, weight));
  // The loop-constraint Jacobian at the knot q_k (knot_ holds its kinematics).
  if (m() > 0) {
    writeBodies(tree_, knot_, scratch_, false);
    loopConstraints(tree_, knot_, scratch_, hval_, &Dh0_);
    maskDependentRows(Dh0_);
  }
  // Predictor: the rates of the last three knots extrapolated over the step (Adams–Bashforth,
  // q_{k+1} = q_k + h (q̇_k + ½∇q̇_k + 5/12 ∇²q̇_k), of lower order after a restart); multipliers from
  // the last step.
  dq1_ = h_ * qd0_;
  if (prevRates_ >= 1) dq1_ += 0.5 * h_ * (qd0_ - qdPrev_);
  if (prevRates_ >= 2) dq1_ += (5.0 / 12.0) * h_ * (qd0_ - 2 * qdPrev_ + qdPrev2_);
  if (!solve(st, in, rep)) {
    lambda_.setZero();
    started_ = false;  // the state is unchanged: start again from it
    if (rep.status == StepStatus::Ok) rep.status = StepStatus::NotConverged;
    return rep;
  }
  // Momenta at the new knot, and its rates.
  p1_ = 0.5 * h_ * (terms_.Lq + Q_) + terms_.p;
  tmp2_ = q0_ + dq1_;
  forwardKinematics(tree_, charts_, tmp2_, knot_);
  VecX& qd1 = qd_;
  if (!ratesFromMomenta(p1_, qd1) || !allFinite(qd1) || !allFinite(dq1_)) {
    rep.status = StepStatus::NonFinite;
    rep.message = "the rates of the new configuration are not finite (singular mass matrix)";
    started_ = false;
    return rep;
  }
  q0_ += dq1_;
  p0_ = p1_;
  qdPrev2_ = qdPrev_;
  qdPrev_ = qd0_;
  qd0_ = qd1;
  prevRates_ = std::min(prevRates_ + 1, 2);
  recenterCharts();
  velocities(tree_, qd0_, knot_);
  writeBodies(tree_, knot_, state, true);
  state.time += h_;
  state.step += 1;
  state.interval = 0;
  lastStep_ = state.step;
  rep.constraintViolation = constraintViolation(*tree_.sys, state);
  return rep;
}

}  // namespace ms::gc
