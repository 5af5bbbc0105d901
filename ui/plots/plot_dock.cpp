// SPDX-License-Identifier: GPL-3.0-or-later
// One live figure dock: figure set-up, min/max-per-pixel decimation from the SampleStore,
// autoscale, log axes, pause-on-hover with tracers and a value tooltip, context menu, and
// PNG/SVG/CSV export.
#include "plots/plot_dock.h"

#include "plots/plot_image.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace ms::ui {

namespace {

using Field = SampleStore::Field;
using Figure = PlotManager::Figure;

// Series colours (colour-blind friendly Tableau-like palette).
const QColor kRed(214, 39, 40), kBlue(31, 119, 180), kPurple(148, 103, 189), kOrange(255, 127, 14),
    kGreen(44, 160, 44), kBrown(140, 86, 75), kVermilion(213, 94, 0);

// Dock title and file base name of each figure.
QString figureTitle(Figure f) {
  switch (f) {
    case Figure::Energy: return QObject::tr("Energy");
    case Figure::EnergyError: return QObject::tr("Energy error");
    case Figure::Violation: return QObject::tr("Constraint violation");
    case Figure::Penetration: return QObject::tr("Penetration");
    case Figure::Solver: return QObject::tr("Solver");
    case Figure::StepTime: return QObject::tr("Step time");
    case Figure::Momentum: return QObject::tr("Angular momentum");
    case Figure::Signals: return QObject::tr("Signals");
  }
  return {};
}

QString figureKey(Figure f) {
  switch (f) {
    case Figure::Energy: return QStringLiteral("energy");
    case Figure::EnergyError: return QStringLiteral("energy-error");
    case Figure::Violation: return QStringLiteral("violation");
    case Figure::Penetration: return QStringLiteral("penetration");
    case Figure::Solver: return QStringLiteral("solver");
    case Figure::StepTime: return QStringLiteral("step-time");
    case Figure::Momentum: return QStringLiteral("momentum");
    case Figure::Signals: return QStringLiteral("signals");
  }
  return {};
}

// The folder the file dialogs start in (last one used in this session).
QString& lastDirectory() {
  static QString dir = QDir::homePath();
  return dir;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

// ---- construction ----------------------------------------------------------------------------

PlotDock::PlotDock(PlotManager::Figure figure, const SampleStore* store, QWidget* parent)
    : QDockWidget(figureTitle(figure), parent), figure_(figure), store_(store) {
  setObjectName(QStringLiteral("plot-") + figureKey(figure));
  plot_ = new QCustomPlot(this);
  plot_->setObjectName(objectName() + QStringLiteral("-plot"));
  plot_->setMinimumSize(220, 130);
  plot_->setMouseTracking(true);
  plot_->setContextMenuPolicy(Qt::CustomContextMenu);
  plot_->setStatusTip(tr("Hover to pause scrolling and read values; right-click for scale and export options; "
                         "double-click to autoscale"));
  plot_->installEventFilter(this);
  setWidget(plot_);

  // Persistent checkable actions (shared by the context menu and tests).
  logAction_ = new QAction(tr("Log scale"), this);
  logAction_->setCheckable(true);
  connect(logAction_, &QAction::toggled, this, &PlotDock::setLogScale);
  autoscaleAction_ = new QAction(tr("Autoscale"), this);
  autoscaleAction_->setCheckable(true);
  autoscaleAction_->setChecked(true);
  connect(autoscaleAction_, &QAction::toggled, this, &PlotDock::setAutoscale);

  connect(plot_, &QWidget::customContextMenuRequested, this, &PlotDock::showContextMenu);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { setAutoscale(true); });

  setUpFigure();
  applyStyle();
  applyInteractions();
}

PlotDock::~PlotDock() = default;

// Axes, series, legend and default scales of each figure.
void PlotDock::setUpFigure() {
  // Performance: no antialiasing while dragging. Pens stay 1 px wide: in the raster engine a
  // 1.4-px antialiased pen cost ~200 ms for 900 noisy points against 0.7 ms at 1 px.
  plot_->setNoAntialiasingOnDrag(true);
  plot_->xAxis->setLabel(tr("Time (s)"));
  plot_->axisRect()->setupFullAxesBox(false);
  plot_->xAxis2->setVisible(false);
  plot_->yAxis2->setVisible(false);
  // Small fixed room above (half a tick label) and to the right (half of the last time label).
  plot_->axisRect()->setMinimumMargins(QMargins(8, 8, 18, 8));
  QCPAxis* y = plot_->yAxis;
  bool defaultLog = false;
  const QColor text = palette().color(QPalette::Text);
  // Series and axis labels per figure.
  switch (figure_) {
    case Figure::Energy:
      y->setLabel(tr("Energy (J)"));
      addSeries(Field::Energy, tr("Total"), QStringLiteral("J"), text, y);
      addSeries(Field::Kinetic, tr("Kinetic"), QStringLiteral("J"), kRed, y);
      addSeries(Field::Potential, tr("Potential"), QStringLiteral("J"), kBlue, y);
      // The total is drawn over its parts (its own layer above "main"; legend order unchanged).
      plot_->addLayer(QStringLiteral("front"), plot_->layer(QStringLiteral("main")), QCustomPlot::limAbove);
      series_.front().graph->setLayer(QStringLiteral("front"));
      valueAxes_ = {{y, false}};
      break;
    case Figure::EnergyError:
      // Relative to the largest of |E₀|, Σm|g|L and the largest kinetic energy so far (see
      // StepSample::energyError): E₀ alone is often ~0.
      y->setLabel(tr("relative energy error"));
      addSeries(Field::EnergyError, tr("Relative energy error"), QString(), kPurple, y);
      valueAxes_ = {{y, false}};
      defaultLog = true;
      break;
    case Figure::Violation:
      y->setLabel(tr("‖g‖∞ (m, rad)"));
      addSeries(Field::Violation, tr("Constraint violation"), QStringLiteral("m/rad"), kVermilion, y);
      valueAxes_ = {{y, false}};
      defaultLog = true;
      break;
    case Figure::Penetration:
      y->setLabel(tr("Penetration (m), limit overshoot (m, rad)"));
      addSeries(Field::Penetration, tr("Deepest penetration"), QStringLiteral("m"), kBrown, y);
      addSeries(Field::LimitViolation, tr("Joint-limit overshoot"), QStringLiteral("m/rad"), kVermilion, y);
      valueAxes_ = {{y, true}};
      break;
    case Figure::Solver:
      y->setLabel(tr("Iterations"));
      plot_->yAxis2->setVisible(true);
      plot_->yAxis2->setTickLabels(true);
      plot_->yAxis2->setLabel(tr("Residual"));
      addSeries(Field::Iterations, tr("Iterations"), QString(), kGreen, y);
      addSeries(Field::Residual, tr("Residual"), QString(), kOrange, plot_->yAxis2);
      valueAxes_ = {{y, true}, {plot_->yAxis2, false}};
      logAxis_ = plot_->yAxis2;
      defaultLog = true;
      break;
    case Figure::StepTime:
      y->setLabel(tr("Step time (µs)"));
      addSeries(Field::StepMicroseconds, tr("Step time"), QStringLiteral("µs"), kBlue, y);
      valueAxes_ = {{y, true}};
      break;
    case Figure::Momentum:
      // About the world origin: conserved for free bodies without gravity (lesson 5).
      y->setLabel(tr("‖L‖ (N·m·s)"));
      addSeries(Field::AngularMomentum, tr("Angular momentum"), QStringLiteral("N·m·s"), kGreen, y);
      valueAxes_ = {{y, false}};
      // Conserved to round-off (~1e-12 relative) is drawn flat, not as digits of noise.
      flatRelative_ = 1e-9;
      break;
    case Figure::Signals:
      // Curves come with addSignal(); the axes are labelled with their units then.
      valueAxes_ = {{y, false}};
      ensureLegendRow();
      break;
  }
  if (!logAxis_) logAxis_ = y;
  connect(logAxis_, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] { updateLogLabels(logAxis_); });
  plot_->xAxis->setRange(0, window_);
  for (const ValueAxis& va : valueAxes_) va.axis->setRange(0, 1);

