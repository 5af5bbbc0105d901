// SPDX-License-Identifier: GPL-3.0-or-later
// Move and rotate handles in the 3D view (issue 34): the selected body's handles are drawn while
// the view holds the applied model's initial state; a drag with synthesised mouse events through
// the view's own handlers is one undoable edit of exactly one form — the joint's (position …), or
// with Shift its (parent-anchor …) — applied at once; Esc cancels; running or typing hides them.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QTest>
#include <QUndoStack>
#include <memory>

#include "core/quaternion.h"
#include "document_controller.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "editor/model_tree.h"
#include "io/mech_reader.h"
#include "main_window.h"
#include "settings_panel.h"
#include "status_bar.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"
#include "window_test_util.h"

using namespace ms;
using namespace ms::ui;

namespace {

// The model read from a text (fails the test when it does not read).
MechParseResult parsed(const QString& text) {
  MechParseResult r;
  Diagnostics d;
  if (!readMechText(text.toStdString(), "test.mech", {}, r, d)) qFatal("does not read: %s", d.format().c_str());
  return r;
}

// The text of `before`'s form `span` in `after`, when `after` differs from `before` there only.
QString onlyFormChanged(const QString& beforeText, const QString& afterText, const SourceRef& span) {
  const std::string before = beforeText.toStdString(), after = afterText.toStdString();
  const size_t tail = before.size() - span.end;
  if (after.size() < span.begin + tail || after.compare(0, span.begin, before, 0, span.begin) != 0 ||
      after.compare(after.size() - tail, tail, before, span.end, tail) != 0)
    return QString();
  return QString::fromStdString(after.substr(span.begin, after.size() - tail - span.begin));
}

// Press at `from`, move to `to` in steps, save the window as `shot` (in the test's output folder:
// what the user sees mid-drag), release.
void dragWithShot(QWidget* window, QWidget* view, QPointF from, QPointF to, Qt::KeyboardModifiers mods, const QString& shot) {
  test::mouse(view, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, mods);
  for (int i = 1; i <= 6; ++i)
    test::mouse(view, QEvent::MouseMove, from + (to - from) * (i / 6.0), Qt::NoButton, Qt::LeftButton, mods);
  QCoreApplication::processEvents();
  window->grab().save(test::outputPath(shot));
  test::mouse(view, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton, mods);
}

int jointIndex(const MechParseResult& p, const std::string& name) {
  for (size_t k = 0; k < p.model.joints.size(); ++k)
    if (p.model.joints[k].name == name) return int(k);
  return -1;
}

}  // namespace

