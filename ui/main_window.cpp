// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFile>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLineEdit>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QScrollBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTextDocument>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "comparison_panel.h"
#include "core/check.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "editor/model_tree.h"
#include "gallery.h"
#include "io/experiment_file.h"
#include "io/mech_edit.h"
#include "io/mech_writer.h"
#include "io/model_file.h"
#include "joint_panel.h"
#include "lesson_panel.h"
#include "plots/phase_dock.h"
#include "plots/plot_dock.h"
#include "signal_picker.h"
#include "signals/signals.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "scenes/lessons.h"
#include "settings_panel.h"
#include "system/compiled_system.h"
#include "system/keyframe.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

namespace {
constexpr int kMaxRecent = 10;
// Speed choices: real-time factors; 0 = as fast as possible.
const double kSpeeds[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 0.0};
// An icon from the desktop theme, or Qt's built-in one when there is no theme.
QIcon themeIcon(const char* name, QStyle::StandardPixmap fallback) {
  return QIcon::fromTheme(name, QApplication::style()->standardIcon(fallback));
}
QString speedLabel(double s) {
  if (s <= 0) return "as fast as possible";
  if (s < 1) return QString("1/%1×").arg(std::lround(1 / s));
  return QString("%1×").arg(s);
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("MechStudio");
  setAcceptDrops(true);
  setDockNestingEnabled(true);

  // Central area: the failure/diagnostics banner above the 3D view.
  auto* central = new QWidget;
  auto* v = new QVBoxLayout(central);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(0);
  banner_ = new QWidget;
  banner_->setObjectName("banner");
  auto* bl = new QHBoxLayout(banner_);
  bannerLabel_ = new QLabel;
  bannerLabel_->setWordWrap(true);
  bannerLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bl->addWidget(bannerLabel_, 1);
  bannerDetails_ = new QPushButton("Details…");
  connect(bannerDetails_, &QPushButton::clicked, this, [this] {
    QMessageBox box(QMessageBox::Information, "Diagnostics", bannerFull_.section('\n', 0, 0), QMessageBox::Close, this);
    box.setDetailedText(bannerFull_);
    box.exec();
  });
  bl->addWidget(bannerDetails_);
  auto* close = new QPushButton("Dismiss");
  connect(close, &QPushButton::clicked, this, [this] { hideBanner(); });
  bl->addWidget(close);
  banner_->hide();
  v->addWidget(banner_);
  view_ = new ViewportWidget;
  v->addWidget(view_, 1);
  setCentralWidget(central);

  buildActions();
  buildDocks();
  buildMenus();
  buildToolbar();
  buildStatusBar();

  // The simulation thread's signals arrive queued in this thread.
  connect(&sim_, &SimController::failed, this, [this](const QString& m) {
    showBanner("Simulation stopped at " + m + ". Step back (←) or reset (Backspace) to go on.", true);
  });
  connect(&sim_, &SimController::error, this, [this](const QString& m) { showBanner(m, true); });
  connect(view_, &ViewportWidget::perturbationChanged, this, [this](const Perturbation& p) { sim_.setPerturbation(p); });
  connect(settings_, &SettingsPanel::stepSettingsChanged, this, [this](const StepSettings& s) { sim_.setStepSettings(s); });
  connect(settings_, &SettingsPanel::historyCapacityChanged, this, [this](int n) { sim_.setHistoryCapacity(n); });
  connect(settings_, &SettingsPanel::plotWindowChanged, this, [this](double s) { plots_->setTimeWindow(s); });
  // New package paths: an open URDF (.urdf, or .xml that may hold one) is read again with them (its
  // meshes may resolve now).
  connect(settings_, &SettingsPanel::packagePathsChanged, this, [this] {
    if (source_.endsWith(".urdf", Qt::CaseInsensitive) || source_.endsWith(".xml", Qt::CaseInsensitive)) reload();
  });
  connect(settings_, &SettingsPanel::integratorChanged, this, [this](const IntegratorOptions& o) {
    shownIntegrator_ = o;
    sim_.setIntegrator(o);
  });
  connect(compare_, &ComparisonPanel::startRequested, this,
          [this](const std::vector<CopySpec>& c, bool equalCost) { startComparison(c, equalCost); });
  connect(compare_, &ComparisonPanel::stopRequested, this, [this] { sim_.stopComparison(); });
  connect(lesson_, &LessonPanel::runToggled, this, [this] { runAct_->trigger(); });
  connect(lesson_, &LessonPanel::restartRequested, this, [this] {
    if (lessonNumber_ > 0) openLesson(QString::number(lessonNumber_));
    else if (!lessonFile_.isEmpty()) openExperimentFile(lessonFile_);
  });
  connect(joints_, &JointPanel::initialPositionRequested, this,
          [this](int j, const std::vector<double>& p) { sim_.setInitialJointPosition(j, p); });
  connect(joints_, &JointPanel::actuatorChanged, this, [this](int j, int c, double v) { sim_.setActuator(j, c, v); });

  // File watching (auto-reload), debounced because editors write in several steps.
  watcher_ = new QFileSystemWatcher(this);
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, [this] { reloadDebounce_.start(); });
  reloadDebounce_.setSingleShot(true);
  reloadDebounce_.setInterval(300);
  connect(&reloadDebounce_, &QTimer::timeout, this, [this] { fileChangedOnDisk(); });

  // Autosave: a single shot armed by the first edit after each write, so the recovery file is at
  // most one interval behind the buffer.
  autosave_.setSingleShot(true);
  autosave_.setInterval(5000);
  connect(&autosave_, &QTimer::timeout, this, [this] { writeRecovery(); });
  ModelEditor* ed = editor_->editor();
  connect(ed->document(), &QTextDocument::contentsChanged, this, [this, ed] {
    if (!loadingEditor_ && !ed->isReadOnly() && ed->isModified() && !autosave_.isActive()) autosave_.start();
  });
  // Back to the saved text (undo): nothing to recover any more.
  connect(ed->document(), &QTextDocument::modificationChanged, this, [this](bool modified) {
    if (!modified && !loadingEditor_) removeRecovery();
  });
  // Apply automatically after each check that finds the text valid; the keyframe menus follow the text.
  connect(ed, &ModelEditor::modelChecked, this, [this] {
    autoApply();
    rebuildKeyframeMenus();
  });

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

void MainWindow::buildActions() {
  openAct_ = new QAction(themeIcon("document-open", QStyle::SP_DialogOpenButton), "&Open…", this);
  openAct_->setShortcut(QKeySequence::Open);
  connect(openAct_, &QAction::triggered, this, [this] { chooseAndOpen(); });
  // Save: the editor's buffer to its file, then the model reloads from it.
  saveAct_ = new QAction(themeIcon("document-save", QStyle::SP_DialogSaveButton), "&Save", this);
  saveAct_->setShortcut(QKeySequence::Save);
  saveAct_->setToolTip("Save the editor's text to the model file and reload (Ctrl+S)");
  connect(saveAct_, &QAction::triggered, this, [this] { saveOrSaveAs(); });
  // New: the template, untitled; Save As: another file (it becomes the open model).
  newAct_ = new QAction(themeIcon("document-new", QStyle::SP_FileIcon), "&New", this);
  newAct_->setShortcut(QKeySequence::New);
  newAct_->setToolTip("A new model from a template (a single pendulum), untitled until saved");
  connect(newAct_, &QAction::triggered, this, [this] { newModel(); });
  saveAsAct_ = new QAction("Save &As…", this);
  saveAsAct_->setShortcut(QKeySequence("Ctrl+Alt+S"));
  connect(saveAsAct_, &QAction::triggered, this, [this] { saveAsChosen(); });
  // Apply: the editor's text into the simulation, without saving.
  applyAct_ = new QAction(themeIcon("system-run", QStyle::SP_CommandLink), "&Apply", this);
  applyAct_->setShortcut(QKeySequence("Ctrl+Return"));
  applyAct_->setShortcutContext(Qt::WindowShortcut);
  applyAct_->setToolTip("Load the editor's model into the simulation without saving (Ctrl+Return)");
  connect(applyAct_, &QAction::triggered, this, [this] { applyEditor(); });
  autoApplyAct_ = new QAction("Apply a&utomatically", this);
  autoApplyAct_->setCheckable(true);
  autoApplyAct_->setChecked(false);
  autoApplyAct_->setToolTip("Apply after each edit that leaves the text valid");
  reloadAct_ = new QAction(themeIcon("view-refresh", QStyle::SP_BrowserReload), "&Reload", this);
  reloadAct_->setShortcut(QKeySequence("Ctrl+R"));
  connect(reloadAct_, &QAction::triggered, this, [this] { reload(); });
  autoReloadAct_ = new QAction("Reload when the file &changes", this);
  autoReloadAct_->setCheckable(true);
  autoReloadAct_->setChecked(true);
  quitAct_ = new QAction("&Quit", this);
  quitAct_->setShortcut(QKeySequence::Quit);
  connect(quitAct_, &QAction::triggered, this, &QWidget::close);

  runAct_ = new QAction(themeIcon("media-playback-start", QStyle::SP_MediaPlay), "&Run", this);
  runAct_->setCheckable(true);
  runAct_->setShortcut(QKeySequence(Qt::Key_Space));
  runAct_->setToolTip("Run / pause (Space)");
  connect(runAct_, &QAction::triggered, this, [this](bool on) { sim_.setRunning(on); });
  stepAct_ = new QAction(themeIcon("media-seek-forward", QStyle::SP_MediaSeekForward), "&Step", this);
  stepAct_->setShortcut(QKeySequence(Qt::Key_Right));
  stepAct_->setToolTip("One step (→)");
  connect(stepAct_, &QAction::triggered, this, [this] { sim_.stepOnce(); });
  stepBackAct_ = new QAction(themeIcon("media-seek-backward", QStyle::SP_MediaSeekBackward), "Step &back", this);
  stepBackAct_->setShortcut(QKeySequence(Qt::Key_Left));
  stepBackAct_->setToolTip("One step back in the history (←)");
  connect(stepBackAct_, &QAction::triggered, this, [this] { sim_.stepBack(); });
  resetAct_ = new QAction(themeIcon("media-skip-backward", QStyle::SP_MediaSkipBackward), "R&eset", this);
  resetAct_->setShortcut(QKeySequence(Qt::Key_Backspace));
  resetAct_->setToolTip("Back to t = 0 (Backspace)");
  connect(resetAct_, &QAction::triggered, this, [this] {
    hideBanner();
    sim_.reset();
    view_->clearTrails();
  });
  // The transport keys work wherever the focus is, except in text fields.
  for (QAction* a : {runAct_, stepAct_, stepBackAct_, resetAct_}) a->setShortcutContext(Qt::WindowShortcut);

  screenshotAct_ = new QAction(themeIcon("camera-photo", QStyle::SP_DesktopIcon), "Save &screenshot…", this);
  screenshotAct_->setShortcut(QKeySequence("Ctrl+Shift+S"));
  connect(screenshotAct_, &QAction::triggered, this, [this] { chooseScreenshot(); });
  recordAct_ = new QAction(themeIcon("media-record", QStyle::SP_DialogYesButton), "&Record video", this);
  recordAct_->setCheckable(true);
  recordAct_->setShortcut(QKeySequence("Ctrl+Shift+R"));
  connect(recordAct_, &QAction::toggled, this, [this](bool on) { toggleRecording(on); });
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
  connect(editor_, &EditorPanel::modifiedChanged, this, [this] { updateEditorTitle(); });
  editor_->toolBar()->addAction(applyAct_);
  editor_->toolBar()->addAction(autoApplyAct_);
  updateEditorTitle();
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
          [this](const QString& name, bool asInitial) { loadKeyframe(name, asInitial); });
  // Plot ▸ … from a body's or joint's context menu in the tree.
  connect(tree_, &ModelTreePanel::plotRequested, this, [this](const QStringList& patterns) {
    QString why;
    if (!plotSignals(patterns, &why)) QMessageBox::warning(this, "Plot", why);
  });
  connect(tree_, &ModelTreePanel::phasePortraitRequested, this, [this](const QStringList& x, const QStringList& y) {
    QString why;
    if (!plotPhasePortrait(x, y, &why)) QMessageBox::warning(this, "Phase portrait", why);
  });
  connect(tree_, &ModelTreePanel::bodySelected, this, [this](const QString& name) {
    const auto it = std::find(bodyNames_.begin(), bodyNames_.end(), name.toStdString());
    if (it != bodyNames_.end()) view_->setSelectedBody(int(it - bodyNames_.begin()));
  });
  connect(view_, &ViewportWidget::bodySelected, this, [this](int body) {
    if (body >= 0 && body < int(bodyNames_.size())) tree_->selectBody(QString::fromStdString(bodyNames_[size_t(body)]));
  });
  // Right click on a body in the 3D view: Plot ▸ the body's quantities and those of its joints.
  connect(view_, &ViewportWidget::bodyContextMenuRequested, this, [this](int body, const QPoint& at) {
    const std::unique_ptr<QMenu> menu = bodyPlotMenu(body);
    if (menu) menu->exec(at);
  });
}

