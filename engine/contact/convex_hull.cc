// SPDX-License-Identifier: GPL-3.0-or-later
// Convex hulls with Qhull's reentrant library (see convex_hull.h for the tolerances).
#include "contact/convex_hull.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <utility>

// Last: Qhull's headers define short macros (qh_..., FORALL..., True/False).
#include <libqhull_r/qhull_ra.h>

namespace ms::contact {

namespace {

// Qhull's options: 'Qt' triangulates the output (merged facets become triangles sharing the facet's
// hyperplane); 'Qs' searches all points for the initial simplex (robust for thin inputs). Default
// merging ("C-0": facets coplanar within round-off are merged) stays on.
constexpr const char* kQhullOptions = "qhull Qt Qs";

// What Qhull produced, in terms of the input points.
struct RawHull {
  std::vector<int> vertexPoints;                 // input point index of each hull vertex
  struct Tri { std::array<int, 3> v; Vec3 normal; int plane; };
  std::vector<Tri> triangles;                    // vertex indices into vertexPoints, any orientation;
                                                 // plane: the Qhull facet (hyperplane) it came from
};

// Captures what Qhull writes to its error stream (messages and precision warnings) in memory, so
// nothing reaches stdout/stderr; text() is the captured output.
class CapturedStream {
 public:
  CapturedStream() { file_ = open_memstream(&buffer_, &size_); }
  ~CapturedStream() {
    close();
    std::free(buffer_);
  }
  CapturedStream(const CapturedStream&) = delete;
  CapturedStream& operator=(const CapturedStream&) = delete;
  FILE* file() const { return file_; }
  std::string text() {
    close();
    return buffer_ ? std::string(buffer_, size_) : std::string();
  }

