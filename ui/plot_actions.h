// SPDX-License-Identifier: GPL-3.0-or-later
// Plots from the main window: the Plots menu (the figure docks, Plot Signals…, Phase Portrait…,
// angles in degrees, CSV export), signal plots and phase portraits by signal names or globs
// (docs/signals.md), and the Plot ▸ menus of a body in the 3D view and of the model tree.
#pragma once

#include <QObject>
#include <QStringList>
#include <memory>

class QMenu;

namespace ms::ui {

class MainWindow;
class PhaseDock;
class PlotDock;

class PlotActions : public QObject {
  Q_OBJECT
 public:
  // Connects to the window's model tree and 3D view (after MainWindow::buildDocks).
  explicit PlotActions(MainWindow& window);

  // Plots the loaded model's signals matching the names or globs (docs/signals.md) in a new signal
  // plot, or adds them to `into`; a phase portrait of the first signal matching y against the first
  // matching x. Null with *error when nothing matches or no model is loaded.
  PlotDock* plotSignals(const QStringList& patterns, QString* error = nullptr, PlotDock* into = nullptr);
  PhaseDock* plotPhasePortrait(const QStringList& x, const QStringList& y, QString* error = nullptr);
  // The 3D view's context menu of a body: Plot <body> ▸ …, Plot joint <joint> ▸ … (null: no body).
  std::unique_ptr<QMenu> bodyPlotMenu(int body);
  // The Plots menu.
  QMenu* menu() const { return menu_; }

 private:
  void buildMenu();
  void plotOrWarn(const QStringList& patterns);
  void phaseOrWarn(const QStringList& x, const QStringList& y);

  MainWindow& w_;
  QMenu* menu_ = nullptr;
};

}  // namespace ms::ui
