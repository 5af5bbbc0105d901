// SPDX-License-Identifier: GPL-3.0-or-later
// The gallery's four-bar built with the mouse from a model without bodies (issue 34's acceptance):
// the bodies, joints and anchors by gestures in the 3D view — synthesised mouse events through the
// view's own handlers, with snapping (grid 0.005 m, 5°) — the masses, sizes, the disc's turn and the
// crank's angle and rate in the property panel, then Edit > Assemble holding the crank. The built
// model compiles to the gallery's `models/four-bar.mech` (every mass, inertia and joint frame, and
// the initial poses) within 1e-12 — the initial velocities within 1e-10, the accuracy of the engine's
// own — moves with it within 1e-9 m over 300 steps, and undoing every edit
// gives back the starting text byte for byte. What is not compared: names, colours and the crank's
// drawn arm (appearance: neither is in the dynamics).
#include <QAction>
#include <QApplication>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <memory>

#include "core/quaternion.h"
#include "document_controller.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "editor/model_tree.h"
#include "editor/property_panel.h"
#include "io/mech_reader.h"
#include "main_window.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "system/initial_conditions.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"
#include "window_test_util.h"

using namespace ms;
using namespace ms::ui;

// A helper's QVERIFY returns from the helper only: stop the test there too.
#define STEP(call)                            \
  do {                                        \
    call;                                     \
    if (QTest::currentTestFailed()) return;   \
  } while (false)

namespace {

// The model read from a text (fails the test when it does not read).
Model modelOf(const QString& text) {
  MechParseResult r;
  Diagnostics d;
  if (!readMechText(text.toStdString(), "test.mech", {}, r, d)) qFatal("does not read: %s", d.format().c_str());
  return r.model;
}

// Largest difference of two matrices or vectors.
template <class A, class B>
double apart(const A& a, const B& b) {
  return (a - b).cwiseAbs().maxCoeff();
}

// The mechanism-level settings of the gallery's four-bar, without a body: where the build starts.
const char* const kStart =
    "; The four-bar of the gallery, built with the mouse.\n"
    "(mechanism \"four-bar\"\n"
    "  (gravity 0 0 -9.81)\n"
    "  (solver (dt 0.01) (tolerance 1e-10) (max-iterations 100) (line-search 12))\n"
    "  (collisions pairs))\n";

}  // namespace

