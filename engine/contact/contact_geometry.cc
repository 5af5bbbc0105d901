// SPDX-License-Identifier: GPL-3.0-or-later
// Contact geometry of Brüdigam et al. 2023: signed distances φ (§2, §3.3 (22)–(25)) with ∂φ/∂(x, θ),
// and the friction basis and velocity rows (§3.4, (4a)–(4b), Appendix C). Conventions, formulas and
// candidate layouts are documented in contact_geometry.h.
#include "contact/contact_geometry.h"
#include "contact/geometry_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/check.h"
#include "core/quaternion.h"

namespace ms::contact {
namespace {


double clampTo(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A candidate point p_B of body B against a plane: φ = n·(p_B − p0), p_A = its projection.
void planePoint(const WorldPlane& plane, const Vec3& pB, const BodyPose& z, const Mat3& Q, Contact& c) {
  c.normal = plane.normal;
  c.phi = plane.normal.dot(pB - plane.point);
  c.pointB = pB;
  c.pointA = pB - c.phi * plane.normal;
  finish(c, nullptr, nullptr, z, Q);
}

// Some unit vector perpendicular to u (deterministic, continuous away from u = −z).
Vec3 perpendicular(const Vec3& u) {
  Vec3 t1, t2;
  frictionBasis(u, t1, t2);
  return t1;
}

// Closest points of two segments c + s·u, s ∈ [−h, h] (u unit; h = 0: a point), then the contact of
// two swept spheres of radii rA, rB around them (sphere–sphere, sphere–capsule, capsule–capsule).
void segmentContact(const Vec3& cA, const Vec3& uA, double hA, double rA, const Vec3& cB, const Vec3& uB,
                    double hB, double rB, Contact& c) {
  const Vec3 r = cA - cB;
  const double cosAB = uA.dot(uB), d1 = r.dot(uA), d2 = r.dot(uB);
  const double denom = 1.0 - cosAB * cosAB;
  double s = 0, t = 0;
  // Minimise |r + s uA − t uB|²: the stationary point solves s − cos·t = −d1, t − cos·s = d2.
  if (hA == 0 && hB == 0) {
    s = t = 0;
  } else if (hA == 0) {
    t = clampTo(d2, -hB, hB);
  } else if (hB == 0) {
    s = clampTo(-d1, -hA, hA);
  } else if (denom > kParallelSin2) {
    // Ericson, Real-Time Collision Detection §5.1.9: clamp s, best t for it, clamp t, best s for it.
    s = clampTo((cosAB * d2 - d1) / denom, -hA, hA);
    t = clampTo(cosAB * s + d2, -hB, hB);
    s = clampTo(cosAB * t - d1, -hA, hA);
  } else {
    // Parallel: B's interval projected on A's line is −d1 ± hB; take the middle of the overlap.
    const double lo = std::max(-hA, -d1 - hB), hi = std::min(hA, -d1 + hB);
    if (lo <= hi) s = 0.5 * (lo + hi);
    else s = (-d1 - hB > hA) ? hA : -hA;
    t = clampTo(cosAB * s + d2, -hB, hB);
  }
  const Vec3 pa = cA + s * uA, pb = cB + t * uB;
  const Vec3 diff = pb - pa;
  const double dist = diff.norm();
  // Normal from A to B; fallbacks when the core points coincide.
  if (dist > kTinyDistance) {
    c.normal = diff / dist;
  } else {
    const Vec3 centres = cB - cA;
    Vec3 n = Vec3::Zero();
    if (hA > 0 && hB > 0 && denom > kParallelSin2) n = uA.cross(uB).normalized();
    else if (hA > 0) n = perpendicular(uA);
    else if (hB > 0) n = perpendicular(uB);
    else n = Vec3::UnitZ();
    c.normal = n.dot(centres) < 0 ? Vec3(-n) : n;
  }
  c.phi = dist - rA - rB;
  c.pointA = pa + rA * c.normal;
  c.pointB = pb - rB * c.normal;
}

// Segment description of a sphere (h = 0) or capsule shape in the world.
void segmentOf(const ContactShape& s, const Placed& p, Vec3& centre, Vec3& axis, double& h) {
  centre = p.o;
  axis = p.Rs.col(2);
  h = s.kind == ContactShape::Kind::Capsule ? s.halfLength : 0.0;
}

void pairOfSegments(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                    Contact& out) {
  const Placed pa = place(a, za), pb = place(b, zb);
  Vec3 cA, uA, cB, uB;
  double hA, hB;
  segmentOf(a, pa, cA, uA, hA);
  segmentOf(b, pb, cB, uB, hB);
  segmentContact(cA, uA, hA, a.radius, cB, uB, hB, b.radius, out);
  finish(out, &za, &pa.Q, zb, pb.Q);
}

}  // namespace

// Shape description → the geometry the distance functions use.
bool contactShapeFromDesc(const ShapeDesc& s, ContactShape& out) {
  out = ContactShape();
  out.contype = s.contype;
  out.conaffinity = s.conaffinity;
  out.position = s.position;
  out.rotation = quat::rotation(s.orientation.normalized());
  switch (s.kind) {
    case ShapeDesc::Kind::Box: out.kind = ContactShape::Kind::Box; out.halfExtents = 0.5 * s.size; return true;
    case ShapeDesc::Kind::Sphere: out.kind = ContactShape::Kind::Sphere; out.radius = s.size.x(); return true;
    case ShapeDesc::Kind::Capsule:
      out.kind = ContactShape::Kind::Capsule;
      out.radius = s.size.x();
      out.halfLength = 0.5 * s.size.y();
      return true;
    case ShapeDesc::Kind::Cylinder:
      out.kind = ContactShape::Kind::Cylinder;
      out.radius = s.size.x();
      out.halfLength = 0.5 * s.size.y();
      return true;
    case ShapeDesc::Kind::Plane: out.kind = ContactShape::Kind::Plane; return true;
    case ShapeDesc::Kind::Mesh: return false;
  }
  return false;
}

// Planes: normalised normal; a Plane shape's normal is its +z axis.
WorldPlane makeWorldPlane(const Vec3& point, const Vec3& normal) {
  WorldPlane p;
  p.point = point;
  p.normal = normal.normalized();
  return p;
}

WorldPlane planeFromShape(const ContactShape& plane, const BodyPose& pose) {
  const Placed p = place(plane, pose);
  return makeWorldPlane(p.o, p.Rs.col(2));
}

// Gradient of dirᵀ(x + Q l): [dirᵀ, −dirᵀ Q l^×] (the ∂/∂θ block of joint_constraint's g_T),
// with −aᵀ l^× = (l × a)ᵀ for a = Qᵀ dir (a cross product instead of a 3×3 product).
void pointGradient(const Mat3& Q, const Vec3& l, const Vec3& dir, Row3& dx, Row3& dth) {
  dx = dir.transpose();
  dth = l.cross(Q.transpose() * dir).transpose();
}

// Sphere vs plane: the sphere point deepest along −n.
void spherePlane(const WorldPlane& plane, const ContactShape& sphere, const BodyPose& z, ContactSet& out) {
  const Placed p = place(sphere, z);
  out.count = 1;
  planePoint(plane, p.o - sphere.radius * plane.normal, z, p.Q, out.contacts[0]);
}

// Capsule vs plane: the deepest point of each hemisphere.
void capsulePlane(const WorldPlane& plane, const ContactShape& capsule, const BodyPose& z, ContactSet& out) {
  const Placed p = place(capsule, z);
  const Vec3 a = p.Rs.col(2);
  out.count = 2;
  for (int e = 0; e < 2; ++e) {
    const Vec3 centre = p.o + (e == 0 ? 1.0 : -1.0) * capsule.halfLength * a;
    planePoint(plane, centre - capsule.radius * plane.normal, z, p.Q, out.contacts[e]);
  }
}

// Box vs plane: the eight corners.
void boxPlane(const WorldPlane& plane, const ContactShape& box, const BodyPose& z, ContactSet& out) {
  const Placed p = place(box, z);
  out.count = 8;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner((k & 1) ? box.halfExtents.x() : -box.halfExtents.x(),
                      (k & 2) ? box.halfExtents.y() : -box.halfExtents.y(),
                      (k & 4) ? box.halfExtents.z() : -box.halfExtents.z());
    planePoint(plane, p.o + p.Rs * corner, z, p.Q, out.contacts[k]);
  }
}

// Cylinder vs plane: lowest rim point of each end disc, then four body-fixed rim points per disc.
void cylinderPlane(const WorldPlane& plane, const ContactShape& cylinder, const BodyPose& z, ContactSet& out) {
  const Placed p = place(cylinder, z);
  const Vec3& n = plane.normal;
  const Vec3 a = p.Rs.col(2), u = p.Rs.col(0), v = p.Rs.col(1);
  // Direction of the lowest rim point in the disc plane, w = −n⊥/|n⊥|, with n⊥ from its components
  // along u and v (n − (n·a)a would lose n·w to cancellation when the axis is nearly along n).
  const double nu = n.dot(u), nv = n.dot(v), s = std::hypot(nu, nv);
  const Vec3 w = s > 1e-12 ? Vec3(-(nu * u + nv * v) / s) : u;
  const double r = cylinder.radius;
  out.count = 10;
  for (int e = 0; e < 2; ++e) {
    const Vec3 centre = p.o + (e == 0 ? 1.0 : -1.0) * cylinder.halfLength * a;
    planePoint(plane, centre + r * w, z, p.Q, out.contacts[e]);
    const Vec3 rim[4] = {u, -u, v, -v};
    for (int k = 0; k < 4; ++k) planePoint(plane, centre + r * rim[k], z, p.Q, out.contacts[2 + 4 * e + k]);
  }
}

// Convex hull vs plane: its vertices.
void convexPlane(const WorldPlane& plane, const ContactShape& convex, const BodyPose& z, ContactSet& out) {
  const Placed p = place(convex, z);
  const std::vector<Vec3>& v = convex.convex->hull.vertices;
  out.count = int(v.size());
  for (int k = 0; k < out.count; ++k) planePoint(plane, p.o + p.Rs * v[k], z, p.Q, out.contacts[k]);
}

// Plane dispatch.
int shapePlane(const WorldPlane& plane, const ContactShape& shape, const BodyPose& z, ContactSet& out) {
  switch (shape.kind) {
    case ContactShape::Kind::Sphere: spherePlane(plane, shape, z, out); break;
    case ContactShape::Kind::Capsule: capsulePlane(plane, shape, z, out); break;
    case ContactShape::Kind::Box: boxPlane(plane, shape, z, out); break;
    case ContactShape::Kind::Cylinder: cylinderPlane(plane, shape, z, out); break;
    case ContactShape::Kind::Plane: out.count = 0; break;
    case ContactShape::Kind::Convex: convexPlane(plane, shape, z, out); break;
  }
  return out.count;
}

// Sphere, capsule pairs: swept spheres around points/segments.
void sphereSphere(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                  Contact& out) {
  pairOfSegments(a, za, b, zb, out);
}

void sphereCapsule(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                   Contact& out) {
  pairOfSegments(a, za, b, zb, out);
}

void capsuleCapsule(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                    Contact& out) {
  pairOfSegments(a, za, b, zb, out);
}

// Sphere (A) vs box (B): closest point of the box to the centre, or the least-penetrated face.
void sphereBox(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
               Contact& out) {
  const Placed pa = place(a, za), pb = place(b, zb);
  const Vec3& h = b.halfExtents;
  const Vec3 cb = pb.Rs.transpose() * (pa.o - pb.o);  // sphere centre in the box frame
  Vec3 q = cb.cwiseMax(-h).cwiseMin(h);               // closest point of the box (box frame)
  const Vec3 diff = cb - q;
  const double d = diff.norm();
  Vec3 nb;    // outward box normal at q (box frame)
  double sd;  // signed distance of the centre to the box surface
  if (d > kTinyDistance) {
    nb = diff / d;
    sd = d;
  } else {
    int i = 0;
    double gap = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
      const double g = h(k) - std::abs(cb(k));
      if (g < gap) gap = g, i = k;
    }
    nb.setZero();
    nb(i) = cb(i) >= 0 ? 1.0 : -1.0;
    q = cb;
    q(i) = nb(i) * h(i);
    sd = -gap;
  }
  out.normal = -(pb.Rs * nb);  // from the sphere towards the box
  out.phi = sd - a.radius;
  out.pointB = pb.o + pb.Rs * q;
  out.pointA = pa.o + a.radius * out.normal;
  finish(out, &za, &pa.Q, zb, pb.Q);
}