std::unique_ptr<QMenu> MainWindow::bodyPlotMenu(int body) {
  if (!loadedSystem_ || body < 0 || body >= int(loadedSystem_->bodies.size())) return nullptr;
  auto menu = std::make_unique<QMenu>(this);
  const ModelTreePanel::PlotFn plot = [this](const QStringList& p) {
    QString why;
    if (!plotSignals(p, &why)) QMessageBox::warning(this, "Plot", why);
  };
  const ModelTreePanel::PhaseFn phase = [this](const QStringList& x, const QStringList& y) {
    QString why;
    if (!plotPhasePortrait(x, y, &why)) QMessageBox::warning(this, "Phase portrait", why);
  };
  const QString name = QString::fromStdString(loadedSystem_->bodies[size_t(body)].name);
  ModelTreePanel::fillPlotMenu(menu->addMenu("Plot " + name), true, name, plot, phase);
  // The joints that hold this body (its joint to the parent and loop joints ending on it).
  for (const CompiledJoint& j : loadedSystem_->joints)
    if (j.geo.child == body) {
      const QString jn = QString::fromStdString(j.name);
      ModelTreePanel::fillPlotMenu(menu->addMenu("Plot joint " + jn), false, jn, plot, phase);
    }
  return menu;
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction(newAct_);
  file->addAction(openAct_);
  recentMenu_ = file->addMenu("Open &recent");
  examplesMenu_ = file->addMenu("&Examples");
  file->addAction(saveAct_);
  file->addAction(saveAsAct_);
  QAction* saveExp = file->addAction("Save E&xperiment As…");
  saveExp->setObjectName("save-experiment-action");
  connect(saveExp, &QAction::triggered, this, [this] {
    const QString path = experimentPathChooser ? experimentPathChooser()
                                               : QFileDialog::getSaveFileName(this, "Save experiment", userExperimentDir(),
                                                                              "Experiments (*.experiment)");
    if (path.isEmpty()) return;
    QString why;
    if (!saveExperiment(path.endsWith(".experiment") ? path : path + ".experiment", &why))
      QMessageBox::warning(this, "Save experiment", why);
  });
  file->addAction(reloadAct_);
  file->addAction(autoReloadAct_);
  file->addSeparator();
  file->addAction(screenshotAct_);
  file->addAction(recordAct_);
  file->addSeparator();
  file->addAction(quitAct_);
  rebuildExamplesMenu();

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
  edit->addAction(applyAct_);
  edit->addAction(autoApplyAct_);

  QMenu* simMenu = menuBar()->addMenu("&Simulation");
  simMenu->addAction(runAct_);
  simMenu->addAction(stepAct_);
  simMenu->addAction(stepBackAct_);
  simMenu->addAction(resetAct_);
  simMenu->addSeparator();
  compareHereAct_ = simMenu->addAction("&Compare from here");
  compareHereAct_->setObjectName("compare-from-here");
  compareHereAct_->setShortcut(QKeySequence("Ctrl+K"));
  compareHereAct_->setStatusTip("Run copies of the model with other integrators side by side, from the state shown");
  connect(compareHereAct_, &QAction::triggered, this, [this] { compareFromHere(); });
  QAction* stopCompare = simMenu->addAction("Stop comparing");
  connect(stopCompare, &QAction::triggered, this, [this] { sim_.stopComparison(); });
  // Keyframes: saved states written into the model's text (rebuilt after every check of the text).
  simMenu->addSeparator();
  saveKeyframeAct_ = simMenu->addAction("Save State as &Keyframe…");
  saveKeyframeAct_->setObjectName("save-keyframe");
  saveKeyframeAct_->setStatusTip("Write the state shown into the model's text as a (keyframe NAME ...) form (undoable)");
  connect(saveKeyframeAct_, &QAction::triggered, this, [this] { saveKeyframe(); });
  loadKeyframeMenu_ = simMenu->addMenu("&Load Keyframe");
  loadKeyframeMenu_->setObjectName("load-keyframe-menu");
  initialKeyframeMenu_ = simMenu->addMenu("Use Keyframe as &Initial State");
  initialKeyframeMenu_->setObjectName("initial-keyframe-menu");
  rebuildKeyframeMenus();

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
  }
  plotsMenu_ = menuBar()->addMenu("&Plots");
  for (QDockWidget* d : plots_->docks()) plotsMenu_->addAction(d->toggleViewAction());
  plotsMenu_->addSeparator();
  // Signals: the picker (several signals into a new or an existing plot), a phase portrait, units.
  QAction* plotSignalsAct = plotsMenu_->addAction("Plot &Signals…");
  plotSignalsAct->setObjectName("plot-signals-action");
  plotSignalsAct->setShortcut(QKeySequence("Ctrl+Shift+P"));
  connect(plotSignalsAct, &QAction::triggered, this, [this] {
    const SignalCatalogue* cat = plots_->signalCatalogue();
    if (!cat) return;
    const QList<PlotDock*> existing = plots_->signalDocks();
    QStringList titles;
    for (PlotDock* d : existing) titles << d->windowTitle();
    SignalPicker picker(*cat, SignalPicker::Mode::Plot, titles, this);
    if (picker.exec() != QDialog::Accepted) return;
    const int t = picker.target();
    plots_->addSignalPlot(picker.chosen(), t >= 0 && t < existing.size() ? existing[t] : nullptr);
  });
  QAction* phaseAct = plotsMenu_->addAction("&Phase Portrait…");
  phaseAct->setObjectName("phase-portrait-action");
  connect(phaseAct, &QAction::triggered, this, [this] {
    const SignalCatalogue* cat = plots_->signalCatalogue();
    if (!cat) return;
    SignalPicker picker(*cat, SignalPicker::Mode::Phase, {}, this);
    if (picker.exec() != QDialog::Accepted || picker.chosen().size() != 2) return;
    plots_->addPhasePortrait(picker.chosen()[0], picker.chosen()[1]);
  });
  // Angles in degrees or radians, everywhere (signal plots, phase portraits, Joints dock); kept.
  QAction* degreesAct = plotsMenu_->addAction("Angles in &Degrees");
  degreesAct->setObjectName("angles-degrees-action");
  degreesAct->setCheckable(true);
  connect(degreesAct, &QAction::toggled, this, [this](bool on) {
    plots_->setAngleDegrees(on);
    joints_->setAngleDegrees(on);
    QSettings().setValue("view/anglesInDegrees", on);
    shownGeneration_ = -1;  // the Joints dock shows the values again at the next tick
  });
  degreesAct->setChecked(QSettings().value("view/anglesInDegrees", false).toBool());
  plotsMenu_->addSeparator();
  QAction* exportAll = plotsMenu_->addAction("Export all data as CSV…");
  connect(exportAll, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export plot data", "mechstudio-run.csv", "CSV (*.csv)");
    if (path.isEmpty()) return;
    QString err;
    if (!plots_->exportCsv(path, &err)) QMessageBox::warning(this, "Export failed", err);
  });
  // Lessons: the teaching presets of scenes/lessons.h.
  lessonsMenu_ = menuBar()->addMenu("&Lessons");
  for (const Lesson& l : lessons()) {
    QAction* a = lessonsMenu_->addAction(QString("&%1  %2").arg(l.number).arg(QString::fromStdString(l.title)));
    a->setObjectName(QString("lesson-%1").arg(l.number));
    a->setStatusTip(QString::fromStdString(l.claim));
    const int n = l.number;
    connect(a, &QAction::triggered, this, [this, n] {
      if (!resolveUnsaved()) return;
      QString err;
      if (!openLesson(QString::number(n), &err)) showBanner(err, true);
    });
  }
  // The user's experiment files below them (listed again each time the menu opens).
  rebuildUserLessons();
  connect(lessonsMenu_, &QMenu::aboutToShow, this, [this] { rebuildUserLessons(); });
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

