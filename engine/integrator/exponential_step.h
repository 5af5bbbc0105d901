// SPDX-License-Identifier: GPL-3.0-or-later
// The exponential integrator for soft contacts (Hammoud et al. 2021, §III–V), on the
// acceleration-level maximal-coordinate dynamics (accel_dynamics.h). Per step, at the state (q, ν):
//   1. ν̇_free = M⁻¹(u) through the KKT system (joints respected: M⁻¹ is the constrained inverse),
//      with u the applied forces (gravity, wrenches, springs, gyroscopic term).
//   2. For the m points in contact (soft_contact.h), stacked 3D each: Δp = p − p₀, Δṗ = ṗ − ṗ₀,
//      the contact Jacobian J (3m × 6 per body), p̈_free = J ν̇_free + J̇ν and
//      Υ = J M⁻¹ Jᵀ, column i from one KKT solve with f = Jᵀeᵢ, c = 0 (9).
//   3. The contact-space linear dynamics (11), x = [Δp; Δṗ]:
//         ẋ = A x + b,   A = [0, I; −ΥK, −ΥB],   b = [0; p̈_free],
//      (for a point that slipped in the previous step its force is C(−KΔp − BΔṗ) with
//      C = (n − μŝ)nᵀ, the tangential force on the cone's boundary against the slip (27); its
//      columns of ΥK, ΥB are multiplied by C, so the force stays linear in x),
//      integrated exactly for A, b constant over the step: the integrals x_int, x_int2 of (16) are
//      two columns of e^{δt Ā} with the augmented Ā of (30) (29), computed by Eigen's
//      MatrixFunctions (Higham 2005: scaling and squaring with a Padé approximant).
//   4. The average force λ̄ = D x_int/δt (23) and the double average λ̄̄ = 2 D x_int2/δt² (25),
//      D = [−K I, −B I] (times C for slipping points), each projected onto the friction cones
//      (λₙ ≥ 0, ‖λₜ‖ ≤ μλₙ):
//         ν⁺ = ν + δt M⁻¹(u + Jᵀλ_pr)                               (24)
//         q⁺ = q ⊕ (δt ν + δt²/2 M⁻¹(u + Jᵀλ_pr2))                  (26), (20)
//      Deviation from (26): λ_pr2 is not the separate projection of λ̄̄ but S λ̄̄, with S the
//      projection of λ̄ written as a scaling (normal clamp, tangential factor; coneScaling), so
//      velocity and position follow one force history S λ(t). Projecting λ̄̄ on its own lets the two
//      updates disagree whenever a projection is active; measured: a box left at rest on a 20°
//      incline (μ = 0.5, Δt = 10 ms) kept a spurious pitch rate of 0.23 rad/s and 6 cm/s normal
//      velocity while its pose stayed put, and on a 30° incline (μ = 0.3) two corners lifted and it
//      slid with 73 % too little friction. Without projection both are the paper's (24), (26).
//      x⁺ = x + …, the orientation by the body-frame rotation vector, quaternion renormalised. The
//      non-contact motion is thus the paper's semi-implicit Euler-like update (34).
//   5. Anchors updated at the new state (28) (updateSoftAnchors).
// Not variational: joint constraints hold at acceleration level only and drift (reported as
// constraintViolation = ‖g‖∞).
//
// Integrating (11) exactly (step 3), without allocation:
//  - every point sticking: Υ = J M⁻¹ Jᵀ is symmetric positive semi-definite, Υ = QΛQᵀ, and in the
//    modal coordinates y = QᵀΔp the system splits into ÿᵢ = −λᵢ(K yᵢ + B ẏᵢ) + cᵢ, c = Qᵀp̈_free:
//    each mode's integrals are columns of a 5 × 5 exponential of the form (30)
//    (contactSpaceIntegralsModal; up to kModalCapacity / 3 points, fixed-capacity storage);
//  - a point slipping (ΥC is not symmetric): the (6m+3)-square Ā of (30), in matrices of fixed
//    capacity kDenseCapacity (10 points);
//  - more points than that: dynamic matrices, which allocate (stated, not hidden).
// Eigen's MatrixFunctions (scaling and squaring with a Padé approximant) computes every exponential;
// with fixed-capacity matrix types its temporaries live on the stack.
#pragma once

#include <memory>

#include <Eigen/Eigenvalues>

#include "contact/soft_contact.h"
#include "integrator/accel_dynamics.h"
#include "integrator/integrator.h"
#include "integrator/integrator_options.h"

namespace ms {

// Fixed capacities of the allocation-free paths (see above).
constexpr int kModalCapacity = 30;   // 3m ≤ 30: up to 10 points in contact
constexpr int kDenseCapacity = 63;   // 6m + 3 ≤ 63: up to 10 points in contact

// Workspace of contactSpaceIntegralsModal.
struct ModalWork {
  using Cap = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kModalCapacity, kModalCapacity>;
  using CapVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kModalCapacity, 1>;
  Cap ups;
  Eigen::SelfAdjointEigenSolver<Cap> eig;
  CapVec y0, v0, c, yi, vi, yi2, vi2;
};

// The same integrals for A = [0, I; −ΥK, −ΥB], b = [0; p̈_free] with Υ (r × r, r = 3m) symmetric,
// mode by mode (see above); x0 = [Δp; Δṗ], xint and xint2 of size ≥ 2r. False when r exceeds
// kModalCapacity or the eigen-decomposition fails (then use the dense form).
bool contactSpaceIntegralsModal(const Eigen::Ref<const MatX>& ups, double K, double B, const Eigen::Ref<const VecX>& pdd,
                                const Eigen::Ref<const VecX>& x0, double t, ModalWork& w, Eigen::Ref<VecX> xint,
                                Eigen::Ref<VecX> xint2);

// x_int(t) = ∫₀ᵗ x(τ)dτ and x_int2(t) = ∫₀ᵗ∫₀^τ x(τ₁)dτ₁dτ (16) of ẋ = A x + b, x(0) = x0, as
// [I 0] e^{tĀ} [0; I₂] (29) with Ā = [A b x0 0; 0 0 1 0; 0 0 0 1; 0 0 0 0] (30). Allocates.
void contactSpaceIntegrals(const MatX& A, const VecX& b, const VecX& x0, double t, VecX& xint, VecX& xint2);

class ExponentialIntegrator final : public Integrator {
 public:
  ExponentialIntegrator(std::shared_ptr<const CompiledSystem> system, const IntegratorOptions& options);
  const char* name() const override { return "exponential"; }
  StepReport step(const StepSettings& settings, const Inputs& inputs, State& state) override;

 private:
  std::shared_ptr<const CompiledSystem> sys_;
  IntegratorOptions opt_;
  AccelDynamics dyn_;
  SoftPoints points_;
  State next_;
  VecX u_, c_, accFree_, acc1_, acc2_, fcol_, col_, f1_, f2_, pddFree_, x0_, xint_, xint2_;
  MatX ups_, abar_;
  ModalWork modal_;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kDenseCapacity, kDenseCapacity> abarCap_, expCap_;
};

}  // namespace ms
