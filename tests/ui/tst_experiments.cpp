// SPDX-License-Identifier: GPL-3.0-or-later
// Experiment files in the app (issue 15), under Xvfb: the Lessons menu lists the built-in lessons
// and, below them, the *.experiment files of the user's experiment folder (a new file shows the
// next time the menu opens); choosing one opens its model with its copies in lockstep, its focus
// plot, signal plot, phase portrait, camera and panel; File ▸ Open (openFromUser) and --lesson
// take an experiment file, an inline model included; a malformed file is refused with its
// file:line:column and the open model stays.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "lesson_panel.h"
#include "main_window.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "scenes/lessons.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"

using namespace ms;
using namespace ms::ui;

namespace {
using test::settle;

void stepN(MainWindow& w, int n) {
  for (int i = 0; i < n; ++i) w.sim().stepOnce();
  settle(w);
}

bool writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

const QString kSource = MECHSTUDIO_SOURCE_DIR;

// A user's experiment: the gallery's pendulum (absolute path), three copies, a signal plot, a phase
// portrait and a camera.
QByteArray goodExperiment() {
  return "(experiment \"swing\"\n"
         "  (title \"Swing: VI vs RK4 vs Heun\")\n"
         "  (model \"" + (kSource + "/models/pendulum.mech").toUtf8() + "\" (set angle 0.5))\n"
         "  (copy \"VI\" (integrator vi) (dt 0.01))\n"
         "  (copy \"RK4\" (integrator rk4) (dt 0.01))\n"
         "  (copy \"Heun\" (integrator heun) (dt 0.005))\n"
         "  (duration 4)\n"
         "  (focus constraint-violation) (log-scale)\n"
         "  (plot joint1.angle)\n"
         "  (phase joint1.angle joint1.angle_rate)\n"
         "  (camera (eye 4 -1 1) (center 0 0 -0.5) (up 0 0 1))\n"
         "  (explanation \"A pendulum.\") (claim \"Watch the violation.\") (follow-up \"Try Δt 0.1 s.\"))\n";
}
}  // namespace

class TestExperiments : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    qunsetenv("MECHSTUDIO_EXPERIMENTS");
  }

  void lessonsMenuListsUserExperiments() {
    const QString dir = MainWindow::userExperimentDir();
    QVERIFY(dir.endsWith("/experiments"));
    QDir(dir).removeRecursively();
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    // No user folder: the built-in lessons only.
    QCOMPARE(int(w.lessonsMenu()->actions().size()), int(lessons().size()));
    // Two files appear the next time the menu opens: a separator and one entry each, sorted.
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(writeText(dir + "/swing.experiment", goodExperiment()));
    QVERIFY(writeText(dir + "/broken.experiment", "(experiment \"broken\"\n  (model scene:pendulum)\n  (copy \"VI\" (dt 0.01)))\n"));
    QVERIFY(writeText(dir + "/notes.txt", "not an experiment"));
    Q_EMIT w.lessonsMenu()->aboutToShow();
    const QList<QAction*> actions = w.lessonsMenu()->actions();
    QCOMPARE(int(actions.size()), int(lessons().size()) + 3);
    QVERIFY(actions[int(lessons().size())]->isSeparator());
    QAction* broken = w.findChild<QAction*>("experiment-broken");
    QAction* swing = w.findChild<QAction*>("experiment-swing");
    QVERIFY(broken && swing);
    QCOMPARE(actions.indexOf(broken), int(lessons().size()) + 1);
    QCOMPARE(swing->text(), QString("Swing: VI vs RK4 vs Heun"));
    QVERIFY(broken->text().contains("has errors"));
    // Listing again does not duplicate them.
    Q_EMIT w.lessonsMenu()->aboutToShow();
    QCOMPARE(int(w.lessonsMenu()->actions().size()), int(lessons().size()) + 3);

    // The user's experiment opens as a lesson.
    swing->trigger();
    settle(w);
    QCOMPARE(w.currentSource(), kSource + "/models/pendulum.mech");
    QVERIFY(w.lessonDock()->isVisible());
    QCOMPARE(w.lessonPanel()->titleText(), QString("Swing: VI vs RK4 vs Heun"));
    QVERIFY(w.lessonPanel()->claimText().contains("Watch the violation."));
    QVERIFY(w.windowTitle().startsWith("Experiment: Swing"));
    auto* violation = static_cast<PlotDock*>(w.plots()->dock(PlotManager::Figure::Violation));
    QVERIFY(violation->logScale());
    QCOMPARE(w.plots()->signalDocks().size(), 1);
    QCOMPARE(w.plots()->phaseDocks().size(), 1);
    const ViewportWidget::Camera cam = w.viewport()->camera();
    QVERIFY2((cam.eye - Vec3(4, -1, 1)).norm() < 1e-9, "camera eye");
    QVERIFY2((cam.center - Vec3(0, 0, -0.5)).norm() < 1e-9, "camera center");
    stepN(w, 20);
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 3);
    QCOMPARE(QString::fromStdString(s.copies[2].spec.label), QString("Heun"));
    QCOMPARE(s.copies[0].steps, 20L);
    QCOMPARE(s.copies[2].steps, 40L);  // Δt 5 ms: two steps per reference step
    QVERIFY(std::abs(s.copies[2].state.time - s.copies[0].state.time) < 1e-9);
    // Start again reopens the file (the copies back at t = 0).
    Q_EMIT w.lessonPanel()->restartRequested();
    settle(w);
    QCOMPARE(w.sim().snapshot().copies[0].steps, 0L);
    QCOMPARE(w.lessonPanel()->titleText(), QString("Swing: VI vs RK4 vs Heun"));

    // The broken one: refused with its line:column, the experiment stays open.
    QString err;
    QVERIFY(!w.openExperimentFile(dir + "/broken.experiment", &err));
    QVERIFY2(err.contains("broken.experiment:3:3: copy 'VI' needs (integrator NAME)"), qPrintable(err));
    QVERIFY(w.bannerText().contains("broken.experiment:3:3"));
    QCOMPARE(w.currentSource(), kSource + "/models/pendulum.mech");
    QDir(dir).removeRecursively();
  }

  // File ▸ Open and --lesson take experiment files; an inline model is opened from the cache.
  void openFromFile() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openFromUser(kSource + "/tests/data/experiment/inline.experiment"));
    settle(w);
    QVERIFY2(w.currentSource().endsWith("/experiments/inline.mech"), qPrintable(w.currentSource()));
    QCOMPARE(w.lessonPanel()->titleText(), QString("Inline pendulum: VI vs Heun"));
    stepN(w, 10);
    QCOMPARE(int(w.sim().snapshot().copies.size()), 2);
    QCOMPARE(w.sim().snapshot().copies[1].steps, 10L);
    // --lesson with a built-in lesson's file gives the built-in lesson (its copies and plot).
    QString err;
    QVERIFY2(w.openLesson(kSource + "/models/lessons/04-contact.experiment", &err), qPrintable(err));
    settle(w);
    QCOMPARE(w.currentSource(), QString("scene:box-drop"));
    QCOMPARE(int(w.sim().snapshot().copies.size()), 3);
    QVERIFY(!w.openLesson(kSource + "/tests/data/experiment/bad-integrator.experiment", &err));
    QVERIFY2(err.contains("bad-integrator.experiment:6:27: unknown integrator 'rk5'"), qPrintable(err));
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestExperiments)
#include "tst_experiments.moc"
