// SPDX-License-Identifier: GPL-3.0-or-later
// The simulation thread: a loop that applies queued GUI requests, paces and steps the engine,
// records one plot sample per step, keeps the history ring and publishes snapshots.
#include "sim/sim_controller.h"

#include "comparison.h"

#include <QMetaObject>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include "core/check.h"
#include "core/quaternion.h"
#include "system/initial_conditions.h"

namespace ms::ui {

namespace {
using Clock = std::chrono::steady_clock;
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
// Snapshots are published at most this often while running (the GUI draws at ~60 Hz).
constexpr double kPublishInterval = 1.0 / 120.0;
// Window over which the achieved real-time factor is measured.
constexpr double kRateWindow = 0.5;
// When pacing falls further behind than this (wall seconds), it gives up catching up.
constexpr double kMaxLag = 0.1;
// Niceness of the simulation thread (Linux: per thread).
constexpr int kNice = 10;
}  // namespace

SimController::SimController(QObject* parent) : QObject(parent) {
  thread_ = std::thread([this] { threadMain(); });
}

SimController::~SimController() {
  {
    std::lock_guard<std::mutex> lk(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// ---- requests from the GUI thread --------------------------------------------------------------

void SimController::post(Command c) {
  {
    std::lock_guard<std::mutex> lk(mutex_);
    pending_.push_back(std::move(c));
    ++postedSerial_;
  }
  wake_.notify_all();
}

void SimController::load(std::shared_ptr<const CompiledSystem> system) {
  MS_ASSERT(system != nullptr, "load(null)");
  // Built here so that infeasible initial conditions throw to the caller.
  auto sim = std::make_shared<Simulation>(std::move(system));
  const StepSettings settings = sim->settings();
  {
    std::lock_guard<std::mutex> lk(mutex_);
    settingsCopy_ = settings;
  }
  post([this, sim] {
    sim_ = sim;
    ++generation_;
    running_ = false;
    perturbation_ = Perturbation();
    cmp_.reset();
    startTimeline();
  });
}

namespace {
// The state of `next` (a new simulation at its initial conditions) with the bodies of `prev` that
// have the same name put where they were, moving as they did, then made consistent with the new
// joints the way the initial conditions are: poses projected onto g = 0, the next knot
// z1 = z0 ⊕ ż0Δt projected too, and ż0 = (z1 ⊖ z0)/Δt. Returns false (state untouched) when a
// projection does not converge. `carried` counts the bodies taken over.
bool carryOverState(const CompiledSystem& prevSys, const State& prev, const Simulation& next, State& out, int* carried) {
  const CompiledSystem& sys = next.system();
  const double dt = next.settings().dt;
  State s0 = next.state();
  const State init = s0;
  std::vector<bool> placed(sys.bodies.size(), false);
  int n = 0;
  for (size_t i = 0; i < sys.bodies.size(); ++i)
    for (size_t k = 0; k < prevSys.bodies.size() && k < prev.bodies.size(); ++k)
      if (prevSys.bodies[k].name == sys.bodies[i].name) {
        s0.bodies[i] = prev.bodies[k];
        placed[i] = true;
        ++n;
        break;
      }
  // New (or renamed) bodies hang from a carried parent as in the new initial conditions and move
  // rigidly with it (joint rates zero): along the spanning tree, parents before children.
  for (int j : sys.treeJoints) {
    const JointGeometry& g = sys.joints[size_t(j)].geo;
    if (g.parent < 0 || placed[size_t(g.child)] || !placed[size_t(g.parent)]) continue;
    const BodyState &p0 = init.bodies[size_t(g.parent)], &c0 = init.bodies[size_t(g.child)];
    const BodyState& p = s0.bodies[size_t(g.parent)];
    BodyState& c = s0.bodies[size_t(g.child)];
    const Vec4 qRel = quat::mul(quat::conj(p0.q), c0.q);
    const Vec3 xRel = quat::rotation(p0.q).transpose() * (c0.x - p0.x);
    c.q = quat::mul(p.q, qRel).normalized();
    c.x = p.x + quat::rotation(p.q) * xRel;
    const Vec3 wWorld = quat::rotation(p.q) * p.w;
    c.v = p.v + wWorld.cross(c.x - p.x);
    c.w = quat::rotation(c.q).transpose() * wWorld;
    placed[size_t(g.child)] = true;
  }
  if (!(projectOntoConstraints(sys, s0) <= kProjectionTolerance * constraintRoundoff(s0))) return false;
  State s1 = s0;
  for (size_t i = 0; i < s0.bodies.size(); ++i) {
    Vec4 inc;
    if (!quat::incrementFromVelocity(s0.bodies[i].w, dt, inc)) return false;
    s1.bodies[i].x = s0.bodies[i].x + s0.bodies[i].v * dt;
    s1.bodies[i].q = quat::mul(s0.bodies[i].q, inc);
  }
  if (!(projectOntoConstraints(sys, s1) <= kProjectionTolerance * constraintRoundoff(s1))) return false;
  for (size_t i = 0; i < s0.bodies.size(); ++i) {
    BodyState& b = s0.bodies[i];
    b.v = (s1.bodies[i].x - b.x) / dt;
    Vec4 r = quat::mul(quat::conj(b.q), s1.bodies[i].q);
    if (r(0) < 0) r = -r;
    b.w = (2.0 / dt) * r.tail<3>();
  }
  // The clock goes on from the previous model's time.
  s0.time = prev.time;
  s0.step = prev.step;
  out = std::move(s0);
  *carried = n;
  return true;
}
}  // namespace

void SimController::apply(std::shared_ptr<const CompiledSystem> system, bool carryOver) {
  MS_ASSERT(system != nullptr, "apply(null)");
  // Built here so that infeasible initial conditions throw to the caller.
  auto sim = std::make_shared<Simulation>(std::move(system));
  const StepSettings settings = sim->settings();
  {
    std::lock_guard<std::mutex> lk(mutex_);
    settingsCopy_ = settings;
  }
  post([this, sim, carryOver] {
    // At the sync point: the running model's state as it is now, then the swap.
    // At the initial state (step 0: nothing simulated yet, the user edits where it starts) the new
    // initial conditions are taken as written: a moved joint or anchor shows where the text puts it.
    int carried = 0;
    const bool carry = carryOver && sim_ && sim_->state().step > 0;
    if (carry) {
      State s;
      if (carryOverState(sim_->system(), sim_->state(), *sim, s, &carried)) sim->setState(s);
      else carried = -1;
    }
    // The edited model keeps the reference's integrator when it still makes sense; a comparison ends.
    try {
      if (sim_) sim->setIntegrator(sim_->integratorOptions());
    } catch (const UserError&) {
    }
    // And the keyframe chosen as the initial state, when the edited model still has one of that name
    // that fits it (Reset returns there; the state carried over stays).
    if (sim_ && !sim_->initialKeyframe().empty())
      if (const KeyframeDesc* k = sim->system().model.keyframe(sim_->initialKeyframe())) try {
          sim->setInitialKeyframe(*k, !carry);
        } catch (const UserError&) {
        }
    sim_ = sim;
    ++generation_;
    perturbation_ = Perturbation();
    cmp_.reset();
    startTimeline();
    std::lock_guard<std::mutex> lk(mutex_);
    carried_ = carried;
  });
}

int SimController::carriedBodies() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return carried_;
}

void SimController::setRunning(bool running) {
  post([this, running] {
    if (!sim_) return;
    if (running && failed_) return;  // a failed simulation needs reset or step back first
    // Running from a past state discards the states after it.
    if (running && historyCursor_ >= 0 && historyCursor_ + 1 < int(history_.size())) {
      history_.erase(history_.begin() + historyCursor_ + 1, history_.end());
      if (int(copyHistory_.size()) > historyCursor_ + 1)
        copyHistory_.erase(copyHistory_.begin() + historyCursor_ + 1, copyHistory_.end());
    }
    running_ = running;
  });
}

void SimController::stepOnce() {
  post([this] {
    running_ = false;
    if (!sim_ || failed_) return;
    // Stepping from a past state discards the states after it.
    if (historyCursor_ >= 0 && historyCursor_ + 1 < int(history_.size())) {
      history_.erase(history_.begin() + historyCursor_ + 1, history_.end());
      if (int(copyHistory_.size()) > historyCursor_ + 1)
        copyHistory_.erase(copyHistory_.begin() + historyCursor_ + 1, copyHistory_.end());
    }
    stepOnceInThread();
  });
}

void SimController::stepBack() {
  post([this] {
    running_ = false;
    if (historyCursor_ > 0) restoreHistory(historyCursor_ - 1);
  });
}

void SimController::seek(int index) {
  post([this, index] {
    running_ = false;
    if (index >= 0 && index < int(history_.size())) restoreHistory(index);
  });
}

void SimController::reset() {
  post([this] {
    running_ = false;
    if (!sim_) return;
    restartAll([](Simulation& sim) { sim.reset(); });
  });
}

void SimController::restartAll(const std::function<void(Simulation&)>& how) {
  // May throw: nothing changed yet. Comparison: every copy restarted too (each made consistent for
  // its own integrator by the Simulation); a copy that could not start stays so.
  if (cmp_) cmp_->restart(how);
  else how(*sim_);
  running_ = false;
  startTimeline();
}

void SimController::loadKeyframe(const KeyframeDesc& keyframe) { postKeyframe(keyframe, false); }

void SimController::useKeyframeAsInitialState(const KeyframeDesc& keyframe) { postKeyframe(keyframe, true); }

// Both keyframe requests: every copy restarts from the keyframe (as the state, or as the initial one).
void SimController::postKeyframe(const KeyframeDesc& keyframe, bool asInitialState) {
  post([this, keyframe, asInitialState] {
    if (!sim_) return;
    try {
      restartAll([&](Simulation& sim) {
        if (asInitialState)
          sim.setInitialKeyframe(keyframe);
        else
          sim.loadKeyframe(keyframe);
      });
    } catch (const UserError& e) {
      emitError(std::string(asInitialState ? "Keyframe not used as the initial state: " : "Keyframe not loaded: ") + e.what());
    }
  });
}

void SimController::setSpeed(double factor) {
  post([this, factor] { speed_ = factor; });
}

void SimController::setStepSettings(const StepSettings& settings) {
  {
    std::lock_guard<std::mutex> lk(mutex_);
    settingsCopy_ = settings;
  }
  post([this, settings] {
    if (sim_) sim_->settings() = settings;
  });
}

StepSettings SimController::stepSettings() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return settingsCopy_;
}

void SimController::setHistoryCapacity(int states) {
  states = std::max(states, 2);
  {
    std::lock_guard<std::mutex> lk(mutex_);
    historyCapacityCopy_ = states;
  }
  post([this, states] {
    historyCapacity_ = states;
    // Drop the oldest states beyond the new capacity.
    while (int(history_.size()) > historyCapacity_) {
      history_.pop_front();
      if (!copyHistory_.empty()) copyHistory_.pop_front();
      --historyCursor_;
    }
    if (!history_.empty()) historyCursor_ = std::max(historyCursor_, 0);
  });
}

int SimController::historyCapacity() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return historyCapacityCopy_;
}

void SimController::setPerturbation(const Perturbation& p) {
  post([this, p] { perturbation_ = p; });
}

void SimController::watchSignals(std::shared_ptr<const SignalCatalogue> catalogue, std::vector<int> indices) {
  post([this, catalogue = std::move(catalogue), indices = std::move(indices)]() mutable {
    catalogue_ = std::move(catalogue);
    watched_ = std::move(indices);
    // Paused: the samples of the states shown are recorded again with the signals, so that the
    // plots start there and not one step later (every copy at the same time; a copy lagging behind
    // the clock would lose the reference's samples after its own).
    if (!sim_ || running_ || failed_ || watched_.empty()) return;
    const double t = sim_->state().time;
    if (cmp_)
      for (int k = 1; k < cmp_->size(); ++k)
        if (cmp_->started(k) && std::abs(cmp_->simulation(k).state().time - t) > 1e-9 * std::max(1.0, std::abs(t))) return;
    rewind(std::nextafter(t - 1e-9 * std::max(1.0, std::abs(t)), -std::numeric_limits<double>::infinity()));
    recordSample();
    if (cmp_)
      for (int k = 1; k < cmp_->size(); ++k)
        if (cmp_->started(k)) recordCopySample(k);
  });
}

void SimController::setActuator(int joint, int dof, double value) {
  post([this, joint, dof, value] {
    if (!sim_ || joint < 0 || joint >= int(sim_->inputs().actuator.size()) || dof < 0 || dof >= 6) return;
    sim_->inputs().actuator[joint][dof] = value;
    if (cmp_)
      for (int k = 1; k < cmp_->size(); ++k)
        if (cmp_->started(k)) cmp_->simulation(k).inputs().actuator[joint][dof] = value;
  });
}

void SimController::setInitialJointPosition(int joint, const std::vector<double>& position) {
  post([this, joint, position] {
    if (!sim_ || joint < 0 || joint >= int(sim_->system().joints.size())) return;
    running_ = false;
    // Comparison: every copy starts again from the new initial conditions.
    const auto how = [&](Simulation& sim) { sim.setInitialJointState(joint, position, {}); };
    try {
      restartAll(how);
    } catch (const UserError& e) {
      emitError(e.what());
      restartAll([](Simulation& sim) { sim.reset(); });
    }
  });
}

void SimController::setIntegrator(const IntegratorOptions& options) {
  post([this, options] {
    if (!sim_) return;
    try {
      if (cmp_) cmp_->setIntegrator(0, options);
      else sim_->setIntegrator(options);
      if (!specs_.empty()) specs_[0].options = options;
      {
        std::lock_guard<std::mutex> lk(mutex_);
        integratorCopy_ = options;
      }
      // A new integrator may continue a failed run (the state before the failure is kept).
      if (failed_ && !cmp_) {
        failed_ = false;
        failure_.clear();
      }
    } catch (const UserError& e) {
      emitError(std::string("Integrator not changed: ") + e.what());
    }
  });
}

IntegratorOptions SimController::integratorOptions() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return integratorCopy_;
}