  // Legend in its own row above the axis rect (never covers data), one line, left-aligned by an
  // empty stretching element beside it; only for multi-series figures (and comparisons).
  if (series_.size() > 1) ensureLegendRow();

  // Hover cursor: a vertical line through the sample under the mouse (overlay layer: cheap redraws).
  cursor_ = new QCPItemStraightLine(plot_);
  cursor_->setLayer(QStringLiteral("overlay"));
  cursor_->setSelectable(false);
  for (QCPItemPosition* p : {cursor_->point1, cursor_->point2}) {
    p->setAxes(plot_->xAxis, plot_->yAxis);
    p->setAxisRect(plot_->axisRect());
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);
  }
  cursor_->setVisible(false);

  log_ = defaultLog;
  logAction_->setChecked(log_);
  applyScaleType(logAxis_, log_);
}

void PlotDock::ensureLegendRow() {
  if (legendRow_) return;
  legendRow_ = true;
  {
    plot_->legend->setVisible(true);
    plot_->plotLayout()->insertRow(0);
    auto* row = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(0, 0, row);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    row->addElement(0, 0, plot_->legend);
    row->addElement(0, 1, new QCPLayoutElement(plot_));
    legendGrid_ = row;
    row->setColumnStretchFactor(0, 0.001);
    row->setMargins(QMargins(0, 0, 0, 0));
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setBrush(Qt::NoBrush);
    plot_->legend->setMargins(QMargins(0, 2, 6, 0));
    // Items start where the axis rect's data area starts (shared left margin).
    auto* group = new QCPMarginGroup(plot_);
    marginGroup_ = group;
    plot_->axisRect()->setMarginGroup(QCP::msLeft, group);
    plot_->legend->setAutoMargins(QCP::msLeft);
    plot_->legend->setMarginGroup(QCP::msLeft, group);
    plot_->legend->setIconSize(18, 8);
    plot_->legend->setColumnSpacing(12);
  }
}

// ---- comparison ------------------------------------------------------------------------------

namespace {
// Quantities of one copy are told apart by dash pattern (colour = copy).
Qt::PenStyle seriesStyle(std::size_t i) {
  static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
  return styles[i % 4];
}
}  // namespace

