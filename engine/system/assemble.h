// SPDX-License-Identifier: GPL-3.0-or-later
// Assemble (issue 34): the joint coordinates of a state whose poses were projected onto the
// constraints (makeInitialState closes every loop), read back out of the body poses and velocities —
// what the model must say for its written numbers to be the state the engine starts from.
#pragma once

#include <string>
#include <vector>

#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

struct JointCoordinates {
  std::vector<double> position;  // free coordinates: translations (m) first, then rotations (rad)
  std::vector<double> velocity;  // their rates (m/s, rad/s)
};

// Per joint of `sys` (tree and loop joints, in model order): its minimal coordinates (B.7b) and their
// rates at `state`. A revolute-type angle is the one within π of the joint's given initial position
// (turns are kept); a rotation vector likewise the one nearest the given one.
std::vector<JointCoordinates> jointCoordinates(const CompiledSystem& sys, const State& state);

// A joint's given coordinates (JointDesc::initialPosition, initialVelocity) one per free coordinate:
// a single value stands for all n, none for zeros.
inline std::vector<double> expandedCoordinates(const std::vector<double>& given, size_t n) {
  if (given.empty()) return std::vector<double>(n, 0.0);
  if (given.size() == 1) return std::vector<double>(n, given[0]);
  return given;
}

// The joint whose constraint is violated most at `state` (−1: no joint), and by how much (m or rad).
int worstJoint(const CompiledSystem& sys, const State& state, double& violation);

}  // namespace ms
