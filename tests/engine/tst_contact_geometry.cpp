// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/contact/contact_geometry: known signed distances (plane, sphere, capsule, box,
// cylinder pairs), analytic ∂φ/∂(x, θ) against central finite differences at random poses (rotations
// perturbed as the engine does, q ← q·exp(δθ/2) in the body frame), the friction basis (orthonormal,
// continuous) and the tangential velocity rows against finite differences of the contact point along
// a velocity step, and that the evaluation functions never allocate.
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <random>
#include <string>

#include "test_random.h"
#include "contact/contact_geometry.h"
#include "contact/convex_hull.h"
#include "core/quaternion.h"

#include "allocation_counter.h"
#include "sanitizer_build.h"

using namespace ms;
using namespace ms::contact;

namespace {

constexpr int kPoses = 200;  // random poses per pair type (≥ 50 required)

test::SeededRandom rnd(24680);
Vec4 randQuat() { return quat::fromRotationVector(rnd.randVec(2.5)); }
Vec3 randUnit() {
  std::normal_distribution<double> g(0.0, 1.0);
  return Vec3(g(rnd.rng), g(rnd.rng), g(rnd.rng)).normalized();
}

// Worst relative finite-difference error per pair type, printed at the end.
std::map<std::string, double> g_worst;
void record(const std::string& name, double err) { g_worst[name] = std::max(g_worst[name], err); }

BodyPose pose(const Vec3& x, const Vec4& q = Vec4(1, 0, 0, 0)) {
  BodyPose z;
  z.x = x;
  z.q = q;
  return z;
}
BodyPose randPose(double s) { return pose(rnd.randVec(s), randQuat()); }

// Shapes, optionally placed off the body origin with a random orientation.
ContactShape place(ContactShape s, bool offset) {
  if (offset) {
    s.position = rnd.randVec(0.3);
    s.rotation = quat::rotation(randQuat());
  }
  return s;
}
ContactShape sphere(double r, bool offset = false) {
  ContactShape s;
  s.kind = ContactShape::Kind::Sphere;
  s.radius = r;
  return place(s, offset);
}
ContactShape capsule(double r, double halfLength, bool offset = false) {
  ContactShape s;
  s.kind = ContactShape::Kind::Capsule;
  s.radius = r;
  s.halfLength = halfLength;
  return place(s, offset);
}
ContactShape cylinder(double r, double halfLength, bool offset = false) {
  ContactShape s = capsule(r, halfLength, offset);
  s.kind = ContactShape::Kind::Cylinder;
  return s;
}
ContactShape box(const Vec3& half, bool offset = false) {
  ContactShape s;
  s.kind = ContactShape::Kind::Box;
  s.halfExtents = half;
  return place(s, offset);
}

ContactShape planeShape(bool offset = false) {
  ContactShape s;
  s.kind = ContactShape::Kind::Plane;
  return place(s, offset);
}

// A convex hull shape: an icosahedron (12 vertices, 20 triangles, 30 edges) stretched by s.
ContactShape convexShape(const Vec3& s, bool offset) {
  const double g = (1 + std::sqrt(5.0)) / 2;
  std::vector<Vec3> pts;
  for (double a : {-1.0, 1.0})
    for (double b : {-g, g}) {
      pts.emplace_back(0, a, b);
      pts.emplace_back(a, b, 0);
      pts.emplace_back(b, 0, a);
    }
  for (Vec3& p : pts) p = p.cwiseProduct(s) / std::sqrt(1 + g * g);
  ConvexHull hull;
  std::string why;
  const bool ok = buildConvexHull(pts, hull, why);
  Q_ASSERT(ok && hull.vertices.size() == 12);
  (void)ok;
  ContactShape c;
  c.kind = ContactShape::Kind::Convex;
  c.convex = makeConvexShape(hull);
  return place(c, offset);
}

// Kinds of the every-pair tests: 0 sphere, 1 capsule, 2 box, 3 cylinder, 4 plane (on a body), 5 convex hull.
constexpr int kPairKinds = 6;
const char* kKindNames[] = {"sphere", "capsule", "box", "cylinder", "plane", "convex"};
ContactShape randomShape(int kind) {
  switch (kind) {
    case 0: return sphere(rnd.uni(0.05, 0.5), true);
    case 1: return capsule(rnd.uni(0.05, 0.4), rnd.uni(0.05, 0.6), true);
    case 2: return box(Vec3(rnd.uni(0.1, 0.6), rnd.uni(0.1, 0.6), rnd.uni(0.1, 0.6)), true);
    case 3: return cylinder(rnd.uni(0.1, 0.5), rnd.uni(0.05, 0.5), true);
    case 4: return planeShape(true);
    default: return convexShape(Vec3(rnd.uni(0.1, 0.6), rnd.uni(0.1, 0.6), rnd.uni(0.1, 0.6)), true);
  }
}

// Whether candidate k of the layout of kinds (ka, kb) is chosen by minimising along a curve
// (contact_geometry.h): a capsule's core point, the cylinder rims' nearest points, a polytope edge's
// point nearest a cylinder.
bool minimised(int ka, int kb, int k, int count) {
  const bool roundA = ka <= 1, roundB = kb <= 1;
  if (ka == 0 || kb == 0 || ka == 4 || kb == 4 || (roundA && roundB)) return false;
  if (ka == 1 || kb == 1) return k == 2;
  if (ka == 3 && kb == 3) return k == 0 || k == 1 || k == 10 || k == 11;
  if (ka == 3 || kb == 3) return k == 0 || k == 1 || k == count - 1;
  return false;
}

// Perturb coordinate c (0–2 position, 3–5 body-frame rotation), as tst_joint_constraint.
BodyPose perturb(const BodyPose& z, int c, double h) {
  BodyPose p = z;
  if (c < 3) p.x(c) += h;
  else {
    Vec3 d = Vec3::Zero();
    d(c - 3) = h;
    p.q = quat::mul(p.q, quat::fromRotationVector(d));
  }
  return p;
}

using Row12 = Eigen::Matrix<double, 1, 12>;

// Central differences of f(A, B) over [x_A, θ_A, x_B, θ_B].
template <class F>
Row12 numericGradient(const BodyPose& a, const BodyPose& b, F f) {
  const double h = 1e-6;
  Row12 g;
  for (int c = 0; c < 6; ++c) g(c) = (f(perturb(a, c, h), b) - f(perturb(a, c, -h), b)) / (2 * h);
  for (int c = 0; c < 6; ++c) g(6 + c) = (f(a, perturb(b, c, h)) - f(a, perturb(b, c, -h))) / (2 * h);
  return g;
}

Row12 analytic(const Contact& c) {
  Row12 g;
  g << c.dxA, c.dthA, c.dxB, c.dthB;
  return g;
}

double relError(const Row12& ana, const Row12& num) {
  return (ana - num).lpNorm<Eigen::Infinity>() / std::max(1.0, ana.lpNorm<Eigen::Infinity>());
}

// Geometric invariants of any contact: unit normal, p_B − p_A = φ n, local points map to the world ones.
bool consistent(const Contact& c, const BodyPose* za, const BodyPose& zb) {
  if (std::abs(c.normal.norm() - 1) > 1e-12) return false;
  if ((c.pointB - c.pointA - c.phi * c.normal).norm() > 1e-10) return false;
  if ((zb.x + quat::rotate(zb.q, c.localB) - c.pointB).norm() > 1e-10) return false;
  if (za && (za->x + quat::rotate(za->q, c.localA) - c.pointA).norm() > 1e-10) return false;
  return true;
}

using PairFn = void (*)(const ContactShape&, const BodyPose&, const ContactShape&, const BodyPose&, Contact&);
using PlaneFn = void (*)(const WorldPlane&, const ContactShape&, const BodyPose&, ContactSet&);

void dispatchPair(const ContactShape& a, const BodyPose& za, const ContactShape& b, const BodyPose& zb,
                  Contact& out) {
  QVERIFY(shapePair(a, za, b, zb, out));
}

// FD check of one pair at one pose; returns the relative error.
double checkPairGradient(PairFn fn, const ContactShape& a, const BodyPose& za, const ContactShape& b,
                         const BodyPose& zb, Contact& c) {
  fn(a, za, b, zb, c);
  auto f = [&](const BodyPose& pa, const BodyPose& pb) {
    Contact t;
    fn(a, pa, b, pb, t);
    return t.phi;
  };
  return relError(analytic(c), numericGradient(za, zb, f));
}

// Distance between two segments by a ternary search over s (the distance is convex in s), for checking.
double segmentDistanceBrute(const Vec3& cA, const Vec3& uA, double hA, const Vec3& cB, const Vec3& uB, double hB) {
  auto at = [&](double s) {
    const Vec3 p = cA + s * uA;
    const double t = std::clamp((p - cB).dot(uB), -hB, hB);
    return (p - cB - t * uB).norm();
  };
  double lo = -hA, hi = hA;
  for (int i = 0; i < 300; ++i) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (at(m1) < at(m2)) hi = m2;
    else lo = m1;
  }
  return std::min({at(0.5 * (lo + hi)), at(-hA), at(hA)});
}