void PlotDock::setComparison(const std::vector<CompareCurve>& copies) {
  const bool same = copies.size() == compare_.size() &&
                    std::equal(copies.begin(), copies.end(), compare_.begin(), [](const CompareCurve& a, const CompareCurve& b) {
                      return a.store == b.store && a.label == b.label && a.color == b.color && a.note == b.note;
                    });
  if (same) return;
  // Graphs of the copies beyond the reference: rebuilt when the copies change.
  const bool structure = copies.size() != compare_.size() ||
                         !std::equal(copies.begin(), copies.end(), compare_.begin(),
                                     [](const CompareCurve& a, const CompareCurve& b) { return a.store == b.store; });
  if (structure) {
    for (auto& graphs : compareGraphs_)
      for (QCPGraph* g : graphs) plot_->removeGraph(g);
    compareGraphs_.clear();
  }
  compare_ = copies.size() >= 2 ? copies : std::vector<CompareCurve>();
  if (structure && !compare_.empty()) {
    ensureLegendRow();
    for (std::size_t k = 1; k < compare_.size(); ++k) {
      std::vector<QCPGraph*> graphs;
      for (const Series& s : series_) {
        QCPGraph* g = plot_->addGraph(plot_->xAxis, s.graph->valueAxis());
        g->setLineStyle(QCPGraph::lsLine);
        graphs.push_back(g);
      }
      compareGraphs_.push_back(graphs);
    }
  }
  applyComparisonStyle();
  settingsDirty_ = true;
  rescaleOnce_ = true;
}

// Names and pens: per copy in comparisons, the figure's own otherwise.
void PlotDock::applyComparisonStyle() {
  const QColor fg = palette().color(QPalette::Text);
  if (compare_.empty()) {
    for (Series& s : series_) {
      s.graph->setName(s.label.isEmpty() ? s.name : s.label);
      s.graph->setPen(QPen(figure_ == Figure::Energy && &s == &series_.front() ? fg : s.color, 1));
      s.graph->addToLegend();
    }
    // The note on dash patterns goes with the comparison.
    if (styleNote_) {
      legendGrid_->remove(styleNote_);
      legendGrid_->simplify();
      styleNote_ = nullptr;
    }
    plot_->legend->setVisible(series_.size() > 1);
    plot_->legend->setWrap(0);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    return;
  }
  // The legend names the copies (one entry each, its first quantity); the dock title says which
  // dash pattern is which quantity.
  for (std::size_t k = 0; k < compare_.size(); ++k)
    for (std::size_t si = 0; si < series_.size(); ++si) {
      QCPGraph* g = k == 0 ? series_[si].graph : compareGraphs_[k - 1][si];
      // "RK4 (stopped at t = 1.234 s)" in the legend; "RK4: kinetic" for the unlisted quantities.
      QString n = compare_[k].label;
      if (si > 0) n += QStringLiteral(": ") + (series_[si].label.isEmpty() ? series_[si].name.toLower() : series_[si].label);
      else if (!compare_[k].note.isEmpty()) n += QStringLiteral(" (") + compare_[k].note + QLatin1Char(')');
      g->setName(n);
      g->setPen(QPen(compare_[k].color, 1, seriesStyle(si)));
      if (si == 0) g->addToLegend();
      else g->removeFromLegend();
    }
  if (series_.size() > 1) {
    static const char* const styleNames[] = {"solid", "dashed", "dotted", "dash-dot"};
    QStringList parts;
    for (std::size_t si = 0; si < series_.size(); ++si)
      parts << (series_[si].label.isEmpty() ? series_[si].name.toLower() : series_[si].label) + QLatin1Char(' ') +
               QLatin1String(styleNames[si % 4]);
    // Under the legend: which dash pattern is which quantity.
    if (!styleNote_) {
      styleNote_ = new QCPTextElement(plot_, QString());
      QFont small = font();
      small.setPointSizeF(small.pointSizeF() * 0.85);
      styleNote_->setFont(small);
      styleNote_->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
      styleNote_->setMargins(QMargins(0, 0, 0, 0));
      // Starts where the data area starts, like the legend.
      styleNote_->setAutoMargins(QCP::msLeft);
      styleNote_->setMarginGroup(QCP::msLeft, marginGroup_);
      legendGrid_->addElement(1, 0, styleNote_);
    }
    styleNote_->setTextColor(palette().color(QPalette::Text));
    styleNote_->setText(parts.join(QStringLiteral(" · ")));
  }
  plot_->legend->setVisible(true);
  layoutLegend();
}

// Comparison legends: as many columns as fit the plot's width (one row when they all fit).
void PlotDock::layoutLegend() {
  if (compare_.empty()) return;
  const QFontMetrics fm(plot_->legend->font());
  std::vector<int> widths;
  for (int i = 0; i < plot_->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i)))
      widths.push_back(fm.horizontalAdvance(item->plottable()->name()) + plot_->legend->iconSize().width() +
                       plot_->legend->iconTextPadding() + item->margins().left() + item->margins().right() +
                       plot_->legend->columnSpacing() + 4);
  // The legend starts where the data area does (shared left margin) and may reach the right edge.
  const int axisWidth = plot_->axisRect()->width();
  const int available = std::max(100, axisWidth >= 20 ? axisWidth + 10 : plot_->width() - 70);
  int columns = std::max(1, int(widths.size()));
  for (; columns > 1; --columns) {
    int total = 0;
    for (int c = 0; c < columns; ++c) {
      int w = 0;
      for (std::size_t i = std::size_t(c); i < widths.size(); i += std::size_t(columns)) w = std::max(w, widths[i]);
      total += w;
    }
    if (total <= available) break;
  }
  if (plot_->legend->wrap() == columns) return;
  plot_->legend->setWrap(columns);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

