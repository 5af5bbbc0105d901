// SPDX-License-Identifier: GPL-3.0-or-later
// The settings dock: time step, Newton tolerance and iteration caps, gravity, history length and
// the plots' time window. Every field is validated as it is typed (invalid text is marked and
// explained, never applied); valid changes are emitted at once.
#pragma once

#include <QWidget>

#include "integrator/integrator.h"

class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QLabel;

namespace ms::ui {

class SettingsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SettingsPanel(QWidget* parent = nullptr);

  // Shows `s` without emitting (after a model load).
  void setStepSettings(const StepSettings& s);
  StepSettings stepSettings() const;
  void setHistoryCapacity(int states);
  int historyCapacity() const;
  void setPlotWindow(double seconds);
  double plotWindow() const;

  // The tolerance field (tests type into it).
  QLineEdit* toleranceField() const { return tolerance_; }
  QLineEdit* complementarityField() const { return complementarity_; }
  // The message under the fields ("" when every field is valid).
  QString problem() const;

 Q_SIGNALS:
  void stepSettingsChanged(const ms::StepSettings& s);
  void historyCapacityChanged(int states);
  void plotWindowChanged(double seconds);

 private:
  void emitSettings();
  QDoubleSpinBox* dt_;
  QLineEdit* tolerance_;
  QLineEdit* complementarity_;
  QSpinBox* maxIter_;
  QSpinBox* lineSearch_;
  QDoubleSpinBox* gravity_[3];
  QSpinBox* history_;
  QDoubleSpinBox* plotWindow_;
  QLabel* problem_;
  bool updating_ = false;
};

}  // namespace ms::ui
