// SPDX-License-Identifier: GPL-3.0-or-later
// The twelve joints of Brüdigam et al. 2023, Table B.2, built from a translational constraint (B.1)
// and a rotational constraint (B.3) with the selection matrices of Table B.1.
#pragma once

#include <optional>
#include <string>

namespace ms {

enum class JointType {
  Fixed,
  Prismatic,
  Planar,            // planar, fixed orientation
  FixedOrientation,
  Revolute,
  Cylindrical,
  PlanarAxis,        // planar, rotation along axis
  RotationAxisFree,  // rotation along axis, free movement
  Spherical,
  CylindricalFree,   // cylindrical, free orientation
  PlanarFree,        // planar, free orientation
  Floating
};

// Which selection matrix of Table B.1 a constraint uses: number of constrained directions
// 0 (none), 1 (V3: keep in the plane ⊥ axis), 2 (V1:2: keep on the axis), 3 (all).
struct JointKind {
  JointType type;
  const char* name;   // canonical spelling used by the CLI and the model language
  int translationalConstrained;  // rows of D_T: 0, 1, 2 or 3
  int rotationalConstrained;     // rows of D_R: 0, 2 or 3
  int constrained() const { return translationalConstrained + rotationalConstrained; }
  int freeTranslational() const { return 3 - translationalConstrained; }
  int freeRotational() const { return 3 - rotationalConstrained; }
  int freeCoordinates() const { return 6 - constrained(); }
};

const JointKind& jointKind(JointType t);
std::optional<JointType> jointTypeFromName(const std::string& name);
constexpr int kNumJointTypes = 12;
const JointKind& jointKindAt(int i);  // 0 ≤ i < kNumJointTypes, in Table B.2 order

}  // namespace ms