// Position of a body point after a velocity step of h (x + v h, q·ω̄(ω)h/2 as eq. 11, 17). A step
// back (h < 0) uses −ω over |h| (incrementFromVelocity with a negative Δt would return −q̄, the
// same rotation as the step forward).
Vec3 pointAfterStep(const BodyPose& z, const Vec3& v, const Vec3& w, const Vec3& local, double h) {
  Vec4 inc;
  const bool ok = quat::incrementFromVelocity(h < 0 ? Vec3(-w) : w, std::abs(h), inc);
  Q_ASSERT(ok);
  (void)ok;
  return z.x + v * h + quat::rotate(quat::mul(z.q, inc), local);
}

}  // namespace

class TestContactGeometry : public QObject {
  Q_OBJECT
 private slots:
  void shapesFromDescriptions();
  void planeKnownValues();
  void cylinderPlaneKnownValuesAndSingularCase();
  void pairKnownValues();
  void capsuleDistanceMatchesBruteForce();
  void planeGradientsMatchFiniteDifferences();
  void pairGradientsMatchFiniteDifferences();
  void frictionBasisOrthonormal();
  void frictionBasisContinuous();
  void frictionRowsMatchFiniteDifferences();
  void twistedPolygonConvertsBack();
  void pairLayoutsHaveTheirCounts();
  void pointDistancesAreConsistent();
  void everyPairGradientsMatchFiniteDifferences();
  void polytopeDistanceMatchesSupportFunctions();
  void restingPairsKnownValues();
  void evaluationDoesNotAllocate();
  void cleanupTestCase();
};

void TestContactGeometry::shapesFromDescriptions() {
  ShapeDesc d;
  ContactShape s;
  d.kind = ShapeDesc::Kind::Box;
  d.size = Vec3(1, 2, 3);
  d.position = Vec3(0.1, 0.2, 0.3);
  d.orientation = quat::fromAxisAngle(Vec3::UnitX(), 0.4);
  QVERIFY(contactShapeFromDesc(d, s));
  QVERIFY(s.kind == ContactShape::Kind::Box);
  QVERIFY((s.halfExtents - Vec3(0.5, 1, 1.5)).norm() < 1e-15);
  QVERIFY((s.position - d.position).norm() < 1e-15);
  QVERIFY((s.rotation - quat::rotation(d.orientation)).norm() < 1e-15);
  d.kind = ShapeDesc::Kind::Capsule;
  d.size = Vec3(0.2, 0.8, 0);
  QVERIFY(contactShapeFromDesc(d, s));
  QVERIFY(s.kind == ContactShape::Kind::Capsule && s.radius == 0.2 && s.halfLength == 0.4);
  d.kind = ShapeDesc::Kind::Cylinder;
  QVERIFY(contactShapeFromDesc(d, s));
  QVERIFY(s.kind == ContactShape::Kind::Cylinder && s.radius == 0.2 && s.halfLength == 0.4);
  d.kind = ShapeDesc::Kind::Sphere;
  QVERIFY(contactShapeFromDesc(d, s));
  QVERIFY(s.kind == ContactShape::Kind::Sphere && s.radius == 0.2);
  d.kind = ShapeDesc::Kind::Mesh;
  QVERIFY(!contactShapeFromDesc(d, s));
  // A Plane shape on the world: normal = shape +z.
  d.kind = ShapeDesc::Kind::Plane;
  d.position = Vec3(0, 0, 1);
  d.orientation = quat::fromAxisAngle(Vec3::UnitX(), kPi / 2);
  QVERIFY(contactShapeFromDesc(d, s));
  const WorldPlane p = planeFromShape(s, BodyPose());
  QVERIFY((p.normal - Vec3(0, -1, 0)).norm() < 1e-15);
  QVERIFY((p.point - Vec3(0, 0, 1)).norm() < 1e-15);
  ContactSet set;
  QCOMPARE(shapePlane(p, s, BodyPose(), set), 0);
}

void TestContactGeometry::planeKnownValues() {
  const WorldPlane ground;
  ContactSet set;
  // Sphere resting on the ground, then lifted by h; the body is rotated and the sphere offset.
  const ContactShape ball = sphere(0.5);
  spherePlane(ground, ball, pose(Vec3(0.3, -0.2, 0.5), randQuat()), set);
  QCOMPARE(set.count, 1);
  QVERIFY(std::abs(set.contacts[0].phi) < 1e-15);
  QVERIFY((set.contacts[0].pointB - Vec3(0.3, -0.2, 0)).norm() < 1e-15);
  spherePlane(ground, ball, pose(Vec3(0.3, -0.2, 0.5 + 0.125)), set);
  QVERIFY(std::abs(set.contacts[0].phi - 0.125) < 1e-15);
  QVERIFY((set.contacts[0].dxB - Vec3(0, 0, 1).transpose()).norm() < 1e-15);
  QVERIFY(set.contacts[0].dthB.norm() < 1e-15);  // rotating a centred sphere does not move it
  ContactShape offsetBall = ball;
  offsetBall.position = Vec3(0, 0, -1);
  const Vec4 flip = quat::fromAxisAngle(Vec3::UnitX(), kPi);  // offset now points up
  spherePlane(ground, offsetBall, pose(Vec3(0, 0, -0.5 + 0.25), flip), set);
  QVERIFY(std::abs(set.contacts[0].phi - 0.25) < 1e-14);
  // Tilted plane (an incline of 30° through (1, 2, 3)): a sphere whose centre is r + d along n.
  const double alpha = kPi / 6;
  const WorldPlane incline = makeWorldPlane(Vec3(1, 2, 3), Vec3(-std::sin(alpha), 0, std::cos(alpha)));
  const Vec3 along(std::cos(alpha), 0, std::sin(alpha));
  spherePlane(incline, ball, pose(incline.point + 0.7 * along + (0.5 + 0.05) * incline.normal), set);
  QVERIFY(std::abs(set.contacts[0].phi - 0.05) < 1e-14);
  QVERIFY((set.contacts[0].pointA - (incline.point + 0.7 * along)).norm() < 1e-14);
  QVERIFY(consistent(set.contacts[0], nullptr, pose(incline.point + 0.7 * along + 0.55 * incline.normal)));
  // Capsule lying on the ground along x, and standing on one end.
  const ContactShape cap = capsule(0.1, 0.4);
  const Vec4 lying = quat::fromAxisAngle(Vec3::UnitY(), kPi / 2);
  capsulePlane(ground, cap, pose(Vec3(0, 0, 0.1), lying), set);
  QCOMPARE(set.count, 2);
  QVERIFY(std::abs(set.contacts[0].phi) < 1e-15 && std::abs(set.contacts[1].phi) < 1e-15);
  QVERIFY((set.contacts[0].pointB - Vec3(0.4, 0, 0)).norm() < 1e-15);
  capsulePlane(ground, cap, pose(Vec3(0, 0, 0.5)), set);
  QVERIFY(std::abs(set.contacts[0].phi - 0.8) < 1e-15 && std::abs(set.contacts[1].phi) < 1e-15);
  // Box with half extents 1 standing on a corner (rotated 45° about x, then atan(1/√2) about y):
  // the body diagonal is vertical, the lowest corner at √3 below the centre.
  const ContactShape cube = box(Vec3(1, 1, 1));
  const Vec4 q1 = quat::fromAxisAngle(Vec3::UnitX(), kPi / 4);
  const Vec4 q2 = quat::fromAxisAngle(Vec3::UnitY(), std::atan(1 / std::sqrt(2.0)));
  const Vec4 onCorner = quat::mul(q2, q1);
  boxPlane(ground, cube, pose(Vec3(0, 0, std::sqrt(3.0) + 0.01), onCorner), set);
  QCOMPARE(set.count, 8);
  double lowest = 1e9, highest = -1e9;
  int atLowest = 0;
  for (int k = 0; k < 8; ++k) {
    lowest = std::min(lowest, set.contacts[k].phi);
    highest = std::max(highest, set.contacts[k].phi);
  }
  for (int k = 0; k < 8; ++k) atLowest += std::abs(set.contacts[k].phi - lowest) < 1e-9;
  QVERIFY(std::abs(lowest - 0.01) < 1e-14);
  QVERIFY(std::abs(highest - (2 * std::sqrt(3.0) + 0.01)) < 1e-14);
  QCOMPARE(atLowest, 1);
  // Box on an edge (45° about x): two corners touch, φ = min corner height = 0.
  boxPlane(ground, cube, pose(Vec3(0, 0, std::sqrt(2.0)), q1), set);
  lowest = 1e9;
  atLowest = 0;
  for (int k = 0; k < 8; ++k) lowest = std::min(lowest, set.contacts[k].phi);
  for (int k = 0; k < 8; ++k) atLowest += std::abs(set.contacts[k].phi - lowest) < 1e-12;
  QVERIFY(std::abs(lowest) < 1e-14);
  QCOMPARE(atLowest, 2);
  // Box resting flat on a 20° incline: the four lower corners at φ = 0, the others at the height.
  const WorldPlane slope = makeWorldPlane(Vec3(0, 0, 0), Vec3(0, -std::sin(0.35), std::cos(0.35)));
  const Vec4 tilt = quat::fromAxisAngle(Vec3::UnitX(), 0.35);
  const ContactShape slab = box(Vec3(0.5, 0.3, 0.2));
  boxPlane(slope, slab, pose(0.2 * slope.normal + Vec3(0.3, 0.1 * std::cos(0.35), 0.1 * std::sin(0.35)), tilt), set);
  for (int k = 0; k < 8; ++k) {
    const double expect = (k & 4) ? 0.4 : 0.0;
    QVERIFY2(std::abs(set.contacts[k].phi - expect) < 1e-14, qPrintable(QString("corner %1: %2").arg(k).arg(set.contacts[k].phi)));
  }
}

