// SPDX-License-Identifier: GPL-3.0-or-later
// Contact candidates of every pair of collision shapes (contact_geometry.h, "Every pair of shapes"):
// Brüdigam et al. 2023 §2 and §3.3 — each candidate is a signed distance φ(z_A, z_B) with its
// gradient ∂φ/∂(x, θ) of both bodies, imposed as φ(z₂) ≥ 0 at the next configuration (24b).
// Layouts are fixed per pair of kinds, so that a contact group keeps its candidates (graph nodes) for
// the whole simulation. Separating axes of polytopes and the Gauss-map pruning of edge pairs:
// D. Gregorius, "The separating axis test between convex polyhedra", GDC 2013.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/math/tools/minima.hpp>

#include "contact/contact_geometry.h"
#include "contact/geometry_internal.h"
#include "core/check.h"

namespace ms::contact {
namespace {

using K = ContactShape::Kind;

// φ of a side–side candidate of two cylinders whose axes' closest points leave the segments: far
// (the rims hold that contact), finite so that the interior point's residual stays finite.
constexpr double kFarGap = 1e3;
// Face manifold (contact_geometry.h, PairFeatures): a vertex whose projection lies within this
// distance [m] outside the chosen face still counts as over it; a vertex deeper than kActivationDepth
// [m] below the face plane at the choice is left to the signed-distance candidate.
constexpr double kFaceMargin = 1e-4;
constexpr double kActivationDepth = 1e-3;
// A face of B becomes the reference only if it separates better than A's best by this much [m].
constexpr double kReferenceTolerance = 1e-9;
// Iteration cap of Brent's method (it converges in ~10–40 evaluations to √ε of the interval).
constexpr std::uintmax_t kBrentIterations = 200;

bool isRound(K k) { return k == K::Sphere || k == K::Capsule; }
bool isPolytope(K k) { return k == K::Box || k == K::Convex; }

int vertexCount(const ContactShape& s) {
  return s.kind == K::Box ? 8 : int(s.convex->hull.vertices.size());
}

// Candidates of a shape against a plane (shapePlane's layouts).
int planeCount(const ContactShape& s) {
  switch (s.kind) {
    case K::Sphere: return 1;
    case K::Capsule: return 2;
    case K::Box: return 8;
    case K::Cylinder: return 10;
    case K::Plane: return 0;
    case K::Convex: return int(s.convex->hull.vertices.size());
  }
  return 0;
}

// A shape on its body at a pose.
struct Side {
  const ContactShape* s;
  const BodyPose* z;
  Placed pl;
};
Side sideOf(const ContactShape& s, const BodyPose& z) { return {&s, &z, place(s, z)}; }

// Candidate: point p, material on `owner` (a swept sphere of radius r around it), against the shape
// of `shape`: φ = sdf(p) − r, n = the shape's outward normal. The contact is built with `shape` as A
// and swapped when `shape` is B of the pair.
void pointAgainst(const Side& shape, const Side& owner, const Vec3& p, double r, bool shapeIsA, Contact& c) {
  const SurfacePoint sp = signedDistance(*shape.s, shape.pl, p);
  c.normal = sp.normal;
  c.phi = sp.phi - r;
  c.pointA = sp.point;
  c.pointB = p - r * sp.normal;
  finish(c, shape.z, &shape.pl.Q, *owner.z, owner.pl.Q);
  if (!shapeIsA) swapBodies(c);
}

// Minimum of f on [lo, hi] by Brent's method, then made stationary to rounding by secant steps on
// its derivative g = f′ (Brent locates a minimum only to √ε of the interval, and the candidate's
// gradient is exact only at a stationary point: its error is ∂²φ/∂t∂z times the error in t, with
// ∂²φ/∂t∂z ~ 1/distance near a rim). With `ends`, the interval's ends are compared exactly (a distance
// that falls along the whole interval has its minimum at an end); without, f is periodic on [lo, hi].
template <class F, class G>
double argMin(F f, G g, double lo, double hi, bool ends = true) {
  std::uintmax_t iterations = kBrentIterations;
  const auto r = boost::math::tools::brent_find_minima(f, lo, hi, std::numeric_limits<double>::digits / 2, iterations);
  double t = r.first, best = r.second;
  // Secant steps on g from t and a point √ε·(hi − lo) beside it, kept while |g| shrinks.
  double t0 = t + 1.5e-8 * (hi - lo), g0 = g(t0), g1 = g(t);
  for (int k = 0; k < 4 && g1 != 0.0 && g1 != g0; ++k) {
    const double t2 = t - g1 * (t - t0) / (g1 - g0);
    if (!(t2 > lo && t2 < hi)) break;
    const double g2 = g(t2);
    if (!(std::abs(g2) < std::abs(g1))) break;
    t0 = t, g0 = g1, t = t2, g1 = g2;
  }
  if (!ends) return t;
  best = f(t);
  const double flo = f(lo), fhi = f(hi);
  if (flo <= best) t = lo, best = flo;
  if (fhi < best) t = hi;
  return t;
}

// The point of segment p0 + t (p1 − p0), t ∈ [0, 1], of least signed distance to `shape` (the
// distance to a convex shape is convex along a segment, so the minimum is global).
Vec3 nearestOnSegment(const Side& shape, const Vec3& p0, const Vec3& p1) {
  const Vec3 d = p1 - p0;
  const double t = argMin([&](double s) { return signedDistance(*shape.s, shape.pl, p0 + s * d).phi; },
                          [&](double s) { return signedDistance(*shape.s, shape.pl, p0 + s * d).normal.dot(d); }, 0.0, 1.0);
  return p0 + t * d;
}

// ---- Cylinder rim points (cylinderPlane's layout: [0], [1] the rim point of each disc nearest to
// the other shape, then 4 fixed rim points per disc at ±u, ±v). `angles` (one per disc, in the
// cylinder's frame) centre the search for the nearest rim point: chosen here when `choose` (the best
// of 8 angles from the direction away from the other shape's outward normal at the disc centre; NaN
// for a disc lying flat on it), else kept; then Brent within ±π/4 of it.
void cylinderPoints(const Side& cyl, const Side& other, Vec3 (&pts)[10], double* angles, bool choose) {
  const ContactShape& s = *cyl.s;
  const Vec3 a = cyl.pl.Rs.col(2), u = cyl.pl.Rs.col(0), v = cyl.pl.Rs.col(1);
  const double r = s.radius;
  for (int e = 0; e < 2; ++e) {
    const Vec3 centre = cyl.pl.o + (e == 0 ? 1.0 : -1.0) * s.halfLength * a;
    const auto rim = [&](double ang) { return Vec3(centre + r * (std::cos(ang) * u + std::sin(ang) * v)); };
    const auto f = [&](double t) { return signedDistance(*other.s, other.pl, rim(t)).phi; };
    if (choose) {
      const Vec3 n = signedDistance(*other.s, other.pl, centre).normal;
      const double nu = n.dot(u), nv = n.dot(v);
      double best = std::numeric_limits<double>::quiet_NaN();
      if (std::hypot(nu, nv) > 1e-12) {
        const double a0 = std::atan2(-nv, -nu);
        double fbest = f(a0);
        best = a0;
        for (int k = 1; k < 8; ++k) {
          const double ak = a0 + k * 0.25 * kPi, fa = f(ak);
          if (fa < fbest) best = ak, fbest = fa;
        }
      }
      angles[e] = best;
    }
    Vec3 p = centre + r * u;
    if (!std::isnan(angles[e])) {
      const double ang = argMin(
          f,
          [&](double t) {
            return r * signedDistance(*other.s, other.pl, rim(t)).normal.dot(-std::sin(t) * u + std::cos(t) * v);
          },
          angles[e] - 0.25 * kPi, angles[e] + 0.25 * kPi, false);
      p = rim(ang);
    }
    pts[e] = p;
    const Vec3 fixed[4] = {u, -u, v, -v};
    for (int k = 0; k < 4; ++k) pts[2 + 4 * e + k] = centre + r * fixed[k];
  }
}

// ---- Polytopes in the world (box: 8 corners, 6 faces, 12 edges; hull: its tables).
constexpr int kMaxFaces = 2 * kMaxHullVertices;
constexpr int kMaxEdges = 3 * kMaxHullVertices;
struct Poly {
  int nv = 0, nf = 0, ne = 0;
  Vec3 v[kMaxHullVertices];
  Vec3 fn[kMaxFaces];
  double fo[kMaxFaces];
  int ea[kMaxEdges], eb[kMaxEdges];
  Vec3 n1[kMaxEdges], n2[kMaxEdges];
  Vec3 centroid;
};

Vec3 boxCorner(const Vec3& h, int k) {
  return Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z());
}

void polyOf(const Side& side, Poly& p) {
  const ContactShape& s = *side.s;
  const Mat3& R = side.pl.Rs;
  const Vec3& o = side.pl.o;
  if (s.kind == K::Box) {
    const Vec3& h = s.halfExtents;
    p.nv = 8;
    for (int k = 0; k < 8; ++k) p.v[k] = o + R * boxCorner(h, k);
    p.nf = 6;
    for (int i = 0; i < 3; ++i)
      for (int sg = 0; sg < 2; ++sg) {
        const Vec3 n = (sg == 0 ? 1.0 : -1.0) * R.col(i);
        p.fn[2 * i + sg] = n;
        p.fo[2 * i + sg] = h(i) + n.dot(o);
      }
    // Edges along axis i at the signs (sj, sk) of the other two axes; their faces ±e_j, ±e_k.
    p.ne = 0;
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      for (int sj = 0; sj < 2; ++sj)
        for (int sk = 0; sk < 2; ++sk) {
          int c0 = 0;
          if (sj) c0 |= 1 << j;
          if (sk) c0 |= 1 << k;
          p.ea[p.ne] = c0;
          p.eb[p.ne] = c0 | (1 << i);
          p.n1[p.ne] = (sj ? 1.0 : -1.0) * R.col(j);
          p.n2[p.ne] = (sk ? 1.0 : -1.0) * R.col(k);
          ++p.ne;
        }
    }
    p.centroid = o;
    return;
  }
  const ConvexShape& cs = *s.convex;
  p.nv = int(cs.hull.vertices.size());
  Vec3 sum = Vec3::Zero();
  for (int k = 0; k < p.nv; ++k) {
    p.v[k] = o + R * cs.hull.vertices[k];
    sum += p.v[k];
  }
  p.centroid = sum / p.nv;
  p.nf = int(cs.hull.faces.size());
  for (int f = 0; f < p.nf; ++f) {
    p.fn[f] = R * cs.hull.faces[f].normal;
    p.fo[f] = cs.hull.faces[f].offset + p.fn[f].dot(o);
  }
  p.ne = int(cs.edges.size());
  for (int e = 0; e < p.ne; ++e) {
    p.ea[e] = cs.edges[e].a;
    p.eb[e] = cs.edges[e].b;
    p.n1[e] = R * cs.edges[e].n1;
    p.n2[e] = R * cs.edges[e].n2;
  }
}

