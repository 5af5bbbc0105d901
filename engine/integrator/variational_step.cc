// SPDX-License-Identifier: GPL-3.0-or-later
// Variational integrator in maximal coordinates (the paper's "first-order" one, second order in Δt
// from the half-kick start), Brüdigam et al. 2023 §3.1–3.5 and
// Appendix D: the public entry (step), the driver of one solve (solve) and the storing of its
// solution in the state (finish). State (z_k, ż_k); a step computes the knot z1 = z_k ⊕ ż_k Δt by
// (11) and (17), then solves (20a)–(20b) for ż1 and the joint multipliers λ — by Newton's method
// when no contact or joint limit is a candidate of the step, else with the inequalities
// (29a)–(29f) by the interior point. The stages, in run order, and the file of each are listed at
// the top of variational_step.h; the workspace they share is VariationalIntegrator::Impl
// (vi_internal.h).
#include "integrator/variational_step.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/denormals.h"
#include "integrator/vi_internal.h"

namespace ms {

const char* toString(StepStatus s) {
  switch (s) {
    case StepStatus::Ok: return "ok";
    case StepStatus::NotConverged: return "Newton did not converge";
    case StepStatus::NonFinite: return "non-finite value";
    case StepStatus::AngularVelocityLimit: return "angular velocity |w| >= 2/dt (eq. 13)";
    case StepStatus::SingularMatrix: return "singular Newton matrix";
  }
  return "?";
}

void VariationalIntegrator::reuseWorkspace(Integrator& previous) {
  auto* p = dynamic_cast<VariationalIntegrator*>(&previous);
  if (!p || p == this || !p->impl_ || !impl_->set1.empty()) return;
  // The candidate sets' storage (prepare sizes them for this system; a ContactSet's constructor
  // leaves its candidates as they are, and every candidate is computed before it is read).
  impl_->set1.swap(p->impl_->set1);
  impl_->set2.swap(p->impl_->set2);
}

VariationalIntegrator::VariationalIntegrator(std::shared_ptr<const CompiledSystem> system)
    : sys_(std::move(system)), matrix_(sys_->order), impl_(std::make_shared<Impl>()) {
  const int nb = int(sys_->bodies.size()), nj = int(sys_->joints.size());
  Impl& m = *impl_;
  m.x1.resize(nb);
  m.v0.resize(nb);
  m.force.resize(nb);
  m.torque.resize(nb);
  m.momentum0.resize(nb);
  m.q1.resize(nb);
  m.x2.resize(nb);
  m.q2.resize(nb);
  m.phi.resize(nb);
  m.g1.resize(nj);
  m.m1.resize(nj);
  m.needsMinimal.assign(nj, 0);
  m.damping.assign(nj, Vec6::Zero());
  m.damped.assign(nj, 0);
  const int n0 = 6 * sys_->numNodes;
  // (set1 and set2, 15 kB a group, are sized by prepare: reuseWorkspace may bring their storage.)
  m.features.resize(sys_->contactGroups.size());
  m.fr.resize(sys_->contacts.size());
  m.frPlain.resize(sys_->contacts.size());
  // Interior-point pairs: every contact row, then rows 0–1 (lower, upper) of every limit node.
  // (Rebuilt per step by selectPairs when limits are candidates or not; all on until then.)
  m.lim2.resize(sys_->limits.size());
  m.cpl2.resize(2 * sys_->couplings.size());
  m.limitOn.assign(sys_->limits.size(), 1);
  m.limitRef.assign(sys_->limits.size(), 0.0);
  m.contactOn.assign(sys_->contacts.size(), 1);
  m.contactPair.assign(sys_->contacts.size(), -1);
  const int maxPairs =
      int((6 + sys_->frictionDirections - kFrictionDirections) * sys_->contacts.size() + 2 * sys_->limits.size());
  m.pairRow.reserve(maxPairs);
  for (VecX* v : {&m.yCur, &m.yTrial, &m.dy, &m.sCur, &m.sTrial, &m.ds}) v->setZero(maxPairs);
  m.pairActive.assign(maxPairs, 0);
  m.ip.reserve(maxPairs);
  m.numPairs = -1;
  vi::selectPairs(*sys_, m);
  m.rowWeight.setOnes(6 * sys_->numNodes);
  if (sys_->frictionDirections > kFrictionDirections) {
    m.swapC.assign(4 * sys_->contacts.size(), 0);
    m.swapE.assign(4 * sys_->contacts.size(), 0);
    m.numSwaps.assign(sys_->contacts.size(), 0);
  }
  if (!sys_->contacts.empty() || !sys_->limits.empty()) {
    // The contact step's elimination order and the map of its blocks onto matrix_'s. Without
    // companions (n_f = 4) the compiled order is built from the same graph by the same rules
    // (compile.cc): it is that order (tst_contact checks it), and a change of the automatic pairs
    // does not compute it twice.
    m.leafFirst = GraphLDU(sys_->frictionDirections > kFrictionDirections ? vi::leafFirstOrder(*sys_) : sys_->order,
                           GraphLDU::Lower::LD);
    const EliminationOrder& lo = m.leafFirst.order();
    m.leafBlockStart.assign(lo.numNodes + 1, 0);
    for (int i = 0; i < lo.numNodes; ++i) {
      m.leafBlockStart[i] = int(m.leafBlocks.size());
      for (int c : lo.children[i])
        for (auto [r, k] : {std::pair{i, c}, std::pair{c, i}})
          m.leafBlocks.emplace_back(m.leafFirst.blockIndex(r, k), matrix_.blockIndex(r, k));
    }
    m.leafBlockStart[lo.numNodes] = int(m.leafBlocks.size());
    vi::sizeIslands(*sys_, m);
    m.rhs.setZero(n0);
    m.refine.setZero(n0);
    m.start.setZero(n0);
    m.polished.setZero(n0);
    m.krylov.setZero(n0, vi::kKrylov + 1);
    m.work1.setZero(n0);
    m.work2.setZero(n0);
  }
  const int n = 6 * sys_->numNodes;
  m.roundoff.setZero(n);
  for (const CompiledBody& b : sys_->bodies) totalMass_ += b.mass;
  // The state copy kept while a step is solved in sub-intervals: sized here, so that taking it
  // inside a step does not allocate (copy-assignment reuses the capacity).
  const size_t nc = sys_->contacts.size(), nl = sys_->limits.size();
  auto reserve = [&](State& s) {
    s.bodies.reserve(nb);
    s.lambda.reserve(nj);
    s.knotVelocity.reserve(nb);
    s.contactImpulse.reserve(nc);
    s.contactGap.reserve(nc);
    s.contactFriction.reserve(nc);
    s.limitImpulse.reserve(nl);
    s.limitPosition.reserve(nl);
    s.softAnchor.reserve(nc);
    s.softActive.reserve(nc);
  };
  reserve(backup_);
  // Closed loops can meet singular configurations: the start states of this and the previous step
  // and the first outcome of a step are kept (docs/engine.md, "Singular configurations").
  watchSingular_ = !sys_->loopJoints.empty() && sys_->contacts.empty();
  if (watchSingular_) {
    for (State* s : {&start_, &previous_, &outcome_}) reserve(*s);
    for (Inputs* in : {&startInputs_, &previousInputs_}) {
      in->force.reserve(nb);
      in->torque.reserve(nb);
      in->actuator.reserve(nj);
    }
  }
  m.cur.setZero(n);
  for (VecX& h : m.startHistory) h.setZero(n);
  m.trial.setZero(n);
  m.delta.setZero(n);
  m.residual.setZero(n);
  m.trialResidual.setZero(n);
}

// One step of st.dt: one or more solves (advance, vi_step_control.cc); closed loops watch for
// singular configurations passed by switching branch (stepWatchingSingular, same file). Subnormal
// numbers are flushed to zero for the step (closed planar loops decay into them: 9× slower steps).
StepReport VariationalIntegrator::step(const StepSettings& st, const Inputs& inputs, State& state) {
  const FlushDenormalsScope noSubnormals;
  // Sleeping (vi_sleep.cc): the bodies this step pushes, then the rest times after it.
  const bool sleeping = st.sleepTime > 0 && !sys_->contacts.empty();
  if (sleeping) vi::markPushed(*sys_, *impl_, inputs);
  else if (!state.restTime.empty()) state.restTime.clear();
  // Velocities at the knot (an initial state, a keyframe, a baseline's state): first the half kick
  // to the first interval's velocities (startFromKnot).
  if (state.interval < 0) {
    StepReport kick = startFromKnot(st, inputs, state);
    if (kick.status != StepStatus::Ok) return kick;
  }
  StepReport rep = watchSingular_ ? stepWatchingSingular(st, inputs, state) : advance(st, inputs, state, 0);
  if (sleeping && rep.status == StepStatus::Ok) vi::updateRestTimes(*sys_, *impl_, st, state);
  return rep;
}

// The velocities of the interval leaving the knot from the continuous ones at it: one solve with
// h0 = 0 (prepare: z1 = z, the momentum (2/Δt)Jω₀ and the forces over Δt/2), which keeps the knot,
// time and step. Without it the continuous velocities were taken as the first interval's, an O(Δt)
// error that every trajectory kept (first order: a pendulum released from rest lagged half a step).
StepReport VariationalIntegrator::startFromKnot(const StepSettings& st, const Inputs& inputs, State& state) {
  const double time = state.time;
  const long step = state.step;
  fullInterval_ = false;
  rootChecked_ = false;
  growthAttempt_ = false;
  // Over Δt, or (velocities that need it: |ω| near 2/Δt) over Δt/2, …, Δt/64: the velocities then
  // belong to that interval (State::interval), which the steps grow back to Δt (advance).
  StepSettings sub = st;
  StepReport rep;
  for (int halvings = 0;; ++halvings) {
    backup_ = state;  // (sized in the constructor: no allocation)
    sub.dt = st.dt / double(1 << halvings);
    finalAttempt_ = halvings == kMaxStartHalvings;
    rep = solve(sub, 0.0, inputs, state);
    if (rep.status == StepStatus::Ok) {
      state.interval = halvings == 0 ? 0.0 : sub.dt;
      break;
    }
    state = backup_;
    if (finalAttempt_ || !(rep.status == StepStatus::NotConverged || rep.status == StepStatus::SingularMatrix ||
                           rep.status == StepStatus::AngularVelocityLimit)) {
      rep.message = "the start from the initial velocities: " + rep.message;
      break;
    }
  }
  state.time = time;
  state.step = step;
  return rep;
}

void VariationalIntegrator::restart() {
  havePrevious_ = false;
  refineUnits_ = 1 << kMaxHalvings;
}

// One solve of (20a)–(20b) over the interval st.dt from a state whose velocities span h0: the knot
// and the constant terms (prepare), the warm start, the candidates of the step, then the contact
// step (vi_contact_step.cc) or the equality path (vi_newton.cc).
StepReport VariationalIntegrator::solve(const StepSettings& st, double h0, const Inputs& inputs, State& state) {
  Impl& m = *impl_;
  StepReport rep;
  const int nb = int(sys_->bodies.size());
  startInvalid_ = false;
  m.frictionTwist = 0;
  if (!vi::prepare(*sys_, m, st, inputs, state, h0)) {
    startInvalid_ = true;
    rep.status = StepStatus::AngularVelocityLimit;
    rep.message = "|w| >= 2/dt at the start of the step: the time step is too large for this rotation speed";
    return rep;
  }
  // Warm start: previous velocities and multipliers. Across a change of interval (h0 → Δt), ω is
  // carried as the same turn rate: |ω| = (2/h) sin(φ/2) for a turn φ per interval h (eq. 13), with
  // φ ≤ π/2, where the discrete momentum (h/2) Jω √(4/h² − |ω|²) ∝ sin φ (eq. 16) is largest: the
  // physical branch of the momentum map.
  for (int i = 0; i < nb; ++i) {
    m.cur.segment<3>(6 * i) = state.bodies[i].v;
    Vec3 w = state.bodies[i].w;
    const double wn = w.norm();
    if (h0 > 0 && h0 != st.dt && wn > 0) {
      const double halfTurn = std::asin(std::min(1.0, 0.5 * wn * h0)) * st.dt / h0;
      constexpr double kQuarterPi = 0.7853981633974483;  // φ/2 at φ = π/2
      w *= (2.0 / st.dt) * std::sin(std::min(halfTurn, kQuarterPi)) / wn;
    }
    m.cur.segment<3>(6 * i + 3) = w;
  }
  for (size_t k = 0; k < sys_->joints.size(); ++k)
    if (sys_->joints[k].node >= 0) m.cur.segment<6>(6 * sys_->joints[k].node) = state.lambda[k];
  for (const CompiledLimit& l : sys_->limits) m.cur.segment<6>(6 * l.node).setZero();
  // Couplings start from λ = 0 (the equality path extrapolates them with the rest on trees).
  for (const CompiledCoupling& c : sys_->couplings) m.cur.segment<6>(6 * c.node).setZero();
  const bool anyLimit = vi::selectCandidates(*sys_, m, state, st.dt);
  // Both paths weight the body rows (N, N·m) of the residual by the system's force scale
  // max(1 N, Σ m|g|); constraint rows stay in m and rad.
  m.bodyWeight = 1.0 / std::max(1.0, totalMass_ * st.gravity.norm());
  equalitySolve_ = sys_->contacts.empty() && !anyLimit;
  if (!equalitySolve_) return stepWithContacts(st, state);
  return stepEqualityPath(st, h0, state);
}

// A step solved with turned friction polygons: contact ci's friction impulses stored along the
// untwisted directions (the warm start of the next step and the displayed force use those).
void VariationalIntegrator::storeUntwisted(int ci, State& state) {
  Impl& m = *impl_;
  const CompiledContact& c = sys_->contacts[ci];
  const contact::FrictionRows& twisted = m.fr[ci];
  const int nf = sys_->frictionDirections;
  // The friction impulse Σ β_k d_k of the twisted polygon (directions 5..n_f in the companion).
  Vec3 f = Vec3::Zero();
  for (int k = 0; k < nf; ++k) {
    const double beta = k < kFrictionDirections ? m.cur[6 * c.node + 2 + k] : m.cur[6 * c.extraNode + k - kFrictionDirections];
    f += twisted.d.row(k).transpose() * beta;
  }
  double beta[contact::kMaxFrictionDirections];
  contact::frictionInPolygon(f, m.frPlain[ci], beta);
  for (int k = 0; k < nf; ++k) {
    if (k < kFrictionDirections) state.contactImpulse[ci][2 + k] = beta[k];
    else if (ci < int(state.contactFriction.size())) state.contactFriction[ci][k - kFrictionDirections] = beta[k];
  }
}

// Converged: the new state is (z1, ż1); g(z2) is the joint part of the final residual (evaluated
// at the final iterate), φ(z2) the contact part (before the slacks are subtracted).
void VariationalIntegrator::finish(const StepSettings& st, State& state, StepReport& rep) {
  Impl& m = *impl_;
  const int nb = int(sys_->bodies.size());
  double viol = 0;
  for (const CompiledJoint& j : sys_->joints)
    if (j.node >= 0) viol = std::max(viol, m.residual.segment(6 * j.node, j.geo.constrained()).lpNorm<Eigen::Infinity>());
  // Couplings: row 0 of their nodes (g of the coupling at z2).
  for (const CompiledCoupling& c : sys_->couplings) viol = std::max(viol, std::abs(m.residual[6 * c.node]));
  // Rows dropped as redundant are measured too (they must hold through the others).
  for (const CompiledJoint& j : sys_->joints)
    if (j.hasDroppedRows) viol = std::max(viol, jointConstraintValue(j.full, vi::posesOf(j.geo, m.x2, m.q2)).lpNorm<Eigen::Infinity>());
  if (watchSingular_) stepWork_ += constraintWork(st.dt, state);
  // The velocity at the knot z1 from the intervals on either side (h0 before, Δt after; h0 = 0:
  // the continuous one the start was given), then the new interval's.
  state.knotVelocity.resize(size_t(nb));
  const double h0 = m.h0, h1 = m.dt;
  for (int i = 0; i < nb; ++i) {
    BodyState& b = state.bodies[i];
    const Vec6 next = m.cur.segment<6>(6 * i);
    Vec6 before;
    before << b.v, b.w;
    state.knotVelocity[size_t(i)] = (h1 * before + h0 * next) / (h0 + h1);
    b.x = m.x1[i];
    b.q = m.q1[i];
    b.v = next.head<3>();
    b.w = next.tail<3>();
  }
  for (size_t k = 0; k < sys_->joints.size(); ++k)
    if (sys_->joints[k].node >= 0) state.lambda[k] = m.cur.segment<6>(6 * sys_->joints[k].node);
  // Contacts: impulses, gaps at the next knot, penetration and the contacts that carry load.
  if (m.frictionTwist != 0) vi::frictionRowsAtKnot(*sys_, m, m.frPlain, 0.0);
  double minGap = std::numeric_limits<double>::infinity();
  int active = 0;
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    for (int k = 0; k < grp.count; ++k) {
      const int ci = grp.first + k;
      const double gap = m.set2[gi].contacts[k].phi;
      state.contactImpulse[ci] = m.cur.segment<6>(6 * sys_->contacts[ci].node);
      if (sys_->contacts[ci].extraNode >= 0 && ci < int(state.contactFriction.size()))
        state.contactFriction[ci] = m.cur.segment<6>(6 * sys_->contacts[ci].extraNode);
      if (m.frictionTwist != 0) storeUntwisted(ci, state);
      state.contactGap[ci] = gap;
      minGap = std::min(minGap, gap);
      active += gap <= 1e-6 && state.contactImpulse[ci][0] > 1e-6;
    }
  }
  // Joint limits: efforts, θ(z2), the violation without the compliance and the limits that carry load.
  double limitViol = 0;
  int activeLimits = 0;
  for (size_t li = 0; li < sys_->limits.size(); ++li) {
    const CompiledLimit& l = sys_->limits[li];
    const double theta = l.coordinate(m.lim2[li].theta[0], m.limitRef[li]);
    const Eigen::Vector2d y = m.cur.segment<2>(6 * l.node);
    state.limitImpulse[li] = y;
    state.limitPosition[li] = theta;
    limitViol = std::max({limitViol, l.lower - theta, theta - l.upper});
    activeLimits += (theta - l.lower <= 1e-6 && y[0] > 1e-6) || (l.upper - theta <= 1e-6 && y[1] > 1e-6);
  }
  rep.limitViolation = limitViol;
  rep.activeLimits = activeLimits;
  state.time += st.dt;
  state.step += 1;
  rep.constraintViolation = viol;
  rep.penetration = std::isfinite(minGap) ? std::max(0.0, -minGap) : 0.0;
  rep.activeContacts = active;
}

}  // namespace ms
