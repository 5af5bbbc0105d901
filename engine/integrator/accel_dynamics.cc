// SPDX-License-Identifier: GPL-3.0-or-later
// Acceleration-level dynamics in maximal coordinates (see accel_dynamics.h).
//
// Unknowns, node-major as in the variational Newton matrix: ν̇ = [v̇; ω̇] per body node, λ per joint
// node (6, padded), and 6 dummy unknowns per contact, limit and companion node. Blocks:
//   diag(body)  = blockdiag(m I, J)
//   (body, joint) = −[G_xᵀ; G_θᵀ]        (joint, body) = [G_x  G_θ]
//   diag(joint) = 0 on the constraint rows, I on the padding rows
//   diag(contact, limit, companion) = I, no coupling (their unknowns are 0).
// G_θ = ∂g/∂θ with θ a body-frame rotation, so ġ = G_x v + G_θ ω and the constraint torque on a body
// is G_θᵀλ in the body frame (no factor 2: that one belongs to the VI's discretisation of (16)).
//
// Ġν of a joint: the second time derivative of its rows along the constant-velocity path
// x(t) = x + v t, q(t) = q·exp(ω t/2) (ω body frame), for which Q̇ = Q ω^× and Q̈ = Q ω^× ω^×.
//   translational: r = Q_aᵀ e, e = x_b + Q_b p_b − x_a
//     ė = v_b + Q_b (ω_b × p_b) − v_a,   ë = Q_b (ω_b × (ω_b × p_b))
//     ṙ = −ω_a × r + Q_aᵀ ė,   r̈ = −ω_a × ṙ − ω_a × (Q_aᵀ ė) + Q_aᵀ ë,   g̈_T = Q_oᵀ r̈ → rows D_T
//   rotational: p = q_off⁻¹ q_a⁻¹ q_b, w̄ = [0, Q_oᵀ ω_a], ω̄_b = [0, ω_b]
//     ṗ = ½(−w̄ p + p ω̄_b),   p̈ = ¼(w̄ w̄ p − 2 w̄ p ω̄_b + p ω̄_b ω̄_b)   → rows D_R of vec(p̈)
// D_T, D_R are the rows the joint keeps (restrictConstraintRows drops redundant ones), so the bias
// has exactly the rows of evalJointConstraint.
#include "integrator/accel_dynamics.h"
#include "dynamics/spring_force.h"
#include "dynamics/tendon_force.h"

#include <cmath>

#include "core/check.h"
#include "core/quaternion.h"

