// SPDX-License-Identifier: GPL-3.0-or-later
// The midpoint variational integrator in generalized coordinates, shared by midpoint-gc (Newton,
// trep) and riqn (Lee et al.'s quasi-Newton); they differ only in how the root is found.
//
// Discrete Lagrangian (midpoint rule, trep's (19) with α = ½; Lee et al. use the trapezoidal rule on
// SE(3) with the log map — we use the midpoint rule in joint coordinates for both, so that the two
// root finders solve the same equations):
//     L_d(q_k, q_{k+1}) = h L(q̄, q̇),   q̄ = (q_k + q_{k+1})/2,   q̇ = (q_{k+1} − q_k)/h.
// Position–momentum form of the forced, constrained DEL equations (Marsden & West 2001 (3.2.8);
// trep §IV-D for the constraints; forcing by the midpoint rule f_d± = (h/2) Q(q̄, q̇)):
//     F(q_{k+1}, λ) = p_k + (h/2)(∂L/∂q + Q) − ∂L/∂q̇ − Dh(q_k)ᵀλ = 0,    h(q_{k+1}) = 0,
//     p_{k+1} = (h/2)(∂L/∂q + Q) + ∂L/∂q̇                                  (both at (q̄, q̇)).
// Q: one-coordinate joint springs −k(q̄ − q_rest), dampers −c q̇ and actuator efforts on their
// coordinate; every other applied force (springs between bodies, efforts on loop and
// multi-coordinate joints, external wrenches) through the bodies, Q_i = ξ_iᵀ Σ W_b.
// The state handed to the rest of the program is the knot's poses with the velocities
// q̇_{k+1} = M(q_{k+1})⁻¹ p_{k+1}, projected onto Dh q̇ = 0 when there are loops; the integrator keeps
// (q_k, p_k) itself and reads them from the State again only after restart().
#pragma once

#include <algorithm>
#include <memory>

#include "integrator/gc/gc_dynamics.h"
#include "integrator/integrator.h"

namespace ms::gc {

class GcIntegrator : public Integrator {
 public:
  GcIntegrator(std::shared_ptr<const CompiledSystem> sys, bool refuseLoops);
  StepReport step(const StepSettings& settings, const Inputs& inputs, State& state) override;
  void restart() override { started_ = false; }

  const GcTree& tree() const { return tree_; }
  // The integrator's own state after the last step: coordinates, momenta, rates and charts.
  const VecX& coordinates() const { return q0_; }
  const VecX& momenta() const { return p0_; }
  const VecX& rates() const { return qd0_; }
  const Charts& charts() const { return charts_; }
  // Takes (q, p) from `state` as restart() + step() would (for tests).
  void begin(const StepSettings& settings, const State& state);
  // The residual [F; h] at (q1, λ) for the current (q_k, p_k) (for tests; also the Newton Jacobian
  // below is checked against its finite differences).
  void residual(const StepSettings& settings, const Inputs& inputs, const VecX& q1, const VecX& lambda, VecX& out);
  // Newton matrix [[∂F/∂q1, −Dh(q_k)ᵀ], [Dh(q1), 0]] at (q1, λ) (midpoint-gc's, for tests).
  void jacobian(const StepSettings& settings, const Inputs& inputs, const VecX& q1, const VecX& lambda, MatX& out);

 protected:
  // Finds (dq1_, lambda_) with ‖[F; h]‖∞ ≤ tolerance from the predictor in dq1_, leaving the terms of
  // the accepted point evaluated. Fills iterations/residual; false (status, message) on failure.
  virtual bool solve(const StepSettings& settings, const Inputs& inputs, StepReport& report) = 0;

