// SPDX-License-Identifier: GPL-3.0-or-later
// Soft contacts: a linear spring–damper per candidate contact point with an anchor point and a
// projected Coulomb cone (Hammoud et al. 2021, "Exponential integration for efficient and accurate
// multi-body simulation with stiff viscoelastic contacts"):
//   (1)–(2)  λ = −K (p − p₀) − B (ṗ − ṗ₀)        (3D force on body B at its contact point, world)
//   (21)–(22) unilateral λₙ ≥ 0 and Coulomb ‖λₜ‖ ≤ μ λₙ, enforced by projection
//   (27)–(28) slipping: ṗ₀ᵗ := ṗᵗ and p₀ᵗ := pᵗ + λₜ/K with λ projected onto the cone; while a point
//            slips its tangential force stays on the cone's boundary against the sliding velocity,
//            λₜ = −μ λₙ ŝ (27), with λₙ from the normal spring–damper (SoftPoint::forceMap).
//
// The candidates are those of CompiledSystem::contacts (ground planes by contact::shapePlane,
// contact pairs by contact::shapePair). A point is in contact while φ ≤ 0. Its anchor p₀ is a
// material point of body A (the world for a ground plane), placed at A's witness point (the
// surface point under p, so the normal spring starts at the penetration −φ) when contact is first
// detected and released when φ > 0 again. The anchor lives in State::softAnchor (A's frame) with
// its mode in State::softActive, so history and branching copy it.
//
// Projection onto the cone (here and in the exponential integrator's (24)–(26)): the normal
// component is clamped at 0 and the tangential one scaled down to μ λₙ (the radial projection of
// time-stepping simulators, which keeps the normal force, rather than the Euclidean projection).
//
// Forces are generalised forces 6 per body [force (world); torque (body frame)] as in
// AccelDynamics: a world force F at the body point l (body frame) gives [F; l × Qᵀ F]. The
// reaction −λ acts on body A at the anchor.
//
// No heap allocation in the per-step functions below except evaluateSoftContacts' output vector,
// which the caller sizes once (sys.contacts.size()).
#pragma once

#include <vector>

#include "core/types.h"
#include "integrator/integrator.h"
#include "integrator/integrator_options.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

// One candidate point in contact (φ ≤ 0) at a state.
struct SoftPoint {
  int contact = -1;          // index into CompiledSystem::contacts
  int body = 0, bodyA = -1;  // body B (the point's) and body A (the anchor's; −1: the world)
  double mu = 0;             // the group's friction coefficient
  double phi = 0;            // signed distance at the state
  bool slipping = false;     // anchor mode 2: the anchor slides with the point (ṗ₀ᵗ = ṗᵗ)
  Vec3 slip = Vec3::Zero();  // slipping: unit direction ŝ of the tangential sliding velocity (else 0)
  Vec3 n = Vec3::UnitZ();    // unit normal (world), from A to B
  Vec3 p = Vec3::Zero();     // contact point on B (world)
  Vec3 p0 = Vec3::Zero();    // anchor (world)
  Vec3 lB = Vec3::Zero();    // contact point in B's frame
  Vec3 lA = Vec3::Zero();    // anchor in A's frame (world for the ground)
  Mat3 RB = Mat3::Identity(), RA = Mat3::Identity();  // body → world rotations
  Vec3 dp = Vec3::Zero();    // Δp = p − p₀
  Vec3 dpdot = Vec3::Zero(); // Δṗ = ṗ − ṗ_A (velocity of p relative to A's material point at the anchor)
  Vec3 bias = Vec3::Zero();  // J̇ν: relative acceleration of p over the anchor at zero ν̇
  // The force as a linear map of the spring–damper force −KΔp − BΔṗ: I while sticking; while
  // slipping C = (n − μŝ)nᵀ: the normal spring–damper λₙ and the tangential force on the cone's
  // boundary against the slip, λₜ = −μ λₙ ŝ (the paper's (27): λ̇ᵗ = μ λ̇ⁿ while slipping).
  Mat3 forceMap() const { return slipping ? Mat3((n - mu * slip) * n.transpose()) : Mat3::Identity(); }
  EIGEN_MAKE_ALIGNED_OPERATOR_NEW
};
using SoftPoints = std::vector<SoftPoint, Eigen::aligned_allocator<SoftPoint>>;

// The candidates of contact group `grp` at state s (a shape against its ground plane, or the closest
// points of a pair); zb and za receive the poses of body B and of body A (pairs only).
void groupCandidatesAt(const CompiledContactGroup& grp, const State& s, contact::ContactSet& out, contact::BodyPose& zb,
                       contact::BodyPose& za);

// The points in contact at s (φ ≤ 0) into `out` (resized to their number; reserve
// sys.contacts.size() once and nothing allocates). A point without an anchor (softActive = 0, e.g.
// the first step) gets A's witness point as a provisional anchor, sticking. Returns the smallest φ
// over all candidates (+∞ without contacts).
double evaluateSoftContacts(const CompiledSystem& sys, const State& s, SoftPoints& out);

// λ = C (−K Δp − B Δṗ) (paper (2); C = SoftPoint::forceMap()), unprojected.
inline Vec3 softForceRaw(const SoftPoint& c, double K, double B) {
  const Vec3 l = -K * c.dp - B * c.dpdot;
  return c.slipping ? Vec3(c.forceMap() * l) : l;
}
// Projection onto the cone at normal n: λₙ clamped ≥ 0, ‖λₜ‖ scaled down to μ λₙ.
Vec3 projectFrictionCone(const Vec3& lambda, const Vec3& n, double mu);
// The same projection as a linear map S with S λ = projectFrictionCone(λ, n, μ) for this λ:
// 0 if λₙ ≤ 0, else n nᵀ + s (I − n nᵀ) with s = min(1, μλₙ/‖λₜ‖).
Mat3 coneScaling(const Vec3& lambda, const Vec3& n, double mu);
// Adds the generalised force of the world force F on B at its point (and −F on A at the anchor).
void addPointForce(const SoftPoint& c, const Vec3& F, VecX& f);
// J ν̇: the relative acceleration of the point over the anchor for accelerations ν̇ (6 per body),
// without the bias J̇ν.
Vec3 pointAcceleration(const SoftPoint& c, const VecX& accel);

// ---- Hooks for the acceleration-level (explicit) integrators --------------------------------
// Adds the projected spring–damper forces of every point in contact at s to f (6 per body).
// Evaluated at whatever state it is given (an RK stage too); anchors are read, never changed.
void addSoftContactForces(const CompiledSystem& sys, const IntegratorOptions& o, const State& s, VecX& f);
// Anchor update, once at the end of a step on the new state: release points with φ > 0, anchor new
// points at A's witness point, and for each point in contact test the sticking force
// (ṗ₀ = A's material velocity) against the cone; outside it the point slips and its anchor moves by
// (28). Also records the soft contacts for display and metrics: contactGap = φ, contactImpulse =
// the projected force at the new state as [λₙ, 0, β₁..β₄] (β_k = max(0, λₜ·d_k) along the
// friction directions ±t1, ±t2), and fills report.penetration = max(0, −min φ) and
// report.activeContacts = points in contact with λₙ > 0.
void updateSoftAnchors(const CompiledSystem& sys, const IntegratorOptions& o, State& s, StepReport* report = nullptr);

}  // namespace ms
