// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/model.h"

#include <algorithm>
#include <set>
#include <utility>

namespace ms {

std::vector<int> mechanismsOf(const Model& m) {
  std::vector<int> root(m.bodies.size());
  for (size_t b = 0; b < root.size(); ++b) root[b] = int(b);
  const auto find = [&](int b) {
    while (root[size_t(b)] != b) b = root[size_t(b)] = root[size_t(root[size_t(b)])];
    return b;
  };
  for (const JointDesc& j : m.joints)
    if (j.parent >= 0) {
      const int a = find(j.parent), c = find(j.child);
      root[size_t(std::max(a, c))] = std::min(a, c);
    }
  for (size_t b = 0; b < root.size(); ++b) root[b] = find(int(b));
  return root;
}

bool selfCollisionMatters(const Model& m) {
  const std::vector<int> mech = mechanismsOf(m);
  std::set<std::pair<int, int>> joined;
  for (const JointDesc& j : m.joints)
    if (j.parent >= 0) joined.insert({std::min(j.parent, j.child), std::max(j.parent, j.child)});
  std::vector<int> colliding;
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (!m.bodies[b].collisions.empty()) colliding.push_back(int(b));
  for (size_t i = 0; i < colliding.size(); ++i)
    for (size_t k = i + 1; k < colliding.size(); ++k)
      if (mech[size_t(colliding[i])] == mech[size_t(colliding[k])] && !joined.count({colliding[i], colliding[k]})) return true;
  return false;
}

double actuatorOutput(const ActuatorDesc& a, double u) {
  return a.gear * std::clamp(std::clamp(u, a.controlLower, a.controlUpper), a.forceLower, a.forceUpper);
}

int Model::bodyIndex(const std::string& n) const {
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].name == n) return int(i);
  return -1;
}

int Model::jointIndex(const std::string& n) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == n) return int(i);
  return -1;
}

int Model::tendonIndex(const std::string& n) const {
  for (size_t i = 0; i < tendons.size(); ++i)
    if (tendons[i].name == n) return int(i);
  return -1;
}

const KeyframeDesc* Model::keyframe(const std::string& n) const {
  for (const KeyframeDesc& k : keyframes)
    if (k.name == n) return &k;
  return nullptr;
}

}  // namespace ms
