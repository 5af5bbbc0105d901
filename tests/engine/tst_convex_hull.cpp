// SPDX-License-Identifier: GPL-3.0-or-later
// Convex hulls (engine/contact/convex_hull): the hull of a cube with interior, duplicate, face and
// edge points, the icosahedron of models/meshes, a prism (no diagonals among the edges), random point clouds (containment, Euler's formula,
// a closed surface), mass properties against closed forms, degenerate inputs with their messages,
// the count of points inside, that Qhull prints nothing, and the time to build the rock's hull.
#include <QTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <unistd.h>

#include "contact/convex_hull.h"
#include "io/mesh_file.h"
#include "test_paths.h"

using namespace ms;
using namespace ms::contact;

namespace {

// Checks what every hull must satisfy; "" when it does, else the first violation.
//  - faces: unit outward normals, counter-clockwise seen from outside, their vertices on their
//    plane, every vertex (and every point of `inputs`) on the inner side;
//  - the surface is closed: every triangle edge is shared by exactly two triangles, and
//    V − E + F = 2 (F triangles, E triangle edges);
//  - edges ⊆ triangle edges; boundingRadius = max |vertex|.
std::string hullProblem(const ConvexHull& h, const std::vector<Vec3>& inputs, double tol) {
  const int nv = int(h.vertices.size());
  for (const ConvexHull::Face& f : h.faces) {
    if (std::abs(f.normal.norm() - 1) > 1e-14) return "normal not unit";
    for (int v : f.v)
      if (v < 0 || v >= nv) return "face vertex index out of range";
    const Vec3 &a = h.vertices[f.v[0]], &b = h.vertices[f.v[1]], &c = h.vertices[f.v[2]];
    if (!((b - a).cross(c - a).dot(f.normal) >= 0)) return "face not counter-clockwise seen from outside";
    const double scale = std::max(1.0, h.boundingRadius);
    for (int v : f.v)
      if (std::abs(f.normal.dot(h.vertices[v]) - f.offset) > tol * scale) return "face vertex off its plane";
    for (const Vec3& p : h.vertices)
      if (!(f.normal.dot(p) <= f.offset + tol)) return "a vertex outside a face plane";
    for (const Vec3& p : inputs)
      if (!(f.normal.dot(p) <= f.offset + tol)) return "an input point outside a face plane";
  }
  std::map<std::pair<int, int>, int> uses;
  for (const ConvexHull::Face& f : h.faces)
    for (int e = 0; e < 3; ++e) {
      const int i = f.v[e], j = f.v[(e + 1) % 3];
      ++uses[{std::min(i, j), std::max(i, j)}];
    }
  for (const auto& [edge, n] : uses)
    if (n != 2) return "a triangle edge not shared by exactly two triangles";
  if (nv - int(uses.size()) + int(h.faces.size()) != 2) return "V - E + F != 2";
  for (const auto& e : h.edges)
    if (!uses.count({std::min(e[0], e[1]), std::max(e[0], e[1])})) return "an edge that is no triangle edge";
  double r = 0;
  for (const Vec3& v : h.vertices) r = std::max(r, v.norm());
  if (r != h.boundingRadius) return "bounding radius";
  return "";
}

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }
bool nearMat(const Mat3& a, const Mat3& b, double rel) { return (a - b).norm() <= rel * b.norm(); }

const double kPhi = (1 + std::sqrt(5.0)) / 2;

std::vector<Vec3> icosahedronVertices() {
  MeshData m;
  MeshFileError e;
  if (!readMeshFile(test::modelPath("meshes/icosahedron.obj"), m, e)) qFatal("icosahedron.obj: %s", e.format().c_str());
  return m.vertices;
}

// Runs f with file descriptors 1 and 2 redirected to a temporary file; returns what was written.
template <class F>
std::string captureOutput(F&& f) {
  std::fflush(stdout);
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  const int out = dup(1), err = dup(2);
  dup2(fileno(tmp), 1);
  dup2(fileno(tmp), 2);
  f();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(out, 1);
  dup2(err, 2);
  close(out);
  close(err);
  std::rewind(tmp);
  std::string text;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) text.append(buf, n);
  std::fclose(tmp);
  return text;
}

}  // namespace

