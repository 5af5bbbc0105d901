// SPDX-License-Identifier: GPL-3.0-or-later
// Residual and Newton-matrix assembly of the variational step (Brüdigam et al. 2023, §3.1–3.5,
// Appendix D): prepare (the knot z1 and what stays constant over a solve) and evaluate (the residual
// at an iterate and, optionally, its exact Jacobian in the graph LDU's blocks).
//
// A step computes z1 = z_k ⊕ ż_k Δt by (11) and (17), then solves for ż1 = (v, ω) of every body and
// λ of every joint:
//   translational (10):  m (v − v₀)/Δt − m g − f − Σ G_x(z1)ᵀ λ                         = 0
//   rotational (16):     J ω s(ω) + ω×Jω − (J ω₀ s(ω₀) − ω₀×Jω₀) − 2τ − Σ 2 G_θ(z1)ᵀ λ = 0
//   constraints (20b):   g(z2(ż1)) = 0,   z2 = (x1 + vΔt, q1·[s(ω), ω]Δt/2),  s(ω) = √(4/Δt² − ωᵀω)
// G_θ = ∂g/∂θ (body-frame rotation), so 2 G_θ is the rotational Jacobian of (A.8) and τ the
// body-frame torque (f world frame). Joint efforts u (springs at z1, actuators, dampers) act through
// the minimal-coordinate Jacobian: f = (∂θ/∂x)ᵀ u, τ = (∂θ/∂θ_body)ᵀ u.
// Dampers use the unknown velocity (implicit): u = −c θ̇, θ̇ = J_min(z1) ż1 (the joint's dampers and
// the D terms of PD controllers, Inputs::damping). Their efforts u are unknowns of the joint node,
// in the rows after its n_c constraint rows: w (u + c θ̇) = 0, the bodies feel −J_minᵀ u as they
// feel −Gᵀλ, so the parent–child coupling runs through the node and Newton is exact for any c.
// Newton matrix (unsymmetric, hence LDU): body rows [∂d/∂ż, −Gᵀ(z1)], joint rows
// [∂g(z2)/∂ż = (G_x Δt, G_θ(z2)·Φ(ω)), 0] with Φ(ω) = ∂θ₂/∂ω (quaternion.h). Joint nodes are
// padded to 6 rows with identity rows.
// Contacts (§3.3–3.5, (29a)–(29f)): each contact node holds y = [γ, ψ, β₁..β₄] (impulses in N:
// normal, friction-cone multiplier, friction along 4 tangent directions d_k) with rows
// c(ż, y) = [φ(z2), μγ − Σβ, Bż + ψ] (the contact step subtracts the slacks s ≥ 0, s∘y = 0). The
// bodies feel −N(z1)ᵀγ − B(z1)ᵀβ (rotational rows doubled as for joints).
// More friction directions (n_f = 6, 8, 10; d_k at angles 2πk/n_f, d_{k+n_f/2} = −d_k): the
// contact node keeps [γ, ψ, β₁..β₄]; a companion node E holds y_E = [β₅..β_{n_f}, 0…] with rows
//   η_k = b_k ż + ψ + ε_f β_k − s_k  (k = 5..n_f, pairs),   y_E,q = 0 (q ≥ n_f − 4, padding),
// the cone row becomes μγ − Σ_{k=1..n_f} β_k + ε_fψ, and the bodies feel −B_Eᵀ β_E too. Blocks:
// (E, body) = [B_E; 0], (body, E) = −B_Eᵀ (rotational rows doubled), (contact row 1, E's β) = −1,
// (E's η rows, ψ) = +1, diag(E) = diag(ε_f…, 1…).
// Joint limits (revolute angle, prismatic travel; the inequalities of (22)–(24) with the joint's
// minimal coordinate θ of (B.7b) as the constraint function, Appendix D): one node per limited
// joint, y = [γ_lo, γ_hi, 0, 0, 0, 0], rows
//   s_lo = θ(z2) − lower + ε_l γ_lo,   s_hi = upper − θ(z2) + ε_l γ_hi,   s∘y = 0,
// evaluated at the next knot z2(ż1) like φ(z2) of a contact; the bodies feel the effort
// u = γ_lo − γ_hi through the minimal-coordinate Jacobian at z1 like an actuator: f = (∂θ/∂x)ᵀu,
// rotational rows 2(∂θ/∂θ_body)ᵀu. ∂θ(z2)/∂ż = [∂θ/∂x Δt, ∂θ/∂θ_body Φ(ω)] at z2, as the joint rows.
// Rows 2–5 are equality padding rows y = 0 (identity diagonal, no coupling): they are not
// complementarity pairs, so the barrier, the fraction to the boundary and the convergence test see
// only the two real pairs.
// Joint couplings (CouplingDesc: θ_a = offset + m θ_b on two joints' minimal coordinates of (B.7b)):
// an equality like a joint's rows, c(z2) = θ_a(z2) − m θ_b(z2) − offset = 0, with its multiplier λ an
// effort through the minimal-coordinate Jacobians at z1 (λ on θ_a, −mλ on θ_b): the bodies feel
// −(∂c/∂z)(z1)ᵀλ as they feel −G(z1)ᵀλ of a joint, so the discrete Euler–Lagrange equations keep
// their form (the coupling is a holonomic constraint; it does no work). Rows 1–5 are padding y = 0.
// Contacts and limits that are not candidates of a step (vi_candidates.cc)
// are six equality rows y = 0 each.
#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/quaternion.h"
#include "dynamics/spring_force.h"
#include "dynamics/tendon_force.h"
#include "integrator/vi_internal.h"

