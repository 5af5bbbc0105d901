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

#include "plots/phase_dock.h"
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
  // Signals: the catalogue, the watched catalogue indices (column k of the stores is watched[k]),
  // the signal plots and phase portraits, the angle unit, and a counter for dock names.
  std::shared_ptr<const SignalCatalogue> catalogue;
  std::vector<int> watched;
  std::vector<QPointer<PlotDock>> signalDocks;
  std::vector<QPointer<PhaseDock>> phaseDocks;
  bool degrees = false;
  int created = 0;
  // Compacts the lists (docks closed and deleted by the user).
  void prune() {
    signalDocks.erase(std::remove(signalDocks.begin(), signalDocks.end(), nullptr), signalDocks.end());
    phaseDocks.erase(std::remove(phaseDocks.begin(), phaseDocks.end(), nullptr), phaseDocks.end());
  }
};

namespace {
bool isAngular(SignalUnit u) { return u == SignalUnit::Radian || u == SignalUnit::RadianPerSecond; }
}  // namespace

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
  for (auto& dock : d_->signalDocks) delete dock.data();
  for (auto& dock : d_->phaseDocks) delete dock.data();
  delete d_;
}

// ---- signals ---------------------------------------------------------------------------------

const SignalCatalogue* PlotManager::signalCatalogue() const { return d_->catalogue.get(); }

const std::vector<int>& PlotManager::watchedSignals() const { return d_->watched; }

// Column of a signal in the stores, watching it from now on if needed.
int PlotManager::watch(int signalIndex) {
  const auto it = std::find(d_->watched.begin(), d_->watched.end(), signalIndex);
  if (it != d_->watched.end()) return int(it - d_->watched.begin());
  d_->watched.push_back(signalIndex);
  return int(d_->watched.size()) - 1;
}

// The stores' CSV headers and the simulation's watch list after a change.
void PlotManager::announceWatched() {
  std::vector<QString> headers;
  for (int i : d_->watched) headers.push_back(QString::fromStdString(d_->catalogue->header(i, AngleUnit::Radians)));
  d_->store.setSignalHeaders(headers);
  for (auto& st : d_->copyStores) st->setSignalHeaders(headers);
  emit watchedSignalsChanged(d_->catalogue, d_->watched);
}

void PlotManager::setSignalCatalogue(std::shared_ptr<const SignalCatalogue> catalogue) {
  d_->prune();
  const std::shared_ptr<const SignalCatalogue> old = d_->catalogue;
  d_->catalogue = std::move(catalogue);
  // The watch list again, in its old order, with the names the new catalogue still has.
  std::vector<int> watched;
  std::vector<QString> names;
  if (old && d_->catalogue)
    for (int i : d_->watched) {
      const int j = d_->catalogue->find(old->info(i).name);
      if (j >= 0) watched.push_back(j);
    }
  d_->watched = watched;
  const auto column = [this](const QString& name) {
    const int j = d_->catalogue ? d_->catalogue->find(name.toStdString()) : -1;
    const auto it = std::find(d_->watched.begin(), d_->watched.end(), j);
    return j < 0 || it == d_->watched.end() ? -1 : int(it - d_->watched.begin());
  };
  for (auto& dock : d_->signalDocks)
    for (const QString& name : dock->signalNames()) {
      const int c = column(name);
      if (c < 0)
        dock->removeSignal(name);
      else
        dock->setSignalColumn(name, SampleStore::signalField(c));
    }
  for (auto& dock : d_->phaseDocks) {
    const int cx = column(dock->xAxis().name), cy = column(dock->yAxis().name);
    if (cx < 0 || cy < 0) {
      dock->close();
      dock->deleteLater();
    } else {
      dock->setColumns(SampleStore::signalField(cx), SampleStore::signalField(cy));
    }
  }
  d_->prune();
  if (d_->catalogue) announceWatched();
}

PlotDock* PlotManager::addSignalPlot(const std::vector<int>& signalIndices, PlotDock* into) {
  if (!d_->catalogue || signalIndices.empty()) return nullptr;
  d_->prune();
  // The same signals plotted again: the existing plot comes to the front.
  if (!into) {
    QStringList names;
    for (int i : signalIndices)
      if (i >= 0 && i < d_->catalogue->size()) names << QString::fromStdString(d_->catalogue->info(i).name);
    for (const auto& d : d_->signalDocks)
      if (d && d->signalNames() == names) {
        d->show();
        d->raise();
        return d.data();
      }
  }
  PlotDock* dock = into;
  if (!dock) {
    dock = new PlotDock(Figure::Signals, &d_->store, d_->window);
    dock->setObjectName(QStringLiteral("plot-signals-%1").arg(++d_->created));
    dock->setAttribute(Qt::WA_DeleteOnClose);
    connect(dock, &PlotDock::timeWindowRequested, this, [this](double s) {
      setTimeWindow(s);
      refresh();
    });
    d_->window->tabifyDockWidget(d_->docks[0].data(), dock);
    d_->signalDocks.push_back(dock);
    dock->setAngleDegrees(d_->degrees);
  }
  const std::size_t before = d_->watched.size();
  for (int i : signalIndices) {
    if (i < 0 || i >= d_->catalogue->size()) continue;
    const SignalInfo& info = d_->catalogue->info(i);
    const int column = watch(i);
    dock->addSignal(SampleStore::signalField(column), QString::fromStdString(info.name),
                    QString::fromUtf8(unitSymbol(info.unit, AngleUnit::Radians)), isAngular(info.unit));
  }
  if (d_->watched.size() != before) announceWatched();
  if (copyCount() > 0) setCopies(d_->legends);
  dock->show();
  dock->raise();
  dock->refresh(d_->timeWindow, true);
  return dock;
}

