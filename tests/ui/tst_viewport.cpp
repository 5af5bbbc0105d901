// SPDX-License-Identifier: GPL-3.0-or-later
// Qt Test of the 3D viewport (runs under Xvfb): rendering of built-in and URDF models with a mesh,
// the camera (mouse orbit/pan/zoom, presets, fit, round trip), picking, Ctrl+drag perturbation, the
// overlays and the links drawn along massless rods, judged from rendered pixels and emitted signals;
// and the parts on their own: CameraController (fit, motions, follow) and picking (rays, the body
// under a pixel, the Ctrl+drag grab).
#include <cmath>
#include <map>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QTest>

#include <osg/ComputeBoundsVisitor>
#include <osg/MatrixTransform>
#include <osgViewer/Viewer>

#include "ui_test_util.h"
#include "core/quaternion.h"
#include "io/model_file.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "viewport/camera_controller.h"
#include "viewport/framing.h"
#include "viewport/picking.h"
#include "viewport/scene_nodes.h"
#include "viewport/viewport_widget.h"

using ms::ui::Perturbation;
using ms::ui::Snapshot;
using ms::ui::ViewportWidget;

namespace {

// Warnings seen since the last reset (forwarded to the previous handler too).
QStringList g_warnings;
QtMessageHandler g_previousHandler = nullptr;
void recordWarnings(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (type == QtWarningMsg) g_warnings << msg;
  if (g_previousHandler) g_previousHandler(type, ctx, msg);
}

std::shared_ptr<const ms::CompiledSystem> sceneSystem(const std::string& name,
                                                      const std::map<std::string, std::string>& params = {}) {
  return ms::compile(ms::buildScene(name, params));
}

// A model file of the source tree (relative to its root), or null with the diagnostics printed.
bool loadFile(const QString& relative, ms::Model& model) {
  ms::Diagnostics diags;
  const QString path = QStringLiteral(MECHSTUDIO_SOURCE_DIR "/") + relative;
  const bool ok = ms::loadModel(path.toStdString(), {}, model, diags);
  if (!ok) qWarning("%s", diags.format().c_str());
  return ok;
}

// The initial (constraint-satisfying) state of a system as a snapshot.
Snapshot snapshotOf(const std::shared_ptr<const ms::CompiledSystem>& sys) {
  ms::Simulation sim(sys);
  Snapshot s;
  s.system = sys;
  s.generation = 1;
  s.state = sim.state();
  return s;
}

// The most frequent colour (the background in a view that is mostly empty).
QRgb dominantColor(const QImage& img) {
  QHash<QRgb, int> count;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) ++count[img.pixel(x, y) & 0xffffff];
  QRgb best = 0;
  int n = -1;
  for (auto it = count.begin(); it != count.end(); ++it)
    if (it.value() > n) {
      n = it.value();
      best = it.key();
    }
  return best;
}

bool differs(QRgb a, QRgb b, int tolerance = 6) {
  return std::abs(qRed(a) - qRed(b)) > tolerance || std::abs(qGreen(a) - qGreen(b)) > tolerance ||
         std::abs(qBlue(a) - qBlue(b)) > tolerance;
}

// Fraction of pixels that differ from `bg`.
double fractionNot(const QImage& img, QRgb bg) {
  long n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) n += differs(img.pixel(x, y), bg);
  return double(n) / (double(img.width()) * img.height());
}

// Number of pixels where two renderings differ.
long pixelsChanged(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return a.width() * a.height();
  long n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) n += differs(a.pixel(x, y), b.pixel(x, y), 3);
  return n;
}

// Number of distinct colours among non-background pixels (shading makes many).
int distinctColors(const QImage& img, QRgb bg) {
  QSet<QRgb> colors;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if (differs(img.pixel(x, y), bg)) colors.insert(img.pixel(x, y) & 0xffffff);
  return int(colors.size());
}

using ms::ui::test::mouse;

using ms::ui::test::drag;

void click(QWidget* w, QPointF pos) {
  mouse(w, QEvent::MouseButtonPress, pos, Qt::LeftButton, Qt::LeftButton);
  mouse(w, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
}

ms::Vec3 viewDir(const ViewportWidget::Camera& c) { return (c.center - c.eye).normalized(); }

// Where a world point lands in the rendered image (device pixels; far outside when behind the camera).
QPointF imagePos(const ViewportWidget& w, const ms::Vec3& p) {
  QPointF pos;
  if (!w.worldToWidget(p, pos)) return {-1e6, -1e6};
  return pos * w.devicePixelRatioF();
}

// Whether `at` lies in the image at least `margin` pixels from its border.
bool insideImage(const QImage& img, QPointF at, double margin) {
  return at.x() >= margin && at.y() >= margin && at.x() <= img.width() - 1 - margin && at.y() <= img.height() - 1 - margin;
}

// Whether some pixel within `radius` of `at` differs between two renderings.
bool changedNear(const QImage& a, const QImage& b, QPointF at, int radius) {
  const int cx = int(std::lround(at.x())), cy = int(std::lround(at.y()));
  for (int y = cy - radius; y <= cy + radius; ++y)
    for (int x = cx - radius; x <= cx + radius; ++x)
      if (a.rect().contains(x, y) && differs(a.pixel(x, y), b.pixel(x, y), 3)) return true;
  return false;
}

// Fraction of 21 points along the middle 70 % of the segment from→to (world) near which the two
// renderings differ.
double segmentChanged(const ViewportWidget& w, const QImage& a, const QImage& b, const ms::Vec3& from,
                      const ms::Vec3& to) {
  int hits = 0;
  for (int i = 0; i <= 20; ++i) hits += changedNear(a, b, imagePos(w, from + (0.15 + 0.035 * i) * (to - from)), 2);
  return hits / 21.0;
}

int luminance(QRgb c) { return (299 * qRed(c) + 587 * qGreen(c) + 114 * qBlue(c)) / 1000; }

// A camera looking at `p` from the front-right-above at 1.5 m.
ViewportWidget::Camera cameraOn(const ms::Vec3& p) {
  ViewportWidget::Camera c;
  c.center = p;
  c.eye = p + ms::Vec3(0.8, -1.0, 0.6);
  c.up = ms::Vec3::UnitZ();
  return c;
}

}  // namespace

class TestViewport : public QObject {
  Q_OBJECT

 private:
  // Shows `w` at 800×600 and waits until it is on screen.
  static bool showView(ViewportWidget& w) {
    w.resize(800, 600);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
  }

 private slots:
  void initTestCase() { g_previousHandler = qInstallMessageHandler(recordWarnings); }

  // The Eigen → OSG pose conversion maps body points like x + R(q) p (R from the engine).
  void poseMatrixMatchesEngine() {
    const ms::Vec4 q = ms::Vec4(0.3, -0.5, 0.7, 0.2).normalized();
    const ms::Vec3 x(1, 2, 3), p(0.4, -0.1, 0.25);
    const osg::Vec3d mapped = ms::ui::viewport::toOsg(p) * ms::ui::viewport::poseMatrix(x, q);
    const ms::Vec3 expected = x + ms::quat::rotation(q) * p;
    QVERIFY((ms::ui::viewport::fromOsg(mapped) - expected).norm() < 1e-12);
  }

