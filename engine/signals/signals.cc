// SPDX-License-Identifier: GPL-3.0-or-later
// The signal catalogue (signals.h). Joint reactions follow the residual of (20a)–(20b) (Brüdigam et
// al. 2023, §3.2): the body rows read m(v − v₀)/Δt − f − G_xᵀλ − J_mᵀu = 0 with the joint
// multipliers λ in N (and N·m) and the efforts u on the joint's minimal coordinates (actuator,
// spring −k(θ − θ₀), damper −cθ̇, limit γ_lo − γ_hi; Appendix B.6), so the joint's wrench on its child
// is F = G_xbᵀλ + J_m,xbᵀu (world) and τ = G_θbᵀλ + J_m,θbᵀu (child body frame, about its centre of
// mass), moved here to the joint origin (the child's anchor) and into the world and joint frames.
#include "signals/signals.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/quaternion.h"
#include "dynamics/joint_constraint.h"
#include "dynamics/tendon_force.h"
#include "system/compiled_system.h"

namespace ms {

namespace {

constexpr double kDegrees = 180.0 / kPi;

bool isAngular(SignalUnit u) { return u == SignalUnit::Radian || u == SignalUnit::RadianPerSecond; }

// Names of a joint's free coordinates: translational first, then rotational (B.7b).
std::vector<std::string> coordinateNames(const JointGeometry& g) {
  std::vector<std::string> n;
  for (int i = 0; i < g.fT; ++i) n.push_back(g.fT == 1 ? "position" : "pos" + std::to_string(i + 1));
  static const char* const kRot[3] = {"rot_x", "rot_y", "rot_z"};
  for (int i = 0; i < g.fR; ++i) n.push_back(g.fR == 1 ? "angle" : kRot[i]);
  return n;
}

// Levenshtein distance (for "did you mean").
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// Efforts on joint k's minimal coordinates in the last step: actuator (with controllers), spring,
// damper and limit, each padded to 6.
struct JointEfforts {
  Vec6 actuator = Vec6::Zero(), spring = Vec6::Zero(), damper = Vec6::Zero();
  double limit = 0;
  Vec6 total() const {
    Vec6 u = actuator + spring + damper;
    u[0] += limit;
    return u;
  }
};

JointEfforts jointEfforts(const Simulation& sim, int k, const Vec6& theta, const Vec6& rate) {
  const CompiledSystem& sys = sim.system();
  const CompiledJoint& j = sys.joints[size_t(k)];
  JointEfforts e;
  e.actuator = sim.actuatorEffort(k);
  if (j.hasSpring) e.spring = -j.stiffness.cwiseProduct(theta - j.rest);
  if (j.hasDamper) e.damper = -j.damping.cwiseProduct(rate);
  const State& s = sim.state();
  for (size_t li = 0; li < sys.limits.size() && li < s.limitImpulse.size(); ++li)
    if (sys.limits[li].joint == k) e.limit += s.limitImpulse[li][0] - s.limitImpulse[li][1];
  const int d = j.geo.freeCoordinates();
  for (int c = d; c < 6; ++c) e.actuator[c] = e.spring[c] = e.damper[c] = 0;
  return e;
}

}  // namespace

const char* unitSymbol(SignalUnit unit, AngleUnit angles) {
  const bool deg = angles == AngleUnit::Degrees;
  switch (unit) {
    case SignalUnit::Radian: return deg ? "deg" : "rad";
    case SignalUnit::RadianPerSecond: return deg ? "deg/s" : "rad/s";
    case SignalUnit::Metre: return "m";
    case SignalUnit::MetrePerSecond: return "m/s";
    case SignalUnit::Newton: return "N";
    case SignalUnit::NewtonMetre: return "N*m";
    case SignalUnit::Joule: return "J";
    case SignalUnit::NewtonSecond: return "N*s";
    case SignalUnit::NewtonMetreSecond: return "N*m*s";
  }
  return "";
}

SignalCatalogue::SignalCatalogue(const CompiledSystem& system) : sys_(system) {
  const auto add = [&](std::string name, SignalUnit unit, Source source, int index, int component) {
    signals_.push_back({std::move(name), unit});
    entries_.push_back({source, index, component});
  };
  static const char* const kXyz[3] = {"x", "y", "z"};
  // Joints: coordinates, rates, efforts (JointCoordinates values: θ, θ̇, actuator, spring, damper,
  // limit), then the wrench on the child (JointWrench values: F, τ world; F, τ joint frame).
  for (size_t k = 0; k < sys_.joints.size(); ++k) {
    const CompiledJoint& j = sys_.joints[k];
    const JointGeometry& g = j.geo;
    const int d = g.freeCoordinates(), jk = int(k);
    const std::vector<std::string> names = coordinateNames(g);
    const auto position = [&](int c) { return c < g.fT ? SignalUnit::Metre : SignalUnit::Radian; };
    const auto rate = [&](int c) { return c < g.fT ? SignalUnit::MetrePerSecond : SignalUnit::RadianPerSecond; };
    const auto effort = [&](int c) { return c < g.fT ? SignalUnit::Newton : SignalUnit::NewtonMetre; };
    const std::string p = j.name + ".";
    for (int c = 0; c < d; ++c) add(p + names[size_t(c)], position(c), Source::JointCoordinates, jk, c);
    for (int c = 0; c < d; ++c) add(p + names[size_t(c)] + "_rate", rate(c), Source::JointCoordinates, jk, d + c);
    const auto efforts = [&](const char* what, int base) {
      for (int c = 0; c < d; ++c)
        add(p + what + (d == 1 ? std::string() : "_" + names[size_t(c)]), effort(c), Source::JointCoordinates, jk,
            base + c);
    };
    if (d > 0) efforts("effort", 2 * d);
    if (j.hasSpring) efforts("spring", 3 * d);
    if (j.hasDamper) efforts("damper", 4 * d);
    for (const CompiledLimit& l : sys_.limits)
      if (l.joint == jk) {
        add(p + "limit", effort(0), Source::JointCoordinates, jk, 5 * d);
        break;
      }
    for (int frame = 0; frame < 2; ++frame)
      for (int what = 0; what < 2; ++what)
        for (int a = 0; a < 3; ++a)
          add(p + (what == 0 ? "force" : "torque") + (frame == 0 ? "." : "_local.") + kXyz[a],
              what == 0 ? SignalUnit::Newton : SignalUnit::NewtonMetre, Source::JointWrench, jk, 6 * frame + 3 * what + a);
  }
  // Coordinate aliases (the MJCF joints combined into one engine joint): position or angle, rate.
  for (size_t k = 0; k < sys_.model.aliases.size(); ++k) {
    const CoordinateAlias& a = sys_.model.aliases[k];
    const std::string p = a.name + (a.angular ? ".angle" : ".position");
    add(p, a.angular ? SignalUnit::Radian : SignalUnit::Metre, Source::Alias, int(k), 0);
    add(p + "_rate", a.angular ? SignalUnit::RadianPerSecond : SignalUnit::MetrePerSecond, Source::Alias, int(k), 1);
  }
  // Tendons: length, its rate and the tension of its spring and damper (Tendon values), in metres
  // (newtons) when every term is a translation, else in radians (newton metres).
  for (size_t k = 0; k < sys_.model.tendons.size(); ++k) {
    const TendonDesc& t = sys_.model.tendons[k];
    bool translational = true;
    for (const TendonTerm& term : t.terms) translational = translational && term.coordinate < sys_.joints[size_t(term.joint)].geo.fT;
    const std::string p = t.name + ".";
    add(p + "length", translational ? SignalUnit::Metre : SignalUnit::Radian, Source::Tendon, int(k), 0);
    add(p + "length_rate", translational ? SignalUnit::MetrePerSecond : SignalUnit::RadianPerSecond, Source::Tendon, int(k), 1);
    if (t.stiffness != 0 || t.damping != 0)
      add(p + "tension", translational ? SignalUnit::Newton : SignalUnit::NewtonMetre, Source::Tendon, int(k), 2);
  }
  // Bodies: position, velocity, Z-Y-X angles, angular velocity (world, then body frame).
  for (size_t i = 0; i < sys_.bodies.size(); ++i) {
    const std::string p = sys_.bodies[i].name + ".";
    const int bi = int(i);
    for (int a = 0; a < 3; ++a) add(p + kXyz[a], SignalUnit::Metre, Source::Body, bi, a);
    for (int a = 0; a < 3; ++a) add(p + "v" + kXyz[a], SignalUnit::MetrePerSecond, Source::Body, bi, 3 + a);
    static const char* const kAngles[3] = {"roll", "pitch", "yaw"};
    for (int a = 0; a < 3; ++a) add(p + kAngles[a], SignalUnit::Radian, Source::Body, bi, 6 + a);
    for (int a = 0; a < 3; ++a) add(p + "w" + kXyz[a], SignalUnit::RadianPerSecond, Source::Body, bi, 9 + a);
    for (int a = 0; a < 3; ++a) add(p + "w" + kXyz[a] + "_local", SignalUnit::RadianPerSecond, Source::Body, bi, 12 + a);
  }
  // Contacts, one entry per pair of bodies (a body and the ground planes, a contact pair, and the
  // pairs that automatic collisions may add while the system runs, when there are at most
  // kMaxAutoPairSignals of them).
  auto addPair = [&](int bodyA, int body) {
    for (const ContactPair& q : pairs_)
      if (q.bodyA == bodyA && q.body == body) return;
    const int found = int(pairs_.size());
    pairs_.push_back({bodyA, body});
    const std::string p = "contact." + (bodyA >= 0 ? sys_.bodies[size_t(bodyA)].name + "-" : std::string()) +
                          sys_.bodies[size_t(body)].name + ".";
    add(p + "normal", SignalUnit::Newton, Source::Contact, found, 0);
    add(p + "friction", SignalUnit::Newton, Source::Contact, found, 1);
    for (int a = 0; a < 3; ++a) add(p + "force." + kXyz[a], SignalUnit::Newton, Source::Contact, found, 2 + a);
  };
  for (const CompiledContactGroup& grp : sys_.contactGroups) addPair(grp.bodyA, grp.body);
  std::vector<std::pair<int, int>> autoPairs;
  const std::vector<int>& cb = sys_.collidingBodies;
  for (size_t i = 0; i < cb.size() && autoPairs.size() <= kMaxAutoPairSignals; ++i)
    for (size_t j = i + 1; j < cb.size() && autoPairs.size() <= kMaxAutoPairSignals; ++j)
      if (sys_.mayCollide(cb[i], cb[j])) autoPairs.emplace_back(cb[i], cb[j]);
  if (autoPairs.size() <= kMaxAutoPairSignals)
    for (const auto& [a, b] : autoPairs) addPair(a, b);
  // System totals.
  add("system.energy", SignalUnit::Joule, Source::System, 0, 0);
  add("system.kinetic_energy", SignalUnit::Joule, Source::System, 0, 1);
  add("system.potential_energy", SignalUnit::Joule, Source::System, 0, 2);
  for (int a = 0; a < 3; ++a) add(std::string("system.momentum.") + kXyz[a], SignalUnit::NewtonSecond, Source::System, 0, 3 + a);
  for (int a = 0; a < 3; ++a)
    add(std::string("system.angular_momentum.") + kXyz[a], SignalUnit::NewtonMetreSecond, Source::System, 0, 6 + a);
  for (int a = 0; a < 3; ++a) add(std::string("system.com.") + kXyz[a], SignalUnit::Metre, Source::System, 0, 9 + a);
}

int SignalCatalogue::find(const std::string& name) const {
  for (size_t i = 0; i < signals_.size(); ++i)
    if (signals_[i].name == name) return int(i);
  return -1;
}

std::vector<int> SignalCatalogue::match(const std::string& pattern) const {
  std::vector<int> out;
  for (size_t i = 0; i < signals_.size(); ++i)
    if (fnmatch(pattern.c_str(), signals_[i].name.c_str(), 0) == 0) out.push_back(int(i));
  return out;
}

std::vector<int> SignalCatalogue::select(const std::string& pattern) const {
  std::vector<int> out = match(pattern);
  if (!out.empty()) return out;
  // The closest name, for the message.
  std::string best;
  size_t bestDistance = std::string::npos;
  for (const SignalInfo& s : signals_) {
    const size_t dist = editDistance(pattern, s.name);
    if (dist < bestDistance) {
      bestDistance = dist;
      best = s.name;
    }
  }
  std::string msg = "no signal matches '" + pattern + "'";
  if (!best.empty() && bestDistance <= std::max<size_t>(3, pattern.size() / 3)) msg += " (did you mean '" + best + "'?)";
  throw UserError(msg + "; the model has " + std::to_string(signals_.size()) + " signals ('mechstudio-cli signals MODEL' lists them)");
}

std::string SignalCatalogue::header(int i, AngleUnit angles) const {
  const SignalInfo& s = info(i);
  return s.name + " [" + unitSymbol(s.unit, angles) + "]";
}

// All values of one source at the simulation's state (SI units, radians); returns their count.
int SignalCatalogue::sourceValues(const Simulation& sim, Source source, int index, double* v, bool& contactsReady) const {
  const State& s = sim.state();
  switch (source) {
    case Source::JointCoordinates: {
      const int d = sim.jointDof(index);
      const Vec6 theta = sim.jointPosition(index), rate = sim.jointVelocity(index);
      const JointEfforts e = jointEfforts(sim, index, theta, rate);
      for (int c = 0; c < d; ++c) {
        v[c] = theta[c];
        v[d + c] = rate[c];
        v[2 * d + c] = e.actuator[c];
        v[3 * d + c] = e.spring[c];
        v[4 * d + c] = e.damper[c];
      }
      v[5 * d] = e.limit;
      return 5 * d + 1;
    }
    case Source::JointWrench: {
      const CompiledJoint& j = sys_.joints[size_t(index)];
      const JointGeometry& g = j.geo;
      const JointPoses z = jointPoses(g, s);
      // Constraint impulses through G(z)ᵀ, efforts through the minimal-coordinate Jacobians.
      Vec3 force = Vec3::Zero(), torqueBody = Vec3::Zero();
      if (j.node >= 0 && size_t(index) < s.lambda.size()) {
        JointConstraintEval ge;
        evalJointConstraint(g, z, ge);
        force += ge.dxb.transpose() * s.lambda[size_t(index)];
        torqueBody += ge.dthb.transpose() * s.lambda[size_t(index)];
      }
      const Vec6 u = jointEfforts(sim, index, sim.jointPosition(index), sim.jointVelocity(index)).total();
      if (u.any() || !u.allFinite()) {
        JointMinimalEval me;
        evalJointMinimal(g, z, me);
        force += me.dxb.transpose() * u;
        torqueBody += me.dthb.transpose() * u;
      }
      // About the joint origin (the child's anchor, offset Q_b p_b from its centre of mass).
      const Mat3 Rb = quat::rotation(z.qb);
      const Vec3 torque = Rb * torqueBody - (Rb * g.pb).cross(force);
      const Mat3 frame = quat::rotation(z.qa) * g.Ro;  // joint frame → world
      const Vec3 forceLocal = frame.transpose() * force, torqueLocal = frame.transpose() * torque;
      for (int a = 0; a < 3; ++a) {
        v[a] = force[a];
        v[3 + a] = torque[a];
        v[6 + a] = forceLocal[a];
        v[9 + a] = torqueLocal[a];
      }
      return 12;
    }
    case Source::Body: {
      const BodyState& b = s.bodies[size_t(index)];
      const Mat3 R = quat::rotation(b.q);
      const Vec3 w = R * b.w;
      // Z-Y-X (yaw, pitch, roll) angles of R = Rz(yaw) Ry(pitch) Rx(roll).
      const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
      const double roll = std::atan2(R(2, 1), R(2, 2)), yaw = std::atan2(R(1, 0), R(0, 0));
      const double angles[3] = {roll, pitch, yaw};
      for (int a = 0; a < 3; ++a) {
        v[a] = b.x[a];
        v[3 + a] = b.v[a];
        v[6 + a] = angles[a];
        v[9 + a] = w[a];
        v[12 + a] = b.w[a];
      }
      return 15;
    }
    case Source::Contact: {
      // Sum over the loaded contacts of the pair: normal component, tangential magnitude, total.
      if (!contactsReady) {
        contacts_.clear();
        sim.loadedContacts(contacts_);
        contactsReady = true;
      }
      double normal = 0;
      Vec3 total = Vec3::Zero(), tangential = Vec3::Zero();
      for (const ContactPoint& c : contacts_) {
        if (c.bodyA != pairs_[size_t(index)].bodyA || c.body != pairs_[size_t(index)].body) continue;
        const double fn = c.force.dot(c.normal);
        normal += fn;
        tangential += c.force - fn * c.normal;
        total += c.force;
      }
      v[0] = normal;
      v[1] = tangential.norm();
      for (int a = 0; a < 3; ++a) v[2 + a] = total[a];
      return 5;
    }
    case Source::Alias: {
      // c·θ: a translation w·Δ with Δ = C_Tᵀ θ_T (the free directions, orthonormal), or the rotation
      // about the joint's axis V3 (one rotational coordinate) signed by the alias's axis.
      const CoordinateAlias& a = sys_.model.aliases[size_t(index)];
      const JointGeometry& g = sys_.joints[size_t(a.joint)].geo;
      Vec6 c = Vec6::Zero();
      if (!a.angular) c.head(g.fT) = g.CT.topRows(g.fT) * a.direction;
      else if (g.fR == 1) c[g.fT] = g.axes.col(2).dot(a.direction);
      v[0] = c.dot(sim.jointPosition(a.joint));
      v[1] = c.dot(sim.jointVelocity(a.joint));
      return 2;
    }
    case Source::Tendon: {
      const TendonDesc& t = sys_.model.tendons[size_t(index)];
      v[0] = tendonSum(t, [&](int k) { return sim.jointPosition(k); });
      v[1] = tendonSum(t, [&](int k) { return sim.jointVelocity(k); });
      v[2] = tendonTension(t, v[0], v[1]);
      return 3;
    }
    case Source::System: {
      const double ke = sim.kineticEnergy(), pe = sim.potentialEnergy();
      const Vec3 p = sim.linearMomentum(), L = sim.angularMomentum();
      Vec3 com = Vec3::Zero();
      double mass = 0;
      for (size_t i = 0; i < sys_.bodies.size(); ++i) {
        com += sys_.bodies[i].mass * s.bodies[i].x;
        mass += sys_.bodies[i].mass;
      }
      if (mass > 0) com /= mass;
      v[0] = ke + pe;
      v[1] = ke;
      v[2] = pe;
      for (int a = 0; a < 3; ++a) {
        v[3 + a] = p[a];
        v[6 + a] = L[a];
        v[9 + a] = com[a];
      }
      return 12;
    }
  }
  return 0;
}

void SignalCatalogue::evaluate(const Simulation& sim, const std::vector<int>& selection, AngleUnit angles,
                               std::vector<double>& out) const {
  MS_ASSERT(&sim.system() == &sys_, "signals evaluated on another system");
  out.resize(selection.size());
  // Each source is computed once for the consecutive signals that read it.
  constexpr int kMaxValues = 31;
  double values[kMaxValues];
  Source lastSource = Source::System;
  int lastIndex = -1;
  bool contactsReady = false;
  for (size_t k = 0; k < selection.size(); ++k) {
    const int i = selection[k];
    MS_ASSERT(i >= 0 && i < size(), "signal index out of range");
    const Entry& e = entries_[size_t(i)];
    if (e.source != lastSource || e.index != lastIndex) {
      sourceValues(sim, e.source, e.index, values, contactsReady);
      lastSource = e.source;
      lastIndex = e.index;
    }
    double x = values[e.component];
    if (angles == AngleUnit::Degrees && isAngular(signals_[size_t(i)].unit)) x *= kDegrees;
    out[k] = x;
  }
}

}  // namespace ms