bool SimController::comparing() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return comparingCopy_;
}


void SimController::startComparison(const std::vector<CopySpec>& specs, bool equalCost) {
  if (specs.empty()) return;
  post([this, specs, equalCost] {
    if (!sim_) return;
    running_ = false;
    // The engine's runner takes sim_ as its reference; a copy that cannot start is listed as failed.
    std::vector<ComparisonCopy> copies;
    for (const CopySpec& c : specs) copies.push_back({c.label, c.options, c.dt, c.tolerance, c.maxIterations});
    cmp_ = std::make_unique<Comparison>(sim_, std::move(copies));
    if (equalCost) cmp_->equalizeCost();
    specs_ = specs;
    {
      std::lock_guard<std::mutex> lk(mutex_);
      comparingCopy_ = true;
      integratorCopy_ = sim_->integratorOptions();
      settingsCopy_ = sim_->settings();
    }
    startTimeline();
  });
}

void SimController::stopComparison() {
  post([this] {
    if (!cmp_) return;
    cmp_.reset();
    copyHistory_.clear();
    {
      std::lock_guard<std::mutex> lk(mutex_);
      comparingCopy_ = false;
    }
    if (sim_) {
      running_ = false;
      startTimeline();
    }
  });
}

Snapshot SimController::snapshot() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return published_;
}