class TestConvexHull : public QObject {
  Q_OBJECT
 private slots:
  void cubeWithInteriorAndDuplicatePoints();
  void icosahedron();
  void prismEdgesLeaveOutDiagonals();
  void randomPointClouds();
  void massPropertiesMatchClosedForms();
  void degenerateInputsSayWhy();
  void pointsInsideCountsOnlyInteriorPoints();
  void qhullPrintsNothing();
  void rockHullTime();
  void largeHullsAreSimplified();
};

void TestConvexHull::cubeWithInteriorAndDuplicatePoints() {
  // A 2 × 1 × 0.5 box about (1, 2, 3), with its corners twice, interior points, and points in the
  // middle of faces and edges: 8 vertices, 12 triangles, 12 edges.
  const Vec3 c(1, 2, 3), half(1, 0.5, 0.25);
  std::vector<Vec3> pts;
  for (int k = 0; k < 8; ++k) pts.push_back(c + Vec3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1).cwiseProduct(half));
  for (int k = 0; k < 8; ++k) pts.push_back(pts[k]);  // duplicates
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 50; ++k) pts.push_back(c + 0.9 * Vec3(u(rng), u(rng), u(rng)).cwiseProduct(half));  // interior
  for (int k = 0; k < 12; ++k) {
    Vec3 p(u(rng), u(rng), u(rng));
    p(k % 3) = k % 2 ? 1 : -1;                             // on a face
    pts.push_back(c + p.cwiseProduct(half));
    p((k + 1) % 3) = k % 4 < 2 ? 1 : -1;                   // on an edge
    pts.push_back(c + p.cwiseProduct(half));
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  ConvexHull h;
  std::string why;
  QVERIFY2(buildConvexHull(pts, h, why), why.c_str());
  QCOMPARE(int(h.vertices.size()), 8);
  QCOMPARE(int(h.faces.size()), 12);
  QCOMPARE(int(h.edges.size()), 12);
  // Every face normal outward: all vertices satisfy n·p ≤ offset + 1e-12; the normals are the six
  // axis directions, two triangles each.
  for (const ConvexHull::Face& f : h.faces)
    for (const Vec3& p : h.vertices) QVERIFY(f.normal.dot(p) <= f.offset + 1e-12);
  std::map<std::tuple<int, int, int>, int> normals;
  for (const ConvexHull::Face& f : h.faces) {
    const Vec3 n = f.normal;
    QVERIFY((n.cwiseAbs() - Vec3(std::round(std::abs(n.x())), std::round(std::abs(n.y())), std::round(std::abs(n.z())))).norm() < 1e-14);
    ++normals[{int(std::round(n.x())), int(std::round(n.y())), int(std::round(n.z()))}];
    const int axis = std::abs(n.x()) > 0.5 ? 0 : std::abs(n.y()) > 0.5 ? 1 : 2;
    QVERIFY(std::abs(f.offset - (n(axis) * c(axis) + half(axis))) < 1e-14);
  }
  QCOMPARE(int(normals.size()), 6);
  for (const auto& [n, count] : normals) QCOMPARE(count, 2);
  // The vertices are the corners (exactly the input coordinates); the edges join corners that
  // differ in one coordinate (no face diagonals).
  for (const Vec3& v : h.vertices) QVERIFY(((v - c).cwiseAbs() - half).norm() == 0);
  for (const auto& e : h.edges) {
    const Vec3 d = (h.vertices[e[0]] - h.vertices[e[1]]).cwiseAbs();
    QCOMPARE(int((d.array() > 0).count()), 1);
  }
  QCOMPARE(hullProblem(h, pts, 1e-12), std::string());
  QCOMPARE(h.boundingRadius, (c + half).norm());
}

