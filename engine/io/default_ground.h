// SPDX-License-Identifier: GPL-3.0-or-later
// A ground under a floating-base robot. URDF describes a robot and no environment; Gazebo's and
// PyBullet's users always add a ground plane, and a legged robot opened without one falls forever.
// When a model has no ground and a free body (no joint from a parent, or a floating joint from the
// world), a horizontal ground (normal +z) is added at the height of the lowest point of the model's
// collision shapes at the initial configuration, so the robot starts standing on it.
#pragma once

#include <string>

#include "model/model.h"

namespace ms {

// True when `m` has a body that no joint holds: free, or on a floating joint from the world.
bool hasFloatingBase(const Model& m);

// Adds the ground described above and returns true with `note` saying where; false (model unchanged,
// `note` empty) when the model has a ground, no floating base, or no collision shape to stand on.
bool addGroundUnderFloatingBase(Model& m, std::string& note);

}  // namespace ms
