// SPDX-License-Identifier: GPL-3.0-or-later
// Convex hulls of collision meshes (qhull): vertices, outward faces, real edges, mass properties.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/types.h"

namespace ms::contact {

struct ConvexHull {
  struct Face { Vec3 normal; double offset = 0; std::array<int, 3> v{}; };
  std::vector<Vec3> vertices;
  std::vector<Face> faces;
  std::vector<std::array<int, 2>> edges;
  double boundingRadius = 0;
};
bool buildConvexHull(const std::vector<Vec3>& points, ConvexHull& out, std::string& why);
constexpr int kMaxHullVertices = 32;

}  // namespace ms::contact
