// SPDX-License-Identifier: GPL-3.0-or-later
// A ground under a floating-base robot (see default_ground.h).
#include "io/default_ground.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "contact/broad_phase.h"
#include "contact/contact_geometry.h"
#include "core/quaternion.h"

namespace ms {

bool hasFloatingBase(const Model& m) {
  std::vector<char> held(m.bodies.size(), 0);
  for (const JointDesc& j : m.joints)
    if (j.child >= 0 && size_t(j.child) < held.size() && !(j.parent < 0 && j.type == JointType::Floating))
      held[size_t(j.child)] = 1;
  for (char h : held)
    if (!h) return true;
  return false;
}

bool addGroundUnderFloatingBase(Model& m, std::string& note) {
  note.clear();
  if (!m.grounds.empty() || !hasFloatingBase(m)) return false;
  // The lowest point of every collision shape at the bodies' initial poses.
  double lowest = std::numeric_limits<double>::infinity();
  for (const BodyDesc& b : m.bodies) {
    const Vec4 q = b.orientation.normalized();
    for (const ShapeDesc& s : b.collisions) {
      if (s.kind == ShapeDesc::Kind::Mesh) {
        // A collision mesh: its vertices (the hull's lowest point is one of them).
        for (const Vec3& v : s.meshVertices) {
          const Vec3 inBody = s.position + quat::rotate(s.orientation.normalized(), v);
          lowest = std::min(lowest, (b.position + quat::rotate(q, inBody)).z());
        }
        continue;
      }
      contact::ContactShape shape;
      contact::Aabb box;
      if (contact::contactShapeFromDesc(s, shape) && contact::shapeAabb(shape, contact::BodyPose{b.position, q}, box))
        lowest = std::min(lowest, box.lo.z());
    }
  }
  if (!std::isfinite(lowest)) return false;
  GroundDesc g;
  g.name = "ground";
  g.point = Vec3(0, 0, lowest);
  m.grounds.push_back(g);
  char z[32];
  std::snprintf(z, sizeof z, "%.4g", lowest);
  note = std::string("the robot has a floating base: a ground is added at z = ") + z +
         " m, under its lowest collision shape (Settings > Imported robots, or --no-ground, leave it out)";
  return true;
}

}  // namespace ms
