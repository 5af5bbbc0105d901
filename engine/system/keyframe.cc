// SPDX-License-Identifier: GPL-3.0-or-later
#include "system/keyframe.h"

#include <cstdio>
#include <map>

#include "core/check.h"
#include "core/quaternion.h"
#include "system/initial_conditions.h"

namespace ms {

KeyframeDesc keyframeFromState(const CompiledSystem& sys, const State& state, const std::string& name) {
  MS_ASSERT(state.bodies.size() == sys.bodies.size(), "state from another system");
  KeyframeDesc k;
  k.name = name;
  k.bodies.reserve(sys.bodies.size());
  for (size_t i = 0; i < sys.bodies.size(); ++i) {
    const BodyState& b = state.bodies[i];
    KeyframeBody e;
    e.body = sys.bodies[i].name;
    e.position = b.x;
    e.orientation = b.q;
    e.velocity = b.v;
    e.angularVelocity = quat::rotation(b.q) * b.w;  // body → world
    k.bodies.push_back(e);
  }
  return k;
}

State stateFromKeyframe(const CompiledSystem& sys, const KeyframeDesc& k) {
  const std::string owner = "keyframe '" + k.name + "'";
  std::map<std::string, int> index;
  for (size_t i = 0; i < sys.bodies.size(); ++i) index.emplace(sys.bodies[i].name, int(i));
  State s = zeroState(sys);
  std::vector<bool> given(sys.bodies.size(), false);
  for (const KeyframeBody& e : k.bodies) {
    const auto it = index.find(e.body);
    if (it == index.end())
      throw UserError(owner + " names body '" + e.body + "' that the model does not have: was the model changed since it was saved?");
    if (given[size_t(it->second)]) throw UserError(owner + " gives body '" + e.body + "' twice");
    given[size_t(it->second)] = true;
    BodyState& b = s.bodies[size_t(it->second)];
    b.x = e.position;
    b.q = e.orientation;
    b.v = e.velocity;
    b.w = quat::rotation(e.orientation).transpose() * e.angularVelocity;  // world → body
  }
  for (size_t i = 0; i < sys.bodies.size(); ++i)
    if (!given[i])
      throw UserError(owner + " has no state for body '" + sys.bodies[i].name + "': was the model changed since it was saved?");
  for (const CompiledJoint& j : sys.joints) {
    const double v =
        jointConstraintValue(j.hasDroppedRows ? j.full : j.geo, jointPoses(j.geo, s)).lpNorm<Eigen::Infinity>();
    if (!(v <= kKeyframeFitTolerance)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g", v);
      throw UserError(owner + " does not fit joint '" + j.name + "' (violation " + buf +
                      "): was the model changed since it was saved?");
    }
  }
  return s;
}

KeyframeDesc keyframeFromInitialConditions(const Model& model, const InitialConditionsKeyframe& key) {
  Model m = model;
  for (const InitialConditionsKeyframe::Joint& j : key.joints) {
    MS_ASSERT(j.joint >= 0 && size_t(j.joint) < m.joints.size(), "keyframe joint out of range");
    m.joints[size_t(j.joint)].initialPosition = j.position;
    m.joints[size_t(j.joint)].initialVelocity = j.velocity;
  }
  for (const InitialConditionsKeyframe::Body& b : key.bodies) {
    MS_ASSERT(b.body >= 0 && size_t(b.body) < m.bodies.size(), "keyframe body out of range");
    BodyDesc& d = m.bodies[size_t(b.body)];
    d.position = b.position;
    d.orientation = b.orientation;
    d.linearVelocity = b.linearVelocity;
    d.angularVelocity = b.angularVelocity;
  }
  const auto sys = compile(m);
  return keyframeFromState(*sys, makeInitialState(*sys, m), key.name);
}

std::string keyframeNames(const Model& model) {
  if (model.keyframes.empty()) return "none";
  std::string list;
  for (size_t i = 0; i < model.keyframes.size(); ++i)
    list += std::string(i == 0 ? "" : i + 1 == model.keyframes.size() ? " and " : ", ") + "'" + model.keyframes[i].name + "'";
  return list;
}

}  // namespace ms
