// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/joint_kinds.h"

#include "core/check.h"

namespace ms {
namespace {
// Table B.2, in the paper's order. Columns: D_T rows, D_R rows.
const JointKind kKinds[kNumJointTypes] = {
    {JointType::Fixed, "fixed", 3, 3},
    {JointType::Prismatic, "prismatic", 2, 3},
    {JointType::Planar, "planar", 1, 3},
    {JointType::FixedOrientation, "fixed-orientation", 0, 3},
    {JointType::Revolute, "revolute", 3, 2},
    {JointType::Cylindrical, "cylindrical", 2, 2},
    {JointType::PlanarAxis, "planar-axis", 1, 2},
    {JointType::RotationAxisFree, "rotation-axis-free", 0, 2},
    {JointType::Spherical, "spherical", 3, 0},
    {JointType::CylindricalFree, "cylindrical-free", 2, 0},
    {JointType::PlanarFree, "planar-free", 1, 0},
    {JointType::Floating, "floating", 0, 0},
};
}  // namespace

const JointKind& jointKindAt(int i) {
  MS_ASSERT(i >= 0 && i < kNumJointTypes, "joint kind index out of range");
  return kKinds[i];
}

const JointKind& jointKind(JointType t) {
  for (const auto& k : kKinds)
    if (k.type == t) return k;
  MS_ASSERT(false, "unknown joint type");
}

std::optional<JointType> jointTypeFromName(const std::string& name) {
  for (const auto& k : kKinds)
    if (name == k.name) return k.type;
  return std::nullopt;
}

}  // namespace ms
