// SPDX-License-Identifier: GPL-3.0-or-later
// The facade used by the CLI, the GUI, tests and benchmarks: owns the state, the integrator and the
// inputs of one compiled mechanism; steps it and reports per-step metrics.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "integrator/integrator.h"
#include "integrator/integrator_options.h"
#include "system/collision_pairs.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

struct StepMetrics {
  long step = 0;
  double time = 0;
  double kinetic = 0, potential = 0, energy = 0;
  double constraintViolation = 0;  // ‖g(z)‖∞ at the configuration fixed by the step
  double penetration = 0;          // max(0, −min φ) over the contacts, m
  int contacts = 0;                // contacts carrying load
  double limitViolation = 0;       // max(0, θ_lo − θ, θ − θ_hi) over the joint limits, rad or m
  int limits = 0;                  // joint limits carrying load
  int autoPairs = 0;               // pairs of bodies with automatic contacts in the step
  int iterations = 0;     // interior-point: of the island that took the most (StepReport::islands)
  int islands = 0;        // islands the contact problem was solved as (0: one problem)
  int sleeping = 0;       // bodies asleep in the step (StepSettings::sleepTime)
  double residual = 0;
  bool stalled = false;  // accepted at the attainable accuracy (StepReport::stalled)
  int substeps = 1;      // Δt / shortest interval solved for (> 1: subdivided, StepReport::substeps)
  double refinedInterval = 0;  // > 0: from this step on, intervals of at most this length (StepReport)
  // A closed loop met a singular configuration (StepReport::singular): 0 no, 1 passed by solving the
  // previous step again in sub-intervals, 2 its joint impulses did work that could not be avoided.
  int singular = 0;
  double stepMicroseconds = 0;
  StepStatus status = StepStatus::Ok;
  std::string message;  // "step N: reason" when status != Ok
};

// A contact that carries load, for display: where, along which normal, with which force. For a
// contact pair, `body` is its body B: the point lies on B, the normal points from A to B and the
// force is the one acting on B (A receives the opposite).
struct ContactPoint {
  int group = 0;  // contactSystem().contactGroups
  int bodyA = -1;  // body A of a pair; −1: a ground
  int body = 0;
  Vec3 point = Vec3::Zero();   // on the body's surface, world frame
  Vec3 normal = Vec3::Zero();  // unit, world, pointing from the ground (or body A) to the body
  Vec3 force = Vec3::Zero();   // normal + friction force on the body over the last step [N]
  double gap = 0;              // φ at the next knot [m]
};

class Simulation {
 public:
  // Compiles nothing: takes a compiled system, uses the model's solver settings and resets.
  // Throws UserError if the initial conditions cannot be satisfied.
  explicit Simulation(std::shared_ptr<const CompiledSystem> system);
  ~Simulation();

  // The model's system (the one given; the same for the Simulation's life).
  const CompiledSystem& system() const { return *base_; }
  std::shared_ptr<const CompiledSystem> systemPtr() const { return base_; }
  // The system the current state belongs to: the model's, or with automatic collisions
  // (Model::collisions == All, the variational integrator) the model's with the contacts of the
  // pairs of bodies that are close (system/collision_pairs.h; State::autoPairs). The per-contact
  // vectors of state() follow its contacts; it changes between steps as bodies approach and part.
  const CompiledSystem& contactSystem() const { return *sys_; }
  std::shared_ptr<const CompiledSystem> contactSystemPtr() const { return sys_; }
  const State& state() const { return state_; }
  // Replace the state (e.g. restoring history); must come from this model's system (its automatic
  // pairs, if any, are compiled in with it).
  void setState(const State& s);
  StepSettings& settings() { return settings_; }
  // The time stepper (default: the variational integrator). Validates the options against this
  // system (throws UserError with the reason, leaving the current integrator) and keeps the state;
  // switching from the variational integrator to a baseline projects the velocities onto Gν = 0
  // (the VI's are discrete: g(z ⊕ νΔt) = 0), and reset() does the same while a baseline is set.
  void setIntegrator(const IntegratorOptions& options);
  const IntegratorOptions& integratorOptions() const { return integratorOptions_; }
  // Projects the current velocities onto Gν = 0 in the mass metric (one KKT solve). For a baseline
  // that starts from a state the VI made (e.g. setState with a VI history state after setIntegrator):
  // setIntegrator and reset do it themselves. False if the KKT matrix is singular (state unchanged).
  bool projectVelocitiesOntoConstraints();
  const StepSettings& settings() const { return settings_; }

  // Back to t = 0 with the initial conditions (clears a failure): the initial keyframe when one is
  // set, else the model's.
  void reset();

