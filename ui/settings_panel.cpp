// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <cmath>
#include <tuple>

#include "core/check.h"
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

  // Integrator choice: kind, contact model, soft-contact K and B, Baumgarte gains.
  integrator_ = new QComboBox;
  integrator_->setObjectName("settings-integrator");
  for (IntegratorKind k : kIntegratorKinds) integrator_->addItem(QString::fromUtf8(displayName(k)), int(k));
  integrator_->setToolTip("Time stepper: the variational integrator (default), a baseline on acceleration-level "
                          "dynamics (explicit Euler, symplectic Euler, Heun, RK4), the exponential integrator (soft "
                          "contacts), trep's midpoint VI or Lee et al.'s RIQN in joint coordinates, or a MuJoCo copy");
  form->addRow("Integrator", integrator_);
  contacts_ = new QComboBox;
  contacts_->setObjectName("settings-contacts");
  contacts_->addItem("rigid", int(ContactModel::Rigid));
  contacts_->addItem("soft (spring–damper)", int(ContactModel::Soft));
  contacts_->setToolTip("Rigid contacts (inequality constraints, variational integrator) or soft spring–damper contacts");
  form->addRow("Contacts", contacts_);
  auto* kb = new QWidget;
  auto* kbl = new QHBoxLayout(kb);
  kbl->setContentsMargins(0, 0, 0, 0);
  stiffness_ = new QLineEdit;
  stiffness_->setToolTip("Soft-contact stiffness K, N/m");
  damping_ = new QLineEdit;
  damping_->setToolTip("Soft-contact damping B, N·s/m");
  kbl->addWidget(new QLabel("K"));
  kbl->addWidget(stiffness_);
  kbl->addWidget(new QLabel("B"));
  kbl->addWidget(damping_);
  form->addRow("Soft contact", kb);
  auto* ab = new QWidget;
  auto* abl = new QHBoxLayout(ab);
  abl->setContentsMargins(0, 0, 0, 0);
  alpha_ = new QLineEdit;
  alpha_->setToolTip("Baumgarte velocity gain α, 1/s (explicit integrators; 0: none)");
  beta_ = new QLineEdit;
  beta_->setToolTip("Baumgarte position gain β, 1/s (explicit integrators; 0: none)");
  abl->addWidget(new QLabel("α"));
  abl->addWidget(alpha_);
  abl->addWidget(new QLabel("β"));
  abl->addWidget(beta_);
  form->addRow("Baumgarte", ab);
  integratorProblem_ = new QLabel;
  integratorProblem_->setObjectName("settings-integrator-problem");
  integratorProblem_->setStyleSheet("color: #c0392b;");
  integratorProblem_->setWordWrap(true);
  form->addRow(integratorProblem_);
  connect(integrator_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { emitIntegrator(); });
  connect(contacts_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { emitIntegrator(); });
  for (QLineEdit* e : {stiffness_, damping_, alpha_, beta_}) connect(e, &QLineEdit::editingFinished, this, [this] { emitIntegrator(); });

  // Step.
  dt_ = spin(1e-5, 0.5, 5, 0.001, " s");
  dt_->setToolTip("Time step Δt of the integrator (1e-5 … 0.5 s)");
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

  // URDF package roots, searched for package://NAME/... meshes before ROS_PACKAGE_PATH.
  packagePaths_ = new QLineEdit;
  packagePaths_->setObjectName("settings-package-paths");
  packagePaths_->setPlaceholderText(QString("e.g. ~/ros_ws/src%1/opt/ros/humble/share").arg(QDir::listSeparator()));
  packagePaths_->setToolTip(
      QString("Directories holding ROS packages, separated by '%1' (as in ROS_PACKAGE_PATH): a URDF mesh "
              "package://NAME/PATH is looked up as DIR/NAME/PATH, then in a directory NAME with a package.xml up to "
              "4 levels below DIR; then in ROS_PACKAGE_PATH. Used when a URDF is opened or reloaded (File > Reload); "
              "mechstudio --package-path DIR adds one for the session.")
          .arg(QDir::listSeparator()));
  form->addRow("Package paths", packagePaths_);
  packagePathsProblem_ = new QLabel;
  packagePathsProblem_->setObjectName("settings-package-paths-problem");
  packagePathsProblem_->setStyleSheet("color: #c0392b;");
  packagePathsProblem_->setWordWrap(true);
  form->addRow(packagePathsProblem_);
  connect(packagePaths_, &QLineEdit::editingFinished, this, [this] {
    checkPackagePaths();
    if (!updating_) Q_EMIT packagePathsChanged(packagePaths());
  });

  // Imported robots: a ground under a floating base, self-collision.
  ground_ = new QCheckBox("Ground under a floating-base robot");
  ground_->setObjectName("settings-urdf-ground");
  ground_->setChecked(true);
  ground_->setToolTip("A URDF robot whose base is free gets a ground plane at its lowest collision shape, as Gazebo's and "
                      "PyBullet's users add one (mechstudio-cli: --no-ground leaves it out). Used when a model is opened "
                      "or reloaded.");
  form->addRow("Imported robots", ground_);
  selfCollision_ = new QComboBox;
  selfCollision_->setObjectName("settings-self-collision");
  selfCollision_->addItem("As the model says (URDF: off)");
  selfCollision_->addItem("On: a mechanism's bodies collide");
  selfCollision_->addItem("Off: only other mechanisms and grounds");
  selfCollision_->setToolTip("Whether the bodies of one mechanism (joined through joints) collide with each other. "
                             "A URDF is read without (Gazebo's and PyBullet's default); a .mech file says it with "
                             "(collisions all|no-self|pairs). mechstudio-cli: --self-collision on|off.");
  form->addRow("Self-collision", selfCollision_);
  connect(ground_, &QCheckBox::toggled, this, [this] {
    if (!updating_) Q_EMIT loadSettingsChanged();
  });
  connect(selfCollision_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    if (!updating_) Q_EMIT loadSettingsChanged();
  });

  // Snapping of handle drags in the 3D view (the S key there toggles it).
  snap_ = new QCheckBox("Snap handle drags (S in the 3D view)");
  snap_->setObjectName("settings-snap");
  snap_->setChecked(true);
  snap_->setToolTip("A drag of a move or rotate handle puts the number it changes on a multiple of the grid step (m) or "
                    "the angle step; off, the number follows the mouse.");
  form->addRow("Editing", snap_);
  snapGrid_ = spin(0.0001, 10, 4, 0.005, " m");
  snapGrid_->setObjectName("settings-snap-grid");
  snapGrid_->setValue(0.01);
  snapAngle_ = spin(0.1, 90, 1, 1, "°");
  snapAngle_->setObjectName("settings-snap-angle");
  snapAngle_->setValue(5);
  auto* steps = new QWidget;
  auto* stepsRow = new QHBoxLayout(steps);
  stepsRow->setContentsMargins(0, 0, 0, 0);
  stepsRow->addWidget(snapGrid_);
  stepsRow->addWidget(snapAngle_);
  form->addRow("Snap steps", steps);
  const auto snapChanged = [this] {
    if (!updating_) Q_EMIT snappingChanged(snapping(), snapGrid(), snapAngleDegrees());
  };
  connect(snap_, &QCheckBox::toggled, this, snapChanged);
  connect(snapGrid_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, snapChanged);
  connect(snapAngle_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, snapChanged);

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
  setIntegratorOptions(IntegratorOptions());
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

