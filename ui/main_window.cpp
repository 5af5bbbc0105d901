// SPDX-License-Identifier: GPL-3.0-or-later
// The main window assembles: the docks, the controllers of each concern (main_window.h lists
// them), the menus and toolbar built from their actions, the window's settings, and the GUI tick.
#include "main_window.h"

#include <QAction>
#include <QFileInfo>
#include <QFileDialog>
#include <QActionGroup>
#include <QComboBox>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSignalBlocker>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "comparison_panel.h"
#include "core/check.h"
#include "document_controller.h"
#include "io/mesh_file.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "editor/model_tree.h"
#include "experiment_controller.h"
#include "joint_panel.h"
#include "keyframe_actions.h"
#include "lesson_panel.h"
#include "plot_actions.h"
#include "plots/plot_manager.h"
#include "recorder.h"
#include "settings_panel.h"
#include "signals/signals.h"
#include "status_bar.h"
#include "system/compiled_system.h"
#include "transport.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("MechStudio");
  setAcceptDrops(true);
  setDockNestingEnabled(true);

  // Central area: the failure/diagnostics banner above the 3D view.
  auto* central = new QWidget;
  auto* v = new QVBoxLayout(central);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(0);
  status_ = new StatusBar(this);
  v->addWidget(status_->banner());
  view_ = new ViewportWidget;
  v->addWidget(view_, 1);
  setCentralWidget(central);

  transport_ = new Transport(sim_, status_, view_, this);
  buildViewActions();
  buildDocks();
  documents_ = new DocumentController(*this);
  recorder_ = new Recorder(this, view_, status_, [this] { pullFromSimulation(); }, this);
  keyframes_ = new KeyframeActions(*this);
  experiments_ = new ExperimentController(*this);
  plotActions_ = new PlotActions(*this);
  buildMenus();
  buildToolbar();

  // The simulation thread's signals arrive queued in this thread.
  connect(&sim_, &SimController::failed, this, [this](const QString& m) {
    status_->showBanner("Simulation stopped at " + m + ". Step back (←) or reset (Backspace) to go on.", true);
  });
  connect(&sim_, &SimController::error, this, [this](const QString& m) { status_->showBanner(m, true); });
  connect(view_, &ViewportWidget::perturbationChanged, this, [this](const Perturbation& p) { sim_.setPerturbation(p); });
  connect(settings_, &SettingsPanel::stepSettingsChanged, this, [this](const StepSettings& s) { sim_.setStepSettings(s); });
  connect(settings_, &SettingsPanel::historyCapacityChanged, this, [this](int n) { sim_.setHistoryCapacity(n); });
  connect(settings_, &SettingsPanel::plotWindowChanged, this, [this](double s) { plots_->setTimeWindow(s); });
  // Snapping of handle drags: Settings and the view's S key, both ways.
  connect(settings_, &SettingsPanel::snappingChanged, this,
          [this](bool on, double grid, double angle) { view_->setSnapping(on, grid, angle * M_PI / 180.0); });
  connect(view_, &ViewportWidget::snappingToggled, this, [this](bool on) {
    settings_->setSnapping(on, settings_->snapGrid(), settings_->snapAngleDegrees());
    status_->showMessage(on ? "Snapping on (S toggles it)" : "Snapping off (S toggles it)", 3000);
  });
  connect(settings_, &SettingsPanel::integratorChanged, this, [this](const IntegratorOptions& o) {
    shownIntegrator_ = o;
    sim_.setIntegrator(o);
  });
  connect(joints_, &JointPanel::initialPositionRequested, this,
          [this](int j, const std::vector<double>& p) { sim_.setInitialJointPosition(j, p); });
  connect(joints_, &JointPanel::actuatorChanged, this, [this](int j, int c, double v) { sim_.setActuator(j, c, v); });

  readSettings();

  // The GUI tick: ~60 Hz.
  timer_.setInterval(16);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, [this] { tick(); });
  tickClock_.start();
  timer_.start();
}

MainWindow::~MainWindow() { timer_.stop(); }

// ---- construction -----------------------------------------------------------------------------