void TestContactGeometry::cylinderPlaneKnownValuesAndSingularCase() {
  const WorldPlane ground;
  const ContactShape cyl = cylinder(0.5, 1.0);  // radius 0.5, length 2
  ContactSet set;
  // Standing upright, bottom disc on the ground: [1] and the bottom rim points [6..9] at 0, top at 2.
  cylinderPlane(ground, cyl, pose(Vec3(0.2, 0.3, 1.0)), set);
  QCOMPARE(set.count, 10);
  for (int k : {1, 6, 7, 8, 9}) QVERIFY(std::abs(set.contacts[k].phi) < 1e-15);
  for (int k : {0, 2, 3, 4, 5}) QVERIFY(std::abs(set.contacts[k].phi - 2.0) < 1e-15);
  // Lying on its side (axis along x): the lowest rim points of both discs touch.
  cylinderPlane(ground, cyl, pose(Vec3(0, 0, 0.5), quat::fromAxisAngle(Vec3::UnitY(), kPi / 2)), set);
  QVERIFY(std::abs(set.contacts[0].phi) < 1e-15 && std::abs(set.contacts[1].phi) < 1e-15);
  QVERIFY((set.contacts[0].pointB - Vec3(1, 0, 0)).norm() < 1e-15);
  // Tilted by α: lowest rim point at h − L/2 cos α − r sin α; the fixed points are never lower.
  for (double alpha : {0.3, 1e-3, 1e-7, 1e-13, 0.0}) {
    const double h = 1.5;
    cylinderPlane(ground, cyl, pose(Vec3(0, 0, h), quat::fromAxisAngle(Vec3(1, 2, 0), alpha)), set);
    const double expect = h - std::cos(alpha) - 0.5 * std::sin(alpha);
    QVERIFY2(std::abs(set.contacts[1].phi - expect) < 1e-14, qPrintable(QString("alpha %1: %2").arg(alpha).arg(set.contacts[1].phi - expect)));
    for (int k = 6; k < 10; ++k) QVERIFY(set.contacts[k].phi >= set.contacts[1].phi - 1e-15);
    // Continuity at the singular pose: every bottom candidate within r·sin α + (L/2)(1 − cos α) of
    // the flat value.
    for (int k : {1, 6, 7, 8, 9})
      QVERIFY(std::abs(set.contacts[k].phi - (h - 1.0)) <= 0.5 * std::sin(alpha) + (1 - std::cos(alpha)) + 1e-14);
    for (int k = 0; k < 10; ++k) QVERIFY(std::isfinite(set.contacts[k].dthB.norm()));
  }
}

