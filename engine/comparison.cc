// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/check.h"

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
    if (c.tolerance != 0) {
      if (!(std::isfinite(c.tolerance) && c.tolerance > 0))
        throw UserError("copy '" + c.label + "': the Newton tolerance must be a positive number");
      sim->settings().tolerance = c.tolerance;
    }
    sim->reset();
    sims_.push_back(std::move(sim));
  }
  target_ = sims_[0]->state().time;
  startRun();
}

void Comparison::startRun() {
  energy0_.clear();
  scale_.clear();
  for (const auto& s : sims_) {
    energy0_.push_back(s->kineticEnergy() + s->potentialEnergy());
    scale_.push_back(energyScale(*s));
  }
  blowUp_.assign(sims_.size(), std::string());
}

int Comparison::advanceTo(double t, const std::function<void(int)>& afterStep) {
  target_ = t;
  for (size_t i = 0; i < sims_.size(); ++i) {
    Simulation& s = *sims_[i];
    const double dt = s.settings().dt;
    while (!stopped(int(i)) && s.state().time + dt <= t + 1e-6 * dt) {
      if (!s.step()) break;
      blewUp(s, energy0_[i], scale_[i], &blowUp_[i]);
      if (afterStep) afterStep(int(i));
    }
  }
  return running();
}

int Comparison::running() const {
  int n = 0;
  for (int i = 0; i < size(); ++i) n += stopped(i) ? 0 : 1;
  return n;
}

bool Comparison::stopped(int i) const { return sims_.at(size_t(i))->failed() || !blowUp_.at(size_t(i)).empty(); }

std::string Comparison::stopReason(int i) const {
  const Simulation& s = *sims_.at(size_t(i));
  if (s.failed()) return s.metrics().message;
  if (!blowUp_.at(size_t(i)).empty())
    return "step " + std::to_string(s.state().step) + " (t = " + std::to_string(s.state().time) + " s): " + blowUp_[size_t(i)];
  return {};
}

void Comparison::setState(const State& s) {
  for (auto& sim : sims_) {
    sim->setState(s);
    // A baseline starts from the state's velocities made tangent to the constraints (Gν = 0).
    if (sim->integratorOptions().kind != IntegratorKind::Variational) sim->projectVelocitiesOntoConstraints();
  }
  target_ = s.time;
  startRun();
}

void Comparison::reset() {
  for (auto& sim : sims_) sim->reset();
  target_ = sims_[0]->state().time;
  startRun();
}

}  // namespace ms