bool SimController::takeSamples(std::vector<StepSample>& out, double* rewindTo) {
  std::lock_guard<std::mutex> lk(mutex_);
  out.insert(out.end(), samples_.begin(), samples_.end());
  samples_.clear();
  const bool rewound = rewindPending_;
  if (rewindTo) *rewindTo = rewindTo_;
  rewindPending_ = false;
  return rewound;
}

void SimController::sync() {
  std::unique_lock<std::mutex> lk(mutex_);
  const long target = postedSerial_;
  applied_.wait(lk, [&] { return appliedSerial_ >= target || quit_; });
}

// ---- the simulation thread ---------------------------------------------------------------------

void SimController::emitFailed(const std::string& message) {
  const QString m = QString::fromStdString(message);
  QMetaObject::invokeMethod(this, [this, m] { Q_EMIT failed(m); }, Qt::QueuedConnection);
}

void SimController::emitError(const std::string& message) {
  const QString m = QString::fromStdString(message);
  QMetaObject::invokeMethod(this, [this, m] { Q_EMIT error(m); }, Qt::QueuedConnection);
}

// A new timeline from the simulation's current state (load, reset, new initial conditions):
// clears the failure and the history, takes E0 and records the t = 0 sample.
void SimController::startTimeline() {
  failed_ = false;
  failure_.clear();
  history_.clear();
  copyHistory_.clear();
  historyCursor_ = -1;
  stalledSteps_ = subdividedSteps_ = singularSteps_ = 0;
  refinedInterval_ = refinedAt_ = 0;
  energy0_ = sim_->kineticEnergy() + sim_->potentialEnergy();
  energyScale_ = energyScale(*sim_);
  localSamples_.clear();
  rewind(-std::numeric_limits<double>::infinity());
  if (cmp_) {
    copyEnergyScale_.assign(size_t(cmp_->size()), energyScale_);
  } else {
    std::lock_guard<std::mutex> lk(mutex_);
    comparingCopy_ = false;
  }
  {
    std::lock_guard<std::mutex> lk(mutex_);
    integratorCopy_ = sim_->integratorOptions();
  }
  pushHistory();
  recordSample();
  if (cmp_)
    for (int k = 1; k < cmp_->size(); ++k)
      if (cmp_->started(k)) recordCopySample(k);
}

