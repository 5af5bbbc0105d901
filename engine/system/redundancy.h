// SPDX-License-Identifier: GPL-3.0-or-later
// Redundant constraints. A closed loop of parallel revolute joints (a planar four-bar built in 3D)
// constrains some directions twice; its Newton matrix is then singular. At compile time the rows
// of loop-closing joints are tested against the motions the spanning tree allows, at the initial
// configuration, and rows that depend on the others are dropped (they keep holding through the
// rows that remain). The full rows are still measured in the reported constraint violation.
#pragma once

#include <string>
#include <vector>

#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

// Returns one note per joint that lost rows. Modifies the loop joints' geometry in `sys`.
std::vector<std::string> removeRedundantRows(CompiledSystem& sys, const State& pose);

}  // namespace ms