void TestContactGeometry::pairKnownValues() {
  Contact c;
  // Overlapping spheres: r 1 and 0.5, centres 1.2 apart along (1, 2, 2)/3.
  const Vec3 dir = Vec3(1, 2, 2) / 3;
  const BodyPose za = pose(Vec3(0.1, 0.2, 0.3), randQuat()), zb = pose(za.x + 1.2 * dir, randQuat());
  sphereSphere(sphere(1.0), za, sphere(0.5), zb, c);
  QVERIFY(std::abs(c.phi + 0.3) < 1e-14);
  QVERIFY((c.normal - dir).norm() < 1e-14);
  QVERIFY((c.pointA - (za.x + dir)).norm() < 1e-14);
  QVERIFY(consistent(c, &za, zb));
  // Concentric spheres: fallback normal +z, φ = −r_A − r_B.
  sphereSphere(sphere(1.0), za, sphere(0.5), pose(za.x), c);
  QVERIFY(std::abs(c.phi + 1.5) < 1e-15 && (c.normal - Vec3::UnitZ()).norm() < 1e-15);
  // Sphere against a capsule's side and beyond its end.
  const ContactShape capX = capsule(0.1, 1.0);                                // along z of its frame
  const BodyPose alongX = pose(Vec3::Zero(), quat::fromAxisAngle(Vec3::UnitY(), kPi / 2));  // axis → x
  sphereCapsule(sphere(0.2), pose(Vec3(0.4, 0, 0.5)), capX, alongX, c);
  QVERIFY(std::abs(c.phi - 0.2) < 1e-14 && (c.normal - Vec3(0, 0, -1)).norm() < 1e-14);
  // Beyond the end x = 1: centre (1.3, 0.4, 0) is 0.5 from the end, φ = 0.5 − 0.1 − 0.2.
  const BodyPose zsph = pose(Vec3(1.3, 0.4, 0), randQuat());
  sphereCapsule(sphere(0.2), zsph, capX, alongX, c);
  QVERIFY(std::abs(c.phi - 0.2) < 1e-14);
  QVERIFY((c.normal - Vec3(-0.6, -0.8, 0)).norm() < 1e-14);
  QVERIFY((c.pointB - Vec3(1.06, 0.08, 0)).norm() < 1e-14);
  QVERIFY(consistent(c, &zsph, alongX));
  // Capsules crossing: A along x at z = 0, B along y at z = 0.3; radii 0.1.
  const BodyPose alongY = pose(Vec3(0, 0, 0.3), quat::fromAxisAngle(Vec3::UnitX(), kPi / 2));
  capsuleCapsule(capX, alongX, capX, alongY, c);
  QVERIFY(std::abs(c.phi - 0.1) < 1e-14);
  QVERIFY((c.normal - Vec3::UnitZ()).norm() < 1e-14);
  QVERIFY((c.pointA - Vec3(0, 0, 0.1)).norm() < 1e-14 && (c.pointB - Vec3(0, 0, 0.2)).norm() < 1e-14);
  // Intersecting axes: fallback normal ±(u_A × u_B), φ = −0.2.
  capsuleCapsule(capX, alongX, capX, pose(Vec3(0.3, 0, 0), alongY.q), c);
  QVERIFY(std::abs(c.phi + 0.2) < 1e-14);
  QVERIFY(std::abs(std::abs(c.normal.z()) - 1) < 1e-14);
  // Parallel, overlapping: B along x shifted by (1.5, 0, 0.5): overlap x ∈ [0.5, 1], middle 0.75.
  capsuleCapsule(capX, alongX, capX, pose(Vec3(1.5, 0, 0.5), alongX.q), c);
  QVERIFY(std::abs(c.phi - 0.3) < 1e-14);
  QVERIFY((c.pointA - Vec3(0.75, 0, 0.1)).norm() < 1e-14 && (c.pointB - Vec3(0.75, 0, 0.4)).norm() < 1e-14);
  // Anti-parallel: same witness points.
  capsuleCapsule(capX, alongX, capX, pose(Vec3(1.5, 0, 0.5), quat::fromAxisAngle(Vec3::UnitY(), -kPi / 2)), c);
  QVERIFY(std::abs(c.phi - 0.3) < 1e-14);
  QVERIFY((c.pointA - Vec3(0.75, 0, 0.1)).norm() < 1e-14);
  // Parallel, not overlapping: nearest ends x = 1 and x = 2.
  capsuleCapsule(capX, alongX, capX, pose(Vec3(3.0, 0, 0.5), alongX.q), c);
  QVERIFY(std::abs(c.phi - (std::sqrt(1.25) - 0.2)) < 1e-14);
  // Nearly parallel (below and above the parallel threshold): φ continuous.
  for (double eps : {1e-7, 1e-5, 1e-3}) {
    const BodyPose b = pose(Vec3(1.5, 0, 0.5), quat::mul(quat::fromAxisAngle(Vec3::UnitZ(), eps), alongX.q));
    capsuleCapsule(capX, alongX, capX, b, c);
    QVERIFY2(std::abs(c.phi - 0.3) < 2 * eps, qPrintable(QString("eps %1: %2").arg(eps).arg(c.phi)));
  }
  // Sphere vs box (half extents 1, 0.5, 0.25; box body rotated, sphere r 0.5).
  const ContactShape slab = box(Vec3(1, 0.5, 0.25));
  const BodyPose zbox = pose(Vec3(1, 2, 3), quat::fromAxisAngle(Vec3(1, 1, 1), 0.7));
  const Mat3 R = quat::rotation(zbox.q);
  auto at = [&](const Vec3& local) { return pose(zbox.x + R * local, randQuat()); };
  // Outside a face.
  BodyPose zs = at(Vec3(2, 0.1, 0.05));
  sphereBox(sphere(0.5), zs, slab, zbox, c);
  QVERIFY(std::abs(c.phi - 0.5) < 1e-14);
  QVERIFY((c.normal + R.col(0)).norm() < 1e-14);
  QVERIFY((c.pointB - (zbox.x + R * Vec3(1, 0.1, 0.05))).norm() < 1e-14);
  QVERIFY(consistent(c, &zs, zbox));
  // Outside an edge: 0.3 beyond x, 0.4 beyond y.
  zs = at(Vec3(1.3, 0.9, 0.1));
  sphereBox(sphere(0.2), zs, slab, zbox, c);
  QVERIFY(std::abs(c.phi - 0.3) < 1e-14);
  QVERIFY((c.normal + R * Vec3(0.6, 0.8, 0)).norm() < 1e-14);
  QVERIFY(consistent(c, &zs, zbox));
  // Outside a corner.
  zs = at(Vec3(-1.2, -0.7, 0.45));
  sphereBox(sphere(0.1), zs, slab, zbox, c);
  QVERIFY(std::abs(c.phi - (std::sqrt(0.04 + 0.04 + 0.04) - 0.1)) < 1e-14);
  // Inside: nearest face +x (gap 0.1 < 0.25 < 0.5): φ = −0.1 − r along −x (from the sphere to the box).
  zs = at(Vec3(0.9, 0.05, -0.02));
  sphereBox(sphere(0.1), zs, slab, zbox, c);
  QVERIFY(std::abs(c.phi + 0.2) < 1e-14);
  QVERIFY((c.normal + R.col(0)).norm() < 1e-14);
  QVERIFY((c.pointB - (zbox.x + R * Vec3(1, 0.05, -0.02))).norm() < 1e-14);
  QVERIFY(consistent(c, &zs, zbox));
  // Inside near the −z face.
  zs = at(Vec3(0.1, 0.05, -0.2));
  sphereBox(sphere(0.1), zs, slab, zbox, c);
  QVERIFY(std::abs(c.phi + 0.15) < 1e-14);
  QVERIFY((c.normal - R.col(2)).norm() < 1e-14);
  // Centre exactly on a face: φ = −r, continuous from both sides.
  zs = at(Vec3(1.0, 0.1, 0.1));
  sphereBox(sphere(0.1), zs, slab, zbox, c);
  QVERIFY(std::abs(c.phi + 0.1) < 1e-14);
  // Dispatch with swapped order returns the swapped contact.
  Contact d;
  QVERIFY(shapePair(slab, zbox, sphere(0.1), zs, d));
  QVERIFY(std::abs(d.phi - c.phi) < 1e-15 && (d.normal + c.normal).norm() < 1e-15);
  QVERIFY((d.dxA - c.dxB).norm() < 1e-15 && (d.dthB - c.dthA).norm() < 1e-15);
  QVERIFY(!shapePair(slab, zbox, slab, zbox, d));
  // Capsule of length 0 = sphere.
  const ContactShape dot = capsule(0.2, 0.0, true);
  ContactShape ball = sphere(0.2);
  ball.position = dot.position;
  sphereCapsule(sphere(0.3), za, dot, zb, c);
  sphereSphere(sphere(0.3), za, ball, zb, d);
  QVERIFY(std::abs(c.phi - d.phi) < 1e-15 && (c.dthB - d.dthB).norm() < 1e-14);
}

void TestContactGeometry::capsuleDistanceMatchesBruteForce() {
  double worst = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const ContactShape a = capsule(rnd.uni(0.05, 0.3), rnd.uni(0, 1), true), b = capsule(rnd.uni(0.05, 0.3), rnd.uni(0, 1), true);
    const BodyPose za = randPose(0.5), zb = randPose(1.0);
    Contact c;
    capsuleCapsule(a, za, b, zb, c);
    const Mat3 RA = quat::rotation(za.q) * a.rotation, RB = quat::rotation(zb.q) * b.rotation;
    const Vec3 cA = za.x + quat::rotate(za.q, a.position), cB = zb.x + quat::rotate(zb.q, b.position);
    const double brute = segmentDistanceBrute(cA, RA.col(2), a.halfLength, cB, RB.col(2), b.halfLength);
    worst = std::max(worst, std::abs(c.phi - (brute - a.radius - b.radius)));
    QVERIFY(consistent(c, &za, zb));
  }
  QVERIFY2(worst < 1e-9, qPrintable(QString("capsule distance vs brute force %1").arg(worst)));
}

void TestContactGeometry::planeGradientsMatchFiniteDifferences() {
  struct Case {
    const char* name;
    PlaneFn fn;
  };
  const Case cases[] = {{"sphere-plane", spherePlane},
                        {"capsule-plane", capsulePlane},
                        {"box-plane", boxPlane},
                        {"cylinder-plane", cylinderPlane}};
  for (const Case& cs : cases)
    for (int trial = 0; trial < kPoses; ++trial) {
      const WorldPlane plane = makeWorldPlane(rnd.randVec(0.5), trial % 4 == 0 ? Vec3::UnitZ() : Vec3(randUnit()));
      ContactShape s;
      if (cs.fn == spherePlane) s = sphere(rnd.uni(0.05, 0.5), true);
      if (cs.fn == capsulePlane) s = capsule(rnd.uni(0.05, 0.5), rnd.uni(0, 1), true);
      if (cs.fn == boxPlane) s = box(Vec3(rnd.uni(0.05, 1), rnd.uni(0.05, 1), rnd.uni(0.05, 1)), true);
      if (cs.fn == cylinderPlane) s = cylinder(rnd.uni(0.05, 0.5), rnd.uni(0.05, 1), true);
      const BodyPose z = randPose(1.0);
      ContactSet set;
      cs.fn(plane, s, z, set);
      for (int k = 0; k < set.count; ++k) {
        const Contact& c = set.contacts[k];
        QVERIFY(consistent(c, nullptr, z));
        QVERIFY(c.dxA.norm() == 0 && c.dthA.norm() == 0);
        auto f = [&](const BodyPose&, const BodyPose& pb) {
          ContactSet t;
          cs.fn(plane, s, pb, t);
          return t.contacts[k].phi;
        };
        const double err = relError(analytic(c), numericGradient(BodyPose(), z, f));
        record(cs.name, err);
        QVERIFY2(err < 1e-6, qPrintable(QString("%1 candidate %2 error %3").arg(cs.name).arg(k).arg(err)));
      }
      // The dispatcher gives the same set.
      ContactSet again;
      QCOMPARE(shapePlane(plane, s, z, again), set.count);
      QCOMPARE(again.contacts[set.count - 1].phi, set.contacts[set.count - 1].phi);
    }
}