void MainWindow::buildToolbar() {
  QToolBar* tb = addToolBar("Simulation");
  tb->setObjectName("toolbar-simulation");
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tb->addAction(openAct_);
  tb->addAction(reloadAct_);
  tb->addSeparator();
  tb->addAction(resetAct_);
  tb->addAction(stepBackAct_);
  tb->addAction(runAct_);
  tb->addAction(stepAct_);
  tb->addSeparator();
  tb->addWidget(new QLabel(" Speed "));
  speed_ = new QComboBox;
  speed_->setObjectName("speed");
  for (double s : kSpeeds) speed_->addItem(speedLabel(s), s);
  speed_->setCurrentIndex(6);  // 1×
  speed_->setToolTip("Desired real-time factor");
  connect(speed_, qOverload<int>(&QComboBox::activated), this, [this](int i) { speedChosen(i); });
  tb->addWidget(speed_);
  tb->addSeparator();
  tb->addWidget(new QLabel(" History "));
  history_ = new QSlider(Qt::Horizontal);
  history_->setObjectName("history");
  history_->setMinimumWidth(200);
  history_->setToolTip("Scrub through the kept states; run or step to continue from the one shown");
  connect(history_, &QSlider::sliderMoved, this, [this](int v) { sim_.seek(v); });
  connect(history_, &QSlider::actionTriggered, this, [this](int action) {
    if (action != QAbstractSlider::SliderMove) sim_.seek(history_->sliderPosition());
  });
  tb->addWidget(history_);
  tb->addSeparator();
  tb->addAction(screenshotAct_);
  tb->addAction(recordAct_);
}

void MainWindow::buildStatusBar() {
  auto mk = [this](const QString& tip) {
    auto* l = new QLabel;
    l->setToolTip(tip);
    l->setMinimumWidth(90);
    statusBar()->addPermanentWidget(l);
    return l;
  };
  statusModel_ = new QLabel;
  statusBar()->addWidget(statusModel_, 1);
  statusTime_ = mk("Simulation time");
  statusStep_ = mk("Wall time of the last step");
  statusIter_ = mk("Newton iterations of the last step");
  statusRtf_ = mk("Achieved / desired real-time factor");
  statusContacts_ = mk("Active contacts");
  statusSolver_ = mk("Steps since load/reset that the solver accepted at the attainable accuracy of the problem "
                     "(the residual at round-off level, above the tolerance) and steps it solved in several "
                     "sub-intervals after a failed Newton solve, and steps where a closed loop met a singular "
                     "configuration (docs/engine.md)");
  statusSolver_->hide();
}

// ---- settings (QSettings) ----------------------------------------------------------------------

void MainWindow::readSettings() {
  QSettings s;
  recent_ = s.value("recentFiles").toStringList();
  rebuildRecentMenu();
  autoReloadAct_->setChecked(s.value("autoReload", true).toBool());
  const int speedIndex = s.value("speedIndex", 6).toInt();
  if (speedIndex >= 0 && speedIndex < speed_->count()) {
    speed_->setCurrentIndex(speedIndex);
    sim_.setSpeed(speed_->itemData(speedIndex).toDouble());
  }
  settings_->setHistoryCapacity(s.value("historyCapacity", 10000).toInt());
  sim_.setHistoryCapacity(settings_->historyCapacity());
  settings_->setPlotWindow(s.value("plotWindow", 10.0).toDouble());
  plots_->setTimeWindow(settings_->plotWindow());
  settings_->setPackagePaths(s.value("packagePaths").toStringList());
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
  s.setValue("recentFiles", recent_);
  s.setValue("autoReload", autoReloadAct_->isChecked());
  s.setValue("speedIndex", speed_->currentIndex());
  s.setValue("historyCapacity", settings_->historyCapacity());
  s.setValue("plotWindow", settings_->plotWindow());
  s.setValue("packagePaths", settings_->packagePaths());
  for (QAction* a : viewMenu_->actions())
    if (a->objectName().startsWith("overlay-")) s.setValue("view/" + a->objectName(), a->isChecked());
  s.setValue("geometry", saveGeometry());
  s.setValue("windowState", saveState());
  s.sync();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  // Unsaved edits: Save / Discard / Cancel (Cancel keeps the window open).
  if (!resolveUnsaved()) {
    e->ignore();
    return;
  }
  writeSettings();
  if (recording()) stopRecording();
  e->accept();
}

// ---- opening models ----------------------------------------------------------------------------

bool MainWindow::openModel(const QString& source, QString* error, const std::map<std::string, std::string>& params) {
  const bool isScene = source.startsWith("scene:");
  const QString path = isScene ? source : QFileInfo(source).absoluteFilePath();
  const bool sameFile = path == source_;
  // Read the description; every problem is listed with its location.
  Model model;
  Diagnostics diags;
  // URDF meshes package://NAME/...: the session's and the Settings' package roots.
  ModelLoadOptions options;
  for (const QString& dir : packagePaths()) options.packagePaths.push_back(QDir(dir).absolutePath().toStdString());
  const bool ok = loadModel(path.toStdString(), params, model, diags, options);
  QString text;
  if (!ok) {
    text = QString("Could not open %1:\n%2").arg(path, QString::fromStdString(diags.format()).trimmed());
  } else {
    // The separate compile step, then the initial conditions (Simulation construction).
    try {
      auto sys = compile(model);
      sim_.load(sys);
      settings_->setStepSettings(sim_.stepSettings());
      view_->setModel(sys, isScene ? QString() : QFileInfo(path).absolutePath(), sameFile);
      if (view_->followBody() < 0) followAct_->setChecked(false);
      bodyNames_.clear();
      for (const BodyDesc& b : model.bodies) bodyNames_.push_back(b.name);
      joints_->setSystem(sys);
      modelLoaded(sys);
      plots_->clear();
      source_ = path;
      params_ = params;
      shownGeneration_ = -1;
      runAct_->setChecked(false);
      hideBanner();
      // Warnings still get shown (e.g. a missing mesh), without blocking.
      if (!diags.empty()) showBanner(QString::fromStdString(diags.format()).trimmed(), false);
      setWindowTitle(QString("%1 — MechStudio").arg(isScene ? source : QFileInfo(path).fileName()));
      statusModel_->setText(QString("%1: %2 bodies, %3 joints")
                                .arg(QString::fromStdString(model.name.empty() ? path.toStdString() : model.name))
                                .arg(sys->bodies.size())
                                .arg(sys->joints.size()));
      syncEditor(path, isScene, model);
      if (!isScene) {
        addRecent(path);
        watchFile(path);
      }
      return true;
    } catch (const UserError& e) {
      text = QString("Could not open %1:\n%2").arg(path, QString::fromUtf8(e.what()));
    }
  }
  showBanner(text, true);
  if (error) *error = text;
  return false;
}

bool MainWindow::openExample(const QString& resource, QString* error) {
  QString why;
  const QString path = extractGalleryModel(resource, &why);
  if (path.isEmpty()) {
    showBanner("Could not open the example: " + why, true);
    if (error) *error = why;
    return false;
  }
  return openModel(path, error);
}

bool MainWindow::reload(QString* error) {
  if (source_.isEmpty()) return false;
  return openModel(source_, error, params_);
}

void MainWindow::addSessionPackagePaths(const QStringList& dirs) {
  for (const QString& d : dirs)
    if (!sessionPackagePaths_.contains(d)) sessionPackagePaths_ << d;
}

QStringList MainWindow::packagePaths() const { return sessionPackagePaths_ + settings_->packagePaths(); }

// ---- the editor dock ----------------------------------------------------------------------------