PhaseDock* PlotManager::addPhasePortrait(int xSignal, int ySignal) {
  if (!d_->catalogue || xSignal < 0 || ySignal < 0 || xSignal >= d_->catalogue->size() || ySignal >= d_->catalogue->size())
    return nullptr;
  d_->prune();
  for (const auto& d : d_->phaseDocks)
    if (d && d->xAxis().name.toStdString() == d_->catalogue->info(xSignal).name &&
        d->yAxis().name.toStdString() == d_->catalogue->info(ySignal).name) {
      d->show();
      d->raise();
      return d.data();
    }
  const std::size_t before = d_->watched.size();
  const auto axis = [this](int i) {
    const SignalInfo& info = d_->catalogue->info(i);
    return PhaseDock::Axis{SampleStore::signalField(watch(i)), QString::fromStdString(info.name),
                           QString::fromUtf8(unitSymbol(info.unit, AngleUnit::Radians)), isAngular(info.unit)};
  };
  const PhaseDock::Axis x = axis(xSignal), y = axis(ySignal);
  auto* dock = new PhaseDock(x, y, d_->window);
  dock->setObjectName(QStringLiteral("plot-phase-%1").arg(++d_->created));
  dock->setAttribute(Qt::WA_DeleteOnClose);
  dock->setAngleDegrees(d_->degrees);
  d_->window->tabifyDockWidget(d_->docks[0].data(), dock);
  d_->phaseDocks.push_back(dock);
  if (d_->watched.size() != before) announceWatched();
  setCopies(d_->legends);
  dock->show();
  dock->raise();
  dock->refresh(d_->timeWindow, true);
  return dock;
}

QList<PlotDock*> PlotManager::signalDocks() const {
  QList<PlotDock*> list;
  for (const auto& d : d_->signalDocks)
    if (d) list << d.data();
  return list;
}

QList<PhaseDock*> PlotManager::phaseDocks() const {
  QList<PhaseDock*> list;
  for (const auto& d : d_->phaseDocks)
    if (d) list << d.data();
  return list;
}

void PlotManager::setAngleDegrees(bool on) {
  d_->degrees = on;
  for (auto& d : d_->signalDocks)
    if (d) d->setAngleDegrees(on);
  for (auto& d : d_->phaseDocks)
    if (d) d->setAngleDegrees(on);
  refresh();
}

bool PlotManager::angleDegrees() const { return d_->degrees; }


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
  std::vector<PhaseDock::Copy> phase{{&d_->store, QStringLiteral("MechStudio"), QColor(31, 119, 180)}};
  if (others > 0) {
    phase.clear();
    for (std::size_t k = 0; k < copies.size(); ++k) {
      const SampleStore* st = k == 0 ? &d_->store : d_->copyStores[k - 1].get();
      curves.push_back({st, copies[k].label, copies[k].color, copies[k].note});
      phase.push_back({st, copies[k].label, copies[k].color});
    }
  }
  for (const auto& dock : d_->docks)
    if (dock) dock->setComparison(curves);
  for (const auto& dock : d_->signalDocks)
    if (dock) dock->setComparison(curves);
  for (const auto& dock : d_->phaseDocks)
    if (dock) dock->setCopies(phase);
  if (d_->catalogue && others > 0) announceWatched();  // the new copy stores' headers
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
  for (const auto& dock : d_->signalDocks)
    if (dock && dock->isVisible()) dock->refresh(d_->timeWindow);
  for (const auto& dock : d_->phaseDocks)
    if (dock && dock->isVisible()) dock->refresh(d_->timeWindow);
}

// Even-numbered visible docks on one call, odd-numbered ones on the next.
void PlotManager::refreshHalf() {
  int visible = 0;
  for (const auto& dock : d_->docks)
    if (dock && dock->isVisible() && visible++ % 2 == d_->half) dock->refresh(d_->timeWindow);
  for (const auto& dock : d_->signalDocks)
    if (dock && dock->isVisible() && visible++ % 2 == d_->half) dock->refresh(d_->timeWindow);
  for (const auto& dock : d_->phaseDocks)
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