void TestContactGeometry::pairGradientsMatchFiniteDifferences() {
  struct Case {
    const char* name;
    PairFn fn;
    int kindA, kindB;  // 0 sphere, 1 capsule, 2 box
  };
  const Case cases[] = {{"sphere-sphere", sphereSphere, 0, 0},   {"sphere-capsule", sphereCapsule, 0, 1},
                        {"capsule-capsule", capsuleCapsule, 1, 1}, {"sphere-box", sphereBox, 0, 2},
                        {"capsule-sphere (dispatch)", dispatchPair, 1, 0},
                        {"box-sphere (dispatch)", dispatchPair, 2, 0}};
  auto make = [](int kind) {
    if (kind == 0) return sphere(rnd.uni(0.05, 0.5), true);
    if (kind == 1) return capsule(rnd.uni(0.05, 0.4), rnd.uni(0, 1), true);
    return box(Vec3(rnd.uni(0.1, 1), rnd.uni(0.1, 1), rnd.uni(0.1, 1)), true);
  };
  for (const Case& cs : cases) {
    int inside = 0, negative = 0;
    for (int trial = 0; trial < kPoses; ++trial) {
      const ContactShape a = make(cs.kindA), b = make(cs.kindB);
      const BodyPose za = randPose(1.0);
      // B near A: from deep overlap to separated.
      const BodyPose zb = pose(za.x + rnd.uni(0, 1.5) * randUnit(), randQuat());
      Contact c;
      const double err = checkPairGradient(cs.fn, a, za, b, zb, c);
      record(cs.name, err);
      QVERIFY2(err < 1e-6, qPrintable(QString("%1 trial %2 error %3 (phi %4)").arg(cs.name).arg(trial).arg(err).arg(c.phi)));
      QVERIFY(consistent(c, &za, zb));
      // Translating both bodies together does not change φ: ∂φ/∂x_A = −∂φ/∂x_B.
      QVERIFY((c.dxA + c.dxB).norm() < 1e-15);
      negative += c.phi < 0;
      if (cs.kindB == 2 || cs.kindA == 2) {
        const ContactShape& bx = cs.kindA == 2 ? a : b;
        const BodyPose& zbx = cs.kindA == 2 ? za : zb;
        const Vec3 sc = (cs.kindA == 2 ? zb : za).x + quat::rotate((cs.kindA == 2 ? zb : za).q, (cs.kindA == 2 ? b : a).position);
        const Vec3 cb = (quat::rotation(zbx.q) * bx.rotation).transpose() * (sc - zbx.x - quat::rotate(zbx.q, bx.position));
        inside += (cb.array().abs() < bx.halfExtents.array()).all();
      }
    }
    // Both signs (and, for boxes, centres inside the box) were exercised.
    QVERIFY2(negative > 10 && negative < kPoses - 10, qPrintable(QString("%1: %2 overlapping").arg(cs.name).arg(negative)));
    if (cs.kindA == 2 || cs.kindB == 2) QVERIFY2(inside > 5, qPrintable(QString("%1: %2 inside").arg(cs.name).arg(inside)));
  }
}

void TestContactGeometry::frictionBasisOrthonormal() {
  double worst = 0;
  for (int i = 0; i < 1000; ++i) {
    Vec3 n;
    const double tiny[] = {0.0, 1e-300, 1e-200, 1e-17, 1e-15, 1e-12, 1e-9, 1e-6, 1e-3};
    if (i < 2) n = Vec3(0, 0, i == 0 ? 1 : -1);  // ±z exactly
    else if (i < 200) {  // near the poles and on the equator
      const double e = tiny[i % 9] * rnd.uni(-1, 1);
      const double f = tiny[(i / 9) % 9] * rnd.uni(-1, 1);
      if (i % 3 == 0) n = Vec3(e, f, 1).normalized();
      else if (i % 3 == 1) n = Vec3(e, f, -1).normalized();
      else n = Vec3(std::cos(i), std::sin(i), e).normalized();
    } else
      n = randUnit();
    Vec3 t1, t2;
    frictionBasis(n, t1, t2);
    const double err = std::max({std::abs(t1.norm() - 1), std::abs(t2.norm() - 1), std::abs(t1.dot(t2)),
                                 std::abs(t1.dot(n)), std::abs(t2.dot(n)), (t1.cross(t2) - n).norm()});
    worst = std::max(worst, err);
    QVERIFY2(err < 1e-14, qPrintable(QString("n = (%1, %2, %3): error %4").arg(n.x()).arg(n.y()).arg(n.z()).arg(err)));
  }
  record("friction basis orthonormality (abs)", worst);
  // The ground normal gives the world axes.
  Vec3 t1, t2;
  frictionBasis(Vec3::UnitZ(), t1, t2);
  QVERIFY(t1 == Vec3::UnitX() && t2 == Vec3::UnitY());
}

void TestContactGeometry::frictionBasisContinuous() {
  // A change δn moves the basis by at most C·|δn|, with C growing only near the singular point −z
  // (the minimal-rotation frame winds twice around it: C ≈ 2/ρ, ρ = distance from −z).
  double worstRatio = 0;
  for (int i = 0; i < 2000; ++i) {
    Vec3 n = randUnit();
    if (i < 200) n = Vec3(rnd.uni(-1e-3, 1e-3), rnd.uni(-1e-3, 1e-3), 1).normalized();                    // near +z
    else if (i < 400) n = Vec3(std::cos(i), std::sin(i), rnd.uni(-1e-9, 1e-9)).normalized();         // equator
    if (1 + n.z() < 1e-4) continue;
    const Vec3 m = (n + rnd.randVec(1e-7)).normalized();
    Vec3 a1, a2, b1, b2;
    frictionBasis(n, a1, a2);
    frictionBasis(m, b1, b2);
    const double rho = (n + Vec3::UnitZ()).norm();
    const double ratio = ((a1 - b1).norm() + (a2 - b2).norm()) / (n - m).norm();
    worstRatio = std::max(worstRatio, ratio * rho);
    QVERIFY2(ratio < 2.0 + 4.0 / rho, qPrintable(QString("ratio %1 at rho %2").arg(ratio).arg(rho)));
  }
  record("friction basis |δt|/|δn|·ρ (max)", worstRatio);
  // Across the equator (where Duff et al.'s sign switch would put a seam) the basis is continuous.
  for (int i = 0; i < 100; ++i) {
    const double ang = rnd.uni(0, 2 * kPi);
    Vec3 a1, a2, b1, b2;
    frictionBasis(Vec3(std::cos(ang), std::sin(ang), 1e-12).normalized(), a1, a2);
    frictionBasis(Vec3(std::cos(ang), std::sin(ang), -1e-12).normalized(), b1, b2);
    QVERIFY((a1 - b1).norm() + (a2 - b2).norm() < 1e-10);
  }
}

