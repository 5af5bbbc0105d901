// SPDX-License-Identifier: GPL-3.0-or-later
// Collision meshes for the model readers (.mech, URDF): a mesh file's vertices, scaled, whose convex
// hull is what collides. Shared so that every reader resolves, reads and checks meshes alike:
//   - the file is resolved against the model file's directory (as the 3D view does for visual
//     meshes), read with readMeshFile (io/mesh_file.h) and its vertices multiplied by the scale;
//   - the hull must be a solid (not all points in a plane, on a line or coinciding); a hull with more
//     than contact::kMaxHullVertices vertices is simplified (contact::buildSimplifiedHull) and the
//     simplified hull's vertices are the shape's, with a note saying how far the mesh reaches beyond it;
//   - a mesh that is not convex (a vertex or a triangle farther than kNonConvexTolerance × its size
//     inside its hull) is accepted with a warning: its convex hull is used.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "io/mesh_file.h"
#include "model/model.h"

namespace ms {

// Dents shallower than this fraction of the hull's size (half the diagonal of its bounding box) are
// not reported as non-convexity: float32 STL coordinates and six-decimal OBJ coordinates move points
// of a flat face off its plane by ~1e-7 of the size.
constexpr double kNonConvexTolerance = 1e-6;

// Mesh files already read (by absolute path), for models that use one file many times (repeat, chain).
class MeshFileCache {
 public:
  // readMeshFile(path), once per path.
  bool read(const std::string& path, const MeshData*& data, const MeshFileError*& err);

 private:
  struct Entry {
    bool ok = false;
    MeshData data;
    MeshFileError err;
  };
  std::map<std::string, Entry> entries_;
};

// The absolute path of a mesh file name: `name` when absolute, else `baseDir`/`name` (baseDir empty:
// the current directory), normalised lexically.
std::string resolveMeshPath(const std::string& name, const std::string& baseDir);

// What loading a collision mesh found.
struct CollisionMeshReport {
  std::string error;                  // why the mesh cannot collide (empty when it was loaded)
  std::vector<std::string> warnings;  // e.g. "mesh 'l.obj' is not convex (…): its convex hull is used for collision"
  std::vector<std::string> notes;     // e.g. "mesh 'l.stl': its convex hull has 163 vertices; a hull of 32 of them collides (…)"
};

// Reads the mesh file at `path` (s.meshFile names it in messages), fills s.meshVertices with its
// vertices times s.meshScale (or the simplified hull's vertices, see above) and checks its convex
// hull. False with report.error set when the file cannot be read or is malformed, or the hull is
// degenerate (s.meshVertices is then empty). Warnings (not convex) go to report.warnings either way.
bool loadCollisionMesh(ShapeDesc& s, const std::string& path, MeshFileCache& cache, CollisionMeshReport& report);

}  // namespace ms