  // A chain renders lit, shaded shapes over a grid; frames are counted.
  void rendersModel() {
    auto sys = sceneSystem("chain", {{"n", "5"}});
    ViewportWidget w;
    QVERIFY(showView(w));
    QVERIFY(w.overlay(ViewportWidget::Overlay::Grid));
    QVERIFY(!w.overlay(ViewportWidget::Overlay::JointFrames));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snapshotOf(sys));
    const long before = w.framesRendered();
    const QImage img = w.renderToImage();
    QCOMPARE(img.size(), QSize(800, 600) * w.devicePixelRatioF());
    QVERIFY(w.framesRendered() > before);
    const QRgb bg = dominantColor(img);
    const double all = fractionNot(img, bg);
    qInfo("chain: %.1f %% of pixels differ from the background (grid on)", 100 * all);
    QVERIFY2(all > 0.02, qPrintable(QString::number(all)));
    QVERIFY(img.save(ms::ui::test::outputPath("viewport-chain.png")));

    // Bodies alone (grid off) still cover a good part of the view, with many shades (lighting).
    w.setOverlay(ViewportWidget::Overlay::Grid, false);
    const QImage bodies = w.renderToImage();
    const double bodyFraction = fractionNot(bodies, bg);
    const int shades = distinctColors(bodies, bg);
    qInfo("chain: bodies cover %.1f %% of pixels with %d distinct colours", 100 * bodyFraction, shades);
    // 5 thin rods (r = 5 cm) leaning towards the camera, in a view that holds their whole swing
    // (a disc of 5 m radius about the pivot).
    QVERIFY(bodyFraction > 0.001);
    QVERIFY(bodyFraction < all);
    QVERIFY(shades > 50);