quint64 PlotDock::dataRevision() const {
  quint64 r = store_->revision();
  for (std::size_t k = 1; k < compare_.size(); ++k)
    if (compare_[k].store) r += compare_[k].store->revision();
  return r;
}

quint64 PlotDock::dataResetRevision() const {
  quint64 r = store_->resetRevision();
  for (std::size_t k = 1; k < compare_.size(); ++k)
    if (compare_[k].store) r += compare_[k].store->resetRevision();
  return r;
}

// Adds one graph (and its hover tracer) on the given value axis.
void PlotDock::addSeries(Field field, const QString& name, const QString& unit, const QColor& color,
                         QCPAxis* valueAxis) {
  Series s;
  s.field = field;
  s.name = name;
  s.unit = unit;
  s.graph = plot_->addGraph(plot_->xAxis, valueAxis);
  s.graph->setName(name);
  s.graph->setPen(QPen(color, 1));
  s.graph->setLineStyle(QCPGraph::lsLine);
  s.color = color;
  s.tracer = new QCPItemTracer(plot_);
  s.tracer->setLayer(QStringLiteral("overlay"));
  s.tracer->setSelectable(false);
  s.tracer->setStyle(QCPItemTracer::tsCircle);
  s.tracer->setSize(7);
  s.tracer->setPen(QPen(color, 1.5));
  s.tracer->position->setAxes(plot_->xAxis, valueAxis);
  s.tracer->setVisible(false);
  series_.push_back(s);
}

// Signals figure: one more curve. The first unit goes on the left axis, a second one on the right
// axis, any further ones on the left again (its label lists them); angles follow setAngleDegrees.
void PlotDock::addSignal(SampleStore::Field column, const QString& name, const QString& unit, bool angular) {
  static const QColor kCycle[] = {kBlue, kRed, kGreen, kOrange, kPurple, kBrown, kVermilion};
  for (const Series& s : series_)
    if (s.field == column) return;
  const QString shown = displayUnit(unit, angular);
  QCPAxis* axis = plot_->yAxis;
  const auto unitsOn = [this](QCPAxis* a) {
    QStringList u;
    for (const Series& s : series_)
      if (s.graph->valueAxis() == a && !u.contains(s.unit)) u << s.unit;
    return u;
  };
  const QStringList left = unitsOn(plot_->yAxis), right = unitsOn(plot_->yAxis2);
  if (!left.isEmpty() && !left.contains(shown) && (right.isEmpty() || right.contains(shown))) axis = plot_->yAxis2;
  addSeries(column, name, shown, kCycle[series_.size() % (sizeof kCycle / sizeof kCycle[0])], axis);
  series_.back().angular = angular;
  series_.back().scale = angular && degrees_ ? 180.0 / M_PI : 1.0;
  if (axis == plot_->yAxis2 && valueAxes_.size() < 2) {
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setTickLabels(true);
    valueAxes_.push_back({plot_->yAxis2, false});
  }
  // Copies of a comparison get the curve too.
  for (auto& graphs : compareGraphs_) {
    QCPGraph* g = plot_->addGraph(plot_->xAxis, axis);
    g->setLineStyle(QCPGraph::lsLine);
    graphs.push_back(g);
  }
  applyComparisonStyle();
  updateSignalLabels();
  settingsDirty_ = true;
  rescaleOnce_ = true;
}

QStringList PlotDock::signalNames() const {
  QStringList names;
  for (const Series& s : series_) names << s.name;
  return names;
}

std::vector<SampleStore::Field> PlotDock::signalColumns() const {
  std::vector<SampleStore::Field> c;
  for (const Series& s : series_) c.push_back(s.field);
  return c;
}

void PlotDock::setSignalColumn(const QString& name, SampleStore::Field column) {
  for (Series& s : series_)
    if (s.name == name) s.field = column;
  settingsDirty_ = true;
}

void PlotDock::removeSignal(const QString& name) {
  for (std::size_t si = 0; si < series_.size(); ++si) {
    if (series_[si].name != name) continue;
    plot_->removeGraph(series_[si].graph);
    plot_->removeItem(series_[si].tracer);
    for (auto& graphs : compareGraphs_) {
      plot_->removeGraph(graphs[si]);
      graphs.erase(graphs.begin() + static_cast<std::ptrdiff_t>(si));
    }
    series_.erase(series_.begin() + static_cast<std::ptrdiff_t>(si));
    break;
  }
  applyComparisonStyle();
  updateSignalLabels();
  settingsDirty_ = true;
  rescaleOnce_ = true;
}

void PlotDock::setAngleDegrees(bool on) {
  if (degrees_ == on) return;
  degrees_ = on;
  for (Series& s : series_)
    if (s.angular) {
      s.scale = on ? 180.0 / M_PI : 1.0;
      s.unit = displayUnit(s.unit, true);
    }
  updateSignalLabels();
  settingsDirty_ = true;
  rescaleOnce_ = true;
}

