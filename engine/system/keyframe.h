// SPDX-License-Identifier: GPL-3.0-or-later
// Keyframes (issue 15): saved states of a mechanism, written into the model text as
// (keyframe NAME (body B (position …) (orientation …) (velocity …) (angular-velocity …))…)
// (Model::keyframes, docs/model-language.md "Keyframes"). A keyframe keeps, per body and by name,
// the centre of mass, the orientation, the (discrete) linear velocity and the angular velocity in the
// world frame; the simulation state keeps the angular velocity in the body frame.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

// A keyframe that violates a joint of the system by more than this (‖g‖∞, m or rad) does not fit it.
constexpr double kKeyframeFitTolerance = 1e-6;

// The bodies of `state` as a keyframe named `name`, in the system's body order.
KeyframeDesc keyframeFromState(const CompiledSystem& sys, const State& state, const std::string& name);

// The state a keyframe describes: its poses and velocities, t = 0, step 0, interval 0 (the time
// step's), multipliers and impulses zero. Throws UserError when the keyframe names a body the system
// does not have, has no state for one of its bodies, or violates one of its joints by more than
// kKeyframeFitTolerance ("keyframe 'k' does not fit joint 'j' (violation 0.03): was the model changed
// since it was saved?").
State stateFromKeyframe(const CompiledSystem& sys, const KeyframeDesc& keyframe);

// A keyframe given as initial conditions of a model (what an importer can say without making a
// state: MJCF's <key qpos qvel>): per joint its minimal coordinates and rates (replacing the
// model's; empty velocity: zero), per body not placed by a joint its pose and velocities (as
// BodyDesc has them). `file`, `line`, `column`: where it was written, for messages.
struct InitialConditionsKeyframe {
  std::string name, file;
  int line = 0, column = 0;
  struct Joint {
    int joint = 0;
    std::vector<double> position, velocity;
  };
  struct Body {
    int body = 0;
    Vec3 position = Vec3::Zero(), linearVelocity = Vec3::Zero(), angularVelocity = Vec3::Zero();
    Vec4 orientation = Vec4(1, 0, 0, 0);
  };
  std::vector<Joint> joints;
  std::vector<Body> bodies;
};

// The keyframe of the state those initial conditions give (forward kinematics, projection onto the
// loop closures: makeInitialState, at the model's time step). Throws UserError when the model does
// not compile or the pose cannot be projected.
KeyframeDesc keyframeFromInitialConditions(const Model& model, const InitialConditionsKeyframe& key);

// "'a', 'b' and 'c'" (or "none") for the names of a model's keyframes, for messages.
std::string keyframeNames(const Model& model);

}  // namespace ms
