// SPDX-License-Identifier: GPL-3.0-or-later
// The small interface every time stepper implements, so that baselines (Euler, Heun, RK4,
// exponential) plug in beside the variational integrator.
#pragma once

#include <string>

#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

enum class StepStatus { Ok, NotConverged, NonFinite, AngularVelocityLimit, SingularMatrix };

const char* toString(StepStatus s);

struct StepSettings {
  double dt = 0.01;
  double tolerance = 1e-10;
  double complementarityTolerance = 1e-8;  // contacts: max s∘γ at convergence
  int maxIterations = 100;
  int maxLineSearch = 12;
  Vec3 gravity = Vec3(0, 0, -9.81);
  // Contacts: solve the islands of a step (bodies nothing couples) one by one (vi_islands.cc); false:
  // the whole step as one problem (the same solution within the tolerances; for comparisons).
  bool islands = true;
  // Sleeping (vi_sleep.cc): an island at rest for sleepTime [s] is not solved until it wakes; 0: off.
  double sleepTime = 0;
};

struct StepReport {
  StepStatus status = StepStatus::Ok;
  int iterations = 0;
  double residual = 0;             // ∞-norm of the final residual
  double constraintViolation = 0;  // ‖g(z)‖∞ at the configuration the step makes final
  double penetration = 0;          // max(0, −min φ) over the contacts at that configuration
  int activeContacts = 0;          // contacts with φ ≤ 1e-6 m and a positive normal impulse
  double limitViolation = 0;       // max(0, θ_lo − θ, θ − θ_hi) over the joint limits (rad or m)
  int activeLimits = 0;            // limits within 1e-6 of their bound with an effort > 1e-6
  // Accepted at the attainable accuracy: the line search stalled with the residual at the round-off
  // level of the problem (above the tolerance, below what double precision can resolve).
  bool stalled = false;
  // The islands the step's contact problem was solved as (vi_islands.cc; 0: as one problem).
  int islands = 0;
  // Bodies asleep in the step (vi_sleep.cc): their velocities zero, not solved.
  int sleeping = 0;
  // Δt over the shortest interval solved for in the step: 1, or 2^k where the step was subdivided
  // because the discrete equations had no solution at the full interval (variational_step.cc).
  int substeps = 1;
  // > 0: this step found no solution at a longer interval and lowered the longest interval the
  // integrator solves to this length (s) for the rest of the run, until a restart (the refinement:
  // vi_step_control.cc, VariationalIntegrator::advance).
  double refinedInterval = 0;
  // Closed loops: the step met a singular configuration (its joint impulses did work). Revisited:
  // the previous step was solved again in sub-intervals and the work avoided; Kept: it could not be
  // avoided and the step keeps its solution (variational_step.cc, VariationalIntegrator::step).
  enum class Singular { None, Revisited, Kept };
  Singular singular = Singular::None;
  std::string message;             // reason, when status != Ok
};

class Integrator {
 public:
  virtual ~Integrator() = default;
  virtual const char* name() const = 0;
  // Advance `state` by one step of settings.dt. On failure the state is left unchanged.
  virtual StepReport step(const StepSettings& settings, const Inputs& inputs, State& state) = 0;
  // The next state passed to step() is not the one the last step produced (reset, a state set from
  // outside): forget what was kept about the steps before it.
  virtual void restart() {}
  // True if the integrator applies Inputs::damping as an effort at the unknown velocity of the step
  // (implicit); otherwise the caller turns damping into actuator efforts at the step's start.
  virtual bool implicitJointDamping() const { return false; }
  // Takes over the large work buffers of `previous` (the integrator this one replaces, of the same
  // simulation before its contact pairs changed), so that a change of pairs neither allocates nor
  // touches them again; `previous` is not stepped after. Results are the same as without.
  virtual void reuseWorkspace(Integrator& previous) { (void)previous; }
};

}  // namespace ms
