// SPDX-License-Identifier: GPL-3.0-or-later
// writePlotImage (plot_image.h).
#include "plots/plot_image.h"

#include <QFileInfo>
#include <QObject>
#include <QSaveFile>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace ms::ui {

namespace {

// PNG at twice the size.
bool writePng(QCustomPlot* plot, const QString& path, const QSize& size, QString* error) {
  const QPixmap pixmap = plot->toPixmap(size.width(), size.height(), 2.0);
  QSaveFile file(path);
  if (pixmap.isNull() || !file.open(QIODevice::WriteOnly) || !pixmap.save(&file, "PNG") || !file.commit()) {
    if (error)
      *error = QObject::tr("cannot write %1: %2").arg(path, pixmap.isNull() ? QObject::tr("rendering failed") : file.errorString());
    return false;
  }
  return true;
}

// SVG through QSvgGenerator and QCustomPlot's vector painter.
bool writeSvg(QCustomPlot* plot, const QString& path, const QSize& size, const QString& title, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  QSvgGenerator generator;
  generator.setOutputDevice(&file);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(title);
  generator.setDescription(QObject::tr("MechStudio plot"));
  QCPPainter painter;
  if (!painter.begin(&generator)) {
    if (error) *error = QObject::tr("cannot start the SVG painter");
    file.cancelWriting();
    return false;
  }
  painter.setMode(QCPPainter::pmVectorized);
  plot->toPainter(&painter, size.width(), size.height());
  painter.end();
  if (!file.commit()) {
    if (error) *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace

bool writePlotImage(QCustomPlot* plot, const QString& path, const QSize& size, const QString& title, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return writePng(plot, path, size, error);
  if (suffix == QLatin1String("svg")) return writeSvg(plot, path, size, title, error);
  if (error) *error = QObject::tr("unsupported image type \"%1\" (use .png or .svg)").arg(suffix);
  return false;
}

}  // namespace ms::ui
