// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulation.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "contact/soft_contact.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "dynamics/tendon_force.h"
#include "integrator/accel_dynamics.h"
#include "integrator/variational_step.h"
#include "system/energy.h"
#include "system/initial_conditions.h"
#include "system/keyframe.h"

namespace ms {
namespace {

// The baselines integrate ν̇ with G ν̇ = −Ġν: they keep ġ = Gν as it starts. The variational
// integrator's velocities (and the initial ones, which are built for it) are discrete, g(z ⊕ νΔt) = 0,
// so Gν = O(Δt): project them onto Gν = 0 (mass metric) when a baseline takes over.
bool projectForBaseline(const std::shared_ptr<const CompiledSystem>& sys, State& s) {
  if (sys->joints.empty()) return true;
  AccelDynamics dyn(sys);
  return dyn.projectVelocities(s);  // singular (degenerate pose): the velocities stay as they are
}

bool stateFinite(const State& s) {
  for (const BodyState& b : s.bodies)
    if (!b.x.allFinite() || !b.q.allFinite() || !b.v.allFinite() || !b.w.allFinite()) return false;
  return true;
}

}  // namespace

Simulation::Simulation(std::shared_ptr<const CompiledSystem> system)
    : base_(std::move(system)), sys_(base_), initial_(sys_->model), integrator_(std::make_unique<VariationalIntegrator>(sys_)) {
  MS_ASSERT(!base_->base, "a Simulation is made from the model's system");
  const Model& m = sys_->model;
  settings_.dt = m.solver.dt;
  settings_.tolerance = m.solver.tolerance;
  settings_.complementarityTolerance = m.solver.complementarityTolerance;
  settings_.maxIterations = m.solver.maxIterations;
  settings_.maxLineSearch = m.solver.maxLineSearch;
  settings_.sleepTime = m.solver.sleepTime;
  settings_.gravity = m.gravity;
  sleepGravity_ = m.gravity;
  const size_t nb = sys_->bodies.size(), nj = sys_->joints.size();
  inputs_.force.assign(nb, Vec3::Zero());
  inputs_.torque.assign(nb, Vec3::Zero());
  inputs_.actuator.assign(nj, Vec6::Zero());
  inputs_.damping.assign(nj, Vec6::Zero());
  for (const ActuatorDesc& a : m.actuators) {
    // On a tendon: its output times each term's coef on the term's coordinate.
    if (a.tendon >= 0) {
      const double out = actuatorOutput(a, a.effort.empty() ? 0.0 : a.effort[0]);
      for (const TendonTerm& term : m.tendons[size_t(a.tendon)].terms) inputs_.actuator[term.joint](term.coordinate) += term.coef * out;
      continue;
    }
    const int nf = jointDof(a.joint);
    for (int c = 0; c < nf; ++c) inputs_.actuator[a.joint](c) += actuatorOutput(a, a.effort.size() == 1 ? a.effort[0] : a.effort[c]);
  }
  for (const WrenchDesc& w : m.wrenches) {
    inputs_.force[w.body] += w.force;
    inputs_.torque[w.body] += w.torque;
  }
  stepInputs_ = inputs_;
  reset();
}

Simulation::~Simulation() = default;

void Simulation::reset() {
  State s = initialState_ ? *initialState_ : makeInitialState(*base_, initial_);
  if (integratorOptions_.kind != IntegratorKind::Variational) projectForBaseline(base_, s);
  restartFrom(std::move(s));
}

// A new run from `s` (t and step as in s): fresh integrator, metrics of the state itself.
void Simulation::restartFrom(State s) {
  state_ = std::move(s);
  state_.autoPairs.clear();  // states made from the model (initial, keyframes) have its contacts
  if (sys_ != base_) {
    sys_ = base_;
    integrator_ = makeIntegrator(integratorOptions_, sys_);
  }
  integrator_->restart();
  failed_ = false;
  setTimeOrigin();
  metrics_ = StepMetrics();
  updateMetrics();
  metrics_.constraintViolation = constraintViolation(*sys_, state_);
}

KeyframeDesc Simulation::keyframe(const std::string& name) const { return keyframeFromState(*sys_, state_, name); }

const KeyframeDesc& Simulation::modelKeyframe(const std::string& name) const {
  const KeyframeDesc* k = sys_->model.keyframe(name);
  if (!k)
    throw UserError("the model has no keyframe '" + name + "' (its keyframes: " + keyframeNames(sys_->model) + ")");
  return *k;
}

void Simulation::loadKeyframe(const std::string& name) { loadKeyframe(modelKeyframe(name)); }

void Simulation::loadKeyframe(const KeyframeDesc& keyframe) { restartFrom(stateFromKeyframe(*base_, keyframe)); }

void Simulation::setInitialKeyframe(const std::string& name) { setInitialKeyframe(modelKeyframe(name)); }

void Simulation::setInitialKeyframe(const KeyframeDesc& keyframe, bool resetNow) {
  initialState_ = stateFromKeyframe(*base_, keyframe);  // throws: nothing changed
  initialKeyframeName_ = keyframe.name;
  if (resetNow) reset();
}

void Simulation::clearInitialKeyframe() {
  initialState_.reset();
  initialKeyframeName_.clear();
  reset();
}

void Simulation::setIntegrator(const IntegratorOptions& options) {
  // Automatic pairs are the variational integrator's: a baseline steps the model's system.
  const bool toVi = options.kind == IntegratorKind::Variational;
  std::unique_ptr<Integrator> next = makeIntegrator(options, toVi ? sys_ : base_);  // throws: nothing changed
  const bool fromVi = integratorOptions_.kind == IntegratorKind::Variational;
  if (!toVi && sys_ != base_) usePairs({}, false);
  integrator_ = std::move(next);
  integratorOptions_ = options;
  failed_ = false;
  // The state is kept (pose, time, step); leaving the VI its discrete velocities become tangent.
  // Rest times are the VI's (sleeping): another stepper's steps would not count them.
  state_.restTime.clear();
  // Leaving the VI: the velocities at the knot (second order) are the baseline's; coming to it: they
  // are the continuous ones at the knot, which its first step turns into the first interval's.
  if (fromVi && !toVi && state_.knotVelocity.size() == state_.bodies.size())
    for (size_t i = 0; i < state_.bodies.size(); ++i) {
      state_.bodies[i].v = state_.knotVelocity[i].head<3>();
      state_.bodies[i].w = state_.knotVelocity[i].tail<3>();
    }
  if (!fromVi && toVi) state_.interval = kVelocitiesAtKnot;
  if (!toVi) state_.knotVelocity.clear();
  if (fromVi && options.kind != IntegratorKind::Variational) projectForBaseline(sys_, state_);
  // Joint multipliers are the previous stepper's: the joint reaction signals would show them until
  // the new one writes its own (steppers that keep none leave them at zero).
  for (Vec6& l : state_.lambda) l.setZero();
  updateMetrics();
}

bool Simulation::projectVelocitiesOntoConstraints() {
  const bool ok = projectForBaseline(sys_, state_);
  integrator_->restart();
  updateMetrics();
  return ok;
}

void Simulation::setState(const State& s) {
  MS_ASSERT(s.bodies.size() == base_->bodies.size(), "state from another system");
  state_ = s;
  // The system of the state's automatic pairs (pairs this model cannot have are dropped).
  std::vector<BodyPair> pairs;
  for (const BodyPair& p : state_.autoPairs)
    if (p.a >= 0 && p.b < int(base_->bodies.size()) && base_->mayCollide(p.a, p.b)) pairs.push_back(p);
  if (integratorOptions_.kind != IntegratorKind::Variational) pairs.clear();
  if (pairs != sys_->autoPairs) {
    sys_ = withAutoPairs(base_, pairs);
    integrator_ = makeIntegrator(integratorOptions_, sys_);
  }
  state_.autoPairs = pairs;
  // Per-contact values of another system (a state made before the model's contacts changed): zero.
  const size_t nc = sys_->contacts.size();
  if (state_.contactImpulse.size() != nc) {
    state_.contactImpulse.assign(nc, Vec6::Zero());
    state_.contactGap.assign(nc, 0.0);
    state_.softAnchor.assign(nc, Vec3::Zero());
    state_.softActive.assign(nc, 0);
    state_.contactFriction.assign(sys_->frictionDirections > kFrictionDirections ? nc : 0, Vec6::Zero());
  }
  integrator_->restart();
  failed_ = false;
  setTimeOrigin();
  updateMetrics();
}

bool Simulation::step() {
  if (failed_) return false;
  // Inputs for this step: the persistent ones, then the controller.
  stepInputs_ = inputs_;
  applyControllers(stepInputs_);
  if (control_) control_(*this, stepInputs_);
  // Sleeping bodies wake when the gravity changes (vi_sleep.cc).
  if (settings_.gravity != sleepGravity_) state_.restTime.clear(), sleepGravity_ = settings_.gravity;
  // Time is origin + steps·Δt (no accumulated rounding); a new Δt starts a new origin.
  if (settings_.dt != originDt_) setTimeOrigin();
  const auto t0 = std::chrono::steady_clock::now();
  std::fill(controllerClamp_.begin(), controllerClamp_.end(), 0.0);
  const bool limited = limitedImplicitControllers_ && integrator_->implicitJointDamping();
  if (limited) beforeClamp_ = state_;
  StepReport rep = stepOnce();
  // A limited controller whose effort at the step's velocity came out beyond its limit: the step
  // again from the same state with that controller's effort clamped (constant over the step).
  if (limited && rep.status == StepStatus::Ok && controllersOverLimit()) {
    const std::vector<ControllerDesc>& cs = sys_->model.controllers;
    for (size_t k = 0; k < cs.size(); ++k) {
      if (controllerClamp_[k] == 0) continue;
      stepInputs_.actuator[cs[k].joint](cs[k].coordinate) += controllerClamp_[k] - controllerHeld_[k];
      stepInputs_.damping[cs[k].joint](cs[k].coordinate) -= cs[k].kd;
    }
    // The automatic pairs of the state before the step (the step may have changed them).
    if (autoPairs() && sys_->autoPairs != beforeClamp_.autoPairs) usePairs(beforeClamp_.autoPairs);
    state_ = beforeClamp_;
    rep = stepOnce();
  }
  if (rep.status == StepStatus::Ok) state_.time = timeOrigin_ + double(state_.step - stepOrigin_) * settings_.dt;
  const auto t1 = std::chrono::steady_clock::now();
  metrics_.stepMicroseconds = std::chrono::duration<double, std::micro>(t1 - t0).count();
  metrics_.iterations = rep.iterations;
  metrics_.islands = rep.islands;
  metrics_.sleeping = rep.sleeping;
  metrics_.residual = rep.residual;
  metrics_.stalled = rep.stalled;
  metrics_.substeps = rep.substeps;
  metrics_.refinedInterval = rep.refinedInterval;
  metrics_.singular = int(rep.singular);
  metrics_.status = rep.status;
  if (rep.status == StepStatus::Ok && !stateFinite(state_)) {
    metrics_.status = StepStatus::NonFinite;
    metrics_.message = "non-finite state";
  }
  if (metrics_.status != StepStatus::Ok) {
    failed_ = true;
    metrics_.message = "step " + std::to_string(state_.step + 1) + " (t = " + std::to_string(state_.time + settings_.dt) +
                       " s): " + (rep.message.empty() ? std::string(toString(metrics_.status)) : rep.message);
    return false;
  }
  metrics_.constraintViolation = rep.constraintViolation;
  metrics_.penetration = rep.penetration;
  metrics_.contacts = rep.activeContacts;
  metrics_.limitViolation = rep.limitViolation;
  metrics_.limits = rep.activeLimits;
  metrics_.autoPairs = int(state_.autoPairs.size());
  updateMetrics();
  return true;
}

StepReport Simulation::stepOnce() {
  return autoPairs() ? stepWithPairs() : integrator_->step(settings_, stepInputs_, state_);
}

bool Simulation::controllersOverLimit() {
  const std::vector<ControllerDesc>& cs = sys_->model.controllers;
  bool any = false;
  for (size_t k = 0; k < cs.size(); ++k) {
    const ControllerDesc& c = cs[k];
    if (!(c.effortLimit > 0) || std::isnan(controllerHeld_[k])) continue;  // NaN: clamped at the start
    const double u = controllerHeld_[k] - c.kd * jointVelocity(c.joint)(c.coordinate);
    if (std::abs(u) > c.effortLimit) {
      controllerClamp_[k] = std::copysign(c.effortLimit, u);
      any = true;
    }
  }
  return any;
}

bool Simulation::autoPairs() const {
  return base_->autoCollisions && base_->collidingBodies.size() >= 2 && integratorOptions_.kind == IntegratorKind::Variational;
}

// Carries the per-contact values of state_ (of sys_) over to the system with `pairs`: the model's
// contacts keep their places; a pair's groups are found by bodies and shapes (both systems list
// them sorted by pair, then shapes), values of new groups start at zero.
void Simulation::usePairs(const std::vector<BodyPair>& pairs, bool newIntegrator) {
  std::shared_ptr<const CompiledSystem> next = withAutoPairs(base_, pairs);
  const CompiledSystem& from = *sys_;
  const CompiledSystem& to = *next;
  State& s = state_;
  const size_t nc = to.contacts.size();
  const bool extra = !s.contactFriction.empty();
  const bool soft = s.softAnchor.size() == from.contacts.size();
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> impulse(nc, Vec6::Zero()), friction(extra ? nc : 0, Vec6::Zero());
  std::vector<double> gap(nc, 0.0);
  std::vector<Vec3, Eigen::aligned_allocator<Vec3>> anchor(nc, Vec3::Zero());
  std::vector<int> active(nc, 0);
  auto copy = [&](int f, int t) {
    if (size_t(f) < s.contactImpulse.size()) impulse[size_t(t)] = s.contactImpulse[size_t(f)];
    if (size_t(f) < s.contactGap.size()) gap[size_t(t)] = s.contactGap[size_t(f)];
    if (extra && size_t(f) < s.contactFriction.size()) friction[size_t(t)] = s.contactFriction[size_t(f)];
    if (soft) anchor[size_t(t)] = s.softAnchor[size_t(f)], active[size_t(t)] = s.softActive[size_t(f)];
  };
  for (int c = 0; c < to.baseContacts; ++c) copy(c, c);
  auto key = [](const CompiledContactGroup& g) { return std::make_tuple(g.bodyA, g.body, g.shapeIndexA, g.shapeIndex); };
  size_t g = size_t(from.baseGroups);
  for (size_t h = size_t(to.baseGroups); h < to.contactGroups.size(); ++h) {
    const CompiledContactGroup& gt = to.contactGroups[h];
    while (g < from.contactGroups.size() && key(from.contactGroups[g]) < key(gt)) ++g;
    if (g == from.contactGroups.size() || key(from.contactGroups[g]) != key(gt)) continue;
    for (int k = 0; k < gt.count; ++k) copy(from.contactGroups[g].first + k, gt.first + k);
  }
  s.contactImpulse.swap(impulse);
  s.contactGap.swap(gap);
  s.contactFriction.swap(friction);
  if (soft) s.softAnchor.swap(anchor), s.softActive.swap(active);
  s.autoPairs = pairs;
  sys_ = std::move(next);
  ++pairChanges_;
  if (newIntegrator) {
    std::unique_ptr<Integrator> replaced = std::move(integrator_);
    integrator_ = makeIntegrator(integratorOptions_, sys_);
    if (replaced) integrator_->reuseWorkspace(*replaced);
  }
}

// A step with automatic pairs: the pairs near at its start (CollisionPairs::select), then, if a pair
// it did not have overlaps at its end, the step again with that pair (up to kMissedPairResolves).
StepReport Simulation::stepWithPairs() {
  constexpr int kMissedPairResolves = 3;
  if (pairs_.select(*base_, state_, settings_.dt, settings_.gravity, state_.autoPairs, wanted_)) usePairs(wanted_);
  beforeStep_ = state_;
  StepReport rep = integrator_->step(settings_, stepInputs_, state_);
  for (int k = 0; k < kMissedPairResolves && rep.status == StepStatus::Ok; ++k) {
    if (!pairs_.missed(*base_, state_, settings_.dt, state_.autoPairs, missed_)) break;
    wanted_ = state_.autoPairs;
    wanted_.insert(wanted_.end(), missed_.begin(), missed_.end());
    std::sort(wanted_.begin(), wanted_.end());
    state_ = beforeStep_;
    usePairs(wanted_);
    beforeStep_ = state_;
    rep = integrator_->step(settings_, stepInputs_, state_);
  }
  return rep;
}

void Simulation::applyControllers(Inputs& in) {
  // PD controllers of the model on their joint coordinates, sinusoidal targets (model.h):
  // u = kp (θ_ref − θ) + kd (θ̇_ref − θ̇). With an integrator that takes implicit damping, the D term
  // −kd θ̇ acts at the step's unknown velocity (Inputs::damping): evaluated at the start of the step
  // it is unstable for kd Δt / I > 2 (a light link under a stiff servo: it oscillates with growing
  // amplitude). A controller whose effort at the start of the step exceeds its limit applies the
  // clamped effort (constant over the step); one whose effort at the step's velocity comes out
  // beyond it takes the step again clamped (step, controllersOverLimit).
  const double t = state_.time, twoPi = 2.0 * kPi;
  const bool implicitD = integrator_->implicitJointDamping();
  const std::vector<ControllerDesc>& cs = sys_->model.controllers;
  controllerHeld_.resize(cs.size());
  controllerClamp_.resize(cs.size());
  limitedImplicitControllers_ = false;
  for (size_t k = 0; k < cs.size(); ++k) {
    const ControllerDesc& c = cs[k];
    const double arg = twoPi * c.frequency * t + c.phase;
    const double target = c.offset + c.amplitude * std::sin(arg);
    const double targetRate = c.amplitude * twoPi * c.frequency * std::cos(arg);
    const double held = c.kp * (target - jointPosition(c.joint)(c.coordinate)) + c.kd * targetRate;
    const double u = held - c.kd * jointVelocity(c.joint)(c.coordinate);
    controllerHeld_[k] = std::numeric_limits<double>::quiet_NaN();
    if (c.effortLimit > 0 && std::abs(u) > c.effortLimit) {
      in.actuator[c.joint](c.coordinate) += std::clamp(u, -c.effortLimit, c.effortLimit);
    } else if (implicitD) {
      in.actuator[c.joint](c.coordinate) += held;
      in.damping[c.joint](c.coordinate) += c.kd;
      controllerHeld_[k] = held;
      limitedImplicitControllers_ = limitedImplicitControllers_ || c.effortLimit > 0;
    } else {
      in.actuator[c.joint](c.coordinate) += u;
    }
  }
}

Vec6 Simulation::actuatorEffort(int j) const {
  const size_t k = size_t(j);
  Vec6 u = k < stepInputs_.actuator.size() ? stepInputs_.actuator[k] : Vec6::Zero();
  if (k < stepInputs_.damping.size() && stepInputs_.damping[k].any())
    u -= stepInputs_.damping[k].cwiseProduct(jointVelocity(j));
  return u;
}

void Simulation::setTimeOrigin() {
  timeOrigin_ = state_.time;
  stepOrigin_ = state_.step;
  originDt_ = settings_.dt;
}

void Simulation::updateMetrics() {
  metrics_.step = state_.step;
  metrics_.time = state_.time;
  metrics_.kinetic = kineticEnergy();
  metrics_.potential = potentialEnergy();
  metrics_.energy = metrics_.kinetic + metrics_.potential;
}

int Simulation::jointDof(int j) const { return sys_->joints.at(j).geo.freeCoordinates(); }

void Simulation::loadedContacts(std::vector<ContactPoint>& out) const {
  for (const CompiledContactGroup& grp : sys_->contactGroups) {
    contact::BodyPose z, za;
    contact::ContactSet set;
    groupCandidatesAt(grp, state_, set, z, za);
    for (int k = 0; k < grp.count; ++k) {
      const Vec6& y = state_.contactImpulse[grp.first + k];
      if (!(y[0] > 1e-6)) continue;
      const contact::Contact& c = set.contacts[k];
      contact::FrictionRows fr;
      contact::frictionRows(c, grp.bodyA >= 0 ? &za : nullptr, z, sys_->frictionDirections, fr);
      ContactPoint p;
      p.group = int(&grp - sys_->contactGroups.data());
      p.bodyA = grp.bodyA;
      p.body = grp.body;
      p.point = c.pointB;
      p.normal = c.normal;
      p.force = c.normal * y[0];
      for (int d = 0; d < kFrictionDirections; ++d) p.force += fr.d.row(d).transpose() * y[2 + d];
      // Directions 5..n_f from the contact's companion node.
      if (sys_->frictionDirections > kFrictionDirections && grp.first + k < int(state_.contactFriction.size()))
        for (int d = kFrictionDirections; d < sys_->frictionDirections; ++d)
          p.force += fr.d.row(d).transpose() * state_.contactFriction[grp.first + k][d - kFrictionDirections];
      p.gap = state_.contactGap[grp.first + k];
      out.push_back(p);
    }
  }
}

Vec6 Simulation::jointPosition(int j) const {
  const JointGeometry& g = sys_->joints.at(j).geo;
  JointMinimalEval e;
  evalJointMinimal(g, jointPoses(g, state_), e);
  return e.theta;
}

Vec6 Simulation::jointVelocity(int j) const {
  const JointGeometry& g = sys_->joints.at(j).geo;
  JointMinimalEval e;
  evalJointMinimal(g, jointPoses(g, state_), e);
  return jointRate(g, e, state_);
}

void Simulation::setInitialJointState(int j, const std::vector<double>& position, const std::vector<double>& velocity) {
  JointDesc& d = initial_.joints.at(j);
  const size_t n = size_t(jointDof(j));
  if (!position.empty()) {
    if (position.size() != n) throw UserError("joint '" + d.name + "' has " + std::to_string(n) + " coordinates");
    d.initialPosition = position;
  }
  if (!velocity.empty()) {
    if (velocity.size() != n) throw UserError("joint '" + d.name + "' has " + std::to_string(n) + " coordinates");
    d.initialVelocity = velocity;
  }
  // The joints' coordinates make the initial state again.
  initialState_.reset();
  initialKeyframeName_.clear();
  reset();
}

double Simulation::kineticEnergy() const {
  const bool interval = integratorOptions_.kind == IntegratorKind::Variational && state_.interval >= 0 &&
                        state_.knotVelocity.size() == state_.bodies.size();
  if (!interval) return ms::kineticEnergy(*sys_, state_);
  // The velocities at the knot from the intervals on either side (State::knotVelocity).
  atKnot_.bodies.resize(state_.bodies.size());
  for (size_t i = 0; i < state_.bodies.size(); ++i) {
    atKnot_.bodies[i].x = state_.bodies[i].x;
    atKnot_.bodies[i].q = state_.bodies[i].q;
    atKnot_.bodies[i].v = state_.knotVelocity[i].head<3>();
    atKnot_.bodies[i].w = state_.knotVelocity[i].tail<3>();
  }
  return ms::kineticEnergy(*sys_, atKnot_);
}

double Simulation::potentialEnergy() const {
  double v = 0;
  // Gravity.
  for (size_t i = 0; i < sys_->bodies.size(); ++i) v -= sys_->bodies[i].mass * settings_.gravity.dot(state_.bodies[i].x);
  // Springs between bodies.
  for (const SpringDesc& sp : sys_->model.springs) {
    const Vec3 pa = sp.bodyA >= 0 ? Vec3(state_.bodies[sp.bodyA].x + quat::rotate(state_.bodies[sp.bodyA].q, sp.anchorA))
                                  : sp.anchorA;
    const Vec3 pb = sp.bodyB >= 0 ? Vec3(state_.bodies[sp.bodyB].x + quat::rotate(state_.bodies[sp.bodyB].q, sp.anchorB))
                                  : sp.anchorB;
    const double stretch = (pb - pa).norm() - sp.restLength;
    v += 0.5 * sp.stiffness * stretch * stretch;
  }
  // Joint springs.
  for (const CompiledJoint& j : sys_->joints) {
    if (!j.hasSpring) continue;
    JointMinimalEval e;
    evalJointMinimal(j.geo, jointPoses(j.geo, state_), e);
    v += 0.5 * (j.stiffness.array() * (e.theta - j.rest).array().square()).sum();
  }
  // Tendon springs.
  for (const TendonDesc& t : sys_->model.tendons)
    if (t.stiffness != 0) v += tendonPotential(t, tendonSum(t, [&](int k) { return jointPosition(k); }));
  return v;
}

Vec3 Simulation::angularMomentum() const {
  const double dt = state_.interval > 0 ? state_.interval : settings_.dt;  // the velocities' interval
  Vec3 L = Vec3::Zero();
  // A baseline's state, or one whose velocities are at its knot (the start: the VI's half kick keeps
  // this momentum, (Δt/2)(Jω s + ω×Jω) = Jω₀).
  if (integratorOptions_.kind != IntegratorKind::Variational || state_.interval < 0) {
    // Continuous: Σ x×m v + Q(q) J ω (what the baselines' dynamics conserve).
    for (size_t i = 0; i < sys_->bodies.size(); ++i) {
      const BodyState& b = state_.bodies[i];
      L += b.x.cross(sys_->bodies[i].mass * b.v) + quat::rotation(b.q) * (sys_->bodies[i].inertia * b.w);
    }
    return L;
  }
  for (size_t i = 0; i < sys_->bodies.size(); ++i) {
    const BodyState& b = state_.bodies[i];
    const Mat3& J = sys_->bodies[i].inertia;
    const double s = std::sqrt(std::max(0.0, 4.0 / (dt * dt) - b.w.squaredNorm()));
    L += b.x.cross(sys_->bodies[i].mass * b.v) + quat::rotation(b.q) * ((J * b.w) * s + b.w.cross(J * b.w)) * (0.5 * dt);
  }
  return L;
}

Vec3 Simulation::linearMomentum() const {
  Vec3 p = Vec3::Zero();
  for (size_t i = 0; i < sys_->bodies.size(); ++i) p += sys_->bodies[i].mass * state_.bodies[i].v;
  return p;
}

}  // namespace ms
