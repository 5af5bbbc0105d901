// SPDX-License-Identifier: GPL-3.0-or-later
#include "joint_panel.h"

#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <cmath>

#include "model/joint_kinds.h"

namespace ms::ui {

JointPanel::JointPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  outer->addWidget(scroll);
  auto* inner = new QWidget;
  layout_ = new QVBoxLayout(inner);
  layout_->addStretch();
  scroll->setWidget(inner);
}

JointPanel::Control JointPanel::makeControl(int joint, int coordinate, double lo, double hi, const QString& unit,
                                            QWidget* parent) {
  Control c{joint, coordinate, 1000.0 / (hi - lo), new QSlider(Qt::Horizontal, parent), new QDoubleSpinBox(parent)};
  c.slider->setRange(int(std::lround(lo * c.scale)), int(std::lround(hi * c.scale)));
  c.field->setRange(lo, hi);
  c.field->setDecimals(4);
  c.field->setSingleStep((hi - lo) / 100);
  c.field->setSuffix(unit);
  c.field->setKeyboardTracking(false);
  // Slider and field show the same value.
  const double scale = c.scale;
  QSlider* slider = c.slider;
  QDoubleSpinBox* field = c.field;
  connect(slider, &QSlider::valueChanged, field, [field, scale](int v) {
    if (std::lround(field->value() * scale) != v) field->setValue(v / scale);
  });
  connect(field, qOverload<double>(&QDoubleSpinBox::valueChanged), slider, [slider, scale](double v) {
    const QSignalBlocker block(slider);
    slider->setValue(int(std::lround(v * scale)));
  });
  return c;
}

void JointPanel::setSystem(std::shared_ptr<const CompiledSystem> system) {
  system_ = std::move(system);
  positions_.clear();
  actuators_.clear();
  delete content_;
  content_ = new QWidget;
  auto* v = new QVBoxLayout(content_);
  v->setContentsMargins(0, 0, 0, 0);
  layout_->insertWidget(0, content_);
  if (!system_) return;
  const Model& model = system_->model;

  // Initial positions of the tree joints (loop-closure joints follow from them).
  auto* posBox = new QGroupBox("Joint positions (set while paused)");
  auto* pg = new QGridLayout(posBox);
  int row = 0;
  for (int j : system_->treeJoints) {
    const JointGeometry& geo = system_->joints[j].geo;
    const int dof = geo.freeCoordinates();
    if (dof == 0) continue;
    const JointDesc& desc = model.joints[j];
    for (int c = 0; c < dof; ++c) {
      const bool translational = c < geo.fT;
      double lo = translational ? -1.0 : -M_PI, hi = translational ? 1.0 : M_PI;
      // Use the joint's limits when it has them.
      if (c < int(desc.lowerLimit.size()) && c < int(desc.upperLimit.size()) && desc.lowerLimit[c] < desc.upperLimit[c] &&
          std::isfinite(desc.lowerLimit[c]) && std::isfinite(desc.upperLimit[c])) {
        lo = desc.lowerLimit[c];
        hi = desc.upperLimit[c];
      }
      const double k = !translational && degrees_ ? 180.0 / M_PI : 1.0;
      Control ctl = makeControl(j, c, lo * k, hi * k, translational ? " m" : degrees_ ? " °" : " rad", posBox);
      ctl.display = k;
      const QString label = dof == 1 ? QString::fromStdString(desc.name) : QString("%1 [%2]").arg(QString::fromStdString(desc.name)).arg(c);
      pg->addWidget(new QLabel(label), row, 0);
      pg->addWidget(ctl.slider, row, 1);
      pg->addWidget(ctl.field, row, 2);
      const int joint = j;
      connect(ctl.field, qOverload<double>(&QDoubleSpinBox::valueChanged), this, [this, joint] {
        if (!updating_) positionEdited(joint);
      });
      positions_.push_back(ctl);
      ++row;
    }
  }
  if (row == 0) pg->addWidget(new QLabel("No joint coordinates"), 0, 0);
  v->addWidget(posBox);

  // Actuator efforts (N or N·m), applied while running.
  if (!model.actuators.empty()) {
    auto* actBox = new QGroupBox("Actuators");
    auto* ag = new QGridLayout(actBox);
    row = 0;
    for (const ActuatorDesc& a : model.actuators) {
      // On a tendon: one input; its output times each term's coef on the term's coordinate.
      if (a.tendon >= 0) {
        const TendonDesc& t = model.tendons[size_t(a.tendon)];
        const double initial = a.effort.empty() ? 0.0 : a.effort[0];
        const bool bounded = std::isfinite(a.controlLower) && std::isfinite(a.controlUpper) && a.controlLower < a.controlUpper;
        const double range = std::max(10.0, 10.0 * std::abs(initial));
        Control ctl = makeControl(-1, 0, bounded ? a.controlLower : -range, bounded ? a.controlUpper : range, "", actBox);
        ctl.field->setValue(initial);
        ag->addWidget(new QLabel(QString::fromStdString(t.name) + " (tendon)"), row, 0);
        ag->addWidget(ctl.slider, row, 1);
        ag->addWidget(ctl.field, row, 2);
        connect(ctl.field, qOverload<double>(&QDoubleSpinBox::valueChanged), this, [this, t, a](double value) {
          for (const TendonTerm& term : t.terms) Q_EMIT actuatorChanged(term.joint, term.coordinate, term.coef * actuatorOutput(a, value));
        });
        actuators_.push_back(ctl);
        ++row;
        continue;
      }
      const JointGeometry& geo = system_->joints[a.joint].geo;
      for (int c = 0; c < geo.freeCoordinates(); ++c) {
        // The slider sets the actuator's input u (over its control range when that is finite); the
        // joint gets gear · u clamped to the ranges (actuatorOutput).
        const double initial = a.effort.size() == 1 ? a.effort[0] : c < int(a.effort.size()) ? a.effort[c] : 0.0;
        const double range = std::max(10.0, 10.0 * std::abs(initial));
        const bool bounded = std::isfinite(a.controlLower) && std::isfinite(a.controlUpper) && a.controlLower < a.controlUpper;
        const bool translational = c < geo.fT;
        const char* unit = a.gear != 1 || bounded ? "" : translational ? " N" : " N·m";
        Control ctl = makeControl(a.joint, c, bounded ? a.controlLower : -range, bounded ? a.controlUpper : range, unit, actBox);
        ctl.field->setValue(initial);
        ag->addWidget(new QLabel(QString::fromStdString(model.joints[a.joint].name)), row, 0);
        ag->addWidget(ctl.slider, row, 1);
        ag->addWidget(ctl.field, row, 2);
        const int joint = a.joint, coord = c;
        connect(ctl.field, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
                [this, joint, coord, a](double value) { Q_EMIT actuatorChanged(joint, coord, actuatorOutput(a, value)); });
        actuators_.push_back(ctl);
        ++row;
      }
    }
    v->addWidget(actBox);
  }
}

