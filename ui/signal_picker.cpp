// SPDX-License-Identifier: GPL-3.0-or-later
// SignalPicker (signal_picker.h).
#include "signal_picker.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "signals/signals.h"

namespace ms::ui {

SignalPicker::SignalPicker(const SignalCatalogue& catalogue, Mode mode, const QStringList& targets, QWidget* parent)
    : QDialog(parent), catalogue_(catalogue), mode_(mode) {
  setWindowTitle(mode == Mode::Plot ? tr("Plot signals") : tr("Phase portrait"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(mode == Mode::Plot ? tr("Choose one or more signals (Ctrl/Shift-click for several):")
                                                  : tr("Choose two signals: the first is drawn along x, the second along y:")));
  filter_ = new QLineEdit;
  filter_->setObjectName(QStringLiteral("signal-filter"));
  filter_->setPlaceholderText(tr("Filter: a name, a part of one, or a pattern such as *.force.z"));
  filter_->setClearButtonEnabled(true);
  layout->addWidget(filter_);
  list_ = new QListWidget;
  list_->setObjectName(QStringLiteral("signal-list"));
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  list_->setMinimumSize(420, 360);
  layout->addWidget(list_);
  if (mode == Mode::Plot) {
    auto* form = new QFormLayout;
    target_ = new QComboBox;
    target_->addItem(tr("New plot"));
    target_->addItems(targets);
    form->addRow(tr("Into:"), target_);
    layout->addLayout(form);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Plot"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(filter_, &QLineEdit::textChanged, this, &SignalPicker::refill);
  // Plot needs a choice; a phase portrait exactly two.
  const auto check = [this, buttons] {
    const int n = int(list_->selectedItems().size());
    buttons->button(QDialogButtonBox::Ok)->setEnabled(mode_ == Mode::Plot ? n > 0 : n == 2);
  };
  connect(list_, &QListWidget::itemSelectionChanged, this, check);
  connect(list_, &QListWidget::itemDoubleClicked, this, [this] {
    if (mode_ == Mode::Plot) accept();
  });
  refill();
  check();
}

void SignalPicker::setFilter(const QString& text) { filter_->setText(text); }

// The signals matching the filter: as a glob if it has one of * ? [, else as a substring.
void SignalPicker::refill() {
  const QString f = filter_->text().trimmed();
  const bool glob = f.contains(QLatin1Char('*')) || f.contains(QLatin1Char('?')) || f.contains(QLatin1Char('['));
  std::vector<int> indices;
  if (glob) {
    indices = catalogue_.match(f.toStdString());
  } else {
    for (int i = 0; i < catalogue_.size(); ++i)
      if (f.isEmpty() || QString::fromStdString(catalogue_.info(i).name).contains(f, Qt::CaseInsensitive)) indices.push_back(i);
  }
  list_->clear();
  for (int i : indices) {
    auto* item = new QListWidgetItem(QString::fromStdString(catalogue_.header(i, AngleUnit::Radians)), list_);
    item->setData(Qt::UserRole, i);
  }
}

std::vector<int> SignalPicker::shown() const {
  std::vector<int> out;
  for (int r = 0; r < list_->count(); ++r) out.push_back(list_->item(r)->data(Qt::UserRole).toInt());
  return out;
}

// In list order (for a phase portrait: the upper one is x).
std::vector<int> SignalPicker::chosen() const {
  std::vector<int> out;
  for (int r = 0; r < list_->count(); ++r)
    if (list_->item(r)->isSelected()) out.push_back(list_->item(r)->data(Qt::UserRole).toInt());
  return out;
}

int SignalPicker::target() const { return target_ ? target_->currentIndex() - 1 : -1; }

}  // namespace ms::ui