namespace ms {
namespace {

inline Vec4 pure(const Vec3& w) { return Vec4(0, w(0), w(1), w(2)); }

}  // namespace

AccelDynamics::AccelDynamics(std::shared_ptr<const CompiledSystem> system) : sys_(std::move(system)), kkt_(sys_->order) {
  const int n = 6 * sys_->numNodes, nb = numBodies(), nj = int(sys_->joints.size());
  rhs_.setZero(n);
  sol_.setZero(n);
  f_.setZero(6 * nb);
  c_.setZero(6 * nj);
  accel_.setZero(6 * nb);
}

int AccelDynamics::numBodies() const { return int(sys_->bodies.size()); }

void AccelDynamics::appliedForces(const StepSettings& st, const Inputs& in, const State& s, VecX& f) const {
  const int nb = numBodies();
  if (f.size() != 6 * nb) f.resize(6 * nb);
  // Gravity, external wrenches (force world at the COM, torque world → body) and −ω×Jω.
  for (int i = 0; i < nb; ++i) {
    const BodyState& b = s.bodies[i];
    const CompiledBody& cb = sys_->bodies[i];
    Vec3 force = cb.mass * st.gravity;
    Vec3 torque = -b.w.cross(cb.inertia * b.w);
    if (size_t(i) < in.force.size()) force += in.force[i];
    if (size_t(i) < in.torque.size()) torque += quat::rotation(b.q).transpose() * in.torque[i];
    f.segment<3>(6 * i) = force;
    f.segment<3>(6 * i + 3) = torque;
  }
  addForceElements(*sys_, in, s, f, minimal_);
}

void addForceElements(const CompiledSystem& sys, const Inputs& in, const State& s, VecX& f, JointMinimalEval& me,
                      const std::vector<char>* skipJoint) {
  // Springs between bodies: f = −(k(|d| − L) + c ḋ·n) n on B along n = d/|d|, −f on A.
  for (const SpringDesc& sp : sys.model.springs) {
    const int a = sp.bodyA, b = sp.bodyB;
    SpringEnd A, B;
    if (a >= 0) A = {s.bodies[a].x, quat::rotation(s.bodies[a].q), s.bodies[a].v, s.bodies[a].w};
    if (b >= 0) B = {s.bodies[b].x, quat::rotation(s.bodies[b].q), s.bodies[b].v, s.bodies[b].w};
    Vec3 fb, ta, tb;
    if (!springForce(sp, A, B, fb, ta, tb)) continue;
    if (b >= 0) f.segment<6>(6 * b) += (Vec6() << fb, tb).finished();
    if (a >= 0) f.segment<6>(6 * a) += (Vec6() << -fb, ta).finished();
  }
  // Joint actuators, springs and dampers: effort u in minimal coordinates, f = (∂θ/∂x)ᵀu,
  // τ = (∂θ/∂θ_body)ᵀu (as the variational integrator, without its factor 2 of (16)).
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    if (skipJoint && (*skipJoint)[k]) continue;
    const bool act = k < in.actuator.size() && in.actuator[k].any();
    if (!(j.hasSpring || j.hasDamper || act)) continue;
    const int a = j.geo.parent, b = j.geo.child;
    evalJointMinimal(j.geo, jointPoses(j.geo, s), me);
    Vec6 u = act ? in.actuator[k] : Vec6::Zero();
    if (j.hasSpring) u -= j.stiffness.cwiseProduct(me.theta - j.rest);
    if (j.hasDamper) {
      u -= j.damping.cwiseProduct(jointRate(j.geo, me, s));
    }
    if (a >= 0) {
      f.segment<3>(6 * a) += me.dxa.transpose() * u;
      f.segment<3>(6 * a + 3) += me.dtha.transpose() * u;
    }
    f.segment<3>(6 * b) += me.dxb.transpose() * u;
    f.segment<3>(6 * b + 3) += me.dthb.transpose() * u;
  }
  // Tendons: coef · T on each term's coordinate, T from the joints' coordinates and rates now.
  for (const TendonDesc& t : sys.model.tendons) {
    if (t.stiffness == 0 && t.damping == 0) continue;
    double length = 0, rate = 0;
    for (const TendonTerm& term : t.terms) {
      const CompiledJoint& j = sys.joints[size_t(term.joint)];
      evalJointMinimal(j.geo, jointPoses(j.geo, s), me);
      length += term.coef * me.theta(term.coordinate);
      rate += term.coef * jointRate(j.geo, me, s)(term.coordinate);
    }
    const double tension = tendonTension(t, length, rate);
    for (const TendonTerm& term : t.terms) {
      const CompiledJoint& j = sys.joints[size_t(term.joint)];
      evalJointMinimal(j.geo, jointPoses(j.geo, s), me);
      const double u = term.coef * tension;
      const int a = j.geo.parent, b = j.geo.child;
      if (a >= 0) {
        f.segment<3>(6 * a) += me.dxa.row(term.coordinate).transpose() * u;
        f.segment<3>(6 * a + 3) += me.dtha.row(term.coordinate).transpose() * u;
      }
      f.segment<3>(6 * b) += me.dxb.row(term.coordinate).transpose() * u;
      f.segment<3>(6 * b + 3) += me.dthb.row(term.coordinate).transpose() * u;
    }
  }
}