// Σ m·|g|·L, with L the mechanism's size (largest distance of a body from the centroid of the
// world pivots, or of the bodies when nothing is hinged to the world): the energy scale of a
// mechanism moving under gravity, used when E0 itself is near zero.
// Drops samples after `time` (already published and not yet published).
void SimController::rewind(double time) {
  std::lock_guard<std::mutex> lk(mutex_);
  // Copies interleave their samples: drop every one after `time`, wherever it is.
  const auto after = [time](const StepSample& x) { return x.time > time; };
  samples_.erase(std::remove_if(samples_.begin(), samples_.end(), after), samples_.end());
  localSamples_.erase(std::remove_if(localSamples_.begin(), localSamples_.end(), after), localSamples_.end());
  rewindTo_ = rewindPending_ ? std::min(rewindTo_, time) : time;
  rewindPending_ = true;
}

void SimController::pushHistory() {
  // Reuse the storage of the oldest state when the ring is full (no allocation in steady state).
  if (int(history_.size()) >= historyCapacity_) {
    State recycled = std::move(history_.front());
    history_.pop_front();
    recycled = sim_->state();
    history_.push_back(std::move(recycled));
  } else {
    history_.push_back(sim_->state());
  }
  historyCursor_ = int(history_.size()) - 1;
  // Comparison: every other copy's state and the clock, at the same index.
  if (cmp_) {
    while (copyHistory_.size() + 1 > history_.size()) copyHistory_.pop_front();
    copyHistory_.push_back(cmp_->saveState());
  }
}