    // Frame cost on this machine (information only).
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 20; ++i) w.renderToImage();
    qInfo("renderToImage: %.1f ms per frame at 800x600", t.elapsed() / 20.0);

    // No model: only the background and the grid remain.
    w.setModel(nullptr, QString(), true);
    const QImage empty = w.renderToImage();
    QVERIFY(fractionNot(empty, bg) < 0.001);
  }

  // Left drag orbits about the centre, right and Shift+left drags pan, the wheel zooms.
  void mouseMovesCamera() {
    auto sys = sceneSystem("double-pendulum");
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snapshotOf(sys));
    w.renderToImage();

    const auto c0 = w.camera();
    drag(&w, {400, 300}, {470, 340}, Qt::LeftButton);
    const auto c1 = w.camera();
    QVERIFY((c1.eye - c0.eye).norm() > 0.1);
    QVERIFY((c1.center - c0.center).norm() < 1e-9);
    QVERIFY(std::abs((c1.eye - c1.center).norm() - (c0.eye - c0.center).norm()) < 1e-9);
    QVERIFY(c1.eye.z() > c0.eye.z());  // dragging down looks more from above

    drag(&w, {400, 300}, {300, 250}, Qt::RightButton);
    const auto c2 = w.camera();
    QVERIFY((c2.center - c1.center).norm() > 0.05);
    QVERIFY((viewDir(c2) - viewDir(c1)).norm() < 1e-9);

    drag(&w, {400, 300}, {450, 300}, Qt::LeftButton, Qt::ShiftModifier);
    const auto c3 = w.camera();
    QVERIFY((c3.center - c2.center).norm() > 0.02);
    QVERIFY((viewDir(c3) - viewDir(c2)).norm() < 1e-9);

    QWheelEvent wheel(QPointF(400, 300), w.mapToGlobal(QPointF(400, 300)), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&w, &wheel);
    const auto c4 = w.camera();
    QVERIFY((c4.eye - c4.center).norm() < 0.8 * (c3.eye - c3.center).norm());

    // A click that barely moves is not a drag.
    mouse(&w, QEvent::MouseButtonPress, {400, 300}, Qt::LeftButton, Qt::LeftButton);
    mouse(&w, QEvent::MouseMove, {402, 301}, Qt::NoButton, Qt::LeftButton);
    mouse(&w, QEvent::MouseButtonRelease, {402, 301}, Qt::LeftButton, Qt::NoButton);
    QVERIFY((w.camera().eye - c4.eye).norm() < 1e-12);
  }

  // Presets set the view direction, setCamera round-trips, fitToModel frames the model.
  // Follow: the camera moves with the followed body by exactly its displacement; off, it stays.
  void cameraFollowsABody() {
    auto sys = sceneSystem("box-drop");
    Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);
    w.setFollowBody(0);
    QCOMPARE(w.followBody(), 0);
    const auto before = w.camera();
    const ms::Vec3 move(1.5, -0.5, 0.25);
    snap.state.bodies[0].x += move;
    w.setSnapshot(snap);
    const auto after = w.camera();
    QVERIFY((after.eye - before.eye - move).norm() < 1e-12);
    QVERIFY((after.center - before.center - move).norm() < 1e-12);
    w.setFollowBody(-1);
    snap.state.bodies[0].x += move;
    w.setSnapshot(snap);
    QVERIFY((w.camera().eye - after.eye).norm() < 1e-12);
    w.setFollowBody(7);  // no such body: off
    QCOMPARE(w.followBody(), -1);
    // The grid grows to stay under a body that moved past its edge (a walking robot).
    const double grid = w.gridHalfExtent();
    QVERIFY(grid >= 5.0);
    snap.state.bodies[0].x.x() = grid + 20.0;
    w.setSnapshot(snap);
    QVERIFY2(w.gridHalfExtent() >= grid + 22.0, qPrintable(QString::number(w.gridHalfExtent())));
  }

  void presetsFitAndRoundTrip() {
    auto sys = sceneSystem("chain", {{"n", "4"}});
    const Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);

    w.setViewPreset(ViewportWidget::ViewPreset::Top);
    QVERIFY(viewDir(w.camera()).dot(ms::Vec3(0, 0, -1)) > 1 - 1e-12);
    QVERIFY(w.camera().up.dot(ms::Vec3::UnitY()) > 1 - 1e-12);
    const QImage top = w.renderToImage();
    w.setViewPreset(ViewportWidget::ViewPreset::Front);
    QVERIFY(viewDir(w.camera()).dot(ms::Vec3(0, 1, 0)) > 1 - 1e-12);
    QVERIFY(pixelsChanged(top, w.renderToImage()) > 1000);
    w.setViewPreset(ViewportWidget::ViewPreset::Side);
    QVERIFY(viewDir(w.camera()).dot(ms::Vec3(-1, 0, 0)) > 1 - 1e-12);
    w.setViewPreset(ViewportWidget::ViewPreset::Iso);
    QVERIFY(viewDir(w.camera()).dot(-ms::Vec3(3, -3, 2).normalized()) > 1 - 1e-12);

    // Round trip of an arbitrary camera, up not orthogonal to the view direction included.
    ViewportWidget::Camera c;
    c.eye = ms::Vec3(40, 25, 30);
    c.center = ms::Vec3(30, 20, 0.5);
    c.up = ms::Vec3(0.1, 0.2, 1.0);
    w.setCamera(c);
    const auto back = w.camera();
    QCOMPARE(back.eye, c.eye);
    QCOMPARE(back.center, c.center);
    QCOMPARE(back.up, c.up);

    // Fit from far away: same direction, centre inside the chain's extent, distance a few metres.
    w.fitToModel();
    const auto f = w.camera();
    QVERIFY((viewDir(f) - viewDir(c)).norm() < 1e-9);
    ms::Vec3 lo = snap.state.bodies[0].x, hi = lo;
    for (const auto& b : snap.state.bodies) {
      lo = lo.cwiseMin(b.x);
      hi = hi.cwiseMax(b.x);
    }
    QVERIFY(((f.center.array() >= lo.array() - 0.5) && (f.center.array() <= hi.array() + 0.5)).all());
    const double dist = (f.eye - f.center).norm();
    QVERIFY2(dist > 1.0 && dist < 12.0, qPrintable(QString::number(dist)));
    w.setOverlay(ViewportWidget::Overlay::Grid, false);
    const QImage fitted = w.renderToImage();
    const double covered = fractionNot(fitted, dominantColor(fitted));
    qInfo("fit: distance %.2f m, bodies cover %.1f %% of pixels", dist, 100 * covered);
    QVERIFY(covered > 0.002);  // 4 thin rods in the view of their whole swing (4 m about the pivot)
    // Framed: the bodies do not touch the image border.
    const QRgb bg = dominantColor(fitted);
    long onBorder = 0;
    for (int x = 0; x < fitted.width(); ++x) onBorder += differs(fitted.pixel(x, 0), bg) + differs(fitted.pixel(x, fitted.height() - 1), bg);
    for (int y = 0; y < fitted.height(); ++y) onBorder += differs(fitted.pixel(0, y), bg) + differs(fitted.pixel(fitted.width() - 1, y), bg);
    QCOMPARE(onBorder, 0L);

    // Reloading with keepCamera leaves the camera alone.
    w.setModel(sys, QString(), true);
    QVERIFY((w.camera().eye - f.eye).norm() < 1e-12);
  }

  // Clicking a body selects (and highlights) it, clicking empty space deselects, double-click centres.
  void clickSelectsBody() {
    auto sys = sceneSystem("double-pendulum");
    const Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);
    w.setOverlay(ViewportWidget::Overlay::Grid, false);
    w.setOverlay(ViewportWidget::Overlay::Links, false);  // the pixel search below looks for bodies
    QSignalSpy selected(&w, &ViewportWidget::bodySelected);

    w.setCamera(cameraOn(snap.state.bodies[1].x));
    const QImage plain = w.renderToImage();
    click(&w, {400, 300});
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), 1);
    QCOMPARE(w.selectedBody(), 1);
    const long highlighted = pixelsChanged(plain, w.renderToImage());
    qInfo("selection highlight changes %ld pixels", highlighted);
    QVERIFY(w.renderToImage().save(ms::ui::test::outputPath("viewport-selected.png")));
    QVERIFY(highlighted > 500);

    click(&w, {15, 15});
    QCOMPARE(selected.count(), 2);
    QCOMPARE(selected.at(1).at(0).toInt(), -1);
    QCOMPARE(w.selectedBody(), -1);

    // Body 0 is somewhere else on screen: find its pixels from the fitted view and click one.
    w.fitToModel();
    w.setSelectedBody(-1);
    const QImage fitted = w.renderToImage();
    const QRgb bg = dominantColor(fitted);
    QPoint found(-1, -1);
    for (int y = 0; y < fitted.height() && found.x() < 0; y += 3)
      for (int x = 0; x < fitted.width(); x += 3)
        if (differs(fitted.pixel(x, y), bg, 20)) {
          found = QPoint(x, y) + QPoint(2, 2);
          break;
        }
    QVERIFY(found.x() >= 0);
    click(&w, QPointF(found) / w.devicePixelRatioF());
    QCOMPARE(selected.count(), 3);
    const int hit = selected.at(2).at(0).toInt();
    QVERIFY(hit == 0 || hit == 1);

    // Double-click centres the view on that body's centre of mass, keeping the distance.
    const auto before = w.camera();
    QTest::mouseDClick(&w, Qt::LeftButton, Qt::NoModifier, QPointF(found / w.devicePixelRatioF()).toPoint());
    const auto after = w.camera();
    QVERIFY((after.center - snap.state.bodies[size_t(hit)].x).norm() < 1e-9);
    QVERIFY(std::abs((after.eye - after.center).norm() - (before.eye - before.center).norm()) < 1e-9);
  }

  // Ctrl+drag on a body: active spring on the grabbed body following the mouse, inactive on release,
  // camera untouched.
  void ctrlDragPerturbs() {
    auto sys = sceneSystem("double-pendulum");
    const Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);
    w.setCamera(cameraOn(snap.state.bodies[1].x));
    const auto cam = w.camera();
    QSignalSpy spy(&w, &ViewportWidget::perturbationChanged);
    QSignalSpy selected(&w, &ViewportWidget::bodySelected);

    const QImage before = w.renderToImage();
    mouse(&w, QEvent::MouseButtonPress, {400, 300}, Qt::LeftButton, Qt::LeftButton, Qt::ControlModifier);
    QCOMPARE(spy.count(), 1);
    const auto p0 = qvariant_cast<Perturbation>(spy.at(0).at(0));
    QVERIFY(p0.active);
    QCOMPARE(p0.body, 1);
    QVERIFY(p0.localPoint.norm() < 0.0867);  // on the 10 cm cube
    const ms::BodyState& b = snap.state.bodies[1];
    QVERIFY((b.x + ms::quat::rotation(b.q) * p0.localPoint - p0.target).norm() < 1e-6);

    for (int i = 1; i <= 5; ++i)
      mouse(&w, QEvent::MouseMove, QPointF(400 + 12 * i, 300 - 6 * i), Qt::NoButton, Qt::LeftButton, Qt::ControlModifier);
    QCOMPARE(spy.count(), 6);
    const auto p1 = qvariant_cast<Perturbation>(spy.at(5).at(0));
    QVERIFY(p1.active);
    QCOMPARE(p1.body, 1);
    QVERIFY((p1.localPoint - p0.localPoint).norm() < 1e-12);
    const ms::Vec3 dir = viewDir(cam), right = dir.cross(cam.up).normalized(), up = right.cross(dir);
    const ms::Vec3 moved = p1.target - p0.target;
    qInfo("drag target moved %.3f m right, %.3f m up, %.2g m along the view", moved.dot(right), moved.dot(up),
          moved.dot(dir));
    QVERIFY(moved.dot(right) > 0.05);
    QVERIFY(moved.dot(up) > 0.02);
    QVERIFY(std::abs(moved.dot(dir)) < 1e-6);
    QVERIFY(pixelsChanged(before, w.renderToImage()) > 50);  // the spring is drawn

    mouse(&w, QEvent::MouseButtonRelease, {460, 270}, Qt::LeftButton, Qt::NoButton, Qt::ControlModifier);
    QCOMPARE(spy.count(), 7);
    QVERIFY(!qvariant_cast<Perturbation>(spy.at(6).at(0)).active);
    QCOMPARE(w.camera().eye, cam.eye);
    QCOMPARE(w.camera().center, cam.center);
    QCOMPARE(selected.count(), 0);
    QVERIFY(pixelsChanged(before, w.renderToImage()) < 10);  // spring gone

    // Ctrl+drag on empty space does nothing at all.
    drag(&w, {15, 15}, {200, 100}, Qt::LeftButton, Qt::ControlModifier);
    QCOMPARE(spy.count(), 7);
    QCOMPARE(w.camera().eye, cam.eye);
  }

  // The URDF arm's STL forearm loads without warnings; a missing mesh warns once and still draws.
  void meshModel() {
    ms::Model model;
    QVERIFY(loadFile("models/urdf/two-link-arm.urdf", model));
    const QString dir = QStringLiteral(MECHSTUDIO_SOURCE_DIR "/models/urdf");
    bool hasMesh = false;
    for (const auto& b : model.bodies)
      for (const auto& s : b.visuals) hasMesh |= s.kind == ms::ShapeDesc::Kind::Mesh;
    QVERIFY(hasMesh);
    auto sys = ms::compile(model);
    ViewportWidget w;
    QVERIFY(showView(w));
    g_warnings.clear();
    w.setModel(sys, dir, false);
    w.setSnapshot(snapshotOf(sys));
    const QImage img = w.renderToImage();
    for (const QString& m : g_warnings) QVERIFY2(!m.contains("mesh", Qt::CaseInsensitive), qPrintable(m));
    const double f = fractionNot(img, dominantColor(img));
    qInfo("two-link arm: %.1f %% of pixels differ from the background", 100 * f);
    QVERIFY(f > 0.02);
    QVERIFY(img.save(ms::ui::test::outputPath("viewport-two-link-arm.png")));

    // Same arm with the mesh file renamed: one warning naming it, a placeholder instead.
    for (auto& b : model.bodies)
      for (auto& s : b.visuals)
        if (s.kind == ms::ShapeDesc::Kind::Mesh) s.meshFile = "meshes/missing-part.stl";
    auto broken = ms::compile(model);
    g_warnings.clear();
    w.setModel(broken, dir, false);
    w.setSnapshot(snapshotOf(broken));
    w.renderToImage();
    w.setSnapshot(snapshotOf(broken));
    const QImage placeholder = w.renderToImage();
    QCOMPARE(g_warnings.filter("missing-part.stl").size(), 1);
    QVERIFY(fractionNot(placeholder, dominantColor(placeholder)) > 0.01);
  }

  // A mesh file is drawn with the axes it is written in, as the engine reads it: the rock's OBJ
  // (OSG's OBJ reader would turn it by 90° about x) spans the box of the vertices the reader gave
  // its collision shape.
  void meshFilesKeepTheirAxes() {
    ms::Model model;
    QVERIFY(loadFile("models/rock-on-ramp.mech", model));
    const ms::ShapeDesc& rock = model.bodies[0].collisions.at(0);
    QVERIFY(!rock.meshVertices.empty());
    Eigen::AlignedBox3d expected;
    for (const ms::Vec3& v : rock.meshVertices) expected.extend(v);
    ms::ui::viewport::MeshCache meshes;
    osg::ref_ptr<osg::Node> node = meshes.load(QStringLiteral(MECHSTUDIO_SOURCE_DIR "/models/meshes/rock.obj"));
    QVERIFY(node);
    osg::ComputeBoundsVisitor bounds;
    node->accept(bounds);
    const osg::BoundingBox& box = bounds.getBoundingBox();
    const ms::Vec3 lo(box.xMin(), box.yMin(), box.zMin()), hi(box.xMax(), box.yMax(), box.zMax());
    qInfo("rock.obj drawn over (%.4f %.4f %.4f)..(%.4f %.4f %.4f), its vertices span (%.4f %.4f %.4f)..(%.4f %.4f %.4f)",
          lo.x(), lo.y(), lo.z(), hi.x(), hi.y(), hi.z(), expected.min().x(), expected.min().y(), expected.min().z(),
          expected.max().x(), expected.max().y(), expected.max().z());
    QVERIFY((lo - expected.min()).norm() < 1e-6);
    QVERIFY((hi - expected.max()).norm() < 1e-6);
  }

  // Every shape kind draws; a body without shapes gets a pickable marker; a plane is large but left
  // out of the fit; translucent colours blend.
  void shapeKinds() {
    ms::Model model = ms::buildScene("free-body");  // one 0.6 x 0.4 x 0.2 m box, no gravity
    const auto shape = [](ms::ShapeDesc::Kind kind, const ms::Vec3& size) {
      ms::ShapeDesc s;
      s.kind = kind;
      s.size = size;
      s.color = ms::Vec4(0.3, 0.6, 0.9, 1.0);
      return std::vector<ms::ShapeDesc>{s};
    };
    const auto addBody = [&](const std::string& name, const ms::Vec3& at, const std::vector<ms::ShapeDesc>& visuals) {
      ms::BodyDesc b;
      b.name = name;
      b.position = at;
      b.visuals = visuals;
      model.bodies.push_back(b);
    };
    addBody("sphere", {1, 0, 0}, shape(ms::ShapeDesc::Kind::Sphere, {0.15, 0, 0}));
    addBody("capsule", {0, 1, 0}, shape(ms::ShapeDesc::Kind::Capsule, {0.08, 0.3, 0}));
    addBody("cylinder", {-1, 0, 0}, shape(ms::ShapeDesc::Kind::Cylinder, {0.1, 0.4, 0}));
    addBody("bare", {0, -1, 0}, {});
    addBody("ground", {0, 0, -0.5}, shape(ms::ShapeDesc::Kind::Plane, ms::Vec3::Zero()));
    const int bare = int(model.bodies.size()) - 2, capsule = 2;
    auto sys = ms::compile(model);
    const Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);
    const QImage img = w.renderToImage();
    QVERIFY(img.save(ms::ui::test::outputPath("viewport-shapes.png")));
    QVERIFY(fractionNot(img, dominantColor(img)) > 0.05);
    const double dist = (w.camera().eye - w.camera().center).norm();
    QVERIFY2(dist < 8.0, qPrintable(QString::number(dist)));  // the 40 m plane does not count

    // The bare body's marker sphere is drawn and can be picked.
    QSignalSpy selected(&w, &ViewportWidget::bodySelected);
    w.setCamera(cameraOn(snap.state.bodies[size_t(bare)].x));
    click(&w, {400, 300});
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), bare);

    // The capsule made translucent lets the ground show through at its centre.
    w.setCamera(cameraOn(snap.state.bodies[size_t(capsule)].x));
    const QRgb opaque = w.renderToImage().pixel(QPoint(400, 300) * w.devicePixelRatioF());
    model.bodies[size_t(capsule)].visuals[0].color(3) = 0.3;
    auto translucent = ms::compile(model);
    w.setModel(translucent, QString(), true);
    w.setSnapshot(snapshotOf(translucent));
    const QRgb seeThrough = w.renderToImage().pixel(QPoint(400, 300) * w.devicePixelRatioF());
    qInfo("capsule centre pixel: opaque #%06x, alpha 0.3 #%06x", opaque & 0xffffff, seeThrough & 0xffffff);
    QVERIFY(differs(opaque, seeThrough, 20));
  }

  // The collision layer (off by default) has every kind of collision shape placed as in the model:
  // analytic solids, a plane's square, a collision mesh as its convex hull (a cube's 8 corners and its
  // centre: 12 triangles), nothing for a mesh without vertices or a body without collision shapes. It
  // is drawn only while the overlay is on, and the ground (a world plane) is drawn with it.
  void collisionShapeKinds() {
    using O = ViewportWidget::Overlay;
    ms::Model model = ms::buildScene("free-body");  // "body": a box with a visual shape only
    const auto shape = [](ms::ShapeDesc::Kind kind, const ms::Vec3& size) {
      ms::ShapeDesc s;
      s.kind = kind;
      s.size = size;
      return s;
    };
    const auto addBody = [&](const std::string& name, const ms::Vec3& at, const std::vector<ms::ShapeDesc>& collisions) {
      ms::BodyDesc b;
      b.name = name;
      b.position = at;
      b.visuals = {shape(ms::ShapeDesc::Kind::Sphere, {0.05, 0, 0})};
      b.collisions = collisions;
      model.bodies.push_back(b);
    };
    ms::ShapeDesc hullCube = shape(ms::ShapeDesc::Kind::Mesh, ms::Vec3::Zero());
    hullCube.meshFile = "cube.obj";
    for (int i = 0; i < 8; ++i) hullCube.meshVertices.push_back(0.15 * ms::Vec3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1));
    hullCube.meshVertices.push_back(ms::Vec3::Zero());
    hullCube.position = ms::Vec3(0, 0, 0.1);
    ms::ShapeDesc noVertices = hullCube;
    noVertices.meshVertices.clear();
    addBody("sphere", {1, 0, 0}, {shape(ms::ShapeDesc::Kind::Sphere, {0.15, 0, 0})});
    addBody("capsule", {0, 1, 0}, {shape(ms::ShapeDesc::Kind::Capsule, {0.08, 0.3, 0})});
    addBody("cylinder", {-1, 0, 0}, {shape(ms::ShapeDesc::Kind::Cylinder, {0.1, 0.4, 0})});
    addBody("plane", {0, -1, -0.5}, {shape(ms::ShapeDesc::Kind::Plane, ms::Vec3::Zero())});
    addBody("hull", {1, 1, 0}, {hullCube});
    addBody("no-vertices", {-1, -1, 0}, {noVertices});
    model.grounds.push_back(ms::GroundDesc{"floor", ms::Vec3(0, 0, -1), ms::Vec3::UnitZ(), -1});
    auto sys = ms::compile(model);
    ViewportWidget w;
    QVERIFY(showView(w));
    QVERIFY(!w.overlay(O::CollisionShapes));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snapshotOf(sys));
    QCOMPARE(w.collisionTriangles(0), 0);  // the box has no collision shape
    for (int body : {1, 2, 3}) QVERIFY2(w.collisionTriangles(body) > 40, qPrintable(QString::number(body)));
    QCOMPARE(w.collisionTriangles(4), 2);   // the square
    QCOMPARE(w.collisionTriangles(5), 12);  // the hull of the cube's corners (its centre is inside)
    QCOMPARE(w.collisionTriangles(6), 0);
    QCOMPARE(w.collisionTriangles(7), 0);   // no such body
    const QImage off = w.renderToImage();
    w.setOverlay(O::CollisionShapes, true);
    QVERIFY(w.overlay(O::CollisionShapes));
    const QImage on = w.renderToImage();
    QVERIFY(on.save(ms::ui::test::outputPath("viewport-collision-shapes.png")));
    const long changed = pixelsChanged(off, on);
    qInfo("collision shapes change %ld pixels", changed);
    QVERIFY(changed > 5000);
    // Each shape is drawn where its body is (the hull 10 cm above the body's origin).
    for (int body : {1, 2, 3, 5}) {
      const ms::Vec3 p = snapshotOf(sys).state.bodies[size_t(body)].x + (body == 5 ? ms::Vec3(0, 0, 0.1) : ms::Vec3::Zero());
      const QPointF at = imagePos(w, p);
      QVERIFY(insideImage(on, at, 3));
      QVERIFY2(changedNear(off, on, at, 1), qPrintable(QString::number(body)));
    }
    w.setOverlay(O::CollisionShapes, false);
    QVERIFY(pixelsChanged(off, w.renderToImage()) < 10);
    // A new model keeps the setting.
    w.setOverlay(O::CollisionShapes, true);
    w.setModel(sys, QString(), true);
    w.setSnapshot(snapshotOf(sys));
    QVERIFY(pixelsChanged(on, w.renderToImage()) < 10);
  }

  // Links are on by default: the pendulum's massless rod is drawn from the pivot (a dark dot in a
  // light ring) to the bob, disappears when the overlay is off and comes back when it is on again.
  void linksOverlay() {
    using O = ViewportWidget::Overlay;
    ms::Model model;
    QVERIFY(loadFile("models/pendulum.mech", model));
    auto sys = ms::compile(model);
    const Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    QVERIFY(w.overlay(O::Links));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);
    QVERIFY(w.overlay(O::Links));
    const QImage on = w.renderToImage();
    QVERIFY(on.save(ms::ui::test::outputPath("viewport-links.png")));

    w.setOverlay(O::Links, false);
    QVERIFY(!w.overlay(O::Links));
    const QImage off = w.renderToImage();
    const ms::Vec3 pivot = ms::Vec3::Zero(), bob = snap.state.bodies[0].x;
    const long rod = pixelsChanged(on, off);
    const double along = segmentChanged(w, on, off, pivot, bob);
    qInfo("pendulum: the links change %ld pixels, near %.0f %% of the points along the rod", rod, 100 * along);
    QVERIFY(rod > 300);
    QVERIFY(along > 0.9);

    w.setOverlay(O::Links, true);
    QVERIFY(pixelsChanged(on, w.renderToImage()) < 10);

    // The pivot: dark at its centre, light a few pixels out (the ring).
    const QPointF p = imagePos(w, pivot);
    QVERIFY(insideImage(on, p, 10));
    int ring = 0;
    for (int a = 0; a < 16; ++a)
      for (double r : {4.0, 5.0}) {
        const QPointF q = p + r * QPointF(std::cos(a * 0.3927), std::sin(a * 0.3927));
        ring = std::max(ring, luminance(on.pixel(q.toPoint())));
      }
    const int centre = luminance(on.pixel(p.toPoint()));
    qInfo("pivot: luminance %d at the centre, up to %d on the ring", centre, ring);
    QVERIFY(centre < 90);
    QVERIFY(ring > centre + 80);
  }

  // The double pendulum after 150 steps, fitted: both rods are drawn, the pendulum is large and
  // everything it can reach (a disc of its length about the pivot) is in view, also after a resize.
  void doublePendulumFrame() {
    using O = ViewportWidget::Overlay;
    ms::Model model;
    QVERIFY(loadFile("models/double-pendulum.mech", model));
    auto sys = ms::compile(model);
    ms::Simulation sim(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snapshotOf(sys));
    Snapshot snap = snapshotOf(sys);
    for (int i = 0; i < 150; ++i) QVERIFY(sim.step());
    snap.state = sim.state();
    w.setSnapshot(snap);
    w.fitToModel();
    const ms::Vec3 pivot = ms::Vec3::Zero(), b0 = snap.state.bodies[0].x, b1 = snap.state.bodies[1].x;

    // Rods: pixels change along pivot → first body and first → second body.
    const QImage on = w.renderToImage();
    QVERIFY(on.save(ms::ui::test::outputPath("viewport-double-pendulum.png")));
    w.setOverlay(O::Links, false);
    const QImage off = w.renderToImage();
    w.setOverlay(O::Links, true);
    const double rod1 = segmentChanged(w, on, off, pivot, b0), rod2 = segmentChanged(w, on, off, b0, b1);
    qInfo("double pendulum: links change pixels near %.0f %% / %.0f %% of the points along the rods", 100 * rod1,
          100 * rod2);
    QVERIFY(rod1 > 0.9);
    QVERIFY(rod2 > 0.9);

    // Large: the pendulum spans a good part of the view; its reach (2 m about the pivot, in its
    // plane of motion x = 0) stays inside the image.
    const auto checkFramed = [&](const QImage& img, const char* when) {
      const QPointF p = imagePos(w, pivot), q0 = imagePos(w, b0), q1 = imagePos(w, b1);
      const double span = std::max({QLineF(p, q0).length(), QLineF(p, q1).length(), QLineF(q0, q1).length()});
      const double reach = (b0 - pivot).norm() + (b1 - b0).norm();
      double lo = 1e9;
      bool inside = insideImage(img, p, 2) && insideImage(img, q0, 2) && insideImage(img, q1, 2);
      for (int k = 0; k < 72; ++k) {
        const double t = k * 3.14159265358979 / 36;
        const QPointF r = imagePos(w, pivot + reach * ms::Vec3(0, std::cos(t), std::sin(t)));
        inside = inside && insideImage(img, r, 2);
        lo = std::min({lo, r.x(), r.y(), img.width() - 1 - r.x(), img.height() - 1 - r.y()});
      }
      const double small = std::min(img.width(), img.height());
      qInfo("%s: pendulum spans %.0f px of %.0f, its reach comes within %.0f px of the border", when, span, small, lo);
      QVERIFY(inside);
      QVERIFY(span > 0.3 * small);
      QVERIFY(lo < 0.1 * small);  // the reach fills the view: not framed too far away
    };
    checkFramed(on, "fitted 800x600");

    // An untouched view is framed again when the widget is resized ...
    const auto fitted = w.camera();
    w.resize(500, 700);
    QTRY_COMPARE(w.size(), QSize(500, 700));
    const QImage tall = w.renderToImage();
    QVERIFY((w.camera().eye - fitted.eye).norm() > 0.1);
    checkFramed(tall, "resized to 500x700");
    // ... but not once the user has moved the camera.
    drag(&w, {250, 350}, {300, 350}, Qt::LeftButton);
    const auto moved = w.camera();
    w.resize(800, 600);
    QTRY_COMPARE(w.size(), QSize(800, 600));
    w.renderToImage();
    QCOMPARE(w.camera().eye, moved.eye);
    QCOMPARE(w.camera().center, moved.center);
  }

  // An imported robot is framed where it stands (setFitReach(false), as MuJoCo frames a model): an
  // upright arm of four 0.25 m links on a pivot fills the view's height, where the reach framing
  // (a 1 m ball about the pivot, for the arm swung anywhere) shows it at under half that size.
  void importedArmFramedAsPlaced() {
    ms::Model model;
    for (int i = 0; i < 4; ++i) {
      ms::BodyDesc b;
      b.name = "link" + std::to_string(i + 1);
      b.position = ms::Vec3(0, 0, 0.125 + 0.25 * i);
      ms::ShapeDesc s;
      s.size = ms::Vec3(0.05, 0.05, 0.25);
      b.visuals.push_back(s);
      model.bodies.push_back(b);
      ms::JointDesc j;
      j.name = "j" + std::to_string(i + 1);
      j.parent = i - 1;
      j.child = i;
      j.axis = ms::Vec3::UnitX();
      j.parentAnchor = i == 0 ? ms::Vec3::Zero() : ms::Vec3(0, 0, 0.125);
      j.childAnchor = ms::Vec3(0, 0, -0.125);
      model.joints.push_back(j);
    }
    auto sys = ms::compile(model);
    const Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    // The arm's height on screen, from its foot to its top, and whether both are in the image.
    const auto height = [&](bool reach, bool& inside) {
      w.setFitReach(reach);
      w.setModel(sys, QString(), false);
      w.setSnapshot(snap);
      w.fitToModel();
      const QImage img = w.renderToImage();
      const QPointF foot = imagePos(w, ms::Vec3::Zero()), top = imagePos(w, ms::Vec3(0, 0, 1));
      inside = insideImage(img, foot, 2) && insideImage(img, top, 2);
      return QLineF(foot, top).length() / img.height();
    };
    bool reachInside = false, poseInside = false;
    const double reach = height(true, reachInside), pose = height(false, poseInside);
    qInfo("upright arm: %.0f %% of the view's height framed over its reach, %.0f %% framed as placed", 100 * reach,
          100 * pose);
    QVERIFY(reachInside && poseInside);
    QVERIFY(pose > 0.6);
    QVERIFY(pose > 1.6 * reach);
  }

  // Each overlay draws something when on and nothing when off; trails follow a running simulation.
  void overlaysDraw() {
    auto sys = sceneSystem("double-pendulum");
    ms::Simulation sim(sys);
    Snapshot snap = snapshotOf(sys);
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setSnapshot(snap);
    const QImage base = w.renderToImage();

    using O = ViewportWidget::Overlay;
    for (O o : {O::JointFrames, O::CentersOfMass}) {
      w.setOverlay(o, true);
      QVERIFY(w.overlay(o));
      const long changed = pixelsChanged(base, w.renderToImage());
      qInfo("overlay %d changes %ld pixels", int(o), changed);
      QVERIFY(changed > 200);
      if (o == O::JointFrames) QVERIFY(w.renderToImage().save(ms::ui::test::outputPath("viewport-joint-frames.png")));
      w.setOverlay(o, false);
      QVERIFY(pixelsChanged(base, w.renderToImage()) < 10);
    }

    // Contacts: two fake contacts with forces show points and arrows.
    snap.contacts = {{ms::Vec3(0, 0.5, 0), ms::Vec3::UnitZ(), ms::Vec3(0, 0, 30)},
                     {ms::Vec3(0, 1.5, 0), ms::Vec3::UnitZ(), ms::Vec3(5, 0, 20)}};
    for (O o : {O::ContactPoints, O::ContactForces}) {
      w.setOverlay(o, true);
      w.setSnapshot(snap);
      const long changed = pixelsChanged(base, w.renderToImage());
      qInfo("overlay %d changes %ld pixels", int(o), changed);
      QVERIFY(changed > 20);
      w.setOverlay(o, false);
    }
    snap.contacts.clear();

    // Trails: 60 steps of the falling pendulum leave visible paths; clearTrails removes them.
    w.setSnapshot(snapshotOf(sys));
    w.setOverlay(O::Trails, true);
    for (int i = 0; i < 60; ++i) {
      QVERIFY(sim.step());
      snap.state = sim.state();
      w.setSnapshot(snap);
    }
    const QImage moved = w.renderToImage();
    w.setOverlay(O::Trails, false);
    const QImage noTrails = w.renderToImage();
    const long trailPixels = pixelsChanged(noTrails, moved);
    qInfo("trails change %ld pixels", trailPixels);
    QVERIFY(trailPixels > 200);
    w.setOverlay(O::Trails, true);
    QVERIFY(pixelsChanged(noTrails, w.renderToImage()) < 10);  // re-enabling starts empty
    w.setSnapshot(snap);
    w.clearTrails();
    QVERIFY(pixelsChanged(noTrails, w.renderToImage()) < 10);

    // Everything on at once, then the grid off.
    for (O o : {O::JointFrames, O::ContactPoints, O::ContactForces, O::CentersOfMass, O::Trails}) w.setOverlay(o, true);
    for (int i = 0; i < 5; ++i) {
      QVERIFY(sim.step());
      snap.state = sim.state();
      w.setSnapshot(snap);
    }
    w.fitToModel();
    const QImage all = w.renderToImage();
    QVERIFY(all.save(ms::ui::test::outputPath("viewport-overlays.png")));
    w.setOverlay(O::Grid, false);
    QVERIFY(!w.overlay(O::Grid));
    QVERIFY(pixelsChanged(all, w.renderToImage()) > 1000);
  }

  // Contacts a body hides are dimmed, not drawn over it (issue 34): seen from above, a contact point
  // under the resting box shows the box (at most a faint tint), one beside it the contact colour;
  // seen from below the ground both show it.
  void contactsBehindBodiesAreDimmed() {
    auto sys = sceneSystem("box-drop");
    Snapshot snap = snapshotOf(sys);
    snap.state.bodies[0].x = ms::Vec3(0, 0, 0.25);  // resting on the ground
    const ms::Vec3 under(0.1, 0.1, 0), beside(0.6, 0, 0);
    snap.contacts = {{under, ms::Vec3::UnitZ(), ms::Vec3(0, 0, 5)}, {beside, ms::Vec3::UnitZ(), ms::Vec3(0, 0, 5)}};
    ViewportWidget w;
    QVERIFY(showView(w));
    w.setModel(sys, QString(), false);
    w.setOverlay(ViewportWidget::Overlay::ContactPoints, true);
    w.setOverlay(ViewportWidget::Overlay::Grid, false);
    w.setSnapshot(snap);
    // A pixel's colour where point p is drawn, and the largest channel difference of two colours.
    const auto at = [&](const QImage& img, const ms::Vec3& p) {
      QPointF xy;
      if (!w.worldToWidget(p, xy)) return QColor();
      return img.pixelColor((xy * w.devicePixelRatioF()).toPoint());
    };
    const auto diff = [](const QColor& a, const QColor& b) {
      return std::max({std::abs(a.red() - b.red()), std::abs(a.green() - b.green()), std::abs(a.blue() - b.blue())});
    };
    const QColor contact(255, 51, 51);
    // The pixel nearest the contact colour within 4 pixels of where p is drawn (a point is a disc).
    const auto off = [&](const QImage& img, const ms::Vec3& p) {
      QPointF xy;
      if (!w.worldToWidget(p, xy)) return 255;
      const QPoint c = (xy * w.devicePixelRatioF()).toPoint();
      int best = 255;
      for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx)
          if (img.valid(c + QPoint(dx, dy))) best = std::min(best, diff(img.pixelColor(c + QPoint(dx, dy)), contact));
      return best;
    };
    // From above (a camera looking down at the box, slightly tilted): the hidden contact tints the
    // box's top, at most half way to the contact colour, and stays visible.
    w.setCamera({ms::Vec3(0.3, -0.3, 3), ms::Vec3(0.3, 0, 0), ms::Vec3::UnitY()});
    QImage img = w.renderToImage();
    QVERIFY(img.save(ms::ui::test::outputPath("viewport-contacts-above.png")));
    w.setOverlay(ViewportWidget::Overlay::ContactPoints, false);
    const QColor box = at(w.renderToImage(), under);
    w.setOverlay(ViewportWidget::Overlay::ContactPoints, true);
    const double tint = double(diff(at(img, under), box)) / std::max(1, diff(contact, box));
    qInfo("from above: the contact beside the box %d off its colour; the one under it tints the box by %.2f", off(img, beside), tint);
    QVERIFY(off(img, beside) <= 30);
    QVERIFY(tint >= 0.1 && tint <= 0.5);
    // From below the ground plane (nothing between the camera and either contact).
    w.setCamera({ms::Vec3(0.3, -0.3, -3), ms::Vec3(0.3, 0, 0), ms::Vec3::UnitY()});
    img = w.renderToImage();
    QVERIFY(img.save(ms::ui::test::outputPath("viewport-contacts-below.png")));
    qInfo("from below: %d and %d off", off(img, under), off(img, beside));
    QVERIFY(off(img, under) <= 30);
    QVERIFY(off(img, beside) <= 30);
  }

  // CameraController::fit: a ball is framed from the current view direction, wholly in view and
  // filling it (its outline reaches within 15 % of the nearer image border), in wide and tall views.
  void cameraControllerFitFramesBall() {
    using ms::ui::viewport::CameraController;
    using ms::ui::viewport::Framing;
    for (const auto& [pw, ph] : {std::pair{800, 600}, std::pair{300, 700}}) {
      CameraController c;
      ViewportWidget::Camera start;
      start.eye = ms::Vec3(4, -2, 3);
      start.center = ms::Vec3(0.5, 0, 0);
      c.setCamera(start);
      QVERIFY(!c.autoFit());
      const ms::Vec3 dir = c.viewDir();
      Framing ball;
      ball.center = ms::Vec3(1, 2, 0.5);
      ball.radius = 0.7;
      c.fit(ball, double(pw) / ph);
      QVERIFY(c.autoFit());
      QVERIFY((c.viewDir() - dir).norm() < 1e-12);  // same view direction
      QVERIFY((c.camera().center - ball.center).norm() < 1e-12);
      Eigen::Vector2d mid;
      QVERIFY(c.toPixels(ball.center, pw, ph, mid));
      QVERIFY(std::abs(mid.x() - pw / 2.0) < 1e-6 && std::abs(mid.y() - ph / 2.0) < 1e-6);
      // The ball's outline seen from the eye: points on its tangent cone's circle.
      const ms::Vec3 toBall = ball.center - c.camera().eye;
      const double d = toBall.norm();
      const ms::Vec3 a = toBall.normalized().unitOrthogonal(), b = toBall.normalized().cross(a);
      const double along = (d * d - ball.radius * ball.radius) / d, across = ball.radius * std::sqrt(1 - std::pow(ball.radius / d, 2));
      double closest = 1e9;
      for (int k = 0; k < 72; ++k) {
        const double t = 2 * ms::kPi * k / 72;
        const ms::Vec3 p = c.camera().eye + toBall.normalized() * along + across * (std::cos(t) * a + std::sin(t) * b);
        Eigen::Vector2d px;
        QVERIFY(c.toPixels(p, pw, ph, px));
        QVERIFY(px.x() >= 0 && px.x() <= pw && px.y() >= 0 && px.y() <= ph);
        closest = std::min({closest, px.x(), pw - px.x(), px.y(), ph - px.y()});
      }
      QVERIFY2(closest < 0.15 * std::min(pw, ph), qPrintable(QString::number(closest)));
      // A hand motion leaves the automatic framing.
      c.orbit(10, 5);
      QVERIFY(!c.autoFit());
    }
  }

  // CameraController's motions: orbit keeps the centre and distance (level horizon), pan moves eye
  // and centre alike, zoom scales both about the given point, presets keep centre and distance, and
  // a followed body carries the camera along.
  void cameraControllerMoves() {
    using ms::ui::viewport::CameraController;
    using ms::ui::viewport::ViewPreset;
    CameraController c;
    ViewportWidget::Camera start;
    start.eye = ms::Vec3(3, -3, 2);
    start.center = ms::Vec3(0.2, 0.1, 0.3);
    c.setCamera(start);
    const double dist = (start.eye - start.center).norm();
    c.orbit(40, -25);
    QVERIFY((c.camera().center - start.center).norm() < 1e-12);
    QVERIFY(std::abs((c.camera().eye - c.camera().center).norm() - dist) < 1e-9);
    QVERIFY((c.camera().up - ms::Vec3::UnitZ()).norm() < 1e-12);
    QVERIFY((c.camera().eye - start.eye).norm() > 0.1);

    const ViewportWidget::Camera before = c.camera();
    c.pan(30, 12, 600);
    const ms::Vec3 moved = c.camera().center - before.center;
    QVERIFY(moved.norm() > 1e-3);
    QVERIFY((c.camera().eye - before.eye - moved).norm() < 1e-12);
    QVERIFY(std::abs(moved.dot(c.viewDir())) < 1e-9);  // across the view

    const ViewportWidget::Camera beforeZoom = c.camera();
    const ms::Vec3 p(0.5, 0.5, 0.5);
    c.zoomAbout(1.0, p);
    QVERIFY((c.camera().eye - (p + (beforeZoom.eye - p) * 0.85)).norm() < 1e-12);
    QVERIFY((c.camera().center - (p + (beforeZoom.center - p) * 0.85)).norm() < 1e-12);
    // The focal point of the central ray is the centre.
    QVERIFY((c.focalPoint(c.camera().eye, c.viewDir()) - c.camera().center).norm() < 1e-9);

    const ms::Vec3 center = c.camera().center;
    const double d = (c.camera().eye - center).norm();
    c.setPreset(ViewPreset::Top);
    QVERIFY((c.camera().center - center).norm() < 1e-12);
    QVERIFY((c.camera().eye - (center + ms::Vec3(0, 0, d))).norm() < 1e-9);
    c.setPreset(ViewPreset::Front);
    QVERIFY((c.viewDir() - ms::Vec3(0, 1, 0)).norm() < 1e-12);

    const ms::Vec3 x0(1, 1, 0), x1(1.5, 0.5, 0.2);
    c.setFollow(3, &x0);
    QCOMPARE(c.follow(), 3);
    const ViewportWidget::Camera beforeFollow = c.camera();
    QVERIFY(c.track(x1));
    QVERIFY((c.camera().eye - (beforeFollow.eye + x1 - x0)).norm() < 1e-12);
    QVERIFY((c.camera().center - (beforeFollow.center + x1 - x0)).norm() < 1e-12);
    c.setFollow(-1, nullptr);
    QCOMPARE(c.follow(), -1);
  }

  // Picking through an OSG view: the window ray through the middle runs along the view, pickBody
  // returns the body under a pixel (and the surface point), nothing over empty space or for a body
  // past the count; the Ctrl+drag grab keeps its point on the body and drags on the plane facing
  // the camera.
  void pickingFindsBodyUnderPixel() {
    namespace vp = ms::ui::viewport;
    const int pw = 400, ph = 300;
    vp::CameraController c;
    ViewportWidget::Camera cam;
    cam.eye = ms::Vec3(0, -5, 0);
    cam.center = ms::Vec3::Zero();
    c.setCamera(cam);
    osg::ref_ptr<osgViewer::Viewer> viewer = new osgViewer::Viewer;
    osg::Camera* oc = viewer->getCamera();
    oc->setViewport(0, 0, pw, ph);
    oc->setProjectionMatrixAsPerspective(vp::kFovY, double(pw) / ph, 0.01, 1000.0);
    oc->setViewMatrixAsLookAt(vp::toOsg(cam.eye), vp::toOsg(cam.center), vp::toOsg(c.safeUp()));
    osg::ref_ptr<osg::Group> root = new osg::Group;
    std::vector<osg::ref_ptr<osg::Material>> materials;
    const ms::Vec3 at[2] = {ms::Vec3(-1, 0, 0), ms::Vec3(1, 0, 0)};
    for (int i = 0; i < 2; ++i) {
      osg::ref_ptr<osg::MatrixTransform> x = new osg::MatrixTransform(vp::poseMatrix(at[i], ms::Vec4(1, 0, 0, 0)));
      x->setUserValue(vp::kBodyKey, i);
      x->addChild(vp::buildMarkerSphere(0.3, osg::Vec4(1, 1, 1, 1), materials));
      root->addChild(x);
    }
    viewer->setSceneData(root);

    ms::Vec3 origin, dir;
    QVERIFY(vp::windowRay(*oc, osg::Vec2d(pw / 2.0, ph / 2.0), origin, dir));
    QVERIFY((dir - ms::Vec3(0, 1, 0)).norm() < 1e-6);
    QVERIFY(std::abs(origin.x()) < 1e-6 && std::abs(origin.z()) < 1e-6);

    // Body 1's centre in window coordinates (origin bottom left).
    Eigen::Vector2d px;
    QVERIFY(c.toPixels(at[1], pw, ph, px));
    const osg::Vec2d window(px.x(), ph - px.y());
    const vp::Hit hit = vp::pickBody(*viewer, window, 2);
    QCOMPARE(hit.body, 1);
    // On the sphere's near side, on the line of sight through its centre.
    QVERIFY2(std::abs((hit.point - at[1]).norm() - 0.3) < 0.02, qPrintable(QString::number((hit.point - at[1]).norm())));
    QVERIFY(((hit.point - cam.eye).normalized() - (at[1] - cam.eye).normalized()).norm() < 1e-3);
    QVERIFY((hit.point - cam.eye).norm() < (at[1] - cam.eye).norm());
    QCOMPARE(vp::pickBody(*viewer, window, 1).body, -1);           // past the body count
    QCOMPARE(vp::pickBody(*viewer, osg::Vec2d(pw / 2.0, ph - 5.0), 2).body, -1);  // empty space

    vp::Grab grab;
    QVERIFY(!grab.perturbation().active);
    vp::Poses poses(2);
    poses[1].x = at[1];
    grab.start(hit, poses[1]);
    QVERIFY((grab.local - (hit.point - at[1])).norm() < 1e-12);
    poses[1].x = ms::Vec3(1, 0, 1);
    QVERIFY((grab.world(poses) - (hit.point + ms::Vec3(0, 0, 1))).norm() < 1e-12);
    const ms::Vec3 target = grab.dragTarget(ms::Vec3(2, -5, 0.5), ms::Vec3(0, 1, 0), c.viewDir(), poses);
    QVERIFY((target - ms::Vec3(2, hit.point.y(), 0.5)).norm() < 1e-12);
    grab.target = target;
    const Perturbation pert = grab.perturbation();
    QVERIFY(pert.active);
    QCOMPARE(pert.body, 1);
    QVERIFY((pert.localPoint - grab.local).norm() < 1e-12 && (pert.target - target).norm() < 1e-12);
  }
};

// Qt Test main with shared GL contexts enabled before the application exists (as the app does).
int main(int argc, char** argv) {
  QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
  QApplication app(argc, argv);
  TestViewport test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_viewport.moc"
