// SPDX-License-Identifier: GPL-3.0-or-later
// Signed distance of a point to every collision shape (contact_geometry.h, "Every pair of shapes"):
// φ(p) < 0 inside, the closest surface point c and the outward unit normal n, with p − c = φ n.
// Computed in the shape's frame. Where the closest point lies in a face (box, cylinder cap or side,
// hull triangle) the normal is the face's own normal and φ its plane distance, never
// (p − c)/|p − c|: a point resting on a face is ~1e-10 m from it, where the difference of two
// coordinates of order 1 would give the normal to only ~1e-6.
#include <algorithm>
#include <cmath>
#include <limits>

#include "contact/contact_geometry.h"
#include "contact/geometry_internal.h"

namespace ms::contact {
namespace {


// A point and a distance from its core point c (sphere centre, capsule segment point): n = (p − c)/|p − c|.
SurfacePoint aroundPoint(const Vec3& p, const Vec3& core, double radius, const Vec3& fallback) {
  SurfacePoint s;
  const Vec3 d = p - core;
  const double len = d.norm();
  s.normal = len > kTinyDistance ? Vec3(d / len) : fallback;
  s.phi = len - radius;
  s.point = core + radius * s.normal;
  return s;
}

SurfacePoint boxDistance(const Vec3& h, const Vec3& p) {
  SurfacePoint s;
  const Vec3 q = p.cwiseMax(-h).cwiseMin(h);
  const Vec3 d = p - q;
  const int outside = (d.array() != 0.0).count();
  if (outside == 1) {
    // Face region: the axis normal and the plane distance.
    int i = 0;
    d.cwiseAbs().maxCoeff(&i);
    s.normal = Vec3::Zero();
    s.normal(i) = d(i) > 0 ? 1.0 : -1.0;
    s.phi = std::abs(d(i));
    s.point = q;
    return s;
  }
  if (outside > 1) {
    // Edge or corner region.
    s.phi = d.norm();
    s.normal = d / s.phi;
    s.point = q;
    return s;
  }
  // Inside (or on the surface): the nearest face (ties: lowest axis, then the + face).
  int i = 0;
  double gap = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    const double g = h(k) - std::abs(p(k));
    if (g < gap) gap = g, i = k;
  }
  s.normal = Vec3::Zero();
  s.normal(i) = p(i) >= 0 ? 1.0 : -1.0;
  s.phi = -gap;
  s.point = p;
  s.point(i) = s.normal(i) * h(i);
  return s;
}

SurfacePoint cylinderDistance(double r, double h, const Vec3& p) {
  SurfacePoint s;
  const double rho = std::hypot(p.x(), p.y());
  const Vec3 radial = rho > kTinyDistance ? Vec3(p.x() / rho, p.y() / rho, 0) : Vec3::UnitX();
  const double sz = p.z() >= 0 ? 1.0 : -1.0;
  const double dr = rho - r, dz = std::abs(p.z()) - h;
  const Vec3 rim = r * radial + Vec3(0, 0, sz * h);
  if (dr > 0 && dz > 0) {
    // Outside both: the rim circle.
    const Vec3 d = p - rim;
    s.phi = d.norm();
    s.normal = d / s.phi;
    s.point = rim;
  } else if (dr > dz) {
    // The side (outside it, or inside and nearer to it than to the caps).
    s.phi = dr;
    s.normal = radial;
    s.point = Vec3(r * radial.x(), r * radial.y(), p.z());
  } else {
    // A cap.
    s.phi = dz;
    s.normal = Vec3(0, 0, sz);
    s.point = Vec3(p.x(), p.y(), sz * h);
  }
  return s;
}

// Closest point of triangle (a, b, c) to p (Ericson, Real-Time Collision Detection §5.1.5);
// `inFace` tells whether it lies inside the triangle (not on an edge or a vertex).
Vec3 closestOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, bool& inFace) {
  inFace = false;
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + (d1 / (d1 - d3)) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + (d2 / (d2 - d6)) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  inFace = true;
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

SurfacePoint hullDistance(const ConvexHull& hull, const Vec3& p) {
  SurfacePoint s;
  // The largest face-plane distance: φ itself inside, and which faces can hold the closest point outside.
  double best = -std::numeric_limits<double>::infinity();
  int bestFace = 0;
  for (size_t f = 0; f < hull.faces.size(); ++f) {
    const double d = hull.faces[f].normal.dot(p) - hull.faces[f].offset;
    if (d > best) best = d, bestFace = int(f);
  }
  if (best <= 0) {
    s.phi = best;
    s.normal = hull.faces[bestFace].normal;
    s.point = p - best * s.normal;
    return s;
  }
  // Outside: the nearest point over the faces that face p.
  double bestD2 = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < hull.faces.size(); ++f) {
    const ConvexHull::Face& face = hull.faces[f];
    const double d = face.normal.dot(p) - face.offset;
    if (d < 0) continue;
    bool inFace = false;
    const Vec3 c = closestOnTriangle(p, hull.vertices[face.v[0]], hull.vertices[face.v[1]], hull.vertices[face.v[2]], inFace);
    if (inFace) {
      // The projection lies in this face: it is the closest point of the hull.
      s.phi = d;
      s.normal = face.normal;
      s.point = p - d * face.normal;
      return s;
    }
    const double d2 = (p - c).squaredNorm();
    if (d2 < bestD2) bestD2 = d2, s.point = c;
  }
  s.phi = std::sqrt(bestD2);
  s.normal = (p - s.point) / s.phi;
  return s;
}

// In the shape frame.
SurfacePoint localDistance(const ContactShape& s, const Vec3& p) {
  switch (s.kind) {
    case ContactShape::Kind::Sphere: return aroundPoint(p, Vec3::Zero(), s.radius, Vec3::UnitZ());
    case ContactShape::Kind::Capsule: {
      const double t = std::clamp(p.z(), -s.halfLength, s.halfLength);
      return aroundPoint(p, Vec3(0, 0, t), s.radius, Vec3::UnitX());
    }
    case ContactShape::Kind::Box: return boxDistance(s.halfExtents, p);
    case ContactShape::Kind::Cylinder: return cylinderDistance(s.radius, s.halfLength, p);
    case ContactShape::Kind::Plane: return {p.z(), Vec3(p.x(), p.y(), 0), Vec3::UnitZ()};
    case ContactShape::Kind::Convex: return hullDistance(s.convex->hull, p);
  }
  return {};
}

}  // namespace

SurfacePoint signedDistance(const ContactShape& s, const Placed& pl, const Vec3& p) {
  SurfacePoint r = localDistance(s, pl.Rs.transpose() * (p - pl.o));
  r.point = pl.o + pl.Rs * r.point;
  r.normal = pl.Rs * r.normal;
  return r;
}

SurfacePoint signedDistance(const ContactShape& s, const BodyPose& z, const Vec3& p) {
  return signedDistance(s, place(s, z), p);
}

}  // namespace ms::contact
