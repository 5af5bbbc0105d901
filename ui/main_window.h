// SPDX-License-Identifier: GPL-3.0-or-later
// The main window of mechstudio: the 3D viewport in the centre, plot docks, the settings and
// joints docks, a transport toolbar with the history slider, menus with shortcuts, a status bar,
// and the failure banner. A ~60 Hz timer copies the simulation thread's snapshot into the view and
// its per-step samples into the plots; nothing here waits for a step.
//
// The window only assembles: it creates the docks and the classes that own each concern and wires
// their actions into menus and the toolbar —
//   DocumentController    document_controller.h   open, recent, reload on change, save, recovery, drop, apply
//   ExperimentController  experiment_controller.h lessons, experiment files, comparison copies
//   KeyframeActions       keyframe_actions.h      save / load / use a keyframe
//   PlotActions           plot_actions.h          the Plots menu, signal plots, a body's Plot menu
//   Recorder              recorder.h              screenshot, frames, video
//   StatusBar             status_bar.h            banner and status labels
//   Transport             transport.h             run, step, step back, reset, speed, history
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QStringList>
#include <QTimer>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sim/sim_controller.h"

class QAction;
class QDockWidget;
class QMenu;

class QActionGroup;
class QComboBox;

namespace ms::ui {

class ComparisonPanel;
class DocumentController;
class EditorPanel;
class ExperimentController;
class JointPanel;
class KeyframeActions;
class LessonPanel;
class ModelTreePanel;
class PhaseDock;
class PlotActions;
class PlotDock;
class PlotManager;
class Recorder;
class SettingsPanel;
class StatusBar;
class Transport;
class ViewportWidget;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // The concerns, each with its own actions.
  DocumentController* documents() const { return documents_; }
  ExperimentController* experiments() const { return experiments_; }
  KeyframeActions* keyframes() const { return keyframes_; }
  PlotActions* plotActions() const { return plotActions_; }
  Recorder* recorder() const { return recorder_; }
  StatusBar* status() const { return status_; }
  Transport* transport() const { return transport_; }
  // The Build toolbar's Mesh… tool with `file` (what its file dialog returns): read to check it is a
  // mesh (false and *error, file:line: why, when not), then the Add tool drops bodies shaped by it.
  bool setAddMesh(const QString& file, QString* error = nullptr);

  // Parts, for the controllers, tests and the screenshot mode.
  SimController& sim() { return sim_; }
  ViewportWidget* viewport() const { return view_; }
  PlotManager* plots() const { return plots_; }
  SettingsPanel* settingsPanel() const { return settings_; }
  JointPanel* jointPanel() const { return joints_; }
  EditorPanel* editorPanel() const { return editor_; }
  QDockWidget* editorDock() const { return editorDock_; }
  // The model tree and property panel (the "Model" dock next to the editor).
  ModelTreePanel* modelTree() const { return tree_; }
  QDockWidget* modelDock() const { return modelDock_; }
  ComparisonPanel* comparisonPanel() const { return compare_; }
  QDockWidget* comparisonDock() const { return compareDock_; }
  LessonPanel* lessonPanel() const { return lesson_; }
  QDockWidget* lessonDock() const { return lessonDock_; }
  // Edit > Undo / Redo: the editor's shared undo stack (text and property edits).
  QAction* undoAction() const { return undoAct_; }
  QAction* redoAction() const { return redoAct_; }
  // The system now in the simulation (null before the first model).
  const std::shared_ptr<const CompiledSystem>& loadedSystem() const { return loadedSystem_; }

  // What app/gui_main.cpp calls (forwarded to the controllers; see their headers).
  bool openModel(const QString& source, QString* error = nullptr, const std::map<std::string, std::string>& params = {});
  bool openExample(const QString& resource, QString* error = nullptr);
  bool openLesson(const QString& numberOrId, QString* error = nullptr);
  bool openExperimentFile(const QString& path, QString* error = nullptr);
  bool loadKeyframe(const QString& name, bool asInitialState = false, QString* error = nullptr);
  bool recoverAtStart();
  void addSessionPackagePaths(const QStringList& dirs);
  PlotDock* plotSignals(const QStringList& patterns, QString* error = nullptr, PlotDock* into = nullptr);
  bool saveScreenshot(const QString& path, QString* error = nullptr);

