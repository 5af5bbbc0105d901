// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: a MuJoCo model (XML, read with tinyxml2) turned into a Model. The mapping, element by
// element, is documented at the top of mjcf_import.cc and in docs/import-export.md. In short:
//   - nested <body>s with one joint each (hinge → revolute, slide → prismatic, ball → spherical,
//     free → a free body); a body without a joint is welded: fused into its parent body, or fixed to
//     the world when its parent is the world; body frames become centre-of-mass frames;
//   - geoms → shapes (sphere, capsule, box, cylinder, mesh; fromto), planes of the worldbody →
//     grounds; mass and inertia from <inertial> or from the geoms (mass / density, as MuJoCo does);
//   - <default> classes, childclass and class; <equality> connect and weld → loop joints;
//     <actuator> motor → actuator, position → PD controller; <contact> exclude and pair;
//     <option> timestep and gravity; <compiler> angle, eulerseq, meshdir, inertiafromgeom, autolimits;
//     several joints in one body (a chain of light links, or one combined joint); <include>.
// Everything else is reported as a warning at its line and column (never dropped silently); what the
// engine cannot represent (a nested free joint, a massless moving body …) is an error.
// The functions never throw; they return false (leaving `out` untouched) when any error was reported.
#pragma once

#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "model/model.h"
#include "system/keyframe.h"

namespace ms {

// Reads the MJCF file at `path`; mesh files are looked up relative to its directory (and meshdir).
// With `keys`, the model's <keyframe><key>s as initial conditions (making their states is the compile
// step's: keyframeFromInitialConditions, which loadModel applies); without, they are checked only.
bool importMjcf(const std::string& path, Model& out, Diagnostics& diags, std::vector<InitialConditionsKeyframe>* keys = nullptr);

// Imports MJCF text. `fileNameForMessages` names the source in diagnostics; `baseDir` is the directory
// relative file names (meshes, meshdir) are resolved against (empty: the current directory).
bool importMjcfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags, std::vector<InitialConditionsKeyframe>* keys = nullptr);

// The name of the root element of XML text ("mujoco", "robot", …), or "" when the text does not
// parse; used to tell MJCF from URDF in .xml files.
std::string xmlRootElementName(const std::string& xml);

}  // namespace ms
