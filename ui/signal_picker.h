// SPDX-License-Identifier: GPL-3.0-or-later
// The signal picker (Plots ▸ Plot Signals…, Plots ▸ Phase Portrait…): every signal of the loaded
// model with its unit, filtered as you type (a glob such as '*.force.z' or a plain substring).
// Plot mode: several signals, into a new plot or an existing signal plot. Phase mode: two signals,
// x then y.
#pragma once

#include <QDialog>
#include <QStringList>
#include <vector>

class QComboBox;
class QLineEdit;
class QListWidget;

namespace ms {
class SignalCatalogue;
}

namespace ms::ui {

class SignalPicker : public QDialog {
  Q_OBJECT
 public:
  enum class Mode { Plot, Phase };
  // `targets`: titles of the existing signal plots (Plot mode), offered besides "New plot".
  SignalPicker(const SignalCatalogue& catalogue, Mode mode, const QStringList& targets, QWidget* parent = nullptr);

  void setFilter(const QString& text);
  // Catalogue indices of the signals shown (after the filter) and of those chosen.
  std::vector<int> shown() const;
  std::vector<int> chosen() const;
  // Plot mode: −1 for a new plot, else the index into `targets`.
  int target() const;

 private:
  void refill();
  const SignalCatalogue& catalogue_;
  Mode mode_;
  QLineEdit* filter_ = nullptr;
  QListWidget* list_ = nullptr;
  QComboBox* target_ = nullptr;
};

}  // namespace ms::ui