bool AccelDynamics::factor(const State& s) {
  const int nb = numBodies();
  // Fill-in blocks hold the previous factors: start from zero, identity on every non-body node.
  kkt_.setZero();
  for (int n = nb; n < sys_->numNodes; ++n) kkt_.diag(n).setIdentity();
  for (int i = 0; i < nb; ++i) {
    Mat6& D = kkt_.diag(i);
    D.topLeftCorner<3, 3>().diagonal().setConstant(sys_->bodies[i].mass);
    D.bottomRightCorner<3, 3>() = sys_->bodies[i].inertia;
  }
  JointConstraintEval& G = eval_;
  for (const CompiledJoint& j : sys_->joints) {
    if (j.node < 0) continue;
    evalJointConstraint(j.geo, jointPoses(j.geo, s), G);
    Mat6& D = kkt_.diag(j.node);
    for (int q = 0; q < j.geo.constrained(); ++q) D(q, q) = 0.0;
    // (joint row, body column) = [G_x G_θ]; (body row, joint column) = −[G_x G_θ]ᵀ. Padding rows of
    // G are zero.
    Mat6& JB = kkt_.block(j.blockJB);
    JB.leftCols<3>() = G.dxb;
    JB.rightCols<3>() = G.dthb;
    kkt_.block(j.blockBJ) = -JB.transpose();
    if (j.geo.parent >= 0) {
      Mat6& JA = kkt_.block(j.blockJA);
      JA.leftCols<3>() = G.dxa;
      JA.rightCols<3>() = G.dtha;
      kkt_.block(j.blockAJ) = -JA.transpose();
    }
  }
  return kkt_.factor();
}

void AccelDynamics::solve(const VecX& f, const VecX* c, VecX& accel, VecX* lambda) const {
  const int nb = numBodies();
  MS_ASSERT(f.size() == 6 * nb, "applied forces: 6 per body");
  rhs_.setZero();
  rhs_.head(6 * nb) = f;
  if (c) {
    MS_ASSERT(c->size() == 6 * int(sys_->joints.size()), "constraint right-hand side: 6 per joint");
    for (size_t k = 0; k < sys_->joints.size(); ++k) {
      const CompiledJoint& j = sys_->joints[k];
      if (j.node >= 0) rhs_.segment(6 * j.node, j.geo.constrained()) = c->segment(6 * k, j.geo.constrained());
    }
  }
  kkt_.solve(rhs_, sol_);
  if (accel.size() != 6 * nb) accel.resize(6 * nb);
  accel = sol_.head(6 * nb);
  if (lambda) {
    const int nj = int(sys_->joints.size());
    if (lambda->size() != 6 * nj) lambda->resize(6 * nj);
    for (int k = 0; k < nj; ++k) {
      const CompiledJoint& j = sys_->joints[k];
      if (j.node >= 0) {
        lambda->segment<6>(6 * k) = sol_.segment<6>(6 * j.node);
        lambda->segment(6 * k + j.geo.constrained(), 6 - j.geo.constrained()).setZero();
      } else {
        lambda->segment<6>(6 * k).setZero();
      }
    }
  }
}

Vec6 AccelDynamics::jointBias(int k, const State& s) const {
  const JointGeometry& j = sys_->joints.at(k).geo;
  Vec6 out = Vec6::Zero();
  if (j.constrained() == 0) return out;
  // Parent (a) state; the world is at rest at the origin.
  Vec3 xa = Vec3::Zero(), va = Vec3::Zero(), wa = Vec3::Zero();
  Vec4 qa(1, 0, 0, 0);
  if (j.parent >= 0) {
    const BodyState& a = s.bodies[j.parent];
    xa = a.x;
    va = a.v;
    wa = a.w;
    qa = a.q;
  }
  const BodyState& b = s.bodies[j.child];
  // Translational rows: d²/dt² of Q_oᵀ(Q_aᵀ e − p_a).
  if (j.nT > 0) {
    const Mat3 Ra = quat::rotation(qa), Rb = quat::rotation(b.q);
    const Vec3 e = b.x + Rb * j.pb - xa;
    const Vec3 wpb = b.w.cross(j.pb);
    const Vec3 edot = b.v + Rb * wpb - va;
    const Vec3 eddot = Rb * b.w.cross(wpb);
    const Vec3 r = Ra.transpose() * e;
    const Vec3 RaTedot = Ra.transpose() * edot;
    const Vec3 rdot = -wa.cross(r) + RaTedot;
    const Vec3 rddot = -wa.cross(rdot) - wa.cross(RaTedot) + Ra.transpose() * eddot;
    const Vec3 gddot = j.Ro.transpose() * rddot;
    for (int r0 = 0; r0 < j.nT; ++r0) out(r0) = j.DT.row(r0).dot(gddot);
  }
  // Rotational rows: d²/dt² of vec(q_off⁻¹ q_a⁻¹ q_b).
  if (j.nR > 0) {
    const Vec4 p = quat::mul(quat::conj(j.qoff), quat::mul(quat::conj(qa), b.q));
    const Vec4 W = pure(j.Ro.transpose() * wa), Wb = pure(b.w);
    const Vec4 WP = quat::mul(W, p), PWb = quat::mul(p, Wb);
    const Vec4 pddot = 0.25 * (quat::mul(W, WP) - 2.0 * quat::mul(WP, Wb) + quat::mul(PWb, Wb));
    const Vec3 pv = pddot.tail<3>();
    for (int r0 = 0; r0 < j.nR; ++r0) out(j.nT + r0) = j.DR.row(r0).dot(pv);
  }
  return out;
}

