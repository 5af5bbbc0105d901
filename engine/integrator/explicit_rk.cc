// SPDX-License-Identifier: GPL-3.0-or-later
// Explicit Runge–Kutta steppers and symplectic Euler on the acceleration-level dynamics (see
// explicit_rk.h). Butcher tableaux (c, A, b):
//   explicit Euler: b = (1)
//   Heun:           A₂₁ = 1, b = (½, ½)
//   RK4:            A₂₁ = ½, A₃₂ = ½, A₄₃ = 1, b = (1/6, 1/3, 1/3, 1/6)
// Stage states y₀ + h Σ A_kj K_j have their quaternions normalised before the acceleration is
// evaluated there; the new state y₀ + h Σ b_j K_j is normalised likewise. The constraint multipliers
// stored in the state are those of the first stage (the forces at the start of the step).
#include "integrator/explicit_rk.h"

#include <cmath>
#include <string>

#include "core/check.h"
#include "core/denormals.h"
#include "contact/soft_contact.h"
#include "core/quaternion.h"
#include "system/initial_conditions.h"

namespace ms {

ExplicitIntegrator::ExplicitIntegrator(IntegratorKind kind, const IntegratorOptions& options,
                                       std::shared_ptr<const CompiledSystem> sys)
    : kind_(kind), options_(options), sys_(std::move(sys)), dyn_(sys_) {
  MS_ASSERT(kind == IntegratorKind::ExplicitEuler || kind == IntegratorKind::SymplecticEuler ||
                kind == IntegratorKind::Heun || kind == IntegratorKind::RK4,
            "ExplicitIntegrator: not an explicit method");
  options_.kind = kind;
  soft_ = options_.contacts == ContactModel::Soft && !sys_->contacts.empty();
  const int nb = int(sys_->bodies.size()), nj = int(sys_->joints.size());
  for (int k = 0; k < 4; ++k) {
    kx_[k].setZero(3 * nb);
    kq_[k].setZero(4 * nb);
    ka_[k].setZero(6 * nb);
  }
  f_.setZero(6 * nb);
  c_.setZero(6 * nj);
  lambda_.setZero(6 * nj);
  stage_.bodies.resize(nb);
  next_.bodies.resize(nb);
  // Stage states carry the soft-contact anchors of the step's start (copied without allocating).
  if (soft_) {
    stage_.softAnchor.assign(sys_->contacts.size(), Vec3::Zero());
    stage_.softActive.assign(sys_->contacts.size(), 0);
  }
}

const char* ExplicitIntegrator::name() const { return toString(kind_); }

int ExplicitIntegrator::stages() const {
  switch (kind_) {
    case IntegratorKind::Heun: return 2;
    case IntegratorKind::RK4: return 4;
    default: return 1;
  }
}

void ExplicitIntegrator::addContactForces(const State& s, VecX& f) {
  if (contactForces_) contactForces_(s, f);
  else addSoftContactForces(*sys_, options_, s, f);  // contact/soft_contact.h
}

void ExplicitIntegrator::contactStepFinished(const StepSettings& st, State& s, StepReport& report) {
  if (contactStep_) contactStep_(st, s, report);
  else updateSoftAnchors(*sys_, options_, s, &report);  // anchors (28), penetration, active contacts
}

bool ExplicitIntegrator::derivative(const StepSettings& st, const Inputs& in, const State& y, int k, StepReport& rep) {
  ++rep.iterations;
  if (!dyn_.factor(y)) {
    rep.status = StepStatus::SingularMatrix;
    rep.message = "singular KKT matrix in stage " + std::to_string(k + 1) + " (degenerate constraints?)";
    return false;
  }
  dyn_.appliedForces(st, in, y, f_);
  if (soft_) addContactForces(y, f_);
  dyn_.constraintRhs(y, options_.baumgarteAlpha, options_.baumgarteBeta, c_);
  dyn_.solve(f_, &c_, ka_[k], k == 0 ? &lambda_ : nullptr);
  if (!ka_[k].allFinite()) {
    rep.status = StepStatus::NonFinite;
    rep.message = "non-finite acceleration in stage " + std::to_string(k + 1) +
                  " (the motion has blown up: reduce the time step)";
    return false;
  }
  const int nb = int(sys_->bodies.size());
  for (int i = 0; i < nb; ++i) {
    const BodyState& b = y.bodies[i];
    kx_[k].segment<3>(3 * i) = b.v;
    kq_[k].segment<4>(4 * i) = 0.5 * quat::mul(b.q, Vec4(0, b.w(0), b.w(1), b.w(2)));
  }
  return true;
}

void ExplicitIntegrator::combine(const State& y0, const double* w, int n, double h, State& out) const {
  const int nb = int(sys_->bodies.size());
  for (int i = 0; i < nb; ++i) {
    const BodyState& b0 = y0.bodies[i];
    BodyState& b = out.bodies[i];
    b.x = b0.x;
    Vec4 q = b0.q;
    b.v = b0.v;
    b.w = b0.w;
    for (int j = 0; j < n; ++j) {
      if (w[j] == 0) continue;
      const double hw = h * w[j];
      b.x += hw * kx_[j].segment<3>(3 * i);
      q += hw * kq_[j].segment<4>(4 * i);
      b.v += hw * ka_[j].segment<3>(6 * i);
      b.w += hw * ka_[j].segment<3>(6 * i + 3);
    }
    b.q = q / q.norm();
  }
}

StepReport ExplicitIntegrator::step(const StepSettings& st, const Inputs& in, State& state) {
  const FlushDenormalsScope noSubnormals;
  StepReport rep;
  const double h = st.dt;
  const int nb = int(sys_->bodies.size());
  if (!(h > 0 && std::isfinite(h))) {
    rep.status = StepStatus::NonFinite;
    rep.message = "the time step must be a positive number";
    return rep;
  }
  static constexpr double kHeunA[2][2] = {{0, 0}, {1, 0}};
  static constexpr double kHeunB[2] = {0.5, 0.5};
  static constexpr double kRk4A[4][4] = {{0, 0, 0, 0}, {0.5, 0, 0, 0}, {0, 0.5, 0, 0}, {0, 0, 1, 0}};
  static constexpr double kRk4B[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  static constexpr double kEulerB[1] = {1.0};

  if (!derivative(st, in, state, 0, rep)) return rep;
  if (soft_ && state.softAnchor.size() == stage_.softAnchor.size() && state.softActive.size() == stage_.softActive.size()) {
    stage_.softAnchor = state.softAnchor;
    stage_.softActive = state.softActive;
  }
  switch (kind_) {
    case IntegratorKind::SymplecticEuler:
      // ν⁺ = ν + h a(z, ν); z⁺ = z ⊕ h ν⁺ (x + h v⁺, q·exp(h ω⁺/2)).
      for (int i = 0; i < nb; ++i) {
        const BodyState& b0 = state.bodies[i];
        BodyState& b = next_.bodies[i];
        b.v = b0.v + h * ka_[0].segment<3>(6 * i);
        b.w = b0.w + h * ka_[0].segment<3>(6 * i + 3);
        b.x = b0.x + h * b.v;
        b.q = quat::mul(b0.q, quat::fromRotationVector(h * b.w)).normalized();
      }
      break;
    case IntegratorKind::Heun:
      combine(state, kHeunA[1], 1, h, stage_);
      if (!derivative(st, in, stage_, 1, rep)) return rep;
      combine(state, kHeunB, 2, h, next_);
      break;
    case IntegratorKind::RK4:
      for (int k = 1; k < 4; ++k) {
        combine(state, kRk4A[k], k, h, stage_);
        if (!derivative(st, in, stage_, k, rep)) return rep;
      }
      combine(state, kRk4B, 4, h, next_);
      break;
    default:
      combine(state, kEulerB, 1, h, next_);
      break;
  }
  // Never keep stepping on NaN: the state stays as it was.
  for (int i = 0; i < nb; ++i) {
    const BodyState& b = next_.bodies[i];
    if (!(b.x.allFinite() && b.q.allFinite() && b.v.allFinite() && b.w.allFinite())) {
      rep.status = StepStatus::NonFinite;
      rep.message = "non-finite state after the step (the motion has blown up: reduce the time step)";
      return rep;
    }
  }
  for (int i = 0; i < nb; ++i) state.bodies[i] = next_.bodies[i];
  for (size_t k = 0; k < sys_->joints.size() && k < state.lambda.size(); ++k)
    state.lambda[k] = lambda_.segment<6>(6 * k);
  state.time += h;
  state.step += 1;
  rep.constraintViolation = constraintViolation(*sys_, state);
  if (soft_) contactStepFinished(st, state, rep);
  return rep;
}

}  // namespace ms
