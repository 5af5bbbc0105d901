// SPDX-License-Identifier: GPL-3.0-or-later
// Sleeping (issue 31; StepSettings::sleepTime, the model's (solver (sleep S))): an island of the
// contact step (vi_islands.cc) whose bodies have all been at rest for sleepTime seconds is not
// solved; its bodies keep their poses with zero velocity and its contacts keep the impulses of the
// step before (so the contact forces shown and plotted stay those that hold it). Box2D, Bullet and
// Jolt put islands to sleep the same way; the rules here are stricter, because a body put to sleep
// while it should move would be a wrong result, not only a visual one:
// - at rest: |v| ≤ kSleepSpeed and |ω| ≤ kSleepTurnRate after the step, and no applied force or
//   torque on the body (a drag, a wrench), no spring attached to it;
// - an island sleeps only if every body in it has been at rest for sleepTime, it has no joint (a
//   mechanism may rest at an unstable equilibrium; its bodies are solved), and every contact of it
//   that carries load sticks well inside its friction cone, Σβ ≤ kSleepConeFraction·μγ (a box on an
//   incline just steeper than atan μ accelerates from rest slowly enough to look at rest for a while,
//   but its friction is at the cone: it is never put to sleep);
// - it wakes when it stops qualifying: a body that is not asleep comes close enough to be a contact
//   candidate of one of its bodies (the islands are those of the step's candidates, so the two become
//   one island with a body not at rest), a force or torque is applied to one of its bodies, or the
//   gravity changes (Simulation::step clears the rest times then). A reset, a keyframe or an edit
//   starts with no rest time; a state set from outside (history) keeps its own.
// What is lost: a sleeping body's kinetic energy below ½m·kSleepSpeed² when it falls asleep; the
// energy plot shows that drop (at most ~5e-8 J for a 0.1 kg sphere).
#include <algorithm>
#include <cmath>

#include "integrator/vi_internal.h"

namespace ms {
namespace vi {

namespace {
// A body at rest after a step: speeds below these.
constexpr double kSleepSpeed = 1e-3;     // m/s
constexpr double kSleepTurnRate = 1e-2;  // rad/s
// A loaded contact of a sleeping island: its friction impulse Σβ_k at most this fraction of μγ.
constexpr double kSleepConeFraction = 0.9;
}  // namespace

void markPushed(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const Inputs& in) {
  const int nb = int(sys.bodies.size());
  m.pushed.assign(nb, 0);
  for (int i = 0; i < nb; ++i) {
    const bool force = i < int(in.force.size()) && !in.force[i].isZero(0.0);
    const bool torque = i < int(in.torque.size()) && !in.torque[i].isZero(0.0);
    m.pushed[i] = force || torque;
  }
  for (const SpringDesc& sp : sys.model.springs) {
    if (sp.bodyA >= 0) m.pushed[sp.bodyA] = 1;
    m.pushed[sp.bodyB] = 1;
  }
}

void updateRestTimes(const CompiledSystem& sys, const VariationalIntegrator::Impl& m, const StepSettings& st,
                     State& state) {
  const int nb = int(sys.bodies.size());
  state.restTime.resize(nb, 0.0);
  for (int i = 0; i < nb; ++i) {
    const BodyState& b = state.bodies[i];
    const bool rest = !m.pushed[i] && b.v.norm() <= kSleepSpeed && b.w.norm() <= kSleepTurnRate;
    state.restTime[i] = rest ? state.restTime[i] + st.dt : 0.0;
  }
}

namespace {

// Whether island k (k < 0: every body, the step's only island) qualifies for sleep.
bool islandSleeps(const CompiledSystem& sys, const VariationalIntegrator::Impl& m, const StepSettings& st,
                  const State& state, int k) {
  const Islands& is = m.islands;
  const IndexRange bodies = islandRange(is.bodies, is.bodyStart, k, int(sys.bodies.size()));
  const IndexRange joints = islandRange(is.joints, is.jointStart, k, int(sys.joints.size()));
  const IndexRange contacts = islandRange(is.contacts, is.contactStart, k, int(sys.contacts.size()));
  if (joints.end > joints.begin) return false;
  // Every body at rest for sleepTime (and not pushed this step).
  for (int r = bodies.begin; r < bodies.end; ++r) {
    const int i = bodies[r];
    if (m.pushed[i] || !(state.restTime[i] >= st.sleepTime)) return false;
  }
  // Every loaded contact sticking inside its cone (the impulses of the step before).
  const int nf = sys.frictionDirections;
  for (int r = contacts.begin; r < contacts.end; ++r) {
    const int ci = contacts[r];
    if (!m.contactOn[ci]) continue;
    const Vec6& y = state.contactImpulse[ci];
    const double gamma = y[0];
    if (!(gamma > 0)) continue;
    double friction = 0;
    for (int d = 0; d < nf; ++d)
      friction += d < kFrictionDirections ? std::max(0.0, y[2 + d])
                                          : std::max(0.0, state.contactFriction[ci][d - kFrictionDirections]);
    const double mu = sys.contactGroups[sys.contacts[ci].group].friction;
    if (!(friction <= kSleepConeFraction * mu * gamma)) return false;
  }
  return true;
}

}  // namespace

int selectSleeping(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const StepSettings& st,
                   const State& state) {
  const int count = std::max(1, m.islands.count);
  m.islandAsleep.assign(count, 0);
  // Nothing sleeps without the state's rest times and every contact's impulses (the friction
  // directions past the fourth too, n_f > 4): a state of another system.
  const bool extra = sys.frictionDirections > kFrictionDirections;
  if (!(st.sleepTime > 0) || state.restTime.size() != sys.bodies.size() ||
      state.contactImpulse.size() != sys.contacts.size() ||
      (extra && state.contactFriction.size() != sys.contacts.size()))
    return 0;
  int asleep = 0;
  if (m.islands.count < 2) {
    m.islandAsleep[0] = islandSleeps(sys, m, st, state, -1);
    return m.islandAsleep[0] ? int(sys.bodies.size()) : 0;
  }
  for (int k = 0; k < count; ++k) {
    m.islandAsleep[k] = islandSleeps(sys, m, st, state, k);
    if (m.islandAsleep[k]) asleep += m.islands.bodyStart[k + 1] - m.islands.bodyStart[k];
  }
  return asleep;
}

void freezeIsland(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const State& state, int k) {
  const Islands& is = m.islands;
  const IndexRange bodies = islandRange(is.bodies, is.bodyStart, k, int(sys.bodies.size()));
  const IndexRange contacts = islandRange(is.contacts, is.contactStart, k, int(sys.contacts.size()));
  // Bodies: zero velocity over the step (z2 = z1).
  for (int r = bodies.begin; r < bodies.end; ++r) m.cur.segment<6>(6 * bodies[r]).setZero();
  // Contacts: the impulses of the step before (candidates; the others' rows are y = 0).
  const int extra = sys.frictionDirections - kFrictionDirections;
  for (int r = contacts.begin; r < contacts.end; ++r) {
    const int ci = contacts[r];
    if (!m.contactOn[ci]) continue;
    const CompiledContact& c = sys.contacts[ci];
    m.cur.segment<6>(6 * c.node) = state.contactImpulse[ci].cwiseMax(0.0);
    if (c.extraNode >= 0)
      m.cur.segment(6 * c.extraNode, extra) = state.contactFriction[ci].head(extra).cwiseMax(0.0);
  }
}

}  // namespace vi
}  // namespace ms