void SettingsPanel::setPackagePaths(const QStringList& dirs) {
  updating_ = true;
  packagePaths_->setText(dirs.join(QDir::listSeparator()));
  checkPackagePaths();
  updating_ = false;
}

// The field's directories in order: separated by the list separator, trimmed, "~" for the home
// directory, empty entries left out.
QStringList SettingsPanel::packagePaths() const {
  QStringList dirs;
  for (QString d : packagePaths_->text().split(QDir::listSeparator())) {
    d = d.trimmed();
    if (d == "~" || d.startsWith("~/")) d = QDir::homePath() + d.mid(1);
    if (!d.isEmpty()) dirs << d;
  }
  return dirs;
}

QString SettingsPanel::packagePathsProblem() const { return packagePathsProblem_->text(); }

void SettingsPanel::setLoadSettings(bool groundUnderFloatingBase, int selfCollision) {
  updating_ = true;
  ground_->setChecked(groundUnderFloatingBase);
  selfCollision_->setCurrentIndex(std::clamp(selfCollision, 0, 2));
  updating_ = false;
}
bool SettingsPanel::groundUnderFloatingBase() const { return ground_->isChecked(); }

void SettingsPanel::setSnapping(bool on, double gridStep, double angleStepDegrees) {
  updating_ = true;
  snap_->setChecked(on);
  if (gridStep > 0) snapGrid_->setValue(gridStep);
  if (angleStepDegrees > 0) snapAngle_->setValue(angleStepDegrees);
  updating_ = false;
}
bool SettingsPanel::snapping() const { return snap_->isChecked(); }
double SettingsPanel::snapGrid() const { return snapGrid_->value(); }
double SettingsPanel::snapAngleDegrees() const { return snapAngle_->value(); }
int SettingsPanel::selfCollision() const { return selfCollision_->currentIndex(); }

