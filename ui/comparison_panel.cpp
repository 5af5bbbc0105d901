// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparison_panel.h"

#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/check.h"
#include "integrator/integrator_options.h"

namespace ms::ui {

namespace {

QColor toColor(unsigned rgb) { return QColor(int((rgb >> 16) & 0xff), int((rgb >> 8) & 0xff), int(rgb & 0xff)); }

QString num(double v) { return QString::number(v, 'g', 6); }

double parse(const QTableWidgetItem* item) {
  bool ok = false;
  const double v = item ? item->text().trimmed().toDouble(&ok) : 0.0;
  return ok ? v : std::nan("");
}

// A short label for an integrator choice ("RK4", "Euler, soft").
QString shortLabel(const IntegratorOptions& o) {
  QString s;
  switch (o.kind) {
    case IntegratorKind::Variational: s = "VI"; break;
    case IntegratorKind::ExplicitEuler: s = "Euler"; break;
    case IntegratorKind::SymplecticEuler: s = "sympl. Euler"; break;
    case IntegratorKind::Heun: s = "Heun"; break;
    case IntegratorKind::RK4: s = "RK4"; break;
    case IntegratorKind::Exponential: s = "exponential"; break;
    case IntegratorKind::MidpointGC: s = "midpoint GC"; break;
    case IntegratorKind::RIQN: s = "RIQN"; break;
    case IntegratorKind::MuJoCo: s = "MuJoCo"; break;
  }
  return s;
}
}  // namespace

unsigned ComparisonPanel::defaultColor(int k) {
  // Reference blue, then vermilion, green, orange, purple, brown, pink, grey (colour-blind friendly order).
  static const unsigned palette[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f};
  return palette[std::abs(k) % 8];
}

QString ComparisonPanel::stoppedNote(const CopyStatus& c) {
  if (!c.failed) return {};
  if (c.failure.rfind("cannot start", 0) == 0) return tr("cannot start");
  return tr("stopped at t = %1 s").arg(c.failedAt, 0, 'f', 3);
}

ComparisonPanel::ComparisonPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Copies run in lockstep (same simulated time); the first is the reference, drawn solid, "
                              "the others are tinted ghosts."));
  intro->setWordWrap(true);
  v->addWidget(intro);
  table_ = new QTableWidget(0, ColumnCount);
  table_->setObjectName("comparison-table");
  table_->setHorizontalHeaderLabels({tr("Label"), tr(""), tr("Integrator"), tr("Δt (s)"), tr("Status"), tr("Contacts"),
                                     tr("K (N/m)"), tr("B (N·s/m)"), tr("α (1/s)"), tr("β (1/s)")});
  table_->horizontalHeader()->setToolTip(tr("Colour: double-click to change"));
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int col) {
    if (col == Color) chooseColor(row);
  });
  v->addWidget(table_, 1);

  auto* buttons = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add copy"));
  auto* remove = new QPushButton(tr("Remove copy"));
  equalCost_ = new QCheckBox(tr("Equal cost"));
  equalCost_->setToolTip(tr("Give each copy the Δt at which its wall time per simulated second matches the reference's "
                            "(measured over a short calibration run when the comparison starts)"));
  start_ = new QPushButton(tr("Compare from here"));
  start_->setObjectName("comparison-start");
  start_->setToolTip(tr("Start the copies from the state shown (any point of the history)"));
  stop_ = new QPushButton(tr("Stop comparing"));
  connect(add, &QPushButton::clicked, this, &ComparisonPanel::addCopy);
  connect(remove, &QPushButton::clicked, this, &ComparisonPanel::removeCopy);
  connect(start_, &QPushButton::clicked, this, &ComparisonPanel::start);
  connect(stop_, &QPushButton::clicked, this, [this] { Q_EMIT stopRequested(); });
  buttons->addWidget(add);
  buttons->addWidget(remove);
  buttons->addWidget(equalCost_);
  buttons->addStretch(1);
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  v->addLayout(buttons);
  problem_ = new QLabel;
  problem_->setObjectName("comparison-problem");
  problem_->setStyleSheet("color: #c0392b;");
  problem_->setWordWrap(true);
  v->addWidget(problem_);
}

