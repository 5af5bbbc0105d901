// SPDX-License-Identifier: GPL-3.0-or-later
// Contacts between bodies and collision shapes in the main window's 3D view (under Xvfb): the
// contacts of contact pairs reach the overlay from the simulation thread with their points on body B
// and the forces acting on B (the box stack's top cube is held up by its weight, the gripper's
// fingers push the box from both sides); View ▸ Collision shapes shows and hides every body's
// collision shapes (the rock's convex hull with its 30 triangles) and is kept across a restart.
#include <QAction>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "contact/convex_hull.h"
#include "main_window.h"
#include "sim/sim_controller.h"
#include "system/compiled_system.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"

using namespace ms;
using namespace ms::ui;

namespace {
using test::settle;
using test::stepN;
using Overlay = ViewportWidget::Overlay;

constexpr double kMetresPerNewton = 0.01;  // force arrows (ViewportWidget::Overlay::ContactForces)
constexpr double kG = 9.81;

QString modelPath(const char* name) { return QStringLiteral(MECHSTUDIO_SOURCE_DIR "/models/") + name; }

QAction* overlayAction(MainWindow& w, Overlay o) {
  return w.findChild<QAction*>(QString("overlay-%1").arg(int(o)));
}

// Opens a model file in a shown window of a fixed size.
bool openShown(MainWindow& w, const char* model, const std::map<std::string, std::string>& params = {}) {
  w.resize(1280, 800);
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return false;
  QString err;
  if (!w.openModel(modelPath(model), &err, params)) {
    qWarning("%s", qPrintable(err));
    return false;
  }
  settle(w);
  return true;
}

// The drawn contacts whose point satisfies `where`: their count and the force they draw, summed
// (arrow vector / 0.01 m/N; none of these arrows reaches the 0.5 m cap).
struct DrawnSum {
  int count = 0;
  Vec3 force = Vec3::Zero();
};
template <class Where>
DrawnSum drawnForce(const std::vector<ViewportWidget::DrawnContact>& drawn, Where where) {
  DrawnSum s;
  for (const auto& c : drawn)
    if (where(c.point)) {
      ++s.count;
      s.force += (c.tip - c.point) / kMetresPerNewton;
    }
  return s;
}

int differing(const QImage& a, const QImage& b) {
  int n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
      n += std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) + std::abs(qBlue(p) - qBlue(q)) > 9;
    }
  return n;
}

}  // namespace