// A ↔ B.
void swapBodies(Contact& c) {
  c.normal = -c.normal;
  std::swap(c.pointA, c.pointB);
  std::swap(c.localA, c.localB);
  std::swap(c.dxA, c.dxB);
  std::swap(c.dthA, c.dthB);
}

// Pair dispatch (the first kind of each supported pair is A).
bool shapePair(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
               Contact& out) {
  using K = ContactShape::Kind;
  const bool roundA = a.kind == K::Sphere || a.kind == K::Capsule;
  const bool roundB = b.kind == K::Sphere || b.kind == K::Capsule;
  if (roundA && roundB) {
    pairOfSegments(a, za, b, zb, out);
    return true;
  }
  if (a.kind == K::Sphere && b.kind == K::Box) {
    sphereBox(a, za, b, zb, out);
    return true;
  }
  if (a.kind == K::Box && b.kind == K::Sphere) {
    sphereBox(b, zb, a, za, out);
    swapBodies(out);
    return true;
  }
  return false;
}

// Friction basis: minimal rotation of (x, y, z) taking z to n (Frisvad; see the header).
void frictionBasis(const Vec3& n, Vec3& t1, Vec3& t2) {
  const double nx = n.x(), ny = n.y(), nz = n.z();
  double a;
  if (nz >= 0) {
    a = 1.0 / (1.0 + nz);
  } else {
    const double rho2 = nx * nx + ny * ny;
    if (rho2 == 0) {  // n = −z exactly: the singular point
      t1 = Vec3(0, -1, 0);
      t2 = Vec3(-1, 0, 0);
      return;
    }
    a = (1.0 - nz) / rho2;
  }
  const double b = -nx * ny * a;
  t1 = Vec3(1.0 - a * nx * nx, b, -nx);
  t2 = Vec3(b, 1.0 - a * ny * ny, -ny);
}

