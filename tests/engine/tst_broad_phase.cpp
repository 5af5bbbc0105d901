// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/contact/broad_phase: the world box of every shape kind contains the shape and is
// tight; sweep-and-prune finds exactly the overlapping pairs of a brute-force loop, over coherent
// updates of moving boxes and with disabled items; its pair tests grow linearly with the number of
// boxes at a constant density (not as n²/2); an update allocates nothing once warmed up.
#include <QtTest/QtTest>

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
  // each face of the box is within 3 % of the box size of some such point (one grid step); a hull's
  // box is that of its vertices exactly.
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
        Aabb seen;
        seen.lo = box.hi, seen.hi = box.lo;
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
              seen.lo = seen.lo.cwiseMin(p), seen.hi = seen.hi.cwiseMax(p);
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
        const double slack = std::max((seen.lo - box.lo).maxCoeff(), (box.hi - seen.hi).maxCoeff()) / size.maxCoeff();
        QVERIFY2(slack < 0.03, qPrintable(QString("kind %1: box looser than the shape by %2").arg(kind).arg(slack)));
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