class TestHandles : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;
  QTemporaryDir dir_;
  QString path_;
  QList<DocumentController::Question> asked_;
  DocumentController::Answer answer_ = DocumentController::Answer::Reject;
  ModelEditor* ed_ = nullptr;
  ViewportWidget* view_ = nullptr;

  // The four-bar open with the crank selected, the handles shown.
  void selectCrank() {
    QVERIFY(w_->modelTree()->selectBody("crank"));
    test::settle(*w_);
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 1);
  }

 private slots:
  void init() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("four-bar.mech");
    QFile::remove(path_);
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/models/four-bar.mech", path_));
    QFile::setPermissions(path_, QFile::ReadOwner | QFile::WriteOwner);
    test::openAnsweredWindow(w_, path_, asked_, answer_);
    ed_ = w_->editorPanel()->editor();
    view_ = w_->viewport();
    // Snapping as on a fresh installation (an earlier test may have left it off in the settings).
    view_->setSnapping(true, 0.01, 5 * M_PI / 180);
    test::settle(*w_);
  }
  void cleanup() { test::closeAnsweredWindow(w_, path_, answer_); }

  // Dragging the crank's ring writes its joint's position, nothing else; undo restores the text.
  void ringDragChangesOnlyTheJointPosition() {
    selectCrank();
    const QString before = ed_->toPlainText();
    const MechParseResult p = parsed(before);
    const int k = jointIndex(p, "crank-shaft");
    const int undoBefore = ed_->undoStack()->count();
    // From the ring's start round a twentieth of it: 2π/20 rad about its axis.
    QPointF from, to;
    QVERIFY(view_->handlePoint(DragMode::Joint, 0, 0.0, from));
    QVERIFY(view_->handlePoint(DragMode::Joint, 0, 0.05, to));
    dragWithShot(w_.get(), view_, from, to, Qt::NoModifier, "handles-ring.png");
    test::settle(*w_);
    const QString after = ed_->toPlainText();
    const QString form = onlyFormChanged(before, after, p.map.joints[size_t(k)].properties.at("position").form);
    // From -0.3184 rad (-18.2°) by 18° either way, snapped to a multiple of 5°: 0 or -35°.
    qInfo("ring dragged 1/20 of a turn, snapped: %s", qPrintable(form));
    QVERIFY2(form == "(position 0)" || form == "(position -0.610865238198)", qPrintable(form));
    // One undo step, applied: the simulated model is the text.
    QCOMPARE(ed_->undoStack()->count(), undoBefore + 1);
    QCOMPARE(w_->documents()->appliedText(), after.toStdString());
    QVERIFY(w_->statusBar()->currentMessage().contains("joint 'crank-shaft' angle"));
    // The handles are back, for the model as edited.
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 1);
    ed_->undoStack()->undo();
    QCOMPARE(ed_->toPlainText(), before);
  }

  // With Shift the crank's anchor moves along the ground's y axis: only its (parent-anchor …).
  void shiftDragChangesOnlyTheAnchor() {
    selectCrank();
    const QString before = ed_->toPlainText();
    const MechParseResult p = parsed(before);
    const int k = jointIndex(p, "crank-shaft");
    QCOMPARE(int(view_->handles(DragMode::Anchor).handles.size()), 3);
    QPointF from, to;
    QVERIFY(view_->handlePoint(DragMode::Anchor, 1, 0.4, from));  // the y arrow
    QVERIFY(view_->handlePoint(DragMode::Anchor, 1, 0.8, to));
    dragWithShot(w_.get(), view_, from, to, Qt::ShiftModifier, "handles-anchor.png");
    test::settle(*w_);
    const QString after = ed_->toPlainText();
    const QString form = onlyFormChanged(before, after, p.map.joints[size_t(k)].properties.at("parent-anchor").form);
    QVERIFY2(form.startsWith("(parent-anchor 0 "), qPrintable(after));
    const Vec3 moved = parsed(after).model.joints[size_t(k)].parentAnchor - p.model.joints[size_t(k)].parentAnchor;
    qInfo("anchor dragged along y, snapped to the 0.01 m grid: %s", qPrintable(form));
    QVERIFY(moved.y() > 0.005);
    QCOMPARE(moved.x(), 0.0);
    QCOMPARE(moved.z(), 0.0);
    // On the grid: y written with at most two decimals.
    const double y = parsed(after).model.joints[size_t(k)].parentAnchor.y();
    QCOMPARE(y, std::round(y * 100) / 100);
  }

  // S toggles snapping: the crank then turns as far as the mouse went (1/20 of a turn, 0.314 rad).
  void snappingOffFollowsTheMouse() {
    selectCrank();
    QTest::keyClick(view_, Qt::Key_S);
    QVERIFY(!view_->snapping());
    QVERIFY(!w_->settingsPanel()->snapping());  // the setting follows the key
    const QString before = ed_->toPlainText();
    const MechParseResult p = parsed(before);
    const int k = jointIndex(p, "crank-shaft");
    QPointF from, to;
    QVERIFY(view_->handlePoint(DragMode::Joint, 0, 0.0, from));
    QVERIFY(view_->handlePoint(DragMode::Joint, 0, 0.05, to));
    test::drag(view_, from, to, Qt::LeftButton);
    test::settle(*w_);
    const double turned = parsed(ed_->toPlainText()).model.joints[size_t(k)].initialPosition[0] - p.model.joints[size_t(k)].initialPosition[0];
    qInfo("ring dragged 1/20 of a turn without snapping: %.6f rad", turned);
    QVERIFY(std::abs(std::abs(turned) - 2 * M_PI / 20) <= 0.005);
    QTest::keyClick(view_, Qt::Key_S);
    QVERIFY(view_->snapping());
  }

  // The Resize tool: the crank's disc shows a radius and a length arrow; dragging the radius outwards
  // rewrites that one number, snapped to the grid.
  void resizeToolChangesOneSize() {
    selectCrank();
    w_->findChild<QAction*>("tool-resize")->trigger();
    QCOMPARE(int(view_->handles(DragMode::Resize).handles.size()), 2);
    const QString before = ed_->toPlainText();
    const MechParseResult p = parsed(before);
    const int crank = p.model.bodyIndex("crank");
    QPointF from, to;
    QVERIFY(view_->handlePoint(DragMode::Resize, 0, 0.5, from));
    QVERIFY(view_->handlePoint(DragMode::Resize, 0, 1.0, to));
    // The disc's orange pixels, before and during the drag: drawn at its new size while dragged.
    const auto discPixels = [](const QImage& image) {
      int n = 0;
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
          const QColor c = image.pixelColor(x, y);
          n += c.red() > 180 && c.green() > 50 && c.green() < 140 && c.blue() < 90;
        }
      return n;
    };
    const int before0 = discPixels(view_->renderToImage());
    test::mouse(view_, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
    for (int i = 1; i <= 6; ++i) test::mouse(view_, QEvent::MouseMove, from + (to - from) * (i / 6.0), Qt::NoButton, Qt::LeftButton);
    QCoreApplication::processEvents();
    const int during = discPixels(view_->renderToImage());
    w_->grab().save(test::outputPath("tools-resize.png"));
    test::mouse(view_, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
    test::settle(*w_);
    qInfo("disc pixels: %d before, %d while dragged", before0, during);
    QVERIFY(during > 2 * before0);
    const QString after = ed_->toPlainText();
    const SourceRef& size = p.map.bodies[size_t(crank)].visuals[0].properties.at("size").values[0];
    const QString form = onlyFormChanged(before, after, size);
    const double radius = parsed(after).model.bodies[size_t(crank)].visuals[0].size.x();
    qInfo("radius dragged: %s (was 0.12)", qPrintable(form));
    QVERIFY2(!form.isEmpty() && radius > 0.12, qPrintable(form));
    QCOMPARE(radius, std::round(radius * 100) / 100);
    w_->findChild<QAction*>("tool-select")->trigger();
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 1);  // the move handles again
  }

  // The Axis tool: two rings across the crank's axis; turning one tilts the axis about the ring's
  // direction by a multiple of the 5° step: only the (axis …) form changes.
  void axisToolTiltsTheAxis() {
    selectCrank();
    w_->findChild<QAction*>("tool-axis")->trigger();
    QCOMPARE(int(view_->handles(DragMode::Axis).handles.size()), 3);  // two rings and the axis
    const QString before = ed_->toPlainText();
    const MechParseResult p = parsed(before);
    const int k = jointIndex(p, "crank-shaft");
    const Vec3 about = view_->handles(DragMode::Axis).handles[0].direction;
    QPointF from, to;
    // (Away from where the two rings cross, on the axis.)
    QVERIFY(view_->handlePoint(DragMode::Axis, 0, 0.125, from));
    QVERIFY(view_->handlePoint(DragMode::Axis, 0, 0.125 + 1.0 / 12, to));
    dragWithShot(w_.get(), view_, from, to, Qt::NoModifier, "tools-axis.png");
    test::settle(*w_);
    const QString after = ed_->toPlainText();
    const QString form = onlyFormChanged(before, after, p.map.joints[size_t(k)].properties.at("axis").form);
    const Vec3 axis = parsed(after).model.joints[size_t(k)].axis;
    qInfo("axis tilted: %s", qPrintable(form));
    QVERIFY2(!form.isEmpty(), qPrintable(after));
    // Tilted away from x by a multiple of the 5° step (this ring is seen obliquely: the angle read
    // from the mouse is not the twelfth of a turn the outline suggests), about the ring's direction.
    const double tilt = std::acos(std::min(1.0, std::abs(axis.x()))) * 180 / M_PI;
    qInfo("tilt %.9g°", tilt);
    QVERIFY(tilt >= 5 - 1e-6);
    QVERIFY(std::abs(tilt - 5 * std::round(tilt / 5)) <= 1e-6);
    QVERIFY(std::abs(axis.dot(about)) <= 1e-9);
    w_->findChild<QAction*>("tool-select")->trigger();
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 1);
  }

  // Mesh…: a mesh file chosen, a click on the ground drops a free body shaped by it, named after it,
  // the file written relative to the model's folder, resting there (its lowest vertex on the ground);
  // a file that is not a mesh is refused with its line.
  void meshToolDropsABodyShapedByAFile() {
    QVERIFY(QDir(dir_.path()).mkpath("meshes"));
    const QString mesh = dir_.filePath("meshes/l-block.obj");
    QFile::remove(mesh);
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/models/meshes/l-block.obj", mesh));
    const QString bad = dir_.filePath("meshes/bad.obj");
    QFile b(bad);
    QVERIFY(b.open(QIODevice::WriteOnly | QIODevice::Truncate));
    b.write("v 0 0 0\nv 1 x 0\n");
    b.close();
    QString why;
    QVERIFY(!w_->setAddMesh(bad, &why));
    QVERIFY2(why.contains("bad.obj:2:"), qPrintable(why));
    QVERIFY2(w_->setAddMesh(mesh, &why), qPrintable(why));
    QPointF at;
    QVERIFY(view_->worldToWidget(Vec3(0.1, -0.4, 0), at));
    test::click(view_, at);
    test::settle(*w_);
    const QString text = ed_->toPlainText();
    QVERIFY2(text.contains("(body l-block1\n    (mass 1)\n    (shape mesh \"meshes/l-block.obj\")\n    (position "), qPrintable(text));
    // Resting: the lowest of its vertices at z = 0.
    const Snapshot s = w_->sim().snapshot();
    const int k = s.system->model.bodyIndex("l-block1");
    QVERIFY(k >= 0);
    const BodyDesc& body = s.system->model.bodies[size_t(k)];
    QVERIFY(!body.collisions.empty() && !body.collisions[0].meshVertices.empty());
    double lowest = 1e9;
    for (const Vec3& v : body.collisions[0].meshVertices)
      lowest = std::min(lowest, (s.state.bodies[size_t(k)].x + quat::rotate(s.state.bodies[size_t(k)].q, v)).z());
    qInfo("mesh body's lowest vertex at z = %.3g m", lowest);
    w_->grab().save(test::outputPath("tools-mesh.png"));
    QVERIFY(std::abs(lowest) <= 1e-12);
    w_->findChild<QAction*>("tool-select")->trigger();
  }

  // Esc during a drag: the preview is undone and nothing is edited.
  void escapeCancelsTheDrag() {
    selectCrank();
    const QString before = ed_->toPlainText();
    QPointF from, to;
    QVERIFY(view_->handlePoint(DragMode::Joint, 0, 0.0, from));
    QVERIFY(view_->handlePoint(DragMode::Joint, 0, 0.1, to));
    test::mouse(view_, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
    test::mouse(view_, QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton);
    QTest::keyClick(view_, Qt::Key_Escape);
    test::mouse(view_, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
    test::settle(*w_);
    QCOMPARE(ed_->toPlainText(), before);
  }

  // Building from an empty model by clicks: a box dropped on the ground, a sphere on its top, a
  // second box joined to the first with Connect; every click one undoable edit, applied; undoing
  // them all gives the empty text back byte for byte.
  void toolsBuildFromAnEmptyModel() {
    const QString empty = dir_.filePath("empty.mech");
    QFile f(empty);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("(mechanism \"empty\"\n  (gravity 0 0 -9.81))\n");
    f.close();
    QString err;
    QVERIFY2(w_->documents()->openModel(empty, &err), qPrintable(err));
    test::settle(*w_);
    const QString before = ed_->toPlainText();
    const auto use = [&](const char* tool) {
      QAction* a = w_->findChild<QAction*>(tool);
      QVERIFY(a);
      a->trigger();
    };
    const auto clickAt = [&](const Vec3& world) {
      QPointF at;
      QVERIFY(view_->worldToWidget(world, at));
      test::click(view_, at);
      test::settle(*w_);
    };
    // A box on the ground at the origin: it rests there.
    use("tool-add-box");
    clickAt(Vec3(0, 0, 0));
    QVERIFY2(ed_->toPlainText().contains("(body box1\n    (mass 1)\n    (shape box 0.1 0.1 0.1)\n    (position "),
             qPrintable(ed_->toPlainText()));
    // The model had no ground: the plane it was put on comes with it.
    QVERIFY(ed_->toPlainText().contains("\n  (ground ground)"));
    MechParseResult p = parsed(ed_->toPlainText());
    const Vec3 box1 = p.model.bodies[0].position;
    QVERIFY(std::abs(box1.z() - 0.05) <= 1e-9);
    QVERIFY(box1.head<2>().norm() <= 0.01);  // where the click was, within the pick's resolution
    // The new body is selected: its handles are shown.
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 6);
    w_->grab().save(test::outputPath("tools-add.png"));
    // A sphere on its top face with a revolute joint: jointed to it there, about the face's normal.
    test::chooseJoint(*w_, "revolute");
    use("tool-add-sphere");
    clickAt(box1 + Vec3(0.02, 0.01, 0.05));
    p = parsed(ed_->toPlainText());
    const int k = p.model.jointIndex("sphere1-joint");
    QVERIFY2(k >= 0, qPrintable(ed_->toPlainText()));
    QCOMPARE(p.model.joints[size_t(k)].parent, p.model.bodyIndex("box1"));
    QVERIFY((p.model.joints[size_t(k)].axis - Vec3::UnitZ()).norm() <= 1e-6);
    // A second box beside it (free), joined to the first with Connect (side faces), a revolute.
    test::chooseJoint(*w_, "free");
    use("tool-add-box");
    clickAt(box1 + Vec3(0.3, 0, -0.05));
    p = parsed(ed_->toPlainText());
    const Vec3 box2 = p.model.bodies[size_t(p.model.bodyIndex("box2"))].position;
    test::chooseJoint(*w_, "revolute");
    use("tool-connect");
    clickAt(box1 + Vec3(0.05, 0, 0));   // box1's +x face
    int first = -3;
    Vec3 firstPoint;
    QVERIFY(view_->connectFirst(first, firstPoint));
    w_->grab().save(test::outputPath("tools-connect.png"));
    clickAt(box2 + Vec3(-0.05, 0, 0));  // box2's −x face
    p = parsed(ed_->toPlainText());
    const int j = p.model.jointIndex("joint1");
    QVERIFY2(j >= 0, qPrintable(ed_->toPlainText()));
    QCOMPARE(p.model.joints[size_t(j)].parent, p.model.bodyIndex("box1"));
    QCOMPARE(p.model.joints[size_t(j)].child, p.model.bodyIndex("box2"));
    QVERIFY((p.model.joints[size_t(j)].axis - Vec3::UnitX()).norm() <= 1e-6);  // box1's face normal
    QVERIFY(w_->statusBar()->currentMessage().contains("Joined 'box1' and 'box2'"));
    // Four edits, four undo steps back to the empty model.
    for (int i = 0; i < 4; ++i) ed_->undoStack()->undo();
    QCOMPARE(ed_->toPlainText(), before);
    use("tool-select");
  }

  // A click on a box's face a little inside an edge that is not on the grid (the box 0.406 m deep:
  // its edge at y = 0.203) lands on the edge, where the grid's point (y = 0.2) is farther; along the
  // edge it is on the grid (x = 0.1).
  void clickNearAnEdgeSnapsOntoIt() {
    const QString file = dir_.filePath("edge.mech");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("(mechanism \"edge\"\n  (body b (mass 1) (shape box 0.4 0.406 0.2) (position 0 0 0.1)))\n");
    f.close();
    QString err;
    QVERIFY2(w_->documents()->openModel(file, &err), qPrintable(err));
    test::settle(*w_);
    test::chooseJoint(*w_, "revolute");
    w_->findChild<QAction*>("tool-add-sphere")->trigger();
    QPointF at;
    QVERIFY(view_->worldToWidget(Vec3(0.103, 0.2025, 0.2), at));
    test::click(view_, at);
    test::settle(*w_);
    QVERIFY2(ed_->toPlainText().contains("(parent-anchor 0.1 0.203 0.1)"), qPrintable(ed_->toPlainText()));
    test::chooseJoint(*w_, "free");
    w_->findChild<QAction*>("tool-select")->trigger();
  }

  // Connect snaps to an existing joint point: a click 4 pixels off the crank pin on the coupler picks
  // the pin itself.
  void connectSnapsToAnExistingJointPoint() {
    test::settle(*w_);
    w_->findChild<QAction*>("tool-connect")->trigger();
    const Snapshot s = w_->sim().snapshot();
    const int coupler = s.system->model.bodyIndex("coupler");
    const BodyState& b = s.state.bodies[size_t(coupler)];
    const Vec3 pin = b.x + quat::rotate(b.q, Vec3(0, 0, -0.175));  // the coupler's lower end, on the crank pin
    QPointF at;
    QVERIFY(view_->worldToWidget(b.x + quat::rotate(b.q, Vec3(0, 0, -0.16)), at));  // a little up the rod
    QPointF pinAt;
    QVERIFY(view_->worldToWidget(pin, pinAt));
    qInfo("clicked %.1f px from the pin", std::hypot(at.x() - pinAt.x(), at.y() - pinAt.y()));
    QVERIFY(std::hypot(at.x() - pinAt.x(), at.y() - pinAt.y()) < 9);
    test::click(view_, at);
    int first = -3;
    Vec3 point;
    QVERIFY(view_->connectFirst(first, point));
    QCOMPARE(first, coupler);
    QVERIFY2((point - pin).norm() <= 1e-12, qPrintable(QString::number((point - pin).norm())));
    QTest::keyClick(view_, Qt::Key_Escape);
    QVERIFY(!view_->connectFirst(first, point));
    w_->findChild<QAction*>("tool-select")->trigger();
  }

  // Delete and Ctrl+D in the view: the tree's edits of the selected body, applied; undo restores.
  void deleteAndDuplicateFromTheView() {
    selectCrank();
    const QString before = ed_->toPlainText();
    QTest::keyClick(view_, Qt::Key_D, Qt::ControlModifier);
    test::settle(*w_);
    QVERIFY(ed_->toPlainText().contains("(body crank-copy"));
    QCOMPARE(w_->documents()->appliedText(), ed_->toPlainText().toStdString());
    ed_->undoStack()->undo();
    QCOMPARE(ed_->toPlainText(), before);
    QVERIFY(w_->documents()->applyEditor());
    test::settle(*w_);
    QVERIFY(w_->modelTree()->selectBody("rocker"));
    QTest::keyClick(view_, Qt::Key_Delete);
    test::settle(*w_);
    QVERIFY(!ed_->toPlainText().contains("(body rocker"));
    QVERIFY(!ed_->toPlainText().contains("(loop-joint coupler-rocker"));  // what referred to it goes too
    QVERIFY(w_->statusBar()->currentMessage().contains("Deleted body 'rocker'"));
    ed_->undoStack()->undo();
    QCOMPARE(ed_->toPlainText(), before);
  }

  // A model read from URDF: the first tool click offers to convert it to .mech (written beside it);
  // accepted, the .mech is open and the next click edits it.
  void importedModelIsConvertedOnTheFirstGesture() {
    const QString urdf = dir_.filePath("two-link-arm.urdf");
    QFile::remove(urdf);
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/models/urdf/two-link-arm.urdf", urdf));
    QString err;
    QVERIFY2(w_->documents()->openModel(urdf, &err), qPrintable(err));
    test::settle(*w_);
    answer_ = DocumentController::Answer::Accept;
    asked_.clear();
    w_->findChild<QAction*>("tool-add-box")->trigger();
    QPointF at;
    QVERIFY(view_->worldToWidget(Vec3(0.5, 0.5, 0), at));
    const auto click = [&] {
      test::click(view_, at);
      test::settle(*w_);
    };
    click();
    QCOMPARE(asked_.count(DocumentController::Question::ConvertToMech), 1);
    const QString mech = dir_.filePath("two-link-arm.mech");
    QVERIFY(QFileInfo::exists(mech));
    QCOMPARE(ed_->fileName(), mech);
    QVERIFY(!ed_->toPlainText().contains("(body box1"));  // converted, not yet edited
    click();
    QCOMPARE(asked_.count(DocumentController::Question::ConvertToMech), 1);  // asked once
    QVERIFY2(ed_->toPlainText().contains("(body box1"), qPrintable(w_->status()->bannerText()));
    answer_ = DocumentController::Answer::Reject;
    w_->findChild<QAction*>("tool-select")->trigger();
  }

  // Handles only on the initial state of the applied text: not while running or after typing.
  void handlesHideWhileRunningOrEdited() {
    selectCrank();
    test::stepN(*w_, 3);
    QVERIFY(view_->handles(DragMode::Joint).handles.empty());
    w_->sim().reset();
    test::settle(*w_);
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 1);
    // A comment typed: the text is no longer the model in the view.
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("\n; typed");
    ed_->checkNow();
    test::settle(*w_);
    QVERIFY(view_->handles(DragMode::Joint).handles.empty());
    QVERIFY(w_->documents()->applyEditor());
    test::settle(*w_);
    QCOMPARE(int(view_->handles(DragMode::Joint).handles.size()), 1);
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestHandles)
#include "tst_handles.moc"