// Friction cone directions and per-body velocity rows [dᵀ, (l × Qᵀd)ᵀ].
void frictionRows(const Contact& c, const BodyPose* za, const BodyPose& zb, int nf, FrictionRows& out, double twist) {
  MS_ASSERT(nf >= 4 && nf <= kMaxFrictionDirections, "friction cone directions must be in [4, 16]");
  frictionBasis(c.normal, out.t1, out.t2);
  out.count = nf;
  out.d.setZero();
  out.dvA.setZero();
  out.dwA.setZero();
  out.dvB.setZero();
  out.dwB.setZero();
  const Mat3 QB = quat::rotation(zb.q);
  Mat3 QA = Mat3::Identity();
  if (za) QA = quat::rotation(za->q);
  const bool even = nf % 2 == 0;
  for (int k = 0; k < nf; ++k) {
    Vec3 d;
    if (even && k >= nf / 2) {
      d = -out.d.row(k - nf / 2).transpose();
    } else {
      const double ang = 2.0 * kPi * k / nf + twist;
      d = std::cos(ang) * out.t1 + std::sin(ang) * out.t2;
    }
    out.d.row(k) = d.transpose();
    Row3 dv, dw;
    pointGradient(QB, c.localB, d, dv, dw);
    out.dvB.row(k) = dv;
    out.dwB.row(k) = dw;
    if (za) {
      pointGradient(QA, c.localA, d, dv, dw);
      out.dvA.row(k) = dv;
      out.dwA.row(k) = dw;
    }
  }
}