void TestConvexHull::icosahedron() {
  const std::vector<Vec3> v = icosahedronVertices();
  ConvexHull h;
  std::string why;
  QVERIFY2(buildConvexHull(v, h, why), why.c_str());
  QCOMPARE(int(h.vertices.size()), 12);
  QCOMPARE(int(h.faces.size()), 20);
  QCOMPARE(int(h.edges.size()), 30);
  QCOMPARE(hullProblem(h, v, 1e-12), std::string());
  // Unit circumradius, every edge 1/sin(2π/5) long, every face at the inradius φ²a/(2√3).
  const double a = 1 / std::sin(2 * kPi / 5);
  for (const Vec3& p : h.vertices) QVERIFY(std::abs(p.norm() - 1) < 1e-15);
  for (const auto& e : h.edges) QVERIFY(std::abs((h.vertices[e[0]] - h.vertices[e[1]]).norm() - a) < 1e-14);
  for (const ConvexHull::Face& f : h.faces) QVERIFY(std::abs(f.offset - kPhi * kPhi * a / (2 * std::sqrt(3.0))) < 1e-14);
  QVERIFY(std::abs(h.boundingRadius - 1) < 1e-15);
}

void TestConvexHull::prismEdgesLeaveOutDiagonals() {
  // A regular hexagonal prism, turned: each hexagon is triangulated into 4 triangles whose 3
  // diagonals are not edges; each rectangle side into 2. 12 vertices, 8 + 12 = 20 triangles, 18 edges.
  const Mat3 R = Eigen::AngleAxisd(0.9, Vec3(0.3, -1, 0.2).normalized()).toRotationMatrix();
  std::vector<Vec3> pts;
  for (int k = 0; k < 6; ++k)
    for (double z : {-0.3, 0.3}) pts.push_back(R * Vec3(std::cos(k * kPi / 3), std::sin(k * kPi / 3), z));
  ConvexHull h;
  std::string why;
  QVERIFY2(buildConvexHull(pts, h, why), why.c_str());
  QCOMPARE(int(h.vertices.size()), 12);
  QCOMPARE(int(h.faces.size()), 20);
  QCOMPARE(int(h.edges.size()), 18);
  for (const auto& e : h.edges) {
    const double length = (h.vertices[e[0]] - h.vertices[e[1]]).norm();
    QVERIFY2(std::abs(length - 1) < 1e-12 || std::abs(length - 0.6) < 1e-12, "an edge that is a diagonal");
  }
  QCOMPARE(hullProblem(h, pts, 1e-12), std::string());
}

void TestConvexHull::randomPointClouds() {
  // Gaussian clouds, uniform boxes (4 to 20000 points) and points on spheres (up to 2000), three scales and
  // offsets: every input point inside or on the hull within 1e-12 (relative to the cloud's size),
  // a closed triangulated surface with V − E + F = 2, unit outward faces.
  std::mt19937 rng(2024);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(-1, 1);
  int clouds = 0, maxVertices = 0;
  for (int n : {4, 5, 8, 20, 100, 1000, 20000})
    for (int kind = 0; kind < 3; ++kind)
      for (double scale : {1e-3, 1.0, 50.0}) {
        if (kind == 2 && n > 2000) continue;  // every point of a sphere is a vertex: the checks are O(V·F)
        const Vec3 offset = scale * Vec3(u(rng), u(rng), u(rng)) * 3;
        std::vector<Vec3> pts;
        for (int k = 0; k < n; ++k) {
          Vec3 p = kind == 0 ? Vec3(g(rng), g(rng), g(rng)) : Vec3(u(rng), u(rng), u(rng));
          if (kind == 2) p.normalize();
          pts.push_back(offset + scale * p);
        }
        ConvexHull h;
        std::string why;
        QVERIFY2(buildConvexHull(pts, h, why), why.c_str());
        const std::string problem = hullProblem(h, pts, 1e-12 * std::max(1.0, scale));
        QVERIFY2(problem.empty(), (problem + " (n = " + std::to_string(n) + ", kind " + std::to_string(kind) + ")").c_str());
        QVERIFY(h.vertices.size() >= 4 && h.vertices.size() <= pts.size());
        // Every hull vertex is one of the input points.
        for (const Vec3& v : h.vertices) QVERIFY(std::find(pts.begin(), pts.end(), v) != pts.end());
        maxVertices = std::max(maxVertices, int(h.vertices.size()));
        ++clouds;
      }
  qInfo("%d random clouds, up to %d hull vertices: closed, Euler characteristic 2, every point inside", clouds, maxVertices);
}

