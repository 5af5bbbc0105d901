// SPDX-License-Identifier: GPL-3.0-or-later
// The lockstep runner: several copies of one compiled mechanism, each with its own integrator and
// time step, advanced side by side in simulated time. It is the only loop that steps comparison
// copies: the CLI's `lesson` command and its tests drive it directly, the app's simulation thread
// (ui/sim/sim_controller) drives it between its sync points and keeps only pacing, history and
// snapshots for itself.
//
// Rule: copy 0 is the reference. step() advances the reference by one of its steps and sets the
// clock to its time; every other copy then takes steps of its own Δt while its next knot is not past
// the clock (within a millionth of its Δt, for rounding), so each copy ends within one of its own
// steps before the clock, never past it. A copy whose step fails, or that blows up (blewUp), stops
// where it did and keeps the reason; the others go on. A drag (the app's Ctrl+drag spring) acts on
// the reference. Equal cost chooses the other copies' Δt so that their CPU time per simulated second
// matches the reference's.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "integrator/integrator_options.h"
#include "simulation.h"

namespace ms {

// Mass × |g| × the largest distance of a body from the centre of the joints to the world (or of the
// bodies): the size of the energies a mechanism exchanges, for scaling energy errors.
double characteristicEnergy(const Simulation& sim);
// The scale of energy errors for a run starting at sim's state: max(|E0|, characteristicEnergy, 1e-12).
double energyScale(const Simulation& sim);
// A run that blew up: a non-finite state, a body beyond 1e5 m or faster than 1e6 m/s (or rad/s), or
// its energy more than 100 × scale away from energy0 (an unstable explicit step pumps energy in
// long before the numbers overflow). Sets *why.
bool blewUp(const Simulation& sim, double energy0, double scale, std::string* why);

// A spring from a point fixed on a body (body frame, relative to its centre of mass) to a target
// point (world): the app's Ctrl+drag. Its stiffness and damping scale with the body's mass.
struct Drag {
  bool active = false;
  int body = -1;
  Vec3 localPoint = Vec3::Zero();
  Vec3 target = Vec3::Zero();
};
// Sets `in`'s external forces and torques: zero everywhere but the dragged body, which gets the
// spring's force at its centre of mass and its torque (world frame), at sim's state.
void applyDrag(const Simulation& sim, const Drag& drag, Inputs& in);

struct ComparisonCopy {
  std::string label;  // legend entry
  IntegratorOptions options;
  double dt = 0.01;      // <= 0 (from a running simulation only): the reference's
  double tolerance = 0;  // Newton tolerance on the residual ∞-norm; 0: the model's (or the reference's)
  int maxIterations = 0;  // Newton iteration cap; 0: the model's (or the reference's)
};

// The states of copies 1…n and the clock at one instant (the app's history keeps the reference's
// state itself).
struct LockstepState {
  double clock = 0;
  std::vector<State> others;
};

class Comparison {
 public:
  // Every copy from the system's initial conditions. Throws UserError naming the copy if its
  // options do not fit the system or its Δt or tolerance is not a positive number.
  Comparison(std::shared_ptr<const CompiledSystem> system, std::vector<ComparisonCopy> copies);
  // From a running simulation (the app's "compare from here"): `reference` becomes copy 0 with
  // copies[0]'s integrator, Δt and Newton settings (0: keep its own), the others are new
  // simulations with the reference's settings; every copy starts from the reference's state. A
  // copy that cannot start is kept, stopped, with "cannot start: <why>" (the others run).
  Comparison(std::shared_ptr<Simulation> reference, std::vector<ComparisonCopy> copies);

  int size() const { return int(sims_.size()); }
  // False for a copy that could not start (it has no simulation).
  bool started(int i) const { return sims_.at(size_t(i)) != nullptr; }
  Simulation& simulation(int i);
  const Simulation& simulation(int i) const;
  const ComparisonCopy& copy(int i) const { return copies_.at(size_t(i)); }