// "rad" ↔ "deg", "rad/s" ↔ "deg/s" by the dock's angle unit.
QString PlotDock::displayUnit(const QString& unit, bool angular) const {
  if (!angular) return unit;
  QString u = unit;
  u.replace(QStringLiteral("rad"), QStringLiteral("deg"));
  if (!degrees_) u.replace(QStringLiteral("deg"), QStringLiteral("rad"));
  return u;
}

// Each value axis labelled with the units of its curves.
void PlotDock::updateSignalLabels() {
  for (QCPAxis* a : {plot_->yAxis, plot_->yAxis2}) {
    QStringList u;
    for (const Series& s : series_)
      if (s.graph->valueAxis() == a && !u.contains(s.unit)) u << s.unit;
    a->setLabel(u.join(QStringLiteral(", ")));
  }
  // Title and legend: the prefix all names share up to a '.' ("crank-shaft.force") once, the rest
  // per curve ("x", "y", "z").
  const QStringList names = signalNames();
  QString prefix = names.isEmpty() ? QString() : names.front();
  for (const QString& n : names) {
    int k = 0;
    while (k < prefix.size() && k < n.size() && prefix[k] == n[k]) ++k;
    prefix.truncate(k);
  }
  prefix.truncate(prefix.lastIndexOf(QLatin1Char('.')) + 1);
  QStringList rest;
  for (Series& s : series_) {
    s.label = names.size() > 1 && s.name.size() > prefix.size() ? s.name.mid(prefix.size()) : s.name;
    rest << s.label;
  }
  applyComparisonStyle();
  if (names.isEmpty())
    setWindowTitle(figureTitle(figure_));
  else if (names.size() == 1 || prefix.isEmpty())
    setWindowTitle(names.join(QStringLiteral(", ")));
  else
    setWindowTitle(prefix.chopped(1) + QStringLiteral(" (") + rest.join(QStringLiteral(", ")) + QLatin1Char(')'));
}

// Background, axes, grid and legend colours from the widget palette (light or dark themes).
void PlotDock::applyStyle() {
  const QPalette pal = palette();
  const QColor bg = pal.color(QPalette::Base), fg = pal.color(QPalette::Text);
  QColor grid = fg, subGrid = fg, faint = fg;
  grid.setAlpha(45);
  subGrid.setAlpha(18);
  faint.setAlpha(110);
  plot_->setBackground(bg);
  plot_->axisRect()->setBackground(bg);
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis, plot_->xAxis2, plot_->yAxis2}) {
    a->setBasePen(QPen(faint, 1));
    a->setTickPen(QPen(faint, 1));
    a->setSubTickPen(QPen(faint, 1));
    a->setLabelColor(fg);
    a->setTickLabelColor(fg);
    a->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
    a->grid()->setSubGridPen(QPen(subGrid, 1));
    a->grid()->setZeroLinePen(QPen(grid, 1));
  }
  plot_->xAxis->grid()->setSubGridVisible(false);
  plot_->legend->setTextColor(fg);
  QColor cursor = fg;
  cursor.setAlpha(120);
  cursor_->setPen(QPen(cursor, 1, Qt::DashLine));
  for (Series& s : series_) s.tracer->setBrush(bg);
  // The total energy follows the text colour.
  if (figure_ == Figure::Energy && !series_.empty()) series_.front().graph->setPen(QPen(fg, 1));
  if (!compare_.empty()) applyComparisonStyle();
}

// Switches an axis between linear and logarithmic scale (ticker and number format follow).
void PlotDock::applyScaleType(QCPAxis* axis, bool log) {
  if (log) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    updateLogLabels(axis);
    axis->grid()->setSubGridVisible(true);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setNumberFormat(QStringLiteral("gbd"));
    axis->setNumberPrecision(6);
    axis->grid()->setSubGridVisible(false);
  }
}

// Log axis labels: powers of ten ("10⁻⁶") over wide ranges; below 1.6 decades QCPAxisTickerLog
// falls back to linear ticks, which need significant digits ("2.5·10⁻⁴").
void PlotDock::updateLogLabels(QCPAxis* axis) {
  if (axis->scaleType() != QCPAxis::stLogarithmic) return;
  const QCPRange r = axis->range();
  const bool narrow = r.lower > 0 && std::log10(r.upper / r.lower) < 1.6;
  axis->setNumberFormat(narrow ? QStringLiteral("gb") : QStringLiteral("eb"));
  axis->setNumberPrecision(narrow ? 3 : 0);
}

// Mouse drag/zoom of the value axes only when autoscale is off (x follows the time window).
void PlotDock::applyInteractions() {
  QList<QCPAxis*> vertical;
  for (const ValueAxis& va : valueAxes_) vertical << va.axis;
  plot_->axisRect()->setRangeDrag(Qt::Vertical);
  plot_->axisRect()->setRangeZoom(Qt::Vertical);
  plot_->axisRect()->setRangeDragAxes(QList<QCPAxis*>(), vertical);
  plot_->axisRect()->setRangeZoomAxes(QList<QCPAxis*>(), vertical);
  plot_->setInteractions(autoscale_ ? QCP::Interactions() : QCP::Interactions(QCP::iRangeDrag | QCP::iRangeZoom));
}

// ---- settings --------------------------------------------------------------------------------

QCPAxis* PlotDock::logAxis() const { return logAxis_; }

