// SPDX-License-Identifier: GPL-3.0-or-later
// Several copies of one compiled mechanism, each with its own integrator and time step, advanced in
// lockstep in simulated time (the lessons of the CLI and their tests; the app's simulation thread
// runs the same rule with its history and uses the blow-up test below). Copy 0 is the reference.
// A copy whose step fails, or that blows up, stops where it did and keeps the reason; the others go on.
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

struct ComparisonCopy {
  std::string label;  // legend entry
  IntegratorOptions options;
  double dt = 0.01;
  double tolerance = 0;  // Newton tolerance on the residual ∞-norm; 0: the model's
};

class Comparison {
 public:
  // One Simulation per copy; throws UserError naming the copy if its options do not fit the system
  // or its Δt is not a positive number.
  Comparison(std::shared_ptr<const CompiledSystem> system, std::vector<ComparisonCopy> copies);

  int size() const { return int(sims_.size()); }
  Simulation& simulation(int i) { return *sims_.at(size_t(i)); }
  const Simulation& simulation(int i) const { return *sims_.at(size_t(i)); }
  const ComparisonCopy& copy(int i) const { return copies_.at(size_t(i)); }

  // Steps every running copy while its next knot is not past t (within 1e-6 of its Δt), so each
  // ends within one of its steps before t. `afterStep(i)` is called after every step of copy i
  // (also the one that made it blow up). Returns the number of copies still running.
  int advanceTo(double t, const std::function<void(int)>& afterStep = {});
  // Advances by one step of the reference copy's Δt (the others catch up).
  int step() { return advanceTo(target_ + copies_[0].dt); }
  // The time the copies were last advanced to.
  double time() const { return target_; }
  int running() const;
  // A copy that failed a step or blew up (blewUp), and why ("step N (t = …): reason" or the blow-up).
  bool stopped(int i) const;
  std::string stopReason(int i) const;

  // Every copy from state `s` (a branch from history); clears failures. Baselines get the state's
  // velocities projected onto Gν = 0 (Simulation::projectVelocitiesOntoConstraints).
  void setState(const State& s);
  // Every copy back to its initial conditions.
  void reset();

 private:
  std::vector<ComparisonCopy> copies_;
  void startRun();  // energy references of every copy at its current state; clears blow-ups
  std::vector<std::unique_ptr<Simulation>> sims_;
  std::vector<double> energy0_, scale_;
  std::vector<std::string> blowUp_;  // non-empty: the copy blew up
  double target_ = 0;
};

}  // namespace ms
