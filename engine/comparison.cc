// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "core/check.h"
#include "core/quaternion.h"

namespace ms {

double characteristicEnergy(const Simulation& sim) {
  const CompiledSystem& sys = sim.system();
  const State& st = sim.state();
  Vec3 centre = Vec3::Zero();
  int n = 0;
  for (const CompiledJoint& j : sys.joints)
    if (j.geo.parent < 0) {
      centre += j.geo.pa;
      ++n;
    }
  if (n == 0)
    for (const BodyState& b : st.bodies) {
      centre += b.x;
      ++n;
    }
  if (n == 0) return 0;
  centre /= n;
  double size = 0, mass = 0;
  for (size_t i = 0; i < st.bodies.size(); ++i) {
    size = std::max(size, (st.bodies[i].x - centre).norm());
    mass += sys.bodies[i].mass;
  }
  return mass * sim.settings().gravity.norm() * size;
}

double energyScale(const Simulation& sim) {
  return std::max({std::abs(sim.kineticEnergy() + sim.potentialEnergy()), characteristicEnergy(sim), 1e-12});
}

bool blewUp(const Simulation& sim, double energy0, double scale, std::string* why) {
  // A state that left the scene.
  for (const BodyState& b : sim.state().bodies) {
    if (!b.x.allFinite() || !b.v.allFinite() || !b.q.allFinite() || !b.w.allFinite()) {
      *why = "non-finite state";
      return true;
    }
    if (b.x.lpNorm<Eigen::Infinity>() > 1e5 || b.v.lpNorm<Eigen::Infinity>() > 1e6 || b.w.lpNorm<Eigen::Infinity>() > 1e6) {
      *why = "the motion blew up (a body beyond 1e5 m or faster than 1e6 m/s)";
      return true;
    }
  }
  // Energy far from where it started.
  const double e = sim.metrics().energy;
  if (std::isfinite(e) && std::abs(e - energy0) <= 100 * scale) return false;
  char buf[160];
  std::snprintf(buf, sizeof buf, "unstable: the energy went from %.3g J to %.3g J", energy0, e);
  *why = buf;
  return true;
}

namespace {
// Drag spring: stiffness and damping per unit mass (1/s², 1/s), critically damped-ish.
constexpr double kDragStiffness = 100.0;
constexpr double kDragDamping = 14.0;

// CPU time of the calling thread in seconds: a cost that preemption on a busy machine does not
// inflate (the app's niced simulation thread is preempted often there).
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Equal cost: mean CPU µs per step of a scratch copy of `like` with step `dt` and `copy`'s
// integrator and Newton settings over ~40 ms (at least 5, at most 400 steps) from `start`, after two
// warm-up steps. Returns false (leaving *microseconds) when a step fails or the copy cannot start.
bool calibrate(const Simulation& like, const ComparisonCopy& copy, double dt, const State& start, double* microseconds) {
  try {
    Simulation scratch(like.systemPtr());
    scratch.settings() = like.settings();
    scratch.settings().dt = dt;
    if (copy.maxIterations > 0) scratch.settings().maxIterations = copy.maxIterations;
    if (copy.tolerance > 0) scratch.settings().tolerance = copy.tolerance;
    scratch.setState(start);
    scratch.setIntegrator(copy.options);
    for (int i = 0; i < 2; ++i)
      if (!scratch.step()) return false;
    const double t0 = threadCpuSeconds();
    int n = 0;
    while (n < 400 && (n < 5 || threadCpuSeconds() - t0 < 0.04)) {
      if (!scratch.step()) break;
      ++n;
    }
    if (n == 0) return false;
    *microseconds = (threadCpuSeconds() - t0) * 1e6 / n;
    return true;
  } catch (const UserError&) {
    return false;
  }
}
}  // namespace

void applyDrag(const Simulation& sim, const Drag& drag, Inputs& in) {
  for (auto& f : in.force) f.setZero();
  for (auto& t : in.torque) t.setZero();
  if (!drag.active || drag.body < 0 || drag.body >= int(in.force.size())) return;
  const BodyState& b = sim.state().bodies[size_t(drag.body)];
  const double m = sim.system().bodies[size_t(drag.body)].mass;
  const Mat3 R = quat::rotation(b.q);
  const Vec3 r = R * drag.localPoint;
  const Vec3 p = b.x + r;
  const Vec3 vp = b.v + R * b.w.cross(drag.localPoint);
  const Vec3 f = m * (kDragStiffness * (drag.target - p) - kDragDamping * vp);
  in.force[size_t(drag.body)] = f;
  in.torque[size_t(drag.body)] = r.cross(f);
}

Comparison::Comparison(std::shared_ptr<const CompiledSystem> system, std::vector<ComparisonCopy> copies)
    : copies_(std::move(copies)) {
  if (copies_.empty()) throw UserError("a comparison needs at least one copy");
  for (const ComparisonCopy& c : copies_) {
    if (!(std::isfinite(c.dt) && c.dt > 0))
      throw UserError("copy '" + c.label + "': the time step must be a positive number of seconds");
    auto sim = std::make_shared<Simulation>(system);
    try {
      sim->setIntegrator(c.options);
    } catch (const UserError& e) {
      throw UserError("copy '" + c.label + "': " + e.what());
    }
    sim->settings().dt = c.dt;
    if (c.tolerance != 0) {
      if (!(std::isfinite(c.tolerance) && c.tolerance > 0))
        throw UserError("copy '" + c.label + "': the Newton tolerance must be a positive number");
      sim->settings().tolerance = c.tolerance;
    }
    if (c.maxIterations > 0) sim->settings().maxIterations = c.maxIterations;
    sim->reset();
    sims_.push_back(std::move(sim));
  }
  cannotStart_.assign(sims_.size(), std::string());
  clock_ = sims_[0]->state().time;
  startRun();
}

Comparison::Comparison(std::shared_ptr<Simulation> reference, std::vector<ComparisonCopy> copies)
    : copies_(std::move(copies)) {
  MS_ASSERT(reference != nullptr, "Comparison(null reference)");
  if (copies_.empty()) throw UserError("a comparison needs at least one copy");
  const State start = reference->state();
  const StepSettings base = reference->settings();
  cannotStart_.assign(copies_.size(), std::string());
  // The reference: its integrator and Newton settings; a refusal is listed like a failed copy.
  ComparisonCopy& ref = copies_[0];
  Simulation& r = *reference;
  r.settings().dt = ref.dt > 0 ? ref.dt : base.dt;
  ref.dt = r.settings().dt;
  if (ref.maxIterations > 0) r.settings().maxIterations = ref.maxIterations;
  if (ref.tolerance > 0) r.settings().tolerance = ref.tolerance;
  // Every copy takes the start state under the variational integrator, then its own: switching to
  // a baseline projects the (discrete) velocities onto the constraints' tangent.
  try {
    r.setIntegrator(IntegratorOptions());
  } catch (const UserError&) {
  }
  r.setState(start);
  try {
    r.setIntegrator(ref.options);
  } catch (const UserError& e) {
    cannotStart_[0] = std::string("cannot start: ") + e.what();
  }
  if (cannotStart_[0].empty()) ref.options = r.integratorOptions();
  sims_.push_back(std::move(reference));
  // The others: new simulations with the reference's settings (before this comparison changed them).
  for (size_t k = 1; k < copies_.size(); ++k) {
    ComparisonCopy& c = copies_[k];
    if (!(c.dt > 0)) c.dt = r.settings().dt;
    std::shared_ptr<Simulation> sim;
    try {
      sim = std::make_shared<Simulation>(r.systemPtr());
      sim->settings() = base;
      sim->settings().dt = c.dt;
      if (c.maxIterations > 0) sim->settings().maxIterations = c.maxIterations;
      if (c.tolerance > 0) sim->settings().tolerance = c.tolerance;
      sim->setState(start);
      sim->setIntegrator(c.options);
    } catch (const UserError& e) {
      sim.reset();  // nothing runs in its name
      cannotStart_[k] = std::string("cannot start: ") + e.what();
    }
    sims_.push_back(std::move(sim));
  }
  clock_ = start.time;
  startRun();
}

Simulation& Comparison::simulation(int i) {
  MS_ASSERT(started(i), "simulation() of a copy that could not start");
  return *sims_[size_t(i)];
}

const Simulation& Comparison::simulation(int i) const {
  MS_ASSERT(started(i), "simulation() of a copy that could not start");
  return *sims_[size_t(i)];
}

void Comparison::startRun() {
  const size_t n = sims_.size();
  energy0_.assign(n, 0);
  scale_.assign(n, 1);
  why_ = cannotStart_;
  stoppedAt_.assign(n, clock_);
  steps_.assign(n, 0);
  microsecondsSum_.assign(n, 0);
  calibrated_.resize(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!sims_[i]) continue;
    energy0_[i] = sims_[i]->kineticEnergy() + sims_[i]->potentialEnergy();
    scale_[i] = energyScale(*sims_[i]);
  }
}