void MainWindow::syncEditor(const QString& path, bool isScene, const Model& model) {
  ModelEditor* ed = editor_->editor();
  // The text is read with the parameter values the model was opened with (--set), so that the tree
  // shows the bodies that are simulated.
  const bool newOverrides = ed->overrides() != params_;
  ed->setOverrides(params_);
  // A scene: its gallery file, read-only (editing it would not change the built-in scene).
  if (isScene) {
    const QString name = path.mid(6);
    QString setting;
    for (const auto& [k, v] : params_) setting += QString(" %1=%2").arg(QString::fromStdString(k), QString::fromStdString(v));
    for (const GalleryEntry& e : galleryEntries()) {
      if (e.title != name || !editor_->loadFile(e.resource, nullptr, true)) continue;
      if (params_.empty()) return updateEditorTitle();
      // With parameters: the gallery file read with them, unless it lacks one of them (then the
      // scene's model written out as .mech).
      ed->checkNow();
      const bool fits = std::none_of(ed->problems().begin(), ed->problems().end(),
                                     [](const ModelEditor::Problem& p) { return p.severity == Severity::Error; });
      if (fits) {
        editor_->setNote("Read-only: a built-in scene, shown as its gallery file with" + setting + ".");
        return updateEditorTitle();
      }
      break;
    }
    if (!params_.empty()) {
      ed->setOverrides({});
      editor_->showText(QString::fromStdString(writeMech(model)), name + ".mech",
                        "Read-only: the built-in scene " + name + " with" + setting + ", written out as .mech.");
      return updateEditorTitle();
    }
    editor_->showText(QString(), QString(), path + " is built in: it has no text to edit.");
    return updateEditorTitle();
  }
  // Unsaved edits of this file stay (a later version offers to reload or keep them).
  if (ed->fileName() == path && ed->isModified()) {
    if (newOverrides) ed->checkNow();
    return;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return;
  const QString text = QString::fromUtf8(f.readAll());
  if (ed->fileName() == path && text == ed->toPlainText() && !ed->isReadOnly()) {
    if (newOverrides) ed->checkNow();
    return;
  }
  // The same file changed on disk: keep the cursor and scroll position.
  const bool same = ed->fileName() == path;
  const int cursor = ed->textCursor().position(), scroll = ed->verticalScrollBar()->value();
  loadingEditor_ = true;
  editor_->loadFile(path);
  loadingEditor_ = false;
  autosave_.stop();
  if (const auto m = ed->lastValidModel()) appliedText_ = m->text;
  if (same) {
    QTextCursor c = ed->textCursor();
    c.setPosition(std::min(cursor, int(ed->document()->characterCount()) - 1));
    ed->setTextCursor(c);
    ed->verticalScrollBar()->setValue(scroll);
  } else {
    // A file opened in this window for the first time: edits lost by a crash are offered back.
    offerRecovery(path);
  }
  updateEditorTitle();
}

void MainWindow::updateEditorTitle() {
  // "Editor — four-bar.mech*": the star while the buffer differs from the file.
  const ModelEditor* ed = editor_->editor();
  QString title = "Editor";
  if (!ed->fileName().isEmpty()) title += " — " + QFileInfo(ed->fileName()).fileName();
  else if (!ed->isReadOnly() && ed->language() == ModelLanguage::Mech) title += " — untitled";
  if (ed->isModified()) title += "*";
  if (changedOnDisk_) title += " (changed on disk)";
  editorDock_->setWindowTitle(title);
  saveAct_->setEnabled(editor_->canSave() || (!ed->isReadOnly() && ed->fileName().isEmpty() && ed->language() == ModelLanguage::Mech));
  saveAsAct_->setEnabled(!ed->isReadOnly() && ed->language() == ModelLanguage::Mech);
}

bool MainWindow::saveEditor(QString* error) {
  QString err;
  if (!editor_->save(&err)) {
    if (error) *error = err;
    return false;
  }
  const QString file = editor_->editor()->fileName();
  statusBar()->showMessage("Saved " + file, 4000);
  // Saved: nothing to recover, and the file on disk is the buffer again.
  autosave_.stop();
  removeRecovery();
  if (changedOnDisk_) {
    changedOnDisk_ = false;
    editor_->setNote(QString());
    updateEditorTitle();
  }
  // Reload the model from the saved file (errors go to the banner; the text stays).
  if (QFileInfo(file).absoluteFilePath() == source_) {
    savedByEditor_ = editor_->editor()->toPlainText().toUtf8();
    reload();
  }
  return true;
}

void MainWindow::chooseAndOpen() {
  const QString dir = source_.isEmpty() || source_.startsWith("scene:") ? QDir::homePath() : QFileInfo(source_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, "Open model", dir,
                                                    "Models and experiments (*.mech *.trep *.urdf *.xml *.mjcf *.experiment);;MechStudio (*.mech);;trep (*.trep);;"
                                                    "URDF (*.urdf);;MuJoCo MJCF (*.xml *.mjcf);;Experiments (*.experiment)");
  if (!path.isEmpty()) openFromUser(path);
}

bool MainWindow::openFromUser(const QString& source) {
  if (!resolveUnsaved()) return false;
  if (isExperimentFile(source.toStdString())) return openExperimentFile(source);
  return source.startsWith(":/") ? openExample(source) : openModel(source);
}

void MainWindow::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  rebuildRecentMenu();
  QSettings().setValue("recentFiles", recent_);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& p : recent_) {
    QAction* a = recentMenu_->addAction(QFileInfo(p).fileName());
    a->setToolTip(p);
    a->setStatusTip(p);
    connect(a, &QAction::triggered, this, [this, p] { openFromUser(p); });  // recent files open with defaults
  }
  recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::rebuildExamplesMenu() {
  examplesMenu_->clear();
  for (const GalleryEntry& e : galleryEntries()) {
    QAction* a = examplesMenu_->addAction(e.title);
    const QString res = e.resource;
    connect(a, &QAction::triggered, this, [this, res] { openFromUser(res); });
  }
}

void MainWindow::watchFile(const QString& path) {
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  watcher_->addPath(path);
}

void MainWindow::fileChangedOnDisk() {
  // Editors often replace the file (rename): watch the new one again.
  if (!source_.isEmpty() && QFileInfo::exists(source_) && !watcher_->files().contains(source_)) watcher_->addPath(source_);
  if (source_.isEmpty() || !QFileInfo::exists(source_)) return;  // mid-save; the debounce fires again on the rename
  // The editor's own save was reloaded already.
  QFile f(source_);
  const QByteArray disk = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  if (!savedByEditor_.isEmpty()) {
    if (disk == savedByEditor_) return;
    savedByEditor_.clear();
  }
  // Unsaved edits of this file: reload (the edits are lost) or keep the buffer, marked.
  ModelEditor* ed = editor_->editor();
  if (ed->isModified() && !ed->isReadOnly() && QFileInfo(ed->fileName()).absoluteFilePath() == source_) {
    if (disk == ed->toPlainText().toUtf8()) return;
    if (ask(Question::ChangedOnDisk, source_) == Answer::Accept) {
      changedOnDisk_ = false;
      editor_->setNote(QString());
      autosave_.stop();
      removeRecovery();
      loadingEditor_ = true;
      editor_->loadFile(source_);
      loadingEditor_ = false;
      reload();
    } else {
      changedOnDisk_ = true;
      editor_->setNote("The file was changed on disk by another program. The editor keeps your text: "
                       "Save overwrites the file, Reload (Ctrl+R) after discarding the edits takes the other version.");
      updateEditorTitle();
    }
    return;
  }
  if (!autoReloadAct_->isChecked()) return;
  reload();
}

// ---- apply, recovery and unsaved edits ------------------------------------------------------------

bool MainWindow::applyEditor(QString* error) {
  ModelEditor* ed = editor_->editor();
  if (ed->checkPending()) ed->checkNow();
  const auto parsed = ed->lastValidModel();
  QString why;
  if (ed->isReadOnly() || ed->language() != ModelLanguage::Mech)
    why = "Apply works on an editable .mech text (save a .trep, .urdf or MJCF model and reload instead).";
  else if (!parsed || ed->modelStale())
    why = "Not applied: the text has errors (see the problems list). The simulation keeps the last applied model.";
  if (why.isEmpty()) {
    try {
      // Compiled from the buffer (not the file): the simulation swaps at its next sync point.
      auto sys = compile(parsed->result.model);
      sim_.apply(sys, true);
      settings_->setStepSettings(sim_.stepSettings());
      const QString dir = QFileInfo(ed->fileName().isEmpty() ? source_ : ed->fileName()).absolutePath();
      view_->setModel(sys, dir, true);
      if (view_->followBody() < 0) followAct_->setChecked(false);
      bodyNames_.clear();
      for (const CompiledBody& b : sys->bodies) bodyNames_.push_back(b.name);
      joints_->setSystem(sys);
      modelLoaded(sys);
      plots_->clear();
      shownGeneration_ = -1;
      appliedText_ = parsed->text;
      hideBanner();
      statusModel_->setText(QString("%1: %2 bodies, %3 joints (applied from the editor%4)")
                                .arg(QString::fromStdString(parsed->result.model.name))
                                .arg(sys->bodies.size())
                                .arg(sys->joints.size())
                                .arg(ed->isModified() ? ", not saved" : ""));
      return true;
    } catch (const UserError& e) {
      why = "Not applied: " + QString::fromUtf8(e.what()) + ". The simulation keeps the last applied model.";
    }
  }
  showBanner(why, true);
  if (error) *error = why;
  return false;
}

void MainWindow::autoApply() {
  // After a check: only a valid text that differs from the model running.
  if (!autoApplyAct_->isChecked() || loadingEditor_) return;
  const ModelEditor* ed = editor_->editor();
  const auto parsed = ed->lastValidModel();
  if (!parsed || ed->modelStale() || ed->isReadOnly() || parsed->text == appliedText_) return;
  applyEditor();
}

