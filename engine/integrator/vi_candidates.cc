// SPDX-License-Identifier: GPL-3.0-or-later
// Candidates of a step: which joint limits and contacts enter its complementarity problem, and the
// step solved again when that choice (or a polytope pair's face manifold) does not hold at the
// solution.
// - A limit is a candidate if its distance at z1 is ≤ kLimitMargin + 2|θ̇₀|Δt; a contact if its gap
//   at z1 is ≤ kContactMargin + 2|φ̇₀|Δt (φ̇₀ = ∂φ/∂ż(z1)·ż₀, the rate at the state's velocities).
//   The others are equality rows y = 0 (identity diagonal, no coupling, no impulse), so every step
//   keeps the same graph; they are marked trivial in the graph LDU (GraphLDU::setTrivial), which
//   skips them, so a candidate outside the problem costs nothing in the factorisation. Why: an interior-point dual of a far limit would be ~μ/s instead of 0 (a
//   spurious effort of ~1e-9 N·m), and a far, unloaded contact is a degenerate sliding friction
//   subproblem whose central path sets the step lengths of the whole problem.
// - A step whose solution brings an excluded limit to its bound (s ≤ 0) is solved again with every
//   limit; one whose solution closes an excluded contact (φ(z2) ≤ 0) is solved again with that
//   contact a candidate. An excluded contact that stays open (φ(z2) > 0) carries no impulse in the
//   full problem either (γ = 0, and the cone μγ − Σβ ≥ 0 leaves no friction).
// - A step without contacts and without limit candidates takes the plain Newton path (vi_newton.cc).
// How the rule was found: docs/engine.md, "Capsule pairs, contact candidates and interval growth".
#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "integrator/vi_internal.h"

namespace ms {

namespace {
// Distance (rad or m) beyond the motion 2|θ̇₀|Δt within which a limit is a candidate of the step.
constexpr double kLimitMargin = 0.05;
// Overlap [m] of two polytopes at a step's solution beyond which their face manifold is chosen again
// at that solution and the step solved again (pairsHold; resting contacts overlap by ~1e-10 m).
constexpr double kPairOverlap = 1e-6;
}  // namespace

namespace vi {

// The interior-point pairs: every row of every candidate contact (then the n_f − 4 friction rows of
// its companion), then rows 0–1 (lower, upper) of every candidate limit. The pair vectors keep the
// capacity of all pairs (allocated once); the first numPairs entries are in use.
void selectPairs(const CompiledSystem& sys, VariationalIntegrator::Impl& m) {
  MS_ASSERT(m.contactOn.size() == sys.contacts.size() && m.contactPair.size() == sys.contacts.size(),
            "contact candidate flags sized for another system");
  m.pairRow.clear();
  const int extra = sys.frictionDirections - kFrictionDirections;
  for (size_t ci = 0; ci < sys.contacts.size(); ++ci) {
    const CompiledContact& c = sys.contacts[ci];
    m.contactPair[ci] = m.contactOn[ci] ? int(m.pairRow.size()) : -1;
    if (!m.contactOn[ci]) continue;
    for (int q = 0; q < 6; ++q) m.pairRow.push_back(6 * c.node + q);
    for (int q = 0; q < extra && c.extraNode >= 0; ++q) m.pairRow.push_back(6 * c.extraNode + q);
  }
  for (size_t li = 0; li < sys.limits.size(); ++li)
    if (m.limitOn[li])
      for (int q = 0; q < 2; ++q) m.pairRow.push_back(6 * sys.limits[li].node + q);
  m.groupOn.resize(sys.contactGroups.size());
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    m.groupOn[gi] = std::any_of(m.contactOn.begin() + grp.first, m.contactOn.begin() + grp.first + grp.count,
                                [](char on) { return on != 0; });
  }
  if (int(m.pairRow.size()) == m.numPairs) return;
  m.numPairs = int(m.pairRow.size());
  MS_ASSERT(m.numPairs <= m.sCur.size(), "more interior-point pairs than allocated");
  for (VecX* v : {&m.yCur, &m.yTrial, &m.dy, &m.sCur, &m.sTrial, &m.ds}) v->head(m.numPairs).setZero();
}

// The limits and contacts that are candidates of this solve (limitOn, contactOn) and their pairs;
// true if any limit is a candidate. m.m1 and m.set1 hold the minimal coordinates and the contact
// candidates at z1 (prepare).
bool selectCandidates(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const State& state, double dt) {
  // Joint limits that are candidates of this step: within kLimitMargin + 2|θ̇₀|Δt of a bound at z1.
  bool anyLimit = false;
  for (size_t li = 0; li < sys.limits.size(); ++li) {
    const CompiledLimit& l = sys.limits[li];
    const JointGeometry& g = sys.joints[l.joint].geo;
    const JointMinimalEval& me = m.m1[l.joint];
    double rate = me.dxb.row(0).dot(state.bodies[g.child].v) + me.dthb.row(0).dot(state.bodies[g.child].w);
    if (g.parent >= 0)
      rate += me.dxa.row(0).dot(state.bodies[g.parent].v) + me.dtha.row(0).dot(state.bodies[g.parent].w);
    // The coordinate at z1: continued from the last step's, or (none yet) in the range's turn.
    const double last = state.limitPosition.size() > li ? state.limitPosition[li] : NAN;
    const double theta = std::isfinite(last) ? l.coordinate(me.theta[0], last) : l.coordinate(me.theta[0]);
    m.limitRef[li] = theta;
    const double dist = std::min(theta - l.lower, l.upper - theta);
    m.limitOn[li] = !(dist > kLimitMargin + 2.0 * std::abs(rate) * dt);
    anyLimit = anyLimit || m.limitOn[li];
  }
  // Contacts that are candidates of this step: within kContactMargin + 2|φ̇₀|Δt at z1.
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    for (int k = 0; k < grp.count; ++k)
      m.contactOn[grp.first + k] = contactCandidate(grp, m.set1[gi].contacts[k], state, dt);
  }
  selectPairs(sys, m);
  return anyLimit;
}

}  // namespace vi

