// SPDX-License-Identifier: GPL-3.0-or-later
// Comparison mode and lessons (issue 7), under Xvfb: copies of a model run in lockstep in the
// simulation thread (a copy with a smaller Δt takes several steps per reference step), every plot
// overlays one curve per copy and quantity, the other copies are drawn as tinted ghosts (their
// nodes exist and show, and the rendered image changes where they are), a copy that fails stops
// with "stopped at t = …" while the reference goes on, "compare from here" starts every copy from
// the state shown in the history, equal cost picks a Δt from measured step costs, a lesson opens
// with its explanation and focus plot, and the Settings dock refuses an integrator combination
// with the engine's reason.
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <qcustomplot.h>

#include "comparison_panel.h"
#include "lesson_panel.h"
#include "main_window.h"
#include "document_controller.h"
#include "experiment_controller.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "scenes/lessons.h"
#include "settings_panel.h"
#include "ui_test_util.h"
#include "viewport/viewport_widget.h"

using namespace ms;
using namespace ms::ui;

namespace {
using test::pump;
using test::settle;
using test::stepN;
CopySpec vi(const char* label, double dt, unsigned color) {
  CopySpec c;
  c.label = label;
  c.dt = dt;
  c.color = color;
  return c;
}
// Pixels whose red channel clearly dominates (the ghost tint 0xd62728 over the dark background).
int reddish(const QImage& img) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QColor c = img.pixelColor(x, y);
      if (c.red() > c.green() + 35 && c.red() > c.blue() + 35) ++n;
    }
  return n;
}
int differing(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return -1;
  int n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x)
      if (a.pixel(x, y) != b.pixel(x, y)) ++n;
  return n;
}
}  // namespace