QString MainWindow::recoveryPath(const QString& file) {
  // One file per model path: a hash of the absolute path plus the file's name (readable).
  const QString abs = file.isEmpty() ? QString() : QFileInfo(file).absoluteFilePath();
  const QString key = abs.isEmpty() ? QString("untitled")
                                    : QString::fromLatin1(QCryptographicHash::hash(abs.toUtf8(), QCryptographicHash::Sha1).toHex().left(16)) +
                                          "-" + QFileInfo(abs).fileName();
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery/" + key + ".json";
}

void MainWindow::writeRecovery() {
  // The buffer and its file's path, atomically; nothing when there is nothing unsaved.
  const ModelEditor* ed = editor_->editor();
  if (!ed->isModified() || ed->isReadOnly()) return;
  const QString path = recoveryPath(ed->fileName());
  QDir().mkpath(QFileInfo(path).absolutePath());
  QJsonObject o;
  o["path"] = ed->fileName().isEmpty() ? QString() : QFileInfo(ed->fileName()).absoluteFilePath();
  o["text"] = ed->toPlainText();
  o["written"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
  QSaveFile f(path);
  const QByteArray bytes = QJsonDocument(o).toJson();
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    statusBar()->showMessage("Autosave failed: cannot write " + path + ": " + f.errorString(), 8000);
}

void MainWindow::removeRecovery() {
  autosave_.stop();
  QFile::remove(recoveryPath(editor_->editor()->fileName()));
}

void MainWindow::offerRecovery(const QString& path) {
  // A recovery file of this path written after the file itself: unsaved edits of a session that
  // did not end normally.
  const QString rec = recoveryPath(path);
  const QFileInfo ri(rec), fi(path);
  if (!ri.exists()) return;
  QFile f(rec);
  const QJsonObject o = f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
  f.close();
  const QString text = o.value("text").toString();
  ModelEditor* ed = editor_->editor();
  const bool useful = o.value("path").toString() == fi.absoluteFilePath() && o.contains("text") && text != ed->toPlainText() &&
                      (!fi.exists() || ri.lastModified() >= fi.lastModified());
  if (!useful || ask(Question::RestoreRecovery, path) != Answer::Accept) {
    QFile::remove(rec);
    return;
  }
  // Restored as one edit of the file's text: unsaved (marked *), undo goes back to the file.
  QTextCursor c(ed->document());
  c.select(QTextCursor::Document);
  c.insertText(text);
  ed->checkNow();
  statusBar()->showMessage("Restored unsaved edits of " + path + " (not saved yet)", 8000);
}

bool MainWindow::recoverAtStart() {
  // The newest recovery file (each holds the model's path, "" for untitled, and the text).
  const QDir dir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery");
  const QFileInfoList files = dir.entryInfoList({"*.json"}, QDir::Files, QDir::Time);
  if (files.isEmpty()) return false;
  QFile f(files.front().absoluteFilePath());
  const QJsonObject o = f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
  f.close();
  const QString path = o.value("path").toString(), text = o.value("text").toString();
  if (!o.contains("text")) {
    QFile::remove(files.front().absoluteFilePath());
    return false;
  }
  ModelEditor* ed = editor_->editor();
  if (!path.isEmpty()) {
    // Opening the file offers its recovery (offerRecovery), unless it is the file already open.
    if (QFileInfo(path).absoluteFilePath() == QFileInfo(ed->fileName()).absoluteFilePath()) return false;
    QString err;
    if (!QFileInfo::exists(path) || !openModel(path, &err)) return false;
    return ed->isModified() && ed->toPlainText() == text;
  }
  if (ask(Question::RestoreRecovery, "untitled") != Answer::Accept) {
    QFile::remove(files.front().absoluteFilePath());
    return false;
  }
  if (!newModel()) return false;
  QTextCursor c(ed->document());
  c.select(QTextCursor::Document);
  c.insertText(text);
  ed->checkNow();
  statusBar()->showMessage("Restored the unsaved edits of an untitled model (not saved yet)", 8000);
  return true;
}

bool MainWindow::resolveUnsaved() {
  ModelEditor* ed = editor_->editor();
  if (!ed->isModified() || ed->isReadOnly()) return true;
  switch (ask(Question::CloseUnsaved, ed->fileName())) {
    case Answer::Accept:
      return saveOrSaveAs();
    case Answer::Reject:
      removeRecovery();
      return true;
    case Answer::Cancel:
      break;
  }
  return false;
}

bool MainWindow::saveAsChosen() {
  // The path from the dialog (or the test's chooser); "" cancels.
  const QString dir = source_.isEmpty() || source_.startsWith("scene:") ? QDir::homePath() : QFileInfo(source_).absolutePath();
  const QString path = saveAsChooser_ ? saveAsChooser_()
                                      : QFileDialog::getSaveFileName(this, "Save model as", dir + "/untitled.mech", "MechStudio (*.mech)");
  if (path.isEmpty()) return false;
  QString err;
  if (saveEditorAs(path, &err)) return true;
  QMessageBox::warning(this, "Save failed", err + "\n\nThe text stays in the editor.");
  return false;
}

bool MainWindow::saveOrSaveAs() {
  // An untitled buffer has no file yet: Save is Save As.
  if (editor_->editor()->fileName().isEmpty()) return saveAsChosen();
  QString err;
  if (saveEditor(&err)) return true;
  QMessageBox::warning(this, "Save failed", err + "\n\nThe text stays in the editor.");
  return false;
}

QString MainWindow::newModelTemplate() {
  return "; A new model: a single pendulum, a 1 kg, 10 cm cube on a massless 1 m rod, released\n"
         "; horizontal. Edit it, Apply (Ctrl+Return) to simulate it, Save As to keep it.\n"
         "(mechanism \"untitled\"\n"
         "  (gravity 0 0 -9.81)\n"
         "  (solver (dt 0.01))\n"
         "\n"
         "  (body link1\n"
         "    (mass 1)\n"
         "    (shape box 0.1 0.1 0.1)\n"
         "    ; Hinge at the world origin, 1 m above the cube (along the cube's z axis).\n"
         "    (joint revolute joint1 (axis 1 0 0) (parent-anchor 0 0 0) (child-anchor 0 0 1) (position (/ pi 2)))))\n";
}

bool MainWindow::newModel() {
  if (!resolveUnsaved()) return false;
  // The template in an untitled buffer, applied to the simulation (paused, t = 0).
  autosave_.stop();
  loadingEditor_ = true;
  editor_->newUntitled(newModelTemplate());
  loadingEditor_ = false;
  changedOnDisk_ = false;
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  source_.clear();
  params_.clear();
  sim_.setRunning(false);
  const bool ok = applyEditor();
  setWindowTitle("untitled — MechStudio");
  updateEditorTitle();
  return ok;
}

bool MainWindow::saveEditorAs(const QString& path, QString* error) {
  ModelEditor* ed = editor_->editor();
  if (ed->isReadOnly()) {
    if (error) *error = "nothing to save: the text is read-only";
    return false;
  }
  const QString old = ed->fileName();
  const QString abs = QFileInfo(path).absoluteFilePath();
  if (!ed->saveTo(abs, error)) return false;
  // The old name's recovery file goes (the new name has none: the buffer is saved).
  QFile::remove(recoveryPath(old));
  autosave_.stop();
  changedOnDisk_ = false;
  editor_->setNote(QString());
  savedByEditor_ = ed->toPlainText().toUtf8();
  statusBar()->showMessage("Saved " + abs, 4000);
  // The new file becomes the open model (errors go to the banner; the file is written either way).
  openModel(abs);
  updateEditorTitle();
  return true;
}

MainWindow::Answer MainWindow::ask(Question q, const QString& file) {
  if (asker_) return asker_(q, file);
  // The default: a message box with the three (or two) choices.
  const QString name = file.isEmpty() ? QString("the untitled model") : QFileInfo(file).fileName();
  QMessageBox box(this);
  box.setIcon(QMessageBox::Question);
  QAbstractButton *accept = nullptr, *reject = nullptr;
  switch (q) {
    case Question::RestoreRecovery:
      box.setWindowTitle("Recover unsaved edits");
      box.setText(QString("There are unsaved edits of %1 from a session that did not end normally.").arg(name));
      box.setInformativeText("Restore them into the editor (unsaved), or discard them?");
      accept = box.addButton("Restore", QMessageBox::AcceptRole);
      reject = box.addButton("Discard", QMessageBox::DestructiveRole);
      break;
    case Question::CloseUnsaved:
      box.setWindowTitle("Unsaved changes");
      box.setText(QString("The editor has unsaved changes to %1.").arg(name));
      accept = box.addButton(QMessageBox::Save);
      reject = box.addButton(QMessageBox::Discard);
      box.addButton(QMessageBox::Cancel);
      break;
    case Question::ChangedOnDisk:
      box.setWindowTitle("File changed on disk");
      box.setText(QString("%1 was changed on disk by another program, and the editor has unsaved changes.").arg(name));
      box.setInformativeText("Reload the file (your edits are lost) or keep the editor's text?");
      accept = box.addButton("Reload", QMessageBox::DestructiveRole);
      reject = box.addButton("Keep my text", QMessageBox::RejectRole);
      break;
    case Question::ReplaceKeyframe:
      box.setWindowTitle("Replace keyframe");
      box.setText(QString("The model has a keyframe named '%1' already.").arg(file));
      box.setInformativeText("Replace it with the state shown? (Edit ▸ Undo brings it back.)");
      accept = box.addButton("Replace", QMessageBox::DestructiveRole);
      box.addButton(QMessageBox::Cancel);
      break;
  }
  box.exec();
  if (box.clickedButton() == accept) return Answer::Accept;
  if (box.clickedButton() == reject) return Answer::Reject;
  return Answer::Cancel;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls())
    for (const QUrl& u : e->mimeData()->urls())
      if (u.isLocalFile() && (isModelFile(u.toLocalFile().toStdString()) || isExperimentFile(u.toLocalFile().toStdString()))) {
        e->acceptProposedAction();
        return;
      }
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile() && (isModelFile(u.toLocalFile().toStdString()) || isExperimentFile(u.toLocalFile().toStdString()))) {
      openFromUser(u.toLocalFile());
      e->acceptProposedAction();
      return;
    }
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
    updateTransport(s);
    shownGeneration_ = s.generation;
    shownStep_ = s.state.step;
    shownCursor_ = s.historyCursor;
    shownRunning_ = s.running;
  }
  if (slowTick) {
    updateStatus(s);
    compare_->updateStatus(s);
    lesson_->setRunning(s.running);
    // The reference's integrator as the simulation has it (lessons and comparisons change it).
    if (s.integrator != shownIntegrator_) {
      shownIntegrator_ = s.integrator;
      settings_->setIntegratorOptions(s.integrator);
    }
  }
  if (recording() && changed) recordFrame();
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