void Comparison::stop(int i, std::string why, double at) {
  why_[size_t(i)] = std::move(why);
  stoppedAt_[size_t(i)] = at;
}

// One step of copy i (the reference with the drag); false when it failed or blew up.
bool Comparison::stepCopy(int i, const AfterStep& afterStep) {
  Simulation& s = *sims_[size_t(i)];
  if (i == 0) applyDrag(s, drag_, s.inputs());
  if (!s.step()) {
    stop(i, s.metrics().message, s.state().time + s.settings().dt);
    return false;
  }
  std::string why;
  if (blewUp(s, energy0_[size_t(i)], scale_[size_t(i)], &why)) {
    stop(i, why, s.state().time + s.settings().dt);
  } else {
    microsecondsSum_[size_t(i)] += s.metrics().stepMicroseconds;
    ++steps_[size_t(i)];
  }
  if (afterStep) afterStep(i);
  return !stopped(i);
}

void Comparison::catchUp(int i, double t, const AfterStep& afterStep) {
  if (stopped(i)) return;
  const double dt = sims_[size_t(i)]->settings().dt;
  while (sims_[size_t(i)]->state().time + dt <= t + 1e-6 * dt)
    if (!stepCopy(i, afterStep)) break;
}

int Comparison::step(const AfterStep& afterStep) {
  const double target = clock_ + sims_[0]->settings().dt;
  clock_ = target;
  if (!stopped(0)) {
    const bool ok = stepCopy(0, afterStep);
    if (ok) clock_ = sims_[0]->state().time;
    else stoppedAt_[0] = target;
  }
  for (int i = 1; i < size(); ++i) catchUp(i, clock_, afterStep);
  return running();
}

