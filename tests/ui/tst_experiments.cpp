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
#include <QTemporaryDir>
#include <QTreeWidget>
#include <memory>
#include <qcustomplot.h>
#include <QTest>
#include <tuple>

#include "lesson_panel.h"
#include "editor/model_tree.h"
#include "main_window.h"
#include "document_controller.h"
#include "experiment_controller.h"
#include "plot_actions.h"
#include "status_bar.h"
#include "plots/phase_dock.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "scenes/lessons.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"

using namespace ms;
using namespace ms::ui;

namespace {
using test::settle;
using test::stepN;


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
    const QString dir = ExperimentController::userExperimentDir();
    QVERIFY(dir.endsWith("/experiments"));
    QDir(dir).removeRecursively();
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    // No user folder: the built-in lessons only.
    QCOMPARE(int(w.experiments()->lessonsMenu()->actions().size()), int(lessons().size()));
    // Two files appear the next time the menu opens: a separator and one entry each, sorted.
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(writeText(dir + "/swing.experiment", goodExperiment()));
    QVERIFY(writeText(dir + "/broken.experiment", "(experiment \"broken\"\n  (model scene:pendulum)\n  (copy \"VI\" (dt 0.01)))\n"));
    QVERIFY(writeText(dir + "/notes.txt", "not an experiment"));
    Q_EMIT w.experiments()->lessonsMenu()->aboutToShow();
    const QList<QAction*> actions = w.experiments()->lessonsMenu()->actions();
    QCOMPARE(int(actions.size()), int(lessons().size()) + 3);
    QVERIFY(actions[int(lessons().size())]->isSeparator());
    QAction* broken = w.findChild<QAction*>("experiment-broken");
    QAction* swing = w.findChild<QAction*>("experiment-swing");
    QVERIFY(broken && swing);
    QCOMPARE(actions.indexOf(broken), int(lessons().size()) + 1);
    QCOMPARE(swing->text(), QString("Swing: VI vs RK4 vs Heun"));
    QVERIFY(broken->text().contains("has errors"));
    // Listing again does not duplicate them.
    Q_EMIT w.experiments()->lessonsMenu()->aboutToShow();
    QCOMPARE(int(w.experiments()->lessonsMenu()->actions().size()), int(lessons().size()) + 3);