void ComparisonPanel::setSystem(std::shared_ptr<const CompiledSystem> system, double dt) {
  system_ = std::move(system);
  dt_ = dt;
}

void ComparisonPanel::addRow(const CopySpec& c) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  table_->setItem(row, Label, new QTableWidgetItem(QString::fromStdString(c.label)));
  auto* color = new QTableWidgetItem;
  color->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  color->setBackground(toColor(c.color));
  color->setData(Qt::UserRole, c.color);
  table_->setItem(row, Color, color);
  auto* kind = new QComboBox;
  for (IntegratorKind k : kIntegratorKinds) kind->addItem(QString::fromUtf8(displayName(k)), int(k));
  kind->setCurrentIndex(kind->findData(int(c.options.kind)));
  table_->setCellWidget(row, Integrator, kind);
  auto* contacts = new QComboBox;
  contacts->addItem("rigid", int(ContactModel::Rigid));
  contacts->addItem("soft", int(ContactModel::Soft));
  contacts->setCurrentIndex(contacts->findData(int(c.options.contacts)));
  table_->setCellWidget(row, Contacts, contacts);
  table_->setItem(row, Dt, new QTableWidgetItem(num(c.dt)));
  table_->setItem(row, Stiffness, new QTableWidgetItem(num(c.options.contactStiffness)));
  table_->setItem(row, Damping, new QTableWidgetItem(num(c.options.contactDamping)));
  table_->setItem(row, Alpha, new QTableWidgetItem(num(c.options.baumgarteAlpha)));
  table_->setItem(row, Beta, new QTableWidgetItem(num(c.options.baumgarteBeta)));
  auto* status = new QTableWidgetItem(row == 0 ? tr("reference") : QString());
  status->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  table_->setItem(row, Status, status);
  // A new integrator choice renames an untouched default label.
  connect(kind, qOverload<int>(&QComboBox::currentIndexChanged), this, [this, kind] {
    for (int r = 0; r < table_->rowCount(); ++r)
      if (table_->cellWidget(r, Integrator) == kind) {
        IntegratorOptions o;
        o.kind = IntegratorKind(kind->currentData().toInt());
        QTableWidgetItem* label = table_->item(r, Label);
        bool isDefault = false;
        for (IntegratorKind k : kIntegratorKinds) {
          IntegratorOptions d;
          d.kind = k;
          isDefault = isDefault || label->text() == shortLabel(d) || label->text().isEmpty();
        }
        if (isDefault) label->setText(shortLabel(o));
      }
  });
}

void ComparisonPanel::setCopies(const std::vector<CopySpec>& copies) {
  table_->setRowCount(0);
  for (const CopySpec& c : copies) addRow(c);
  table_->resizeColumnsToContents();
  // Narrow fixed columns so the status stays in view; the status column gets the rest.
  table_->setColumnWidth(Color, 22);
  table_->setColumnWidth(Dt, 62);
  table_->setColumnWidth(Status, 250);
  problem_->clear();
}

std::vector<CopySpec> ComparisonPanel::copies() const {
  std::vector<CopySpec> out;
  for (int r = 0; r < table_->rowCount(); ++r) {
    CopySpec c;
    c.label = table_->item(r, Label)->text().trimmed().toStdString();
    c.color = table_->item(r, Color)->data(Qt::UserRole).toUInt();
    c.options.kind = IntegratorKind(static_cast<QComboBox*>(table_->cellWidget(r, Integrator))->currentData().toInt());
    c.options.contacts = ContactModel(static_cast<QComboBox*>(table_->cellWidget(r, Contacts))->currentData().toInt());
    c.dt = parse(table_->item(r, Dt));
    c.options.contactStiffness = parse(table_->item(r, Stiffness));
    c.options.contactDamping = parse(table_->item(r, Damping));
    c.options.baumgarteAlpha = parse(table_->item(r, Alpha));
    c.options.baumgarteBeta = parse(table_->item(r, Beta));
    out.push_back(c);
  }
  return out;
}