void PlotDock::setLogScale(bool on) {
  if (logAction_->isChecked() != on) logAction_->setChecked(on);  // re-enters once via toggled
  if (on == log_) return;
  log_ = on;
  applyScaleType(logAxis_, on);
  rescaleOnce_ = true;
  rebuild(hovered_);
  plot_->replot(QCustomPlot::rpQueuedRefresh);
}

void PlotDock::setAutoscale(bool on) {
  if (autoscaleAction_->isChecked() != on) autoscaleAction_->setChecked(on);
  if (on == autoscale_) return;
  autoscale_ = on;
  applyInteractions();
  if (on) {
    rebuild(hovered_);
    plot_->replot(QCustomPlot::rpQueuedRefresh);
  }
}

// ---- data ------------------------------------------------------------------------------------

// Horizontal pixels of the data area (one min/max bucket each).
int PlotDock::bucketCount() const {
  const int w = plot_->axisRect()->width();
  if (w >= 20) return w;
  return std::max(100, plot_->width() - 80);  // not laid out yet
}

bool PlotDock::refresh(double timeWindow, bool force) {
  window_ = timeWindow;
  const int buckets = bucketCount();
  const bool changed = force || settingsDirty_ || dataRevision() != shownRevision_ ||
                       timeWindow != shownWindow_ || buckets != shownBuckets_;
  if (!changed) return false;
  // Paused under the mouse: keep the frozen view unless the shown data became wrong.
  const bool reset = dataResetRevision() != shownResetRevision_;
  if (hovered_ && !force && !settingsDirty_ && !reset) return false;
  if (buckets != shownBuckets_) layoutLegend();
  rebuild(hovered_);
  plot_->replot(QCustomPlot::rpQueuedRefresh);
  return true;
}

// Sets the x range, decimates every series to min/max pairs per pixel, autoscales, clamps
// non-positive values on log axes to just below the axis, and hands the points to the graphs.
void PlotDock::rebuild(bool keepX) {
  // Every store shown: the reference's, then the other copies' in a comparison.
  std::vector<const SampleStore*> stores{store_};
  for (std::size_t k = 1; k < compare_.size(); ++k) stores.push_back(compare_[k].store);
  QCPRange xr = plot_->xAxis->range();
  // Scrolling window: starts at the first sample, then follows the newest one (of any copy).
  if (!keepX) {
    double t0 = kInf, t1 = -kInf;
    for (const SampleStore* st : stores)
      if (st && !st->empty()) {
        t0 = std::min(t0, st->time(0));
        t1 = std::max(t1, st->time(st->size() - 1));
      }
    if (!(t0 <= t1)) {
      xr = QCPRange(0, window_ > 0 ? window_ : 1);
    } else {
      if (window_ > 0) {
        const double upper = std::max(t1, t0 + window_);
        xr = QCPRange(upper - window_, upper);
      } else {
        xr = t1 > t0 ? QCPRange(t0, t1) : QCPRange(t0, t0 + 1);
      }
    }
    plot_->xAxis->setRange(xr);
  }
  const int buckets = bucketCount();

  // Decimated points of each graph (series of the reference first, then each copy's).
  std::vector<QCPGraph*> graphs;
  std::vector<QVector<QCPGraphData>> points(series_.size() * stores.size());
  std::vector<Field> fields;
  for (const Series& s : series_) fields.push_back(s.field);
  for (std::size_t k = 0; k < stores.size(); ++k) {
    std::vector<QVector<QCPGraphData>*> out;
    for (std::size_t si = 0; si < series_.size(); ++si) {
      graphs.push_back(k == 0 ? series_[si].graph : compareGraphs_[k - 1][si]);
      out.push_back(&points[k * series_.size() + si]);
    }
    if (stores[k]) decimate(*stores[k], fields, xr, buckets, out);
    // Display units (angles in degrees).
    for (std::size_t si = 0; si < series_.size(); ++si)
      if (series_[si].scale != 1.0)
        for (QCPGraphData& p : *out[si]) p.value *= series_[si].scale;
  }

  // Value ranges (each axis from the visible points of its graphs), then log clamping.
  const bool scale = autoscale_ || rescaleOnce_;
  rescaleOnce_ = false;
  for (const ValueAxis& va : valueAxes_) {
    const bool logAx = va.axis->scaleType() == QCPAxis::stLogarithmic;
    if (scale) {
      double lo = kInf, hi = -kInf;
      for (std::size_t si = 0; si < graphs.size(); ++si) {
        if (graphs[si]->valueAxis() != va.axis) continue;
        for (const QCPGraphData& p : points[si]) {
          if (p.key < xr.lower || p.key > xr.upper || (logAx && p.value <= 0)) continue;
          lo = std::min(lo, p.value);
          hi = std::max(hi, p.value);
        }
      }
      if (lo <= hi) {
        QCPRange r;
        if (logAx) {
          // Log: a margin of 5 % of the decades shown (at least 0.15 decade) each side, and at least
          // one decade in all so the ticks stay meaningful.
          const double decades = std::log10(hi / lo);
          const double margin = std::max({0.05 * decades, 0.15, 0.5 * (1.0 - decades)});
          r = QCPRange(lo / std::pow(10.0, margin), hi * std::pow(10.0, margin));
        } else {
          if (va.includeZero) {
            lo = std::min(lo, 0.0);
            hi = std::max(hi, 0.0);
          }
          const double span = hi - lo;
          if (span <= flatRelative_ * std::max(std::abs(lo), std::abs(hi))) {
            // Flat data: centre it with ±5 % (or ±1 around zero).
            const double c = 0.5 * (lo + hi), half = c != 0 ? 0.05 * std::abs(c) : 1.0;
            r = va.includeZero && c >= 0 ? QCPRange(0, c != 0 ? 2 * c : 1) : QCPRange(c - half, c + half);
          } else {
            r = QCPRange(lo - 0.05 * span, hi + 0.05 * span);
            if (va.includeZero && lo == 0) r.lower = 0;
          }
        }
        va.axis->setRange(r);
      }
    }
    // Non-positive values on a log axis are drawn just below its lower edge (display only).
    if (logAx) {
      const double floor = va.axis->range().lower * 1e-3;
      for (std::size_t si = 0; si < graphs.size(); ++si) {
        if (graphs[si]->valueAxis() != va.axis) continue;
        for (QCPGraphData& p : points[si])
          if (p.value <= 0) p.value = floor;
      }
    }
  }
  for (std::size_t si = 0; si < graphs.size(); ++si) graphs[si]->data()->set(points[si], true);

  shownRevision_ = dataRevision();
  shownResetRevision_ = dataResetRevision();
  shownWindow_ = window_;
  shownBuckets_ = buckets;
  settingsDirty_ = false;
}

