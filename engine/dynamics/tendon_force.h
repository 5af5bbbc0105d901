// SPDX-License-Identifier: GPL-3.0-or-later
// A fixed tendon's length, rate and tension (model.h TendonDesc), shared by the variational step,
// the acceleration-level dynamics, the energy and the signals:
//   L = Σ coef · θ,  L̇ = Σ coef · θ̇,  tension T = −k (L − L₀) − c L̇,
// the effort coef · T on each term's coordinate (the gradient of ½ k (L − L₀)² and the damper's
// dissipation −c L̇², both taken through the chain rule of L).
#pragma once

#include "core/types.h"
#include "model/model.h"

namespace ms {

// Σ coef · x(joint)(coordinate) for joint coordinates (or rates) x given per joint as Vec6.
template <class PerJoint>
double tendonSum(const TendonDesc& t, PerJoint&& x) {
  double s = 0;
  for (const TendonTerm& term : t.terms) s += term.coef * x(term.joint)(term.coordinate);
  return s;
}

inline double tendonTension(const TendonDesc& t, double length, double rate) {
  return -t.stiffness * (length - t.restLength) - t.damping * rate;
}

inline double tendonPotential(const TendonDesc& t, double length) {
  const double stretch = length - t.restLength;
  return 0.5 * t.stiffness * stretch * stretch;
}

}  // namespace ms
