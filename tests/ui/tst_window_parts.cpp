// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's parts, each driven on its own: StatusBar (a snapshot's figures in its labels,
// the banner), Transport (run/pause and history state from a snapshot, the speed setting),
// Recorder (a screenshot and recorded frames in a temporary folder), KeyframeActions (the
// submenus rebuilt from the model's keyframes), ExperimentController (the Lessons menu, a lesson
// opened as a comparison) and PlotActions (signal plots by name, a body's Plot menu). Files are
// written only into QTemporaryDirs.
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

#include "experiment_controller.h"
#include "keyframe_actions.h"
#include "main_window.h"
#include "plot_actions.h"
#include "recorder.h"
#include "scenes/lessons.h"
#include "sim/sim_controller.h"
#include "status_bar.h"
#include "transport.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"

using namespace ms;
using namespace ms::ui;

namespace {
QString label(const QMainWindow& w, const char* name) {
  const auto* l = w.findChild<QLabel*>(name);
  return l ? l->text() : QString("(no label %1)").arg(name);
}
QStringList actionNames(const QMenu* menu) {
  QStringList names;
  for (const QAction* a : menu->actions()) names << (a->objectName().isEmpty() ? a->text() : a->objectName());
  return names;
}
}  // namespace

class TestWindowParts : public QObject {
  Q_OBJECT
 private slots:
  // StatusBar: the figures of a snapshot, "paused" when not running, the solver label only once
  // the solver needed a remedy; the banner keeps the whole text while it shows two lines.
  void statusBarShowsSnapshot() {
    QMainWindow mw;
    StatusBar status(&mw);
    mw.setCentralWidget(status.banner());
    mw.show();
    QVERIFY(QTest::qWaitForWindowExposed(&mw));
    Snapshot s;
    s.state.time = 1.2345;
    s.metrics.stepMicroseconds = 56.4;
    s.metrics.iterations = 3;
    s.running = true;
    s.speed = 2;
    s.achievedRealTimeFactor = 1.987;
    s.contacts.resize(4);
    status.update(s);
    QCOMPARE(label(mw, "status-time"), QString("t = 1.234 s"));
    QCOMPARE(label(mw, "status-step"), QString("56 µs/step"));
    QCOMPARE(label(mw, "status-iterations"), QString("3 it"));
    QCOMPARE(label(mw, "status-rtf"), QString("RTF 1.99 / 2"));
    QCOMPARE(label(mw, "status-contacts"), QString("4 contacts"));
    QVERIFY(mw.findChild<QLabel*>("status-solver")->isHidden());
    s.running = false;
    s.stalledSteps = 2;
    s.singularSteps = 1;
    status.update(s);
    QCOMPARE(label(mw, "status-rtf"), QString("paused"));
    QVERIFY(!mw.findChild<QLabel*>("status-solver")->isHidden());
    QCOMPARE(label(mw, "status-solver"), QString("2 stalled · 0 subdivided · 1 singular"));
    // The refinement (Δt too long for the motion): the sub-interval and since when.
    s.subdividedSteps = 40;
    s.refinedInterval = 0.005;
    s.refinedAt = 387.91;
    status.update(s);
    QCOMPARE(label(mw, "status-solver"), QString("2 stalled · 40 subdivided · 1 singular · sub-steps of 0.005 s since t = 387.91 s"));
    // Sleeping bodies (docs/engine.md, "Sleeping") are counted beside the iterations.
    s.metrics.iterations = 0;
    s.metrics.sleeping = 5;
    status.update(s);
    QCOMPARE(label(mw, "status-iterations"), QString("0 it · 5 asleep"));
    status.setModelText("four-bar: 4 bodies, 4 joints");
    QCOMPARE(label(mw, "status-model"), QString("four-bar: 4 bodies, 4 joints"));

    QCOMPARE(status.bannerText(), QString());
    status.showBanner("one\ntwo\nthree", true);
    QCOMPARE(status.bannerText(), QString("one\ntwo\nthree"));
    status.hideBanner();
    QCOMPARE(status.bannerText(), QString());
  }

  // Transport: Run shows Pause while the snapshot runs, Step back needs a state behind the cursor,
  // the history slider spans the states kept; the speed comes from the settings.
  void transportFollowsSnapshot() {
    QMainWindow mw;
    StatusBar status(&mw);
    ViewportWidget view;
    SimController sim;
    Transport t(sim, &status, &view);
    Snapshot s;
    s.running = true;
    s.historyCount = 50;
    s.historyCursor = 49;
    t.update(s, true);
    QVERIFY(t.runAction()->isChecked());
    QCOMPARE(t.runAction()->text(), QString("&Pause"));
    QVERIFY(t.stepBackAction()->isEnabled());
    QCOMPARE(t.history()->maximum(), 49);
    QCOMPARE(t.history()->value(), 49);
    s.running = false;
    s.historyCursor = 0;
    t.update(s, true);
    QVERIFY(!t.runAction()->isChecked());
    QCOMPARE(t.runAction()->text(), QString("&Run"));
    QVERIFY(!t.stepBackAction()->isEnabled());
    QCOMPARE(t.history()->value(), 0);

    QSettings settings;
    settings.setValue("speedIndex", 9);
    t.readSettings(settings);
    QCOMPARE(t.speed()->currentIndex(), 9);
    QCOMPARE(t.speed()->currentText(), QString("10×"));
    settings.remove("speedIndex");
  }