    // The user's experiment opens as a lesson.
    swing->trigger();
    settle(w);
    QCOMPARE(w.documents()->source(), kSource + "/models/pendulum.mech");
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
    QVERIFY(w.status()->bannerText().contains("broken.experiment:3:3"));
    QCOMPARE(w.documents()->source(), kSource + "/models/pendulum.mech");
    QDir(dir).removeRecursively();
  }

  // File ▸ Open and --lesson take experiment files; an inline model is opened from the cache.
  void openFromFile() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.documents()->openFromUser(kSource + "/tests/data/experiment/inline.experiment"));
    settle(w);
    QVERIFY2(w.documents()->source().endsWith("/experiments/inline.mech"), qPrintable(w.documents()->source()));
    QCOMPARE(w.lessonPanel()->titleText(), QString("Inline pendulum: VI vs Heun"));
    stepN(w, 10);
    QCOMPARE(int(w.sim().snapshot().copies.size()), 2);
    QCOMPARE(w.sim().snapshot().copies[1].steps, 10L);
    // --lesson with a built-in lesson's file gives the built-in lesson (its copies and plot).
    QString err;
    QVERIFY2(w.openLesson(kSource + "/models/lessons/04-contact.experiment", &err), qPrintable(err));
    settle(w);
    QCOMPARE(w.documents()->source(), QString("scene:box-drop"));
    QCOMPARE(int(w.sim().snapshot().copies.size()), 3);
    QVERIFY(!w.openLesson(kSource + "/tests/data/experiment/bad-integrator.experiment", &err));
    QVERIFY2(err.contains("bad-integrator.experiment:6:27: unknown integrator 'rk5'"), qPrintable(err));
  }

  // One copy: a plain run with the copy's integrator, Δt and tolerance (no comparison), and the view
  // following the experiment's body; an unknown body to follow is a banner, not a failure.
  void singleCopyAndFollow() {
    QTemporaryDir dir;
    const QString path = dir.filePath("one.experiment");
    QVERIFY(writeText(path, "(experiment \"one\"\n"
                            "  (model \"" + (kSource + "/tests/data/mech/keyframes.mech").toUtf8() + "\")\n"
                            "  (copy \"RK4 fine\" (integrator rk4) (dt 0.004) (tolerance 1e-9))\n"
                            "  (follow link2))\n"));
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openExperimentFile(path, &err), qPrintable(err));
    settle(w);
    QVERIFY(w.sim().integratorOptions().kind == IntegratorKind::RK4);
    QCOMPARE(w.sim().stepSettings().dt, 0.004);
    QCOMPARE(w.sim().stepSettings().tolerance, 1e-9);
    QCOMPARE(w.viewport()->followBody(), 1);
    stepN(w, 3);
    const Snapshot s = w.sim().snapshot();
    QVERIFY(s.copies.empty());
    QVERIFY2(std::abs(s.state.time - 0.012) < 1e-12, qPrintable(QString::number(s.state.time)));
  }

  // Save, close, reopen: the same model, keyframe, copies, plots, phase portrait and camera.
  void saveCloseReopen() {
    QTemporaryDir dir;
    const QString path = dir.filePath("mine.experiment");
    const QString model = kSource + "/tests/data/mech/keyframes.mech";
    std::vector<std::tuple<std::string, IntegratorKind, double>> copies;
    ViewportWidget::Camera cam;
    cam.eye = Vec3(2.5, -4.25, 1.75);
    cam.center = Vec3(0, 0.125, -1);
    cam.up = Vec3(0, 0, 1);
    {
      MainWindow w;
      w.resize(1280, 800);
      w.show();
      QString err;
      QVERIFY2(w.openModel(model, &err), qPrintable(err));
      settle(w);
      QVERIFY2(w.loadKeyframe("swing", true, &err), qPrintable(err));
      CopySpec vi, heun;
      vi.label = "VI";
      vi.dt = 0.01;
      heun.label = "Heun fine";
      heun.options.kind = IntegratorKind::Heun;
      heun.dt = 0.0025;
      w.experiments()->startComparison({vi, heun}, false);
      QVERIFY(w.plotSignals({"joint1.angle", "joint2.angle"}, &err));
      QVERIFY(w.plotSignals({"joint1.force.?"}, &err));
      QVERIFY(w.plotActions()->plotPhasePortrait({"joint2.angle"}, {"joint2.angle_rate"}, &err));
      QVERIFY(w.plotActions()->plotPhasePortrait({"joint1.angle"}, {"joint2.angle"}, &err));
      w.viewport()->setCamera(cam);
      stepN(w, 5);
      for (const CopyStatus& c : w.sim().snapshot().copies) copies.emplace_back(c.spec.label, c.spec.options.kind, c.spec.dt);
      QCOMPARE(int(copies.size()), 2);
      QVERIFY2(w.experiments()->saveExperiment(path, &err), qPrintable(err));
    }  // closed
    // The file names the model relative to itself, the keyframe and both copies.
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY2(text.contains("(keyframe swing)"), qPrintable(text));
    // The model's path as written (relative to the experiment, or absolute when far) leads to it.
    const int at = text.indexOf("(model \""), end = text.indexOf('"', at + 8);
    QVERIFY2(at >= 0 && end > at, qPrintable(text));
    const QString written = text.mid(at + 8, end - at - 8);
    QCOMPARE(QFileInfo(QDir(dir.path()).filePath(written)).canonicalFilePath(), QFileInfo(model).canonicalFilePath());
    QVERIFY2(written.startsWith("../../") == false, qPrintable(written));
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openExperimentFile(path, &err), qPrintable(err));
    settle(w);
    QCOMPARE(QFileInfo(w.documents()->source()).canonicalFilePath(), QFileInfo(model).canonicalFilePath());
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 2);
    for (size_t k = 0; k < copies.size(); ++k) {
      QCOMPARE(s.copies[k].spec.label, std::get<0>(copies[k]));
      QVERIFY(s.copies[k].spec.options.kind == std::get<1>(copies[k]));
      QCOMPARE(s.copies[k].spec.dt, std::get<2>(copies[k]));
    }
    // Started from the keyframe: link1 turning at 1 rad/s about x.
    QVERIFY2(std::abs(s.state.bodies[0].w.x() - 1.0) < 1e-12, qPrintable(QString::number(s.state.bodies[0].w.x())));
    QCOMPARE(w.plots()->signalDocks().size(), 2);
    QCOMPARE(w.plots()->signalDocks()[0]->signalNames(), (QStringList{"joint1.angle", "joint2.angle"}));
    // The copies are overlaid in the signal plots too, each with its samples.
    QCOMPARE(w.plots()->signalDocks()[0]->comparisonCopies(), 2);
    stepN(w, 8);
    QCOMPARE(w.plots()->copySampleCount(1), 4 * 8L + 1);
    PlotDock* anglePlot = w.plots()->signalDocks()[0];
    anglePlot->refresh(0, true);
    QCOMPARE(anglePlot->plot()->graphCount(), 4);  // two signals × two copies
    for (int g = 0; g < 4; ++g) QVERIFY2(anglePlot->plot()->graph(g)->data()->size() >= 9, qPrintable(QString::number(g)));
    QCOMPARE(w.plots()->signalDocks()[1]->signalNames(), (QStringList{"joint1.force.x", "joint1.force.y", "joint1.force.z"}));
    // Every phase portrait, in order.
    QCOMPARE(w.plots()->phaseDocks().size(), 2);
    QCOMPARE(w.plots()->phaseDocks()[0]->xAxis().name, QString("joint2.angle"));
    QCOMPARE(w.plots()->phaseDocks()[0]->yAxis().name, QString("joint2.angle_rate"));
    QCOMPARE(w.plots()->phaseDocks()[1]->xAxis().name, QString("joint1.angle"));
    QCOMPARE(w.plots()->phaseDocks()[1]->yAxis().name, QString("joint2.angle"));
    const ViewportWidget::Camera back = w.viewport()->camera();
    QVERIFY2((back.eye - cam.eye).norm() < 1e-12 && (back.center - cam.center).norm() < 1e-12 && (back.up - cam.up).norm() < 1e-12,
             "camera");
    // The model's keyframes are nodes of the tree; Load Keyframe on one restarts from it.
    ModelTreePanel* tree = w.modelTree();
    const QList<QTreeWidgetItem*> down = tree->tree()->findItems("down", Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(down.size(), 1);
    QCOMPARE(down.front()->text(1), QString("keyframe: 2 bodies"));
    QCOMPARE(tree->tree()->findItems("stale", Qt::MatchExactly | Qt::MatchRecursive).size(), 1);
    const std::unique_ptr<QMenu> menu = tree->contextMenu(down.front());
    QVERIFY(menu);
    QAction* load = nullptr;
    for (QAction* a : menu->actions())
      if (a->text() == "Load Keyframe") load = a;
    QVERIFY(load);
    load->trigger();
    settle(w);
    const Snapshot atDown = w.sim().snapshot();
    QCOMPARE(atDown.state.step, 0L);
    QVERIFY((atDown.state.bodies[0].x - Vec3(0, 0, -1)).norm() < 1e-12);
    QVERIFY(atDown.state.bodies[0].w.norm() < 1e-12);
    // Saving again gives the same file.
    const QString again = dir.filePath("mine-again.experiment");
    QVERIFY2(w.experiments()->saveExperiment(again, &err), qPrintable(err));
    QFile g(again);
    QVERIFY(g.open(QIODevice::ReadOnly));
    QString textAgain = QString::fromUtf8(g.readAll());
    textAgain.replace("\"mine-again\"", "\"mine\"").replace("(experiment mine-again", "(experiment mine");
    QCOMPARE(textAgain, text);
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestExperiments)
#include "tst_experiments.moc"
