// SPDX-License-Identifier: GPL-3.0-or-later
// Quaternion algebra of Brüdigam et al. 2023, Appendix A.
//
// Quaternions are Vec4 = [q_s, q_v] (A.1), Hamilton convention, local-to-global action:
// Q(q) maps body-frame vectors to the world frame.
//   L(q) p = q·p,  R(p) q = q·p          (A.4b, A.4c, A.5a)
//   T q = q^{-1} for unit q              (A.4a, A.5b)
//   V q = q_v,  V^T x = [0; x]           (A.4d, A.5c, A.5d)
//   Q(q) = V R(q)^T L(q) V^T             (A.6)
//   rotational gradient  ∇^r f = V L(q)^T ∇_q f                 (A.7)
//   rotational Jacobian  ∂f/∂^r q = ∂f/∂q · L(q) V^T            (A.8)
// A body-frame small rotation δθ changes q to q·[1, δθ/2], i.e. δq = ½ L(q) V^T δθ, so the
// rotational Jacobian equals 2·∂f/∂θ (θ: body-frame rotation vector).
#pragma once

#include <cmath>

#include "core/types.h"

namespace ms::quat {

inline Vec4 identity() { return Vec4(1, 0, 0, 0); }

// Skew-symmetric matrix x^× (A.3c): x^× y = x × y.
inline Mat3 skew(const Vec3& x) {
  Mat3 m;
  m << 0, -x(2), x(1), x(2), 0, -x(0), -x(1), x(0), 0;
  return m;
}

// Left multiplication matrix L(q) (A.4b).
inline Mat4 L(const Vec4& q) {
  Mat4 m;
  m(0, 0) = q(0);
  m.block<1, 3>(0, 1) = -q.tail<3>().transpose();
  m.block<3, 1>(1, 0) = q.tail<3>();
  m.block<3, 3>(1, 1) = q(0) * Mat3::Identity() + skew(q.tail<3>());
  return m;
}

// Right multiplication matrix R(q) (A.4c).
inline Mat4 R(const Vec4& q) {
  Mat4 m;
  m(0, 0) = q(0);
  m.block<1, 3>(0, 1) = -q.tail<3>().transpose();
  m.block<3, 1>(1, 0) = q.tail<3>();
  m.block<3, 3>(1, 1) = q(0) * Mat3::Identity() - skew(q.tail<3>());
  return m;
}

// Conjugation matrix T (A.4a).
inline Mat4 T() { return Vec4(1, -1, -1, -1).asDiagonal(); }

// Vector-part selector V (A.4d).
inline Mat34 V() {
  Mat34 m = Mat34::Zero();
  m.block<3, 3>(0, 1).setIdentity();
  return m;
}

// Quaternion product q·p (A.2c).
inline Vec4 mul(const Vec4& q, const Vec4& p) {
  Vec4 r;
  r(0) = q(0) * p(0) - q.tail<3>().dot(p.tail<3>());
  r.tail<3>() = q(0) * p.tail<3>() + p(0) * q.tail<3>() + q.tail<3>().cross(p.tail<3>());
  return r;
}

// Rotational gradient (A.7) of a scalar function with ordinary gradient ∇_q f: V L(q)ᵀ ∇_q f.
inline Vec3 rotationalGradient(const Vec4& q, const Vec4& gradient) { return V() * L(q).transpose() * gradient; }

// Rotational Jacobian (A.8) of a vector function with ordinary Jacobian ∂f/∂q (m×4): ∂f/∂q L(q) Vᵀ.
template <int Rows>
Eigen::Matrix<double, Rows, 3> rotationalJacobian(const Vec4& q, const Eigen::Matrix<double, Rows, 4>& dfdq) {
  return dfdq * L(q) * V().transpose();
}

// Conjugate (A.2a); the inverse of a unit quaternion.
inline Vec4 conj(const Vec4& q) { return Vec4(q(0), -q(1), -q(2), -q(3)); }

// Rotation matrix Q(q) = V R(q)^T L(q) V^T (A.6), written out for speed.
inline Mat3 rotation(const Vec4& q) {
  const double w = q(0), x = q(1), y = q(2), z = q(3);
  Mat3 m;
  m << w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),  //
      2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),   //
      2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z;
  return m;
}