namespace ms {

namespace {
// Relative regularisation of the constraint pivots (Schur complements scale with Δt²/m).
constexpr double kRegularization = 1e-10;
// Contact compliance: the gap row is φ(z₂) + ε_n·γ − s = 0 with ε_n = kNormalCompliance·Δt²
// (1e-11 m per N at Δt = 0.01: a 1 kg box resting on 4 corners sinks 2.5e-11 m), the cone and
// friction rows gain ε_f·ψ and ε_f·β_k with ε_f = kFrictionCompliance·Δt (a 1 kg box sticking on
// a 20° incline moves 2.1e-7 m in 2 s). The compliance is part of the residual, not only of the
// matrix: the Newton matrix is then the exact Jacobian, and the impulses of statically
// indeterminate contact sets are unique (the minimum-compliance-energy split; docs/engine.md,
// "Contacts and friction", compliance).
constexpr double kNormalCompliance = 1e-7;
constexpr double kFrictionCompliance = 1e-6;
// Joint-limit compliance: ε_l = kLimitCompliance·Δt² (rad per N·m or m per N), as the contact gap
// row: a limit holding 10 N·m at Δt = 0.01 gives way by 1e-10 rad. In the residual and the matrix.
constexpr double kLimitCompliance = 1e-7;
}  // namespace

namespace vi {

// Friction rows B(z1) of every contact candidate at the knot, polygons turned by `twist`.
void frictionRowsAtKnot(const CompiledSystem& sys, const VariationalIntegrator::Impl& m,
                        std::vector<contact::FrictionRows>& out, double twist) {
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    contact::BodyPose za, zb;
    if (grp.bodyA >= 0) za = {m.x1[grp.bodyA], m.q1[grp.bodyA]};
    zb = {m.x1[grp.body], m.q1[grp.body]};
    for (int k = 0; k < grp.count; ++k)
      contact::frictionRows(m.set1[gi].contacts[k], grp.bodyA >= 0 ? &za : nullptr, zb, sys.frictionDirections,
                            out[grp.first + k], twist);
  }
}

// Prepare the knot z1, constant forces and G(z1) for one step of length Δt = st.dt from a state
// whose velocities belong to an interval of length h0 (= Δt except around a subdivided step, see
// VariationalIntegrator::advance). Returns false if |ω₀| ≥ 2/h0.
// Variable steps (h0 ≠ Δt): the discrete momenta are those of each interval's own length, and the
// forces at the knot z1 act over the mean of the two intervals. Multiplied by Δt/2, (16) reads
//   (Δt/2)(Jω s_Δt(ω) + ω×Jω) − (h0/2)(Jω₀ s_h0(ω₀) − ω₀×Jω₀) − ((h0 + Δt)/2) τ − Δt G_θᵀλ = 0,
// and (10) m v − m v₀ − ((h0 + Δt)/2) f − Δt G_xᵀλ = 0; with h0 = Δt both are (10) and (16).
bool prepare(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const StepSettings& st, const Inputs& in,
             const State& state, double h0) {
  const double dt = st.dt;
  m.dt = dt;
  m.h0 = h0;
  const int nb = int(sys.bodies.size());
  // The candidate sets at z1 and z2 (once per system; in the storage of the integrator this one
  // replaced, if any: VariationalIntegrator::reuseWorkspace).
  if (m.set1.size() != sys.contactGroups.size()) {
    m.set1.resize(sys.contactGroups.size());
    m.set2.resize(sys.contactGroups.size());
  }
  double totalMass = 0;
  // Knot z1 by (11) and (17); previous angular momentum term of (16); gravity and external wrenches.
  for (int i = 0; i < nb; ++i) {
    const BodyState& b = state.bodies[i];
    const CompiledBody& cb = sys.bodies[i];
    // h0 = 0 (the velocities are the continuous ones at the knot, State::kVelocitiesAtKnot): z1 = z
    // and the previous momentum's limit (2/Δt) J ω₀ — the half kick of the discrete Legendre transform.
    Vec4 inc(1, 0, 0, 0);
    if (h0 > 0 && !quat::incrementFromVelocity(b.w, h0, inc)) return false;
    m.x1[i] = b.x + b.v * h0;
    m.q1[i] = quat::mul(b.q, inc).normalized();
    m.v0[i] = b.v;
    const Vec3 Jw0 = cb.inertia * b.w;
    m.momentum0[i] = h0 > 0 ? Vec3((h0 / dt) * (Jw0 * std::sqrt(4.0 / (h0 * h0) - b.w.squaredNorm()) - b.w.cross(Jw0)))
                            : Vec3((2.0 / dt) * Jw0);
    m.force[i] = cb.mass * st.gravity + in.force[i];
    m.torque[i] = quat::rotation(m.q1[i]).transpose() * in.torque[i];
    totalMass += cb.mass;
  }
  m.damperWeight = 1.0 / std::max(1.0, totalMass * st.gravity.norm());
  // Springs between bodies: force along the line of their points at z1 (the gradient of
  // ½k(|d| − L)², variational), damping from the velocities ż0 that led to z1 (explicit).
  for (const SpringDesc& sp : sys.model.springs) {
    const int a = sp.bodyA, b = sp.bodyB;
    SpringEnd A, B;
    if (a >= 0) A = {m.x1[a], quat::rotation(m.q1[a]), state.bodies[a].v, state.bodies[a].w};
    if (b >= 0) B = {m.x1[b], quat::rotation(m.q1[b]), state.bodies[b].v, state.bodies[b].w};
    Vec3 fb, ta, tb;
    if (!springForce(sp, A, B, fb, ta, tb)) continue;  // direction undefined: no force at zero length
    if (b >= 0) {
      m.force[b] += fb;
      m.torque[b] += tb;
    }
    if (a >= 0) {
      m.force[a] -= fb;
      m.torque[a] += ta;
    }
  }
  // Joint Jacobians at z1; spring and actuator efforts mapped to body wrenches.
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    const JointPoses z = posesOf(j.geo, m.x1, m.q1);
    if (j.node >= 0) evalJointConstraint(j.geo, z, m.g1[k]);
    const bool act = in.actuator[k].any();
    m.damping[k] = j.hasDamper ? j.damping : Vec6::Zero();
    if (k < in.damping.size()) m.damping[k] += in.damping[k];
    // Dampers act over the mean interval (h0 + Δt)/2, as the forces at the knot (below): over Δt/2 in
    // the half kick of a start (h0 = 0), where a damper over Δt put the first rates O(Δt) off.
    if (h0 != dt) m.damping[k] *= 0.5 * (h0 + dt) / dt;
    // Armature a: the effort −a (θ̇₁ − θ̇₀)/Δt is a damper a/Δt on the unknown rate θ̇₁ plus the
    // constant effort (a/Δt) θ̇₀ (added below, after the force scaling; a change of momentum, not scaled).
    if (j.hasArmature) m.damping[k] += j.armature / dt;
    m.damped[k] = m.damping[k].any();
    m.needsMinimal[k] = j.hasSpring || m.damped[k] || act || j.inTendon || j.inCoupling;
    if (!m.needsMinimal[k]) continue;
    JointMinimalEval& me = m.m1[k];
    evalJointMinimal(j.geo, z, me);
    Vec6 u = in.actuator[k];
    if (j.hasSpring) u -= j.stiffness.cwiseProduct(me.theta - j.rest);
    if (j.geo.parent >= 0) {
      m.force[j.geo.parent] += me.dxa.transpose() * u;
      m.torque[j.geo.parent] += me.dtha.transpose() * u;
    }
    m.force[j.geo.child] += me.dxb.transpose() * u;
    m.torque[j.geo.child] += me.dthb.transpose() * u;
  }
  // Tendons: the spring at z1 (variational, as the joint springs), the damper at the rates ż0 that
  // led to z1 (explicit), coef · T on each term's coordinate.
  for (const TendonDesc& t : sys.model.tendons) {
    if (t.stiffness == 0 && t.damping == 0) continue;
    const auto theta = [&](int k) -> const Vec6& { return m.m1[size_t(k)].theta; };
    const double length = tendonSum(t, theta);
    const double rate = t.damping != 0 ? tendonSum(t, [&](int k) { return jointRate(sys.joints[size_t(k)].geo, m.m1[size_t(k)], state); }) : 0.0;
    const double tension = tendonTension(t, length, rate);
    for (const TendonTerm& term : t.terms) {
      const CompiledJoint& j = sys.joints[size_t(term.joint)];
      const JointMinimalEval& me = m.m1[size_t(term.joint)];
      const double u = term.coef * tension;
      if (j.geo.parent >= 0) {
        m.force[j.geo.parent] += me.dxa.row(term.coordinate).transpose() * u;
        m.torque[j.geo.parent] += me.dtha.row(term.coordinate).transpose() * u;
      }
      m.force[j.geo.child] += me.dxb.row(term.coordinate).transpose() * u;
      m.torque[j.geo.child] += me.dthb.row(term.coordinate).transpose() * u;
    }
  }
  // Forces at the knot act over the mean interval (h0 + Δt)/2: scaled to the residual's 1/Δt.
  if (h0 != dt) {
    const double scale = 0.5 * (h0 + dt) / dt;
    for (int i = 0; i < nb; ++i) {
      m.force[i] *= scale;
      m.torque[i] *= scale;
    }
  }
  // Armature: the momentum a θ̇₀ of the interval that led to z1 (θ̇₀ = J_min(z1) ż₀), as the effort
  // (a/Δt) θ̇₀ — a change of momentum, like m (v − v₀)/Δt, so not scaled with the forces.
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    if (!j.hasArmature) continue;
    const JointMinimalEval& me = m.m1[k];
    const Vec6 u = j.armature.cwiseProduct(jointRate(j.geo, me, state)) / dt;
    if (j.geo.parent >= 0) {
      m.force[j.geo.parent] += me.dxa.transpose() * u;
      m.torque[j.geo.parent] += me.dtha.transpose() * u;
    }
    m.force[j.geo.child] += me.dxb.transpose() * u;
    m.torque[j.geo.child] += me.dthb.transpose() * u;
  }
  // Joint limits: minimal-coordinate Jacobians at z1 (the limit efforts act through them).
  for (const CompiledLimit& l : sys.limits) {
    const CompiledJoint& j = sys.joints[l.joint];
    if (!m.needsMinimal[l.joint]) evalJointMinimal(j.geo, posesOf(j.geo, m.x1, m.q1), m.m1[l.joint]);
  }
  m.pairsRechosen = 0;
  // Contact candidates at z1: normals and points for the impulses, friction rows B(z1). A pair's
  // face manifold is chosen here, with the bodies' motion over the step as its margin (twice the
  // previous velocities' reach: |v| Δt + |ω| r Δt per body).
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    if (grp.bodyA >= 0) {
      const BodyState &a = state.bodies[grp.bodyA], &b = state.bodies[grp.body];
      m.features[gi].motion = 2.0 * dt * (a.v.norm() + a.w.norm() * contact::shapeReach(grp.shapeA) + b.v.norm() +
                                          b.w.norm() * contact::shapeReach(grp.shape));
    }
    contactCandidates(grp, m.x1, m.q1, m.set1[gi], m.features[gi], true);
  }
  frictionRowsAtKnot(sys, m, m.fr, m.frictionTwist);
  return true;
}