class TestComparison : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // Two copies (Δt = 10 ms and 2.5 ms) in lockstep: after N reference steps both are at the same
  // simulated time (within one reference step; here exactly), the fine copy took 4 steps per
  // reference step, every plot holds two curves per quantity with data, and stepping back covers
  // both copies.
  void lockstepAndPlots() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openModel("scene:double-pendulum", &err), qPrintable(err));
    settle(w);
    std::map<PlotManager::Figure, int> single;
    for (QDockWidget* d : w.plots()->docks()) {
      auto* pd = static_cast<PlotDock*>(d);
      single[pd->figure()] = pd->plot()->graphCount();
    }
    w.experiments()->startComparison({vi("VI 10 ms", 0.01, 0x1f77b4), vi("VI 2.5 ms", 0.0025, 0xd62728)}, false);
    settle(w);
    const int n = 40;
    stepN(w, n);
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 2);
    QVERIFY(!s.copies[0].failed && !s.copies[1].failed);
    QCOMPARE(s.copies[0].steps, long(n));
    QCOMPARE(s.copies[1].steps, long(4 * n));
    const double t0 = s.copies[0].state.time, t1 = s.copies[1].state.time;
    qInfo("after %d reference steps: reference t = %.6f s, fine copy t = %.6f s (%ld steps)", n, t0, t1, s.copies[1].steps);
    QVERIFY(std::abs(t0 - n * 0.01) < 1e-12);
    QVERIFY(std::abs(t1 - t0) <= 0.01);
    QVERIFY(std::abs(t1 - t0) < 1e-9);
    // The two copies really are different simulations (different Δt: slightly different motion).
    QVERIFY((s.copies[0].state.bodies[1].x - s.copies[1].state.bodies[1].x).norm() > 1e-9);

    // Plots: two curves per quantity, each with the copy's samples.
    QCOMPARE(w.plots()->copyCount(), 2);
    QCOMPARE(w.plots()->copySampleCount(0), long(n + 1));
    QCOMPARE(w.plots()->copySampleCount(1), long(4 * n + 1));
    for (QDockWidget* d : w.plots()->docks()) {
      auto* pd = static_cast<PlotDock*>(d);
      pd->refresh(0, true);
      QCOMPARE(pd->plot()->graphCount(), 2 * single[pd->figure()]);
      for (int g = 0; g < pd->plot()->graphCount(); ++g) QVERIFY2(pd->plot()->graph(g)->dataCount() > 0, qPrintable(pd->windowTitle()));
      // The legend names the copies.
      bool named[2] = {false, false};
      for (int g = 0; g < pd->plot()->graphCount(); ++g) {
        named[0] = named[0] || pd->plot()->graph(g)->name().startsWith("VI 10 ms");
        named[1] = named[1] || pd->plot()->graph(g)->name().startsWith("VI 2.5 ms");
      }
      QVERIFY(named[0] && named[1]);
    }
    // Export: the reference's samples in the file, the other copy's beside it (header + one row each).
    QTemporaryDir dir;
    const QString csv = dir.filePath("run.csv");
    QString err2;
    QVERIFY2(w.plots()->exportCsv(csv, &err2), qPrintable(err2));
    const QString csv1 = w.plots()->copyCsvPath(csv, 1);
    QCOMPARE(QFileInfo(csv1).fileName(), QString("run-1-VI_2.5_ms.csv"));
    const auto lines = [](const QString& p) {
      QFile f(p);
      return f.open(QIODevice::ReadOnly) ? int(f.readAll().count('\n')) : -1;
    };
    QCOMPARE(lines(csv), n + 2);
    QCOMPARE(lines(csv1), 4 * n + 2);
    // Step back: both copies return to the previous lockstep instant.
    w.sim().stepBack();
    settle(w);
    const Snapshot b = w.sim().snapshot();
    QVERIFY(std::abs(b.copies[0].state.time - (n - 1) * 0.01) < 1e-12);
    QVERIFY(std::abs(b.copies[1].state.time - (n - 1) * 0.01) < 1e-9);
    // Stopping the comparison: the normal figures again.
    w.sim().stopComparison();
    settle(w);
    for (QDockWidget* d : w.plots()->docks()) {
      auto* pd = static_cast<PlotDock*>(d);
      QCOMPARE(pd->plot()->graphCount(), single[pd->figure()]);
    }
  }

  // Ghosts: one translucent set per other copy exists and is shown; the rendered view has many
  // more tint-coloured pixels with ghosts than without, where the copies have drifted apart.
  void ghostIsDrawn() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString err;
    QVERIFY2(w.openModel("scene:double-pendulum", &err), qPrintable(err));
    settle(w);
    // Δt = 10 ms vs 50 ms: the chaotic double pendulum separates within a few seconds.
    w.experiments()->startComparison({vi("VI", 0.01, 0x1f77b4), vi("VI coarse", 0.05, 0xd62728)}, false);
    settle(w);
    stepN(w, 600);
    pump(100);
    settle(w);
    const Snapshot s = w.sim().snapshot();
    const double apart = (s.copies[0].state.bodies[1].x - s.copies[1].state.bodies[1].x).norm();
    qInfo("lower bob: reference and ghost %.3f m apart at t = %.2f s", apart, s.clock);
    QVERIFY(apart > 0.05);
    QVERIFY2(!s.copies[1].failed, s.copies[1].failure.c_str());
    QCOMPARE(w.viewport()->ghostCount(), 1);
    QVERIFY(w.viewport()->ghostVisible(1));
    const QImage with = w.viewport()->renderToImage();
    w.viewport()->setGhostsEnabled(false);
    QVERIFY(!w.viewport()->ghostVisible(1));
    const QImage without = w.viewport()->renderToImage();
    w.viewport()->setGhostsEnabled(true);
    const int rWith = reddish(with), rWithout = reddish(without), diff = differing(with, without);
    qInfo("ghost pixels: %d reddish with ghosts, %d without; %d pixels differ", rWith, rWithout, diff);
    QVERIFY(diff > 200);
    QVERIFY(rWith > rWithout + 100);

    // Side by side (View menu): the ghost moves over by about a model width and the view reframes.
    QAction* side = w.findChild<QAction*>("view-side-by-side");
    QVERIFY(side);
    side->trigger();
    QVERIFY(w.viewport()->compareLayout() == ViewportWidget::CompareLayout::SideBySide);
    const double offset = w.viewport()->ghostOffset(1).norm();
    QVERIFY2(offset > 0.5 && offset < 20, qPrintable(QString::number(offset)));
    QVERIFY(w.viewport()->ghostVisible(1));
    const QImage beside = w.viewport()->renderToImage();
    const int diffBeside = differing(beside, with);
    // Where the ghost's lower bob is drawn (its copy's position plus the offset), the image is red.
    QPointF at;
    QVERIFY(w.viewport()->worldToWidget(s.copies[1].state.bodies[1].x + w.viewport()->ghostOffset(1), at));
    const qreal dpr = beside.devicePixelRatio();
    const QImage patch = beside.copy(QRect(int(at.x() * dpr) - 4, int(at.y() * dpr) - 4, 9, 9));
    const int redAtGhost = reddish(patch);
    qInfo("side by side: ghost %.2f m over, %d of 81 pixels red around its bob, %d pixels differ from the overlay", offset,
          redAtGhost, diffBeside);
    QVERIFY(diffBeside > 200);
    QVERIFY(redAtGhost >= 5);
    side->trigger();
    QCOMPARE(w.viewport()->ghostOffset(1).norm(), 0.0);
  }

  // A copy whose step fails (here: one Newton iteration allowed) stops with "stopped at t = …"
  // in its row and legend, its ghost hides, and the reference goes on.
  void divergingCopyReported() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openModel("scene:double-pendulum", &err), qPrintable(err));
    settle(w);
    CopySpec bad = vi("starved", 0.1, 0xd62728);
    bad.maxIterations = 1;
    w.experiments()->startComparison({vi("VI", 0.01, 0x1f77b4), bad}, false);
    settle(w);
    stepN(w, 30);
    Snapshot s = w.sim().snapshot();
    QVERIFY(s.copies[1].failed);
    QVERIFY(!s.copies[0].failed);
    QVERIFY(!s.failed);
    qInfo("copy 'starved' stopped at t = %.3f s: %s", s.copies[1].failedAt, s.copies[1].failure.c_str());
    QVERIFY(s.copies[1].failedAt > 0 && s.copies[1].failedAt <= 0.3 + 1e-9);
    w.comparisonPanel()->updateStatus(s);
    QVERIFY2(w.comparisonPanel()->statusText(1).startsWith("stopped at t = "), qPrintable(w.comparisonPanel()->statusText(1)));
    QVERIFY(!w.viewport()->ghostVisible(1));
    bool legend = false;
    auto* energy = static_cast<PlotDock*>(w.plots()->dock(PlotManager::Figure::Energy));
    for (int g = 0; g < energy->plot()->graphCount(); ++g) legend = legend || energy->plot()->graph(g)->name().contains("stopped at t =");
    QVERIFY(legend);
    // The reference continues: 20 more steps.
    const long before = s.copies[0].steps;
    stepN(w, 20);
    s = w.sim().snapshot();
    QCOMPARE(s.copies[0].steps, before + 20);
    QVERIFY(!s.copies[0].failed);

    // Lesson 6 (explicit Euler on stiff soft contacts at 10 ms, when this build has it): Euler is
    // reported diverged soon after the box touches the ground; the exponential integrator goes on.
    QVERIFY2(w.openLesson("stiff-contact", &err), qPrintable(err));
    settle(w);
    stepN(w, 150);
    s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 2);
    if (s.copies[1].failure.rfind("cannot start", 0) == 0) {
      qInfo("lesson 6 in this build: %s", s.copies[1].failure.c_str());
    } else {
      QVERIFY(s.copies[1].failed);
      QVERIFY(!s.copies[0].failed);
      QCOMPARE(s.copies[0].steps, 150L);
      qInfo("lesson 6: explicit Euler stopped at t = %.2f s (%s); exponential at t = %.2f s, penetration %.2g m",
            s.copies[1].failedAt, s.copies[1].failure.c_str(), s.copies[0].state.time, s.copies[0].metrics.penetration);
      QVERIFY(s.copies[1].failedAt < 1.0);
    }
  }

  // Lesson 3 running: three copies, one of them RK4 at 1 ms (100 steps per reference step), all on
  // the simulation thread; the window keeps ticking while they run and every copy keeps the clock.
  void runningDoesNotBlockTheWindow() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString err;
    QVERIFY2(w.openLesson("dissipation", &err), qPrintable(err));
    settle(w);
    w.takeMaxTickGapMs();
    w.sim().setRunning(true);
    pump(1500);
    const double gap = w.takeMaxTickGapMs();
    w.sim().setRunning(false);
    settle(w);
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 3);
    qInfo("lesson 3 running 1.5 s: simulated %.2f s, copies at t = %.3f / %.3f / %.3f s (%ld, %ld, %ld steps), longest GUI tick gap %.0f ms",
          s.clock, s.copies[0].state.time, s.copies[1].state.time, s.copies[2].state.time, s.copies[0].steps, s.copies[1].steps,
          s.copies[2].steps, gap);
    QVERIFY(s.clock > 0.3);
    for (const CopyStatus& c : s.copies) {
      if (c.failed) continue;
      QVERIFY(std::abs(c.state.time - s.clock) <= s.copies[0].spec.dt + 1e-9);
    }
    QCOMPARE(s.copies[2].steps, 100 * s.copies[0].steps);
    QVERIFY2(gap < 400, qPrintable(QString::number(gap)));
  }

  // Compare from here: run alone, scrub back to step 20, start: every copy begins from that state.
  void branchFromHistory() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openModel("scene:double-pendulum", &err), qPrintable(err));
    settle(w);
    stepN(w, 50);
    w.sim().seek(20);
    settle(w);
    const State past = w.sim().snapshot().state;
    QVERIFY(std::abs(past.time - 0.2) < 1e-12);
    w.comparisonPanel()->setCopies({vi("VI", 0.01, 0x1f77b4), vi("VI 5 ms", 0.005, 0xd62728)});
    w.experiments()->compareFromHere();
    settle(w);
    Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 2);
    for (const CopyStatus& c : s.copies) {
      QCOMPARE(c.state.time, past.time);
      for (size_t i = 0; i < past.bodies.size(); ++i) {
        QCOMPARE((c.state.bodies[i].x - past.bodies[i].x).norm(), 0.0);
        QCOMPARE((c.state.bodies[i].v - past.bodies[i].v).norm(), 0.0);
      }
    }
    QCOMPARE(s.historyCount, 1);  // the comparison's timeline starts there
    stepN(w, 10);
    s = w.sim().snapshot();
    QVERIFY(std::abs(s.copies[0].state.time - 0.3) < 1e-12);
    QVERIFY(std::abs(s.copies[1].state.time - 0.3) < 1e-9);
    QCOMPARE(s.copies[1].steps, 20L);
  }

  // Equal cost: the reference and a copy with a costlier step (tighter Newton tolerance is not
  // settable per copy; the same integrator at another Δt) get Δt_i = Δt_ref · c_i / c_ref from
  // measured µs per step; the chosen Δt is shown in the list.
  void equalCostPicksDt() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openModel("scene:chain", &err, {{"n", "8"}}), qPrintable(err));
    settle(w);
    w.experiments()->startComparison({vi("VI", 0.01, 0x1f77b4), vi("VI again", 0.002, 0xd62728)}, true);
    settle(w);
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 2);
    const double c0 = s.copies[0].calibratedMicroseconds, c1 = s.copies[1].calibratedMicroseconds, dt1 = s.copies[1].spec.dt;
    qInfo("equal cost: reference %.1f µs/step at 10 ms; copy %.1f µs/step, chosen Δt = %g s", c0, c1, dt1);
    QVERIFY(c0 > 0 && c1 > 0);
    QVERIFY(dt1 != 0.002);
    // Same integrator and model: about the same cost per step, so about the reference's Δt.
    QVERIFY2(dt1 > 0.01 / 4 && dt1 < 0.01 * 4, qPrintable(QString::number(dt1)));
    // Δt_1 = Δt_0 · c_1 / c_0 up to the 3-digit rounding.
    QVERIFY(std::abs(dt1 - 0.01 * c1 / c0) <= 0.01 * dt1);
    w.comparisonPanel()->updateStatus(s);
    QVERIFY(w.comparisonPanel()->statusText(1).contains("equal cost: Δt = "));
    QCOMPARE(w.comparisonPanel()->table()->item(1, ComparisonPanel::Dt)->text().toDouble(), dt1);
  }

  // Lessons menu: lesson 11 (accuracy per cost) opens the double pendulum in five copies and shows
  // the committed work-precision diagram (built in under :/figures) in its panel; lesson 1 has no
  // figure, and opening it after 11 hides the figure again.
  void lessonShowsItsFigure() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QAction* eleven = w.findChild<QAction*>("lesson-11");
    QVERIFY(eleven);
    eleven->trigger();
    settle(w);
    QVERIFY(w.lessonDock()->isVisible());
    QVERIFY(w.lessonPanel()->titleText().startsWith("11. Accuracy per cost"));
    QCOMPARE(w.documents()->source(), QString("scene:double-pendulum"));
    stepN(w, 5);
    QCOMPARE(int(w.sim().snapshot().copies.size()), 5);
    const QPixmap figure = w.lessonPanel()->figure();
    QVERIFY2(!figure.isNull(), qPrintable(w.lessonPanel()->figureText()));
    QVERIFY(figure.width() > 300 && figure.height() > 100);
    if (const QByteArray out = qgetenv("MECHSTUDIO_LESSON11_SCREENSHOT"); !out.isEmpty()) w.grab().save(QString::fromUtf8(out));
    QAction* one = w.findChild<QAction*>("lesson-1");
    QVERIFY(one);
    one->trigger();
    settle(w);
    QVERIFY(w.lessonPanel()->figure().isNull());
  }

  // Lessons menu: lesson 1 opens the three-link loop with VI vs RK4 as a comparison, the
  // explanation panel shows, the violation plot is in front on a log scale with two curves, RK4
  // runs in lockstep as a ghost and every plot has a curve per copy.
  void lessonOpens() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.experiments()->lessonsMenu());
    QCOMPARE(int(w.experiments()->lessonsMenu()->actions().size()), int(lessons().size()));
    QAction* one = w.findChild<QAction*>("lesson-1");
    QVERIFY(one);
    one->trigger();
    settle(w);
    QVERIFY(w.lessonDock()->isVisible());
    QVERIFY(w.lessonPanel()->titleText().startsWith("1. Constraint drift"));
    QVERIFY(w.lessonPanel()->claimText().contains("RK4"));
    QCOMPARE(w.documents()->source(), QString("scene:three-link-loop"));
    auto* violation = static_cast<PlotDock*>(w.plots()->dock(PlotManager::Figure::Violation));
    QVERIFY(violation->logScale());
    QVERIFY(!violation->visibleRegion().isEmpty());
    stepN(w, 20);
    const Snapshot s = w.sim().snapshot();
    QCOMPARE(int(s.copies.size()), 2);
    QCOMPARE(QString::fromStdString(s.copies[0].spec.label), QString("VI"));
    QCOMPARE(QString::fromStdString(s.copies[1].spec.label), QString("RK4"));
    QCOMPARE(violation->plot()->graphCount(), 2);
    QVERIFY(!s.copies[0].failed);
    QCOMPARE(s.copies[0].steps, 20L);
    // RK4 runs in lockstep beside the VI, drawn as a ghost; its loop violation is far above the VI's.
    QVERIFY2(!s.copies[1].failed, s.copies[1].failure.c_str());
    QCOMPARE(s.copies[1].steps, 20L);
    QVERIFY(std::abs(s.copies[1].state.time - s.copies[0].state.time) < 1e-9);
    QVERIFY(w.viewport()->ghostVisible(1));
    qInfo("lesson 1 after 0.2 s: violation VI %.3g, RK4 %.3g", s.copies[0].metrics.constraintViolation,
          s.copies[1].metrics.constraintViolation);
    QVERIFY(s.copies[0].metrics.constraintViolation < 1e-9);
    QVERIFY(s.copies[1].metrics.constraintViolation > 100 * s.copies[0].metrics.constraintViolation);
    // Every plot holds one curve per copy and quantity, each with data.
    for (QDockWidget* d : w.plots()->docks()) {
      auto* pd = static_cast<PlotDock*>(d);
      pd->refresh(0, true);
      QVERIFY2(pd->plot()->graphCount() >= 2 && pd->plot()->graphCount() % 2 == 0, qPrintable(pd->windowTitle()));
      for (int g = 0; g < pd->plot()->graphCount(); ++g)
        QVERIFY2(pd->plot()->graph(g)->dataCount() > 0, qPrintable(pd->windowTitle()));
    }
    // By id as well; unknown ones are refused with the list.
    QString err;
    QVERIFY2(w.openLesson("contact", &err), qPrintable(err));
    settle(w);
    QCOMPARE(int(w.sim().snapshot().copies.size()), 3);
    // Lesson 5 brings the angular-momentum plot to the front, two curves in it.
    QVERIFY2(w.openLesson("5", &err), qPrintable(err));
    settle(w);
    auto* momentum = static_cast<PlotDock*>(w.plots()->dock(PlotManager::Figure::Momentum));
    QVERIFY(!momentum->visibleRegion().isEmpty());
    QCOMPARE(momentum->plot()->graphCount(), 2);
    QVERIFY(!w.openLesson("99", &err));
    QVERIFY(err.contains("drift"));
  }

  // Lessons 7–10 (joint-coordinate integrators, MuJoCo): each opens with all its copies, the running
  // ones in lockstep and drawn as ghosts from their poses, and the lesson's plot in front with a
  // curve per copy. A build without MuJoCo lists its copy as not started, with the reason.
  void comparatorLessonsOpen() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (const char* id : {"tolerance", "singular", "mujoco-contact", "mujoco-loop"}) {
      QString err;
      QVERIFY2(w.openLesson(id, &err), qPrintable(err));
      settle(w);
      stepN(w, 5);
      const Lesson& l = findLesson(id);
      const Snapshot s = w.sim().snapshot();
      QCOMPARE(int(s.copies.size()), int(l.variants.size()));
      QVERIFY(!s.copies[0].failed);
      PlotManager::Figure focus = PlotManager::Figure::Energy;
      switch (l.focus) {
        case LessonFocus::ConstraintViolation: focus = PlotManager::Figure::Violation; break;
        case LessonFocus::Energy: focus = PlotManager::Figure::EnergyError; break;
        case LessonFocus::Penetration: focus = PlotManager::Figure::Penetration; break;
        case LessonFocus::AngularMomentum: focus = PlotManager::Figure::Momentum; break;
        case LessonFocus::Iterations: focus = PlotManager::Figure::Solver; break;
      }
      auto* dock = static_cast<PlotDock*>(w.plots()->dock(focus));
      QVERIFY(!dock->visibleRegion().isEmpty());
      dock->refresh(0, true);
      int running = 0;
      for (size_t i = 0; i < s.copies.size(); ++i) {
        const CopyStatus& c = s.copies[i];
        qInfo("lesson %s, copy '%s': %s, %ld steps", id, c.spec.label.c_str(), c.failed ? c.failure.c_str() : "running",
              c.steps);
        if (c.failure.rfind("cannot start", 0) == 0) {
          QVERIFY2(c.failure.find("MuJoCo") != std::string::npos, c.failure.c_str());
          continue;
        }
        if (c.failed) continue;
        ++running;
        QCOMPARE(c.steps, 5L);
        if (i > 0) QVERIFY(w.viewport()->ghostVisible(int(i)));
      }
      qInfo("lesson %s: %d copies running, %d curves in its plot", id, running, dock->plot()->graphCount());
      QVERIFY(dock->plot()->graphCount() >= 2);
      // Every plot holds a curve per copy (and quantity), the running ones with data.
      for (QDockWidget* d : w.plots()->docks()) {
        auto* pd = static_cast<PlotDock*>(d);
        pd->refresh(0, true);
        QVERIFY2(pd->plot()->graphCount() >= running, qPrintable(pd->windowTitle()));
        int withData = 0;
        for (int g = 0; g < pd->plot()->graphCount(); ++g) withData += pd->plot()->graph(g)->dataCount() > 0;
        QVERIFY2(withData >= 2, qPrintable(pd->windowTitle()));
      }
      QVERIFY(running >= 1);
      if (l.id == "tolerance" || l.id == "singular") QVERIFY(running >= 2);
    }
  }

  // Settings dock: an integrator combination that makes no sense for the model shows the engine's
  // reason and is not applied; a valid one is applied at the sync point.
  void integratorSettings() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString err;
    QVERIFY2(w.openModel("scene:double-pendulum", &err), qPrintable(err));
    settle(w);
    SettingsPanel* sp = w.settingsPanel();
    // The variational integrator with soft contacts: refused with a reason.
    sp->contactsCombo()->setCurrentIndex(sp->contactsCombo()->findData(int(ContactModel::Soft)));
    QVERIFY2(sp->integratorProblem().contains("rigid"), qPrintable(sp->integratorProblem()));
    settle(w);
    QCOMPARE(int(w.sim().integratorOptions().contacts), int(ContactModel::Rigid));
    sp->contactsCombo()->setCurrentIndex(sp->contactsCombo()->findData(int(ContactModel::Rigid)));
    QVERIFY(sp->integratorProblem().isEmpty());
    // Heun: applied, or named as unavailable in this build; never both.
    sp->integratorCombo()->setCurrentIndex(sp->integratorCombo()->findData(int(IntegratorKind::Heun)));
    settle(w);
    if (sp->integratorProblem().isEmpty()) {
      QCOMPARE(int(w.sim().integratorOptions().kind), int(IntegratorKind::Heun));
      stepN(w, 10);
      QCOMPARE(w.sim().snapshot().state.step, 10L);
    } else {
      qInfo("Heun in this build: %s", qPrintable(sp->integratorProblem()));
      QVERIFY(sp->integratorProblem().contains("not available"));
      QCOMPARE(int(w.sim().integratorOptions().kind), int(IntegratorKind::Variational));
    }
    // A model with contacts refuses an explicit integrator with rigid contacts.
    QVERIFY2(w.openModel("scene:box-drop", &err), qPrintable(err));
    settle(w);
    IntegratorOptions rk4;
    rk4.kind = IntegratorKind::RK4;
    QVERIFY(!w.setIntegrator(rk4, &err));
    QVERIFY2(err.contains("contacts"), qPrintable(err));
    // Joint coordinates: riqn on a closed loop is refused inline with the reason and not applied;
    // midpoint-gc is applied and steps.
    QVERIFY2(w.openModel("scene:three-link-loop", &err), qPrintable(err));
    settle(w);
    sp->integratorCombo()->setCurrentIndex(sp->integratorCombo()->findData(int(IntegratorKind::RIQN)));
    settle(w);
    qInfo("riqn on the three-link loop: %s", qPrintable(sp->integratorProblem()));
    QVERIFY2(sp->integratorProblem().contains("closes a loop"), qPrintable(sp->integratorProblem()));
    QCOMPARE(int(w.sim().integratorOptions().kind), int(IntegratorKind::Variational));
    sp->integratorCombo()->setCurrentIndex(sp->integratorCombo()->findData(int(IntegratorKind::MidpointGC)));
    settle(w);
    QVERIFY2(sp->integratorProblem().isEmpty(), qPrintable(sp->integratorProblem()));
    QCOMPARE(int(w.sim().integratorOptions().kind), int(IntegratorKind::MidpointGC));
    stepN(w, 10);
    QCOMPARE(w.sim().snapshot().state.step, 10L);
    QVERIFY(w.sim().snapshot().metrics.constraintViolation < 1e-9);
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestComparison)
#include "tst_comparison.moc"