void TestContactGeometry::frictionRowsMatchFiniteDifferences() {
  const int counts[] = {4, 5, 6, 8, 16};
  double worst = 0;
  for (int trial = 0; trial < kPoses; ++trial) {
    const int nf = counts[trial % 5];
    const BodyPose za = randPose(1.0), zb = pose(za.x + rnd.uni(0, 1.5) * randUnit(), randQuat());
    Contact c;
    const bool plane = trial % 3 == 0;
    if (plane) {
      ContactSet set;
      boxPlane(makeWorldPlane(rnd.randVec(0.5), randUnit()), box(Vec3(0.3, 0.4, 0.5), true), zb, set);
      c = set.contacts[trial % 8];
    } else if (trial % 3 == 1) {
      sphereBox(sphere(0.3, true), za, box(Vec3(0.3, 0.4, 0.5), true), zb, c);
    } else {
      capsuleCapsule(capsule(0.2, 0.5, true), za, capsule(0.1, 0.7, true), zb, c);
    }
    FrictionRows fr;
    frictionRows(c, plane ? nullptr : &za, zb, nf, fr);
    QCOMPARE(fr.count, nf);
    const Vec3 vA = rnd.randVec(2), wA = rnd.randVec(3), vB = rnd.randVec(2), wB = rnd.randVec(3);
    const double h = 1e-6;
    const Vec3 velB = (pointAfterStep(zb, vB, wB, c.localB, h) - pointAfterStep(zb, vB, wB, c.localB, -h)) / (2 * h);
    const Vec3 velA = (pointAfterStep(za, vA, wA, c.localA, h) - pointAfterStep(za, vA, wA, c.localA, -h)) / (2 * h);
    for (int k = 0; k < nf; ++k) {
      const Vec3 d = fr.d.row(k).transpose();
      QVERIFY(std::abs(d.norm() - 1) < 1e-14 && std::abs(d.dot(c.normal)) < 1e-14);
      const double angle = 2 * kPi * k / nf;
      QVERIFY((d - (std::cos(angle) * fr.t1 + std::sin(angle) * fr.t2)).norm() < 1e-14);
      if (nf % 2 == 0 && k >= nf / 2) QVERIFY(fr.d.row(k) == -fr.d.row(k - nf / 2));
      const double anaB = fr.dvB.row(k).dot(vB.transpose()) + fr.dwB.row(k).dot(wB.transpose());
      const double errB = std::abs(anaB - d.dot(velB)) / std::max(1.0, std::abs(anaB));
      worst = std::max(worst, errB);
      QVERIFY2(errB < 1e-6, qPrintable(QString("body B row %1 error %2").arg(k).arg(errB)));
      if (plane) {
        QVERIFY(fr.dvA.row(k).norm() == 0 && fr.dwA.row(k).norm() == 0);
      } else {
        const double anaA = fr.dvA.row(k).dot(vA.transpose()) + fr.dwA.row(k).dot(wA.transpose());
        const double errA = std::abs(anaA - d.dot(velA)) / std::max(1.0, std::abs(anaA));
        worst = std::max(worst, errA);
        QVERIFY2(errA < 1e-6, qPrintable(QString("body A row %1 error %2").arg(k).arg(errA)));
      }
    }
    for (int k = nf; k < kMaxFrictionDirections; ++k) QVERIFY(fr.d.row(k).norm() == 0 && fr.dwB.row(k).norm() == 0);
    // The velocity rows are the position gradients along d (ω and θ are both body-frame).
    QVERIFY((fr.dwB.row(0) - (-(fr.d.row(0) * quat::rotation(zb.q) * quat::skew(c.localB)))).norm() < 1e-14);
  }
  record("tangential velocity rows", worst);
}

void TestContactGeometry::twistedPolygonConvertsBack() {
  // A polygon turned by π/n_f has the directions of the plain one turned about the normal; the
  // friction impulse of any non-negative impulses along it is the same force as the non-negative
  // impulses frictionInPolygon puts on (at most) two neighbouring plain directions.
  double worst = 0;
  for (int trial = 0; trial < kPoses; ++trial) {
    const int nf = 4 + 2 * (trial % 4);
    const BodyPose zb = pose(rnd.randVec(1), randQuat());
    ContactSet set;
    boxPlane(makeWorldPlane(rnd.randVec(0.5), randUnit()), box(Vec3(0.3, 0.4, 0.5), true), zb, set);
    const Contact& c = set.contacts[trial % 8];
    FrictionRows plain, turned;
    frictionRows(c, nullptr, zb, nf, plain);
    frictionRows(c, nullptr, zb, nf, turned, kPi / nf);
    Vec3 f = Vec3::Zero();
    for (int k = 0; k < nf; ++k) {
      QVERIFY(std::abs(turned.d.row(k).dot(plain.d.row(k)) - std::cos(kPi / nf)) < 1e-12);
      QVERIFY(std::abs(turned.d.row(k).dot(c.normal)) < 1e-12);
      f += turned.d.row(k).transpose() * (trial % 5 == 0 && k != 1 ? 0.0 : rnd.uni(0, 2));
    }
    double beta[kMaxFrictionDirections];
    frictionInPolygon(f, plain, beta);
    Vec3 back = Vec3::Zero();
    int nonzero = 0;
    for (int k = 0; k < nf; ++k) {
      QVERIFY(beta[k] >= 0);
      nonzero += beta[k] > 0;
      back += plain.d.row(k).transpose() * beta[k];
    }
    QVERIFY(nonzero <= 2);
    worst = std::max(worst, (back - f).norm() / std::max(1e-300, f.norm()));
  }
  qInfo("twisted polygon: friction force recovered to a relative %.2e", worst);
  QVERIFY(worst < 1e-12);
  // No friction: no impulses.
  FrictionRows plain;
  ContactSet set;
  boxPlane(makeWorldPlane(Vec3::Zero(), Vec3::UnitZ()), box(Vec3(0.3, 0.4, 0.5), true), pose(Vec3::Zero(), randQuat()), set);
  frictionRows(set.contacts[0], nullptr, pose(Vec3::Zero(), Vec4(1, 0, 0, 0)), 4, plain);
  double beta[kMaxFrictionDirections];
  frictionInPolygon(Vec3::Zero(), plain, beta);
  for (int k = 0; k < 4; ++k) QCOMPARE(beta[k], 0.0);
}


void TestContactGeometry::pairLayoutsHaveTheirCounts() {
  // Every ordered pair fills exactly pairCandidateCount candidates, the same number both ways
  // (capsule–capsule: both cap centres each way and the cores' crossing, contact_geometry.h).
  const int expected[kPairKinds][kPairKinds] = {{1, 1, 1, 1, 1, 1},      {1, 5, 3, 3, 2, 3},     {1, 3, 17, 19, 8, 21},
                                                {1, 3, 19, 21, 10, 23}, {1, 2, 8, 10, 0, 12}, {1, 3, 21, 23, 12, 25}};
  for (int ka = 0; ka < kPairKinds; ++ka)
    for (int kb = 0; kb < kPairKinds; ++kb) {
      const ContactShape a = randomShape(ka), b = randomShape(kb);
      QCOMPARE(pairCandidateCount(a, b), expected[ka][kb]);
      QCOMPARE(pairCandidateCount(b, a), expected[ka][kb]);
      ContactSet set;
      pairCandidates(a, randPose(1), b, randPose(1), set);
      QCOMPARE(set.count, expected[ka][kb]);
    }
}

void TestContactGeometry::pointDistancesAreConsistent() {
  // For every shape kind and random points (inside and out): the closest point lies on the surface
  // (its own distance is 0), p − point = φ n with |n| = 1, and φ agrees with its finite-difference
  // gradient: ∇φ = n.
  for (int kind = 0; kind < kPairKinds; ++kind) {
    int inside = 0;
    for (int trial = 0; trial < kPoses; ++trial) {
      const ContactShape s = randomShape(kind);
      const BodyPose z = randPose(1.0);
      const Vec3 p = z.x + rnd.randVec(0.6);
      const SurfacePoint sp = signedDistance(s, z, p);
      inside += sp.phi < 0;
      QVERIFY(std::abs(sp.normal.norm() - 1) < 1e-12);
      QVERIFY2((p - sp.point - sp.phi * sp.normal).norm() < 1e-12, kKindNames[kind]);
      QVERIFY2(std::abs(signedDistance(s, z, sp.point).phi) < 1e-12, kKindNames[kind]);
      Vec3 g;
      const double h = 1e-6;
      for (int c = 0; c < 3; ++c) {
        Vec3 d = Vec3::Zero();
        d(c) = h;
        g(c) = (signedDistance(s, z, p + d).phi - signedDistance(s, z, p - d).phi) / (2 * h);
      }
      record(std::string("sdf ") + kKindNames[kind], (g - sp.normal).norm());
      QVERIFY2((g - sp.normal).norm() < 1e-6, qPrintable(QString("%1: |∇φ − n| = %2").arg(kKindNames[kind]).arg((g - sp.normal).norm())));
    }
    if (kind != 4) QVERIFY2(inside > 5 && inside < kPoses - 5, kKindNames[kind]);
    qInfo("%s: %d of %d points inside", kKindNames[kind], inside, kPoses);
  }
}