// Do the arcs a→b (edge of A) and c→d (edge of B, normals negated) cross on the Gauss map, i.e. do
// the two edges form a face of the Minkowski difference (Gregorius 2013)?
bool minkowskiFace(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 bxa = b.cross(a), dxc = d.cross(c);
  const double cba = c.dot(bxa), dba = d.dot(bxa), adc = a.dot(dxc), bdc = b.dot(dxc);
  return cba * dba < 0 && adc * bdc < 0 && cba * bdc > 0;
}

// Closest points of segments p0p1 and q0q1 (Ericson §5.1.9); `interior` when both lie strictly
// inside their segments and the segments are not parallel.
void segmentPoints(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1, Vec3& pa, Vec3& pb, bool& interior) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r), c = d1.dot(r), b = d1.dot(d2);
  const double denom = a * e - b * b;
  double s = 0, t = 0;
  interior = false;
  if (denom > kParallelSin2 * a * e) s = std::clamp((b * f - c * e) / denom, 0.0, 1.0);
  t = (b * s + f) / e;
  if (t < 0) t = 0, s = std::clamp(-c / a, 0.0, 1.0);
  else if (t > 1) t = 1, s = std::clamp((b - c) / a, 0.0, 1.0);
  else interior = denom > kParallelSin2 * a * e && s > 0 && s < 1 && t > 0 && t < 1;
  pa = p0 + s * d1;
  pb = q0 + t * d2;
}

