// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline (non-variational) time steppers on the acceleration-level dynamics of accel_dynamics.h:
// explicit Euler, symplectic (semi-implicit) Euler, Heun (explicit RK2) and classic RK4 on the state
// y = (x, q, v, ω) of every body with
//     ẋ = v,   q̇ = ½ q·[0, ω],   (v̇, ω̇) = a(y)   (one KKT solve per evaluation)
// Quaternions are renormalised after each step and before every stage evaluation. Symplectic Euler:
// ν⁺ = ν + Δt a(z, ν), then x⁺ = x + Δt v⁺, q⁺ = q·exp(Δt ω⁺/2). Optional Baumgarte stabilisation
// (IntegratorOptions::baumgarteAlpha/Beta) in the constraint rows: G ν̇ = −Ġν − 2αGν − β²g.
#pragma once

#include <functional>
#include <memory>

#include "integrator/accel_dynamics.h"
#include "integrator/integrator_options.h"

namespace ms {

class ExplicitIntegrator : public Integrator {
 public:
  // kind: ExplicitEuler, SymplecticEuler, Heun or RK4 (options.kind is ignored; gains and contact
  // model are taken from `options`). All buffers are allocated here: step() does not allocate.
  ExplicitIntegrator(IntegratorKind kind, const IntegratorOptions& options, std::shared_ptr<const CompiledSystem> sys);
  const char* name() const override;
  StepReport step(const StepSettings& settings, const Inputs& inputs, State& state) override;

  IntegratorKind kind() const { return kind_; }
  const IntegratorOptions& options() const { return options_; }
  const CompiledSystem& system() const { return *sys_; }
  AccelDynamics& dynamics() { return dyn_; }
  // Number of acceleration evaluations (KKT solves) per step: 1, 1, 2, 4.
  int stages() const;

  // Soft contacts (options.contacts == Soft on a system with contacts): called at every stage
  // evaluation, after the applied forces and before the KKT solve, to add the contact forces to
  // f (6 per body: force world frame, torque body frame) at the stage state `s`. The default
  // calls the hook set by setContactForceHook, or without one the soft contact model
  // (addSoftContactForces of contact/soft_contact.h; stage states carry the step's anchors).
  using ContactForceHook = std::function<void(const State& s, VecX& f)>;
  void setContactForceHook(ContactForceHook hook) { contactForces_ = std::move(hook); }
  // Called once after every successful step with soft contacts (e.g. to update contact anchors and
  // to fill report.penetration / activeContacts). The default calls the hook, if set, else
  // updateSoftAnchors (anchor update (28), penetration, active contacts).
  using ContactStepHook = std::function<void(const StepSettings& st, State& s, StepReport& report)>;
  void setContactStepHook(ContactStepHook hook) { contactStep_ = std::move(hook); }
  bool softContacts() const { return soft_; }

 protected:
  virtual void addContactForces(const State& s, VecX& f);
  virtual void contactStepFinished(const StepSettings& st, State& s, StepReport& report);

 private:
  // Derivative of stage k at y: kx = v, kq = ½ q·[0, ω], ka = a(y). False (report filled) on a
  // singular KKT matrix or a non-finite acceleration.
  bool derivative(const StepSettings& st, const Inputs& in, const State& y, int k, StepReport& rep);
  // y_out = y0 + h Σ_j w_j K_j (j < n), quaternions normalised.
  void combine(const State& y0, const double* w, int n, double h, State& out) const;

  IntegratorKind kind_;
  IntegratorOptions options_;
  std::shared_ptr<const CompiledSystem> sys_;
  AccelDynamics dyn_;
  bool soft_ = false;
  ContactForceHook contactForces_;
  ContactStepHook contactStep_;
  // Stage derivatives (up to 4 stages): 3 per body (ẋ), 4 per body (q̇), 6 per body (ν̇).
  VecX kx_[4], kq_[4], ka_[4];
  VecX f_, c_, lambda_;
  State stage_, next_;
};

}  // namespace ms
