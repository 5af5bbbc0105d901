// SPDX-License-Identifier: GPL-3.0-or-later
// Signals: a named, typed catalogue of per-step quantities of one compiled mechanism, computed from
// a Simulation's current state (not from the GUI). Built once per system (names, units, where each
// value comes from); evaluate() fills the values of a selection at the current state.
//
// Names (docs/signals.md): JOINT.angle, JOINT.angle_rate (one rotational coordinate), JOINT.position
// (one translational), JOINT.rot_x … (spherical), JOINT.pos1 … (planar); JOINT.force.x|y|z and
// JOINT.torque.x|y|z (the wrench the joint applies to its child, world frame, torque about the
// joint origin), JOINT.force_local.* and JOINT.torque_local.* (the same in the joint frame);
// JOINT.effort (actuator), JOINT.spring, JOINT.damper, JOINT.limit; NAME.position|angle and
// NAME.position_rate|angle_rate of a coordinate alias (an MJCF joint combined into another); BODY.x|y|z, BODY.vx|vy|vz,
// BODY.roll|pitch|yaw (Z-Y-X angles), BODY.wx|wy|wz (world), BODY.wx_local… (body frame);
// contact.BODY.normal|friction|force.*
// (a body on the ground planes) and contact.A-B.* (a contact pair); system.energy,
// system.kinetic_energy, system.potential_energy, system.momentum.*, system.angular_momentum.*,
// system.com.*.
#pragma once

#include <string>
#include <vector>

#include "core/types.h"
#include "simulation.h"

namespace ms {

enum class SignalUnit { Radian, RadianPerSecond, Metre, MetrePerSecond, Newton, NewtonMetre, Joule, NewtonSecond, NewtonMetreSecond };
enum class AngleUnit { Radians, Degrees };

// "rad", "deg", "rad/s", "deg/s", "m", "m/s", "N", "N*m", "J", "N*s", "N*m*s" (ASCII: CSV headers).
const char* unitSymbol(SignalUnit unit, AngleUnit angles);

struct SignalInfo {
  std::string name;
  SignalUnit unit = SignalUnit::Metre;
};

// Automatic collisions: contact signals are listed for every pair of bodies that may collide when
// there are at most this many such pairs (otherwise for the grounds and contact-pairs only).
constexpr size_t kMaxAutoPairSignals = 100;

class SignalCatalogue {
 public:
  explicit SignalCatalogue(const CompiledSystem& system);

  const CompiledSystem& system() const { return sys_; }
  int size() const { return int(signals_.size()); }
  const SignalInfo& info(int i) const { return signals_[size_t(i)]; }
  // Index of an exact name, or −1.
  int find(const std::string& name) const;
  // The signals matching a glob pattern (*, ?, [...]; '*' also matches '.'), in catalogue order;
  // possibly none.
  std::vector<int> match(const std::string& pattern) const;
  // match(), but throws UserError naming the pattern and the closest name when nothing matches.
  std::vector<int> select(const std::string& pattern) const;
  // Column header with the unit: "crank.angle [deg]".
  std::string header(int i, AngleUnit angles) const;
  // Values of the selected signals at the simulation's current state (out resized to the selection),
  // angles and angular rates in `angles`. The simulation must run the system this catalogue was built
  // from. Not thread-safe (keeps a workspace for the contact forces).
  void evaluate(const Simulation& sim, const std::vector<int>& selection, AngleUnit angles,
                std::vector<double>& out) const;

 private:
  // Where a signal's value comes from: one source (a joint's coordinates, a joint's wrench, a body, a
  // contact pair, the system totals) computes all its values at once; `component` picks one.
  enum class Source { JointCoordinates, JointWrench, Body, Contact, System, Tendon, Alias };
  struct Entry {
    Source source;
    int index;      // joint, body, contact-pair or tendon index
    int component;  // position in the source's values
  };
  struct ContactPair {
    int bodyA, body;  // bodyA −1: the ground planes
  };
  // `contactsReady`: contacts_ already holds this state's loaded contacts (computed once per evaluate).
  int sourceValues(const Simulation& sim, Source source, int index, double* values, bool& contactsReady) const;
  const CompiledSystem& sys_;
  std::vector<SignalInfo> signals_;
  std::vector<Entry> entries_;
  std::vector<ContactPair> pairs_;
  mutable std::vector<ContactPoint> contacts_;
};

}  // namespace ms