void TestContactGeometry::everyPairGradientsMatchFiniteDifferences() {
  // Every ordered pair of kinds at random poses, from overlapping to apart: each candidate's φ has the
  // analytic gradient of central differences (h = 1e-6). A candidate whose central differences with
  // h and h/10 disagree sits on a kink of φ (a tie between features, within ~h of a region boundary)
  // and is not compared; such candidates must stay rare (< 2 %). The candidates chosen by minimising
  // along a curve (a capsule's core segment, a cylinder's rims, a polytope's edges against a cylinder)
  // are compared where they are apart or touching (φ ≥ 0): inside the other shape the minimum sits on
  // a ridge of its distance function, where φ's gradient mixes two faces and the candidate's is the
  // nearer face's (a one-sided derivative; the solution, φ ≥ 0, is in the exact region).
  // (The sanitizer build runs half the poses: the 36 pairs' 2 × 24 perturbed evaluations a candidate
  // are most of the sanitizer stage's longest test.)
  const int trials = test::sanitizerBuild() ? kPoses / 8 : kPoses / 4;
  for (int ka = 0; ka < kPairKinds; ++ka)
    for (int kb = 0; kb < kPairKinds; ++kb) {
      const std::string name = std::string(kKindNames[ka]) + "-" + kKindNames[kb] + " (pair)";
      int checked = 0, kinks = 0, negative = 0, insideMinimised = 0;
      for (int trial = 0; trial < trials; ++trial) {
        const ContactShape a = randomShape(ka), b = randomShape(kb);
        const BodyPose za = randPose(1.0);
        const BodyPose zb = pose(za.x + rnd.uni(0, 1.2) * randUnit(), randQuat());
        ContactSet set;
        PairFeatures features;  // chosen here, kept for the perturbed poses (as within a step)
        pairCandidates(a, za, b, zb, set, &features, true);
        for (int k = 0; k < set.count; ++k) {
          const Contact& c = set.contacts[k];
          QVERIFY2(consistent(c, &za, zb), qPrintable(QString("%1 candidate %2").arg(name.c_str()).arg(k)));
          QVERIFY((c.dxA + c.dxB).norm() < 1e-12);
          negative += c.phi < 0;
          if (c.phi < 0 && minimised(ka, kb, k, set.count)) {
            ++insideMinimised;
            continue;
          }
          auto f = [&](const BodyPose& pa, const BodyPose& pb) {
            ContactSet t;
            PairFeatures kept = features;
            pairCandidates(a, pa, b, pb, t, &kept, false);
            return t.contacts[k].phi;
          };
          const Row12 num = numericGradient(za, zb, f);
          Row12 fine;
          {
            const double h = 1e-7;
            for (int cc = 0; cc < 6; ++cc) fine(cc) = (f(perturb(za, cc, h), zb) - f(perturb(za, cc, -h), zb)) / (2 * h);
            for (int cc = 0; cc < 6; ++cc) fine(6 + cc) = (f(za, perturb(zb, cc, h)) - f(za, perturb(zb, cc, -h))) / (2 * h);
          }
          if (relError(num, fine) > 1e-5) {
            ++kinks;
            continue;
          }
          ++checked;
          const double err = relError(analytic(c), num);
          record(name, err);
          QVERIFY2(err < 1e-6, qPrintable(QString("%1 trial %2 candidate %3 error %4 (phi %5)")
                                              .arg(name.c_str()).arg(trial).arg(k).arg(err).arg(c.phi)));
        }
      }
      QVERIFY2(kinks <= std::max(1, checked / 50), qPrintable(QString("%1: %2 kinks of %3").arg(name.c_str()).arg(kinks).arg(checked + kinks)));
      if (insideMinimised > 0) qInfo("%s: %d minimised candidates inside the other shape not compared", name.c_str(), insideMinimised);
      if (ka != 4 && kb != 4) QVERIFY2(negative > 0, qPrintable(QString("%1: never overlapping").arg(name.c_str())));
    }
}

// World vertices, face normals and edges of a box or hull shape (for brute-force checks).
struct WorldPoly {
  std::vector<Vec3> v, normals;
  std::vector<std::pair<int, int>> edges;
};
WorldPoly worldPoly(const ContactShape& s, const BodyPose& z) {
  WorldPoly w;
  const Mat3 Q = quat::rotation(z.q), R = Q * s.rotation;
  const Vec3 o = z.x + Q * s.position;
  if (s.kind == ContactShape::Kind::Box) {
    const Vec3& h = s.halfExtents;
    for (int k = 0; k < 8; ++k)
      w.v.push_back(o + R * Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z()));
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < 3; ++i)
        if (!(k & (1 << i))) w.edges.emplace_back(k, k | (1 << i));
    for (int i = 0; i < 3; ++i) w.normals.push_back(R.col(i)), w.normals.push_back(-R.col(i));
  } else {
    for (const Vec3& v : s.convex->hull.vertices) w.v.push_back(o + R * v);
    for (const auto& e : s.convex->hull.edges) w.edges.emplace_back(e[0], e[1]);
    for (const auto& f : s.convex->hull.faces) w.normals.push_back(R * f.normal);
  }
  return w;
}

void TestContactGeometry::polytopeDistanceMatchesSupportFunctions() {
  // The polytopes' signed distance (polytopeSignedDistance) against brute force, for box–box, box–hull
  // and hull–hull pairs: overlapping, the largest gap min_B n·v − max_A n·u over every face normal
  // and every edge-pair axis (no Gauss-map pruning); apart, the least of every vertex's distance to
  // the other polytope and every edge pair's distance.
  for (int kinds = 0; kinds < 3; ++kinds) {
    int overlapping = 0, apart = 0;
    double worst = 0;
    for (int trial = 0; trial < kPoses; ++trial) {
      auto make = [&](bool hull) {
        const Vec3 s(rnd.uni(0.1, 0.6), rnd.uni(0.1, 0.6), rnd.uni(0.1, 0.6));
        return hull ? convexShape(s, true) : box(s, true);
      };
      const ContactShape a = make(kinds == 2), b = make(kinds >= 1);
      const BodyPose za = randPose(1.0), zb = pose(za.x + rnd.uni(0, 1.5) * randUnit(), randQuat());
      Contact c;
      polytopeSignedDistance(a, za, b, zb, c);
      QVERIFY(consistent(c, &za, zb));
      const WorldPoly A = worldPoly(a, za), B = worldPoly(b, zb);
      auto gap = [&](const Vec3& n) {
        double maxA = -1e300, minB = 1e300;
        for (const Vec3& v : A.v) maxA = std::max(maxA, n.dot(v));
        for (const Vec3& v : B.v) minB = std::min(minB, n.dot(v));
        return minB - maxA;
      };
      double sat = -1e300;
      for (const Vec3& n : A.normals) sat = std::max(sat, gap(n));
      for (const Vec3& n : B.normals) sat = std::max(sat, gap(-n));
      for (auto [a0, a1] : A.edges)
        for (auto [b0, b1] : B.edges) {
          const Vec3 n = (A.v[a1] - A.v[a0]).cross(B.v[b1] - B.v[b0]);
          if (n.norm() < 1e-9) continue;
          sat = std::max({sat, gap(n.normalized()), gap(-n.normalized())});
        }
      double expected;
      if (sat < 0) {
        expected = sat;
        ++overlapping;
      } else {
        expected = 1e300;
        for (const Vec3& v : B.v) expected = std::min(expected, signedDistance(a, za, v).phi);
        for (const Vec3& v : A.v) expected = std::min(expected, signedDistance(b, zb, v).phi);
        for (auto [a0, a1] : A.edges)
          for (auto [b0, b1] : B.edges) {
            const Vec3 ua = A.v[a1] - A.v[a0], ub = B.v[b1] - B.v[b0];
            expected = std::min(expected, segmentDistanceBrute(0.5 * (A.v[a0] + A.v[a1]), ua.normalized(), 0.5 * ua.norm(),
                                                               0.5 * (B.v[b0] + B.v[b1]), ub.normalized(), 0.5 * ub.norm()));
          }
        ++apart;
      }
      worst = std::max(worst, std::abs(c.phi - expected));
      QVERIFY2(std::abs(c.phi - expected) < 1e-9, qPrintable(QString("kinds %1 trial %2: %3 vs %4").arg(kinds).arg(trial).arg(c.phi).arg(expected)));
    }
    qInfo("%s signed distance: worst |error| %.2e over %d overlapping and %d apart poses",
          kinds == 0 ? "box-box" : kinds == 1 ? "box-hull" : "hull-hull", worst, overlapping, apart);
    QVERIFY(overlapping > 20 && apart > 20);
  }
}