void MainWindow::modelLoaded(std::shared_ptr<const CompiledSystem> sys) {
  loadedSystem_ = sys;
  // Signal plots follow the new model by name (SimController evaluates the watched ones).
  plots_->setSignalCatalogue(std::make_shared<SignalCatalogue>(*sys));
  rebuildKeyframeMenus();
  settings_->setSystem(sys);
  shownIntegrator_ = IntegratorOptions();
  settings_->setIntegratorOptions(shownIntegrator_);
  compare_->setSystem(sys, sim_.stepSettings().dt);
  compare_->setCopies({});
  lessonNumber_ = 0;
  lessonFile_.clear();
  experiment_.reset();
  initialKeyframe_.clear();
  shownCopies_.clear();
  plots_->setCopies({});
}

PlotDock* MainWindow::plotSignals(const QStringList& patterns, QString* error, PlotDock* into) {
  const SignalCatalogue* cat = plots_->signalCatalogue();
  if (!cat) {
    if (error) *error = "no model is open";
    return nullptr;
  }
  std::vector<int> chosen;
  for (const QString& p : patterns)
    for (int i : cat->match(p.toStdString()))
      if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  if (chosen.empty()) {
    if (error) *error = QString("no signal matches %1").arg(patterns.join(", "));
    return nullptr;
  }
  return plots_->addSignalPlot(chosen, into);
}

PhaseDock* MainWindow::plotPhasePortrait(const QStringList& x, const QStringList& y, QString* error) {
  const SignalCatalogue* cat = plots_->signalCatalogue();
  if (!cat) {
    if (error) *error = "no model is open";
    return nullptr;
  }
  // The first signal matching any of the patterns, in their order.
  const auto first = [cat](const QStringList& patterns) {
    for (const QString& p : patterns)
      if (const std::vector<int> m = cat->match(p.toStdString()); !m.empty()) return m.front();
    return -1;
  };
  const int xi = first(x), yi = first(y);
  if (xi < 0 || yi < 0) {
    if (error) *error = QString("no signal matches %1").arg((xi < 0 ? x : y).join(", "));
    return nullptr;
  }
  return plots_->addPhasePortrait(xi, yi);
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

void MainWindow::startComparison(const std::vector<CopySpec>& copies, bool equalCost) {
  if (copies.size() < 2 || !loadedSystem_) return;
  compare_->setCopies(copies);
  compare_->setEqualCost(equalCost);
  runAct_->setChecked(false);
  sim_.startComparison(copies, equalCost);
  compareDock_->show();
}

void MainWindow::compareFromHere() {
  if (!loadedSystem_) return;
  std::vector<CopySpec> copies = compare_->copies();
  if (copies.size() < 2) {
    // Default: the reference as it is, and RK4 at the same step.
    const double dt = sim_.stepSettings().dt;
    CopySpec ref;
    ref.options = sim_.integratorOptions();
    ref.label = ref.options.kind == IntegratorKind::Variational ? "VI" : displayName(ref.options.kind);
    ref.dt = dt;
    ref.color = ComparisonPanel::defaultColor(0);
    CopySpec rk4;
    rk4.options.kind = IntegratorKind::RK4;
    rk4.label = "RK4";
    rk4.dt = dt;
    rk4.color = ComparisonPanel::defaultColor(1);
    compare_->setCopies({ref, rk4});
  }
  compareDock_->show();
  compareDock_->raise();
  compare_->start();
}

bool MainWindow::openLesson(const QString& numberOrId, QString* error) {
  const std::string key = numberOrId.trimmed().toStdString();
  const Lesson* lesson = nullptr;
  for (const Lesson& l : lessons())
    if (l.id == key || std::to_string(l.number) == key) lesson = &l;
  if (!lesson && (isExperimentFile(key) || QFileInfo(numberOrId).isFile())) return openExperimentFile(numberOrId, error);
  try {
    lesson = &findLesson(key);
  } catch (const UserError& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  return openExperiment(*lesson, error);
}

bool MainWindow::openExperimentFile(const QString& path, QString* error) {
  Lesson lesson;
  try {
    lesson = loadExperiment(QFileInfo(path).absoluteFilePath().toStdString());
  } catch (const UserError& e) {
    const QString text = QString("Could not open %1:\n%2").arg(path, QString::fromUtf8(e.what()));
    showBanner(text, true);
    if (error) *error = text;
    return false;
  }
  if (!openExperiment(lesson, error)) return false;
  lessonFile_ = QFileInfo(path).absoluteFilePath();
  return true;
}

QString MainWindow::userExperimentDir() {
  const QString env = qEnvironmentVariable("MECHSTUDIO_EXPERIMENTS");
  if (!env.isEmpty()) return env;
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/experiments";
}

void MainWindow::rebuildUserLessons() {
  for (QAction* a : userLessonActions_) {
    lessonsMenu_->removeAction(a);
    a->deleteLater();
  }
  userLessonActions_.clear();
  const QDir dir(userExperimentDir());
  const QFileInfoList files = dir.entryInfoList({"*.experiment"}, QDir::Files | QDir::Readable, QDir::Name);
  if (files.isEmpty()) return;
  userLessonActions_ << lessonsMenu_->addSeparator();
  for (const QFileInfo& f : files) {
    // The title when the file reads; otherwise its name (opening it shows the errors).
    Lesson l;
    Diagnostics diags;
    const bool ok = readExperimentFile(f.absoluteFilePath().toStdString(), l, diags);
    const QString text = ok && !l.title.empty() ? QString::fromStdString(l.title) : f.fileName();
    QAction* a = lessonsMenu_->addAction(ok ? text : text + "  (has errors)");
    a->setObjectName("experiment-" + f.completeBaseName());
    a->setToolTip(f.absoluteFilePath());
    a->setStatusTip(ok ? QString::fromStdString(l.claim) : f.absoluteFilePath());
    const QString path = f.absoluteFilePath();
    connect(a, &QAction::triggered, this, [this, path] {
      if (!resolveUnsaved()) return;
      openExperimentFile(path);
    });
    userLessonActions_ << a;
  }
}

bool MainWindow::openExperiment(const Lesson& lessonIn, QString* error) {
  // Copied: opening the model resets the window's lesson state (and may reload a menu's lesson).
  const Lesson l = lessonIn;
  const Lesson* lesson = &l;
  QString source = QString::fromStdString(lessonModelSource(l));
  if (!l.modelText.empty()) {
    // An inline model: written to the cache folder as a .mech file and opened from there.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/experiments";
    source = dir + "/" + QString::fromStdString(l.id).replace(QRegularExpression("[^A-Za-z0-9_.-]"), "_") + ".mech";
    QSaveFile out(source);
    const QByteArray text = QByteArray("; The inline model of the experiment ") + l.sourceFile.c_str() + "\n" +
                            QByteArray::fromStdString(l.modelText) + "\n";
    if (!QDir().mkpath(dir) || !out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit()) {
      const QString why = "cannot write the experiment's inline model to " + source;
      showBanner(why, true);
      if (error) *error = why;
      return false;
    }
  }
  if (!openModel(source, error, lesson->params)) return false;
  // The experiment's keyframe as the initial state (queued before the comparison, which starts from it).
  if (!lesson->keyframe.empty() && !loadKeyframe(QString::fromStdString(lesson->keyframe), true, error)) return false;
  std::vector<CopySpec> copies;
  for (size_t k = 0; k < lesson->variants.size(); ++k) {
    const LessonVariant& v = lesson->variants[k];
    CopySpec c;
    c.label = v.label;
    c.options = v.options;
    c.dt = v.dt;
    c.tolerance = v.tolerance;
    c.color = ComparisonPanel::defaultColor(int(k));
    copies.push_back(c);
  }
  if (copies.size() == 1) {
    // One copy: a plain run with its integrator, Δt and tolerance (nothing to compare with).
    if (!setIntegrator(copies[0].options, error)) return false;
    StepSettings st = sim_.stepSettings();
    st.dt = copies[0].dt;
    if (copies[0].tolerance > 0) st.tolerance = copies[0].tolerance;
    sim_.setStepSettings(st);
    settings_->setStepSettings(st);
  } else {
    startComparison(copies, false);
  }
  lessonNumber_ = lesson->number;
  // The lesson's plot in front (its log scale as the lesson says).
  PlotManager::Figure focus = PlotManager::Figure::Energy;
  switch (lesson->focus) {
    case LessonFocus::ConstraintViolation: focus = PlotManager::Figure::Violation; break;
    case LessonFocus::Energy: focus = PlotManager::Figure::EnergyError; break;
    case LessonFocus::Penetration: focus = PlotManager::Figure::Penetration; break;
    case LessonFocus::AngularMomentum: focus = PlotManager::Figure::Momentum; break;
    case LessonFocus::Iterations: focus = PlotManager::Figure::Solver; break;
  }
  if (auto* dock = qobject_cast<PlotDock*>(plots_->dock(focus))) {
    dock->show();
    dock->raise();
    if (lesson->logScale) dock->setLogScale(true);
  }
  // The experiment's signal plots, one per (plot …).
  for (const std::vector<std::string>& group : lesson->plots) {
    QStringList names;
    for (const std::string& n : group) names << QString::fromStdString(n);
    QString why;
    if (!plotSignals(names, &why)) showBanner("Plot: " + why, true);
  }
  // The lesson's phase portrait (the copies overlaid).
  if (!lesson->phaseX.empty()) {
    QString why;
    if (!plotPhasePortrait({QString::fromStdString(lesson->phaseX)}, {QString::fromStdString(lesson->phaseY)}, &why))
      showBanner("Phase portrait: " + why, true);
  }
  if (lesson->camera) {
    ViewportWidget::Camera cam;
    cam.eye = Vec3(lesson->camera->eye[0], lesson->camera->eye[1], lesson->camera->eye[2]);
    cam.center = Vec3(lesson->camera->center[0], lesson->camera->center[1], lesson->camera->center[2]);
    cam.up = Vec3(lesson->camera->up[0], lesson->camera->up[1], lesson->camera->up[2]);
    view_->setCamera(cam);
  }
  // The body the view follows.
  if (!lesson->follow.empty() && !followBody(QString::fromStdString(lesson->follow)))
    showBanner(QString("Follow: the model has no body '%1'").arg(QString::fromStdString(lesson->follow)), true);
  // The plots span the lesson's suggested duration (the Settings dock's plot window shows it).
  plots_->setTimeWindow(lesson->duration);
  settings_->setPlotWindow(lesson->duration);
  lesson_->setLesson(*lesson);
  lessonDock_->show();
  lessonDock_->raise();
  if (copies.size() > 1) {
    compareDock_->show();
    compareDock_->raise();
  }
  experiment_ = std::make_shared<const Lesson>(l);
  if (lesson->number > 0)
    setWindowTitle(QString("Lesson %1: %2 — MechStudio").arg(lesson->number).arg(QString::fromStdString(lesson->title)));
  else
    setWindowTitle(QString("Experiment: %1 — MechStudio")
                       .arg(QString::fromStdString(lesson->title.empty() ? lesson->id : lesson->title)));
  return true;
}

void MainWindow::updateTransport(const Snapshot& s) {
  if (runAct_->isChecked() != s.running) runAct_->setChecked(s.running);
  // Text and icon on a change only: each new icon re-lays out and repaints the toolbar.
  if (runButtonPauses_ != s.running) {
    runButtonPauses_ = s.running;
    runAct_->setText(s.running ? "&Pause" : "&Run");
    runAct_->setIcon(s.running ? themeIcon("media-playback-pause", QStyle::SP_MediaPause) : themeIcon("media-playback-start", QStyle::SP_MediaPlay));
  }
  stepBackAct_->setEnabled(s.historyCursor > 0);
  if (!history_->isSliderDown() && (!s.running || tickCount_ % 6 == 0)) {
    history_->setRange(0, std::max(0, s.historyCount - 1));
    history_->setValue(s.historyCursor);
  }
}

void MainWindow::updateStatus(const Snapshot& s) {
  statusTime_->setText(QString("t = %1 s").arg(s.copies.empty() ? s.state.time : s.clock, 0, 'f', 3));
  statusStep_->setText(QString("%1 µs/step").arg(s.metrics.stepMicroseconds, 0, 'f', 0));
  statusIter_->setText(QString("%1 it").arg(s.metrics.iterations));
  if (s.running)
    statusRtf_->setText(QString("RTF %1 / %2").arg(s.achievedRealTimeFactor, 0, 'f', 2).arg(s.speed > 0 ? QString::number(s.speed) : "max"));
  else
    statusRtf_->setText("paused");
  statusContacts_->setText(QString("%1 contacts").arg(s.contacts.size()));
  // Shown once the solver needed either remedy.
  statusSolver_->setVisible(s.stalledSteps > 0 || s.subdividedSteps > 0 || s.singularSteps > 0);
  QString solver = QString("%1 stalled · %2 subdivided").arg(s.stalledSteps).arg(s.subdividedSteps);
  if (s.singularSteps > 0) solver += QString(" · %1 singular").arg(s.singularSteps);
  statusSolver_->setText(solver);
}

void MainWindow::speedChosen(int index) { sim_.setSpeed(speed_->itemData(index).toDouble()); }

// ---- banner -------------------------------------------------------------------------------------

void MainWindow::showBanner(const QString& text, bool error) {
  // Long diagnostics lists: the first lines here, all of them behind Details….
  bannerFull_ = text;
  const QStringList lines = text.split('\n');
  constexpr int kShown = 2;
  QString shown = lines.mid(0, kShown).join('\n');
  if (lines.size() > kShown) shown += QString("\n… and %1 more line(s)").arg(lines.size() - kShown);
  bannerDetails_->setVisible(lines.size() > kShown);
  bannerLabel_->setText(shown);
  bannerLabel_->setToolTip(text);
  banner_->setStyleSheet(error ? "#banner { background: #fdecea; } QLabel { color: #a93226; }"
                               : "#banner { background: #fef9e7; } QLabel { color: #7d6608; }");
  banner_->show();
}

void MainWindow::hideBanner() {
  banner_->hide();
  bannerLabel_->clear();
  bannerFull_.clear();
}

QString MainWindow::bannerText() const { return banner_->isVisible() ? bannerFull_ : QString(); }

// ---- screenshots and recording ------------------------------------------------------------------

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
  pullFromSimulation();
  view_->update();
  const QImage img = grab().toImage();
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
    if (error) *error = "cannot write " + path + ": " + f.errorString();
    return false;
  }
  return true;
}