void TestConvexHull::massPropertiesMatchClosedForms() {
  // Box a × b × c about a centre: volume abc, inertia per density abc·diag(b²+c², a²+c², a²+b²)/12;
  // turned by a rotation R: R I Rᵀ.
  {
    const Vec3 e(0.3, 0.5, 0.7), c(-1, 2, 0.5);
    const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
    std::vector<Vec3> pts;
    for (int k = 0; k < 8; ++k) pts.push_back(c + R * Vec3(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5).cwiseProduct(e));
    ConvexHull h;
    std::string why;
    QVERIFY(buildConvexHull(pts, h, why));
    const HullMassProperties m = hullMassProperties(h);
    const double V = e.prod();
    const Mat3 I = R * Mat3(Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(), e.x() * e.x() + e.y() * e.y()).asDiagonal()) *
                   R.transpose() * (V / 12);
    QVERIFY(near(m.volume, V, 1e-12));
    QVERIFY((m.centroid - c).norm() <= 1e-12 * c.norm());
    QVERIFY2(nearMat(m.inertiaPerDensity, I, 1e-12), "box inertia");
  }
  // Cube of side 2 (the brief's cube): volume 8, inertia 8·(4+4)/12 = 16/3 about each axis.
  {
    std::vector<Vec3> pts;
    for (int k = 0; k < 8; ++k) pts.push_back(Vec3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1));
    ConvexHull h;
    std::string why;
    QVERIFY(buildConvexHull(pts, h, why));
    const HullMassProperties m = hullMassProperties(h);
    QVERIFY(near(m.volume, 8, 1e-12));
    QVERIFY(m.centroid.norm() < 1e-15);
    QVERIFY(nearMat(m.inertiaPerDensity, Mat3::Identity() * 16.0 / 3.0, 1e-12));
  }
  // Regular tetrahedron of edge a (turned and moved): volume a³/(6√2), inertia isotropic, m a²/20.
  {
    const double a = 0.37;
    const Mat3 R = Eigen::AngleAxisd(1.1, Vec3(-1, 0.5, 2).normalized()).toRotationMatrix();
    const Vec3 c(0.2, -0.3, 4);
    const double s = a / (2 * std::sqrt(2.0));  // vertices (±1, ±1, ±1) with an even number of minus signs, times s
    std::vector<Vec3> pts = {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)};
    for (Vec3& p : pts) p = c + R * (s * p);
    ConvexHull h;
    std::string why;
    QVERIFY(buildConvexHull(pts, h, why));
    QCOMPARE(int(h.faces.size()), 4);
    QCOMPARE(int(h.edges.size()), 6);
    const HullMassProperties m = hullMassProperties(h);
    const double V = a * a * a / (6 * std::sqrt(2.0));
    QVERIFY(near(m.volume, V, 1e-12));
    QVERIFY((m.centroid - c).norm() <= 1e-12 * c.norm());
    QVERIFY2(nearMat(m.inertiaPerDensity, Mat3::Identity() * V * a * a / 20, 1e-12), "tetrahedron inertia");
  }
  // Regular icosahedron of edge a: volume 5(3+√5)a³/12; inertia isotropic m·(2/5)(h² + a²/12), h the
  // inradius φ²a/(2√3) (20 pyramids from the centre: ∫|x|² = (h/5)·A(h² + a²/12) each).
  {
    const std::vector<Vec3> pts = icosahedronVertices();
    ConvexHull h;
    std::string why;
    QVERIFY(buildConvexHull(pts, h, why));
    const HullMassProperties m = hullMassProperties(h);
    const double a = 1 / std::sin(2 * kPi / 5), inradius = kPhi * kPhi * a / (2 * std::sqrt(3.0));
    const double V = 5 * (3 + std::sqrt(5.0)) * a * a * a / 12;
    QVERIFY(near(m.volume, V, 1e-12));
    QVERIFY(m.centroid.norm() < 1e-15);
    QVERIFY2(nearMat(m.inertiaPerDensity, Mat3::Identity() * V * 0.4 * (inradius * inradius + a * a / 12), 1e-12),
             "icosahedron inertia");
  }
}

