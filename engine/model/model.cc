// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/model.h"

namespace ms {

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

const KeyframeDesc* Model::keyframe(const std::string& n) const {
  for (const KeyframeDesc& k : keyframes)
    if (k.name == n) return &k;
  return nullptr;
}

}  // namespace ms
