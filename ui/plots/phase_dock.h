// SPDX-License-Identifier: GPL-3.0-or-later
// A phase portrait: one signal against another (e.g. a joint angle against its rate), one curve
// per copy of a comparison, over the plots' time window. A variational integrator's pendulum draws
// a closed orbit, an explicit method's a spiral (lesson 2). Long histories are thinned to at most
// kMaxPoints points per curve (evenly in sample index); PNG/SVG export from the context menu.
#pragma once

#include <QColor>
#include <QDockWidget>
#include <QString>
#include <vector>

#include "plots/sample_store.h"

class QCustomPlot;
class QCPCurve;

namespace ms::ui {

class PhaseDock : public QDockWidget {
  Q_OBJECT
 public:
  struct Axis {
    SampleStore::Field column;  // a signal column
    QString name, unit;         // unit in SI ("rad/s")
    bool angular = false;
  };
  struct Copy {
    const SampleStore* store = nullptr;
    QString label;
    QColor color;
  };
  static constexpr int kMaxPoints = 4000;

  PhaseDock(const Axis& x, const Axis& y, QWidget* parent = nullptr);

  const Axis& xAxis() const { return x_; }
  const Axis& yAxis() const { return y_; }
  // The watch list changed: the axes' signal columns.
  void setColumns(SampleStore::Field x, SampleStore::Field y) {
    x_.column = x;
    y_.column = y;
    dirty_ = true;
  }
  // The stores drawn: the reference first, then a comparison's copies.
  void setCopies(const std::vector<Copy>& copies);
  int curveCount() const { return int(curves_.size()); }
  // Points drawn for copy k at the last refresh.
  int pointCount(int copy) const;
  void setAngleDegrees(bool on);
  // Redraws when the data, window or settings changed (always when `force`).
  bool refresh(double timeWindow, bool force = false);
  QCustomPlot* plot() const { return plot_; }
  bool saveImage(const QString& path, QString* error);

 private:
  void updateLabels();
  void showContextMenu(const QPoint& pos);
  Axis x_, y_;
  QCustomPlot* plot_ = nullptr;
  std::vector<Copy> copies_;
  std::vector<QCPCurve*> curves_;
  bool degrees_ = false;
  bool dirty_ = true;
  double shownWindow_ = -1;
  std::vector<quint64> shownRevision_;
};

}  // namespace ms::ui