void MainWindow::buildViewActions() {
  quitAct_ = new QAction("&Quit", this);
  quitAct_->setShortcut(QKeySequence::Quit);
  connect(quitAct_, &QAction::triggered, this, &QWidget::close);
  fitAct_ = new QAction("&Fit to model", this);
  fitAct_->setShortcut(QKeySequence("F"));
  connect(fitAct_, &QAction::triggered, view_, &ViewportWidget::fitToModel);
  // Follow: the selected body (else the first, usually the root of the mechanism).
  followAct_ = new QAction("F&ollow body", this);
  followAct_->setCheckable(true);
  followAct_->setShortcut(QKeySequence("Shift+F"));
  followAct_->setToolTip("The camera moves with the selected body (else the first body)");
  connect(followAct_, &QAction::toggled, this, [this](bool on) {
    view_->setFollowBody(on ? std::max(0, view_->selectedBody()) : -1);
  });
}

bool MainWindow::followBody(const QString& name) {
  const auto it = std::find(bodyNames_.begin(), bodyNames_.end(), name.toStdString());
  if (it == bodyNames_.end()) return false;
  const QSignalBlocker quiet(followAct_);
  followAct_->setChecked(true);
  view_->setFollowBody(int(it - bodyNames_.begin()));
  return true;
}