void SimController::restoreHistory(int index) {
  sim_->setState(history_[index]);
  historyCursor_ = index;
  failed_ = false;
  failure_.clear();
  if (cmp_ && index < int(copyHistory_.size())) {
    // Copies that failed after this instant run again (their failure is in the future now).
    cmp_->restoreState(copyHistory_[size_t(index)]);
    rewind(cmp_->time());
    return;
  }
  rewind(sim_->state().time);
}

void SimController::recordCopySample(int index) {
  recordSampleOf(cmp_->simulation(index), index, cmp_->energy0(index), copyEnergyScale_[size_t(index)]);
}

void SimController::recordSample() { recordSampleOf(*sim_, 0, energy0_, energyScale_); }

// After a step of the reference: its count of stalled and subdivided steps.
void SimController::countRemedies() {
  const StepMetrics& m = sim_->metrics();
  stalledSteps_ += m.stalled ? 1 : 0;
  subdividedSteps_ += m.substeps > 1 ? 1 : 0;
  singularSteps_ += m.singular > 0 ? 1 : 0;
  if (m.refinedInterval > 0) {
    refinedInterval_ = m.refinedInterval;
    refinedAt_ = m.time;
  }
}

void SimController::recordSampleOf(const Simulation& sim, int copy, double energy0, double& energyScale) {
  const StepMetrics& m = sim.metrics();
  StepSample s;
  s.copy = copy;
  s.step = m.step;
  s.time = m.time;
  s.kinetic = m.kinetic;
  s.potential = m.potential;
  s.energy = m.energy;
  // Relative to the largest of |E0|, Σ m·|g|·L and the largest kinetic energy so far (E0 alone is
  // often ~0, e.g. a pendulum released at rest at the height of its pivot).
  energyScale = std::max(energyScale, m.kinetic);
  s.energyError = std::abs(m.energy - energy0) / energyScale;
  s.violation = m.constraintViolation;
  s.penetration = m.penetration;
  s.limitViolation = m.limitViolation;
  s.iterations = m.iterations;
  s.residual = m.residual;
  s.stepMicroseconds = m.stepMicroseconds;
  s.angularMomentum = sim.angularMomentum().norm();
  if (catalogue_ && !watched_.empty() && &sim.system() == &catalogue_->system())
    catalogue_->evaluate(sim, watched_, AngleUnit::Radians, s.signalValues);
  localSamples_.push_back(std::move(s));
}