class TestBuildByMouse : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;
  QTemporaryDir dir_;
  QString path_;
  QList<DocumentController::Question> asked_;
  DocumentController::Answer answer_ = DocumentController::Answer::Reject;
  ModelEditor* ed_ = nullptr;
  ViewportWidget* view_ = nullptr;

  void use(const char* tool) {
    QAction* a = w_->findChild<QAction*>(tool);
    QVERIFY(a);
    a->trigger();
  }
  // A click with the current tool at a world point (on a surface seen from the camera).
  void clickAt(const Vec3& world) {
    QPointF at;
    QVERIFY(view_->worldToWidget(world, at));
    test::click(view_, at);
    test::settle(*w_);
  }
  void select(const char* body) {
    QVERIFY2(w_->modelTree()->selectBody(body), body);
    test::settle(*w_);
  }
  void selectJoint(const char* joint) {
    const Model m = modelOf(ed_->toPlainText());
    QVERIFY2(w_->modelTree()->selectNode(NodeKind::Joint, m.jointIndex(joint)), joint);
  }
  // Types numbers into the property panel's fields of `key` (Enter after each), then applies the
  // text (Ctrl+Return: the view's tools edit the model it shows).
  void type(const QString& key, const QStringList& values) {
    PropertyPanel* props = w_->modelTree()->properties();
    for (int i = 0; i < values.size(); ++i) {
      QVERIFY2(props->enter(key, i, values[i]), qPrintable(key + ": " + props->message(key)));
      QCoreApplication::processEvents();
    }
    QString err;
    QVERIFY2(w_->documents()->applyEditor(&err), qPrintable(err));
    test::settle(*w_);
  }
  // Drags handle `index` of the selected body's set `mode` (with its modifier) by `amount` (m along
  // an arrow, rad about a ring): pressed on the handle, released where the handle's point moved; the
  // window saved as `shot` just before the release, when given.
  void dragHandle(DragMode mode, int index, double amount, const char* shot = nullptr) {
    QPointF from;
    Vec3 grip;
    QVERIFY(view_->handlePoint(mode, index, 0.6, from, &grip));
    const DragHandle h = view_->handles(mode).handles[size_t(index)];
    const Vec3 to = h.rotate ? Vec3(h.origin + quat::rotate(quat::fromAxisAngle(h.direction, amount), grip - h.origin))
                             : Vec3(grip + amount * h.direction);
    QPointF toAt;
    QVERIFY(view_->worldToWidget(to, toAt));
    const Qt::KeyboardModifiers mods =
        mode == DragMode::Anchor ? Qt::ShiftModifier : mode == DragMode::Body ? Qt::ControlModifier : Qt::NoModifier;
    const int undo = ed_->undoStack()->index();
    test::mouse(view_, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, mods);
    for (int i = 1; i <= 12; ++i)
      test::mouse(view_, QEvent::MouseMove, from + (toAt - from) * (i / 12.0), Qt::NoButton, Qt::LeftButton, mods);
    if (shot) {
      QCoreApplication::processEvents();
      w_->grab().save(test::outputPath(shot));
    }
    test::mouse(view_, QEvent::MouseButtonRelease, toAt, Qt::LeftButton, Qt::NoButton, mods);
    test::settle(*w_);
    QVERIFY2(ed_->undoStack()->index() == undo + 1, qPrintable(h.label.c_str() + QString(": no edit")));
  }

 private slots:
  void init() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("built.mech");
    QFile f(path_);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(kStart);
    f.close();
    test::openAnsweredWindow(w_, path_, asked_, answer_);
    ed_ = w_->editorPanel()->editor();
    view_ = w_->viewport();
    view_->setSnapping(true, 0.005, 5 * M_PI / 180);
    test::settle(*w_);
  }
  void cleanup() { test::closeAnsweredWindow(w_, path_, answer_); }

  void buildsTheGalleryFourBar() {
    const QString start = ed_->toPlainText();
    QCOMPARE(start, QString(kStart));
    const int undoStart = ed_->undoStack()->index();

    // The ground link: a box welded to the world where it is put (A at the origin, D 0.4 m along y),
    // moved down onto its pivots' line by its own arrow (Ctrl), sized in the panel.
    STEP(test::chooseJoint(*w_, "fixed"));
    STEP(use("tool-add-box"));
    STEP(clickAt(Vec3(0, 0.2, 0)));
    QVERIFY2(ed_->toPlainText().contains("(joint fixed box1-joint\n      (parent-anchor 0 0.2 0)"), qPrintable(ed_->toPlainText()));
    STEP(use("tool-select"));
    STEP(select("box1"));
    STEP(type("shape1.size", {"0.03", "0.44", "0.03"}));
    dragHandle(DragMode::Body, 2, -0.05);  // its centre on the line of the pivots: (child-anchor 0 0 0)
    view_->setViewPreset(viewport::ViewPreset::Side);
    view_->fitToModel();  // facing the linkage's plane from +x
    test::settle(*w_);

    // The crank: a cylinder on a revolute on the ground link's front face near A, turned into a disc
    // across the shaft (panel), the shaft's point moved onto A in the link's middle plane (Shift), the
    // disc 3 cm behind it (Ctrl); its angle and rate in the panel. (A click right at A, 2 cm from the
    // link's end, would snap to the end's edge at this zoom.)
    STEP(test::chooseJoint(*w_, "revolute"));
    STEP(use("tool-add-cylinder"));
    STEP(clickAt(Vec3(0.015, 0.05, 0)));
    QVERIFY2(ed_->toPlainText().contains("(axis 1 0 0)\n        (parent-anchor 0.015 -0.15 0)"), qPrintable(ed_->toPlainText()));
    STEP(use("tool-select"));
    STEP(select("cylinder1"));
    STEP(type("mass", {"2"}));
    STEP(type("shape1.size", {"0.12", "0.02"}));
    STEP(type("shape1.rotation", {"0", "1.5707963267948966", "0"}));
    view_->setViewPreset(viewport::ViewPreset::Iso);
    view_->fitToModel();  // the x arrows seen across
    test::settle(*w_);
    STEP(dragHandle(DragMode::Anchor, 0, -0.015));
    STEP(dragHandle(DragMode::Anchor, 1, -0.05));
    STEP(dragHandle(DragMode::Body, 0, -0.06, "build-crank-ctrl.png"));
    STEP(selectJoint("cylinder1-joint"));
    STEP(type("position", {"-0.3184"}));
    STEP(type("velocity", {"2"}));
    view_->setViewPreset(viewport::ViewPreset::Side);
    view_->fitToModel();
    test::settle(*w_);

    // The coupler: a rod on a revolute on the disc's front face at the crank pin B (0.1 m up the
    // crank), its joint's point moved into the linkage's plane (Shift), the rod's lower end onto the
    // pin (Ctrl, twice), turned near its place in the loop (the ring, 5° steps).
    const Snapshot s0 = w_->sim().snapshot();
    const BodyState crank = s0.state.bodies[size_t(s0.system->model.bodyIndex("cylinder1"))];
    STEP(use("tool-add-cylinder"));
    STEP(clickAt(crank.x + quat::rotate(crank.q, Vec3(0.01, 0, 0.1))));
    QVERIFY2(ed_->toPlainText().contains("(parent-anchor 0.01 0 0.1)"), qPrintable(ed_->toPlainText()));
    STEP(use("tool-select"));
    STEP(select("cylinder2"));
    STEP(type("mass", {"0.35"}));
    STEP(type("shape1.size", {"0.01", "0.35"}));
    view_->setViewPreset(viewport::ViewPreset::Iso);
    view_->fitToModel();
    test::settle(*w_);
    STEP(dragHandle(DragMode::Anchor, 0, 0.02));
    STEP(dragHandle(DragMode::Body, 0, -0.03));
    STEP(dragHandle(DragMode::Body, 2, 0.175));
    STEP(dragHandle(DragMode::Joint, 0, -40 * M_PI / 180, "build-coupler-ring.png"));
    view_->setViewPreset(viewport::ViewPreset::Side);
    view_->fitToModel();
    test::settle(*w_);

    // The rocker: a rod on a revolute on the ground link's front face near D, moved onto D and its
    // lower end onto it like the coupler's, turned near its place (15°).
    STEP(use("tool-add-cylinder"));
    STEP(clickAt(Vec3(0.015, 0.35, 0)));
    STEP(use("tool-select"));
    STEP(select("cylinder3"));
    STEP(type("mass", {"0.3"}));
    STEP(type("shape1.size", {"0.01", "0.3"}));
    view_->setViewPreset(viewport::ViewPreset::Iso);
    view_->fitToModel();
    test::settle(*w_);
    STEP(dragHandle(DragMode::Anchor, 0, -0.015));
    STEP(dragHandle(DragMode::Anchor, 1, 0.05));
    STEP(dragHandle(DragMode::Body, 0, -0.03));
    STEP(dragHandle(DragMode::Body, 2, 0.15));
    STEP(dragHandle(DragMode::Joint, 0, 15 * M_PI / 180));
    view_->setViewPreset(viewport::ViewPreset::Side);
    view_->fitToModel();
    test::settle(*w_);

    // The fourth hinge, C: Connect from the coupler's top to the rocker's top (clicks on the rods'
    // sides near their ends snap to the end centres and the side's normal to the axis across): a
    // loop joint, since the rocker hangs on its pivot already.
    STEP(use("tool-connect"));
    for (const char* rod : {"cylinder2", "cylinder3"}) {
      const Snapshot s = w_->sim().snapshot();
      const int b = s.system->model.bodyIndex(rod);
      const double top = 0.5 * s.system->model.bodies[size_t(b)].visuals[0].size.y();
      const BodyState& rodPose = s.state.bodies[size_t(b)];
      STEP(clickAt(rodPose.x + quat::rotate(rodPose.q, Vec3(0.01, 0, top - 0.001))));
    }
    QVERIFY2(ed_->toPlainText().contains("(loop-joint joint1 revolute cylinder2 cylinder3"), qPrintable(ed_->toPlainText()));
    w_->grab().save(test::outputPath("build-four-bar-open.png"));

    // Assemble, the crank selected (held where its angle puts it): the loop closes.
    STEP(use("tool-select"));
    STEP(select("cylinder1"));
    QString err, summary;
    QVERIFY2(w_->documents()->assembleEditor(&err, &summary), qPrintable(err));
    QVERIFY2(summary.contains("holding 'cylinder1'"), qPrintable(summary));
    test::settle(*w_);
    w_->grab().save(test::outputPath("build-four-bar-assembled.png"));
    const QString built = ed_->toPlainText();

    // The compiled models: every mass, inertia, joint and the initial state equal within 1e-12.
    const auto gallery = compile(modelOf(QString::fromUtf8(test::readBytes(MECHSTUDIO_SOURCE_DIR "/models/four-bar.mech"))));
    const auto ours = compile(modelOf(built));
    QCOMPARE(ours->bodies.size(), gallery->bodies.size());
    QCOMPARE(ours->joints.size(), gallery->joints.size());
    double worst = 0;
    for (size_t i = 0; i < gallery->bodies.size(); ++i) {
      const BodyDesc &a = gallery->model.bodies[i], &b = ours->model.bodies[i];
      worst = std::max({worst, std::abs(a.mass - b.mass), apart(a.inertia, b.inertia)});
    }
    for (size_t k = 0; k < gallery->joints.size(); ++k) {
      const JointDesc &a = gallery->model.joints[k], &b = ours->model.joints[k];
      QCOMPARE(int(a.type), int(b.type));
      QCOMPARE(a.parent, b.parent);
      QCOMPARE(a.child, b.child);
      const JointGeometry &ga = gallery->joints[k].geo, &gb = ours->joints[k].geo;
      worst = std::max({worst, apart(ga.pa, gb.pa), apart(ga.pb, gb.pb), apart(ga.Ro, gb.Ro), apart(ga.axes, gb.axes)});
    }
    QVERIFY(apart(gallery->model.gravity, ours->model.gravity) == 0);
    QCOMPARE(ours->model.solver.dt, gallery->model.solver.dt);
    // The initial state: poses within 1e-12; velocities within 1e-10, the accuracy of the engine's
    // initial velocities themselves (central differences of projected poses ±1e-5 s apart:
    // initial_conditions.h), from which Assemble reads the rates it writes.
    const State sa = makeInitialState(*gallery, gallery->model), sb = makeInitialState(*ours, ours->model);
    double poses = 0, rates = 0;
    for (size_t i = 0; i < sa.bodies.size(); ++i) {
      poses = std::max({poses, apart(sa.bodies[i].x, sb.bodies[i].x), apart(sa.bodies[i].q, sb.bodies[i].q)});
      rates = std::max({rates, apart(sa.bodies[i].v, sb.bodies[i].v), apart(sa.bodies[i].w, sb.bodies[i].w)});
    }
    qInfo("built four-bar against the gallery's: model %.2g, initial poses %.2g, initial velocities %.2g", worst, poses, rates);
    if (worst > 1e-12 || poses > 1e-12) qInfo("%s", qPrintable(built));
    QVERIFY(worst <= 1e-12);
    QVERIFY(poses <= 1e-12);
    QVERIFY(rates <= 1e-10);
    // The motion: 300 steps within 1e-9 m.
    Simulation simA(gallery), simB(ours);
    double moved = 0;
    for (int k = 0; k < 300; ++k) {
      QVERIFY(simA.step());
      QVERIFY(simB.step());
      for (size_t i = 0; i < simA.state().bodies.size(); ++i)
        moved = std::max(moved, (simA.state().bodies[i].x - simB.state().bodies[i].x).norm());
    }
    qInfo("built four-bar against the gallery's over 300 steps: %.2g m apart", moved);
    QVERIFY(moved <= 1e-9);

    // Every edit undone: the starting text, byte for byte.
    const int edits = ed_->undoStack()->index() - undoStart;
    qInfo("%d undoable edits", edits);
    while (ed_->undoStack()->index() > undoStart) ed_->undoStack()->undo();
    QCOMPARE(ed_->toPlainText(), start);
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestBuildByMouse)
#include "tst_build_by_mouse.moc"