void MainWindow::buildDocks() {
  // Plots: one dock per figure, F2… toggles them.
  plots_ = new PlotManager(this);
  connect(plots_, &PlotManager::watchedSignalsChanged, this,
          [this](std::shared_ptr<const SignalCatalogue> catalogue, std::vector<int> indices) {
            sim_.watchSignals(std::move(catalogue), std::move(indices));
          });
  int key = Qt::Key_F2;
  for (QDockWidget* d : plots_->docks()) {
    d->toggleViewAction()->setShortcut(QKeySequence(key++));
  }
  // Joints and settings as tabs on the left.
  joints_ = new JointPanel;
  auto* jd = new QDockWidget("Joints", this);
  jd->setObjectName("dock-joints");
  jd->setWidget(joints_);
  addDockWidget(Qt::LeftDockWidgetArea, jd);
  settings_ = new SettingsPanel;
  auto* sd = new QDockWidget("Settings", this);
  sd->setObjectName("dock-settings");
  sd->setWidget(settings_);
  tabifyDockWidget(jd, sd);
  jd->raise();
  // The model text editor below the 3D view (the side docks keep the full height); Ctrl+E toggles it.
  editor_ = new EditorPanel;
  editorDock_ = new QDockWidget("Editor", this);
  editorDock_->setObjectName("dock-editor");
  editorDock_->setWidget(editor_);
  editorDock_->toggleViewAction()->setShortcut(QKeySequence("Ctrl+E"));
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  addDockWidget(Qt::BottomDockWidgetArea, editorDock_);
  // The model tree with its property panel: a tab of the left column, beside the editor and raised
  // (the full height leaves room for both); Ctrl+M toggles it.
  tree_ = new ModelTreePanel(editor_->editor());
  modelDock_ = new QDockWidget("Model", this);
  modelDock_->setObjectName("dock-model");
  modelDock_->setWidget(tree_);
  modelDock_->toggleViewAction()->setShortcut(QKeySequence("Ctrl+M"));
  tabifyDockWidget(sd, modelDock_);
  modelDock_->raise();
  // Comparison: the copies' table below the 3D view, a tab beside the editor (its rows are wide).
  compare_ = new ComparisonPanel;
  compareDock_ = new QDockWidget("Comparison", this);
  compareDock_->setObjectName("dock-comparison");
  compareDock_->setWidget(compare_);
  tabifyDockWidget(editorDock_, compareDock_);
  editorDock_->raise();
  // Lesson explanation: a tab of the left column, shown and raised by the Lessons menu.
  lesson_ = new LessonPanel;
  lessonDock_ = new QDockWidget("Lesson", this);
  lessonDock_->setObjectName("dock-lesson");
  lessonDock_->setWidget(lesson_);
  tabifyDockWidget(modelDock_, lessonDock_);
  modelDock_->raise();
  lessonDock_->hide();
  // Body selection both ways between the tree and the 3D view (by name: the tree is the text's).
  // A keyframe node's menu in the tree (refusals are shown by loadKeyframe).
  connect(tree_, &ModelTreePanel::keyframeRequested, this,
          [this](const QString& name, bool asInitial) { keyframes_->loadKeyframe(name, asInitial); });
  connect(tree_, &ModelTreePanel::bodySelected, this, [this](const QString& name) {
    const auto it = std::find(bodyNames_.begin(), bodyNames_.end(), name.toStdString());
    if (it != bodyNames_.end()) view_->setSelectedBody(int(it - bodyNames_.begin()));
    updateHandles();
  });
  connect(view_, &ViewportWidget::bodySelected, this, [this](int body) {
    if (body >= 0 && body < int(bodyNames_.size())) tree_->selectBody(QString::fromStdString(bodyNames_[size_t(body)]));
    updateHandles();
  });
  // A handle drag in the view: one undoable edit of the text, applied (DocumentController).
  connect(view_, &ViewportWidget::handleDragged, this,
          [this](const DragHandles& handles, int handle, double amount) { documents_->dragHandle(handles, handle, amount); });
  // Typing hides the handles (the text is no longer the model in the view); applying shows them again.
  connect(editor_->editor(), &ModelEditor::modelChecked, this, [this] {
    handlesGeneration_ = -1;
    updateHandles();
  });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction(documents_->newAction());
  file->addAction(documents_->openAction());
  file->addMenu(documents_->recentMenu());
  file->addMenu(documents_->examplesMenu());
  file->addAction(documents_->saveAction());
  file->addAction(documents_->saveAsAction());
  file->addAction(experiments_->saveExperimentAction());
  file->addAction(documents_->reloadAction());
  file->addAction(documents_->autoReloadAction());
  file->addSeparator();
  file->addAction(recorder_->screenshotAction());
  file->addAction(recorder_->recordAction());
  file->addSeparator();
  file->addAction(quitAct_);

  // Edit: undo/redo of the shared stack (typing and property edits alike).
  QMenu* edit = menuBar()->addMenu("&Edit");
  QUndoStack* stack = editor_->editor()->undoStack();
  undoAct_ = stack->createUndoAction(this, "&Undo");
  undoAct_->setShortcut(QKeySequence::Undo);
  redoAct_ = stack->createRedoAction(this, "&Redo");
  redoAct_->setShortcuts({QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")});
  edit->addAction(undoAct_);
  edit->addAction(redoAct_);
  edit->addSeparator();
  edit->addAction(documents_->applyAction());
  edit->addAction(documents_->autoApplyAction());
  edit->addSeparator();
  edit->addAction(documents_->assembleAction());

  QMenu* simMenu = menuBar()->addMenu("&Simulation");
  simMenu->addAction(transport_->runAction());
  simMenu->addAction(transport_->stepAction());
  simMenu->addAction(transport_->stepBackAction());
  simMenu->addAction(transport_->resetAction());
  simMenu->addSeparator();
  simMenu->addAction(experiments_->compareHereAction());
  simMenu->addAction(experiments_->stopComparingAction());
  simMenu->addSeparator();
  keyframes_->addTo(simMenu);

  buildViewMenu();
  menuBar()->addMenu(plotActions_->menu());
  menuBar()->addMenu(experiments_->lessonsMenu());
  QMenu* panels = menuBar()->addMenu("&Window");
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (!plots_->docks().contains(d)) panels->addAction(d->toggleViewAction());

  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&About MechStudio", this, [this] {
    QMessageBox::about(this, "About MechStudio",
                       "<b>MechStudio " MECHSTUDIO_VERSION "</b><p>Mechanisms simulated with a maximal-coordinate "
                       "variational integrator and graph-based sparse solver (Brüdigam &amp; Manchester).</p>"
                       "<p>Licensed under the GNU GPL version 3 or later.</p>");
  });
}