double SimController::clockTime() const { return cmp_ ? cmp_->time() : sim_->state().time; }

// Lockstep (the engine's runner): the reference advances the clock by its Δt with the drag on it;
// each other copy steps while its next knot is not past the clock. A copy's sample is recorded after
// each of its steps but the one that made it blow up.
void SimController::stepComparison() {
  cmp_->setDrag(perturbation_);
  cmp_->step([this](int i) {
    if (cmp_->stopped(i)) return;
    if (i > 0) {
      recordCopySample(i);
      return;
    }
    countRemedies();
    recordSample();
  });
  pushHistory();
  // Every copy stopped: the run pauses (no error banner: each copy says why in its legend).
  if (cmp_->running() == 0) {
    failed_ = true;
    running_ = false;
    failure_ = "every copy of the comparison has stopped";
  }
}

void SimController::stepOnceInThread() {
  if (cmp_) {
    stepComparison();
    return;
  }
  applyDrag(*sim_, perturbation_, sim_->inputs());
  if (!sim_->step()) {
    failed_ = true;
    running_ = false;
    failure_ = sim_->metrics().message;
    // No sample: the state did not advance (a sample here would repeat the last step's time and
    // step, one more sample than steps taken). The failure reaches the GUI as its message.
    emitFailed(failure_);
    return;
  }
  countRemedies();
  recordSample();
  pushHistory();
}

void SimController::publish() {
  std::lock_guard<std::mutex> lk(mutex_);
  Snapshot& s = published_;
  if (!sim_) return;
  if (s.generation != generation_) s.system = sim_->systemPtr();
  s.generation = generation_;
  s.state = sim_->state();
  s.jointPositions.resize(sim_->system().joints.size());
  for (size_t j = 0; j < s.jointPositions.size(); ++j) s.jointPositions[j] = sim_->jointPosition(int(j));
  s.metrics = sim_->metrics();
  // Loaded contacts for drawing.
  contactScratch_.clear();
  sim_->loadedContacts(contactScratch_);
  s.contacts.resize(contactScratch_.size());
  for (size_t i = 0; i < contactScratch_.size(); ++i)
    s.contacts[i] = {contactScratch_[i].point, contactScratch_[i].normal, contactScratch_[i].force};
  s.perturbation = perturbation_;
  s.running = running_;
  s.failed = failed_;
  s.failure = failure_;
  s.speed = speed_;
  s.achievedRealTimeFactor = running_ ? achievedRtf_ : 0.0;
  s.stepsPerSecond = running_ ? stepsPerSecond_ : 0.0;
  s.stalledSteps = stalledSteps_;
  s.singularSteps = singularSteps_;
  s.subdividedSteps = subdividedSteps_;
  s.refinedInterval = refinedInterval_;
  s.refinedAt = refinedAt_;
  s.historyCount = int(history_.size());
  s.historyCursor = historyCursor_;
  s.integrator = sim_->integratorOptions();
  s.clock = clockTime();
  if (cmp_) {
    s.copies.resize(size_t(cmp_->size()));
    for (int k = 0; k < cmp_->size(); ++k) {
      CopyStatus& o = s.copies[size_t(k)];
      o.spec = specs_[size_t(k)];
      o.spec.options = cmp_->copy(k).options;
      o.spec.dt = cmp_->copy(k).dt;
      if (cmp_->started(k)) {
        const Simulation& cs = cmp_->simulation(k);
        o.spec.dt = cs.settings().dt;
        o.state = cs.state();
        o.metrics = cs.metrics();
      } else {
        o.state = sim_->state();
      }
      o.failed = cmp_->stopped(k);
      o.failure = cmp_->failure(k);
      o.failedAt = cmp_->stoppedAt(k);
      o.steps = cmp_->steps(k);
      o.microsecondsPerStep = cmp_->microsecondsPerStep(k);
      o.calibratedMicroseconds = cmp_->calibratedMicroseconds(k);
    }
  } else {
    s.copies.clear();
  }
  samples_.insert(samples_.end(), localSamples_.begin(), localSamples_.end());
  localSamples_.clear();
}

