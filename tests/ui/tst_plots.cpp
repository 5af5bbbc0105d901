// SPDX-License-Identifier: GPL-3.0-or-later
// Qt Test of the live plot docks (ui/plots): the sample store (cap, block min/max summaries),
// decimation bounds, spikes surviving decimation, exact CSV export, rewind/clear, time window,
// log/autoscale toggles, pause-on-hover, hidden docks, PNG/SVG export, refresh timing, and a
// screenshot of a 1280×800 window with synthetic pendulum data.
#include <QCoreApplication>
#include <QCursor>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMainWindow>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <memory>
#include <qcustomplot.h>
#include <random>
#include <time.h>
#include <vector>

#include "ui_test_util.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "plots/sample_store.h"

using namespace ms::ui;

namespace {

// A pendulum-like run: kinetic/potential exchange, slowly drifting total, noisy solver figures.
std::vector<StepSample> pendulumRun(long count) {
  std::vector<StepSample> out(static_cast<std::size_t>(count));
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(0.0, 1.0);
  const double w = 2.0 * M_PI / 2.0, emax = 1.2, p0 = -9.81, e0 = p0 + emax;
  for (long i = 0; i < count; ++i) {
    StepSample& s = out[static_cast<std::size_t>(i)];
    s.step = i + 1;
    s.time = static_cast<double>(i + 1) / 1000.0;
    const double t = s.time;
    s.kinetic = emax * std::pow(std::sin(w * t), 2);
    s.potential = p0 + emax * std::pow(std::cos(w * t), 2);
    s.energy = s.kinetic + s.potential + 2e-5 * t + 2e-6 * noise(rng);
    s.energyError = std::abs(s.energy - e0) / std::abs(e0);
    s.violation = 1e-9 * (1.5 + std::sin(3 * t)) * std::exp(0.3 * noise(rng)) + (i % 2500 == 7 ? 2e-7 : 0);
    s.penetration = std::max(0.0, 2e-4 * std::sin(4 * t));
    s.limitViolation = std::max(0.0, 1e-9 * std::cos(2 * t));
    s.iterations = 3 + static_cast<int>(std::lround(2 * std::abs(std::sin(t)))) + (i % 7 == 0 ? 2 : 0);
    s.residual = 1e-10 * std::pow(10.0, 2 * std::sin(1.3 * t)) * std::exp(0.5 * noise(rng));
    s.stepMicroseconds = 40 + 4 * noise(rng) + (i % 1777 == 0 ? 300 : 0);
  }
  return out;
}

// Appends [begin, end) of `all` in chunks of `chunk` samples.
void appendRange(PlotManager& pm, const std::vector<StepSample>& all, std::size_t begin, std::size_t end, std::size_t chunk) {
  for (std::size_t i = begin; i < end; i += chunk)
    pm.append(std::vector<StepSample>(all.begin() + static_cast<std::ptrdiff_t>(i),
                                      all.begin() + static_cast<std::ptrdiff_t>(std::min(end, i + chunk))));
}

// Min and max value of a graph's displayed data.
std::pair<double, double> graphValueRange(const QCPGraph* g) {
  double lo = INFINITY, hi = -INFINITY;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
    lo = std::min(lo, it->value);
    hi = std::max(hi, it->value);
  }
  return {lo, hi};
}

using ms::ui::test::threadCpuMs;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

