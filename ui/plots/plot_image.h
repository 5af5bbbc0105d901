// SPDX-License-Identifier: GPL-3.0-or-later
// Saving a QCustomPlot as an image, shared by the plot docks: PNG at twice the given size or SVG
// through QCustomPlot's vector painter, chosen by the suffix, written atomically (QSaveFile).
#pragma once

#include <QSize>
#include <QString>

class QCustomPlot;

namespace ms::ui {

// Returns false with a reason (unsupported suffix, rendering or writing failed).
bool writePlotImage(QCustomPlot* plot, const QString& path, const QSize& size, const QString& title, QString* error);

}  // namespace ms::ui
