// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop application as a user drives it (under Xvfb): open a gallery model, run, pause,
// step, step back, reset with the keyboard; one plot sample per step; the view renders and a drag
// moves the camera; Ctrl+drag moves a body; a diverging model pauses itself and says why; bad
// files are reported with file:line:column and keep the previous model; settings persist.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "gallery.h"
#include "joint_panel.h"
#include "main_window.h"
#include "document_controller.h"
#include "recorder.h"
#include "status_bar.h"
#include "plots/plot_manager.h"
#include "settings_panel.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"

using namespace ms;
using namespace ms::ui;

namespace {
using test::pump;
using test::settle;
// Fraction of pixels that differ from the most common (background) colour.
double foregroundFraction(const QImage& img) {
  QHash<QRgb, int> counts;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) ++counts[img.pixel(x, y)];
  int best = 0, total = 0;
  for (int c : counts) {
    best = std::max(best, c);
    total += c;
  }
  return total ? 1.0 - double(best) / total : 0.0;
}
using ms::ui::test::mouse;
void drag(QWidget* w, QPoint from, QPoint to, Qt::KeyboardModifiers mods, int stepsBetween = 10) {
  mouse(w, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, mods);
  for (int i = 1; i <= stepsBetween; ++i) {
    const QPoint p = from + (to - from) * i / stepsBetween;
    mouse(w, QEvent::MouseMove, p, Qt::NoButton, Qt::LeftButton, mods);
    QCoreApplication::processEvents();
  }
}
// An arm of `links` links as model text (the reload and editor tests change the count).
QByteArray armText(int links) {
  return QString("(mechanism \"arm\" (param n %1)\n"
                 "  (chain (i 1 n) (body link{i} (mass 1) (shape box 0.1 0.1 0.1)\n"
                 "    (joint revolute (axis 1 0 0) (child-anchor 0 0 1)))))\n")
      .arg(links)
      .toUtf8();
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // settings and caches in a test location
    QSettings().clear();
  }

  // Open → paused at t = 0; Space runs and pauses; → steps; ← steps back; Backspace resets. The
  // plots hold exactly one sample per step of the timeline.
  void transportWithKeys() {
    MainWindow w;
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QString err;
    QVERIFY2(w.openExample(":/gallery/double-pendulum.mech", &err), qPrintable(err));
    settle(w);
    QCOMPARE(w.sim().snapshot().state.step, 0L);
    QVERIFY(!w.sim().snapshot().running);

    QTest::keyClick(&w, Qt::Key_Space);
    pump(400);
    settle(w);
    QVERIFY(w.sim().snapshot().running);
    QTest::keyClick(&w, Qt::Key_Space);
    settle(w);
    const long ran = w.sim().snapshot().state.step;
    QVERIFY2(ran > 5, qPrintable(QString("only %1 steps in 0.4 s").arg(ran)));
    QVERIFY(!w.sim().snapshot().running);
    QCOMPARE(w.plots()->sampleCount(), ran + 1);

    QTest::keyClick(&w, Qt::Key_Right);
    QTest::keyClick(&w, Qt::Key_Right);
    settle(w);
    QCOMPARE(w.sim().snapshot().state.step, ran + 2);
    QCOMPARE(w.plots()->sampleCount(), ran + 3);
    QTest::keyClick(&w, Qt::Key_Left);
    settle(w);
    QCOMPARE(w.sim().snapshot().state.step, ran + 1);
    QCOMPARE(w.plots()->sampleCount(), ran + 2);
    QTest::keyClick(&w, Qt::Key_Backspace);
    settle(w);
    QCOMPARE(w.sim().snapshot().state.step, 0L);
    QCOMPARE(w.plots()->sampleCount(), 1L);
  }

  // The view shows the model, and a plain drag orbits the camera.
  void viewRendersAndDragMovesCamera() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openExample(":/gallery/double-pendulum.mech"));
    settle(w);
    pump(200);
    const QImage img = w.viewport()->renderToImage();
    const double fg = foregroundFraction(img);
    qInfo("foreground fraction of the view: %.3f", fg);
    QVERIFY(fg > 0.02);
    const ViewportWidget::Camera before = w.viewport()->camera();
    const QPoint c = w.viewport()->rect().center();
    drag(w.viewport(), c, c + QPoint(120, 40), Qt::NoModifier);
    mouse(w.viewport(), QEvent::MouseButtonRelease, c + QPoint(120, 40), Qt::LeftButton, Qt::NoButton);
    const ViewportWidget::Camera after = w.viewport()->camera();
    QVERIFY((after.eye - before.eye).norm() > 1e-3);
  }

  // Ctrl+drag on a weightless free body pulls it across the screen.
  void ctrlDragMovesBody() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openExample(":/gallery/free-body.mech"));
    settle(w);
    w.viewport()->setViewPreset(ViewportWidget::ViewPreset::Front);
    w.viewport()->fitToModel();
    pump(100);
    const Vec3 x0 = w.sim().snapshot().state.bodies[0].x;
    const QPoint c = w.viewport()->rect().center();
    drag(w.viewport(), c, c + QPoint(150, 0), Qt::ControlModifier);
    // Step while the spring is held.
    for (int i = 0; i < 60; ++i) w.sim().stepOnce();
    settle(w);
    QVERIFY(w.sim().snapshot().perturbation.active);
    mouse(w.viewport(), QEvent::MouseButtonRelease, c + QPoint(150, 0), Qt::LeftButton, Qt::NoButton, Qt::ControlModifier);
    settle(w);
    QVERIFY(!w.sim().snapshot().perturbation.active);
    const Vec3 x1 = w.sim().snapshot().state.bodies[0].x;
    qInfo("Ctrl+drag moved the body by %.3f m", (x1 - x0).norm());
    QVERIFY((x1 - x0).norm() > 0.05);
  }

  // A model whose first step does not converge pauses and shows the engine's reason.
  void divergingModelAutoPauses() {
    QTemporaryDir dir;
    const QString path = dir.filePath("diverging.mech");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    // A pendulum whirling at 30 rad/s with Δt = 0.1 and one Newton iteration allowed: its first step
    // fails at every subdivision.
    f.write("(mechanism \"diverging\"\n"
            "  (solver (dt 0.1) (max-iterations 1))\n"
            "  (body bob (mass 1) (shape sphere 0.1)\n"
            "    (joint revolute (axis 1 0 0) (child-anchor 0 0 1) (velocity 30))))\n");
    f.close();
    MainWindow w;
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QString err;
    QVERIFY2(w.openModel(path, &err), qPrintable(err));
    QTest::keyClick(&w, Qt::Key_Space);
    QElapsedTimer t;
    t.start();
    while (w.status()->bannerText().isEmpty() && t.elapsed() < 5000) pump(20);
    settle(w);
    qInfo("banner: %s", qPrintable(w.status()->bannerText()));
    QVERIFY(w.status()->bannerText().contains("step 1"));
    QVERIFY(w.sim().snapshot().failed);
    QVERIFY(!w.sim().snapshot().running);
  }

  // A file with errors is reported with file:line:column and the previous model stays open.
  void badFileKeepsPreviousModel() {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.mech");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("(mechanism \"bad\"\n  (body b (mass -1) (shape sphere 0.1)))\n");
    f.close();
    MainWindow w;
    w.show();
    QVERIFY(w.openExample(":/gallery/pendulum.mech"));
    const QString before = w.documents()->source();
    QString err;
    QVERIFY(!w.openModel(path, &err));
    QVERIFY2(err.contains("bad.mech:2:"), qPrintable(err));
    QVERIFY(w.status()->bannerText().contains("bad.mech:2:"));
    QCOMPARE(w.documents()->source(), before);
  }

  // The Editor dock shows the open file; an edit puts a '*' in its title; Ctrl+S writes the buffer
  // and reloads the model from it (the star goes); a built-in scene shows its gallery text read-only.
  void editorDockShowsAndSavesTheModel() {
    QTemporaryDir dir;
    const QString path = dir.filePath("arm.mech");
    const QByteArray one = armText(1);
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(one);
    }
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString err;
    QVERIFY2(w.openModel(path, &err), qPrintable(err));
    settle(w);
    QVERIFY(w.editorDock()->isVisible());
    ModelEditor* ed = w.editorPanel()->editor();
    QCOMPARE(ed->toPlainText().toUtf8(), one);
    QCOMPARE(w.editorDock()->windowTitle(), QString("Editor — arm.mech"));
    // Edit n = 1 → 3: the title gets its star; the simulation keeps the saved model.
    QTextCursor c = ed->document()->find("(param n 1)");
    QVERIFY(!c.isNull());
    c.setPosition(c.selectionEnd() - 2);
    c.setPosition(c.position() + 1, QTextCursor::KeepAnchor);
    c.insertText("3");
    QCOMPARE(w.editorDock()->windowTitle(), QString("Editor — arm.mech*"));
    settle(w);
    QCOMPARE(int(w.sim().snapshot().state.bodies.size()), 1);
    // Save: the file holds the buffer, the model has three links, the star is gone.
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    ed->setFocus();
    QTest::keyClick(ed, Qt::Key_S, Qt::ControlModifier);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), ed->toPlainText());
    settle(w);
    QCOMPARE(int(w.sim().snapshot().state.bodies.size()), 3);
    QCOMPARE(w.editorDock()->windowTitle(), QString("Editor — arm.mech"));
    // A scene: the gallery file of the same name, read-only.
    QVERIFY(w.openModel("scene:double-pendulum", &err));
    QVERIFY(ed->isReadOnly());
    QVERIFY(ed->toPlainText().contains("(mechanism \"double-pendulum\""));
    // With parameters the text is read with them: the tree shows the simulated bodies. The gallery
    // file of four-link-segments has n; that of chain has no "joint": its model is written out.
    QVERIFY(w.openModel("scene:four-link-segments", &err, {{"n", "3"}}));
    QVERIFY(ed->toPlainText().contains("(mechanism \"four-link-segments\""));
    QVERIFY(ed->lastValidModel());
    QCOMPARE(int(ed->lastValidModel()->result.model.bodies.size()), 12);
    QCOMPARE(int(w.sim().snapshot().state.bodies.size()), 12);
    QVERIFY(w.editorPanel()->note().contains("n=3"));
    QVERIFY(w.openModel("scene:chain", &err, {{"n", "30"}, {"joint", "spherical"}}));
    QVERIFY(ed->isReadOnly());
    QVERIFY(ed->toPlainText().contains("written by MechStudio"));
    ed->checkNow();
    QVERIFY(ed->lastValidModel());
    QCOMPARE(int(ed->lastValidModel()->result.model.bodies.size()), 30);
    QVERIFY(w.editorPanel()->note().contains("joint=spherical"));
  }

  // Speed, history length and window layout survive a restart.
  void settingsPersist() {
    {
      MainWindow w;
      w.show();
      auto* speed = w.findChild<QComboBox*>("speed");
      QVERIFY(speed);
      speed->setCurrentIndex(2);
      w.settingsPanel()->setHistoryCapacity(1234);
      w.plots()->dock(PlotManager::Figure::Solver)->hide();
      w.close();
    }
    MainWindow w2;
    w2.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w2));
    QCOMPARE(w2.findChild<QComboBox*>("speed")->currentIndex(), 2);
    QCOMPARE(w2.settingsPanel()->historyCapacity(), 1234);
    QVERIFY(!w2.plots()->dock(PlotManager::Figure::Solver)->isVisible());
    QVERIFY(w2.plots()->dock(PlotManager::Figure::Energy)->isVisible());
  }

  // A tolerance typed as text is checked before it reaches the solver.
  void invalidToleranceIsExplained() {
    MainWindow w;
    w.show();
    QVERIFY(w.openExample(":/gallery/pendulum.mech"));
    // The Newton tolerance and the complementarity tolerance (contacts, limits) alike.
    auto check = [&](QLineEdit* field, const char* bad, const char* why, const char* good) {
      field->clear();
      QTest::keyClicks(field, bad);
      QVERIFY(w.settingsPanel()->problem().contains(why));
      field->clear();
      QTest::keyClicks(field, good);
      QVERIFY(w.settingsPanel()->problem().isEmpty());
      settle(w);
    };
    check(w.settingsPanel()->toleranceField(), "abc", "not a number", "1e-8");
    QCOMPARE(w.sim().stepSettings().tolerance, 1e-8);
    check(w.settingsPanel()->complementarityField(), "1", "Complementarity tolerance: 1 is outside", "1e-6");
    QCOMPARE(w.sim().stepSettings().complementarityTolerance, 1e-6);
  }

  // Saving the open file reloads it automatically and the camera stays where the user put it.
  void reloadsWhenTheFileChanges() {
    QTemporaryDir dir;
    const QString path = dir.filePath("arm.mech");
    auto write = [&](int links) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(armText(links));
    };
    write(1);
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString err;
    QVERIFY2(w.openModel(path, &err), qPrintable(err));
    settle(w);
    QCOMPARE(int(w.sim().snapshot().state.bodies.size()), 1);
    ViewportWidget::Camera cam = w.viewport()->camera();
    cam.eye += Vec3(0.5, -0.25, 0.3);
    w.viewport()->setCamera(cam);
    QTest::qWait(1100);  // a different modification time
    write(3);
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 5000) {
      pump(50);
      settle(w);
      if (w.sim().snapshot().state.bodies.size() == 3) break;
    }
    QCOMPARE(int(w.sim().snapshot().state.bodies.size()), 3);
    QVERIFY((w.viewport()->camera().eye - cam.eye).norm() < 1e-12);
  }

  // While paused, a joint slider sets the initial joint position (and the simulation restarts there).
  void jointFieldSetsInitialPosition() {
    MainWindow w;
    w.show();
    QVERIFY(w.openExample(":/gallery/pendulum.mech"));
    settle(w);
    QDoubleSpinBox* field = w.jointPanel()->positionField(0, 0);
    QVERIFY(field);
    QVERIFY(field->isEnabled());
    field->setValue(0.3);
    settle(w);
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(s.state.step, 0L);
    QVERIFY(std::abs(s.jointPositions[0][0] - 0.3) < 1e-9);
  }

  // Recording writes one PNG per frame drawn while the simulation moves.
  void recordingWritesFrames() {
    QTemporaryDir dir;
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openExample(":/gallery/pendulum.mech"));
    QVERIFY(w.recorder()->startRecording(dir.path()));
    QVERIFY(w.recorder()->recording());
    for (int i = 0; i < 5; ++i) {
      w.sim().stepOnce();
      settle(w);
      pump(30);
    }
    const QString msg = w.recorder()->stopRecording();
    QVERIFY(!w.recorder()->recording());
    qInfo("%s", qPrintable(msg));
    QVERIFY(w.recorder()->recordedFrames() >= 5);
    const QStringList sub = QDir(dir.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(sub.size(), 1);
    const QStringList frames = QDir(dir.filePath(sub[0])).entryList({"frame-*.png"});
    QCOMPARE(frames.size(), w.recorder()->recordedFrames());
    QVERIFY(!QImage(dir.filePath(sub[0]) + "/" + frames[0]).isNull());
  }

  // Every bundled example is listed and opens.
  void everyExampleOpens() {
    MainWindow w;
    w.show();
    const auto entries = galleryEntries();
    QVERIFY(entries.size() >= 10);
    for (const GalleryEntry& e : entries) {
      QString err;
      QVERIFY2(w.openExample(e.resource, &err), qPrintable(e.title + ": " + err));
    }
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