  // The 3D view follows the body of that name (View > Follow body); false if there is none.
  bool followBody(const QString& name);
  // The reference simulation's integrator (Settings dock, --integrator): validated against the
  // loaded model (false with the engine's reason in *error), then applied at the next sync point.
  bool setIntegrator(const IntegratorOptions& options, QString* error = nullptr);
  // A new system is in the simulation (opened or applied): the step settings, 3D view (`dir`: where
  // its meshes are; `keepCamera`: the same model again), joints, plots, keyframes, comparison and
  // lesson state follow it.
  // edited: the editor's text applied to the running simulation (Apply), which keeps what still fits.
  void systemLoaded(std::shared_ptr<const CompiledSystem> sys, const QString& dir, bool keepCamera, bool edited = false);
  // The next tick shows the snapshot again even if it did not change.
  void invalidateShown() { shownGeneration_ = -1; }
  // Copies the newest snapshot and samples into the view, plots and status bar now.
  void pullFromSimulation();
  // Longest gap between two GUI timer ticks since the last call, in ms (responsiveness).
  double takeMaxTickGapMs();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildViewActions();
  void buildDocks();
  void buildMenus();
  void buildViewMenu();
  void buildToolbar();
  void readSettings();
  void writeSettings() const;
  void tick();
  void updateComparison(const Snapshot& s);
  // The selected body's move/rotate handles in the 3D view (DocumentController::dragHandlesFor), shown
  // while the view holds the applied model's initial state (step 0, paused) and its .mech text is
  // in the editor as applied; recomputed when the body, the model or that condition changes.
  void updateHandles();

  SimController sim_;
  ViewportWidget* view_ = nullptr;
  PlotManager* plots_ = nullptr;
  SettingsPanel* settings_ = nullptr;
  JointPanel* joints_ = nullptr;
  EditorPanel* editor_ = nullptr;
  QDockWidget* editorDock_ = nullptr;
  ModelTreePanel* tree_ = nullptr;
  QDockWidget* modelDock_ = nullptr;
  ComparisonPanel* compare_ = nullptr;
  QDockWidget* compareDock_ = nullptr;
  LessonPanel* lesson_ = nullptr;
  QDockWidget* lessonDock_ = nullptr;
  QAction *undoAct_ = nullptr, *redoAct_ = nullptr;
  QAction *quitAct_ = nullptr, *fitAct_ = nullptr, *followAct_ = nullptr, *ghostsAct_ = nullptr;
  QMenu* viewMenu_ = nullptr;

  StatusBar* status_ = nullptr;
  Transport* transport_ = nullptr;
  DocumentController* documents_ = nullptr;
  Recorder* recorder_ = nullptr;
  KeyframeActions* keyframes_ = nullptr;
  ExperimentController* experiments_ = nullptr;
  PlotActions* plotActions_ = nullptr;

  std::shared_ptr<const CompiledSystem> loadedSystem_;
  std::vector<std::string> bodyNames_;  // of the loaded model
  IntegratorOptions shownIntegrator_;
  std::vector<std::tuple<std::string, unsigned, std::string>> shownCopies_;  // legend state shown

  // The GUI tick and what it showed last.
  QTimer timer_;
  QElapsedTimer tickClock_;
  double maxTickGapMs_ = 0;
  long shownGeneration_ = -1;
  long shownStep_ = -1;
  int shownCursor_ = -1;
  bool shownRunning_ = false;
  int tickCount_ = 0;
  bool restoredLayout_ = false, defaultLayoutApplied_ = false;
  std::vector<StepSample> sampleBuffer_;
  // The Build toolbar (issue 34): Select, the shapes the Add tool drops, Connect, the joint type.
  void buildBuildToolbar();
  QActionGroup* tools_ = nullptr;
  QComboBox* jointType_ = nullptr;
  ShapeDesc::Kind addKind_ = ShapeDesc::Kind::Box;
  QString addMesh_;  // the mesh file the Mesh… tool adds (absolute)
  std::optional<JointType> chosenJoint() const;  // nullopt: 'free'
  // Handles: whether the view shows the initial state, and what the handles shown were made for.
  bool atStart_ = false;
  std::string handlesBody_;
  long handlesGeneration_ = -1, seenGeneration_ = -1;
};

}  // namespace ms::ui
