// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/contact/broad_phase: the world box of every shape kind contains the shape and is
// tight; sweep-and-prune finds exactly the overlapping pairs of a brute-force loop, over coherent
// updates of moving boxes and with disabled items; its pair tests grow linearly with the number of
// boxes at a constant density (not as n²/2); an update allocates nothing once warmed up.
#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "test_random.h"
#include "allocation_counter.h"
#include "contact/broad_phase.h"
#include "contact/convex_hull.h"
#include "core/quaternion.h"

using namespace ms;
using namespace ms::contact;

namespace {

test::SeededRandom rnd(1357);

ContactShape randomShape(int kind) {
  ContactShape s;
  s.position = rnd.randVec(0.2);
  s.rotation = quat::rotation(quat::fromRotationVector(rnd.randVec(2.0)));
  switch (kind) {
    case 0: s.kind = ContactShape::Kind::Sphere, s.radius = rnd.uni(0.05, 0.4); break;
    case 1: s.kind = ContactShape::Kind::Capsule, s.radius = rnd.uni(0.05, 0.3), s.halfLength = rnd.uni(0, 0.5); break;
    case 2: s.kind = ContactShape::Kind::Box, s.halfExtents = Vec3(rnd.uni(0.05, 0.5), rnd.uni(0.05, 0.5), rnd.uni(0.05, 0.5)); break;
    case 3: s.kind = ContactShape::Kind::Cylinder, s.radius = rnd.uni(0.05, 0.4), s.halfLength = rnd.uni(0.05, 0.5); break;
    default: {
      std::vector<Vec3> pts;
      for (int k = 0; k < 20; ++k) pts.push_back(rnd.randVec(0.4));
      ConvexHull h;
      std::string why;
      const bool ok = buildConvexHull(pts, h, why);
      Q_ASSERT(ok);
      (void)ok;
      s.kind = ContactShape::Kind::Convex;
      s.convex = makeConvexShape(h);
    }
  }
  return s;
}

// The minimum of a convex function on [lo, hi] by golden-section search (60 steps: the interval
// shrinks to 0.618⁶⁰ ≈ 3e-13 of its length).
template <class F>
double goldenMin(F f, double lo, double hi) {
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
  for (int step = 0; step < 60; ++step)
    if (f1 <= f2)
      hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = f(x1);
    else
      lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = f(x2);
  return std::min(f1, f2);
}

// The minimum of φ over the plane x_axis = at, within the box grown by 10 % in the other two axes.
// φ of a convex shape is convex, and so is its minimum over v as a function of u: nested
// golden-section searches find the minimum (a grid or a pattern search can miss a corner's tip).
double minPhiOnPlane(const ContactShape& s, const BodyPose& z, const Aabb& box, int axis, double at) {
  const int j = (axis + 1) % 3, k = (axis + 2) % 3;
  const Vec3 centre = 0.5 * (box.lo + box.hi), half = 0.55 * (box.hi - box.lo);
  auto phiAt = [&](double u, double v) {
    Vec3 p;
    p(axis) = at, p(j) = u, p(k) = v;
    return signedDistance(s, z, p).phi;
  };
  auto minOverV = [&](double u) {
    return goldenMin([&](double v) { return phiAt(u, v); }, centre(k) - half(k), centre(k) + half(k));
  };
  return goldenMin(minOverV, centre(j) - half(j), centre(j) + half(j));
}

std::vector<std::pair<int, int>> bruteForce(const std::vector<Aabb>& boxes, const std::vector<char>& enabled) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < int(boxes.size()); ++i)
    for (int j = i + 1; j < int(boxes.size()); ++j)
      if ((enabled.empty() || (enabled[i] && enabled[j])) && boxes[i].overlaps(boxes[j])) out.emplace_back(i, j);
  return out;
}

}  // namespace

