// SPDX-License-Identifier: GPL-3.0-or-later
// A linear spring–damper between points of two bodies (model.h SpringDesc), shared by the
// variational step and the acceleration-level dynamics:
//   d = p_B − p_A,  n = d/|d|,  f_B = −(k(|d| − L) + c ṗ_rel·n) n,  f_A = −f_B,
// with body-frame torques r_B × R_Bᵀ f_B and −r_A × R_Aᵀ f_B.
#pragma once

#include "core/types.h"
#include "model/model.h"

namespace ms {

// One end of a spring: the body's pose and velocities (v world, ω body frame); the defaults are the world.
struct SpringEnd {
  Vec3 x = Vec3::Zero();
  Mat3 R = Mat3::Identity();
  Vec3 v = Vec3::Zero(), w = Vec3::Zero();
};

// Force on B (world) and body-frame torques on A and B. False at zero length (direction undefined:
// no force).
inline bool springForce(const SpringDesc& sp, const SpringEnd& A, const SpringEnd& B, Vec3& fB, Vec3& tauA, Vec3& tauB) {
  const Vec3 d = B.x + B.R * sp.anchorB - A.x - A.R * sp.anchorA;
  const double len = d.norm();
  if (len < 1e-12) return false;
  const Vec3 n = d / len;
  const Vec3 vrel = B.v + B.R * B.w.cross(sp.anchorB) - A.v - A.R * A.w.cross(sp.anchorA);
  fB = -(sp.stiffness * (len - sp.restLength) + sp.damping * n.dot(vrel)) * n;
  tauB = sp.anchorB.cross(B.R.transpose() * fB);
  tauA = -sp.anchorA.cross(A.R.transpose() * fB);
  return true;
}

}  // namespace ms