// Residual of (20a)–(20b) and (optionally) the Newton matrix at iterate `x`. False if |ω| ≥ 2/Δt.
bool evaluate(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const VecX& x, VecX& r, GraphLDU* F) {
  const double dt = m.dt;
  const int nb = int(sys.bodies.size());
  // One island's bodies, joints, candidate groups and limits (m.island ≥ 0), or all of them.
  const Islands& is = m.islands;
  const int isl = m.island;
  const IndexRange bodies = islandRange(is.bodies, is.bodyStart, isl, nb);
  const IndexRange joints = islandRange(is.joints, is.jointStart, isl, int(sys.joints.size()));
  const IndexRange groups = islandRange(is.groups, is.groupStart, isl, int(sys.contactGroups.size()));
  const IndexRange limits = islandRange(is.limits, is.limitStart, isl, int(sys.limits.size()));
  const IndexRange couplings = islandRange(is.couplings, is.couplingStart, isl, int(sys.couplings.size()));
  // Fill-in blocks (closed loops) still hold factors from the previous iteration: clear them (a
  // step solved by islands clears them once, excludedRows).
  if (F && sys.order.fillIn > 0 && isl < 0) F->setFillInZero();
  // Another matrix than last time: every contact's rows are written again.
  if (F && F != m.excludedMatrix) {
    m.excludedClean.assign(sys.contacts.size(), 0);
    m.excludedMatrix = F;
  }
  // Bodies: next knot z2, dynamics residuals (10), (16) and their diagonal blocks.
  for (int bi = bodies.begin; bi < bodies.end; ++bi) {
    const int i = bodies[bi];
    const CompiledBody& cb = sys.bodies[i];
    const Vec3 v = x.segment<3>(6 * i), w = x.segment<3>(6 * i + 3);
    Vec4 inc;
    if (!quat::incrementFromVelocity(w, dt, inc)) return false;
    m.x2[i] = m.x1[i] + v * dt;
    m.q2[i] = quat::mul(m.q1[i], inc);
    const double s = std::sqrt(4.0 / (dt * dt) - w.squaredNorm());
    const Vec3 Jw = cb.inertia * w;
    r.segment<3>(6 * i) = cb.mass * (v - m.v0[i]) / dt - m.force[i];
    r.segment<3>(6 * i + 3) = Jw * s + w.cross(Jw) - m.momentum0[i] - 2.0 * m.torque[i];
    if (F) {
      m.phi[i] = quat::incrementJacobian(w, dt);
      Mat6& D = F->diag(i);
      D.setZero();
      D.topLeftCorner<3, 3>().diagonal().setConstant(cb.mass / dt);
      D.bottomRightCorner<3, 3>() =
          cb.inertia * s - (Jw * w.transpose()) / s + quat::skew(w) * cb.inertia - quat::skew(Jw);
    }
  }
  // Joints: constraint forces G(z1)ᵀλ on the bodies, constraint rows g(z2), dampers.
  for (int ji = joints.begin; ji < joints.end; ++ji) {
    const int k = joints[ji];
    const CompiledJoint& j = sys.joints[k];
    const int a = j.geo.parent, b = j.geo.child;
    if (j.node >= 0) {
      const JointConstraintEval& G = m.g1[k];
      const Vec6 lam = x.segment<6>(6 * j.node);
      if (a >= 0) {
        r.segment<3>(6 * a) -= G.dxa.transpose() * lam;
        r.segment<3>(6 * a + 3) -= 2.0 * G.dtha.transpose() * lam;
      }
      r.segment<3>(6 * b) -= G.dxb.transpose() * lam;
      r.segment<3>(6 * b + 3) -= 2.0 * G.dthb.transpose() * lam;
      const JointPoses z2 = posesOf(j.geo, m.x2, m.q2);
      if (F) {
        evalJointConstraint(j.geo, z2, m.g2);
        r.segment<6>(6 * j.node) = m.g2.g;
        // Joint diagonal: a tiny ε on constraint rows (regularises near-singular configurations;
        // the residual is unchanged), and on padding rows a value of the scale of the joint's
        // Schur complement (Δt²/m), so that pivots are not badly scaled.
        Mat6& D = F->diag(j.node);
        D.setZero();
        for (int q = 0; q < 6; ++q) D(q, q) = q < j.geo.constrained() ? kRegularization * dt * dt : dt * dt;
        // (joint row, body column): ∂g(z2)/∂ż; (body row, joint column): −G(z1)ᵀ.
        Mat6& JB = F->block(j.blockJB);
        JB.leftCols<3>() = m.g2.dxb * dt;
        JB.rightCols<3>() = m.g2.dthb * m.phi[b];
        Mat6& BJ = F->block(j.blockBJ);
        BJ.topRows<3>() = -G.dxb.transpose();
        BJ.bottomRows<3>() = -2.0 * G.dthb.transpose();
        if (a >= 0) {
          Mat6& JA = F->block(j.blockJA);
          JA.leftCols<3>() = m.g2.dxa * dt;
          JA.rightCols<3>() = m.g2.dtha * m.phi[a];
          Mat6& AJ = F->block(j.blockAJ);
          AJ.topRows<3>() = -G.dxa.transpose();
          AJ.bottomRows<3>() = -2.0 * G.dtha.transpose();
        }
      } else {
        r.segment<6>(6 * j.node) = jointConstraintValue(j.geo, z2);
      }
    }
    if (!m.damped[k]) continue;
    const Vec6& c = m.damping[k];
    const JointMinimalEval& me = m.m1[k];
    if (j.node >= 0) {
      // Damper efforts u are unknowns in the joint node's free rows q = n_c + i (i < free):
      // w (u_i + c_i θ̇_i) = 0 with θ̇ = J_min(z1) ż; the bodies feel −J_minᵀ u (rotational rows
      // doubled) like −Gᵀλ. The parent–child coupling then runs through the joint node and Newton
      // stays exact for any damping (w: the body rows' force scale, so the tolerance means the same).
      const int nc = j.geo.constrained(), nf = j.geo.freeCoordinates();
      MS_ASSERT(nc + nf <= 6, "a joint's constraint and free rows exceed its node");
      const double w = m.damperWeight;
      for (int i = 0; i < nf; ++i) {
        const int q = nc + i;
        const double u = x[6 * j.node + q];
        // One body's part: its share of θ̇_i, the effort −J_min,iᵀu on it (rotational rows doubled)
        // and, with the matrix, the blocks (damper row, body) = w c_i ∂θ̇_i/∂ż, (body, damper) = −J_min,iᵀ.
        auto body = [&](int k, const Mat6x3& dx, const Mat6x3& dth, int blockJ, int blockB) {
          r.segment<3>(6 * k) -= dx.row(i).transpose() * u;
          r.segment<3>(6 * k + 3) -= 2.0 * dth.row(i).transpose() * u;
          if (F) {
            Mat6& JX = F->block(blockJ);
            JX.row(q).head<3>() = w * c[i] * dx.row(i);
            JX.row(q).tail<3>() = w * c[i] * dth.row(i);
            Mat6& XJ = F->block(blockB);
            XJ.col(q).head<3>() = -dx.row(i).transpose();
            XJ.col(q).tail<3>() = -2.0 * dth.row(i).transpose();
          }
          return dx.row(i).dot(x.segment<3>(6 * k)) + dth.row(i).dot(x.segment<3>(6 * k + 3));
        };
        double rate = body(b, me.dxb, me.dthb, j.blockJB, j.blockBJ);
        if (a >= 0) rate += body(a, me.dxa, me.dtha, j.blockJA, j.blockAJ);
        r[6 * j.node + q] = w * (u + c[i] * rate);
        if (F) F->diag(j.node)(q, q) = w;
      }
      continue;
    }
    // A joint without a node (nothing constrained): u = −c θ̇ applied directly, implicit in ż; its
    // Jacobian keeps each body's diagonal block (exact for a floating joint to the world).
    Vec6 rate = me.dxb * x.segment<3>(6 * b) + me.dthb * x.segment<3>(6 * b + 3);
    if (a >= 0) rate += me.dxa * x.segment<3>(6 * a) + me.dtha * x.segment<3>(6 * a + 3);
    const Vec6 u = -c.cwiseProduct(rate);
    auto apply = [&](int body, const Mat6x3& dx, const Mat6x3& dth) {
      r.segment<3>(6 * body) -= dx.transpose() * u;
      r.segment<3>(6 * body + 3) -= 2.0 * dth.transpose() * u;
      if (!F) return;
      Eigen::Matrix<double, 6, 6> Jm;  // [dx dth] : minimal rates per body velocity
      Jm.leftCols<3>() = dx;
      Jm.rightCols<3>() = dth;
      Eigen::Matrix<double, 6, 6> JmT = Jm.transpose();
      JmT.bottomRows<3>() *= 2.0;
      F->diag(body).noalias() += JmT * c.asDiagonal() * Jm;
    };
    if (a >= 0) apply(a, me.dxa, me.dtha);
    apply(b, me.dxb, me.dthb);
  }
  // Contacts: impulses −N(z1)ᵀγ − B(z1)ᵀβ on the body (and on body A of a contact pair, whose
  // gradients ∂φ/∂(x_A, θ_A) already carry the sign and whose sliding rows enter with −1); rows
  // c = [φ(z2), μγ − Σβ, Bż + ψ] (the caller subtracts the slacks); blocks ∂c/∂ż, ∂c/∂y, −[Nᵀ 0 Bᵀ].
  // Directions 5..n_f are the rows of the companion node (rows ≥ n_f − 4 of B_E are zero).
  using Mat43 = Eigen::Matrix<double, 4, 3>;
  using Mat63 = Eigen::Matrix<double, 6, 3>;
  const int extra = sys.frictionDirections - kFrictionDirections;
  for (int gr = groups.begin; gr < groups.end; ++gr) {
    const int gi = groups[gr];
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    // Gaps at z2: of every group, or (inside the contact step's iterations) of candidate groups only.
    if (m.allGroups || m.groupOn[gi]) contactCandidates(grp, m.x2, m.q2, m.set2[gi], m.features[gi], false);
    for (int k = 0; k < grp.count; ++k) {
      const CompiledContact& cc = sys.contacts[grp.first + k];
      const contact::Contact& c1 = m.set1[gi].contacts[k];
      const contact::Contact& c2 = m.set2[gi].contacts[k];
      const contact::FrictionRows& fr = m.fr[grp.first + k];
      const Vec6 y = x.segment<6>(6 * cc.node);
      if (!m.contactOn[grp.first + k]) {
        // Not a candidate in this step: equality rows y = 0 (companion too), no impulse, no coupling.
        r.segment<6>(6 * cc.node) = y;
        if (cc.extraNode >= 0) r.segment<6>(6 * cc.extraNode) = x.segment<6>(6 * cc.extraNode);
        if (F && !m.excludedClean[grp.first + k]) {
          excludedContactRows(cc, *F);
          m.excludedClean[grp.first + k] = 1;
        }
        continue;
      }
      if (F) {
        m.excludedClean[grp.first + k] = 0;
        F->setTrivial(cc.node, false);
        if (cc.extraNode >= 0) F->setTrivial(cc.extraNode, false);
      }
      const double gamma = y[0], psi = y[1];
      const Eigen::Vector4d beta = y.tail<4>();
      auto rc = r.segment<6>(6 * cc.node);
      rc[0] = c2.phi;
      rc[1] = grp.friction * gamma - beta.sum();
      rc.tail<4>().setConstant(psi);
      // Compliance (see kNormalCompliance): exact in the residual and in ∂c/∂y.
      rc[0] += kNormalCompliance * dt * dt * gamma;
      rc.tail<5>() += kFrictionCompliance * dt * y.tail<5>();
      // Companion (n_f > 4): β₅..β_{n_f} in the cone row, rows ψ + ε_fβ_k, padding rows y = 0.
      const bool hasE = cc.extraNode >= 0;
      Vec6 yE = Vec6::Zero();
      if (hasE) {
        yE = x.segment<6>(6 * cc.extraNode);
        auto re = r.segment<6>(6 * cc.extraNode);
        for (int q = 0; q < 6; ++q) re[q] = q < extra ? psi + kFrictionCompliance * dt * yE[q] : yE[q];
        rc[1] -= yE.head(extra).sum();
        yE.tail(6 - extra).setZero();  // padding: no impulse
      }
      // One side of the contact: body `b` with gap gradients at z1 / z2 and sliding rows (sign ±1).
      auto side = [&](int b, const contact::Row3& dx1, const contact::Row3& dth1, const contact::Row3& dx2,
                      const contact::Row3& dth2, const Mat43& Bv,
                      const Mat43& Bw, int blockCS, int blockSC, const Mat63& BvE, const Mat63& BwE, int blockES,
                      int blockSE) {
        r.segment<3>(6 * b) -= dx1.transpose() * gamma + Bv.transpose() * beta;
        r.segment<3>(6 * b + 3) -= 2.0 * (dth1.transpose() * gamma + Bw.transpose() * beta);
        rc.tail<4>() += Bv * x.segment<3>(6 * b) + Bw * x.segment<3>(6 * b + 3);
        if (hasE) {
          // Companion directions: impulses on the body, sliding rows (zero rows for the padding).
          r.segment<3>(6 * b) -= BvE.transpose() * yE;
          r.segment<3>(6 * b + 3) -= 2.0 * BwE.transpose() * yE;
          r.segment<6>(6 * cc.extraNode) += BvE * x.segment<3>(6 * b) + BwE * x.segment<3>(6 * b + 3);
        }
        if (!F) return;
        if (hasE) {
          // (companion row, body column): B_E; (body row, companion column): −B_Eᵀ.
          Mat6& ES = F->block(blockES);
          ES.leftCols<3>() = BvE;
          ES.rightCols<3>() = BwE;
          Mat6& SE = F->block(blockSE);
          SE.topRows<3>() = -BvE.transpose();
          SE.bottomRows<3>() = -2.0 * BwE.transpose();
        }
        Mat6& CS = F->block(blockCS);
        CS.setZero();
        CS.block<1, 3>(0, 0) = dx2 * dt;
        CS.block<1, 3>(0, 3) = dth2 * m.phi[b];
        CS.block<4, 3>(2, 0) = Bv;
        CS.block<4, 3>(2, 3) = Bw;
        Mat6& SC = F->block(blockSC);
        SC.setZero();
        SC.block<3, 1>(0, 0) = -dx1.transpose();
        SC.block<3, 1>(3, 0) = -2.0 * dth1.transpose();
        SC.block<3, 4>(0, 2) = -Bv.transpose();
        SC.block<3, 4>(3, 2) = -2.0 * Bw.transpose();
      };
      side(grp.body, c1.dxB, c1.dthB, c2.dxB, c2.dthB, fr.dvB.topRows<4>(), fr.dwB.topRows<4>(), cc.blockCB, cc.blockBC,
           fr.dvB.middleRows<6>(4), fr.dwB.middleRows<6>(4), cc.blockEB, cc.blockBE);
      if (grp.bodyA >= 0)
        side(grp.bodyA, c1.dxA, c1.dthA, c2.dxA, c2.dthA, -fr.dvA.topRows<4>(), -fr.dwA.topRows<4>(), cc.blockCA,
             cc.blockAC, -fr.dvA.middleRows<6>(4), -fr.dwA.middleRows<6>(4), cc.blockEA, cc.blockAE);
      if (!F) continue;
      if (hasE) {
        // Companion: diag(ε_f, …, 1 on padding); (contact row 1, E's β) = −1; (E's rows, ψ) = +1.
        Mat6& DE = F->diag(cc.extraNode);
        DE.setZero();
        for (int q = 0; q < 6; ++q) DE(q, q) = q < extra ? kFrictionCompliance * dt : 1.0;
        Mat6& CE = F->block(cc.blockCE);
        CE.setZero();
        CE.block(1, 0, 1, extra).setConstant(-1.0);
        Mat6& EC = F->block(cc.blockEC);
        EC.setZero();
        EC.block(0, 1, extra, 1).setConstant(1.0);
      }
      // ∂c/∂y with the compliance on the diagonal (without it the φ rows of a box face — 4 gaps,
      // 3 freedoms — make the pivots singular as s/y → 0).
      Mat6& D = F->diag(cc.node);
      D.setZero();
      D.diagonal().setConstant(kFrictionCompliance * dt);
      D(0, 0) = kNormalCompliance * dt * dt;
      D(1, 0) = grp.friction;
      D.block<1, 4>(1, 2).setConstant(-1.0);
      D.block<4, 1>(2, 1).setConstant(1.0);
    }
  }
  // Joint limits: effort u = γ_lo − γ_hi on the bodies through J_min(z1); rows
  // [θ(z2) − lower + ε_l γ_lo, upper − θ(z2) + ε_l γ_hi, y₂..y₅] (the caller subtracts the slacks of
  // rows 0–1); blocks ±∂θ(z2)/∂ż, diag(ε_l, ε_l, 1, 1, 1, 1) and ∓J_min(z1)ᵀ.
  for (int lr = limits.begin; lr < limits.end; ++lr) {
    const int li = limits[lr];
    const CompiledLimit& l = sys.limits[li];
    const CompiledJoint& j = sys.joints[l.joint];
    const int a = j.geo.parent, b = j.geo.child;
    const JointMinimalEval& me1 = m.m1[l.joint];
    JointMinimalEval& me2 = m.lim2[li];
    evalJointMinimal(j.geo, posesOf(j.geo, m.x2, m.q2), me2);
    const Vec6 y = x.segment<6>(6 * l.node);
    const double u = y[0] - y[1], eps = kLimitCompliance * dt * dt;
    if (!m.limitOn[li]) {
      // Not a candidate in this step: six equality rows y = 0, no effort, no coupling.
      r.segment<6>(6 * l.node) = y;
      if (F) excludedLimitRows(l, *F);
      continue;
    }
    if (F) F->setTrivial(l.node, false);
    // Efforts on the bodies (as an actuator): f = (∂θ/∂x)ᵀu, rotational rows 2(∂θ/∂θ)ᵀu.
    if (a >= 0) {
      r.segment<3>(6 * a) -= me1.dxa.row(0).transpose() * u;
      r.segment<3>(6 * a + 3) -= 2.0 * me1.dtha.row(0).transpose() * u;
    }
    r.segment<3>(6 * b) -= me1.dxb.row(0).transpose() * u;
    r.segment<3>(6 * b + 3) -= 2.0 * me1.dthb.row(0).transpose() * u;
    // Limit rows at z2 with the compliance; padding rows y = 0.
    auto rl = r.segment<6>(6 * l.node);
    const double theta2 = l.coordinate(me2.theta[0], m.limitRef[li]);
    rl[0] = theta2 - l.lower + eps * y[0];
    rl[1] = l.upper - theta2 + eps * y[1];
    rl.tail<4>() = y.tail<4>();
    if (!F) continue;
    // ∂c/∂y: the compliance on the pair rows, identity on the padding rows.
    Mat6& D = F->diag(l.node);
    D.setIdentity();
    D(0, 0) = D(1, 1) = eps;
    // (limit row, body column): ±∂θ(z2)/∂ż; (body row, limit column): ∓J_min(z1)ᵀ.
    auto rows = [&](int blk, const Mat6x3& dx2, const Mat6x3& dth2, int body) {
      Mat6& LB = F->block(blk);
      LB.setZero();
      LB.block<1, 3>(0, 0) = dx2.row(0) * dt;
      LB.block<1, 3>(0, 3) = dth2.row(0) * m.phi[body];
      LB.row(1) = -LB.row(0);
    };
    auto cols = [&](int blk, const Mat6x3& dx1, const Mat6x3& dth1) {
      Mat6& BL = F->block(blk);
      BL.setZero();
      BL.block<3, 1>(0, 0) = -dx1.row(0).transpose();
      BL.block<3, 1>(3, 0) = -2.0 * dth1.row(0).transpose();
      BL.col(1) = -BL.col(0);
    };
    rows(l.blockLB, me2.dxb, me2.dthb, b);
    cols(l.blockBL, me1.dxb, me1.dthb);
    if (a >= 0) {
      rows(l.blockLA, me2.dxa, me2.dtha, a);
      cols(l.blockAL, me1.dxa, me1.dtha);
    }
  }
  // Joint couplings: the effort λ on the joint's coordinate and −mλ on the reference's, through
  // J_min(z1) (as an actuator); row 0 c(z2) = θ_a(z2) − m θ_b(z2) − offset (modulo 2π when it
  // wraps), rows 1–5 y = 0; blocks (coupling, body) = Σ coef ∂θ(z2)/∂ż in row 0 and (body,
  // coupling) = −Σ coef J_min(z1)ᵀ in column 0, summed over the joints that share the body.
  for (int cr = couplings.begin; cr < couplings.end; ++cr) {
    const int ci = couplings[cr];
    const CompiledCoupling& c = sys.couplings[ci];
    const Vec6 y = x.segment<6>(6 * c.node);
    const double lambda = y[0];
    auto rc = r.segment<6>(6 * c.node);
    rc = y;
    rc[0] = -c.offset;
    if (F) {
      Mat6& D = F->diag(c.node);
      D.setIdentity();
      D(0, 0) = kRegularization * dt * dt;
      for (int i = 0; i < c.numBodies; ++i) {
        F->block(c.blockCX[i]).setZero();
        F->block(c.blockXC[i]).setZero();
      }
    }
    for (int side = 0; side < 2; ++side) {
      const int k = side == 0 ? c.joint : c.reference;
      if (k < 0) continue;
      const int i = side == 0 ? c.coordinate : c.referenceCoordinate;
      const double coef = side == 0 ? 1.0 : -c.multiplier;
      const CompiledJoint& j = sys.joints[size_t(k)];
      const JointMinimalEval& me1 = m.m1[size_t(k)];
      JointMinimalEval& me2 = m.cpl2[size_t(2 * ci + side)];
      evalJointMinimal(j.geo, posesOf(j.geo, m.x2, m.q2), me2);
      rc[0] += coef * me2.theta[i];
      // One body of the joint: its effort, and with the matrix its blocks.
      auto body = [&](int b, const Mat6x3& dx1, const Mat6x3& dth1, const Mat6x3& dx2, const Mat6x3& dth2) {
        r.segment<3>(6 * b) -= coef * lambda * dx1.row(i).transpose();
        r.segment<3>(6 * b + 3) -= 2.0 * coef * lambda * dth1.row(i).transpose();
        if (!F) return;
        const int slot = int(std::find(c.body, c.body + c.numBodies, b) - c.body);
        MS_ASSERT(slot < c.numBodies, "a coupled joint's body is not among the coupling's");
        Mat6& CX = F->block(c.blockCX[slot]);
        CX.block<1, 3>(0, 0) += coef * dt * dx2.row(i);
        CX.block<1, 3>(0, 3) += coef * dth2.row(i) * m.phi[b];
        Mat6& XC = F->block(c.blockXC[slot]);
        XC.block<3, 1>(0, 0) -= coef * dx1.row(i).transpose();
        XC.block<3, 1>(3, 0) -= 2.0 * coef * dth1.row(i).transpose();
      };
      if (j.geo.parent >= 0) body(j.geo.parent, me1.dxa, me1.dtha, me2.dxa, me2.dtha);
      body(j.geo.child, me1.dxb, me1.dthb, me2.dxb, me2.dthb);
    }
    if (c.wraps) rc[0] = std::remainder(rc[0], 2 * M_PI);
  }
  return true;
}


}  // namespace vi

bool VariationalIntegrator::residualAt(const StepSettings& settings, const Inputs& inputs, const State& state,
                                       const VecX& vel, const VecX& lambda, VecX& residual, bool assembleMatrix) {
  Impl& m = *impl_;
  const double h0 = state.interval > 0 ? state.interval : settings.dt;
  if (!vi::prepare(*sys_, m, settings, inputs, state, h0)) return false;
  const int nb = int(sys_->bodies.size());
  VecX x = VecX::Zero(6 * sys_->numNodes);
  x.head(6 * nb) = vel;
  x.tail(6 * (sys_->numNodes - nb)) = lambda;
  residual.setZero(x.size());
  return vi::evaluate(*sys_, m, x, residual, assembleMatrix ? &matrix_ : nullptr);
}

}  // namespace ms
