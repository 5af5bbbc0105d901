// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparison.h"

#include <cmath>

#include "core/check.h"

namespace ms {

Comparison::Comparison(std::shared_ptr<const CompiledSystem> system, std::vector<ComparisonCopy> copies)
    : copies_(std::move(copies)) {
  if (copies_.empty()) throw UserError("a comparison needs at least one copy");
  for (const ComparisonCopy& c : copies_) {
    if (!(std::isfinite(c.dt) && c.dt > 0))
      throw UserError("copy '" + c.label + "': the time step must be a positive number of seconds");
    auto sim = std::make_unique<Simulation>(system);
    try {
      sim->setIntegrator(c.options);
    } catch (const UserError& e) {
      throw UserError("copy '" + c.label + "': " + e.what());
    }
    sim->settings().dt = c.dt;
    sim->reset();
    sims_.push_back(std::move(sim));
  }
  target_ = sims_[0]->state().time;
}

int Comparison::advanceTo(double t) {
  target_ = t;
  for (size_t i = 0; i < sims_.size(); ++i) {
    Simulation& s = *sims_[i];
    const double dt = s.settings().dt;
    while (!s.failed() && s.state().time + 0.5 * dt <= t)
      if (!s.step()) break;
  }
  return running();
}

int Comparison::running() const {
  int n = 0;
  for (const auto& s : sims_) n += s->failed() ? 0 : 1;
  return n;
}

void Comparison::setState(const State& s) {
  for (auto& sim : sims_) {
    sim->setState(s);
    // A baseline starts from the state's velocities made tangent to the constraints (Gν = 0).
    if (sim->integratorOptions().kind != IntegratorKind::Variational) sim->projectVelocitiesOntoConstraints();
  }
  target_ = s.time;
}

void Comparison::reset() {
  for (auto& sim : sims_) sim->reset();
  target_ = sims_[0]->state().time;
}

}  // namespace ms
