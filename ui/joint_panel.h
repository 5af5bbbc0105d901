// SPDX-License-Identifier: GPL-3.0-or-later
// The joints dock: one slider per free coordinate of every tree joint, which sets the initial
// joint position while the simulation is paused (and follows the motion while it runs), and one
// slider per coordinate of every actuated joint, which sets the actuator effort while running.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "sim/sim_types.h"

class QSlider;
class QDoubleSpinBox;
class QVBoxLayout;

namespace ms::ui {

class JointPanel : public QWidget {
  Q_OBJECT
 public:
  explicit JointPanel(QWidget* parent = nullptr);
  // Rebuilds the sliders for `system` (null: empty).
  void setSystem(std::shared_ptr<const CompiledSystem> system);
  // Shows the snapshot's joint positions (unless the user is dragging); enables the position
  // sliders only while paused.
  void setSnapshot(const Snapshot& s);

  // Rotational coordinates in degrees (default radians); rebuilds the controls.
  void setAngleDegrees(bool on);
  bool angleDegrees() const { return degrees_; }

  // The position control of joint j, coordinate c (tests), or null.
  QDoubleSpinBox* positionField(int joint, int coordinate) const;
  QDoubleSpinBox* actuatorField(int joint, int coordinate) const;

 Q_SIGNALS:
  void initialPositionRequested(int joint, const std::vector<double>& position);
  // value: the joint effort (the actuator's transmission applied to the slider's input).
  void actuatorChanged(int joint, int coordinate, double value);

 private:
  struct Control {
    int joint, coordinate;
    double scale;  // slider ticks per unit
    QSlider* slider;
    QDoubleSpinBox* field;
    double display = 1;  // shown value per engine value (180/π for angles in degrees)
  };
  Control makeControl(int joint, int coordinate, double lo, double hi, const QString& unit, QWidget* parent);
  void positionEdited(int joint);
  std::shared_ptr<const CompiledSystem> system_;
  std::vector<Control> positions_, actuators_;
  QVBoxLayout* layout_;
  QWidget* content_ = nullptr;
  bool updating_ = false;
  bool degrees_ = false;
};

}  // namespace ms::ui
