// SPDX-License-Identifier: GPL-3.0-or-later
// The transport controls of the main window: Run/Pause, Step, Step back and Reset (Simulation menu,
// toolbar, keys), the speed choice and the history slider, and their state shown from a snapshot.
#pragma once

#include <QObject>
#include <QPointer>
#include <QComboBox>
#include <QSlider>

class QAction;
class QSettings;
class QToolBar;

namespace ms::ui {

class SimController;
class StatusBar;
class ViewportWidget;
struct Snapshot;

class Transport : public QObject {
  Q_OBJECT
 public:
  Transport(SimController& sim, StatusBar* status, ViewportWidget* view, QObject* parent = nullptr);
  ~Transport() override;  // the speed and history widgets too, when no toolbar took them

  QAction* runAction() const { return runAct_; }
  QAction* stepAction() const { return stepAct_; }
  QAction* stepBackAction() const { return stepBackAct_; }
  QAction* resetAction() const { return resetAct_; }
  QComboBox* speed() const { return speed_; }
  QSlider* history() const { return history_; }
  // Reset, Step back, Run, Step; then the speed and history widgets with their labels.
  void addTo(QToolBar* tb);
  // The speed chosen (QSettings "speedIndex").
  void readSettings(const QSettings& s);
  void writeSettings(QSettings& s) const;
  // Run/Pause, Step back and the history slider as the snapshot has them; the slider moves on a
  // slow tick only while running.
  void update(const Snapshot& s, bool slowTick);

 private:
  SimController& sim_;
  QAction *runAct_, *stepAct_, *stepBackAct_, *resetAct_;
  QPointer<QComboBox> speed_;
  QPointer<QSlider> history_;
  bool runButtonPauses_ = false;  // the Run action shows "Pause" and its icon (set on a change only)
};

}  // namespace ms::ui