 private:
  void close() {
    if (file_) std::fclose(file_);
    file_ = nullptr;
  }
  FILE* file_ = nullptr;
  char* buffer_ = nullptr;
  size_t size_ = 0;
};

// The first line of Qhull's error output that carries a message ("QH6154 Qhull precision error: …").
std::string firstQhullMessage(const std::string& text) {
  size_t start = text.find("QH");
  if (start == std::string::npos) start = 0;
  std::string line = text.substr(start, text.find('\n', start) - start);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

// Runs Qhull on the points selected by `use` (indices into `points`); with addedVertices ≥ 0 it stops
// after adding that many vertices to the initial simplex (Qhull's 'TA' option). False with `why` on failure.
bool runQhull(const std::vector<Vec3>& points, const std::vector<int>& use, RawHull& out, std::string& why,
              int addedVertices = -1) {
  std::vector<coordT> coords(3 * use.size());
  for (size_t k = 0; k < use.size(); ++k)
    for (int d = 0; d < 3; ++d) coords[3 * k + d] = points[use[k]](d);
  CapturedStream err;
  if (!err.file()) {
    why = "cannot build the convex hull (no memory for Qhull's messages)";
    return false;
  }
  // qhT is large (tens of kB): on the heap. Every Qhull allocation is released by qh_freeqhull and
  // qh_memfreeshort before returning, also after an error (Qhull longjmps back into qh_new_qhull).
  auto qh = std::make_unique<qhT>();
  qh_zero(qh.get(), err.file());
  char options[48];
  if (addedVertices >= 0) std::snprintf(options, sizeof options, "%s TA%d", kQhullOptions, addedVertices);
  else std::snprintf(options, sizeof options, "%s", kQhullOptions);
  const int exitcode = qh_new_qhull(qh.get(), 3, int(use.size()), coords.data(), False, options, nullptr, err.file());
  bool ok = exitcode == 0;
  if (ok) {
    std::map<int, int> vertexOf;                // Qhull vertex id -> index in out.vertexPoints
    std::map<const double*, int> planeOf;       // a hyperplane's normal storage -> plane number
    facetT* facet;
    vertexT* vertex;
    vertexT** vertexp;
    qhT* const q = qh.get();
    {
      qhT* qh = q;  // FORALLfacets / FOREACHvertex_ expand to qh->…
      FORALLfacets {
        if (facet->visible) continue;
        std::array<int, 3> tri{};
        int count = 0;
        bool valid = facet->simplicial;
        FOREACHvertex_(facet->vertices) {
          if (count >= 3) {
            valid = false;
            break;
          }
          const int pointIndex = qh_pointid(qh, vertex->point);
          if (pointIndex < 0 || pointIndex >= int(use.size())) {
            valid = false;
            break;
          }
          auto it = vertexOf.find(int(vertex->id));
          if (it == vertexOf.end()) {
            it = vertexOf.emplace(int(vertex->id), int(out.vertexPoints.size())).first;
            out.vertexPoints.push_back(use[pointIndex]);
          }
          tri[count++] = it->second;
        }
        if (!valid || count != 3) {
          ok = false;
          why = "cannot build the convex hull (Qhull returned a facet that is not a triangle)";
          break;
        }
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) continue;  // a null facet
        // Triangles of one merged facet share its hyperplane (the same normal storage).
        const int plane = planeOf.emplace(facet->normal, int(planeOf.size())).first->second;
        out.triangles.push_back({tri, Vec3(facet->normal[0], facet->normal[1], facet->normal[2]), plane});
      }
    }
  } else {
    why = firstQhullMessage(err.text());
  }
  qh_freeqhull(qh.get(), !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh.get(), &curlong, &totlong);
  return ok;
}

// Distance of `p` from the line through a and b (a ≠ b).
double lineDistance(const Vec3& p, const Vec3& a, const Vec3& b) {
  return (p - a).cross(b - a).norm() / (b - a).norm();
}

// Checks that the points span a solid: false with `why` for coinciding, collinear or coplanar points.
bool spansSolid(const std::vector<Vec3>& points, std::string& why) {
  if (points.size() < 4) {
    why = "fewer than 4 points";
    return false;
  }
  for (const Vec3& p : points)
    if (!p.allFinite()) {
      why = "a point is not finite";
      return false;
    }
  // a: the first point; b: the farthest from a; c: the farthest from the line ab; d: the farthest
  // from the plane abc.
  const Vec3& a = points[0];
  size_t ib = 0, ic = 0;
  double size = 0;
  for (size_t k = 0; k < points.size(); ++k)
    if ((points[k] - a).norm() > size) size = (points[k] - a).norm(), ib = k;
  if (!(size > 0)) {
    why = "all points coincide";
    return false;
  }
  const Vec3& b = points[ib];
  double fromLine = 0;
  for (size_t k = 0; k < points.size(); ++k) {
    const double d = lineDistance(points[k], a, b);
    if (d > fromLine) fromLine = d, ic = k;
  }
  if (!(fromLine > kHullFlatTolerance * size)) {
    why = "all points lie on a line";
    return false;
  }
  const Vec3 n = (b - a).cross(points[ic] - a).normalized();
  double fromPlane = 0;
  for (const Vec3& p : points) fromPlane = std::max(fromPlane, std::abs(n.dot(p - a)));
  if (!(fromPlane > kHullFlatTolerance * size)) {
    why = "all points lie in a plane";
    return false;
  }
  return true;
}

}  // namespace

bool buildConvexHull(const std::vector<Vec3>& points, ConvexHull& out, std::string& why) {
  out = ConvexHull();
  why.clear();
  if (!spansSolid(points, why)) return false;
  std::vector<int> all(points.size());
  for (size_t k = 0; k < points.size(); ++k) all[k] = int(k);
  RawHull raw;
  if (!runQhull(points, all, raw, why)) {
    why = "cannot build the convex hull (" + why + ")";
    return false;
  }
  // Corners: vertices on at least three distinct face planes. Others (inside a planar face or on an
  // edge, kept by Qhull within round-off) are dropped by rebuilding from the corners.
  std::vector<std::set<int>> planesAt(raw.vertexPoints.size());
  for (const RawHull::Tri& t : raw.triangles)
    for (int v : t.v) planesAt[v].insert(t.plane);
  std::vector<int> corners;
  for (size_t k = 0; k < raw.vertexPoints.size(); ++k)
    if (planesAt[k].size() >= 3) corners.push_back(raw.vertexPoints[k]);
  if (corners.size() < raw.vertexPoints.size() && corners.size() >= 4) {
    RawHull again;
    std::string againWhy;
    if (runQhull(points, corners, again, againWhy)) raw = std::move(again);
  }
  // Vertices (the input coordinates as given).
  for (int p : raw.vertexPoints) out.vertices.push_back(points[p]);
  for (const Vec3& v : out.vertices) out.boundingRadius = std::max(out.boundingRadius, v.norm());
  // Faces: outward unit normal, counter-clockwise seen from outside, offset = the largest n·p over
  // the vertices of the face's plane (the triangles of one merged facet share it), so every vertex
  // of a face is on or below its plane exactly as computed.
  std::map<int, double> offsetOf;  // per plane
  for (const RawHull::Tri& t : raw.triangles)
    for (int v : t.v) {
      const double d = t.normal.normalized().dot(out.vertices[v]);
      auto [it, added] = offsetOf.emplace(t.plane, d);
      if (!added) it->second = std::max(it->second, d);
    }
  for (const RawHull::Tri& t : raw.triangles) {
    ConvexHull::Face f;
    f.normal = t.normal.normalized();
    f.v = t.v;
    const Vec3 &a = out.vertices[t.v[0]], &b = out.vertices[t.v[1]], &c = out.vertices[t.v[2]];
    if ((b - a).cross(c - a).dot(f.normal) < 0) std::swap(f.v[1], f.v[2]);
    f.offset = offsetOf[t.plane];
    out.faces.push_back(f);
  }
  // Edges between triangles of different planes (each triangle edge once).
  std::map<std::pair<int, int>, std::vector<int>> planesOfEdge;
  for (const RawHull::Tri& t : raw.triangles)
    for (int e = 0; e < 3; ++e) {
      const int i = t.v[e], j = t.v[(e + 1) % 3];
      planesOfEdge[{std::min(i, j), std::max(i, j)}].push_back(t.plane);
    }
  for (const auto& [edge, planes] : planesOfEdge)
    if (planes.size() != 2 || planes[0] != planes[1]) out.edges.push_back({edge.first, edge.second});
  return true;
}

bool buildSimplifiedHull(const std::vector<Vec3>& points, int maxVertices, ConvexHull& out, double& outside,
                         std::string& why) {
  out = ConvexHull();
  outside = 0;
  if (!buildConvexHull(points, out, why)) return false;
  if (int(out.vertices.size()) <= maxVertices) return true;
  // Candidates: the full hull's vertices (the farthest point beyond any plane is one of them).
  const std::vector<Vec3> candidates = out.vertices;
  // Start: Quickhull's first simplex (Qhull's 'TA0': stop after the initial simplex).
  std::vector<int> all(points.size());
  for (size_t k = 0; k < points.size(); ++k) all[k] = int(k);
  RawHull simplex;
  if (!runQhull(points, all, simplex, why, 0)) {
    why = "cannot simplify the convex hull (" + why + ")";
    return false;
  }
  std::vector<Vec3> chosen;
  for (int p : simplex.vertexPoints) chosen.push_back(points[p]);
  // Then, one at a time, the candidate farthest beyond a face plane of the hull of those chosen.
  ConvexHull current;
  if (!buildConvexHull(chosen, current, why)) return false;
  while (true) {
    double farthest = 0;
    int pick = -1;
    for (size_t k = 0; k < candidates.size(); ++k) {
      double d = 0;
      for (const ConvexHull::Face& f : current.faces) d = std::max(d, f.normal.dot(candidates[k]) - f.offset);
      if (d > farthest) farthest = d, pick = int(k);
    }
    if (pick < 0 || int(current.vertices.size()) >= maxVertices) {
      outside = farthest;
      break;
    }
    std::vector<Vec3> next = current.vertices;
    next.push_back(candidates[size_t(pick)]);
    ConvexHull grown;
    if (!buildConvexHull(next, grown, why) || int(grown.vertices.size()) > maxVertices) {
      outside = farthest;
      break;
    }
    current = std::move(grown);
  }
  out = std::move(current);
  return true;
}

int pointsInsideHull(const ConvexHull& hull, const std::vector<Vec3>& points, double tolerance) {
  int inside = 0;
  for (const Vec3& p : points) {
    bool deep = !hull.faces.empty();
    for (const ConvexHull::Face& f : hull.faces)
      if (!(f.offset - f.normal.dot(p) > tolerance)) {
        deep = false;
        break;
      }
    inside += deep ? 1 : 0;
  }
  return inside;
}

HullMassProperties hullMassProperties(const ConvexHull& hull) {
  HullMassProperties m;
  if (hull.vertices.empty() || hull.faces.empty()) return m;
  // Tetrahedra (r, a, b, c) from a point r inside (the mean of the vertices), in coordinates
  // relative to r: volume det/6, first moment det/24·(a+b+c), second moment
  // ∫xxᵀ = det/120·(aaᵀ + bbᵀ + ccᵀ + ssᵀ), s = a+b+c (Tonon 2004, "Explicit exact formulas for the
  // 3-D tetrahedron inertia tensor in terms of its vertex coordinates").
  Vec3 r = Vec3::Zero();
  for (const Vec3& v : hull.vertices) r += v;
  r /= double(hull.vertices.size());
  double volume = 0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  for (const ConvexHull::Face& f : hull.faces) {
    const Vec3 a = hull.vertices[f.v[0]] - r, b = hull.vertices[f.v[1]] - r, c = hull.vertices[f.v[2]] - r;
    const double det = a.dot(b.cross(c));
    const Vec3 s = a + b + c;
    volume += det / 6;
    first += det / 24 * s;
    second += det / 120 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  m.volume = volume;
  if (!(volume > 0)) return m;
  const Vec3 offset = first / volume;  // centroid relative to r
  m.centroid = r + offset;
  const Mat3 covariance = second - volume * offset * offset.transpose();  // about the centroid
  m.inertiaPerDensity = covariance.trace() * Mat3::Identity() - covariance;
  m.inertiaPerDensity = (0.5 * (m.inertiaPerDensity + m.inertiaPerDensity.transpose())).eval();
  return m;
}

}  // namespace ms::contact
