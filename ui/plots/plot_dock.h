// SPDX-License-Identifier: GPL-3.0-or-later
// One live figure: a QDockWidget holding a QCustomPlot that shows some columns of the shared
// SampleStore over a scrolling time window. The display is decimated to min/max pairs per
// horizontal pixel (spikes stay visible); autoscale or mouse zoom/drag of the value axis; log
// scale toggle; pause-on-hover with a value tracer and tooltip; a context menu with log scale,
// autoscale, time window, CSV export (every series, like PlotManager::exportCsv) and PNG/SVG
// images. Non-interactive saveImage()/exportCsv() exist for tests and scripts.
#pragma once

#include <QColor>
#include <QDockWidget>
#include <QVector>
#include <QList>
#include <QPoint>
#include <QString>
#include <QtGlobal>
#include <vector>

#include "plots/plot_manager.h"
#include "plots/sample_store.h"

class QAction;
class QCPAxis;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemTracer;
class QCPRange;
class QCPTextElement;
class QCPLayoutGrid;
class QCPMarginGroup;
class QCPGraphData;
class QCustomPlot;

namespace ms::ui {

class PlotDock : public QDockWidget {
  Q_OBJECT
 public:
  PlotDock(PlotManager::Figure figure, const SampleStore* store, QWidget* parent = nullptr);
  ~PlotDock() override;

  PlotManager::Figure figure() const { return figure_; }
  QCustomPlot* plot() const { return plot_; }

  // Log scale of the figure's main value axis (the residual axis for Solver); logAxis() is it.
  void setLogScale(bool on);
  bool logScale() const { return log_; }
  QCPAxis* logAxis() const;
  // Autoscale of the value axes to the visible data; when off, the mouse drags/zooms them.
  void setAutoscale(bool on);
  bool autoscale() const { return autoscale_; }

  // Rebuilds the displayed data from the store for the given window (seconds, 0: all) when the
  // data, the window, the width or a setting changed (always when `force`), then queues a
  // repaint. While the mouse is over the plot the x range stays frozen and appends are not
  // shown (a rewind or clear still is). Returns whether it replotted.
  bool refresh(double timeWindow, bool force = false);
  // Whether the mouse is over the plot (scrolling paused).
  bool hovered() const { return hovered_; }

  // Comparison: one curve per copy and quantity, in the copy's colour (quantities told apart by
  // dash pattern), named by the copy's label in the legend (with its note, e.g. "stopped at
  // t = 1.2 s"). copies[0] is the reference, drawn from this dock's own store (its `store` is
  // ignored). Fewer than two copies: back to the normal figure.
  struct CompareCurve {
    const SampleStore* store = nullptr;
    QString label;
    QColor color;
    QString note;
  };
  void setComparison(const std::vector<CompareCurve>& copies);
  int comparisonCopies() const { return int(compare_.size()); }

  // Signals figure: adds a curve of a signal column (SampleStore::signalField) named by the signal,
  // with its SI unit; `angular` values (rad, rad/s) are shown in degrees after setAngleDegrees(true).
  void addSignal(SampleStore::Field column, const QString& name, const QString& unit, bool angular);
  QStringList signalNames() const;
  std::vector<SampleStore::Field> signalColumns() const;
  // Moves a signal's curve to another column (the watch list changed) or removes it.
  void setSignalColumn(const QString& name, SampleStore::Field column);
  void removeSignal(const QString& name);
  void setAngleDegrees(bool on);
  bool angleDegrees() const { return degrees_; }

  // Saves the figure as PNG (2× resolution) or SVG, chosen by the suffix; atomically.
  bool saveImage(const QString& path, QString* error);
  // Writes every stored sample (all series) as CSV; same format as PlotManager::exportCsv.
  bool exportCsv(const QString& path, QString* error) const;

 Q_SIGNALS:
  // The user picked a time window in the context menu (applies to every dock).
  void timeWindowRequested(double seconds);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // One plotted column.
  struct Series {
    SampleStore::Field field;
    QString name, unit;
    QCPGraph* graph = nullptr;
    QCPItemTracer* tracer = nullptr;
    QColor color;  // its own colour outside comparisons
    QString label;         // legend entry (a signal's name without the prefix all curves share)
    bool angular = false;  // a signal in rad or rad/s
    double scale = 1.0;    // display factor (180/π for angles in degrees)
  };
  // A value axis and how it is scaled.
  struct ValueAxis {
    QCPAxis* axis = nullptr;
    bool includeZero = false;  // linear autoscale starts at zero (counts, durations, depths)
  };

  void setUpFigure();
  QString displayUnit(const QString& unit, bool angular) const;
  void updateSignalLabels();
  void ensureLegendRow();
  void applyComparisonStyle();
  void layoutLegend();
  quint64 dataRevision() const;
  quint64 dataResetRevision() const;
  // Min/max-per-pixel points of some fields of one store over the x range.
  void decimate(const SampleStore& store, const std::vector<SampleStore::Field>& fields, const QCPRange& xr,
                int buckets, std::vector<QVector<QCPGraphData>*>& out);
  void addSeries(SampleStore::Field field, const QString& name, const QString& unit, const QColor& color,
                 QCPAxis* valueAxis);
  void applyStyle();
  void applyScaleType(QCPAxis* axis, bool log);
  void applyInteractions();
  void updateLogLabels(QCPAxis* axis);
  void rebuild(bool keepX);
  void autoscaleAxis(const ValueAxis& va, double xLower, double xUpper);
  int bucketCount() const;
  void updateTracers(const QPoint& pos);
  void hideTracers();
  void showContextMenu(const QPoint& pos);
  void chooseAndSave(const QString& suffix);
  void chooseAndExportCsv();
  QSize exportSize() const;

  PlotManager::Figure figure_;
  const SampleStore* store_;
  QCustomPlot* plot_ = nullptr;
  std::vector<Series> series_;
  std::vector<ValueAxis> valueAxes_;
  QCPAxis* logAxis_ = nullptr;
  QCPItemStraightLine* cursor_ = nullptr;
  QAction* logAction_ = nullptr;
  QAction* autoscaleAction_ = nullptr;
  bool log_ = false;
  bool degrees_ = false;
  bool autoscale_ = true;
  bool hovered_ = false;
  bool settingsDirty_ = true;
  bool rescaleOnce_ = true;  // autoscale once even when autoscale is off (after a log toggle)
  double window_ = 10;
  // What the plot currently shows (to skip identical rebuilds).
  quint64 shownRevision_ = ~quint64(0);
  quint64 shownResetRevision_ = ~quint64(0);
  double shownWindow_ = -1;
  int shownBuckets_ = -1;
  std::vector<std::size_t> bounds_;  // scratch: bucket index boundaries
  // Comparison: the copies and, for copies 1…n, one graph per series (in series order).
  std::vector<CompareCurve> compare_;
  std::vector<std::vector<QCPGraph*>> compareGraphs_;
  bool legendRow_ = false;
  double flatRelative_ = 1e-12;  // relative span below which a linear axis shows the data flat
  QCPTextElement* styleNote_ = nullptr;
  QCPLayoutGrid* legendGrid_ = nullptr;
  QCPMarginGroup* marginGroup_ = nullptr;
};

}  // namespace ms::ui
