// SPDX-License-Identifier: GPL-3.0-or-later
// PlotManager: owns the sample store, creates and lays out the six plot docks, and forwards
// appends/rewinds/refreshes to them. append() only stores; refresh() redraws visible docks.
//
// sampleCount() is SampleStore::receivedCount(): samples appended since clear(), minus rewound
// ones; samples dropped by the store's 2-million cap are still counted. exportCsv() writes the
// stored ones (the newest 2 million at most).
#include "plots/plot_manager.h"

#include <QMainWindow>
#include <QPointer>
#include <array>

#include "plots/plot_dock.h"
#include "plots/sample_store.h"

namespace ms::ui {

struct PlotManager::Impl {
  QMainWindow* window = nullptr;
  SampleStore store;
  std::array<QPointer<PlotDock>, 6> docks;
  double timeWindow = 10;
};

PlotManager::PlotManager(QMainWindow* window) : QObject(window), d_(new Impl) {
  d_->window = window;
  // One dock per figure, in Figure order.
  for (int i = 0; i < 6; ++i) {
    auto* dock = new PlotDock(static_cast<Figure>(i), &d_->store, window);
    d_->docks[static_cast<std::size_t>(i)] = dock;
    connect(dock, &PlotDock::timeWindowRequested, this, [this](double s) {
      setTimeWindow(s);
      refresh();
    });
  }
  // Layout: one column on the right, so the 3D view keeps the window's full height: energy, energy
  // error, then violation / solver / step time / penetration as tabs (F-keys raise each).
  auto dk = [this](Figure f) { return d_->docks[static_cast<std::size_t>(f)].data(); };
  window->addDockWidget(Qt::RightDockWidgetArea, dk(Figure::Energy));
  window->splitDockWidget(dk(Figure::Energy), dk(Figure::EnergyError), Qt::Vertical);
  window->splitDockWidget(dk(Figure::EnergyError), dk(Figure::Violation), Qt::Vertical);
  window->tabifyDockWidget(dk(Figure::Violation), dk(Figure::Solver));
  window->tabifyDockWidget(dk(Figure::Solver), dk(Figure::StepTime));
  window->tabifyDockWidget(dk(Figure::StepTime), dk(Figure::Penetration));
  dk(Figure::Violation)->raise();
  // Default width (a saved window state replaces it): a readable column.
  window->resizeDocks({dk(Figure::Energy)}, {440}, Qt::Horizontal);
}

// The docks hold a pointer to the store: remove them with it (unless the window already did).
PlotManager::~PlotManager() {
  for (auto& dock : d_->docks) delete dock.data();
  delete d_;
}

QList<QDockWidget*> PlotManager::docks() const {
  QList<QDockWidget*> list;
  for (const auto& dock : d_->docks) list << dock.data();
  return list;
}

QDockWidget* PlotManager::dock(Figure figure) const { return d_->docks[static_cast<std::size_t>(figure)].data(); }

void PlotManager::append(const std::vector<StepSample>& samples) { d_->store.append(samples); }

void PlotManager::rewind(double time) { d_->store.rewind(time); }

void PlotManager::clear() { d_->store.clear(); }

void PlotManager::setTimeWindow(double seconds) { d_->timeWindow = seconds > 0 ? seconds : 0; }

double PlotManager::timeWindow() const { return d_->timeWindow; }

// Redraws the docks that are visible (hidden or tabbed-away docks catch up when shown).
void PlotManager::refresh() {
  for (const auto& dock : d_->docks)
    if (dock && dock->isVisible()) dock->refresh(d_->timeWindow);
}

long PlotManager::sampleCount() const { return d_->store.receivedCount(); }

bool PlotManager::exportCsv(const QString& path, QString* error) const { return d_->store.writeCsv(path, error); }

}  // namespace ms::ui
