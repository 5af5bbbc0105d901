// SPDX-License-Identifier: GPL-3.0-or-later
// The Plots menu, signal plots and a body's Plot ▸ menu (see plot_actions.h).
#include "plot_actions.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <algorithm>

#include "editor/model_tree.h"
#include "joint_panel.h"
#include "main_window.h"
#include "plots/phase_dock.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "signal_picker.h"
#include "signals/signals.h"
#include "system/compiled_system.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

PlotActions::PlotActions(MainWindow& window) : QObject(&window), w_(window) {
  buildMenu();
  // Plot ▸ … from a body's or joint's context menu in the tree.
  connect(w_.modelTree(), &ModelTreePanel::plotRequested, this, [this](const QStringList& patterns) { plotOrWarn(patterns); });
  connect(w_.modelTree(), &ModelTreePanel::phasePortraitRequested, this,
          [this](const QStringList& x, const QStringList& y) { phaseOrWarn(x, y); });
}

void PlotActions::plotOrWarn(const QStringList& patterns) {
  QString why;
  if (!plotSignals(patterns, &why)) QMessageBox::warning(&w_, "Plot", why);
}

void PlotActions::phaseOrWarn(const QStringList& x, const QStringList& y) {
  QString why;
  if (!plotPhasePortrait(x, y, &why)) QMessageBox::warning(&w_, "Phase portrait", why);
}

void PlotActions::buildMenu() {
  menu_ = new QMenu("&Plots", &w_);
  for (QDockWidget* d : w_.plots()->docks()) menu_->addAction(d->toggleViewAction());
  menu_->addSeparator();
  // Signals: the picker (several signals into a new or an existing plot), a phase portrait, units.
  QAction* plotSignalsAct = menu_->addAction("Plot &Signals…");
  plotSignalsAct->setObjectName("plot-signals-action");
  plotSignalsAct->setShortcut(QKeySequence("Ctrl+Shift+P"));
  connect(plotSignalsAct, &QAction::triggered, this, [this] {
    const SignalCatalogue* cat = w_.plots()->signalCatalogue();
    if (!cat) return;
    const QList<PlotDock*> existing = w_.plots()->signalDocks();
    QStringList titles;
    for (PlotDock* d : existing) titles << d->windowTitle();
    SignalPicker picker(*cat, SignalPicker::Mode::Plot, titles, &w_);
    if (picker.exec() != QDialog::Accepted) return;
    const int t = picker.target();
    w_.plots()->addSignalPlot(picker.chosen(), t >= 0 && t < existing.size() ? existing[t] : nullptr);
  });
  QAction* phaseAct = menu_->addAction("&Phase Portrait…");
  phaseAct->setObjectName("phase-portrait-action");
  connect(phaseAct, &QAction::triggered, this, [this] {
    const SignalCatalogue* cat = w_.plots()->signalCatalogue();
    if (!cat) return;
    SignalPicker picker(*cat, SignalPicker::Mode::Phase, {}, &w_);
    if (picker.exec() != QDialog::Accepted || picker.chosen().size() != 2) return;
    w_.plots()->addPhasePortrait(picker.chosen()[0], picker.chosen()[1]);
  });
  // Angles in degrees or radians, everywhere (signal plots, phase portraits, Joints dock, the
  // readout of a handle drag in the 3D view); kept.
  QAction* degreesAct = menu_->addAction("Angles in &Degrees");
  degreesAct->setObjectName("angles-degrees-action");
  degreesAct->setCheckable(true);
  connect(degreesAct, &QAction::toggled, this, [this](bool on) {
    w_.plots()->setAngleDegrees(on);
    w_.jointPanel()->setAngleDegrees(on);
    w_.viewport()->setAngleDegrees(on);
    QSettings().setValue("view/anglesInDegrees", on);
    w_.invalidateShown();  // the Joints dock shows the values again at the next tick
  });
  degreesAct->setChecked(QSettings().value("view/anglesInDegrees", false).toBool());
  menu_->addSeparator();
  QAction* exportAll = menu_->addAction("Export all data as CSV…");
  connect(exportAll, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(&w_, "Export plot data", "mechstudio-run.csv", "CSV (*.csv)");
    if (path.isEmpty()) return;
    QString err;
    if (!w_.plots()->exportCsv(path, &err)) QMessageBox::warning(&w_, "Export failed", err);
  });
}

PlotDock* PlotActions::plotSignals(const QStringList& patterns, QString* error, PlotDock* into) {
  const SignalCatalogue* cat = w_.plots()->signalCatalogue();
  if (!cat) {
    if (error) *error = "no model is open";
    return nullptr;
  }
  std::vector<int> chosen;
  for (const QString& p : patterns)
    for (int i : cat->match(p.toStdString()))
      if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  if (chosen.empty()) {
    if (error) *error = QString("no signal matches %1").arg(patterns.join(", "));
    return nullptr;
  }
  return w_.plots()->addSignalPlot(chosen, into);
}

PhaseDock* PlotActions::plotPhasePortrait(const QStringList& x, const QStringList& y, QString* error) {
  const SignalCatalogue* cat = w_.plots()->signalCatalogue();
  if (!cat) {
    if (error) *error = "no model is open";
    return nullptr;
  }
  // The first signal matching any of the patterns, in their order.
  const auto first = [cat](const QStringList& patterns) {
    for (const QString& p : patterns)
      if (const std::vector<int> m = cat->match(p.toStdString()); !m.empty()) return m.front();
    return -1;
  };
  const int xi = first(x), yi = first(y);
  if (xi < 0 || yi < 0) {
    if (error) *error = QString("no signal matches %1").arg((xi < 0 ? x : y).join(", "));
    return nullptr;
  }
  return w_.plots()->addPhasePortrait(xi, yi);
}
std::unique_ptr<QMenu> PlotActions::bodyPlotMenu(int body) {
  if (!w_.loadedSystem() || body < 0 || body >= int(w_.loadedSystem()->bodies.size())) return nullptr;
  auto menu = std::make_unique<QMenu>(&w_);
  const ModelTreePanel::PlotFn plot = [this](const QStringList& p) { plotOrWarn(p); };
  const ModelTreePanel::PhaseFn phase = [this](const QStringList& x, const QStringList& y) { phaseOrWarn(x, y); };
  const QString name = QString::fromStdString(w_.loadedSystem()->bodies[size_t(body)].name);
  ModelTreePanel::fillPlotMenu(menu->addMenu("Plot " + name), true, name, plot, phase);
  // The joints that hold this body (its joint to the parent and loop joints ending on it).
  for (const CompiledJoint& j : w_.loadedSystem()->joints)
    if (j.geo.child == body) {
      const QString jn = QString::fromStdString(j.name);
      ModelTreePanel::fillPlotMenu(menu->addMenu("Plot joint " + jn), false, jn, plot, phase);
    }
  return menu;
}

}  // namespace ms::ui
