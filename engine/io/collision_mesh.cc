// SPDX-License-Identifier: GPL-3.0-or-later
// Collision meshes for the model readers (see collision_mesh.h).
#include "io/collision_mesh.h"

#include <cstdio>
#include <filesystem>

#include "contact/convex_hull.h"

namespace ms {

namespace fs = std::filesystem;

bool MeshFileCache::read(const std::string& path, const MeshData*& data, const MeshFileError*& err) {
  auto it = entries_.find(path);
  if (it == entries_.end()) {
    Entry e;
    e.ok = readMeshFile(path, e.data, e.err);
    it = entries_.emplace(path, std::move(e)).first;
  }
  data = &it->second.data;
  err = &it->second.err;
  return it->second.ok;
}

std::string resolveMeshPath(const std::string& name, const std::string& baseDir) {
  fs::path p(name);
  if (p.is_relative() && !baseDir.empty()) p = fs::path(baseDir) / p;
  std::error_code ec;
  const fs::path absolute = fs::absolute(p, ec);
  return (ec ? p : absolute).lexically_normal().string();
}

bool loadCollisionMesh(ShapeDesc& s, const std::string& path, MeshFileCache& cache, CollisionMeshReport& report) {
  s.meshVertices.clear();
  report = CollisionMeshReport();
  const std::string quoted = "'" + s.meshFile + "'";
  // The file.
  const MeshData* data = nullptr;
  const MeshFileError* err = nullptr;
  if (!cache.read(path, data, err)) {
    report.error = "mesh file " + err->formatAt(quoted);
    return false;
  }
  // Its vertices in the shape frame.
  std::vector<Vec3> vertices;
  vertices.reserve(data->vertices.size());
  for (const Vec3& v : data->vertices) vertices.push_back(v.cwiseProduct(s.meshScale));
  // The hull: a solid with few enough vertices.
  contact::ConvexHull hull;
  std::string why;
  if (!contact::buildConvexHull(vertices, hull, why)) {
    report.error = "mesh " + quoted + " cannot be used for collision: " + why;
    return false;
  }
  // Convexity: the mesh's vertices and triangles (at their centroids) lie on the hull.
  Vec3 lo = hull.vertices[0], hi = hull.vertices[0];
  for (const Vec3& v : hull.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  const double tolerance = kNonConvexTolerance * 0.5 * (hi - lo).norm();
  const int insideVertices = contact::pointsInsideHull(hull, vertices, tolerance);
  std::vector<Vec3> centroids;
  centroids.reserve(data->triangles.size());
  for (const auto& t : data->triangles) centroids.push_back((vertices[t[0]] + vertices[t[1]] + vertices[t[2]]) / 3);
  const int insideTriangles = contact::pointsInsideHull(hull, centroids, tolerance);
  if (insideVertices > 0 || insideTriangles > 0) {
    std::string what;
    if (insideVertices > 0)
      what = std::to_string(insideVertices) + " of " + std::to_string(vertices.size()) + " vertices";
    if (insideTriangles > 0)
      what += (what.empty() ? "" : " and ") + std::to_string(insideTriangles) + " of " +
              std::to_string(centroids.size()) + " triangles";
    report.warnings.push_back("mesh " + quoted + " is not convex (" + what +
                              " lie inside its hull): its convex hull is used for collision");
  }
  // Too many hull vertices: the simplified hull's vertices collide instead.
  if (int(hull.vertices.size()) > contact::kMaxHullVertices) {
    contact::ConvexHull simplified;
    double outside = 0;
    if (!contact::buildSimplifiedHull(vertices, contact::kMaxHullVertices, simplified, outside, why)) {
      report.error = "mesh " + quoted + " cannot be used for collision: " + why;
      return false;
    }
    char distance[32];
    std::snprintf(distance, sizeof distance, "%.3g", outside);
    report.notes.push_back("mesh " + quoted + ": its convex hull has " + std::to_string(hull.vertices.size()) +
                           " vertices; a hull of " + std::to_string(simplified.vertices.size()) +
                           " of them collides (the mesh reaches up to " + distance + " m beyond it)");
    s.meshVertices = std::move(simplified.vertices);
    return true;
  }
  s.meshVertices = std::move(vertices);
  return true;
}

}  // namespace ms