// Names the entries that are not directories (they are kept: a drive may be mounted later).
void SettingsPanel::checkPackagePaths() {
  QStringList missing;
  for (const QString& d : packagePaths())
    if (!QFileInfo(d).isDir()) missing << d;
  const QString why = QString("Package paths: not a directory: %1").arg(missing.join(", "));
  packagePathsProblem_->setText(missing.isEmpty() ? QString() : why);
  packagePaths_->setStyleSheet(missing.isEmpty() ? QString() : QString("border: 1px solid #c0392b;"));
}

void SettingsPanel::setSystem(std::shared_ptr<const CompiledSystem> system) { system_ = std::move(system); }

void SettingsPanel::setIntegratorOptions(const IntegratorOptions& o) {
  updating_ = true;
  integrator_->setCurrentIndex(integrator_->findData(int(o.kind)));
  contacts_->setCurrentIndex(contacts_->findData(int(o.contacts)));
  stiffness_->setText(QString::number(o.contactStiffness, 'g', 6));
  damping_->setText(QString::number(o.contactDamping, 'g', 6));
  alpha_->setText(QString::number(o.baumgarteAlpha, 'g', 6));
  beta_->setText(QString::number(o.baumgarteBeta, 'g', 6));
  integratorProblem_->clear();
  updating_ = false;
}

IntegratorOptions SettingsPanel::integratorOptions() const {
  IntegratorOptions o;
  o.kind = IntegratorKind(integrator_->currentData().toInt());
  o.contacts = ContactModel(contacts_->currentData().toInt());
  // Unparsable text becomes NaN, which validation names.
  const auto num = [](const QLineEdit* e) {
    bool ok = false;
    const double v = e->text().trimmed().toDouble(&ok);
    return ok ? v : std::nan("");
  };
  o.contactStiffness = num(stiffness_);
  o.contactDamping = num(damping_);
  o.baumgarteAlpha = num(alpha_);
  o.baumgarteBeta = num(beta_);
  return o;
}

QString SettingsPanel::integratorProblem() const { return integratorProblem_->text(); }

// Validated here (the engine's own reasons, against the loaded model; an integrator this build
// lacks is named too), emitted only when valid.
void SettingsPanel::emitIntegrator() {
  if (updating_) return;
  const IntegratorOptions o = integratorOptions();
  QString why;
  try {
    if (system_) {
      makeIntegrator(o, system_);
    } else {
      CompiledSystem empty;
      validateIntegratorOptions(o, empty);
    }
  } catch (const UserError& e) {
    why = QString::fromUtf8(e.what());
  }
  integratorProblem_->setText(why);
  if (why.isEmpty()) Q_EMIT integratorChanged(o);
}

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