void TestContactGeometry::restingPairsKnownValues() {
  // A 0.4 m cube resting 1e-9 m above a 1 m cube (both axis-aligned, B turned 30° about z): B's four
  // bottom corners are candidates at φ = 1e-9 with normal +z; the other four at 0.4 + 1e-9.
  const ContactShape a = box(Vec3(0.5, 0.5, 0.5)), b = box(Vec3(0.2, 0.2, 0.2));
  const BodyPose za = pose(Vec3::Zero()), zb = pose(Vec3(0.05, 0, 0.7 + 1e-9), quat::fromAxisAngle(Vec3::UnitZ(), kPi / 6));
  ContactSet set;
  pairCandidates(a, za, b, zb, set);
  QCOMPARE(set.count, 17);
  int resting = 0;
  for (int k = 0; k < 8; ++k) {
    const Contact& c = set.contacts[k];
    QVERIFY((c.normal - Vec3::UnitZ()).norm() < 1e-15);
    if (std::abs(c.phi - 1e-9) < 1e-15) ++resting;
    else QVERIFY(std::abs(c.phi - (0.4 + 1e-9)) < 1e-12);
  }
  QCOMPARE(resting, 4);
  // The bigger cube's corners lie beside the small one's bottom face: not in the manifold (far), nor
  // is the edge-pair slot (faces separate best).
  for (int k = 8; k < 17; ++k) QCOMPARE(set.contacts[k].phi, 1e3);
  // A cylinder (r 0.1, length 0.6) lying along x on the cube, 1e-9 m above it: the rim point of each
  // disc nearest the cube is its lowest point, at φ = 1e-9.
  const ContactShape cyl = cylinder(0.1, 0.3);
  const BodyPose zc = pose(Vec3(0, 0.1, 0.6 + 1e-9), quat::fromAxisAngle(Vec3::UnitY(), kPi / 2));
  pairCandidates(a, za, cyl, zc, set);
  QCOMPARE(set.count, 19);
  for (int k = 0; k < 2; ++k) {
    QVERIFY2(std::abs(set.contacts[k].phi - 1e-9) < 1e-14, qPrintable(QString::number(set.contacts[k].phi)));
    QVERIFY((set.contacts[k].normal - Vec3::UnitZ()).norm() < 1e-12);
    QVERIFY(std::abs(set.contacts[k].pointA.z() - 0.5) < 1e-15 && std::abs(set.contacts[k].pointB.z() - 0.5 - 1e-9) < 1e-15);
  }
  // A capsule (r 0.1) tilted 20° down over the cube's top edge along y at x = 0.5, its core 0.15 m from
  // the edge: the core-segment candidate touches the edge at φ = 0.05, normal perpendicular to the core.
  const ContactShape cap = capsule(0.1, 0.5);
  const double th = 20 * kPi / 180;
  const Vec3 up(std::sin(th), 0, std::cos(th));
  const BodyPose zk = pose(Vec3(0.5, 0, 0.5) + 0.15 * up, quat::fromAxisAngle(Vec3::UnitY(), kPi / 2 + th));
  pairCandidates(a, za, cap, zk, set);
  QCOMPARE(set.count, 3);
  QVERIFY2(std::abs(set.contacts[2].phi - 0.05) < 1e-12, qPrintable(QString::number(set.contacts[2].phi, 'g', 17)));
  QVERIFY((set.contacts[2].pointA - Vec3(0.5, 0, 0.5)).norm() < 1e-12);
  QVERIFY((set.contacts[2].normal - up).norm() < 1e-12);
  // Two crossing ridges: A (a 1 m cube turned 45° about y) has its top edge along y, B (a 0.6 m cube
  // turned 45° about x) its bottom edge along x, 1e-3 m above A's; every vertex is ≥ 0.2 m from the
  // other box: only the edge-pair candidate sees the contact, with the normal of both edges (+z).
  const ContactShape c1 = box(Vec3(0.5, 0.5, 0.5)), c2 = box(Vec3(0.3, 0.3, 0.3));
  const BodyPose zr = pose(Vec3::Zero(), quat::fromAxisAngle(Vec3::UnitY(), kPi / 4));
  const BodyPose zx = pose(Vec3(0, 0, (0.5 + 0.3) * std::sqrt(2.0) + 1e-3), quat::fromAxisAngle(Vec3::UnitX(), kPi / 4));
  pairCandidates(c1, zr, c2, zx, set);
  double minVertex = 1e300;
  for (int k = 0; k < 16; ++k) minVertex = std::min(minVertex, set.contacts[k].phi);
  QVERIFY2(std::abs(set.contacts[16].phi - 1e-3) < 1e-12, qPrintable(QString::number(set.contacts[16].phi, 'g', 17)));
  QVERIFY((set.contacts[16].normal - Vec3::UnitZ()).norm() < 1e-12);
  QVERIFY2(minVertex > 0.05, qPrintable(QString::number(minVertex)));
}

void TestContactGeometry::evaluationDoesNotAllocate() {
#ifndef MS_TEST_COUNTS_MALLOC
  QSKIP("malloc counting needs glibc and no AddressSanitizer");
#endif
  const ContactShape s = sphere(0.3, true), cap = capsule(0.2, 0.5, true), bx = box(Vec3(0.3, 0.4, 0.5), true),
                     cyl = cylinder(0.2, 0.4, true), hull = convexShape(Vec3(0.3, 0.2, 0.4), true);
  const BodyPose za = randPose(1.0), zb = randPose(1.0);
  const WorldPlane plane = makeWorldPlane(Vec3::Zero(), randUnit());
  ContactSet set;
  Contact c;
  FrictionRows fr;
  double sum = 0;
  g_allocations = 0;
  g_countAllocations = true;
  sum += shapePlane(plane, s, za, set) + shapePlane(plane, cap, za, set) + shapePlane(plane, bx, za, set) +
         shapePlane(plane, cyl, za, set);
  sphereSphere(s, za, s, zb, c);
  sum += c.phi;
  sphereCapsule(s, za, cap, zb, c);
  sum += c.phi;
  capsuleCapsule(cap, za, cap, zb, c);
  sum += c.phi;
  sphereBox(s, za, bx, zb, c);
  sum += c.phi;
  sum += shapePair(bx, za, s, zb, c);
  for (int ka = 0; ka < kPairKinds; ++ka)
    for (int kb = 0; kb < kPairKinds; ++kb) {
      const ContactShape* shapes[] = {&s, &cap, &bx, &cyl, &cyl, &hull};
      pairCandidates(*shapes[ka], za, *shapes[kb], zb, set);
      sum += set.count;
    }
  frictionRows(c, &za, zb, 8, fr);
  sum += fr.dwB.sum();
  g_countAllocations = false;
  QVERIFY(std::isfinite(sum));
  QCOMPARE(g_allocations.load(), 0L);
  // The counter works: a dynamic Eigen vector allocates.
  g_countAllocations = true;
  VecX probe = VecX::Ones(7) * 2.0;
  g_countAllocations = false;
  QVERIFY(g_allocations.load() > 0);
  QVERIFY(probe.size() == 7);
}

void TestContactGeometry::cleanupTestCase() {
  for (const auto& [name, err] : g_worst) qInfo("worst %s: %.3e", name.c_str(), err);
}

QTEST_GUILESS_MAIN(TestContactGeometry)
#include "tst_contact_geometry.moc"
