// SPDX-License-Identifier: GPL-3.0-or-later
// Convex hulls of point sets (collision meshes: the hull of a mesh file's vertices), built with
// Qhull's reentrant C library (Barber, Dobkin & Huhdanpaa 1996, "The Quickhull algorithm for convex
// hulls"), and the mass properties of the solid hull.
//
// Tolerances (all relative to the size of the input, D = the largest distance of a point from the
// first point):
//   - degenerate input: the points "coincide" when D = 0, "lie on a line" when every point is within
//     kHullFlatTolerance·D of the line through the two points that span it, "lie in a plane" when
//     every point is within kHullFlatTolerance·D of the plane through three points that span it;
//   - planar faces: Qhull merges facets that are coplanar within its round-off estimate (its default,
//     "C-0"); 'Qt' triangulates each merged facet, and its triangles share the facet's hyperplane
//     ("tricoplanar"), which is how `edges` leaves out triangulation diagonals (exactly, no angle
//     threshold);
//   - each face's offset is the largest n·p over the vertices of its plane, so they satisfy
//     n·p ≤ offset exactly as computed; every other input point is inside or above a face plane by
//     at most Qhull's round-off (its max_outside, ~1e-15 of the coordinates' magnitude);
//   - a vertex that Qhull keeps but that lies on fewer than three distinct face planes (inside a
//     planar face or along an edge) is not a corner of the polytope: the hull is rebuilt from the
//     corners only, so `vertices` holds the polytope's corners.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/types.h"

namespace ms::contact {

struct ConvexHull {
  struct Face { Vec3 normal; double offset = 0; std::array<int, 3> v{}; };  // outward unit normal, n·p = offset on the face plane; triangle vertex indices (counter-clockwise seen from outside)
  std::vector<Vec3> vertices;               // hull vertices only (points strictly inside or duplicates dropped)
  std::vector<Face> faces;                  // triangulated hull surface
  std::vector<std::array<int, 2>> edges;    // unique edges between two NON-coplanar triangles (the real polytope edges; triangulation diagonals of planar faces excluded)
  double boundingRadius = 0;                // max |vertex| (shape frame origin)
};

// Relative thickness below which a point set counts as flat (a line or a plane), see above.
constexpr double kHullFlatTolerance = 1e-9;

// Convex hull of `points` (qhull, reentrant API). Returns false with `why` set (a sentence for a user,
// e.g. "fewer than 4 points", "all points lie in a plane", "all points coincide") for degenerate input.
bool buildConvexHull(const std::vector<Vec3>& points, ConvexHull& out, std::string& why);
// Collision hulls have at most this many vertices: a larger hull is simplified (buildSimplifiedHull).
constexpr int kMaxHullVertices = 32;

// The convex hull of `points` with at most `maxVertices` (≥ 4) vertices: the full hull when it is
// small enough, else a hull grown from Quickhull's first simplex by adding, one at a time, the full
// hull's vertex farthest beyond a face plane of the hull so far (farthest-point insertion, as
// MuJoCo's maxhullvert, which stops Qhull after that many vertices, but over the whole hull). `outside`
// is the largest distance of a point beyond a face plane of the result (0 for the full hull). False
// with `why` as buildConvexHull.
bool buildSimplifiedHull(const std::vector<Vec3>& points, int maxVertices, ConvexHull& out, double& outside,
                         std::string& why);
// Number of `points` farther than `tolerance` inside the hull (a convex mesh's own vertices are all on it; a non-convex mesh has some inside).
int pointsInsideHull(const ConvexHull& hull, const std::vector<Vec3>& points, double tolerance);
// Volume, centroid and inertia tensor about the centroid of the solid hull per unit density (multiply by
// a uniform density ρ, or by mass / volume; tetrahedra from a point inside to each face, moved to the centroid).
struct HullMassProperties { double volume = 0; Vec3 centroid = Vec3::Zero(); Mat3 inertiaPerDensity = Mat3::Zero(); };
HullMassProperties hullMassProperties(const ConvexHull& hull);

}  // namespace ms::contact
