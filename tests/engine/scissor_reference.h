// SPDX-License-Identifier: GPL-3.0-or-later
// Reference trajectories for tests: a one-degree-of-freedom Lagrangian integrated by classical RK4,
// and the scissor lift of trep §VI-C (Johnson & Murphey 2009) in that form. Shared by
// tst_trep_import.cpp (models/scissor-lift.trep) and tst_gallery.cpp (models/scissor-lift.mech).
#pragma once

#include <cmath>
#include <functional>
#include <vector>

namespace ms_test {

// Right-hand side of a one-degree-of-freedom Lagrangian L = ½ M(θ) θ̇² − V(θ):
// θ̈ = −(½ M'(θ) θ̇² + V'(θ)) / M(θ).
struct OneDof {
  std::function<double(double)> M, dM, dV;
  double accel(double th, double w) const { return -(0.5 * dM(th) * w * w + dV(th)) / M(th); }
};

// Classical RK4 for (θ, θ̇) with step h; returns θ sampled every `every` steps (t = 0 first).
inline std::vector<double> rk4(const OneDof& s, double th, double w, double h, long steps, long every) {
  std::vector<double> out{th};
  for (long k = 1; k <= steps; ++k) {
    const double k1t = w, k1w = s.accel(th, w);
    const double k2t = w + 0.5 * h * k1w, k2w = s.accel(th + 0.5 * h * k1t, w + 0.5 * h * k1w);
    const double k3t = w + 0.5 * h * k2w, k3w = s.accel(th + 0.5 * h * k2t, w + 0.5 * h * k2w);
    const double k4t = w + h * k3w, k4w = s.accel(th + h * k3t, w + h * k3w);
    th += h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t);
    w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
    if (k % every == 0) out.push_back(th);
  }
  return out;
}

// The scissor lift of trep §VI-C: N segments of two links (length L, mass mL at the centre,
// inertia I about the pin axis), the top right end on a slider of mass mS, gravity g. θ is the
// angle of the links below the horizontal; segment n's links have their centres (n − ½) L sin θ
// below the top and ½ L cos θ from the pin in the horizontal; the slider is at L cos θ. Then
//   L = Σₙ [mL L² ((n − ½)² cos²θ + ¼ sin²θ) + I] θ̇² + ½ mS L² sin²θ θ̇² + 2 mL g L Σₙ (n − ½) sin θ,
// i.e. M(θ) = 2 Σₙ [mL L² ((n − ½)² cos²θ + ¼ sin²θ) + I] + mS L² sin²θ, V(θ) = −mL g L N² sin θ.
// (The paper's printed Lagrangian lost the square on its second ½ in text extraction; ¼ follows
// from the geometry and makes both forms agree.)
struct ScissorLift {
  int segments = 5;
  double L = 1, mL = 1, mS = 1, I = 1.0 / 12, g = 9.81;

  OneDof lagrangian() const {
    const ScissorLift p = *this;
    OneDof s;
    s.M = [p](double th) {
      const double c = std::cos(th), sn = std::sin(th);
      double M = p.mS * p.L * p.L * sn * sn;
      for (int n = 1; n <= p.segments; ++n)
        M += 2 * (p.mL * p.L * p.L * ((n - 0.5) * (n - 0.5) * c * c + 0.25 * sn * sn) + p.I);
      return M;
    };
    s.dM = [p](double th) {
      const double sc2 = 2 * std::sin(th) * std::cos(th);
      double dM = p.mS * p.L * p.L * sc2;
      for (int n = 1; n <= p.segments; ++n) dM += 2 * p.mL * p.L * p.L * (0.25 - (n - 0.5) * (n - 0.5)) * sc2;
      return dM;
    };
    s.dV = [p](double th) { return -p.mL * p.g * p.L * p.segments * p.segments * std::cos(th); };
    return s;
  }

  // θ(t) from θ(0) = th0 at rest, sampled every dt for `samples` steps (samples + 1 values), by RK4
  // with the step dt / substeps.
  std::vector<double> trajectory(double th0, double dt, long samples, long substeps = 100) const {
    return rk4(lagrangian(), th0, 0.0, dt / substeps, samples * substeps, substeps);
  }
};

}  // namespace ms_test