// All points when few, else the min and max of each pixel column in time order.
void PlotDock::decimate(const SampleStore& store, const std::vector<Field>& fields, const QCPRange& xr, int buckets,
                        std::vector<QVector<QCPGraphData>*>& out) {
  const std::size_t n = store.size();
  // Index range of the window plus one neighbour each side, so lines reach the edges.
  std::size_t i0 = store.lowerBound(xr.lower);
  std::size_t i1 = store.upperBound(xr.upper, i0);
  if (i0 > 0) --i0;
  if (i1 < n) ++i1;
  const bool direct = i1 - i0 <= 2 * static_cast<std::size_t>(buckets);
  // Bucket boundaries (one per pixel column), shared by every field.
  if (!direct) {
    bounds_.resize(static_cast<std::size_t>(buckets) + 1);
    bounds_[0] = i0;
    const double dx = xr.size() / buckets;
    for (int k = 1; k < buckets; ++k)
      bounds_[static_cast<std::size_t>(k)] = store.lowerBound(xr.lower + k * dx, bounds_[static_cast<std::size_t>(k) - 1]);
    bounds_[static_cast<std::size_t>(buckets)] = i1;
  }
  for (std::size_t si = 0; si < fields.size(); ++si) {
    const Field f = fields[si];
    QVector<QCPGraphData>& pts = *out[si];
    if (direct) {
      pts.reserve(static_cast<int>(i1 - i0));
      for (std::size_t i = i0; i < i1; ++i) {
        const double v = store.value(f, i);
        if (std::isfinite(v)) pts.append(QCPGraphData(store.time(i), v));
      }
    } else {
      pts.reserve(2 * buckets);
      for (int k = 0; k < buckets; ++k) {
        const auto e = store.extremes(f, bounds_[static_cast<std::size_t>(k)], bounds_[static_cast<std::size_t>(k) + 1]);
        if (!e.valid) continue;
        const std::size_t a = std::min(e.argMin, e.argMax), b = std::max(e.argMin, e.argMax);
        pts.append(QCPGraphData(store.time(a), store.value(f, a)));
        if (b != a) pts.append(QCPGraphData(store.time(b), store.value(f, b)));
      }
    }
  }
}

// ---- hover -----------------------------------------------------------------------------------

// Pause-on-hover and the value tracer; palette changes restyle the plot.
bool PlotDock::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_) {
    switch (event->type()) {
      case QEvent::Enter:
        hovered_ = true;
        break;
      case QEvent::Leave:
        hovered_ = false;
        settingsDirty_ = true;  // catch up on the next refresh
        hideTracers();
        break;
      case QEvent::MouseMove:
        hovered_ = true;
        updateTracers(static_cast<QMouseEvent*>(event)->position().toPoint());
        break;
      case QEvent::PaletteChange:
        applyStyle();
        plot_->replot(QCustomPlot::rpQueuedRefresh);
        break;
      default:
        break;
    }
  }
  return QDockWidget::eventFilter(watched, event);
}

