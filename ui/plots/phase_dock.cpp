// SPDX-License-Identifier: GPL-3.0-or-later
// PhaseDock (phase_dock.h): QCPCurve per copy, rebuilt from the stores' signal columns over the
// time window, thinned evenly to kMaxPoints.
#include "plots/phase_dock.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "plots/plot_image.h"

namespace ms::ui {

PhaseDock::PhaseDock(const Axis& x, const Axis& y, QWidget* parent) : QDockWidget(parent), x_(x), y_(y) {
  plot_ = new QCustomPlot(this);
  plot_->setMinimumSize(220, 180);
  plot_->setContextMenuPolicy(Qt::CustomContextMenu);
  plot_->setNoAntialiasingOnDrag(true);
  plot_->axisRect()->setupFullAxesBox(false);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  connect(plot_, &QWidget::customContextMenuRequested, this, &PhaseDock::showContextMenu);
  setWidget(plot_);
  const QPalette pal = palette();
  plot_->setBackground(pal.color(QPalette::Base));
  plot_->axisRect()->setBackground(pal.color(QPalette::Base));
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    a->setLabelColor(pal.color(QPalette::Text));
    a->setTickLabelColor(pal.color(QPalette::Text));
  }
  plot_->legend->setTextColor(pal.color(QPalette::Text));
  plot_->legend->setBrush(Qt::NoBrush);
  setCopies({{nullptr, tr("MechStudio"), QColor(31, 119, 180)}});
  updateLabels();
}

void PhaseDock::setCopies(const std::vector<Copy>& copies) {
  for (QCPCurve* c : curves_) plot_->removePlottable(c);
  curves_.clear();
  copies_ = copies;
  for (const Copy& c : copies_) {
    auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
    curve->setPen(QPen(c.color, 1));
    curve->setName(c.label);
    curves_.push_back(curve);
  }
  plot_->legend->setVisible(copies_.size() > 1);
  shownRevision_.assign(copies_.size(), ~quint64(0));
  dirty_ = true;
}

int PhaseDock::pointCount(int copy) const {
  if (copy < 0 || copy >= int(curves_.size())) return 0;
  return curves_[size_t(copy)]->data()->size();
}

void PhaseDock::setAngleDegrees(bool on) {
  if (degrees_ == on) return;
  degrees_ = on;
  updateLabels();
  dirty_ = true;
}

// Axis labels "name (unit)" with angles in the chosen unit; the title "y vs x".
void PhaseDock::updateLabels() {
  const auto label = [this](const Axis& a) {
    QString u = a.unit;
    if (a.angular && degrees_) u.replace(QStringLiteral("rad"), QStringLiteral("deg"));
    return QStringLiteral("%1 (%2)").arg(a.name, u);
  };
  plot_->xAxis->setLabel(label(x_));
  plot_->yAxis->setLabel(label(y_));
  setWindowTitle(tr("Phase portrait: %1 vs %2").arg(y_.name, x_.name));
}

bool PhaseDock::refresh(double timeWindow, bool force) {
  bool changed = force || dirty_ || timeWindow != shownWindow_;
  for (size_t k = 0; k < copies_.size() && !changed; ++k)
    changed = copies_[k].store && copies_[k].store->revision() != shownRevision_[k];
  if (!changed) return false;
  const double sx = x_.angular && degrees_ ? 180.0 / M_PI : 1.0, sy = y_.angular && degrees_ ? 180.0 / M_PI : 1.0;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (size_t k = 0; k < copies_.size(); ++k) {
    const SampleStore* st = copies_[k].store;
    QVector<QCPCurveData> pts;
    if (st && !st->empty()) {
      // The window: the newest `timeWindow` seconds (all with 0), thinned evenly.
      const double tEnd = st->time(st->size() - 1);
      const size_t i0 = timeWindow > 0 ? st->lowerBound(tEnd - timeWindow) : 0, n = st->size() - i0;
      const size_t stride = std::max<size_t>(1, (n + kMaxPoints - 1) / kMaxPoints);
      pts.reserve(int(n / stride + 2));
      for (size_t i = i0; i < st->size(); i += stride) {
        const double x = st->value(x_.column, i) * sx, y = st->value(y_.column, i) * sy;
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        pts.append(QCPCurveData(double(pts.size()), x, y));
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      }
      shownRevision_[k] = st->revision();
    }
    curves_[k]->data()->set(pts, true);
  }
  // Both axes fitted to the data with 5 % margins.
  const auto fit = [](QCPAxis* a, double lo, double hi) {
    if (!(lo <= hi)) return;
    const double span = hi - lo, pad = span > 0 ? 0.05 * span : std::max(1e-9, 0.05 * std::abs(lo));
    a->setRange(lo - pad, hi + pad);
  };
  fit(plot_->xAxis, x0, x1);
  fit(plot_->yAxis, y0, y1);
  shownWindow_ = timeWindow;
  dirty_ = false;
  plot_->replot(QCustomPlot::rpQueuedRefresh);
  return true;
}

bool PhaseDock::saveImage(const QString& path, QString* error) {
  refresh(shownWindow_ < 0 ? 0 : shownWindow_, true);
  const QSize size = plot_->width() >= 100 ? plot_->size() : QSize(600, 600);
  return writePlotImage(plot_, path, size, windowTitle(), error);
}

void PhaseDock::showContextMenu(const QPoint& pos) {
  QMenu menu(this);
  for (const char* suffix : {"png", "svg"})
    menu.addAction(tr("Save image as %1…").arg(QString(suffix).toUpper()), this, [this, s = QString(suffix)] {
      QString path = QFileDialog::getSaveFileName(this, tr("Save phase portrait"), QStringLiteral("phase.") + s,
                                                  s == QLatin1String("png") ? tr("PNG images (*.png)") : tr("SVG images (*.svg)"));
      if (path.isEmpty()) return;
      if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + s;
      QString error;
      if (!saveImage(path, &error)) QMessageBox::warning(this, tr("Save image"), error);
    });
  menu.exec(plot_->mapToGlobal(pos));
}

}  // namespace ms::ui