void MainWindow::buildViewMenu() {
  viewMenu_ = menuBar()->addMenu("&View");
  viewMenu_->addAction(fitAct_);
  viewMenu_->addAction(followAct_);
  viewMenu_->addAction(editorDock_->toggleViewAction());
  viewMenu_->addAction(modelDock_->toggleViewAction());
  ghostsAct_ = viewMenu_->addAction("&Ghosts of compared copies");
  ghostsAct_->setCheckable(true);
  ghostsAct_->setChecked(true);
  ghostsAct_->setObjectName("view-ghosts");
  connect(ghostsAct_, &QAction::toggled, this, [this](bool on) { view_->setGhostsEnabled(on); });
  QAction* sideBySide = viewMenu_->addAction("Compared copies &side by side");
  sideBySide->setCheckable(true);
  sideBySide->setObjectName("view-side-by-side");
  sideBySide->setStatusTip("Draw each compared copy beside the reference instead of over it");
  connect(sideBySide, &QAction::toggled, this, [this](bool on) {
    view_->setCompareLayout(on ? ViewportWidget::CompareLayout::SideBySide : ViewportWidget::CompareLayout::Overlay);
  });
  QMenu* presets = viewMenu_->addMenu("&Camera");
  const std::pair<const char*, ViewportWidget::ViewPreset> ps[] = {{"&Iso", ViewportWidget::ViewPreset::Iso},
                                                                   {"&Front", ViewportWidget::ViewPreset::Front},
                                                                   {"&Side", ViewportWidget::ViewPreset::Side},
                                                                   {"&Top", ViewportWidget::ViewPreset::Top}};
  int n = 1;
  for (const auto& [name, preset] : ps) {
    QAction* a = presets->addAction(name);
    a->setShortcut(QKeySequence(QString("Ctrl+%1").arg(n++)));
    const auto p = preset;
    connect(a, &QAction::triggered, this, [this, p] { view_->setViewPreset(p); });
  }
  viewMenu_->addSeparator();
  const std::pair<const char*, ViewportWidget::Overlay> ov[] = {
      {"&Links", ViewportWidget::Overlay::Links},
      {"&Joint frames", ViewportWidget::Overlay::JointFrames},
      {"Contact &points", ViewportWidget::Overlay::ContactPoints},
      {"Contact &forces", ViewportWidget::Overlay::ContactForces},
      {"Centres of &mass", ViewportWidget::Overlay::CentersOfMass},
      {"&Trails", ViewportWidget::Overlay::Trails},
      {"&Grid", ViewportWidget::Overlay::Grid},
      {"Collision s&hapes", ViewportWidget::Overlay::CollisionShapes}};
  const char* keys[] = {"L", "J", "C", "Shift+C", "M", "T", "G", "H"};
  int k = 0;
  for (const auto& [name, overlay] : ov) {
    QAction* a = viewMenu_->addAction(name);
    a->setCheckable(true);
    a->setChecked(view_->overlay(overlay));
    a->setShortcut(QKeySequence(keys[k++]));
    a->setObjectName(QString("overlay-%1").arg(int(overlay)));
    if (overlay == ViewportWidget::Overlay::CollisionShapes)
      a->setStatusTip("Draw every body's collision shapes (a collision mesh as its convex hull) and the grounds over the visual shapes");
    const auto o = overlay;
    connect(a, &QAction::toggled, this, [this, o](bool on) { view_->setOverlay(o, on); });
  }}

void MainWindow::buildToolbar() {
  QToolBar* tb = addToolBar("Simulation");
  tb->setObjectName("toolbar-simulation");
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tb->addAction(documents_->openAction());
  tb->addAction(documents_->reloadAction());
  tb->addSeparator();
  transport_->addTo(tb);
  tb->addSeparator();
  tb->addAction(recorder_->screenshotAction());
  tb->addAction(recorder_->recordAction());
  buildBuildToolbar();
}

