// SPDX-License-Identifier: GPL-3.0-or-later
// Assemble a .mech document (issue 34): close every loop (the engine's projection of the initial
// state, makeInitialState) and write each joint's position and velocity as the projected state has
// them (system/assemble.h), so that the written numbers are the state the engine starts from. Joints
// that already fit keep their text (expressions, parameters, comments); the others get numbers.
// Used by `mechstudio-cli assemble` and the editor's Assemble.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "io/mech_reader.h"
#include "io/sexpr.h"

namespace ms {

struct AssembledJoint {
  std::string name;
  std::vector<double> position, positionBefore;  // free coordinates, as written before and after
  std::vector<double> velocity, velocityBefore;
};

struct MechAssembly {
  bool ok = false;
  std::string error;                   // why not (a loop that cannot close names its worst joint)
  sexpr::Document doc;                 // the assembled text (the input when nothing moved or on error)
  std::vector<AssembledJoint> changed; // the joints whose text was rewritten
  double check = 0;  // largest |written − engine's projected coordinate| of the result, m or rad
};

// `parse` is readMech's result for `doc` with `params` (the same overrides are used to read the
// result back for its check). The bodies named in `hold` stay where their written values put them
// (and keep their velocity): the loops close by moving the others (makeInitialState's `held`).
// Refused: a name that is no body.
MechAssembly assembleMech(const sexpr::Document& doc, const MechParseResult& parse,
                          const std::map<std::string, std::string>& params, const std::vector<std::string>& hold = {});

// The comment an assembled file carries (once), before its (mechanism …) form.
extern const char* const kAssembledNote;

}  // namespace ms