class TestBroadPhase : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Every point of the shape (sampled: points with φ ≤ 0 on a grid around it) lies in the box, and
  // the box is tight: the plane 0.1 % of the box size inside each face cuts the shape (the minimum
  // of φ over that plane, a convex function for these convex shapes, is ≤ 0); a hull's box is that
  // of its vertices exactly.
  void shapeBoxesContainTheShapes() {
    for (int kind = 0; kind < 5; ++kind)
      for (int trial = 0; trial < 20; ++trial) {
        const ContactShape s = randomShape(kind);
        BodyPose z;
        z.x = rnd.randVec(1.0);
        z.q = quat::fromRotationVector(rnd.randVec(2.0));
        Aabb box;
        QVERIFY(shapeAabb(s, z, box));
        const Vec3 size = box.hi - box.lo;
        const int g = 40;
        for (int a = 0; a <= g; ++a)
          for (int b = 0; b <= g; ++b)
            for (int c = 0; c <= g; ++c) {
              // A grid over the box grown by 10 %.
              const Vec3 t(double(a) / g, double(b) / g, double(c) / g);
              const Vec3 p = box.lo - 0.1 * size + (1.2 * size).cwiseProduct(t);
              if (signedDistance(s, z, p).phi > 0) continue;
              QVERIFY2((p.array() >= box.lo.array() - 1e-12).all() && (p.array() <= box.hi.array() + 1e-12).all(),
                       qPrintable(QString("kind %1: a point of the shape outside its box").arg(kind)));
            }
        if (kind == 4) {
          // A hull's box is exactly that of its vertices.
          const Mat3 Q = quat::rotation(z.q);
          Aabb v;
          v.lo = v.hi = z.x + Q * (s.position + s.rotation * s.convex->hull.vertices[0]);
          for (const Vec3& q : s.convex->hull.vertices) {
            const Vec3 w = z.x + Q * (s.position + s.rotation * q);
            v.lo = v.lo.cwiseMin(w), v.hi = v.hi.cwiseMax(w);
          }
          QVERIFY((v.lo - box.lo).norm() < 1e-12 && (v.hi - box.hi).norm() < 1e-12);
          continue;
        }
        for (int axis = 0; axis < 3; ++axis)
          for (int side = 0; side < 2; ++side) {
            const double inset = 1e-3 * size.maxCoeff();
            const double at = side == 0 ? box.lo(axis) + inset : box.hi(axis) - inset;
            const double phi = minPhiOnPlane(s, z, box, axis, at);
            QVERIFY2(phi <= 0, qPrintable(QString("kind %1: the plane 0.1 %% inside face %2%3 misses the shape "
                                                  "(min phi %4): the box is looser than the shape")
                                              .arg(kind).arg(side == 0 ? "-" : "+").arg(axis).arg(phi)));
          }
      }
    ContactShape plane;
    plane.kind = ContactShape::Kind::Plane;
    Aabb box;
    QVERIFY(!shapeAabb(plane, BodyPose(), box));
  }

  // 300 boxes drifting for 50 updates (coherent order), some disabled: the same pairs as brute force.
  void pairsMatchBruteForce() {
    const int n = 300;
    std::vector<Vec3> centre(n), velocity(n), half(n);
    for (int i = 0; i < n; ++i) centre[i] = rnd.randVec(3.0), velocity[i] = rnd.randVec(0.05), half[i] = Vec3(rnd.uni(0.05, 0.3), rnd.uni(0.05, 0.3), rnd.uni(0.05, 0.3));
    std::vector<char> enabled(n, 1);
    for (int i = 0; i < n; i += 7) enabled[i] = 0;
    SweepAndPrune sap;
    std::vector<Aabb> boxes(n);
    size_t total = 0;
    for (int update = 0; update < 50; ++update) {
      for (int i = 0; i < n; ++i) {
        centre[i] += velocity[i];
        boxes[i].lo = centre[i] - half[i];
        boxes[i].hi = centre[i] + half[i];
      }
      sap.update(boxes, update % 2 ? enabled : std::vector<char>());
      const auto expected = bruteForce(boxes, update % 2 ? enabled : std::vector<char>());
      QCOMPARE(sap.pairs().size(), expected.size());
      QVERIFY(sap.pairs() == expected);
      total += expected.size();
    }
    qInfo("sweep and prune = brute force over 50 updates of 300 moving boxes (%zu overlapping pairs in all)", total);
    QVERIFY(total > 100);
  }

  // Boxes of 0.2 m at one per m³ in a cube of n m³: along x a box meets the boxes of a 0.2 m slab,
  // ~0.2·n^(2/3), so the tests per box grow as n^(2/3) here (4.2, 10.6, 27 for n = 100, 400, 1600),
  // far below the brute force's (n − 1)/2 per box.
  void testsGrowLinearly() {
    std::vector<double> perBox;
    for (int n : {100, 400, 1600}) {
      const double side = std::cbrt(double(n));
      std::vector<Aabb> boxes(n);
      for (Aabb& b : boxes) {
        const Vec3 c(rnd.uni(0, side), rnd.uni(0, side), rnd.uni(0, side));
        b.lo = c.array() - 0.1;
        b.hi = c.array() + 0.1;
      }
      SweepAndPrune sap;
      sap.update(boxes);
      perBox.push_back(double(sap.tests()) / n);
      qInfo("n = %d: %ld pair tests (%.2f per box; brute force %ld), %zu pairs", n, sap.tests(), perBox.back(),
            long(n) * (n - 1) / 2, sap.pairs().size());
    }
    QVERIFY(perBox[2] < 0.05 * 1600 / 2.0);
    QVERIFY(perBox[2] / perBox[0] < 2 * std::pow(16.0, 2.0 / 3.0));
  }

  // After a first update at full size, updates allocate nothing.
  void updateDoesNotAllocate() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc counting needs glibc and no AddressSanitizer");
#endif
    const int n = 200;
    std::vector<Aabb> boxes(n);
    for (Aabb& b : boxes) {
      const Vec3 c = rnd.randVec(2.0);
      b.lo = c.array() - 0.2;
      b.hi = c.array() + 0.2;
    }
    SweepAndPrune sap;
    sap.update(boxes);
    for (Aabb& b : boxes) b.lo.x() += 0.01, b.hi.x() += 0.01;
    g_allocations = 0;
    g_countAllocations = true;
    sap.update(boxes);
    g_countAllocations = false;
    QCOMPARE(g_allocations.load(), 0L);
    QVERIFY(!sap.pairs().empty());
  }
};

QTEST_GUILESS_MAIN(TestBroadPhase)
#include "tst_broad_phase.moc"