// Rotate a body-frame vector into the world frame: Q(q) x.
inline Vec3 rotate(const Vec4& q, const Vec3& x) { return rotation(q) * x; }

// Unit quaternion from a rotation vector (axis·angle).
inline Vec4 fromRotationVector(const Vec3& r) {
  const double a = r.norm();
  if (a < 1e-12) {
    Vec4 q(1, 0.5 * r(0), 0.5 * r(1), 0.5 * r(2));
    return q.normalized();
  }
  const double s = std::sin(0.5 * a) / a;
  return Vec4(std::cos(0.5 * a), s * r(0), s * r(1), s * r(2));
}

// Unit quaternion for a rotation of `angle` about `axis` (axis need not be normalised).
inline Vec4 fromAxisAngle(const Vec3& axis, double angle) { return fromRotationVector(axis.normalized() * angle); }

// Rotation vector of a unit quaternion, in (−π, π] (the sign of q is canonicalised).
inline Vec3 toRotationVector(const Vec4& qin) {
  const Vec4 q = qin(0) < 0 ? Vec4(-qin) : qin;
  const double n = q.tail<3>().norm();
  if (n < 1e-12) return 2.0 * q.tail<3>() / q(0);
  return (2.0 * std::atan2(n, q(0)) / n) * q.tail<3>();
}

// Derivative of the rotation vector r(q) of toRotationVector with respect to q (3×4),
// for a unit, sign-canonicalised q (q_s ≥ 0).
inline Mat34 rotationVectorJacobian(const Vec4& q) {
  const double w = q(0);
  const Vec3 v = q.tail<3>();
  const double n2 = v.squaredNorm(), n = std::sqrt(n2);
  Mat34 J;
  if (n < 1e-8) {
    // r ≈ 2 v / w: ∂r/∂w = −2 v / w², ∂r/∂v = 2 / w · I
    J.col(0) = -2.0 * v / (w * w);
    J.block<3, 3>(0, 1) = (2.0 / w) * Mat3::Identity();
    return J;
  }
  const double phi = 2.0 * std::atan2(n, w);
  const double denom = w * w + n2;
  const Vec3 u = v / n;
  // φ = 2 atan2(n, w): ∂φ/∂w = −2n/(w²+n²), ∂φ/∂v = 2w/(w²+n²) · u
  J.col(0) = u * (-2.0 * n / denom);
  J.block<3, 3>(0, 1) = (phi / n) * (Mat3::Identity() - u * u.transpose()) + (2.0 * w / denom) * u * u.transpose();
  return J;
}

// Discrete quaternion angular velocity map (eq. 13/17): the increment [√(4/Δt² − ωᵀω), ω]·Δt/2.
// Returns false when |ω| ≥ 2/Δt (eq. 13 has no real solution).
inline bool incrementFromVelocity(const Vec3& w, double dt, Vec4& out) {
  const double arg = 4.0 / (dt * dt) - w.squaredNorm();
  if (!(arg > 0.0)) return false;
  out(0) = std::sqrt(arg) * 0.5 * dt;
  out.tail<3>() = w * (0.5 * dt);
  return true;
}

// Body-frame rotation of q₂ = q₁·ω̄(ω)Δt/2 per change of ω (3×3):
//   ∂θ₂/∂ω = Δt²/2 · (s I + ω ωᵀ / s − ω^×),  s = √(4/Δt² − ωᵀω).
// Derived from δq₂ = L(q₁) [−ωᵀ/s; I] δω Δt/2 and δθ₂ = 2 V L(q₂)ᵀ δq₂.
inline Mat3 incrementJacobian(const Vec3& w, double dt) {
  const double s = std::sqrt(4.0 / (dt * dt) - w.squaredNorm());
  return (0.5 * dt * dt) * (s * Mat3::Identity() + (w * w.transpose()) / s - skew(w));
}

}  // namespace ms::quat
