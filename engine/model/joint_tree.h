// SPDX-License-Identifier: GPL-3.0-or-later
// The spanning tree of a model's joints, shared by the compiler (which places bodies from their
// initial joint coordinates along it) and the writer (which nests bodies along it).
#pragma once

#include <functional>
#include <vector>

#include "model/model.h"

namespace ms {

struct JointTree {
  std::vector<int> treeJoints;   // joints that place a body, in breadth-first order from the world
  std::vector<int> loopJoints;   // the others (they close loops), in index order
  std::vector<int> parentJoint;  // per body: the tree joint that places it, -1 for a root
};

// Breadth first from the world, each placed body's joints (in index order) placing the children
// not yet placed; bodies left over start trees of their own (roots, in index order). Joints with
// usable(k) == false are never in the tree.
JointTree buildJointTree(const Model& model, const std::function<bool(int)>& usable = {});

}  // namespace ms