QString ComparisonPanel::validate(std::vector<CopySpec>* out) const {
  const std::vector<CopySpec> cs = copies();
  if (cs.size() < 2) return tr("A comparison needs at least two copies (Add copy).");
  for (size_t k = 0; k < cs.size(); ++k) {
    const QString who = tr("Row %1 (%2)").arg(k + 1).arg(QString::fromStdString(cs[k].label));
    if (!(cs[k].dt >= 1e-6 && cs[k].dt <= 1.0)) return who + tr(": Δt must be a number of seconds in 1e-6 … 1");
    // The engine's reasons; an integrator missing from this build is started anyway and shown as
    // "cannot start" in its row (validateIntegratorOptions only judges the combination).
    try {
      if (system_) validateIntegratorOptions(cs[k].options, *system_);
    } catch (const UserError& e) {
      return who + ": " + QString::fromUtf8(e.what());
    }
  }
  if (out) *out = cs;
  return {};
}

bool ComparisonPanel::equalCost() const { return equalCost_->isChecked(); }
void ComparisonPanel::setEqualCost(bool on) { equalCost_->setChecked(on); }

void ComparisonPanel::addCopy() {
  CopySpec c;
  c.options.kind = IntegratorKind::RK4;
  c.label = "RK4";
  c.dt = dt_;
  c.color = defaultColor(table_->rowCount());
  if (table_->rowCount() == 0) {
    // The first row is the reference: the variational integrator.
    c.options.kind = IntegratorKind::Variational;
    c.label = "VI";
  }
  addRow(c);
}

void ComparisonPanel::removeCopy() {
  int row = table_->currentRow();
  if (row < 0) row = table_->rowCount() - 1;
  if (row >= 0) table_->removeRow(row);
}

void ComparisonPanel::start() {
  std::vector<CopySpec> cs;
  const QString why = validate(&cs);
  problem_->setText(why);
  if (why.isEmpty()) Q_EMIT startRequested(cs, equalCost());
}

void ComparisonPanel::chooseColor(int row) {
  QTableWidgetItem* item = table_->item(row, Color);
  const QColor c = QColorDialog::getColor(item->background().color(), this, tr("Colour of this copy"));
  if (!c.isValid()) return;
  item->setBackground(c);
  item->setData(Qt::UserRole, unsigned(c.rgb() & 0xffffff));
}

void ComparisonPanel::updateStatus(const Snapshot& s) {
  stop_->setEnabled(!s.copies.empty());
  if (s.copies.empty() || int(s.copies.size()) != table_->rowCount()) return;
  for (int r = 0; r < table_->rowCount(); ++r) {
    const CopyStatus& c = s.copies[size_t(r)];
    QString text;
    if (c.failed) {
      text = c.failure.rfind("cannot start", 0) == 0
                 ? QString::fromStdString(c.failure)
                 : tr("stopped at t = %1 s : %2").arg(c.failedAt, 0, 'f', 3).arg(QString::fromStdString(c.failure));
    } else {
      text = tr("t = %1 s, %2 steps, %3 µs/step")
                 .arg(c.state.time, 0, 'f', 3)
                 .arg(c.steps)
                 .arg(c.microsecondsPerStep, 0, 'f', 1);
    }
    if (c.calibratedMicroseconds > 0) text += tr(" · equal cost: Δt = %1 s (%2 µs/step)").arg(num(c.spec.dt)).arg(c.calibratedMicroseconds, 0, 'f', 1);
    QTableWidgetItem* st = table_->item(r, Status);
    if (st->text() != text) {
      st->setText(text);
      st->setToolTip(text);
      st->setForeground(c.failed ? QColor(0xc0, 0x39, 0x2b) : palette().color(QPalette::Text));
    }
    // The Δt in use (equal cost chooses it).
    QTableWidgetItem* dt = table_->item(r, Dt);
    if (c.calibratedMicroseconds > 0 && table_->currentItem() != dt && std::abs(parse(dt) - c.spec.dt) > 1e-15)
      dt->setText(num(c.spec.dt));
  }
}

QString ComparisonPanel::statusText(int row) const {
  const QTableWidgetItem* it = row >= 0 && row < table_->rowCount() ? table_->item(row, Status) : nullptr;
  return it ? it->text() : QString();
}

QString ComparisonPanel::problem() const { return problem_->text(); }

}  // namespace ms::ui