  // Recorder: a screenshot of the window as PNG of the window's size; recorded frames numbered in a
  // folder of their own.
  void recorderWritesScreenshotAndFrames() {
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString err;
    QVERIFY2(w.openModel(MECHSTUDIO_SOURCE_DIR "/models/four-bar.mech", &err), qPrintable(err));
    test::settle(w);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString png = dir.filePath("shot.png");
    QVERIFY2(w.recorder()->saveScreenshot(png, &err), qPrintable(err));
    const QImage img(png);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), w.grab().size());
    QVERIFY(!w.recorder()->saveScreenshot(dir.filePath("missing/shot.png"), &err));
    QVERIFY(err.startsWith("cannot write"));

    QVERIFY(w.recorder()->startRecording(dir.path(), &err));
    QVERIFY(w.recorder()->recording());
    QVERIFY(w.recorder()->recordAction()->isChecked());
    const QString frames = w.recorder()->recordDir();
    for (int i = 0; i < 3; ++i) w.recorder()->recordFrame();
    const QString msg = w.recorder()->stopRecording();
    QVERIFY(!w.recorder()->recording());
    QVERIFY(!w.recorder()->recordAction()->isChecked());
    QCOMPARE(w.recorder()->recordedFrames(), 3);
    QVERIFY2(msg.startsWith("Recorded 3 frames into " + frames), qPrintable(msg));
    QCOMPARE(QDir(frames).entryList({"frame-*.png"}, QDir::Files),
             (QStringList{"frame-000000.png", "frame-000001.png", "frame-000002.png"}));
  }

  // KeyframeActions: the two submenus list the model's keyframes, and say so when there are none.
  void keyframeMenusFollowModel() {
    MainWindow w;
    QString err;
    QVERIFY2(w.openModel(MECHSTUDIO_SOURCE_DIR "/tests/data/mech/keyframes.mech", &err), qPrintable(err));
    KeyframeActions* k = w.keyframes();
    QCOMPARE(k->keyframeNames(), (QStringList{"down", "swing", "stale"}));
    QCOMPARE(actionNames(k->loadMenu()), (QStringList{"load-keyframe-down", "load-keyframe-swing", "load-keyframe-stale"}));
    QCOMPARE(actionNames(k->initialMenu()),
             (QStringList{"initial-keyframe-down", "initial-keyframe-swing", "initial-keyframe-stale"}));
    QVERIFY(k->loadKeyframe("swing", true, &err));
    QCOMPARE(k->initialKeyframe(), QString("swing"));
    QVERIFY(!k->loadKeyframe("swimg", false, &err));
    QVERIFY(err.contains("no keyframe 'swimg'"));
    QVERIFY2(w.openModel(MECHSTUDIO_SOURCE_DIR "/models/pendulum.mech", &err), qPrintable(err));
    QCOMPARE(k->keyframeNames(), QStringList());
    QCOMPARE(k->initialKeyframe(), QString());
    QCOMPARE(k->loadMenu()->actions().size(), 1);
    QVERIFY(!k->loadMenu()->actions().front()->isEnabled());
  }

  // ExperimentController: one Lessons entry per lesson; a lesson opens as a comparison of its
  // variants with its panel; an unknown one is refused with the reason.
  void experimentControllerOpensLesson() {
    MainWindow w;
    ExperimentController* e = w.experiments();
    QCOMPARE(int(e->lessonsMenu()->actions().size()), int(lessons().size()));
    QString err;
    QVERIFY(!e->openLesson("99", &err));
    QVERIFY(err.contains("99"));
    QVERIFY2(e->openLesson("1", &err), qPrintable(err));
    test::settle(w);
    QVERIFY(w.sim().snapshot().copies.size() >= 2);
    QVERIFY(w.windowTitle().startsWith("Lesson 1: "));
    QVERIFY(!w.lessonDock()->isHidden());
  }

  // PlotActions: a signal plot from names, a refusal naming the pattern, a body's Plot menu.
  void plotActionsPlotByName() {
    MainWindow w;
    QString err;
    QVERIFY(!w.plotActions()->plotSignals({"joint1.angle"}, &err));
    QCOMPARE(err, QString("no model is open"));
    QVERIFY2(w.openModel(MECHSTUDIO_SOURCE_DIR "/models/double-pendulum.mech", &err), qPrintable(err));
    QVERIFY(w.plotActions()->plotSignals({"joint1.angle"}, &err));
    QVERIFY(!w.plotActions()->plotSignals({"joint1.angel"}, &err));
    QCOMPARE(err, QString("no signal matches joint1.angel"));
    QVERIFY(w.plotActions()->plotPhasePortrait({"joint1.angle"}, {"joint1.angle_rate"}, &err));
    const std::unique_ptr<QMenu> menu = w.plotActions()->bodyPlotMenu(0);
    QVERIFY(menu);
    QVERIFY(menu->actions().front()->text().startsWith("Plot link1"));
    QVERIFY(!w.plotActions()->bodyPlotMenu(-1));
    QVERIFY(actionNames(w.plotActions()->menu()).contains("plot-signals-action"));
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestWindowParts)
#include "tst_window_parts.moc"