void MainWindow::chooseScreenshot() {
  const QString path = QFileDialog::getSaveFileName(this, "Save screenshot", "mechstudio.png", "PNG image (*.png)");
  if (path.isEmpty()) return;
  QString err;
  if (!saveScreenshot(path, &err)) QMessageBox::warning(this, "Screenshot failed", err);
  else statusBar()->showMessage("Saved " + path, 4000);
}

void MainWindow::toggleRecording(bool on) {
  if (!on) {
    if (recording()) statusBar()->showMessage(stopRecording(), 10000);
    return;
  }
  const QString base = QStandardPaths::writableLocation(QStandardPaths::MoviesLocation);
  const QString dir = QFileDialog::getExistingDirectory(this, "Record frames into…", base.isEmpty() ? QDir::homePath() : base);
  QString err;
  if (dir.isEmpty() || !startRecording(dir, &err)) {
    if (!err.isEmpty()) QMessageBox::warning(this, "Recording", err);
    const QSignalBlocker b(recordAct_);
    recordAct_->setChecked(false);
    return;
  }
  statusBar()->showMessage("Recording frames into " + recordDir_);
}

bool MainWindow::startRecording(const QString& parentDir, QString* error) {
  const QString dir = parentDir + "/mechstudio-" + QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss");
  if (!QDir().mkpath(dir)) {
    if (error) *error = "cannot create " + dir;
    return false;
  }
  recordDir_ = dir;
  recordFrames_ = 0;
  recordError_.clear();
  const QSignalBlocker b(recordAct_);
  recordAct_->setChecked(true);
  return true;
}

void MainWindow::recordFrame() {
  // One PNG per drawn frame; the first write error stops the recording and is reported.
  const QImage img = view_->renderToImage();
  const QString path = QString("%1/frame-%2.png").arg(recordDir_).arg(recordFrames_, 6, 10, QChar('0'));
  if (!img.save(path)) {
    recordError_ = "cannot write " + path;
    statusBar()->showMessage(stopRecording(), 10000);
    return;
  }
  ++recordFrames_;
}

QString MainWindow::stopRecording() {
  const QSignalBlocker b(recordAct_);
  recordAct_->setChecked(false);
  // Encode with ffmpeg when it is installed; the PNG sequence stays either way.
  const QString ffmpeg = QStandardPaths::findExecutable("ffmpeg");
  QString msg = QString("Recorded %1 frames into %2").arg(recordFrames_).arg(recordDir_);
  if (!recordError_.isEmpty()) msg += " (stopped: " + recordError_ + ")";
  if (!ffmpeg.isEmpty() && recordFrames_ > 0) {
    const QString out = recordDir_ + ".mp4";
    const int rc = QProcess::execute(ffmpeg, {"-y", "-loglevel", "error", "-framerate", "60", "-i", recordDir_ + "/frame-%06d.png",
                                              "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", out});
    msg += rc == 0 ? " and " + out : " (ffmpeg failed, exit " + QString::number(rc) + ")";
  } else if (ffmpeg.isEmpty()) {
    msg += " (install ffmpeg to get an MP4)";
  }
  recordDir_.clear();
  return msg;
}

// ---- keyframes -----------------------------------------------------------------------------------

const std::vector<KeyframeDesc>* MainWindow::keyframes() const {
  // The editor's last valid model (it has the keyframes just saved), else the model loaded.
  const ModelEditor* ed = editor_->editor();
  if (const auto m = ed->lastValidModel(); m && ed->language() == ModelLanguage::Mech) return &m->result.model.keyframes;
  return loadedSystem_ ? &loadedSystem_->model.keyframes : nullptr;
}

