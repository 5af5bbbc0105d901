// SPDX-License-Identifier: GPL-3.0-or-later
// Where a tree joint places its child at a reference state, for the exporters that nest bodies along
// the joints' spanning tree (io/urdf_writer.cc, io/mjcf_writer.cc): the
// joint's minimal coordinates θ₀ at the reference (zero for a fixed joint) and the child's pose in
// the parent's frame that jointForwardKinematics gives for them. Taking the pose from θ₀ rather than
// from the two bodies' poses keeps the written joint exact (the reference satisfies the constraints
// only to the projection's tolerance).
#pragma once

#include "core/types.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

// A tree joint's child relative to its parent at a reference state.
struct JointPlacement {
  Vec6 theta0 = Vec6::Zero();           // minimal coordinates at the reference (padded to 6)
  Vec3 position = Vec3::Zero();         // child centre of mass in the parent's frame (world for parent −1)
  Vec4 orientation = Vec4(1, 0, 0, 0);  // child orientation relative to the parent [w, x, y, z]
};

// The joint's geometry with every row (the full one when compile dropped redundant rows).
const JointGeometry& fullJointGeometry(const CompiledJoint& joint);

// The placement of `joint`'s child at `reference` (a state of the joint's system).
JointPlacement placeJointChild(const CompiledJoint& joint, const State& reference);

}  // namespace ms
