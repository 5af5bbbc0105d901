// SPDX-License-Identifier: GPL-3.0-or-later
// Placement of a tree joint's child at a reference state (see joint_placement.h).
#include "system/joint_placement.h"

#include "core/quaternion.h"

namespace ms {

const JointGeometry& fullJointGeometry(const CompiledJoint& joint) {
  return joint.hasDroppedRows ? joint.full : joint.geo;
}

JointPlacement placeJointChild(const CompiledJoint& joint, const State& reference) {
  const JointGeometry& g = fullJointGeometry(joint);
  JointPlacement p;
  // θ₀ measured at the reference (a fixed joint has none).
  if (g.type != JointType::Fixed) {
    JointMinimalEval e;
    evalJointMinimal(g, jointPoses(g, reference), e);
    p.theta0 = e.theta;
  }
  // The child's pose for θ₀ with the parent at the origin, unrotated.
  jointForwardKinematics(g, Vec3::Zero(), quat::identity(), p.theta0, p.position, p.orientation);
  return p;
}

}  // namespace ms