QStringList MainWindow::keyframeNames() const {
  QStringList names;
  if (const auto* k = keyframes())
    for (const KeyframeDesc& d : *k) names << QString::fromStdString(d.name);
  return names;
}

void MainWindow::rebuildKeyframeMenus() {
  if (!loadKeyframeMenu_) return;
  const QStringList names = keyframeNames();
  for (QMenu* menu : {loadKeyframeMenu_, initialKeyframeMenu_}) {
    const bool initial = menu == initialKeyframeMenu_;
    menu->clear();
    for (const QString& n : names) {
      QAction* a = menu->addAction(QString(n).replace('&', "&&"));
      a->setObjectName((initial ? "initial-keyframe-" : "load-keyframe-") + n);
      connect(a, &QAction::triggered, this, [this, n, initial] { loadKeyframe(n, initial); });
    }
    if (names.isEmpty()) menu->addAction("(the model has no keyframes)")->setEnabled(false);
  }
}

bool MainWindow::loadKeyframe(const QString& name, bool asInitialState, QString* error) {
  QString why;
  const KeyframeDesc* found = nullptr;
  if (const auto* list = keyframes())
    for (const KeyframeDesc& k : *list)
      if (QString::fromStdString(k.name) == name) found = &k;
  if (!loadedSystem_) {
    why = "no model is open";
  } else if (!found) {
    const QStringList names = keyframeNames();
    why = QString("the model has no keyframe '%1' (its keyframes: %2)")
              .arg(name, names.isEmpty() ? QString("none") : "'" + names.join("', '") + "'");
  } else {
    // Checked here against the model the simulation has (or gets with the requests queued before
    // this one): the simulation thread would refuse the same keyframe.
    try {
      stateFromKeyframe(*loadedSystem_, *found);
    } catch (const UserError& e) {
      why = QString::fromUtf8(e.what());
    }
  }
  if (!why.isEmpty()) {
    showBanner((asInitialState ? "Keyframe not used as the initial state: " : "Keyframe not loaded: ") + why, true);
    if (error) *error = why;
    return false;
  }
  hideBanner();
  runAct_->setChecked(false);
  if (asInitialState) sim_.useKeyframeAsInitialState(*found);
  else sim_.loadKeyframe(*found);
  if (asInitialState) initialKeyframe_ = name;
  view_->clearTrails();
  // (Not before the window is shown: the status bar would draw the message over its model label.)
  if (isVisible())
    statusBar()->showMessage(QString(asInitialState ? "Keyframe '%1' is the initial state (Reset returns to it)" : "Loaded keyframe '%1'").arg(name), 6000);
  return true;
}

bool MainWindow::saveExperiment(const QString& path, QString* error) {
  const auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!loadedSystem_) return fail("no model is open");
  // An open lesson's texts, focus and log scale are kept; the rest is what is on screen.
  Lesson e = experiment_ ? *experiment_ : Lesson();
  e.number = 0;
  e.id = QFileInfo(path).completeBaseName().toStdString();
  if (e.title.empty()) e.title = loadedSystem_->model.name.empty() ? e.id : loadedSystem_->model.name;
  e.scene.clear();
  e.modelFile.clear();
  e.modelText.clear();
  e.params = params_;
  // The model: a scene, the file (relative to the experiment), or inline when the simulated text is
  // not the file's (edited and applied, not saved) or the file is an experiment's cached inline model.
  const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
  const QString expDir = QFileInfo(path).absolutePath();
  if (source_.startsWith("scene:")) {
    e.scene = source_.mid(6).toStdString();
  } else {
    QFile file(source_);
    const bool readable = file.open(QIODevice::ReadOnly);
    const std::string onDisk = readable ? file.readAll().toStdString() : std::string();
    const bool inline_ = !readable || QFileInfo(source_).absoluteFilePath().startsWith(cache) ||
                         (!appliedText_.empty() && appliedText_ != onDisk);
    if (inline_) {
      const std::string& text = appliedText_.empty() ? onDisk : appliedText_;
      const size_t at = text.find("(mechanism");
      if (at == std::string::npos) return fail("the model open is not a .mech model: save it as a file first");
      e.modelText = text.substr(at);
      while (!e.modelText.empty() && std::isspace(static_cast<unsigned char>(e.modelText.back()))) e.modelText.pop_back();
    } else {
      // Relative when it sits beside the experiment or below a common parent (they move together),
      // absolute when the way there climbs further up.
      const QString abs = QFileInfo(source_).absoluteFilePath(), rel = QDir(expDir).relativeFilePath(abs);
      e.modelFile = (rel.startsWith("../../") ? abs : rel).toStdString();
    }
  }
  e.keyframe = initialKeyframe_.toStdString();
  // The copies compared, or the one simulation.
  const Snapshot s = sim_.snapshot();
  e.variants.clear();
  if (s.copies.size() >= 2) {
    for (const CopyStatus& c : s.copies) e.variants.push_back({c.spec.label, c.spec.options, c.spec.dt, c.spec.tolerance});
  } else {
    const IntegratorOptions o = sim_.integratorOptions();
    e.variants.push_back({o.kind == IntegratorKind::Variational ? "VI" : displayName(o.kind), o, sim_.stepSettings().dt, 0});
  }
  if (plots_->timeWindow() > 0) e.duration = plots_->timeWindow();
  e.plots.clear();
  for (PlotDock* d : plots_->signalDocks()) {
    std::vector<std::string> names;
    for (const QString& n : d->signalNames()) names.push_back(n.toStdString());
    if (!names.empty()) e.plots.push_back(names);
  }
  e.phaseX.clear();
  e.phaseY.clear();
  if (!plots_->phaseDocks().isEmpty()) {
    e.phaseX = plots_->phaseDocks().front()->xAxis().name.toStdString();
    e.phaseY = plots_->phaseDocks().front()->yAxis().name.toStdString();
  }
  const ViewportWidget::Camera cam = view_->camera();
  e.camera = LessonCamera{{{cam.eye.x(), cam.eye.y(), cam.eye.z()}},
                          {{cam.center.x(), cam.center.y(), cam.center.z()}},
                          {{cam.up.x(), cam.up.y(), cam.up.z()}}};
  // Written atomically, after checking that it reads back as the same experiment.
  const std::string text = writeExperiment(e);
  Lesson back;
  Diagnostics diags;
  if (!readExperimentText(text, path.toStdString(), back, diags) || back != e)
    return fail("internal error: the experiment does not read back as written:\n" + QString::fromStdString(errorSummary(diags)));
  QSaveFile out(path);
  const QByteArray bytes = QByteArray::fromStdString(text);
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
    return fail(QString("cannot write %1: %2").arg(path, out.errorString()));
  statusBar()->showMessage(QString("Saved the experiment %1").arg(QFileInfo(path).fileName()), 6000);
  return true;
}

bool MainWindow::saveKeyframe(QString* error) {
  ModelEditor* ed = editor_->editor();
  QString why;
  auto refuse = [&](const QString& text) {
    const QString full = "Keyframe not saved: " + text;
    showBanner(full, true);
    if (error) *error = full;
    return false;
  };
  if (ed->isReadOnly() || ed->language() != ModelLanguage::Mech)
    return refuse("keyframes are written into an editable .mech text, and this model has none (save it as .mech first).");
  if (ed->checkPending()) ed->checkNow();
  const auto parsed = ed->lastValidModel();
  if (!parsed || ed->modelStale()) return refuse("the text has errors (see the problems list); fix them first.");
  // The state shown, once every request queued so far is applied.
  sim_.sync();
  const Snapshot snap = sim_.snapshot();
  if (!snap.system) return refuse("no model is simulated.");
  // The simulated bodies must be the text's (an unapplied edit may have changed them).
  const Model& textModel = parsed->result.model;
  std::vector<std::string> simulated;
  for (const CompiledBody& b : snap.system->bodies) simulated.push_back(b.name);
  std::vector<std::string> written;
  for (const BodyDesc& b : textModel.bodies) written.push_back(b.name);
  std::sort(simulated.begin(), simulated.end());
  std::sort(written.begin(), written.end());
  if (simulated != written)
    return refuse("the bodies of the simulated model are not the bodies of the editor's text (Apply the text first, Ctrl+Return).");
  // The name: the first free "keyframe-N" is suggested.
  int n = 1;
  while (textModel.keyframe("keyframe-" + std::to_string(n))) ++n;
  const QString suggested = QString("keyframe-%1").arg(n);
  QString name = keyframeNameAsker_ ? keyframeNameAsker_(suggested)
                                    : QInputDialog::getText(this, "Save State as Keyframe", "Name of the keyframe:", QLineEdit::Normal, suggested);
  name = name.trimmed();
  if (name.isEmpty()) return false;  // cancelled
  if (textModel.keyframe(name.toStdString()) && ask(Question::ReplaceKeyframe, name) != Answer::Accept) return false;
  const KeyframeDesc k = keyframeFromState(*snap.system, snap.state, name.toStdString());
  QString err;
  if (!ed->applyEdit([&k](const sexpr::Document& doc, const MechParseResult& p) { return setKeyframe(doc, p, k); },
                     "Save keyframe '" + name + "'", &err))
    return refuse(err);
  statusBar()->showMessage(QString("Saved keyframe '%1' into the text (t = %2 s; not saved to the file yet)").arg(name).arg(snap.state.time, 0, 'f', 3), 6000);
  return true;
}

}  // namespace ms::ui
