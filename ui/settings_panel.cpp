// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings_panel.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <cmath>
#include <tuple>
#include <utility>

namespace ms::ui {

namespace {
QDoubleSpinBox* spin(double lo, double hi, int decimals, double step, const QString& suffix) {
  auto* s = new QDoubleSpinBox;
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  s->setSuffix(suffix);
  s->setKeyboardTracking(false);  // emit on Enter / focus out, not on every digit
  return s;
}
}  // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);

  // Integrator.
  dt_ = spin(1e-5, 0.5, 5, 0.001, " s");
  dt_->setToolTip("Time step Δt of the variational integrator (1e-5 … 0.5 s)");
  form->addRow("Time step Δt", dt_);
  tolerance_ = new QLineEdit;
  tolerance_->setToolTip("Newton tolerance on the ∞-norm of the residual (1e-15 … 1e-2)");
  form->addRow("Tolerance", tolerance_);
  complementarity_ = new QLineEdit;
  complementarity_->setToolTip("Contacts and joint limits: the largest slack × impulse accepted at convergence "
                               "(1e-15 … 1e-2)");
  form->addRow("Complementarity tol.", complementarity_);
  maxIter_ = new QSpinBox;
  maxIter_->setRange(1, 1000);
  maxIter_->setKeyboardTracking(false);
  maxIter_->setToolTip("Newton iterations per step before the step fails");
  form->addRow("Max iterations", maxIter_);
  lineSearch_ = new QSpinBox;
  lineSearch_->setRange(0, 50);
  lineSearch_->setKeyboardTracking(false);
  lineSearch_->setToolTip("Backtracking line-search halvings per Newton iteration");
  form->addRow("Line-search steps", lineSearch_);

  // Gravity.
  auto* g = new QWidget;
  auto* gl = new QHBoxLayout(g);
  gl->setContentsMargins(0, 0, 0, 0);
  const char* axes[3] = {"x ", "y ", "z "};
  for (int i = 0; i < 3; ++i) {
    gravity_[i] = spin(-1000, 1000, 3, 0.1, "");
    gravity_[i]->setPrefix(axes[i]);
    gravity_[i]->setToolTip("Gravity, m/s² (world frame)");
    gravity_[i]->setMinimumWidth(70);
    gl->addWidget(gravity_[i]);
  }
  form->addRow("Gravity (m/s²)", g);

  // History and plots.
  history_ = new QSpinBox;
  history_->setRange(10, 2000000);
  history_->setSingleStep(1000);
  history_->setKeyboardTracking(false);
  history_->setToolTip("States kept for stepping back and scrubbing (memory grows with it)");
  form->addRow("History (states)", history_);
  plotWindow_ = spin(0, 100000, 1, 1, " s");
  plotWindow_->setSpecialValueText("all");
  plotWindow_->setToolTip("Time window shown by the plots (0 = the whole run)");
  form->addRow("Plot window", plotWindow_);

  problem_ = new QLabel;
  problem_->setStyleSheet("color: #c0392b;");
  problem_->setWordWrap(true);
  form->addRow(problem_);

  // Changes are emitted as soon as a field holds a valid value.
  auto changed = [this] { emitSettings(); };
  connect(dt_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, changed);
  connect(maxIter_, qOverload<int>(&QSpinBox::valueChanged), this, changed);
  connect(lineSearch_, qOverload<int>(&QSpinBox::valueChanged), this, changed);
  for (auto* s : gravity_) connect(s, qOverload<double>(&QDoubleSpinBox::valueChanged), this, changed);
  connect(tolerance_, &QLineEdit::textEdited, this, changed);
  connect(complementarity_, &QLineEdit::textEdited, this, changed);
  connect(history_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) {
    if (!updating_) Q_EMIT historyCapacityChanged(v);
  });
  connect(plotWindow_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, [this](double v) {
    if (!updating_) Q_EMIT plotWindowChanged(v);
  });
  setStepSettings(StepSettings());
  setHistoryCapacity(10000);
  setPlotWindow(10);
}

void SettingsPanel::setStepSettings(const StepSettings& s) {
  updating_ = true;
  dt_->setValue(s.dt);
  tolerance_->setText(QString::number(s.tolerance, 'g', 3));
  complementarity_->setText(QString::number(s.complementarityTolerance, 'g', 3));
  maxIter_->setValue(s.maxIterations);
  lineSearch_->setValue(s.maxLineSearch);
  for (int i = 0; i < 3; ++i) gravity_[i]->setValue(s.gravity[i]);
  problem_->clear();
  tolerance_->setStyleSheet({});
  complementarity_->setStyleSheet({});
  updating_ = false;
}

StepSettings SettingsPanel::stepSettings() const {
  StepSettings s;
  s.dt = dt_->value();
  for (auto [field, value] : {std::pair{tolerance_, &s.tolerance}, std::pair{complementarity_, &s.complementarityTolerance}}) {
    bool ok = false;
    const double tol = field->text().trimmed().toDouble(&ok);
    if (ok && std::isfinite(tol)) *value = tol;
  }
  s.maxIterations = maxIter_->value();
  s.maxLineSearch = lineSearch_->value();
  for (int i = 0; i < 3; ++i) s.gravity[i] = gravity_[i]->value();
  return s;
}

void SettingsPanel::setHistoryCapacity(int states) {
  updating_ = true;
  history_->setValue(states);
  updating_ = false;
}
int SettingsPanel::historyCapacity() const { return history_->value(); }

void SettingsPanel::setPlotWindow(double seconds) {
  updating_ = true;
  plotWindow_->setValue(seconds);
  updating_ = false;
}
double SettingsPanel::plotWindow() const { return plotWindow_->value(); }

QString SettingsPanel::problem() const { return problem_->text(); }

void SettingsPanel::emitSettings() {
  if (updating_) return;
  // The tolerances are typed text: explain what is wrong instead of applying it.
  QString why;
  for (auto [field, label, example] : {std::tuple{tolerance_, "Tolerance", "1e-10"},
                                       std::tuple{complementarity_, "Complementarity tolerance", "1e-8"}}) {
    bool ok = false;
    const double tol = field->text().trimmed().toDouble(&ok);
    QString bad;
    if (!ok || !std::isfinite(tol))
      bad = QString("%1: '%2' is not a number (e.g. %3)").arg(label, field->text(), example);
    else if (tol < 1e-15 || tol > 1e-2)
      bad = QString("%1: %2 is outside 1e-15 … 1e-2").arg(label).arg(tol);
    field->setStyleSheet(bad.isEmpty() ? QString() : QString("border: 1px solid #c0392b;"));
    if (why.isEmpty()) why = bad;
  }
  problem_->setText(why);
  if (why.isEmpty()) Q_EMIT stepSettingsChanged(stepSettings());
}

}  // namespace ms::ui
