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
#include <memory>

#include "plots/plot_dock.h"
#include "plots/sample_store.h"

namespace ms::ui {

struct PlotManager::Impl {
  QMainWindow* window = nullptr;
  SampleStore store;
  std::array<QPointer<PlotDock>, PlotManager::kFigureCount> docks;
  double timeWindow = 10;
  // Comparison: copies 1…n (index k-1) and their legends.
  std::vector<std::unique_ptr<SampleStore>> copyStores;
  std::vector<CopyLegend> legends;
  std::vector<std::vector<StepSample>> scratch;
  int half = 0;  // refreshHalf(): which half of the docks is next
};

PlotManager::PlotManager(QMainWindow* window) : QObject(window), d_(new Impl) {
  d_->window = window;
  // One dock per figure, in Figure order.
  for (int i = 0; i < kFigureCount; ++i) {
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
  window->tabifyDockWidget(dk(Figure::Penetration), dk(Figure::Momentum));
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

void PlotManager::append(const std::vector<StepSample>& samples) {
  // Fast path: no comparison (every sample is the reference's).
  if (d_->copyStores.empty()) {
    bool plain = true;
    for (const StepSample& s : samples) plain = plain && s.copy == 0;
    if (plain) {
      d_->store.append(samples);
      return;
    }
  }
  d_->scratch.resize(d_->copyStores.size() + 1);
  for (auto& v : d_->scratch) v.clear();
  for (const StepSample& s : samples)
    if (s.copy >= 0 && std::size_t(s.copy) < d_->scratch.size()) d_->scratch[std::size_t(s.copy)].push_back(s);
  if (!d_->scratch[0].empty()) d_->store.append(d_->scratch[0]);
  for (std::size_t k = 1; k < d_->scratch.size(); ++k)
    if (!d_->scratch[k].empty()) d_->copyStores[k - 1]->append(d_->scratch[k]);
}

void PlotManager::rewind(double time) {
  d_->store.rewind(time);
  for (auto& st : d_->copyStores) st->rewind(time);
}

void PlotManager::clear() {
  d_->store.clear();
  for (auto& st : d_->copyStores) st->clear();
}

void PlotManager::setCopies(const std::vector<CopyLegend>& copies) {
  const std::size_t others = copies.size() >= 2 ? copies.size() - 1 : 0;
  if (others != d_->copyStores.size()) {
    // The docks drop their graphs of the old stores before the stores go.
    for (const auto& dock : d_->docks)
      if (dock) dock->setComparison({});
    d_->copyStores.resize(others);
    for (auto& st : d_->copyStores)
      if (!st) st = std::make_unique<SampleStore>();
  }
  d_->legends = copies;
  std::vector<PlotDock::CompareCurve> curves;
  if (others > 0)
    for (std::size_t k = 0; k < copies.size(); ++k)
      curves.push_back({k == 0 ? &d_->store : d_->copyStores[k - 1].get(), copies[k].label, copies[k].color, copies[k].note});
  for (const auto& dock : d_->docks)
    if (dock) dock->setComparison(curves);
}

int PlotManager::copyCount() const { return d_->copyStores.empty() ? 0 : int(d_->copyStores.size()) + 1; }

long PlotManager::copySampleCount(int copy) const {
  if (copy == 0) return d_->store.receivedCount();
  if (copy < 1 || std::size_t(copy) > d_->copyStores.size()) return 0;
  return d_->copyStores[std::size_t(copy) - 1]->receivedCount();
}

void PlotManager::setTimeWindow(double seconds) { d_->timeWindow = seconds > 0 ? seconds : 0; }

double PlotManager::timeWindow() const { return d_->timeWindow; }

// Redraws the docks that are visible (hidden or tabbed-away docks catch up when shown).
void PlotManager::refresh() {
  for (const auto& dock : d_->docks)
    if (dock && dock->isVisible()) dock->refresh(d_->timeWindow);
}

// Even-numbered visible docks on one call, odd-numbered ones on the next.
void PlotManager::refreshHalf() {
  int visible = 0;
  for (const auto& dock : d_->docks)
    if (dock && dock->isVisible() && visible++ % 2 == d_->half) dock->refresh(d_->timeWindow);
  d_->half = 1 - d_->half;
}

long PlotManager::sampleCount() const { return d_->store.receivedCount(); }

bool PlotManager::exportCsv(const QString& path, QString* error) const {
  if (!d_->store.writeCsv(path, error)) return false;
  for (std::size_t k = 1; k <= d_->copyStores.size(); ++k)
    if (!d_->copyStores[k - 1]->writeCsv(copyCsvPath(path, int(k)), error)) return false;
  return true;
}

QString PlotManager::copyCsvPath(const QString& path, int copy) const {
  QString label = copy >= 0 && std::size_t(copy) < d_->legends.size() ? d_->legends[std::size_t(copy)].label : QString();
  for (QChar& c : label)
    if (!(c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('.'))) c = QLatin1Char('_');
  const int dot = path.lastIndexOf(QLatin1Char('.'));
  const int slash = path.lastIndexOf(QLatin1Char('/'));
  const QString base = dot > slash ? path.left(dot) : path, suffix = dot > slash ? path.mid(dot) : QStringLiteral(".csv");
  return QStringLiteral("%1-%2-%3%4").arg(base).arg(copy).arg(label, suffix);
}

}  // namespace ms::ui
