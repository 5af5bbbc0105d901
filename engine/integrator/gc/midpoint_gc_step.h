// SPDX-License-Identifier: GPL-3.0-or-later
// `--integrator midpoint-gc`: trep's midpoint variational integrator in generalized coordinates
// (Johnson & Murphey 2009, §IV: discrete Lagrangian (19) with α = ½, DEL (16), constrained DEL of
// §IV-D), solved by Newton's method with the analytic Jacobian
//     [[∂F/∂q_{k+1}, −Dh(q_k)ᵀ], [Dh(q_{k+1}), 0]],   ∂F/∂q_{k+1} = (h/4) L_qq + ½(L_q̇qᵀ − L_q̇q) − M/h
// (trep's (22) with the forcing's derivative added; gc_dynamics.h gives L_qq, L_q̇q and M), factorised
// densely (O(n³), as trep), with a backtracking line search on ‖[F; h]‖∞. Loop-closing joints are
// holonomic constraints h(q) = 0 with multipliers λ. Equations: gc_step.h.
#pragma once

#include <Eigen/LU>

#include "integrator/gc/gc_step.h"

namespace ms {

class MidpointGCIntegrator final : public gc::GcIntegrator {
 public:
  explicit MidpointGCIntegrator(std::shared_ptr<const CompiledSystem> sys);
  const char* name() const override { return "midpoint-gc"; }

 protected:
  bool solve(const StepSettings& settings, const Inputs& inputs, StepReport& report) override;

 private:
  Eigen::PartialPivLU<MatX> lu_;
  VecX dz_, dqtry_, ltry_;
};

}  // namespace ms