  // Evaluates at the increment Δq = q_{k+1} − q_k: the kinematics at q̄, the gradients (DRNEA), the
  // forcing and the residual res_ = [F; h].
  void evaluate(const StepSettings& settings, const Inputs& inputs, const VecX& dq, const VecX& lambda, bool composite);
  // After evaluate(…, composite = true): the Newton matrix (derivatives in Δq, equal to those in q_{k+1}).
  void assembleJacobian(const StepSettings& settings, const Inputs& inputs, const VecX& dq, const VecX& lambda);
  // The convergence measure, weighted as the maximal-coordinate VI's (docs/engine.md, "Weighted
  // residual"): the DEL rows (momenta, N·m·s or N·s) divided by Δt times the force scale
  // max(1 N, Σ m|g|) — a generalized force relative to the mechanism's weight on a 1 m lever —
  // and the loop rows (m, rad) as they are. The same tolerance then means the same for every
  // integrator and every size.
  // The end of an iteration of either root finder at residual r: Converged (r ≤ tolerance), Failed
  // (r not finite or past `blowUp`, or the iteration cap reached: report filled, named by `method`)
  // or Continue. Fills report.iterations and report.residual.
  enum class Check { Continue, Converged, Failed };
  Check checkIteration(const StepSettings& settings, int it, double r, double blowUp, const char* method,
                       StepReport& report) const;
  double residualNorm() const {
    const int nc = n();
    double r = res_.head(nc).lpNorm<Eigen::Infinity>() * rowWeight_;
    if (m() > 0) r = std::max(r, res_.tail(m()).lpNorm<Eigen::Infinity>());
    return r;
  }
  double rowWeight_ = 1;  // 1 / (Δt · max(1 N, Σ m|g|)), set at the start of every step
  int n() const { return tree_.size(); }
  int m() const { return tree_.numLoopRows; }

  GcTree tree_;
  Kinematics kin_;   // of the last evaluation (the midpoint q̄)
  Kinematics knot_;  // of the knot q_k (between steps: of the state handed on)
  bool knotFactored_ = false;  // aba_ holds the articulated inertias of knot_
  Terms terms_;
  AbaWork aba_;
  Charts charts_;
  double h_ = 0.01;
  VecX q0_, p0_, qd0_;     // knot k: coordinates, momenta, rates
  VecX dq1_, lambda_;      // unknowns of the step: Δq = q_{k+1} − q_k and the multipliers
  VecX res_;               // [F; h], n + m
  MatX jac_;               // Newton matrix (midpoint-gc)

 private:
  // The generalized forces Q at the kinematics of kin_ (midpoint) into Q_.
  void forcing(const Inputs& inputs, const VecX& qbar, const VecX& qd);
  bool bodyForcesActive(const Inputs& inputs) const;
  // Rates from momenta at the configuration in knot_ (with loops, projected onto Dh q̇ = 0); leaves
  // the articulated inertias of knot_ in aba_.
  bool ratesFromMomenta(const VecX& p, VecX& qd);
  // Re-centres the charts whose β left ±1 rad (knot_ at q0_); transforms p0_ and the rates.
  void recenterCharts();

  // Loop rows that depend on the others at the start configuration (e.g. a planar loop closed by a
  // joint the compiler kept in its tree) are replaced by λ_r = 0.
  void selectIndependentRows();
  void maskDependentRows(MatX& Dh) const;
  std::vector<char> activeRow_;

  bool started_ = false;
  int prevRates_ = 0;  // rates of earlier knots kept for the predictor (0–2)
  long lastStep_ = -1;
  bool staticBodyForces_ = false;  // model elements acting through the bodies
  VecX p1_, qdPrev_, qdPrev2_, qbar_, qd_, Q_, Qb_, tmp_, tmp2_;
  MatX Dh0_, Dh1_, MinvDhT_, S_, Mh_, Ah_, Hh_;
  Eigen::LDLT<MatX> Sldlt_;
  VecX hval_, mu_;
  VecX f6_;  // 6 per body
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> W_, acc_;
  JointMinimalEval minimal_;
  State scratch_;
};

}  // namespace ms::gc
