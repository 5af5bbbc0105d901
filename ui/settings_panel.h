// SPDX-License-Identifier: GPL-3.0-or-later
// The settings dock: the integrator (variational or a baseline, rigid or soft contacts with K and
// B, Baumgarte gains; a combination the engine refuses for the loaded model shows its reason and is
// not applied), time step, Newton tolerance and iteration caps, gravity, history length and
// the plots' time window, and the package paths for URDF package:// meshes (directories separated
// by ':' as in ROS_PACKAGE_PATH, used when a URDF is opened or reloaded; a directory that does not
// exist is named under the field), and how imported robots are read (a ground under a floating-base
// URDF robot; self-collision within a mechanism), and the snapping of handle drags in the 3D view. Every field is validated as it is typed (invalid text is marked
// and explained, never applied); valid changes are emitted at once.
#pragma once

#include <QWidget>
#include <memory>

#include "integrator/integrator.h"
#include "integrator/integrator_options.h"
#include "system/compiled_system.h"

class QCheckBox;
class QComboBox;
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
  // Package roots for URDF package://NAME/... meshes, in search order (before ROS_PACKAGE_PATH).
  // Shows `dirs` without emitting.
  void setPackagePaths(const QStringList& dirs);
  QStringList packagePaths() const;
  QLineEdit* packagePathsField() const { return packagePaths_; }
  // Why some package paths are not used ("" when every one is a directory).
  QString packagePathsProblem() const;
  // How models are read: a ground under a floating-base URDF robot, self-collision (0: as the model
  // says, 1: on, 2: off; ModelLoadOptions::SelfCollision's order). Shown without emitting.
  void setLoadSettings(bool groundUnderFloatingBase, int selfCollision);
  bool groundUnderFloatingBase() const;
  int selfCollision() const;
  QCheckBox* groundCheck() const { return ground_; }
  QComboBox* selfCollisionCombo() const { return selfCollision_; }

  // Snapping of handle drags in the 3D view: on/off, the grid step (m) and the angle step (degrees).
  // Shown without emitting.
  void setSnapping(bool on, double gridStep, double angleStepDegrees);
  bool snapping() const;
  double snapGrid() const;
  double snapAngleDegrees() const;
  // The tolerance field (tests type into it).
  QLineEdit* toleranceField() const { return tolerance_; }
  QLineEdit* complementarityField() const { return complementarity_; }
  // The message under the fields ("" when every field is valid).
  QString problem() const;

  // Integrator choice for `system` (validated against it; null: anything well-formed is accepted).
  void setSystem(std::shared_ptr<const CompiledSystem> system);
  // Shows `o` without emitting.
  void setIntegratorOptions(const IntegratorOptions& o);
  // What the fields say (valid or not).
  IntegratorOptions integratorOptions() const;
  // Why the integrator fields are not applied ("" when they are valid).
  QString integratorProblem() const;
  QComboBox* integratorCombo() const { return integrator_; }
  QComboBox* contactsCombo() const { return contacts_; }

 Q_SIGNALS:
  void stepSettingsChanged(const ms::StepSettings& s);
  void historyCapacityChanged(int states);
  void plotWindowChanged(double seconds);
  // The package paths field was edited (Enter or focus out).
  void packagePathsChanged(const QStringList& dirs);
  // The ground or self-collision setting changed (the open model is read again with it).
  void loadSettingsChanged();
  // Snapping of handle drags changed (setSnapping's arguments).
  void snappingChanged(bool on, double gridStep, double angleStepDegrees);
  // A valid integrator choice (applied by the simulation thread at its next sync point).
  void integratorChanged(const ms::IntegratorOptions& options);

 private:
  void emitSettings();
  void emitIntegrator();
  void checkPackagePaths();
  std::shared_ptr<const CompiledSystem> system_;
  QComboBox* integrator_;
  QComboBox* contacts_;
  QLineEdit *stiffness_, *damping_, *alpha_, *beta_;
  QLabel* integratorProblem_;
  QDoubleSpinBox* dt_;
  QLineEdit* tolerance_;
  QLineEdit* complementarity_;
  QSpinBox* maxIter_;
  QSpinBox* lineSearch_;
  QDoubleSpinBox* gravity_[3];
  QSpinBox* history_;
  QDoubleSpinBox* plotWindow_;
  QLineEdit* packagePaths_;
  QLabel* packagePathsProblem_;
  QCheckBox* ground_;
  QComboBox* selfCollision_;
  QCheckBox* snap_;
  QDoubleSpinBox *snapGrid_, *snapAngle_;
  QLabel* problem_;
  bool updating_ = false;
};

}  // namespace ms::ui