void TestConvexHull::degenerateInputsSayWhy() {
  const auto why = [](const std::vector<Vec3>& pts) {
    ConvexHull h;
    std::string w;
    h.vertices.push_back(Vec3::Ones());  // cleared on failure too
    if (buildConvexHull(pts, h, w)) return std::string("(built)");
    if (!h.vertices.empty() || !h.faces.empty()) return std::string("(output not cleared)");
    return w;
  };
  QCOMPARE(why({}), std::string("fewer than 4 points"));
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}), std::string("fewer than 4 points"));
  QCOMPARE(why(std::vector<Vec3>(10, Vec3(1, 2, 3))), std::string("all points coincide"));
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(2, 2, 2), Vec3(-3, -3, -3), Vec3(0.5, 0.5, 0.5)}),
           std::string("all points lie on a line"));
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0), Vec3(0.3, 0.2, 0)}),
           std::string("all points lie in a plane"));
  // A tilted plane, and a slab thinner than kHullFlatTolerance of its size, count as a plane.
  const Mat3 R = Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()).toRotationMatrix();
  QCOMPARE(why({R * Vec3(0, 0, 0), R * Vec3(1, 0, 0), R * Vec3(0, 1, 0), R * Vec3(1, 1, 0)}),
           std::string("all points lie in a plane"));
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1e-10)}), std::string("all points lie in a plane"));
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, NAN)}), std::string("a point is not finite"));
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, INFINITY)}), std::string("a point is not finite"));
  // Just thicker than the tolerance: a (thin) solid.
  QCOMPARE(why({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1e-8)}), std::string("(built)"));
}

void TestConvexHull::pointsInsideCountsOnlyInteriorPoints() {
  std::vector<Vec3> cube;
  for (int k = 0; k < 8; ++k) cube.push_back(Vec3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1));
  ConvexHull h;
  std::string why;
  QVERIFY(buildConvexHull(cube, h, why));
  QCOMPARE(pointsInsideHull(h, cube, 1e-9), 0);  // its own vertices: on it
  const std::vector<Vec3> probes = {Vec3(0, 0, 0),      Vec3(0.99, 0.5, 0),  // inside
                                    Vec3(1, 0, 0),      Vec3(1, 1, 0.3),     // on a face, on an edge
                                    Vec3(1 - 1e-12, 0, 0),                   // inside by less than the tolerance
                                    Vec3(1.5, 0, 0),    Vec3(2, 2, 2)};      // outside
  QCOMPARE(pointsInsideHull(h, probes, 1e-9), 2);
  QCOMPARE(pointsInsideHull(h, probes, 0.0), 3);
  QCOMPARE(pointsInsideHull(h, probes, 0.5), 1);  // only the centre is more than 0.5 inside
  QCOMPARE(pointsInsideHull(ConvexHull(), probes, 0.0), 0);
}

void TestConvexHull::qhullPrintsNothing() {
  // Thin slabs, coplanar and duplicate points make Qhull merge facets and note precision issues;
  // none of it may reach stdout or stderr.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  int built = 0;
  const std::string out = captureOutput([&] {
    for (double thickness : {1e-8, 1e-6, 1e-3}) {
      std::vector<Vec3> pts;
      for (int k = 0; k < 200; ++k) pts.push_back(Vec3(u(rng), u(rng), thickness * u(rng)));
      for (int k = 0; k < 20; ++k) pts.push_back(pts[k]);
      ConvexHull h;
      std::string why;
      built += buildConvexHull(pts, h, why) ? 1 : 0;
    }
    std::vector<Vec3> grid;
    for (int i = 0; i <= 6; ++i)
      for (int j = 0; j <= 6; ++j)
        for (int k = 0; k <= 6; ++k) grid.push_back(Vec3(i, j, k) / 6.0);
    ConvexHull h;
    std::string why;
    built += buildConvexHull(grid, h, why) ? 1 : 0;
  });
  QCOMPARE(built, 4);
  QVERIFY2(out.empty(), ("printed: " + out).c_str());
}