void SimController::threadMain() {
  // The GUI (and the GL rasteriser's threads) come first: physics runs at a lower priority, so that
  // stepping as fast as possible on a 2-core machine never starves the event loop.
  setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), kNice);
  std::vector<Command> cmds;
  // Pacing origin: simulated time simOrigin at wall time wallOrigin.
  Clock::time_point wallOrigin = Clock::now();
  double simOrigin = 0;
  bool restartPacing = true;
  // Window for the achieved real-time factor, restarted when running starts.
  Clock::time_point rateWall = Clock::now();
  double rateSim = 0;
  long rateSteps = 0;
  bool wasRunning = false;
  Clock::time_point lastPublish = Clock::now();

  for (;;) {
    // Sync point: take every queued request (sleep while paused and nothing is queued).
    long serial = 0;
    {
      std::unique_lock<std::mutex> lk(mutex_);
      if (!(running_ && sim_ && !failed_)) wake_.wait(lk, [&] { return quit_ || !pending_.empty(); });
      if (quit_) {
        appliedSerial_ = postedSerial_;
        applied_.notify_all();
        return;
      }
      cmds.swap(pending_);
      serial = postedSerial_;
    }
    // Apply them in order, then publish so that the GUI sees their effect.
    if (!cmds.empty()) {
      for (Command& c : cmds) c();
      cmds.clear();
      publish();
      {
        std::lock_guard<std::mutex> lk(mutex_);
        appliedSerial_ = serial;
      }
      applied_.notify_all();
      lastPublish = Clock::now();
      restartPacing = true;
    }
    if (!(running_ && sim_ && !failed_)) {
      wasRunning = false;
      achievedRtf_ = stepsPerSecond_ = 0;
      continue;
    }
    const Clock::time_point now = Clock::now();
    // Running starts: new rate window.
    if (!wasRunning) {
      rateWall = now;
      rateSim = clockTime();
      rateSteps = 0;
      wasRunning = true;
    }
    // A request changed state or speed: simulated time is measured from here.
    if (restartPacing) {
      wallOrigin = now;
      simOrigin = clockTime();
      restartPacing = false;
    }
    // Pacing: wait until the next step is due (woken early by new requests).
    if (speed_ > 0) {
      const double due = (clockTime() + sim_->settings().dt - simOrigin) / speed_;
      const double elapsed = seconds(now - wallOrigin);
      if (due > elapsed) {
        std::unique_lock<std::mutex> lk(mutex_);
        const auto wait = std::chrono::duration<double>(std::min(due - elapsed, 0.02));
        wake_.wait_for(lk, wait, [&] { return quit_ || !pending_.empty(); });
        continue;
      }
      // Too far behind (slow model or a busy machine): restart the clock instead of racing.
      if (elapsed - due > kMaxLag) restartPacing = true;
    }
    // One step.
    stepOnceInThread();
    ++rateSteps;
    // Achieved rate over the last window.
    const Clock::time_point after = Clock::now();
    const double windowWall = seconds(after - rateWall);
    if (windowWall >= kRateWindow) {
      achievedRtf_ = (clockTime() - rateSim) / windowWall;
      stepsPerSecond_ = double(rateSteps) / windowWall;
      rateWall = after;
      rateSim = clockTime();
      rateSteps = 0;
    }
    // Publish at most kPublishInterval apart (and at once after a failure).
    if (failed_ || seconds(after - lastPublish) >= kPublishInterval) {
      publish();
      lastPublish = after;
    }
  }
}

}  // namespace ms::ui
