// SPDX-License-Identifier: GPL-3.0-or-later
// Several copies of one compiled mechanism, each with its own integrator and time step, advanced in
// lockstep in simulated time (the comparison mode of the app, the lessons of the CLI and their
// tests). Copy 0 is the reference. A copy whose step fails stops where it failed and keeps its
// report; the others go on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "integrator/integrator_options.h"
#include "simulation.h"

namespace ms {

struct ComparisonCopy {
  std::string label;  // legend entry
  IntegratorOptions options;
  double dt = 0.01;
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

  // Steps every copy that has not failed while its time + Δt/2 ≤ t, so all live copies end within
  // half a step of t. Returns the number of copies still running.
  int advanceTo(double t);
  // Advances by one step of the reference copy's Δt (the others catch up).
  int step() { return advanceTo(target_ + copies_[0].dt); }
  // The time the copies were last advanced to.
  double time() const { return target_; }
  int running() const;

  // Every copy from state `s` (a branch from history); clears failures. Baselines get the state's
  // velocities projected onto Gν = 0 (Simulation::projectVelocitiesOntoConstraints).
  void setState(const State& s);
  // Every copy back to its initial conditions.
  void reset();

 private:
  std::vector<ComparisonCopy> copies_;
  std::vector<std::unique_ptr<Simulation>> sims_;
  double target_ = 0;
};

}  // namespace ms
