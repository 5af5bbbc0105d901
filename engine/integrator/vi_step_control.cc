// SPDX-License-Identifier: GPL-3.0-or-later
// The step-control policy of the variational step: what happens when one solve over Δt is not
// the answer.
// - Subdivision (advance): a solve that fails (no solution near the warm start: the discrete
//   equations have a fold there) is retried with the interval halved, down to Δt/64; the following
//   solves fill the rest of Δt and grow the interval back (at most 2× per solve, with a back-off
//   after failed attempts). Unequal intervals stay variational (prepare, vi_assembly.cc).
// - Refinement (advance): a system without contact or limit candidates whose solve failed keeps the
//   interval that worked as its longest for the rest of the run (until restart()): Δt is then too
//   long for the motion (a chain beyond the stability limit ωΔt < 2 of its tension modes, or whipping),
//   and growing back to Δt let the energy level drift (20-link chain, 2,000 s: −26.8 J against −0.31 J;
//   docs/engine.md, "The stability limit of long chains, and the refinement").
// - Singular passages of closed loops (stepWatchingSingular): ideal joints do no work, so a step
//   whose joint impulses did work W = Σ h λᵀ G(z1)(ż₀ + ż)/2 beyond 1 % of the kinetic energy
//   switched branch at a singular configuration; the previous step is solved again in shorter
//   intervals (its knot moves), then this one.
// - Attainable accuracy (atRoundoffLevel): a Newton iterate whose residual is within the round-off
//   of the residual's own terms is accepted (flagged stalled) when the line search finds no decrease.
// How these rules were chosen, with the measurements: docs/engine.md, "Convergence test,
// attainable accuracy, subdivided steps".
#include <algorithm>
#include <cmath>
#include <limits>

#include "integrator/vi_internal.h"
#include "system/energy.h"