// Build: one tool at a time (the view's clicks select, add a body, or join two); the joint type
// of the bodies added onto others and of Connect.
void MainWindow::buildBuildToolbar() {
  addToolBarBreak();
  QToolBar* tb = addToolBar("Build");
  tb->setObjectName("toolbar-build");
  tools_ = new QActionGroup(this);
  tools_->setExclusive(true);
  const auto tool = [&](const QString& text, const QString& name, const QString& tip, ViewportWidget::Tool t, ShapeDesc::Kind kind) {
    QAction* a = tb->addAction(text);
    a->setObjectName(name);
    a->setToolTip(tip);
    a->setCheckable(true);
    tools_->addAction(a);
    connect(a, &QAction::triggered, this, [this, t, kind] {
      addKind_ = kind;
      view_->setTool(t);
    });
    return a;
  };
  tool("Select", "tool-select", "Clicks select bodies; drag a selected body's handles to move it (Shift: its joint's anchor; Ctrl: the body on its joint)",
       ViewportWidget::Tool::Select, ShapeDesc::Kind::Box)
      ->setChecked(true);
  tool("Resize", "tool-resize", "Clicks select bodies; drag the arrows on a selected body's first shape to change its sizes "
       "(a box's sides, a radius, a length)", ViewportWidget::Tool::Resize, ShapeDesc::Kind::Box);
  tool("Axis", "tool-axis", "Clicks select bodies; turn the rings at a selected body's joint to tilt the joint's axis "
       "(in angle steps while snapping)", ViewportWidget::Tool::Axis, ShapeDesc::Kind::Box);
  const char* dropTip = "Click the ground to drop a free %1 there, or a body to join one to it at that point (its axis the "
                        "surface's normal; the joint type at the right)";
  tool("Box", "tool-add-box", QString(dropTip).arg("box"), ViewportWidget::Tool::Add, ShapeDesc::Kind::Box);
  tool("Sphere", "tool-add-sphere", QString(dropTip).arg("sphere"), ViewportWidget::Tool::Add, ShapeDesc::Kind::Sphere);
  tool("Capsule", "tool-add-capsule", QString(dropTip).arg("capsule"), ViewportWidget::Tool::Add, ShapeDesc::Kind::Capsule);
  tool("Cylinder", "tool-add-cylinder", QString(dropTip).arg("cylinder"), ViewportWidget::Tool::Add, ShapeDesc::Kind::Cylinder);
  // A mesh file: chosen first (STL, OBJ, COLLADA), then dropped like the shapes.
  QAction* mesh = tool("Mesh…", "tool-add-mesh", QString(dropTip).arg("body shaped by a mesh file (STL, OBJ or COLLADA)"),
                       ViewportWidget::Tool::Add, ShapeDesc::Kind::Mesh);
  connect(mesh, &QAction::triggered, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, "Add a body shaped by a mesh", addMesh_.isEmpty() ? QString() : QFileInfo(addMesh_).path(),
                                                      "Meshes (*.stl *.STL *.obj *.OBJ *.dae *.DAE)");
    QString why;
    if (file.isEmpty() || !setAddMesh(file, &why)) {
      if (!why.isEmpty()) status_->showBanner(why, true);
      findChild<QAction*>("tool-select")->trigger();
    }
  });
  tool("Connect", "tool-connect",
       "Click a point on one body (or the ground), then on another body: a joint there (the first surface's normal "
       "is its axis). A body that already hangs on a joint gets a loop joint: Edit > Assemble closes it.",
       ViewportWidget::Tool::Connect, ShapeDesc::Kind::Box);
  jointType_ = new QComboBox;
  jointType_->setObjectName("tool-joint-type");
  jointType_->setToolTip("The joint of a body added (to what was clicked: a body, or the world on the ground) and of "
                         "Connect; 'free': a body added rests where it was put, without a joint");
  jointType_->addItem("free", -1);
  for (JointType t : {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Cylindrical, JointType::Fixed,
                      JointType::Planar, JointType::Floating})
    jointType_->addItem(jointKind(t).name, int(t));
  tb->addWidget(jointType_);
  // The view asks; the document controller edits and applies; a new body is selected (its handles).
  connect(view_, &ViewportWidget::addRequested, this, [this](int body, const Vec3& point, const Vec3& normal) {
    std::string added;
    const std::string parent = body >= 0 && body < int(bodyNames_.size()) ? bodyNames_[size_t(body)] : std::string();
    if (documents_->addBody(addKind_, parent, point, normal, chosenJoint(), nullptr, &added, addMesh_))
      tree_->selectBody(QString::fromStdString(added));
  });
  connect(view_, &ViewportWidget::connectRequested, this,
          [this](int a, const Vec3& pointA, const Vec3& normalA, int b, const Vec3& pointB) {
            const auto name = [this](int i) { return i >= 0 && i < int(bodyNames_.size()) ? bodyNames_[size_t(i)] : std::string(); };
            const std::optional<JointType> type = chosenJoint();
            if (!type) {
              status_->showBanner("Connect makes a joint: choose its type in the Build toolbar (not 'free').", true);
              return;
            }
            documents_->connectBodies(name(a), pointA, name(b), pointB, normalA, *type);
          });
  connect(view_, &ViewportWidget::buildingMessage, this, [this](const QString& text) { status_->showMessage(text, 8000); });
  // Delete and duplicate from the view (keys and context menu).
  const auto nameOf = [this](int body) { return body >= 0 && body < int(bodyNames_.size()) ? bodyNames_[size_t(body)] : std::string(); };
  connect(view_, &ViewportWidget::deleteRequested, this, [this, nameOf](int body) { documents_->deleteBody(nameOf(body)); });
  connect(view_, &ViewportWidget::duplicateRequested, this, [this, nameOf](int body) { documents_->duplicateBody(nameOf(body)); });
  // Right click on a body: Duplicate, Delete, then Plot ▸ its quantities and its joints'.
  connect(view_, &ViewportWidget::bodyContextMenuRequested, this, [this, nameOf](int body, const QPoint& at) {
    const std::unique_ptr<QMenu> menu = plotActions_->bodyPlotMenu(body);
    if (!menu) return;
    const std::string name = nameOf(body);
    QAction* first = menu->actions().isEmpty() ? nullptr : menu->actions().first();
    QAction* dup = new QAction("Duplicate", menu.get());
    dup->setShortcut(QKeySequence("Ctrl+D"));
    connect(dup, &QAction::triggered, this, [this, name] { documents_->duplicateBody(name); });
    QAction* del = new QAction("Delete", menu.get());
    del->setShortcut(QKeySequence::Delete);
    connect(del, &QAction::triggered, this, [this, name] { documents_->deleteBody(name); });
    menu->insertActions(first, {dup, del});
    menu->insertSeparator(first);
    menu->exec(at);
  });
}