// True if every limit left out of the step stays strictly inside its bounds at z2 (then its effort
// 0 solves the complementarity exactly). m.lim2 holds θ(z2) of the final iterate.
bool VariationalIntegrator::excludedLimitsHold() const {
  const Impl& m = *impl_;
  for (size_t li = 0; li < sys_->limits.size(); ++li) {
    const CompiledLimit& l = sys_->limits[li];
    const double theta = l.coordinate(m.lim2[li].theta[0], m.limitRef[li]);
    if (!m.limitOn[li] && !(theta > l.lower && theta < l.upper)) return false;
  }
  return true;
}

// True if every contact left out of the step is open at z2 (φ > 0: its impulse 0 solves the
// complementarity exactly, and friction β ≤ μγ = 0 with it). The others become candidates (the
// caller solves the step again). m.set2 holds φ(z2) of the final iterate.
bool VariationalIntegrator::excludedContactsHold() {
  Impl& m = *impl_;
  bool hold = true;
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    for (int k = 0; k < grp.count; ++k) {
      const int ci = grp.first + k;
      if (m.contactOn[ci] || m.set2[gi].contacts[k].phi > 0) continue;
      m.contactOn[ci] = 1;
      hold = false;
    }
  }
  return hold;
}

// The step again from its warm start, with every limit a candidate.
StepReport VariationalIntegrator::stepWithAllLimits(const StepSettings& st, State& state) {
  Impl& m = *impl_;
  std::fill(m.limitOn.begin(), m.limitOn.end(), 1);
  vi::selectPairs(*sys_, m);
  return stepAgain(st, state);
}

// Polytope pairs (box, hull) whose solution z2 overlaps by more than kPairOverlap: a feature the
// face manifold chosen at z1 left out met within the step (two edges that crossed: at z1 a face
// separated them better). Their features are chosen again at z2 (and z1's candidates and friction
// rows recomputed with them); false if any was.
bool VariationalIntegrator::pairsHold() {
  Impl& m = *impl_;
  using K = contact::ContactShape::Kind;
  auto polytope = [](const contact::ContactShape& s) { return s.kind == K::Box || s.kind == K::Convex; };
  bool hold = true;
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    if (grp.bodyA < 0 || !polytope(grp.shapeA) || !polytope(grp.shape)) continue;
    const contact::BodyPose za{m.x2[grp.bodyA], m.q2[grp.bodyA]}, zb{m.x2[grp.body], m.q2[grp.body]};
    contact::Contact c;
    contact::polytopeSignedDistance(grp.shapeA, za, grp.shape, zb, c);
    if (!(c.phi < -kPairOverlap)) continue;
    vi::contactCandidates(grp, m.x2, m.q2, m.set2[gi], m.features[gi], true);
    vi::contactCandidates(grp, m.x1, m.q1, m.set1[gi], m.features[gi], false);
    hold = false;
  }
  if (!hold) vi::frictionRowsAtKnot(*sys_, m, m.fr, m.frictionTwist);
  return hold;
}

// The step again from its warm start (the state's velocities and multipliers).
StepReport VariationalIntegrator::stepAgain(const StepSettings& st, State& state) {
  Impl& m = *impl_;
  for (size_t i = 0; i < sys_->bodies.size(); ++i) {
    m.cur.segment<3>(6 * i) = state.bodies[i].v;
    m.cur.segment<3>(6 * i + 3) = state.bodies[i].w;
  }
  for (size_t k = 0; k < sys_->joints.size(); ++k)
    if (sys_->joints[k].node >= 0) m.cur.segment<6>(6 * sys_->joints[k].node) = state.lambda[k];
  return stepWithContacts(st, state);
}


}  // namespace ms
