// SPDX-License-Identifier: GPL-3.0-or-later
// One entry point for every front end (CLI, GUI, tests): a model named by a path (.mech, .trep,
// .urdf, .mjcf or .xml, chosen by extension; an .xml file is MJCF unless its root element is URDF's
// <robot>) or by "scene:NAME" (a built-in parametric scene) becomes a Model.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "model/model.h"

namespace ms {

// What loading may need besides the source (every field's default keeps the behaviour of before).
struct ModelLoadOptions {
  // URDF: roots for package://NAME/PATH mesh URIs, searched before ROS_PACKAGE_PATH (io/urdf_import.h).
  std::vector<std::string> packagePaths;
  // URDF: a ground under a floating-base robot (io/default_ground.h), with a note.
  bool groundUnderFloatingBase = true;
  // Self-collision between the bodies of one mechanism (CollisionMode::All or NoSelf): Default keeps
  // what the model says (URDF: off, as Gazebo and PyBullet read it; .mech and MJCF: as written). A
  // model that collides only as its contact-pairs say is left so.
  enum class SelfCollision { Default, On, Off };
  SelfCollision selfCollision = SelfCollision::Default;
};

// Lower-case extension of a path, with the dot ("" if none).
std::string modelFileExtension(const std::string& path);

// True for a URDF file: .urdf, or .xml whose root element is <robot>.
bool isUrdfFile(const std::string& path);
// True for the extensions loadModel() understands (.mech, .trep, .urdf, .xml, .mjcf).
bool isModelFile(const std::string& path);

// Reads `source` into `model`. Every problem goes to `diags` (file:line:column where known):
// unknown file type, unreadable file, syntax and semantic errors, unknown scene or parameter, and
// `params` given for a format without parameters. Returns false when there is any error.
bool loadModel(const std::string& source, const std::map<std::string, std::string>& params, Model& model,
               Diagnostics& diags, const ModelLoadOptions& options = {});

}  // namespace ms