void JointPanel::setAngleDegrees(bool on) {
  if (on == degrees_) return;
  degrees_ = on;
  setSystem(system_);  // the values come back with the next snapshot
}

void JointPanel::positionEdited(int joint) {
  std::vector<double> position(system_->joints[joint].geo.freeCoordinates(), 0.0);
  for (const Control& c : positions_)
    if (c.joint == joint) position[c.coordinate] = c.field->value() / c.display;
  Q_EMIT initialPositionRequested(joint, position);
}

void JointPanel::setSnapshot(const Snapshot& s) {
  if (!system_ || s.system != system_) return;
  updating_ = true;
  for (const Control& c : positions_) {
    // Editable only while paused; do not fight the user while a slider is held.
    c.slider->setEnabled(!s.running);
    c.field->setEnabled(!s.running);
    if (c.slider->isSliderDown() || c.field->hasFocus()) continue;
    if (c.joint < int(s.jointPositions.size())) {
      const QSignalBlocker block(c.field);
      const double v = s.jointPositions[c.joint][c.coordinate] * c.display;
      c.field->setValue(v);
      const QSignalBlocker blockSlider(c.slider);
      c.slider->setValue(int(std::lround(c.field->value() * c.scale)));
    }
  }
  updating_ = false;
}

QDoubleSpinBox* JointPanel::positionField(int joint, int coordinate) const {
  for (const Control& c : positions_)
    if (c.joint == joint && c.coordinate == coordinate) return c.field;
  return nullptr;
}

QDoubleSpinBox* JointPanel::actuatorField(int joint, int coordinate) const {
  for (const Control& c : actuators_)
    if (c.joint == joint && c.coordinate == coordinate) return c.field;
  return nullptr;
}

}  // namespace ms::ui