  // Keyframes (system/keyframe.h, Model::keyframes). keyframe(): the current state as a keyframe.
  KeyframeDesc keyframe(const std::string& name) const;
  // The keyframe's state replaces the current one, exactly (t = 0, a new time origin; clears a
  // failure). By name: one of this model's keyframes. Throws UserError (state unchanged) for an
  // unknown name (listing the model's keyframes), a keyframe whose bodies are not the model's, or
  // one that violates a joint by more than kKeyframeFitTolerance.
  void loadKeyframe(const std::string& name);
  void loadKeyframe(const KeyframeDesc& keyframe);
  // "Use as initial state": reset() returns to the keyframe from now on, and is done now unless
  // !resetNow (an edited model that keeps running, SimController::apply; under a baseline integrator
  // the velocities are projected as for the model's initial conditions). Throws like loadKeyframe
  // (nothing changed).
  void setInitialKeyframe(const std::string& name);
  void setInitialKeyframe(const KeyframeDesc& keyframe, bool resetNow = true);
  // Back to the model's initial conditions (and reset). setInitialJointState does this too.
  void clearInitialKeyframe();
  // The name of the initial keyframe ("" when the model's initial conditions are used).
  const std::string& initialKeyframe() const { return initialKeyframeName_; }
  // One step. Returns false on failure; metrics() then holds the status and "step N: reason".
  // After a failure further calls return false until reset().
  bool step();
  const StepMetrics& metrics() const { return metrics_; }
  // Times the automatic pairs changed (the contact part of the system compiled again) since the
  // Simulation was made.
  long pairChanges() const { return pairChanges_; }
  bool failed() const { return failed_; }

  // Inputs that persist across steps: external wrenches and actuator efforts.
  Inputs& inputs() { return inputs_; }
  // The inputs the last step was taken with: the persistent ones plus the controllers' and the
  // control callback's efforts (before the first step: the persistent ones).
  const Inputs& appliedInputs() const { return stepInputs_; }
  // The actuator effort on joint j's minimal coordinates in the last step: the applied inputs'
  // actuator effort, and the controllers' D terms taken at the step's velocity (Inputs::damping;
  // the state's joint rate after the step).
  Vec6 actuatorEffort(int j) const;
  // Called before every step with a copy of the persistent inputs to modify (e.g. a PD controller).
  using ControlCallback = std::function<void(const Simulation&, Inputs&)>;
  void setControlCallback(ControlCallback cb) { control_ = std::move(cb); }

  // Minimal coordinates of joint j (Appendix B.6) at the current state and their rates.
  int jointDof(int j) const;
  Vec6 jointPosition(int j) const;
  Vec6 jointVelocity(int j) const;
  // Set initial joint coordinates/rates (size = jointDof, or empty to keep) and reset.
  void setInitialJointState(int j, const std::vector<double>& position, const std::vector<double>& velocity);

  // The contacts of the current state with a positive normal impulse (appends to `out`).
  void loadedContacts(std::vector<ContactPoint>& out) const;

  // Energies of the state at its knot z: V(z), and T of the velocities at the knot. Variational
  // integrator (a state whose velocities belong to an interval): those are State::knotVelocity, the
  // intervals on either side of the knot weighted, within O(Δt²) of the exact ones (the interval's
  // own velocities are O(Δt) off: docs/engine.md, "The start from velocities at a knot, and the
  // energy"). Otherwise (baselines, a state at an instant) the state's velocities.
  double kineticEnergy() const;
  double potentialEnergy() const;
  // Angular momentum about the world origin, world frame. Variational integrator: the discrete
  // Σ x×m v + Q(q)(Jω s + ω×Jω)Δt/2, exactly conserved by it for torque-free motion; baselines:
  // the continuous Σ x×m v + Q(q) J ω.
  Vec3 angularMomentum() const;
  Vec3 linearMomentum() const;

 private:
  void updateMetrics();
  void setTimeOrigin();
  void applyControllers(Inputs& in);
  // One step of the integrator (with the automatic pairs when they are on).
  StepReport stepOnce();
  // Limited controllers whose implicit effort came out beyond their limit in the step just taken:
  // their clamped efforts (controllerClamp_) set, true if there is any.
  bool controllersOverLimit();
  const KeyframeDesc& modelKeyframe(const std::string& name) const;
  void restartFrom(State s);
  // Automatic collisions: whether this step looks for pairs; the system with `pairs` made current,
  // the state's per-contact values carried over to it (by contact group), and its integrator.
  bool autoPairs() const;
  void usePairs(const std::vector<BodyPair>& pairs, bool newIntegrator = true);
  StepReport stepWithPairs();
  std::shared_ptr<const CompiledSystem> base_, sys_;
  CollisionPairs pairs_;
  std::vector<BodyPair> wanted_, missed_;
  State beforeStep_;
  // PD controllers with an effort limit under an implicit D term: the state before the step (to
  // take it again), each controller's effort held over the step (its P term and kd θ̇*), and the
  // clamped effort the step is taken again with (0: none).
  bool limitedImplicitControllers_ = false;
  State beforeClamp_;
  std::vector<double> controllerHeld_, controllerClamp_;
  long pairChanges_ = 0;
  std::optional<State> initialState_;  // the initial keyframe's state, if one is set
  std::string initialKeyframeName_;
  Model initial_;
  StepSettings settings_;
  State state_;
  // The state with its velocities at the knot (scratch of kineticEnergy, sized once).
  mutable State atKnot_;
  Inputs inputs_, stepInputs_;
  ControlCallback control_;
  IntegratorOptions integratorOptions_;
  std::unique_ptr<Integrator> integrator_;
  StepMetrics metrics_;
  bool failed_ = false;
  double timeOrigin_ = 0, originDt_ = 0;
  Vec3 sleepGravity_ = Vec3::Zero();  // the gravity the state's rest times were counted under
  long stepOrigin_ = 0;
};

}  // namespace ms