namespace ms {
namespace {
// Longest hold (in solves) after failed attempts to grow a subdivided interval back.
constexpr int kMaxBackoff = 256;
bool retryable(StepStatus s) {
  return s == StepStatus::NotConverged || s == StepStatus::SingularMatrix || s == StepStatus::AngularVelocityLimit;
}
}  // namespace

// One step of st.dt as one or more solves of (20a)–(20b). Normally one solve over Δt. When it
// fails (no solution near the warm start: measured on long chains, where the Newton matrix becomes
// singular — docs/engine.md, "Steps without a solution"), the same solve is retried with the next
// interval halved (down to Δt/2^kMaxHalvings), and the following solves fill the rest of Δt; the
// interval of the state's velocities is kept in State::interval, so positions stay on the Δt grid
// and the next steps grow the interval back to Δt (at most doubling per solve). Variable intervals
// keep the method variational (prepare: each interval's own momenta, knot forces over the mean).
StepReport VariationalIntegrator::advance(const StepSettings& st, const Inputs& inputs, State& state, int firstHalvings) {
  const double dt = st.dt, tiny = 1e-9 * dt;
  const long step0 = state.step;
  const double time0 = state.time;
  // Intervals are whole multiples of the shortest one, Δt/2^kMaxHalvings, counted in integers: their
  // sums never drift off the Δt grid (floating-point remainders once left solves over 2e-11 s).
  constexpr int kUnits = 1 << kMaxHalvings;
  const double unit = dt / kUnits;
  if (dt != refineDt_) {
    refineUnits_ = kUnits;
    refineDt_ = dt;
  }
  const auto length = [&](int units) { return units == kUnits ? dt : units * unit; };
  // A state whose velocities belong to a sub-interval needs more than one solve: keep it to undo them
  // (otherwise the one solve, retried with shorter intervals, leaves the state unchanged on failure).
  const bool several = state.interval > 0 && state.interval < dt - tiny;
  double h0 = several ? state.interval : dt;
  int h0Units = several ? std::clamp(int(std::lround(state.interval / unit)), 1, kUnits - 1) : kUnits;
  if (several) backup_ = state;
  StepReport total;
  int shortest = kUnits;
  StepSettings sub = st;
  for (int remaining = kUnits;;) {
    remaining -= h0Units;
    const bool last = remaining <= 0;
    // This solve's interval: what is left of Δt, or (last) up to Δt again, at most 2·h0; not
    // longer than h0 while a failed attempt to grow is being backed off.
    int h = std::min(last ? kUnits : remaining, (hold_ > 0 ? 1 : 2) * h0Units);
    if (hold_ > 0) --hold_;
    // A step solved again to pass a singular configuration starts with a shorter interval.
    h = std::max(1, h >> firstHalvings);
    // Not longer than the refinement allows.
    h = std::min(h, refineUnits_);
    bool refine = false;  // a solve of the equality path failed: keep the interval that works
    firstHalvings = 0;
    const auto growing = [&] { return h > h0Units; };  // this attempt lengthens the interval
    StepReport rep;
    for (;;) {
      sub.dt = length(h);
      // Messages of retryable failures are written only on the last try (no allocation otherwise).
      finalAttempt_ = h == 1;
      fullInterval_ = h == kUnits;
      // The root check of the longest interval and its half (Δt, or the refined interval); never of
      // the last try, Δt/64.
      rootChecked_ = 2 * h >= refineUnits_ && h > 1;
      growthAttempt_ = growing();
      rep = solve(sub, h0, inputs, state);
      total.iterations += rep.iterations;
      if (rep.status == StepStatus::Ok) {
        // A longer interval worked: back off less next time.
        if (growing()) backoff_ = std::max(1, backoff_ / 2);
        // The refinement: from now on no interval longer than this one.
        if (refine && h < refineUnits_) {
          refineUnits_ = h;
          total.refinedInterval = length(h);
        }
        break;
      }
      refine = refine || equalitySolve_;
      // A failed attempt to grow the interval: the next 1, 2, 4, … 256 solves keep theirs (each
      // failed attempt costs a whole Newton solve; on a long chain whose equations have no solution
      // at the full Δt it would be repeated every step).
      if (growing()) {
        hold_ = backoff_;
        backoff_ = std::min(2 * backoff_, kMaxBackoff);
      }
      // A start state beyond |ω| < 2/h0 is not cured by a shorter next interval.
      if (!retryable(rep.status) || startInvalid_ || finalAttempt_) {
        if (h < kUnits) rep.message += " (also with the step subdivided down to " + vi::num(length(h)) + " s)";
        rep.iterations = total.iterations;
        if (several) state = backup_;  // undo the sub-intervals already solved
        return rep;
      }
      h /= 2;
    }
    state.interval = h == kUnits ? 0.0 : length(h);
    shortest = std::min(shortest, h);
    total.residual = std::max(total.residual, rep.residual);
    total.constraintViolation = std::max(total.constraintViolation, rep.constraintViolation);
    total.penetration = std::max(total.penetration, rep.penetration);
    total.limitViolation = std::max(total.limitViolation, rep.limitViolation);
    total.activeContacts = rep.activeContacts;
    total.activeLimits = rep.activeLimits;
    total.stalled = total.stalled || rep.stalled;
    total.islands = std::max(total.islands, rep.islands);
    total.sleeping = rep.sleeping;
    if (last) break;
    h0Units = h;
    h0 = length(h);
  }
  state.step = step0 + 1;
  state.time = time0 + dt;
  // Each solve counted a step (finish); the warm start of the next step's first solve extrapolates
  // from this step's last one (stepEqualityPath: consecutive solves count consecutive steps).
  impl_->prevStartStep = state.step - 1;
  total.substeps = int(std::lround(double(kUnits) / shortest));
  return total;
}

namespace {
// A step of a closed loop whose joint impulses did work beyond this fraction of the kinetic energy
// passed a singular configuration by switching branch (docs/engine.md, "Singular configurations").
constexpr double kSingularWork = 0.01;
// Shortest first interval of the previous step when it is solved again: Δt/2^kMaxRevisitHalvings.
constexpr int kMaxRevisitHalvings = 4;
// Solves that keep the shortened interval after the previous step is solved again (the passage and
// the motion right after it at the finer interval: without a hold the energy error grew).
constexpr int kSingularHold = 8;
}  // namespace

// Kinetic energy of the state's velocities, J.
double VariationalIntegrator::kineticEnergy(const State& state) const { return ms::kineticEnergy(*sys_, state); }

// Work of the joint impulses over the solve just converged (interval h, from the state's velocities
// to the iterate's): h λᵀ G(z1) (ż₀ + ż)/2 per joint, with torques G_θᵀλ on the body-frame rates.
// Ideal joints do no work (G ż = 0 along the motion); at a configuration where a loop's constraint
// Jacobian loses rank the discrete solution can switch branch with an impulse that does.
double VariationalIntegrator::constraintWork(double h, const State& state) const {
  const Impl& m = *impl_;
  double work = 0;
  for (size_t k = 0; k < sys_->joints.size(); ++k) {
    const CompiledJoint& j = sys_->joints[k];
    if (j.node < 0) continue;
    const JointConstraintEval& G = m.g1[k];
    // Mean linear and angular velocity of a body over the two intervals at the knot.
    auto v = [&](int i) { return Vec3(0.5 * (m.cur.segment<3>(6 * i) + state.bodies[i].v)); };
    auto w = [&](int i) { return Vec3(0.5 * (m.cur.segment<3>(6 * i + 3) + state.bodies[i].w)); };
    Vec6 rate = G.dxb * v(j.geo.child) + G.dthb * w(j.geo.child);
    if (j.geo.parent >= 0) rate += G.dxa * v(j.geo.parent) + G.dtha * w(j.geo.parent);
    work += h * m.cur.segment<6>(6 * j.node).dot(rate);
  }
  return work;
}

// One step of st.dt of a closed loop (step, variational_step.cc): a step whose joint impulses did
// work (> kSingularWork of the kinetic energy) switched branch at a singular configuration (its knot
// lies next to a configuration where the loop's constraint Jacobian loses rank), and subdividing
// that step does not help because its knot is already fixed. The previous step is solved again in
// sub-intervals (Δt/2, …, Δt/2^kMaxRevisitHalvings, kept for kSingularHold solves), which places
// the knot elsewhere, and this step after it. If none avoids the work, the attempt whose joints did
// the least work is kept and the step is flagged (measured: docs/engine.md, "Singular configurations").
StepReport VariationalIntegrator::stepWatchingSingular(const StepSettings& st, const Inputs& inputs, State& state) {
  // The previous step can be solved again only if this state is the one it produced.
  const bool canRevisit = havePrevious_ && state.step == lastStep_ && state.interval == lastInterval_ &&
                          !state.bodies.empty() && state.bodies[0].x == lastX0_ && st.dt == previousSettings_.dt;
  start_ = state;
  startInputs_ = inputs;
  int startBackoff = backoff_;
  const double floor = 1e-9 * std::max(1.0, totalMass_ * st.gravity.norm());  // J, for a state at rest
  const auto passedSingular = [&](double ke0, double ke1) {
    return std::abs(stepWork_) > kSingularWork * std::max({ke0, ke1, floor});
  };
  stepWork_ = 0;
  bool revisitable = true;
  double ke0 = kineticEnergy(state);
  StepReport rep = advance(st, inputs, state, 0);
  if (rep.status == StepStatus::Ok && passedSingular(ke0, kineticEnergy(state))) {
    if (!canRevisit) {
      rep.singular = StepReport::Singular::Kept;
    } else {
      outcome_ = state;
      int outcomeHold = hold_, outcomeBackoff = backoff_;
      // The attempt whose joints did the least work so far (the first outcome to begin with).
      double bestWork = std::abs(stepWork_);
      StepReport best = rep;
      int iterations = rep.iterations;
      bool passed = false;
      for (int k = 1; k <= kMaxRevisitHalvings && !passed; ++k) {
        // The previous step again, its first interval Δt/2^k, then this step after it.
        state = previous_;
        hold_ = kSingularHold;
        backoff_ = previousBackoff_;
        // The work of both steps counts: the previous one, solved again, must not switch branch either.
        stepWork_ = 0;
        const double keBefore = kineticEnergy(state);
        const StepReport again = advance(previousSettings_, previousInputs_, state, k);
        iterations += again.iterations;
        if (again.status != StepStatus::Ok) continue;
        start_ = state;
        startBackoff = backoff_;
        ke0 = std::max(keBefore, kineticEnergy(state));
        StepReport next = advance(st, inputs, state, 0);
        iterations += next.iterations;
        if (next.status != StepStatus::Ok) continue;
        if (passedSingular(ke0, kineticEnergy(state))) {
          if (std::abs(stepWork_) < bestWork) {
            bestWork = std::abs(stepWork_);
            outcome_ = state;
            outcomeHold = hold_;
            outcomeBackoff = backoff_;
            best = next;
            best.substeps = std::max(next.substeps, again.substeps);
          }
          continue;
        }
        next.substeps = std::max(next.substeps, again.substeps);
        next.stalled = next.stalled || again.stalled;
        next.residual = std::max(next.residual, again.residual);
        rep = next;
        rep.singular = StepReport::Singular::Revisited;
        passed = true;
      }
      if (!passed) {
        // Keep the first outcome (start_ may hold a re-solved start by now: the next step cannot
        // go back to this one).
        revisitable = false;
        state = outcome_;
        hold_ = outcomeHold;
        backoff_ = outcomeBackoff;
        rep = best;
        rep.singular = StepReport::Singular::Kept;
      }
      rep.iterations = iterations;
    }
  }
  havePrevious_ = rep.status == StepStatus::Ok && revisitable;
  if (havePrevious_) {
    // This step's start becomes the previous step's (swaps: no allocation).
    std::swap(previous_, start_);
    std::swap(previousInputs_, startInputs_);
    previousSettings_ = st;
    previousBackoff_ = startBackoff;
    lastStep_ = state.step;
    lastInterval_ = state.interval;
    lastX0_ = state.bodies.empty() ? Vec3::Zero() : state.bodies[0].x;
  }
  return rep;
}

// Round-off level of the equality residual at the current iterate (the matrix assembled there, the
// last Newton direction in m.delta): row i of F(x) sums terms of total size
//   a_i = (|F| (|x| + |Δx|))_i + |constant terms|_i
// (momenta m|v₀|/Δt, |f|, |Jω₀ s − ω₀×Jω₀|, 2|τ| on body rows; the positions |x₂| + 1 m of the two
// bodies on constraint rows), so a floating-point evaluation, and a Newton step solved with a
// backward-stable factorisation, cannot bring the residual below about γ_n a, γ_n = n u with n the
// number of terms per row (6 × the most blocks in a row of F) and u the unit round-off. The test is
// normwise per kind of row (forces in N, torques in N·m, constraints in m and rad): a row whose own
// terms are all tiny still carries the rounding of the large intermediate products (lever arms ×
// forces, rotations of large vectors) of its kind. True if every kind is within that level: the line
// search then cannot find a decrease, and the iterate is as accurate as double precision allows.
bool VariationalIntegrator::atRoundoffLevel() {
  Impl& m = *impl_;
  const int nb = int(sys_->bodies.size());
  vi::evaluate(*sys_, m, m.cur, m.residual, &matrix_);
  m.trial = m.cur.cwiseAbs() + m.delta.cwiseAbs();
  matrix_.multiplyAbs(m.trial, m.roundoff);
  for (int i = 0; i < nb; ++i) {
    const double mass = sys_->bodies[i].mass;
    m.roundoff.segment<3>(6 * i).array() += mass * m.v0[i].cwiseAbs().array() / m.dt + m.force[i].cwiseAbs().array();
    m.roundoff.segment<3>(6 * i + 3).array() += m.momentum0[i].cwiseAbs().array() + 2.0 * m.torque[i].cwiseAbs().array();
  }
  for (const CompiledJoint& j : sys_->joints) {
    if (j.node < 0) continue;
    const double pos = 1.0 + m.x2[j.geo.child].cwiseAbs().maxCoeff() +
                       (j.geo.parent >= 0 ? m.x2[j.geo.parent].cwiseAbs().maxCoeff() : 0.0);
    m.roundoff.segment<6>(6 * j.node).array() += pos;
  }
  const double gamma = 6.0 * matrix_.maxRowBlocks() * std::numeric_limits<double>::epsilon() / 2;
  // Largest residual and largest term per kind of row: 0 forces, 1 torques, 2 constraints.
  double r[3] = {0, 0, 0}, a[3] = {0, 0, 0};
  for (int i = 0; i < int(m.residual.size()); ++i) {
    const int kind = i >= 6 * nb ? 2 : (i % 6 < 3 ? 0 : 1);
    r[kind] = std::max(r[kind], std::abs(m.residual(i)));
    a[kind] = std::max(a[kind], m.roundoff(i));
  }
  return r[0] <= gamma * a[0] && r[1] <= gamma * a[1] && r[2] <= gamma * a[2];
}

}  // namespace ms