  // Called after every step of copy i, also the one that made it blow up (stopped(i) is then true),
  // but not after a step that failed (the state did not advance).
  using AfterStep = std::function<void(int)>;
  // One step of the reference (when it runs) and the others up to its time; returns the number of
  // copies still running.
  int step(const AfterStep& afterStep = {});
  // Every running copy steps while its next knot is not past t; the clock becomes t.
  int advanceTo(double t, const AfterStep& afterStep = {});
  // The clock: the time the copies were last advanced to.
  double time() const { return clock_; }
  int running() const;
  // A copy that failed a step, blew up or could not start.
  bool stopped(int i) const { return !why_.at(size_t(i)).empty(); }
  // Why it stopped as the app lists it ("cannot start: …", the failed step's message, or the blow-up).
  const std::string& failure(int i) const { return why_.at(size_t(i)); }
  // Why it stopped with where: "step N (t = …): reason" (a failed step's message already says it).
  std::string stopReason(int i) const;
  // Simulated time of the step that stopped it.
  double stoppedAt(int i) const { return stoppedAt_.at(size_t(i)); }
  // Steps taken since the run started and their mean wall time (StepMetrics::stepMicroseconds).
  long steps(int i) const { return steps_.at(size_t(i)); }
  double microsecondsPerStep(int i) const;
  // Energy at the start of the run and the scale of its errors (energyScale).
  double energy0(int i) const { return energy0_.at(size_t(i)); }
  double scale(int i) const { return scale_.at(size_t(i)); }

  // Equal cost: Δt_i = Δt_ref · c_i / c_ref (c: CPU µs per step of a scratch copy over ~40 ms from
  // the current state), measured twice for each other copy since the cost of a step depends on its
  // size; rounded to three significant digits and clamped to [1e-3, 1e2] × Δt_ref. Does nothing
  // when the reference cannot be measured.
  void equalizeCost();
  // µs per step measured by equalizeCost (0: not calibrated).
  double calibratedMicroseconds(int i) const { return calibrated_.at(size_t(i)); }

  // The integrator of copy i from now on (throws UserError, then nothing changed).
  void setIntegrator(int i, const IntegratorOptions& options);
  // The Ctrl+drag spring on the reference (inactive: no external force).
  void setDrag(const Drag& drag) { drag_ = drag; }

  // History: the others' states and the clock, and back to them (with the reference's own state
  // restored by the caller). Copies that stopped after that instant run again.
  LockstepState saveState() const;
  void restoreState(const LockstepState& s);

  // Every copy from state `s` (a branch from history); clears failures. Baselines get the state's
  // velocities projected onto Gν = 0 (Simulation::projectVelocitiesOntoConstraints).
  void setState(const State& s);
  // Every copy back to its initial conditions.
  void reset();
  // Runs `how` on the reference (it may throw UserError: then nothing changed), then on every
  // other copy that started (one that throws stops with the reason), clears the other failures and
  // counts, and starts a new run at the reference's time (reset, keyframes).
  void restart(const std::function<void(Simulation&)>& how);

 private:
  bool stepCopy(int i, const AfterStep& afterStep);
  void catchUp(int i, double t, const AfterStep& afterStep);
  void stop(int i, std::string why, double at);
  void startRun();  // energy references of every copy at its current state; clears counts and blow-ups

  std::vector<ComparisonCopy> copies_;
  std::vector<std::shared_ptr<Simulation>> sims_;  // null: the copy could not start
  std::vector<std::string> why_;                    // non-empty: the copy stopped
  std::vector<std::string> cannotStart_;            // non-empty: why it never started (kept by restarts)
  std::vector<double> stoppedAt_, energy0_, scale_, microsecondsSum_, calibrated_;
  std::vector<long> steps_;
  Drag drag_;
  double clock_ = 0;
};

}  // namespace ms