bool MainWindow::setAddMesh(const QString& file, QString* error) {
  // Read once here, so that a file that is not a mesh is said at once (with its line when it has one).
  MeshData mesh;
  MeshFileError err;
  if (!readMeshFile(file.toStdString(), mesh, err)) {
    if (error) *error = QString("Not a mesh to add: %1").arg(QString::fromStdString(err.formatAt(file.toStdString())));
    return false;
  }
  addMesh_ = file;
  addKind_ = ShapeDesc::Kind::Mesh;
  if (QAction* a = findChild<QAction*>("tool-add-mesh")) a->setChecked(true);
  view_->setTool(ViewportWidget::Tool::Add);
  status_->showMessage(QString("Click the ground or a body to add a body shaped by %1").arg(QFileInfo(file).fileName()), 8000);
  return true;
}

std::optional<JointType> MainWindow::chosenJoint() const {
  const int t = jointType_->currentData().toInt();
  return t < 0 ? std::nullopt : std::optional<JointType>(JointType(t));
}

// ---- settings (QSettings) ----------------------------------------------------------------------

void MainWindow::readSettings() {
  QSettings s;
  documents_->readSettings(s);
  transport_->readSettings(s);
  settings_->setHistoryCapacity(s.value("historyCapacity", 10000).toInt());
  sim_.setHistoryCapacity(settings_->historyCapacity());
  settings_->setPlotWindow(s.value("plotWindow", 10.0).toDouble());
  plots_->setTimeWindow(settings_->plotWindow());
  settings_->setPackagePaths(s.value("packagePaths").toStringList());
  settings_->setLoadSettings(s.value("import/groundUnderFloatingBase", true).toBool(), s.value("import/selfCollision", 0).toInt());
  settings_->setSnapping(s.value("edit/snap", true).toBool(), s.value("edit/snapGrid", 0.01).toDouble(),
                         s.value("edit/snapAngle", 5.0).toDouble());
  view_->setSnapping(settings_->snapping(), settings_->snapGrid(), settings_->snapAngleDegrees() * M_PI / 180.0);
  for (QAction* a : viewMenu_->actions())
    if (a->objectName().startsWith("overlay-")) a->setChecked(s.value("view/" + a->objectName(), a->isChecked()).toBool());
  if (s.contains("geometry")) restoreGeometry(s.value("geometry").toByteArray());
  else resize(1280, 800);
  if (s.contains("windowState")) restoredLayout_ = restoreState(s.value("windowState").toByteArray());
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  // Default dock widths, once the window has its size (a saved layout keeps its own).
  if (!restoredLayout_ && !defaultLayoutApplied_) {
    defaultLayoutApplied_ = true;
    QDockWidget* joints = findChild<QDockWidget*>("dock-joints");
    QDockWidget* energy = findChild<QDockWidget*>("plot-energy");
    if (joints && energy) resizeDocks({joints, energy}, {350, 400}, Qt::Horizontal);
    resizeDocks({editorDock_}, {height() * 2 / 5}, Qt::Vertical);
  }
}