int Comparison::advanceTo(double t, const AfterStep& afterStep) {
  clock_ = t;
  for (int i = 0; i < size(); ++i) catchUp(i, t, afterStep);
  return running();
}

int Comparison::running() const {
  int n = 0;
  for (int i = 0; i < size(); ++i) n += stopped(i) ? 0 : 1;
  return n;
}

std::string Comparison::stopReason(int i) const {
  if (!stopped(i)) return {};
  const Simulation* s = sims_.at(size_t(i)).get();
  if (!s || s->failed()) return why_[size_t(i)];
  return "step " + std::to_string(s->state().step) + " (t = " + std::to_string(s->state().time) + " s): " + why_[size_t(i)];
}

double Comparison::microsecondsPerStep(int i) const {
  const long n = steps_.at(size_t(i));
  return n > 0 ? microsecondsSum_[size_t(i)] / double(n) : 0.0;
}

void Comparison::equalizeCost() {
  if (stopped(0)) return;
  const Simulation& ref = *sims_[0];
  const State start = ref.state();
  double cRef = 0;
  if (!calibrate(ref, copies_[0], ref.settings().dt, start, &cRef) || !(cRef > 0)) return;
  calibrated_[0] = cRef;
  const double dtRef = ref.settings().dt;
  const double refRate = cRef / dtRef;  // µs per simulated second
  for (int i = 1; i < size(); ++i) {
    if (stopped(i) || !sims_[size_t(i)]) continue;
    double dt = sims_[size_t(i)]->settings().dt, ci = 0;
    for (int pass = 0; pass < 2; ++pass) {
      if (!calibrate(ref, copies_[size_t(i)], dt, start, &ci) || !(ci > 0)) break;
      // Wall time per simulated second = ci / Δt; equal to refRate when Δt = ci / refRate.
      dt = std::clamp(ci / refRate, dtRef * 1e-3, dtRef * 1e2);
      calibrated_[size_t(i)] = ci;
    }
    // Three significant digits are plenty (and readable in the list).
    const double p = std::pow(10.0, std::floor(std::log10(dt)) - 2);
    copies_[size_t(i)].dt = std::round(dt / p) * p;
    sims_[size_t(i)]->settings().dt = copies_[size_t(i)].dt;
  }
}

void Comparison::setIntegrator(int i, const IntegratorOptions& options) {
  simulation(i).setIntegrator(options);
  copies_.at(size_t(i)).options = options;
}

LockstepState Comparison::saveState() const {
  LockstepState h;
  h.clock = clock_;
  h.others.reserve(sims_.size() - 1);
  for (size_t i = 1; i < sims_.size(); ++i) h.others.push_back(sims_[i] ? sims_[i]->state() : State());
  return h;
}

void Comparison::restoreState(const LockstepState& h) {
  clock_ = h.clock;
  for (size_t i = 0; i < sims_.size(); ++i) {
    if (i > 0 && sims_[i] && i - 1 < h.others.size()) sims_[i]->setState(h.others[i - 1]);
    // A stop in the future of that instant has not happened yet.
    if (stopped(int(i)) && cannotStart_[i].empty() && stoppedAt_[i] > clock_) why_[i].clear();
  }
}

void Comparison::setState(const State& s) {
  for (auto& sim : sims_) {
    if (!sim) continue;
    sim->setState(s);
    // A baseline starts from the state's velocities made tangent to the constraints (Gν = 0).
    if (sim->integratorOptions().kind != IntegratorKind::Variational) sim->projectVelocitiesOntoConstraints();
  }
  clock_ = s.time;
  startRun();
}

void Comparison::reset() {
  for (auto& sim : sims_)
    if (sim) sim->reset();
  clock_ = sims_[0]->state().time;
  startRun();
}

void Comparison::restart(const std::function<void(Simulation&)>& how) {
  how(*sims_[0]);  // may throw: nothing changed yet
  clock_ = sims_[0]->state().time;
  std::vector<std::pair<int, std::string>> refused;
  for (int i = 1; i < size(); ++i) {
    if (!sims_[size_t(i)]) continue;
    try {
      how(*sims_[size_t(i)]);
    } catch (const UserError& e) {
      refused.emplace_back(i, e.what());
    }
  }
  startRun();
  for (auto& [i, why] : refused) stop(i, why, clock_);
}

}  // namespace ms