// The two polytopes' signed distance (layout slot "+1"): separated or touching, the least of the
// vertices' distances to the other polytope and of the edge–edge distances; overlapping,
// the largest separating-axis gap. Witness points make p_B − p_A ∥ n, so that the material-point
// gradients are exact.
// The separating axis test: the best face of A (its gap, min over B's vertices of n·v − o, and that
// vertex), the best face of B, and the best edge pair that forms a face of the Minkowski difference
// (its gap and axis, oriented out of A).
struct SatResult {
  double gapA = -std::numeric_limits<double>::infinity(), gapB = gapA, gapE = gapA;
  int faceA = 0, vertexB = 0, faceB = 0, vertexA = 0, edgeA = -1, edgeB = -1;
  Vec3 axis = Vec3::UnitZ();
};
SatResult separatingAxes(const Poly& A, const Poly& B) {
  SatResult r;
  // The faces of R against the vertices of I: the best gap, its face and I's deepest vertex.
  auto faces = [](const Poly& R, const Poly& I, double& gap, int& face, int& vertex) {
    for (int f = 0; f < R.nf; ++f) {
      int arg = 0;
      double m = std::numeric_limits<double>::infinity();
      for (int k = 0; k < I.nv; ++k) {
        const double d = R.fn[f].dot(I.v[k]);
        if (d < m) m = d, arg = k;
      }
      if (m - R.fo[f] > gap) gap = m - R.fo[f], face = f, vertex = arg;
    }
  };
  faces(A, B, r.gapA, r.faceA, r.vertexB);
  faces(B, A, r.gapB, r.faceB, r.vertexA);
  for (int i = 0; i < A.ne; ++i) {
    const Vec3 pA = A.v[A.ea[i]], dA = A.v[A.eb[i]] - pA;
    for (int j = 0; j < B.ne; ++j) {
      if (!minkowskiFace(A.n1[i], A.n2[i], -B.n1[j], -B.n2[j])) continue;
      const Vec3 pB = B.v[B.ea[j]], dB = B.v[B.eb[j]] - pB;
      Vec3 n = dA.cross(dB);
      const double len2 = n.squaredNorm();
      if (!(len2 > kParallelSin2 * dA.squaredNorm() * dB.squaredNorm())) continue;
      n /= std::sqrt(len2);
      if (n.dot(pA - A.centroid) < 0) n = -n;
      const double gap = n.dot(pB - pA);
      if (gap > r.gapE) r.gapE = gap, r.edgeA = i, r.edgeB = j, r.axis = n;
    }
  }
  return r;
}