void TestConvexHull::rockHullTime() {
  // The gallery's rock (models/meshes/rock.obj, 17 vertices): its hull is itself, and it is built
  // in (measured, printed) microseconds.
  MeshData m;
  MeshFileError e;
  QVERIFY2(readMeshFile(test::modelPath("meshes/rock.obj"), m, e), e.format().c_str());
  ConvexHull h;
  std::string why;
  QVERIFY(buildConvexHull(m.vertices, h, why));
  QCOMPARE(h.vertices.size(), m.vertices.size());
  QCOMPARE(h.faces.size(), m.triangles.size());
  QCOMPARE(hullProblem(h, m.vertices, 1e-12), std::string());
  QCOMPARE(pointsInsideHull(h, m.vertices, 1e-9 * h.boundingRadius), 0);
  const int runs = 2000;
  std::vector<double> us;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    buildConvexHull(m.vertices, h, why);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  const HullMassProperties mp = hullMassProperties(h);
  qInfo("rock.obj: %d vertices, %d triangles, %d edges, volume %.4g m^3, centroid %.2g m from the origin; "
        "buildConvexHull median %.1f us, min %.1f us over %d runs",
        int(h.vertices.size()), int(h.faces.size()), int(h.edges.size()), mp.volume, mp.centroid.norm(), us[runs / 2],
        us[0], runs);
  QVERIFY(mp.centroid.norm() < 1e-6);
}

void TestConvexHull::largeHullsAreSimplified() {
  // Points on a unit sphere (40 … 5000) and an elongated Gaussian cloud: the simplified hull has at
  // most kMaxHullVertices vertices, all input points, is a valid hull, and every input point is within
  // `outside` of its face planes; `outside` shrinks as the limit grows. A hull already small enough is
  // the full hull (outside 0).
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (int n : {40, 500, 5000})
    for (int kind = 0; kind < 2; ++kind) {
      std::vector<Vec3> pts;
      for (int k = 0; k < n; ++k) {
        const Vec3 p(g(rng), g(rng), g(rng));
        pts.push_back(kind == 0 ? Vec3(p.normalized()) : Vec3(p.cwiseProduct(Vec3(0.05, 0.2, 1.0))));
      }
      ConvexHull full;
      std::string why;
      QVERIFY2(buildConvexHull(pts, full, why), why.c_str());
      double previous = 1e300;
      for (int limit : {8, kMaxHullVertices, 64}) {
        ConvexHull h;
        double outside = -1;
        QVERIFY2(buildSimplifiedHull(pts, limit, h, outside, why), why.c_str());
        QVERIFY(int(h.vertices.size()) <= limit && h.vertices.size() >= 4);
        QCOMPARE(hullProblem(h, {}, 1e-12), std::string());
        for (const Vec3& v : h.vertices) QVERIFY(std::find(pts.begin(), pts.end(), v) != pts.end());
        double measured = 0;
        for (const Vec3& p : pts)
          for (const ConvexHull::Face& f : h.faces) measured = std::max(measured, f.normal.dot(p) - f.offset);
        QCOMPARE(outside, measured);
        if (int(full.vertices.size()) <= limit) {
          QCOMPARE(h.vertices.size(), full.vertices.size());
          QCOMPARE(outside, 0.0);
        } else {
          QVERIFY(outside > 0);
        }
        // The farthest-first choice keeps the error a small part of the size (the largest extent).
        Vec3 lo = pts[0], hi = pts[0];
        for (const Vec3& p : pts) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
        const double size = (hi - lo).maxCoeff();
        qInfo("%d %s points: full hull %d vertices, at most %d: %d, points up to %.3g of the size beyond it", n,
              kind == 0 ? "sphere" : "cloud", int(full.vertices.size()), limit, int(h.vertices.size()), outside / size);
        QVERIFY2(outside < (limit == 8 ? 0.35 : limit == 32 ? 0.12 : 0.08) * size, std::to_string(outside / size).c_str());
        QVERIFY(outside <= previous);
        previous = outside;
      }
    }
}

QTEST_APPLESS_MAIN(TestConvexHull)
#include "tst_convex_hull.moc"