void AccelDynamics::constraintRhs(const State& s, double alpha, double beta, VecX& c) const {
  const int nj = int(sys_->joints.size());
  if (c.size() != 6 * nj) c.resize(6 * nj);
  const bool baumgarte = alpha != 0 || beta != 0;
  JointConstraintEval& G = eval_;
  for (int k = 0; k < nj; ++k) {
    const CompiledJoint& j = sys_->joints[k];
    Vec6 rhs = -jointBias(k, s);
    if (j.node >= 0 && baumgarte) {
      evalJointConstraint(j.geo, jointPoses(j.geo, s), G);
      const BodyState& b = s.bodies[j.geo.child];
      Vec6 gdot = G.dxb * b.v + G.dthb * b.w;
      if (j.geo.parent >= 0) gdot += G.dxa * s.bodies[j.geo.parent].v + G.dtha * s.bodies[j.geo.parent].w;
      rhs -= 2.0 * alpha * gdot + beta * beta * G.g;
    }
    c.segment<6>(6 * k) = rhs;
  }
}

bool AccelDynamics::accelerations(const StepSettings& st, const Inputs& in, const State& s, double alpha, double beta,
                                  VecX& accel) {
  if (!factor(s)) return false;
  appliedForces(st, in, s, f_);
  constraintRhs(s, alpha, beta, c_);
  solve(f_, &c_, accel, nullptr);
  return true;
}

Vec6 AccelDynamics::constraintRate(int k, const State& s) const {
  const CompiledJoint& j = sys_->joints.at(k);
  if (j.geo.constrained() == 0) return Vec6::Zero();
  JointConstraintEval& G = eval_;
  evalJointConstraint(j.geo, jointPoses(j.geo, s), G);
  const BodyState& b = s.bodies[j.geo.child];
  Vec6 gdot = G.dxb * b.v + G.dthb * b.w;
  if (j.geo.parent >= 0) gdot += G.dxa * s.bodies[j.geo.parent].v + G.dtha * s.bodies[j.geo.parent].w;
  return gdot;
}

bool AccelDynamics::projectVelocities(State& s) {
  // δν with M δν − Gᵀμ = 0, G δν = −Gν: the mass-metric nearest velocities with G(ν + δν) = 0.
  const int nb = numBodies(), nj = int(sys_->joints.size());
  if (nj == 0) return true;
  if (!factor(s)) return false;
  for (int k = 0; k < nj; ++k) c_.segment<6>(6 * k) = -constraintRate(k, s);
  f_.setZero();
  solve(f_, &c_, accel_, nullptr);
  if (!accel_.allFinite()) return false;
  for (int i = 0; i < nb; ++i) {
    s.bodies[i].v += accel_.segment<3>(6 * i);
    s.bodies[i].w += accel_.segment<3>(6 * i + 3);
  }
  return true;
}

}  // namespace ms