class TestPlots : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<QMainWindow> window_;
  PlotManager* pm_ = nullptr;
  std::vector<StepSample> run_;
  QTemporaryDir tmp_;

  PlotDock* dock(PlotManager::Figure f) const { return qobject_cast<PlotDock*>(pm_->dock(f)); }
  QCustomPlot* plot(PlotManager::Figure f) const { return dock(f)->plot(); }
  // Loads the whole pendulum run afresh and redraws.
  void reload() {
    pm_->clear();
    pm_->setTimeWindow(10);
    appendRange(*pm_, run_, 0, run_.size(), 500);
    pm_->refresh();
  }

 private Q_SLOTS:
  // A 1280×800 main window with a placeholder central widget and the six docks, shown under Xvfb.
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    run_ = pendulumRun(100000);
    window_ = std::make_unique<QMainWindow>();
    auto* central = new QLabel(QStringLiteral("3D viewport"));
    central->setAlignment(Qt::AlignCenter);
    central->setStyleSheet(QStringLiteral("background:#30343a; color:#aab;"));
    window_->setCentralWidget(central);
    pm_ = new PlotManager(window_.get());
    window_->resize(1280, 800);
    window_->move(0, 0);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    // Keep the real pointer over the central widget so no dock believes it is hovered.
    QCursor::setPos(window_->mapToGlobal(QPoint(5, 5)));
    QTest::qWait(50);
    QCOMPARE(pm_->docks().size(), 7);
    const QStringList names = {"plot-energy", "plot-energy-error", "plot-violation", "plot-penetration",
                               "plot-solver", "plot-step-time", "plot-momentum"};
    for (int i = 0; i < 7; ++i) {
      QDockWidget* d = pm_->dock(static_cast<PlotManager::Figure>(i));
      QCOMPARE(d->objectName(), names[i]);
      QVERIFY(d->isVisible());
      QVERIFY(d->findChild<QCustomPlot*>());
      QVERIFY(!qobject_cast<PlotDock*>(d)->hovered());
    }
    QCOMPARE(pm_->dock(PlotManager::Figure::Solver)->windowTitle(), QStringLiteral("Solver"));
    QCOMPARE(pm_->timeWindow(), 10.0);
  }

  // The store keeps the newest `capacity` samples, counts the dropped ones, keeps times sorted.
  void storeCapacityAndOrder() {
    SampleStore s;
    s.setCapacity(1000);
    for (std::size_t i = 0; i < 5000; i += 300)
      s.append(std::vector<StepSample>(run_.begin() + static_cast<std::ptrdiff_t>(i),
                                       run_.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(5000, i + 300))));
    QVERIFY(s.size() <= 1000);
    QVERIFY(s.size() >= 1000 - 1000 / 16 - SampleStore::kBlock);
    QCOMPARE(s.receivedCount(), 5000L);
    QCOMPARE(s.time(s.size() - 1), run_[4999].time);
    QCOMPARE(s.step(0), run_[5000 - s.size()].step);
    QCOMPARE(s.value(SampleStore::Field::Energy, 0), run_[5000 - s.size()].energy);
    // An older sample means the timeline went back: newer ones are dropped first.
    const quint64 resets = s.resetRevision();
    s.append({run_[4499]});
    QCOMPARE(s.time(s.size() - 1), run_[4499].time);
    QCOMPARE(s.time(s.size() - 2), run_[4498].time);
    QVERIFY(s.resetRevision() > resets);
  }

  // Block-summary min/max equals a brute-force scan for random ranges (NaN/inf skipped).
  void storeExtremesMatchBruteForce() {
    SampleStore s;
    std::vector<StepSample> v(10000);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i].time = static_cast<double>(i);
      v[i].violation = i % 997 == 3 ? NAN : (i % 1499 == 5 ? INFINITY : u(rng));
      v[i].iterations = static_cast<int>(rng() % 50);
    }
    s.append(v);
    s.rewind(9876.5);  // leaves a partial last block
    QCOMPARE(s.size(), std::size_t(9877));
    for (int trial = 0; trial < 2000; ++trial) {
      std::size_t a = rng() % s.size(), b = rng() % (s.size() + 1);
      if (a > b) std::swap(a, b);
      double lo = INFINITY, hi = -INFINITY;
      int ilo = 1 << 30, ihi = -1;
      for (std::size_t i = a; i < b; ++i) {
        if (std::isfinite(v[i].violation)) { lo = std::min(lo, v[i].violation); hi = std::max(hi, v[i].violation); }
        ilo = std::min(ilo, v[i].iterations);
        ihi = std::max(ihi, v[i].iterations);
      }
      const auto e = s.extremes(SampleStore::Field::Violation, a, b);
      QCOMPARE(e.valid, lo <= hi);
      if (e.valid) {
        QCOMPARE(e.min, lo);
        QCOMPARE(e.max, hi);
        QCOMPARE(v[e.argMin].violation, lo);
        QCOMPARE(v[e.argMax].violation, hi);
      }
      const auto it = s.extremes(SampleStore::Field::Iterations, a, b);
      if (b > a) {
        QCOMPARE(it.min, double(ilo));
        QCOMPARE(it.max, double(ihi));
      }
    }
  }

  // 100 000 samples appended in chunks of 500, refresh() timed after each chunk (all docks visible).
  void appendRefreshTiming() {
    pm_->clear();
    pm_->setTimeWindow(10);
    std::vector<double> ms, cpuMs, paintMs, appendMs;
    QElapsedTimer timer;
    for (std::size_t i = 0; i < run_.size(); i += 500) {
      const std::vector<StepSample> chunk(run_.begin() + static_cast<std::ptrdiff_t>(i), run_.begin() + static_cast<std::ptrdiff_t>(i + 500));
      timer.start();
      pm_->append(chunk);
      appendMs.push_back(timer.nsecsElapsed() / 1e6);
      timer.start();
      const double cpu0 = threadCpuMs();
      pm_->refresh();
      cpuMs.push_back(threadCpuMs() - cpu0);
      ms.push_back(timer.nsecsElapsed() / 1e6);
      // The queued repaints happen in the event loop (timed separately).
      timer.start();
      QCoreApplication::processEvents();
      paintMs.push_back(timer.nsecsElapsed() / 1e6);
    }
    const double med = median(ms), mx = *std::max_element(ms.begin(), ms.end());
    qInfo("refresh(), 6 docks, 10 s window of 1 kHz data: %zu calls, wall median %.2f ms, max %.2f ms; "
          "thread CPU median %.2f ms, max %.2f ms", ms.size(), med, mx, median(cpuMs), *std::max_element(cpuMs.begin(), cpuMs.end()));
    qInfo("append(500 samples): median %.3f ms; repaint in the event loop afterwards: median %.2f ms, max %.2f ms",
          median(appendMs), median(paintMs), *std::max_element(paintMs.begin(), paintMs.end()));
    QVERIFY2(med < 20, qPrintable(QStringLiteral("median refresh %1 ms").arg(med)));
    QCOMPARE(pm_->sampleCount(), 100000L);

    // Decimated display: ≤ 2 points per pixel column (+ edges), far fewer than the 10 000 visible samples.
    QCustomPlot* p = plot(PlotManager::Figure::Energy);
    const int points = p->graph(0)->dataCount();
    qInfo("energy plot %d px wide: %d points displayed for 10 000 samples in the window", p->axisRect()->width(), points);
    QVERIFY(points > 0);
    QVERIFY(points <= 4 * p->width());
    QVERIFY(points <= 2 * p->axisRect()->width() + 4);
    // Whole history (window 0): same bound, served by the block summaries.
    pm_->setTimeWindow(0);
    timer.start();
    const double cpu0 = threadCpuMs();
    pm_->refresh();
    qInfo("refresh() with the whole 100 000-sample history shown: wall %.2f ms, CPU %.2f ms", timer.nsecsElapsed() / 1e6,
          threadCpuMs() - cpu0);
    QVERIFY(p->graph(0)->dataCount() <= 2 * p->axisRect()->width() + 4);
    QCOMPARE(p->xAxis->range().lower, run_.front().time);
    QCOMPARE(p->xAxis->range().upper, run_.back().time);
    pm_->setTimeWindow(10);
    pm_->refresh();
  }

  // What a user sees: the window with pendulum data, saved for inspection.
  void screenshot() {
    reload();
    QTest::qWait(100);
    // Next to the test binary (the build tree), never in the source tree.
    const QString path = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("tst_plots_screenshot.png"));
    QVERIFY(window_->grab().save(path));
    qInfo("screenshot: %s", qPrintable(path));
  }

  // Export holds every sample with exact values; decimation never touches it.
  void exportCsvExact() {
    reload();
    const QString path = tmp_.filePath(QStringLiteral("samples.csv"));
    QString error;
    QVERIFY2(pm_->exportCsv(path, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    QTextStream in(&f);
    QCOMPARE(in.readLine(), QStringLiteral("step,time,kinetic,potential,energy,energy_error,violation,penetration,limit_violation,iterations,"
                                                "residual,step_us,angular_momentum"));
    long rows = 0;
    while (!in.atEnd()) {
      const QStringList c = in.readLine().split(QLatin1Char(','));
      QCOMPARE(c.size(), 13);
      const StepSample& s = run_[static_cast<std::size_t>(rows)];
      // Every value of a few rows (exact round trip).
      if (rows == 0 || rows == 12345 || rows == 77777 || rows == 99999) {
        QCOMPARE(c[0].toLong(), s.step);
        QCOMPARE(c[1].toDouble(), s.time);
        QCOMPARE(c[2].toDouble(), s.kinetic);
        QCOMPARE(c[3].toDouble(), s.potential);
        QCOMPARE(c[4].toDouble(), s.energy);
        QCOMPARE(c[5].toDouble(), s.energyError);
        QCOMPARE(c[6].toDouble(), s.violation);
        QCOMPARE(c[7].toDouble(), s.penetration);
        QCOMPARE(c[8].toDouble(), s.limitViolation);
        QCOMPARE(c[9].toInt(), s.iterations);
        QCOMPARE(c[10].toDouble(), s.residual);
        QCOMPARE(c[11].toDouble(), s.stepMicroseconds);
      }
      ++rows;
    }
    QCOMPARE(rows, 100000L);
    // The dock's export is the same file content.
    const QString path2 = tmp_.filePath(QStringLiteral("dock.csv"));
    QVERIFY(dock(PlotManager::Figure::Solver)->exportCsv(path2, &error));
    QFile f2(path2);
    QVERIFY(f2.open(QIODevice::ReadOnly));
    f.seek(0);
    QCOMPARE(f2.readAll(), f.readAll());
    // Failure is reported, not silent.
    error.clear();
    QVERIFY(!pm_->exportCsv(tmp_.filePath(QStringLiteral("no/such/dir/x.csv")), &error));
    QVERIFY(!error.isEmpty());
  }

  // A one-sample spike up and one down among small values survive min/max decimation.
  void spikeSurvivesDecimation() {
    std::vector<StepSample> v = run_;
    for (StepSample& s : v) s.energy = 1.0 + 1e-3 * std::sin(s.time);
    v[95000].energy = 1e6;
    v[96500].energy = -1e6;
    pm_->clear();
    appendRange(*pm_, v, 0, v.size(), 5000);
    QCPGraph* g = plot(PlotManager::Figure::Energy)->graph(0);
    for (double window : {10.0, 0.0}) {
      pm_->setTimeWindow(window);
      pm_->refresh();
      pm_->refresh();  // the spike's wider tick labels narrowed the axis rect: buckets follow
      const auto [lo, hi] = graphValueRange(g);
      QCOMPARE(hi, 1e6);
      QCOMPARE(lo, -1e6);
      QVERIFY(g->dataCount() <= 2 * g->keyAxis()->axisRect()->width() + 4);
    }
    pm_->setTimeWindow(10);
  }

  // refresh() redraws only when the data, window or size changed.
  void refreshOnlyWhenChanged() {
    reload();
    PlotDock* d = dock(PlotManager::Figure::Violation);
    QVERIFY(!d->refresh(10));
    appendRange(*pm_, run_, run_.size() - 1, run_.size(), 1);  // the same sample again: data changed
    QVERIFY(d->refresh(10));
    QVERIFY(!d->refresh(10));
    QVERIFY(d->refresh(5));
    QVERIFY(d->refresh(10));
  }

  // setTimeWindow changes the x range shown; it scrolls with the newest sample.
  void timeWindow() {
    reload();
    for (QDockWidget* d : pm_->docks()) {
      const QCPRange r = qobject_cast<PlotDock*>(d)->plot()->xAxis->range();
      QVERIFY(qAbs(r.size() - 10) < 1e-9);
      QCOMPARE(r.upper, run_.back().time);
    }
    pm_->setTimeWindow(2.5);
    pm_->refresh();
    QVERIFY(qAbs(plot(PlotManager::Figure::Violation)->xAxis->range().size() - 2.5) < 1e-9);
    // Less data than the window: the window starts at the first sample.
    pm_->clear();
    appendRange(*pm_, run_, 0, 1000, 500);
    pm_->refresh();
    QCOMPARE(plot(PlotManager::Figure::Energy)->xAxis->range().lower, run_.front().time);
    QVERIFY(qAbs(plot(PlotManager::Figure::Energy)->xAxis->range().size() - 2.5) < 1e-9);
    pm_->setTimeWindow(-3);
    QCOMPARE(pm_->timeWindow(), 0.0);
    pm_->setTimeWindow(10);
  }

  // The log toggle switches scale type and ticker; non-positive values are clamped for display.
  void logScaleToggle() {
    reload();
    PlotDock* energy = dock(PlotManager::Figure::Energy);
    QCustomPlot* p = energy->plot();
    QVERIFY(!energy->logScale());
    QCOMPARE(p->yAxis->scaleType(), QCPAxis::stLinear);
    energy->setLogScale(true);
    QCOMPARE(p->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(qSharedPointerDynamicCast<QCPAxisTickerLog>(p->yAxis->ticker()));
    // Potential energy is negative: displayed clamped below the positive axis range.
    const auto [lo, hi] = graphValueRange(p->graph(2));
    QVERIFY(lo > 0);
    QVERIFY(lo < p->yAxis->range().lower);
    QVERIFY(p->yAxis->range().lower > 0);
    QVERIFY(hi > 0);
    energy->setLogScale(false);
    QCOMPARE(p->yAxis->scaleType(), QCPAxis::stLinear);
    QVERIFY(!qSharedPointerDynamicCast<QCPAxisTickerLog>(p->yAxis->ticker()));
    QCOMPARE(graphValueRange(p->graph(2)).first, -9.81);
    // Defaults: log for energy error, violation and the solver residual (right axis).
    QCOMPARE(plot(PlotManager::Figure::EnergyError)->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(plot(PlotManager::Figure::Violation)->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(plot(PlotManager::Figure::Solver)->yAxis2->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(plot(PlotManager::Figure::Penetration)->yAxis->scaleType(), QCPAxis::stLinear);
    // Penetration is zero half the time: on a log axis nothing breaks and the range stays positive.
    PlotDock* pen = dock(PlotManager::Figure::Penetration);
    pen->setLogScale(true);
    QVERIFY(pen->plot()->yAxis->range().lower > 0);
    QVERIFY(graphValueRange(pen->plot()->graph(0)).first > 0);
    // Its second curve is the joint-limit overshoot (up to 1e-9 in the synthetic run).
    QCOMPARE(pen->plot()->graphCount(), 2);
    QCOMPARE(pen->plot()->graph(1)->name(), QStringLiteral("Joint-limit overshoot"));
    QVERIFY(std::abs(graphValueRange(pen->plot()->graph(1)).second - 1e-9) < 1e-11);
    pen->setLogScale(false);
    QCOMPARE(pen->plot()->yAxis->range().lower, 0.0);
  }

  // Autoscale fits the visible data; off, the user's range stays and mouse drag/zoom is enabled.
  void autoscaleToggle() {
    reload();
    PlotDock* st = dock(PlotManager::Figure::StepTime);
    QCustomPlot* p = st->plot();
    QVERIFY(st->autoscale());
    QVERIFY(!p->interactions().testFlag(QCP::iRangeDrag));
    const auto [lo, hi] = graphValueRange(p->graph(0));
    QVERIFY(p->yAxis->range().lower <= lo && p->yAxis->range().upper >= hi);
    QCOMPARE(p->yAxis->range().lower, 0.0);  // durations start at zero
    st->setAutoscale(false);
    QVERIFY(p->interactions().testFlag(QCP::iRangeDrag));
    QVERIFY(p->interactions().testFlag(QCP::iRangeZoom));
    QVERIFY(p->axisRect()->rangeDragAxes(Qt::Vertical).contains(p->yAxis));
    QVERIFY(p->axisRect()->rangeDragAxes(Qt::Horizontal).isEmpty());
    p->yAxis->setRange(10, 20);
    pm_->rewind(90);
    pm_->refresh();
    QCOMPARE(p->yAxis->range(), QCPRange(10, 20));
    st->setAutoscale(true);
    QVERIFY(!p->interactions().testFlag(QCP::iRangeDrag));
    QCOMPARE(p->yAxis->range().lower, 0.0);
    QVERIFY(p->yAxis->range().upper > 40);
  }

  // While hovered a plot keeps its x range; it catches up on leave. The tracer shows the sample.
  void pauseOnHover() {
    pm_->clear();
    appendRange(*pm_, run_, 0, 50000, 500);
    pm_->refresh();
    PlotDock* d = dock(PlotManager::Figure::Energy);
    QCustomPlot* p = d->plot();
    const QCPRange frozen = p->xAxis->range();
    QCOMPARE(frozen.upper, run_[49999].time);
    const QPointF local(p->axisRect()->center());
    QEnterEvent enter(local, local, p->mapToGlobal(local));
    QCoreApplication::sendEvent(p, &enter);
    QVERIFY(d->hovered());
    QMouseEvent move(QEvent::MouseMove, local, p->mapToGlobal(local), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(p, &move);
    // Tracers sit on the stored sample under the mouse.
    const double t = p->xAxis->pixelToCoord(local.x());
    int visibleTracers = 0;
    for (int i = 0; i < p->itemCount(); ++i)
      if (auto* tr = qobject_cast<QCPItemTracer*>(p->item(i)); tr && tr->visible()) {
        ++visibleTracers;
        QVERIFY(qAbs(tr->position->key() - t) < 2e-3);
      }
    QCOMPARE(visibleTracers, 3);
    if (qEnvironmentVariableIsSet("PLOTS_KEEP_IMAGES")) d->grab().save(ms::ui::test::outputPath(QStringLiteral("tst_plots_hover.png")));
    appendRange(*pm_, run_, 50000, 60000, 500);
    pm_->refresh();
    QCOMPARE(p->xAxis->range(), frozen);
    // Other docks keep scrolling.
    QCOMPARE(plot(PlotManager::Figure::Solver)->xAxis->range().upper, run_[59999].time);
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(p, &leave);
    QVERIFY(!d->hovered());
    pm_->refresh();
    QCOMPARE(p->xAxis->range().upper, run_[59999].time);
  }

  // Hidden docks are skipped by refresh() and catch up when shown again.
  void hiddenDockSkipped() {
    reload();
    QDockWidget* d = pm_->dock(PlotManager::Figure::Penetration);
    QCustomPlot* p = qobject_cast<PlotDock*>(d)->plot();
    d->hide();
    pm_->rewind(40);
    pm_->refresh();
    QCOMPARE(p->xAxis->range().upper, run_.back().time);
    QCOMPARE(plot(PlotManager::Figure::Energy)->xAxis->range().upper, 40.0);
    d->show();
    QTest::qWait(20);
    pm_->refresh();
    QCOMPARE(p->xAxis->range().upper, 40.0);
  }

  // rewind drops later samples; clear empties everything.
  void rewindAndClear() {
    reload();
    pm_->rewind(50.0);
    QCOMPARE(pm_->sampleCount(), 50000L);
    pm_->refresh();
    QCOMPARE(plot(PlotManager::Figure::Energy)->xAxis->range().upper, 50.0);
    QString error;
    const QString path = tmp_.filePath(QStringLiteral("rewound.csv"));
    QVERIFY(pm_->exportCsv(path, &error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count('\n'), 50001);
    // Continuing after the rewind appends normally.
    appendRange(*pm_, run_, 50000, 50100, 50);
    QCOMPARE(pm_->sampleCount(), 50100L);
    pm_->clear();
    QCOMPARE(pm_->sampleCount(), 0L);
    pm_->refresh();
    for (QDockWidget* dw : pm_->docks())
      for (int g = 0; g < qobject_cast<PlotDock*>(dw)->plot()->graphCount(); ++g)
        QCOMPARE(qobject_cast<PlotDock*>(dw)->plot()->graph(g)->dataCount(), 0);
    QVERIFY(pm_->exportCsv(path, &error));  // header only
    f.close();
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count('\n'), 1);
  }

  // PNG and SVG exports produce real images; unknown suffixes are refused.
  void saveImages() {
    reload();
    PlotDock* d = dock(PlotManager::Figure::Energy);
    QString error;
    const QString png = tmp_.filePath(QStringLiteral("energy.png")), svg = tmp_.filePath(QStringLiteral("energy.svg"));
    QVERIFY2(d->saveImage(png, &error), qPrintable(error));
    QVERIFY2(d->saveImage(svg, &error), qPrintable(error));
    QImage img(png);
    QVERIFY(!img.isNull());
    QCOMPARE(img.width(), 2 * d->plot()->width());
    const QRgb bg = img.pixel(img.width() - 2, img.height() - 2);
    long differing = 0;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x) differing += img.pixel(x, y) != bg;
    QVERIFY2(differing > 2000, qPrintable(QString::number(differing)));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.size() > 2000);
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Energy"));
    // The SVG is valid and draws the figure.
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QImage fromSvg(renderer.defaultSize(), QImage::Format_ARGB32);
    fromSvg.fill(Qt::white);
    QPainter painter(&fromSvg);
    renderer.render(&painter);
    painter.end();
    long inked = 0;
    for (int y = 0; y < fromSvg.height(); ++y)
      for (int x = 0; x < fromSvg.width(); ++x) inked += fromSvg.pixel(x, y) != fromSvg.pixel(fromSvg.width() - 2, fromSvg.height() - 2);
    QVERIFY2(inked > 1000, qPrintable(QString::number(inked)));
    if (qEnvironmentVariableIsSet("PLOTS_KEEP_IMAGES")) {
      fromSvg.save(ms::ui::test::outputPath(QStringLiteral("tst_plots_svg_render.png")));
      QFile::remove(ms::ui::test::outputPath(QStringLiteral("tst_plots_energy.png")));
      QFile::copy(png, ms::ui::test::outputPath(QStringLiteral("tst_plots_energy.png")));
    }
    QVERIFY(!d->saveImage(tmp_.filePath(QStringLiteral("energy.bmp")), &error));
    QVERIFY(error.contains(QStringLiteral("bmp")));
    // A hidden dock still exports current data.
    QDockWidget* solver = pm_->dock(PlotManager::Figure::Solver);
    solver->hide();
    QVERIFY(qobject_cast<PlotDock*>(solver)->saveImage(tmp_.filePath(QStringLiteral("solver.png")), &error));
    QVERIFY(!QImage(tmp_.filePath(QStringLiteral("solver.png"))).isNull());
    solver->show();
  }

  void cleanupTestCase() {
    window_.reset();  // deletes the manager (child) and the docks
  }
};

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