// Edge i of A against edge j of B along the axis n = ±(d_A × d_B) (sign: out of A, `flip`): the
// closest points of the two lines, φ = n·(p_B − p_A) (p_B − p_A ∥ n, so the material-point gradients
// are exact; smooth while the edges are not parallel).
void edgePair(const Side& sa, const Poly& A, int i, const Side& sb, const Poly& B, int j, bool flip, Contact& c) {
  const Vec3 p0 = A.v[A.ea[i]], d1 = A.v[A.eb[i]] - p0;
  const Vec3 q0 = B.v[B.ea[j]], d2 = B.v[B.eb[j]] - q0;
  const Vec3 r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), b = d1.dot(d2), cc = d1.dot(r), f = d2.dot(r);
  const double denom = a * e - b * b;
  const double s = (b * f - cc * e) / denom, t = (a * f - b * cc) / denom;
  c.normal = d1.cross(d2).normalized();
  if (flip) c.normal = -c.normal;
  c.pointA = p0 + s * d1;
  c.pointB = q0 + t * d2;
  c.phi = c.normal.dot(c.pointB - c.pointA);
  finish(c, sa.z, &sa.pl.Q, *sb.z, sb.pl.Q);
}

// Whether the edge axis of a SAT result points along d_A × d_B (false) or against it (true).
bool edgeAxisFlipped(const Poly& A, const Poly& B, const SatResult& r) {
  const Vec3 d1 = A.v[A.eb[r.edgeA]] - A.v[A.ea[r.edgeA]], d2 = B.v[B.eb[r.edgeB]] - B.v[B.ea[r.edgeB]];
  return d1.cross(d2).dot(r.axis) < 0;
}

void polytopeDistance(const Side& sa, const Poly& A, const Side& sb, const Poly& B, Contact& c) {
  const SatResult sat = separatingAxes(A, B);
  double best = sat.gapA;
  int type = 0, which = sat.faceA, deep = sat.vertexB;
  Vec3 wa = Vec3::Zero(), wb = Vec3::Zero();
  if (sat.gapB > best) best = sat.gapB, type = 1, which = sat.faceB, deep = sat.vertexA;
  if (sat.gapE > best) best = sat.gapE, type = 2, which = sat.edgeA, deep = sat.edgeB;
  if (best < 0) {
    // Overlapping: the deepest point along the best axis.
    if (type == 0) {
      c.normal = A.fn[which];
      c.pointB = B.v[deep];
      c.phi = best;
      c.pointA = c.pointB - best * c.normal;
    } else if (type == 1) {
      c.normal = -B.fn[which];
      c.pointA = A.v[deep];
      c.phi = best;
      c.pointB = c.pointA + best * c.normal;
    } else {
      // The two edges' lines: their closest points differ along the axis.
      edgePair(sa, A, which, sb, B, deep, edgeAxisFlipped(A, B, sat), c);
      return;
    }
    finish(c, sa.z, &sa.pl.Q, *sb.z, sb.pl.Q);
    return;
  }
  // Separated (or touching): the vertex nearest to the other polytope…
  double near = std::numeric_limits<double>::infinity();
  for (int k = 0; k < B.nv; ++k) {
    const double d = signedDistance(*sa.s, sa.pl, B.v[k]).phi;
    if (d < near) near = d, which = k, type = 5;
  }
  for (int k = 0; k < A.nv; ++k) {
    const double d = signedDistance(*sb.s, sb.pl, A.v[k]).phi;
    if (d < near) near = d, which = k, type = 6;
  }
  if (type == 5) pointAgainst(sa, sb, B.v[which], 0.0, true, c);
  else pointAgainst(sb, sa, A.v[which], 0.0, false, c);
  // …unless an edge pair is nearer.
  double bestEdge = c.phi;
  bool haveEdge = false;
  for (int i = 0; i < A.ne; ++i)
    for (int j = 0; j < B.ne; ++j) {
      Vec3 pa, pb;
      bool interior;
      segmentPoints(A.v[A.ea[i]], A.v[A.eb[i]], B.v[B.ea[j]], B.v[B.eb[j]], pa, pb, interior);
      const double d = (pb - pa).norm();
      if (!(d < bestEdge)) continue;
      bestEdge = d;
      haveEdge = true;
      wa = pa;
      wb = pb;
      type = interior ? 3 : 4;
      which = i;
      deep = j;
    }
  if (!haveEdge) return;
  Vec3 n;
  const Vec3 diff = wb - wa;
  if (type == 3) {
    // Crossing edges: the normal of both edges (exact, where (p_B − p_A)/|p_B − p_A| would not be).
    n = (A.v[A.eb[which]] - A.v[A.ea[which]]).cross(B.v[B.eb[deep]] - B.v[B.ea[deep]]).normalized();
    if (diff.norm() > kTinyDistance ? n.dot(diff) < 0 : n.dot(B.centroid - A.centroid) < 0) n = -n;
  } else {
    n = diff.norm() > kTinyDistance ? Vec3(diff.normalized()) : Vec3((B.centroid - A.centroid).normalized());
  }
  c.normal = n;
  c.pointA = wa;
  c.pointB = wb;
  c.phi = n.dot(diff);
  finish(c, sa.z, &sa.pl.Q, *sb.z, sb.pl.Q);
}