class TestCollisionView : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // Three stacked cubes after 1 s at rest. The simulation's contacts reach the overlay one to one
  // (points, and arrows along the forces); the contacts of the pair box2–box3 lie on the top cube's
  // bottom face (z = 0.4 m), their forces act on it (body B), point up and carry its weight; the
  // pair below carries two cubes and the ground all three.
  void stackContactsCarryTheCubesAbove() {
    MainWindow w;
    QVERIFY(openShown(w, "box-stack.mech", {{"n", "3"}}));
    QCOMPARE(w.viewport()->groundSurfaceTriangles(), 0);  // the ground z = 0 is the grid's
    overlayAction(w, Overlay::ContactPoints)->setChecked(true);
    overlayAction(w, Overlay::ContactForces)->setChecked(true);
    stepN(w, 100);
    const Snapshot s = w.sim().snapshot();
    QVERIFY(!s.failed);
    const auto drawn = w.viewport()->drawnContacts();
    QCOMPARE(drawn.size(), s.contacts.size());
    for (size_t i = 0; i < drawn.size(); ++i) {
      const ContactDraw& c = s.contacts[i];
      QVERIFY((drawn[i].point - c.point).norm() < 1e-6);
      QVERIFY((drawn[i].tip - drawn[i].point - kMetresPerNewton * c.force).norm() < 1e-6);
    }
    const auto at = [](double z) { return [z](const Vec3& p) { return std::abs(p.z() - z) < 1e-3 && p.head<2>().norm() < 0.15; }; };
    const DrawnSum top = drawnForce(drawn, at(0.4)), middle = drawnForce(drawn, at(0.2)), ground = drawnForce(drawn, at(0.0));
    qInfo("drawn contacts: %zu; on the top cube %d carrying (%.4f, %.4f, %.4f) N, on the middle one %d carrying %.4f N up, "
          "on the bottom one %d carrying %.4f N up", drawn.size(), top.count, top.force.x(), top.force.y(), top.force.z(),
          middle.count, middle.force.z(), ground.count, ground.force.z());
    QCOMPARE(top.count + middle.count + ground.count, int(drawn.size()));
    QVERIFY(top.count >= 3);
    QVERIFY(middle.count >= 3);
    QVERIFY(std::abs(top.force.z() - 1 * kG) < 0.01 * kG);
    QVERIFY(top.force.head<2>().norm() < 0.01 * kG);
    QVERIFY(std::abs(middle.force.z() - 2 * kG) < 0.02 * kG);
    QVERIFY(std::abs(ground.force.z() - 3 * kG) < 0.03 * kG);
    // Each of the top cube's forces points up, from its point on the cube's bottom face.
    for (const auto& c : drawn)
      if (at(0.4)(c.point)) {
        QVERIFY((c.tip - c.point).z() > 0.9 * (c.tip - c.point).norm());
        QVERIFY(std::abs(c.point.x()) < 0.1 + 1e-3 && std::abs(c.point.y()) < 0.1 + 1e-3);
      }
    // The layers draw them: turning both off changes the picture.
    const QImage on = w.viewport()->renderToImage();
    overlayAction(w, Overlay::ContactPoints)->setChecked(false);
    overlayAction(w, Overlay::ContactForces)->setChecked(false);
    const int changed = differing(on, w.viewport()->renderToImage());
    qInfo("contact points and forces cover %d pixels", changed);
    QVERIFY(changed > 30);
  }

  // The gripper after 0.5 s: the fingers (body A of their pairs) squeeze the box (body B). The
  // contacts of the right grip lie on the box's +x face and push it towards −x, those of the left
  // grip on its −x face and push it towards +x, by about the same amount; with the ground's, the
  // vertical forces drawn on the box balance its weight.
  void gripperForcesActOnTheBox() {
    MainWindow w;
    QVERIFY(openShown(w, "gripper.mech"));
    overlayAction(w, Overlay::ContactForces)->setChecked(true);
    stepN(w, 100);
    QVERIFY(!w.sim().snapshot().failed);
    const auto drawn = w.viewport()->drawnContacts();
    const auto face = [](double x) {
      return [x](const Vec3& p) { return std::abs(p.x() - x) < 2e-3 && p.z() > 1e-3 && std::abs(p.y()) < 0.031; };
    };
    const DrawnSum right = drawnForce(drawn, face(0.03)), left = drawnForce(drawn, face(-0.03));
    qInfo("drawn contacts: %zu; right grip %d pushing (%.3f, %.3f, %.3f) N, left grip %d pushing (%.3f, %.3f, %.3f) N",
          drawn.size(), right.count, right.force.x(), right.force.y(), right.force.z(), left.count, left.force.x(),
          left.force.y(), left.force.z());
    QVERIFY(right.count >= 2);
    QVERIFY(left.count >= 2);
    QVERIFY(right.force.x() < -1.0);
    QVERIFY(left.force.x() > 1.0);
    QVERIFY(std::abs(right.force.x() + left.force.x()) < 0.1 * left.force.x());
    // The box is at rest on the ground: the ground's contacts (on the box's bottom) carry its weight
    // less what the fingers' friction on it carries (down, as the fingers sag onto it, or up).
    const DrawnSum ground = drawnForce(drawn, [](const Vec3& p) { return std::abs(p.z()) < 1e-3 && std::abs(p.x()) < 0.031; });
    const double boxWeight = 0.3 * kG;
    qInfo("ground under the box: %d contacts carrying %.3f N up", ground.count, ground.force.z());
    QVERIFY(ground.count >= 3);
    QVERIFY(std::abs(ground.force.z() + right.force.z() + left.force.z() - boxWeight) < 0.02 * boxWeight);
    for (const auto& c : drawn)
      if (face(0.03)(c.point)) QVERIFY((c.tip - c.point).x() < 0);
      else if (face(-0.03)(c.point)) QVERIFY((c.tip - c.point).x() > 0);
  }

  // View ▸ Collision shapes: off by default; on, the rock's collision shape (the convex hull of
  // rock.obj: 30 triangles) and the ramp are drawn over it in their own colour; off again, the
  // picture is as before.
  void collisionShapesToggle() {
    MainWindow w;
    QVERIFY(openShown(w, "rock-on-ramp.mech"));
    QAction* a = overlayAction(w, Overlay::CollisionShapes);
    QVERIFY(a);
    QVERIFY(a->isCheckable());
    QVERIFY(!a->isChecked());
    QCOMPARE(a->text(), QString("Collision s&hapes"));
    QVERIFY(!w.viewport()->overlay(Overlay::CollisionShapes));

    // The hull the engine collides with, built from the same vertices.
    const auto sys = w.sim().snapshot().system;
    QVERIFY(sys);
    QCOMPARE(int(sys->model.bodies[0].collisions.size()), 1);
    contact::ConvexHull hull;
    std::string why;
    QVERIFY(contact::buildConvexHull(sys->model.bodies[0].collisions[0].meshVertices, hull, why));
    QCOMPARE(int(hull.faces.size()), 30);
    QCOMPARE(w.viewport()->collisionTriangles(0), 30);
    // The ramp is drawn in the ordinary view too (a square of two triangles), the layer being off.
    QCOMPARE(w.viewport()->groundSurfaceTriangles(), 2);

    const QImage off = w.viewport()->renderToImage();
    a->trigger();
    QVERIFY(w.viewport()->overlay(Overlay::CollisionShapes));
    const QImage on = w.viewport()->renderToImage();
    QVERIFY(on.save(ms::ui::test::outputPath("collision-rock-on-ramp.png")));
    // Where the rock is, its colour turns towards the layer's green.
    QPointF c;
    QVERIFY(w.viewport()->worldToWidget(w.sim().snapshot().state.bodies[0].x, c));
    const QPoint px = (c * w.viewport()->devicePixelRatioF()).toPoint();
    const QRgb before = off.pixel(px), after = on.pixel(px);
    qInfo("rock centre pixel: off #%06x, on #%06x; %d pixels changed", before & 0xffffff, after & 0xffffff,
          differing(off, on));
    QVERIFY(qGreen(after) - qRed(after) > qGreen(before) - qRed(before) + 20);
    QVERIFY(differing(off, on) > 2000);
    a->trigger();
    QVERIFY(!w.viewport()->overlay(Overlay::CollisionShapes));
    QVERIFY(differing(off, w.viewport()->renderToImage()) < 10);
  }

  // Every body of the gripper has collision shapes in the layer; boxes coinciding with their visual
  // shapes are still drawn over them.
  void collisionShapesOverCoincidentVisuals() {
    MainWindow w;
    QVERIFY(openShown(w, "gripper.mech"));
    const auto sys = w.sim().snapshot().system;
    for (int i = 0; i < int(sys->bodies.size()); ++i) QVERIFY(w.viewport()->collisionTriangles(i) >= 12);
    const QImage off = w.viewport()->renderToImage();
    overlayAction(w, Overlay::CollisionShapes)->setChecked(true);
    const QImage on = w.viewport()->renderToImage();
    // The box: its centre pixel turns green.
    QPointF c;
    QVERIFY(w.viewport()->worldToWidget(w.sim().snapshot().state.bodies[0].x, c));
    const QPoint px = (c * w.viewport()->devicePixelRatioF()).toPoint();
    qInfo("box centre pixel: off #%06x, on #%06x", off.pixel(px) & 0xffffff, on.pixel(px) & 0xffffff);
    QVERIFY(qGreen(on.pixel(px)) - qRed(on.pixel(px)) > qGreen(off.pixel(px)) - qRed(off.pixel(px)) + 20);
  }

  // The toggle is kept across a restart, on and then off again.
  void collisionShapesSettingPersists() {
    for (const bool on : {true, false}) {
      {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        overlayAction(w, Overlay::CollisionShapes)->setChecked(on);
        w.close();
      }
      MainWindow w2;
      w2.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w2));
      QCOMPARE(overlayAction(w2, Overlay::CollisionShapes)->isChecked(), on);
      QCOMPARE(w2.viewport()->overlay(Overlay::CollisionShapes), on);
      QCOMPARE(QSettings().value("view/overlay-7").toBool(), on);
      w2.close();
    }
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestCollisionView)
#include "tst_collision_view.moc"
