// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: a robot description (urdfdom parses the standard elements) turned into a Model.
//
// Mapping (details and the loop-closure extension are documented at the top of urdf_import.cc):
//  - A link with <inertial> becomes a body whose frame is its inertial (centre-of-mass) frame.
//  - The root link is the world when it has no <inertial> or is named "world"; otherwise it is a
//    free body. Massless links attached by fixed joints are lumped into their parent body.
//  - Joints: revolute/continuous → Revolute, prismatic → Prismatic, fixed → Fixed, floating →
//    Floating, planar → PlanarAxis (URDF planar: two translations in the plane ⊥ axis and the
//    rotation about it). All initial joint coordinates are 0 (the pose written in the file).
//  - <loop_joint> elements inside <robot> close kinematic loops (see urdf_import.cc).
// Every problem is reported to `diags` with the file name and, where known, the line. The
// functions never throw; they return false (leaving `out` untouched) when any error was reported.
#pragma once

#include <string>

#include "core/diagnostics.h"
#include "model/model.h"

namespace ms {

// Reads the URDF file at `path`; mesh files are looked up relative to its directory.
bool importUrdf(const std::string& path, Model& out, Diagnostics& diags);

// Imports URDF text. `fileNameForMessages` names the source in diagnostics; `baseDir` is the
// directory relative mesh file names are checked against (empty: the current directory).
bool importUrdfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags);

}  // namespace ms