// ---- Layouts. Each writes the candidates of (a on A, b on B) into out.

}  // namespace

void polytopeSignedDistance(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                            Contact& out) {
  MS_ASSERT(isPolytope(a.kind) && isPolytope(b.kind), "polytopeSignedDistance needs two boxes or hulls");
  const Side sa = sideOf(a, za), sb = sideOf(b, zb);
  Poly A, B;
  polyOf(sa, A);
  polyOf(sb, B);
  polytopeDistance(sa, A, sb, B, out);
}

namespace {

// Plane shape of A against shape b: b's plane candidates, with the plane moving with A.
void planeAgainst(const Side& plane, const Side& other, bool planeIsA, ContactSet& out) {
  const WorldPlane wp = planeFromShape(*plane.s, *plane.z);
  shapePlane(wp, *other.s, *other.z, out);
  for (int k = 0; k < out.count; ++k) {
    Contact& c = out.contacts[k];
    finish(c, plane.z, &plane.pl.Q, *other.z, other.pl.Q);
    if (!planeIsA) swapBodies(c);
  }
}

// Sphere or capsule `round` against a box, cylinder or hull.
void roundAgainst(const Side& round, const Side& other, bool roundIsA, ContactSet& out) {
  const ContactShape& s = *round.s;
  const double r = s.radius;
  if (s.kind == K::Sphere) {
    out.count = 1;
    pointAgainst(other, round, round.pl.o, r, !roundIsA, out.contacts[0]);
    return;
  }
  const Vec3 axis = round.pl.Rs.col(2);
  const Vec3 e0 = round.pl.o + s.halfLength * axis, e1 = round.pl.o - s.halfLength * axis;
  out.count = 3;
  pointAgainst(other, round, e0, r, !roundIsA, out.contacts[0]);
  pointAgainst(other, round, e1, r, !roundIsA, out.contacts[1]);
  pointAgainst(other, round, nearestOnSegment(other, e0, e1), r, !roundIsA, out.contacts[2]);
}

// Whether world point p projects into face f of polytope `side` (within `margin`): a box face's
// rectangle, or the planar polygon of a hull's coplanar triangles.
bool overFace(const Side& side, int f, const Vec3& p, double margin) {
  const ContactShape& s = *side.s;
  const Vec3 l = side.pl.Rs.transpose() * (p - side.pl.o);
  if (s.kind == K::Box) {
    const int axis = f / 2;
    for (int j = 0; j < 3; ++j)
      if (j != axis && std::abs(l(j)) > s.halfExtents(j) + margin) return false;
    return true;
  }
  const ConvexHull& h = s.convex->hull;
  const ConvexHull::Face& ref = h.faces[f];
  for (const ConvexHull::Face& t : h.faces) {
    if ((t.normal - ref.normal).squaredNorm() > 1e-18 || std::abs(t.offset - ref.offset) > 1e-9) continue;
    // Inside the triangle: on the inner side of (or within the margin of) each edge's line in the face plane.
    bool inside = true;
    for (int e = 0; e < 3 && inside; ++e) {
      const Vec3& a = h.vertices[t.v[e]];
      const Vec3& b = h.vertices[t.v[(e + 1) % 3]];
      const Vec3 out = (b - a).cross(t.normal).normalized();  // outward in the face plane (counter-clockwise faces)
      inside = out.dot(l - a) <= margin;
    }
    if (inside) return true;
  }
  return false;
}

// The face manifold at this configuration: reference face by the separating axis test (A's unless
// B's is better by kReferenceTolerance), incident face, and the vertex slots over them; the last slot
// is the best edge pair where an edge axis separates better than both faces, the polytopes' full
// signed distance where they overlap deeper than kActivationDepth, else far.
void chooseFeatures(const Side& sa, const Poly& A, const Side& sb, const Poly& B, PairFeatures& f) {
  auto incident = [](const Poly& I, const Vec3& n) {
    int arg = 0;
    for (int k = 1; k < I.nf; ++k)
      if (I.fn[k].dot(n) < I.fn[arg].dot(n)) arg = k;
    return arg;
  };
  const SatResult sat = separatingAxes(A, B);
  if (sat.gapB > sat.gapA + kReferenceTolerance) {
    f.faceB = sat.faceB;
    f.faceA = incident(A, B.fn[sat.faceB]);
  } else {
    f.faceA = sat.faceA;
    f.faceB = incident(B, A.fn[sat.faceA]);
  }
  const double margin = kFaceMargin + f.motion;
  for (int k = 0; k < B.nv; ++k)
    f.active[k] = A.fn[f.faceA].dot(B.v[k]) - A.fo[f.faceA] >= -kActivationDepth && overFace(sa, f.faceA, B.v[k], margin);
  // A's vertices over B's face, unless one of B's active vertices already sits there (two equal
  // boxes stacked: their corners coincide, and a duplicated constraint only slows the interior point).
  for (int k = 0; k < A.nv; ++k) {
    bool active = B.fn[f.faceB].dot(A.v[k]) - B.fo[f.faceB] >= -kActivationDepth && overFace(sb, f.faceB, A.v[k], margin);
    for (int m = 0; m < B.nv && active; ++m)
      if (f.active[m] && (B.v[m] - A.v[k]).squaredNorm() < kFaceMargin * kFaceMargin) active = false;
    f.active[B.nv + k] = active;
  }
  const double faces = std::max(sat.gapA, sat.gapB);
  f.distance = PairFeatures::Far;
  if (std::max(faces, sat.gapE) < -kActivationDepth) {
    f.distance = PairFeatures::SignedDistance;
  } else if (sat.edgeA >= 0 && sat.gapE > faces + kReferenceTolerance) {
    f.distance = PairFeatures::EdgePair;
    f.edgeA = sat.edgeA;
    f.edgeB = sat.edgeB;
    f.edgeFlip = edgeAxisFlipped(A, B, sat);
  }
  f.chosen = true;
}

// A vertex v of `owner` against face (n, o) of the other body (n outward of that body): φ = n·v − o,
// the projection as the other body's witness point. `faceIsA`: the face belongs to A.
void vertexOverFace(const Side& face, const Side& owner, const Vec3& v, const Vec3& n, double o, bool faceIsA, bool active,
                    Contact& c) {
  if (!active) {
    c.normal = n;
    c.phi = kFarGap;
    c.pointA = v - kFarGap * n;
    c.pointB = v;
    finish(c, face.z, &face.pl.Q, *owner.z, owner.pl.Q);
    c.dxA.setZero(), c.dthA.setZero(), c.dxB.setZero(), c.dthB.setZero();
    if (!faceIsA) swapBodies(c);
    return;
  }
  c.normal = n;
  c.phi = n.dot(v) - o;
  c.pointA = v - c.phi * n;
  c.pointB = v;
  finish(c, face.z, &face.pl.Q, *owner.z, owner.pl.Q);
  if (!faceIsA) swapBodies(c);
}

// Two polytopes: the face manifold (B's vertices over A's face, A's over B's), their signed distance.
void polytopes(const Side& sa, const Side& sb, ContactSet& out, PairFeatures* features, bool choose) {
  Poly A, B;
  polyOf(sa, A);
  polyOf(sb, B);
  PairFeatures local;
  PairFeatures& f = features ? *features : local;
  if (!features || choose || !f.chosen) chooseFeatures(sa, A, sb, B, f);
  int n = 0;
  for (int k = 0; k < B.nv; ++k, ++n)
    vertexOverFace(sa, sb, B.v[k], A.fn[f.faceA], A.fo[f.faceA], true, f.active[n], out.contacts[n]);
  for (int k = 0; k < A.nv; ++k, ++n)
    vertexOverFace(sb, sa, A.v[k], B.fn[f.faceB], B.fo[f.faceB], false, f.active[n], out.contacts[n]);
  Contact& c = out.contacts[n];
  if (f.distance == PairFeatures::EdgePair) {
    edgePair(sa, A, f.edgeA, sb, B, f.edgeB, f.edgeFlip, c);
  } else if (f.distance == PairFeatures::SignedDistance) {
    polytopeDistance(sa, A, sb, B, c);
  } else {
    // Far: a constant φ without gradient (the face manifold holds the contact).
    c.normal = A.fn[f.faceA];
    c.phi = kFarGap;
    c.pointA = A.centroid;
    c.pointB = A.centroid + kFarGap * c.normal;
    finish(c, sa.z, &sa.pl.Q, *sb.z, sb.pl.Q);
    c.dxA.setZero(), c.dthA.setZero(), c.dxB.setZero(), c.dthB.setZero();
  }
  out.count = n + 1;
}

// A cylinder against a polytope: rim points, the polytope's vertices, the nearest point of its edges
// (of the edge chosen at z₁, PairFeatures::edge).
void cylinderPolytope(const Side& cyl, const Side& poly, bool cylIsA, ContactSet& out, PairFeatures* features,
                      bool choose) {
  PairFeatures local;
  PairFeatures& f = features ? *features : local;
  choose = choose || !features || !f.chosen;
  Vec3 rim[10];
  cylinderPoints(cyl, poly, rim, f.rim, choose);
  int n = 0;
  for (const Vec3& p : rim) pointAgainst(poly, cyl, p, 0.0, !cylIsA, out.contacts[n++]);
  Poly P;
  polyOf(poly, P);
  for (int k = 0; k < P.nv; ++k) pointAgainst(cyl, poly, P.v[k], 0.0, cylIsA, out.contacts[n++]);
  // The edge point of least distance to the cylinder (a box edge across the cylinder's side).
  if (choose) {
    double best = std::numeric_limits<double>::infinity();
    for (int e = 0; e < P.ne; ++e) {
      const double d = signedDistance(*cyl.s, cyl.pl, nearestOnSegment(cyl, P.v[P.ea[e]], P.v[P.eb[e]])).phi;
      if (d < best) best = d, f.edge = e;
    }
    f.chosen = true;
  }
  pointAgainst(cyl, poly, nearestOnSegment(cyl, P.v[P.ea[f.edge]], P.v[P.eb[f.edge]]), 0.0, cylIsA, out.contacts[n++]);
  out.count = n;
}

// The contact of two round cores (cylinder axes, capsule segments) at their closest points where
// both lie strictly inside the segments and the segments are not parallel: φ = n·(p_B − p_A) − r_A −
// r_B along n = ±u_A × u_B (the lines' signed distance, smooth through a crossing); far elsewhere
// (φ = kFarGap, no gradient), where the candidates at the segments' ends hold the contact.
void coreCrossing(const Side& sa, const Side& sb, double rA, double rB, Contact& c) {
  const ContactShape &a = *sa.s, &b = *sb.s;
  const Vec3 uA = sa.pl.Rs.col(2), uB = sb.pl.Rs.col(2);
  Vec3 pa = sa.pl.o, pb = sb.pl.o;
  bool interior = false;
  // A core of length 0 (a capsule may have one) has no interior: far (segmentPoints divides by it).
  if (a.halfLength > 0 && b.halfLength > 0)
    segmentPoints(sa.pl.o - a.halfLength * uA, sa.pl.o + a.halfLength * uA, sb.pl.o - b.halfLength * uB,
                  sb.pl.o + b.halfLength * uB, pa, pb, interior);
  Vec3 nrm = uA.cross(uB);
  if (interior && nrm.squaredNorm() > kParallelSin2) {
    nrm.normalize();
    const Vec3 diff = pb - pa;
    if (diff.norm() > kTinyDistance ? nrm.dot(diff) < 0 : nrm.dot(sb.pl.o - sa.pl.o) < 0) nrm = -nrm;
    c.normal = nrm;
    c.phi = nrm.dot(diff) - rA - rB;
    c.pointA = pa + rA * nrm;
    c.pointB = pb - rB * nrm;
  } else {
    c.normal = (pb - pa).norm() > kTinyDistance ? Vec3((pb - pa).normalized()) : Vec3::UnitZ();
    c.phi = kFarGap;
    c.pointA = pa;
    c.pointB = pa + kFarGap * c.normal;
  }
  finish(c, sa.z, &sa.pl.Q, *sb.z, sb.pl.Q);
  // A far candidate's φ is constant: no gradient.
  if (c.phi == kFarGap) c.dxA.setZero(), c.dthA.setZero(), c.dxB.setZero(), c.dthB.setZero();
}

// Two capsules: each cap centre against the other capsule (a swept sphere against its core: the
// distance of a point to a segment, smooth wherever the point is off the segment), A's two, then
// B's two, and the cores' crossing (coreCrossing). A single closest-points candidate cannot hold two
// capsules lying side by side: its witness point jumps between the ends as their angle changes sign
// (φ is the least of the two ends' distances, with a kink), and the impulse acts at the knot's end
// while the other end closes (docs/engine.md, "Capsule pairs").
void capsules(const Side& sa, const Side& sb, ContactSet& out) {
  const double rA = sa.s->radius, rB = sb.s->radius;
  const Vec3 uA = sa.pl.Rs.col(2), uB = sb.pl.Rs.col(2);
  const double hA = sa.s->halfLength, hB = sb.s->halfLength;
  pointAgainst(sb, sa, sa.pl.o + hA * uA, rA, false, out.contacts[0]);
  pointAgainst(sb, sa, sa.pl.o - hA * uA, rA, false, out.contacts[1]);
  pointAgainst(sa, sb, sb.pl.o + hB * uB, rB, true, out.contacts[2]);
  pointAgainst(sa, sb, sb.pl.o - hB * uB, rB, true, out.contacts[3]);
  coreCrossing(sa, sb, rA, rB, out.contacts[4]);
  out.count = 5;
}

// Two cylinders: rim points both ways, and the side–side contact of the axes.
void cylinders(const Side& sa, const Side& sb, ContactSet& out, PairFeatures* features, bool choose) {
  PairFeatures local;
  PairFeatures& f = features ? *features : local;
  choose = choose || !features || !f.chosen;
  Vec3 rim[10];
  int n = 0;
  cylinderPoints(sb, sa, rim, f.rim, choose);
  for (const Vec3& p : rim) pointAgainst(sa, sb, p, 0.0, true, out.contacts[n++]);
  cylinderPoints(sa, sb, rim, f.rim + 2, choose);
  for (const Vec3& p : rim) pointAgainst(sb, sa, p, 0.0, false, out.contacts[n++]);
  f.chosen = true;
  // Side against side: the axes' closest points, where both lie strictly inside the segments (far
  // elsewhere, where the rims hold the contact).
  coreCrossing(sa, sb, sa.s->radius, sb.s->radius, out.contacts[n++]);
  out.count = n;
}

}  // namespace