// Moves the cursor line and tracers to the stored sample nearest the mouse and shows its values.
void PlotDock::updateTracers(const QPoint& pos) {
  if (store_->empty() || !plot_->axisRect()->rect().contains(pos)) {
    hideTracers();
    return;
  }
  const double t = plot_->xAxis->pixelToCoord(pos.x());
  const std::size_t i = store_->nearest(t);
  const double time = store_->time(i);
  QString text = tr("t = %1 s   (step %2)").arg(QString::number(time, 'g', 8)).arg(store_->step(i));
  cursor_->point1->setCoords(time, 0);
  cursor_->point2->setCoords(time, 1);
  cursor_->setVisible(true);
  if (!compare_.empty()) text += QStringLiteral("\n") + compare_[0].label + QLatin1Char(':');
  for (Series& s : series_) {
    const double v = store_->value(s.field, i) * s.scale;
    const bool logAx = s.graph->valueAxis()->scaleType() == QCPAxis::stLogarithmic;
    const double shown = logAx && v <= 0 ? s.graph->valueAxis()->range().lower * 1e-3 : v;
    s.tracer->position->setCoords(time, shown);
    s.tracer->setVisible(std::isfinite(v));
    const QString value = s.field == Field::Iterations ? QString::number(static_cast<long>(v)) : QString::number(v, 'g', 7);
    text += QStringLiteral("\n%1: %2%3").arg(s.name, value, s.unit.isEmpty() ? QString() : QStringLiteral(" ") + s.unit);
  }
  // Comparison: every other copy's values at its sample nearest the same time.
  for (std::size_t k = 1; k < compare_.size(); ++k) {
    const SampleStore* st = compare_[k].store;
    if (!st || st->empty()) continue;
    const std::size_t j = st->nearest(time);
    QStringList values;
    for (const Series& s : series_) {
      const double v = st->value(s.field, j) * s.scale;
      values << (s.field == Field::Iterations ? QString::number(static_cast<long>(v)) : QString::number(v, 'g', 7));
    }
    text += QStringLiteral("\n%1 (t = %2 s): %3").arg(compare_[k].label, QString::number(st->time(j), 'g', 8), values.join(QStringLiteral(", ")));
  }
  plot_->layer(QStringLiteral("overlay"))->replot();
  QToolTip::showText(plot_->mapToGlobal(pos + QPoint(14, 14)), text, plot_);
}

void PlotDock::hideTracers() {
  if (!cursor_->visible()) return;
  cursor_->setVisible(false);
  for (Series& s : series_) s.tracer->setVisible(false);
  plot_->layer(QStringLiteral("overlay"))->replot();
  QToolTip::hideText();
}

// ---- menu and export -------------------------------------------------------------------------

// The context menu: scale options, time window, exports.
void PlotDock::showContextMenu(const QPoint& pos) {
  QMenu menu(this);
  menu.addAction(logAction_);
  menu.addAction(autoscaleAction_);
  // Time window choices (apply to every plot).
  QMenu* windowMenu = menu.addMenu(tr("Time window"));
  auto* group = new QActionGroup(windowMenu);
  const std::pair<double, QString> choices[] = {{1, tr("1 s")},     {5, tr("5 s")},     {10, tr("10 s")},
                                                {30, tr("30 s")},   {60, tr("1 min")},  {300, tr("5 min")},
                                                {0, tr("All data")}};
  for (const auto& [seconds, label] : choices) {
    QAction* a = windowMenu->addAction(label);
    a->setCheckable(true);
    a->setChecked(window_ == seconds);
    group->addAction(a);
    const double s = seconds;
    connect(a, &QAction::triggered, this, [this, s] { emit timeWindowRequested(s); });
  }
  menu.addSeparator();
  connect(menu.addAction(tr("Export data as CSV…")), &QAction::triggered, this, &PlotDock::chooseAndExportCsv);
  connect(menu.addAction(tr("Save image as PNG…")), &QAction::triggered, this, [this] { chooseAndSave(QStringLiteral("png")); });
  connect(menu.addAction(tr("Save image as SVG…")), &QAction::triggered, this, [this] { chooseAndSave(QStringLiteral("svg")); });
  menu.exec(plot_->mapToGlobal(pos));
}

// File dialog, then saveImage; errors in a message box.
void PlotDock::chooseAndSave(const QString& suffix) {
  const QString filter = suffix == QLatin1String("png") ? tr("PNG images (*.png)") : tr("SVG images (*.svg)");
  QString path = QFileDialog::getSaveFileName(this, tr("Save %1 plot").arg(windowTitle()),
                                              QDir(lastDirectory()).filePath(figureKey(figure_) + QLatin1Char('.') + suffix), filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
  lastDirectory() = QFileInfo(path).absolutePath();
  QString error;
  if (!saveImage(path, &error)) QMessageBox::warning(this, tr("Save image"), error);
}

// File dialog, then the CSV of every series.
void PlotDock::chooseAndExportCsv() {
  QString path = QFileDialog::getSaveFileName(this, tr("Export plot data"), QDir(lastDirectory()).filePath(QStringLiteral("samples.csv")),
                                              tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".csv");
  lastDirectory() = QFileInfo(path).absolutePath();
  QString error;
  if (!exportCsv(path, &error)) QMessageBox::warning(this, tr("Export data"), error);
}

bool PlotDock::exportCsv(const QString& path, QString* error) const { return store_->writeCsv(path, error); }

// The on-screen size, or 800×450 when the dock has never been laid out.
QSize PlotDock::exportSize() const {
  if (plot_->width() >= 200 && plot_->height() >= 120) return plot_->size();
  return QSize(800, 450);
}

bool PlotDock::saveImage(const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QLatin1String("png") && suffix != QLatin1String("svg")) {
    if (error) *error = tr("unsupported image type \"%1\" (use .png or .svg)").arg(suffix);
    return false;
  }
  // Current data, without the hover cursor.
  refresh(window_);
  const bool cursorShown = cursor_->visible();
  hideTracers();
  const bool ok = writePlotImage(plot_, path, exportSize(), windowTitle(), error);
  if (cursorShown) plot_->replot(QCustomPlot::rpQueuedRefresh);
  return ok;
}

}  // namespace ms::ui
