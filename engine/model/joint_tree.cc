// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/joint_tree.h"

#include <deque>

namespace ms {

JointTree buildJointTree(const Model& model, const std::function<bool(int)>& usable) {
  const int nb = int(model.bodies.size()), nj = int(model.joints.size());
  JointTree t;
  t.parentJoint.assign(nb, -1);
  // Joints by parent body (+1: the world is 0), in index order.
  std::vector<std::vector<int>> outgoing(nb + 1);
  for (int k = 0; k < nj; ++k) {
    const JointDesc& d = model.joints[k];
    if ((usable && !usable(k)) || d.parent < -1 || d.parent >= nb || d.child < 0 || d.child >= nb) continue;
    outgoing[d.parent + 1].push_back(k);
  }
  std::vector<bool> placed(nb, false), used(nj, false);
  std::deque<int> frontier = {-1};
  int nextRoot = 0;
  while (!frontier.empty()) {
    const int b = frontier.front();
    frontier.pop_front();
    for (int k : outgoing[b + 1]) {
      const JointDesc& d = model.joints[k];
      if (placed[d.child]) continue;
      used[k] = true;
      placed[d.child] = true;
      t.parentJoint[d.child] = k;
      t.treeJoints.push_back(k);
      frontier.push_back(d.child);
    }
    // A body no joint reaches starts a tree of its own.
    while (frontier.empty() && nextRoot < nb) {
      if (!placed[nextRoot]) {
        placed[nextRoot] = true;
        frontier.push_back(nextRoot);
      }
      ++nextRoot;
    }
  }
  for (int k = 0; k < nj; ++k)
    if (!used[k]) t.loopJoints.push_back(k);
  return t;
}

}  // namespace ms