void MainWindow::writeSettings() const {
  QSettings s;
  documents_->writeSettings(s);
  transport_->writeSettings(s);
  s.setValue("historyCapacity", settings_->historyCapacity());
  s.setValue("plotWindow", settings_->plotWindow());
  s.setValue("packagePaths", settings_->packagePaths());
  s.setValue("import/groundUnderFloatingBase", settings_->groundUnderFloatingBase());
  s.setValue("import/selfCollision", settings_->selfCollision());
  s.setValue("edit/snap", settings_->snapping());
  s.setValue("edit/snapGrid", settings_->snapGrid());
  s.setValue("edit/snapAngle", settings_->snapAngleDegrees());
  for (QAction* a : viewMenu_->actions())
    if (a->objectName().startsWith("overlay-")) s.setValue("view/" + a->objectName(), a->isChecked());
  s.setValue("geometry", saveGeometry());
  s.setValue("windowState", saveState());
  s.sync();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  // Unsaved edits: Save / Discard / Cancel (Cancel keeps the window open).
  if (!documents_->resolveUnsaved()) {
    e->ignore();
    return;
  }
  writeSettings();
  if (recorder_->recording()) recorder_->stopRecording();
  e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (DocumentController::canOpenDrop(e->mimeData())) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  if (documents_->openDrop(e->mimeData())) e->acceptProposedAction();
}

// ---- what app/gui_main.cpp calls ---------------------------------------------------------------

bool MainWindow::openModel(const QString& source, QString* error, const std::map<std::string, std::string>& params) {
  return documents_->openModel(source, error, params);
}
bool MainWindow::openExample(const QString& resource, QString* error) { return documents_->openExample(resource, error); }
bool MainWindow::openLesson(const QString& numberOrId, QString* error) { return experiments_->openLesson(numberOrId, error); }
bool MainWindow::openExperimentFile(const QString& path, QString* error) { return experiments_->openExperimentFile(path, error); }
bool MainWindow::loadKeyframe(const QString& name, bool asInitialState, QString* error) {
  return keyframes_->loadKeyframe(name, asInitialState, error);
}
bool MainWindow::recoverAtStart() { return documents_->recoverAtStart(); }
void MainWindow::addSessionPackagePaths(const QStringList& dirs) { documents_->addSessionPackagePaths(dirs); }
PlotDock* MainWindow::plotSignals(const QStringList& patterns, QString* error, PlotDock* into) {
  return plotActions_->plotSignals(patterns, error, into);
}
bool MainWindow::saveScreenshot(const QString& path, QString* error) { return recorder_->saveScreenshot(path, error); }

// ---- a new system ------------------------------------------------------------------------------

void MainWindow::systemLoaded(std::shared_ptr<const CompiledSystem> sys, const QString& dir, bool keepCamera, bool edited) {
  settings_->setStepSettings(sim_.stepSettings());
  // A model built from nothing is framed once it has a body (the empty one kept the default view).
  const bool firstBody = loadedSystem_ && loadedSystem_->bodies.empty() && !sys->bodies.empty();
  view_->setModel(sys, dir, keepCamera && !firstBody);
  if (view_->followBody() < 0) followAct_->setChecked(false);
  bodyNames_.clear();
  for (const CompiledBody& b : sys->bodies) bodyNames_.push_back(b.name);
  joints_->setSystem(sys);
  loadedSystem_ = sys;
  // Signal plots follow the new model by name (SimController evaluates the watched ones).
  plots_->setSignalCatalogue(std::make_shared<SignalCatalogue>(*sys));
  keyframes_->modelLoaded(edited);
  settings_->setSystem(sys);
  shownIntegrator_ = IntegratorOptions();
  settings_->setIntegratorOptions(shownIntegrator_);
  compare_->setSystem(sys, sim_.stepSettings().dt);
  compare_->setCopies({});
  experiments_->modelLoaded();
  shownCopies_.clear();
  plots_->setCopies({});
  plots_->clear();
  shownGeneration_ = -1;
}

