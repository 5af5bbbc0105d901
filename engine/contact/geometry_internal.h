// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the contact geometry files (contact_geometry.cc, shape_distance.cc,
// pair_candidates.cc): a shape placed in the world, and the gradients of a candidate from its
// witness points (contact_geometry.h, "Conventions").
#pragma once

#include "contact/contact_geometry.h"
#include "core/quaternion.h"

namespace ms::contact {

// Below this distance two witness (or closest) points coincide, or a point lies on a curved
// feature's core: the normal then comes from the edges' cross product or a fallback rule.
constexpr double kTinyDistance = 1e-12;
// Below this |u_A × u_B|² (sin² of their angle) two directions or segments are treated as parallel.
constexpr double kParallelSin2 = 1e-12;

// A shape placed in the world: centre o and shape-to-world rotation Rs = Q(q) R_shape.
struct Placed {
  Mat3 Q;   // body → world
  Vec3 o;   // shape origin (world)
  Mat3 Rs;  // shape → world
};

inline Placed place(const ContactShape& s, const BodyPose& z) {
  Placed p;
  p.Q = quat::rotation(z.q);
  p.o = z.x + p.Q * s.position;
  p.Rs = p.Q * s.rotation;
  return p;
}

// Fill local points and gradients from the witness points and the normal (see the header):
//   ∂φ/∂x_B = nᵀ, ∂φ/∂θ_B = −nᵀQ_B l_B^×;  ∂φ/∂x_A = −nᵀ, ∂φ/∂θ_A = nᵀQ_A l_A^×;  world A: zero.
inline void finish(Contact& c, const BodyPose* za, const Mat3* QA, const BodyPose& zb, const Mat3& QB) {
  c.localB = QB.transpose() * (c.pointB - zb.x);
  pointGradient(QB, c.localB, c.normal, c.dxB, c.dthB);
  if (za) {
    c.localA = QA->transpose() * (c.pointA - za->x);
    pointGradient(*QA, c.localA, -c.normal, c.dxA, c.dthA);
  } else {
    c.localA = c.pointA;
    c.dxA.setZero();
    c.dthA.setZero();
  }
}

// Signed distance of p to a placed shape (world in, world out); shape_distance.cc.
SurfacePoint signedDistance(const ContactShape& s, const Placed& pl, const Vec3& p);

}  // namespace ms::contact