double shapeReach(const ContactShape& s) {
  double r = 0;
  switch (s.kind) {
    case K::Sphere: r = s.radius; break;
    case K::Capsule: r = s.halfLength + s.radius; break;
    case K::Box: r = s.halfExtents.norm(); break;
    case K::Cylinder: r = std::hypot(s.radius, s.halfLength); break;
    case K::Plane: r = 0; break;
    case K::Convex: r = s.convex->hull.boundingRadius; break;
  }
  return s.position.norm() + r;
}

int pairCandidateCount(const ContactShape& a, const ContactShape& b) {
  if (a.kind == K::Plane) return planeCount(b);
  if (b.kind == K::Plane) return planeCount(a);
  if (a.kind == K::Capsule && b.kind == K::Capsule) return 5;
  if (isRound(a.kind) && isRound(b.kind)) return 1;
  if (isRound(a.kind) || isRound(b.kind)) return (a.kind == K::Sphere || b.kind == K::Sphere) ? 1 : 3;
  if (isPolytope(a.kind) && isPolytope(b.kind)) return vertexCount(a) + vertexCount(b) + 1;
  if (a.kind == K::Cylinder && b.kind == K::Cylinder) return 21;
  return 10 + vertexCount(a.kind == K::Cylinder ? b : a) + 1;
}

