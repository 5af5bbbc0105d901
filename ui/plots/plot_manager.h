// SPDX-License-Identifier: GPL-3.0-or-later
// The live plots: one QDockWidget per figure (energy, relative energy error, constraint violation,
// penetration, solver iterations and residual, step time), each a QCustomPlot fed with every
// step's sample. All samples are kept for export; the display is decimated to the pixel width.
#pragma once

#include <QColor>
#include <QList>
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "signals/signals.h"
#include "sim/sim_types.h"

class QDockWidget;
class QMainWindow;

namespace ms::ui {

class PlotDock;
class PhaseDock;

class PlotManager : public QObject {
  Q_OBJECT
 public:
  // The fixed figures, then Signals: a dock of chosen signals (addSignalPlot), any number of them.
  enum class Figure { Energy, EnergyError, Violation, Penetration, Solver, StepTime, Momentum, Signals };
  static constexpr int kFigureCount = 7;  // the fixed ones

  // Creates the docks (object names "plot-energy", "plot-energy-error", "plot-violation",
  // "plot-penetration", "plot-solver", "plot-step-time", "plot-momentum") and adds them to `window`.
  explicit PlotManager(QMainWindow* window);
  ~PlotManager() override;

  QList<QDockWidget*> docks() const;
  QDockWidget* dock(Figure figure) const;

  // New samples from the simulation thread (every step since the last call), in step order.
  void append(const std::vector<StepSample>& samples);
  // The simulation went back to `time` (history seek / step back): drop samples after it.
  void rewind(double time);
  // A new model or a reset: drop everything.
  void clear();
  // Visible time window in seconds (0: everything). Default 10 s.
  void setTimeWindow(double seconds);
  double timeWindow() const;
  // Redraws the visible docks if data changed.
  void refresh();
  // The GUI timer's share (call every tick, ~60 Hz): half of the visible docks in turn, so each one
  // redraws at ~30 Hz and no tick pays for all of them.
  void refreshHalf();

  // Comparison: the copies' labels, colours and notes ("stopped at t = 1.2 s"), the reference
  // first. Every figure then overlays one curve per copy and quantity; samples with copy k go to
  // copy k's store. Fewer than two: the normal figures (the copies' samples are dropped).
  struct CopyLegend {
    QString label;
    QColor color;
    QString note;
  };
  void setCopies(const std::vector<CopyLegend>& copies);
  int copyCount() const;
  // Samples received for copy k (0: the reference, = sampleCount()).
  long copySampleCount(int copy) const;

  // ---- signals (issue 15) ----
  // The loaded system's signal catalogue (null: none). Signal plots and phase portraits keep the
  // signals whose names the new catalogue has (a model applied from the editor keeps its plots;
  // the others are dropped); the watch list follows and is announced by watchedSignalsChanged.
  void setSignalCatalogue(std::shared_ptr<const SignalCatalogue> catalogue);
  const SignalCatalogue* signalCatalogue() const;
  // Plots catalogue signals: in a new dock ("plot-signals-N", tabbed with the energy plot, shown)
  // or added to `into`. Returns the dock (null without a catalogue or signals).
  PlotDock* addSignalPlot(const std::vector<int>& signalIndices, PlotDock* into = nullptr);
  // A phase portrait of signal y against signal x ("plot-phase-N").
  PhaseDock* addPhasePortrait(int xSignal, int ySignal);
  QList<PlotDock*> signalDocks() const;
  QList<PhaseDock*> phaseDocks() const;
  // Angles and angular rates of signal plots and phase portraits in degrees (default radians).
  void setAngleDegrees(bool on);
  bool angleDegrees() const;
  // The watched catalogue indices, in the order of StepSample::signalValues.
  const std::vector<int>& watchedSignals() const;

  // Samples received since the last clear() (for tests: one per step).
  long sampleCount() const;
  // Writes every stored sample, all series, as CSV (atomically). Returns false with a reason. In a
  // comparison the reference's go to `path` and copy k's to copyCsvPath(path, k).
  bool exportCsv(const QString& path, QString* error) const;
  // "run.csv" → "run-2-RK4.csv" (copy k ≥ 1; its label with characters unsafe in file names as '_').
  QString copyCsvPath(const QString& path, int copy) const;

 Q_SIGNALS:
  // The signals the simulation must evaluate with every sample changed (SimController::watchSignals).
  void watchedSignalsChanged(std::shared_ptr<const ms::SignalCatalogue> catalogue, std::vector<int> indices);

 private:
  int watch(int signalIndex);
  void announceWatched();
  struct Impl;
  Impl* d_;
};

}  // namespace ms::ui