void frictionInPolygon(const Vec3& f, const FrictionRows& to, double* beta) {
  const int nf = to.count;
  for (int k = 0; k < nf; ++k) beta[k] = 0.0;
  const double f1 = f.dot(to.t1), f2 = f.dot(to.t2);
  if (f1 == 0.0 && f2 == 0.0) return;
  // Sector of f between directions k and k+1 (angles 2πk/n_f from t1 and the next).
  double ang = std::atan2(f2, f1);
  if (ang < 0) ang += 2.0 * kPi;
  const double sector = 2.0 * kPi / nf;
  const int k = std::min(nf - 1, int(ang / sector));
  const int k1 = (k + 1) % nf;
  // f = a d_k + b d_k1 (2×2 system in the tangent plane, a, b ≥ 0 inside the sector).
  const double c0 = to.d.row(k).dot(to.t1), s0 = to.d.row(k).dot(to.t2);
  const double c1 = to.d.row(k1).dot(to.t1), s1 = to.d.row(k1).dot(to.t2);
  const double det = c0 * s1 - s0 * c1;
  beta[k] = std::max(0.0, (f1 * s1 - f2 * c1) / det);
  beta[k1] = std::max(0.0, (c0 * f2 - s0 * f1) / det);
}

void groupCandidates(const WorldPlane& plane, const ContactShape& a, const BodyPose* za, const ContactShape& b,
                     const BodyPose& zb, ContactSet& out, PairFeatures* features, bool choose) {
  if (!za) shapePlane(plane, b, zb, out);
  else pairCandidates(a, *za, b, zb, out, features, choose);
}

// Edge table of a hull: the two triangles that share each real edge give its face normals.
std::shared_ptr<const ConvexShape> makeConvexShape(ConvexHull hull) {
  auto shape = std::make_shared<ConvexShape>();
  for (const auto& e : hull.edges) {
    ConvexShape::Edge edge;
    edge.a = e[0];
    edge.b = e[1];
    int found = 0;
    for (const ConvexHull::Face& f : hull.faces) {
      const bool hasA = f.v[0] == e[0] || f.v[1] == e[0] || f.v[2] == e[0];
      const bool hasB = f.v[0] == e[1] || f.v[1] == e[1] || f.v[2] == e[1];
      if (!hasA || !hasB) continue;
      (found == 0 ? edge.n1 : edge.n2) = f.normal;
      if (++found == 2) break;
    }
    MS_ASSERT(found == 2, "a hull edge must be shared by two triangles");
    shape->edges.push_back(edge);
  }
  shape->hull = std::move(hull);
  return shape;
}

}  // namespace ms::contact