void pairCandidates(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                    ContactSet& out, PairFeatures* features, bool choose) {
  const Side sa = sideOf(a, za), sb = sideOf(b, zb);
  if (a.kind == K::Plane && b.kind == K::Plane) out.count = 0;
  else if (a.kind == K::Plane) planeAgainst(sa, sb, true, out);
  else if (b.kind == K::Plane) planeAgainst(sb, sa, false, out);
  else if (a.kind == K::Capsule && b.kind == K::Capsule) capsules(sa, sb, out);
  else if (isRound(a.kind) && isRound(b.kind)) {
    out.count = 1;
    shapePair(a, za, b, zb, out.contacts[0]);
  } else if (isRound(a.kind)) roundAgainst(sa, sb, true, out);
  else if (isRound(b.kind)) roundAgainst(sb, sa, false, out);
  else if (isPolytope(a.kind) && isPolytope(b.kind)) polytopes(sa, sb, out, features, choose);
  else if (a.kind == K::Cylinder && b.kind == K::Cylinder) cylinders(sa, sb, out, features, choose);
  else if (a.kind == K::Cylinder) cylinderPolytope(sa, sb, true, out, features, choose);
  else cylinderPolytope(sb, sa, false, out, features, choose);
  MS_ASSERT(out.count == pairCandidateCount(a, b), "pair candidate layout and count disagree");
}

}  // namespace ms::contact