bool MainWindow::setIntegrator(const IntegratorOptions& options, QString* error) {
  try {
    if (!loadedSystem_) throw UserError("no model is open");
    makeIntegrator(options, loadedSystem_);
  } catch (const UserError& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  shownIntegrator_ = options;
  settings_->setIntegratorOptions(options);
  sim_.setIntegrator(options);
  return true;
}

// ---- the GUI tick -------------------------------------------------------------------------------

void MainWindow::tick() {
  // Responsiveness: the longest gap between ticks.
  const double gap = double(tickClock_.nsecsElapsed()) / 1e6;
  tickClock_.restart();
  maxTickGapMs_ = std::max(maxTickGapMs_, gap);
  pullFromSimulation();
}

double MainWindow::takeMaxTickGapMs() {
  const double g = maxTickGapMs_;
  maxTickGapMs_ = 0;
  return g;
}

void MainWindow::pullFromSimulation() {
  // Samples first (every step), then the latest snapshot.
  sampleBuffer_.clear();
  double rewindTo = 0;
  const bool rewound = sim_.takeSamples(sampleBuffer_, &rewindTo);
  // The snapshot after the samples: it is at least as new, so its copies cover them.
  const Snapshot s = sim_.snapshot();
  updateComparison(s);
  if (rewound) plots_->rewind(rewindTo);
  if (!sampleBuffer_.empty()) plots_->append(sampleBuffer_);
  // Plots redraw at ~30 Hz, half of them on each tick.
  ++tickCount_;
  plots_->refreshHalf();

  if (!s.system) return;
  const bool changed = s.generation != shownGeneration_ || s.state.step != shownStep_ ||
                       s.historyCursor != shownCursor_ || s.running != shownRunning_ || s.perturbation.active;
  // The view follows every tick; text and sliders ~10 Hz while running (each repaint of a widget
  // costs a composition of the whole GL window on software renderers).
  const bool slowTick = !s.running || tickCount_ % 6 == 0;
  if (changed) {
    view_->setSnapshot(s);
    if (slowTick) joints_->setSnapshot(s);
    transport_->update(s, slowTick);
    shownGeneration_ = s.generation;
    shownStep_ = s.state.step;
    shownCursor_ = s.historyCursor;
    shownRunning_ = s.running;
  }
  // The handles follow the model and whether the view shows its initial state.
  const bool atStart = s.state.step == 0 && !s.running;
  if (atStart != atStart_ || s.generation != seenGeneration_) {
    atStart_ = atStart;
    seenGeneration_ = s.generation;
    updateHandles();
  }
  if (slowTick) {
    status_->update(s);
    compare_->updateStatus(s);
    lesson_->setRunning(s.running);
    // The reference's integrator as the simulation has it (lessons and comparisons change it).
    if (s.integrator != shownIntegrator_) {
      shownIntegrator_ = s.integrator;
      settings_->setIntegratorOptions(s.integrator);
    }
  }
  if (recorder_->recording() && changed) recorder_->recordFrame();
}

void MainWindow::updateHandles() {
  // The tools act on the initial state only; the document controller says what else stands in the
  // way (and offers to convert a model read from another format).
  view_->setBuildingAllowed(atStart_, "The tools edit the model's initial state: reset to t = 0 (Reset).");
  const int body = view_->selectedBody();
  const std::string name = body >= 0 && body < int(bodyNames_.size()) ? bodyNames_[size_t(body)] : std::string();
  const long generation = sim_.snapshot().generation;
  const auto clear = [this] {
    if (handlesBody_.empty()) return;
    view_->clearHandles();
    handlesBody_.clear();
  };
  if (name.empty() || !atStart_) return clear();
  if (name == handlesBody_ && generation == handlesGeneration_) return;
  DragHandleSets sets;
  if (documents_->dragHandlesFor(name, sets)) {
    view_->setHandles(sets);
    handlesBody_ = name;
    handlesGeneration_ = generation;
  } else {
    clear();
  }
}

// Legends of the plots follow the copies (labels, colours, "stopped at t = …").
void MainWindow::updateComparison(const Snapshot& s) {
  std::vector<std::tuple<std::string, unsigned, std::string>> key;
  for (const CopyStatus& c : s.copies) key.emplace_back(c.spec.label, c.spec.color, ComparisonPanel::stoppedNote(c).toStdString());
  if (key == shownCopies_) return;
  shownCopies_ = key;
  std::vector<PlotManager::CopyLegend> legends;
  for (const CopyStatus& c : s.copies) {
    const unsigned rgb = c.spec.color;
    legends.push_back({QString::fromStdString(c.spec.label), QColor(int((rgb >> 16) & 0xff), int((rgb >> 8) & 0xff), int(rgb & 0xff)),
                       ComparisonPanel::stoppedNote(c)});
  }
  plots_->setCopies(legends);
}

}  // namespace ms::ui
