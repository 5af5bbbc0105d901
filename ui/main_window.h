// SPDX-License-Identifier: GPL-3.0-or-later
// The main window of mechstudio: the 3D viewport in the centre, plot docks, the settings and
// joints docks, a transport toolbar with the history slider, menus with shortcuts, a status bar,
// and the failure banner. A ~60 Hz timer copies the simulation thread's snapshot into the view and
// its per-step samples into the plots; nothing here waits for a step.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "sim/sim_controller.h"

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QFileSystemWatcher;
class QLabel;
class QMenu;
class QPushButton;
class QSlider;
class QToolButton;

namespace ms {
struct Lesson;
}

namespace ms::ui {

class ComparisonPanel;
class EditorPanel;
class LessonPanel;
class JointPanel;
class ModelTreePanel;
class PlotManager;
class PlotDock;
class PhaseDock;
class SettingsPanel;
class ViewportWidget;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a model file (.mech, .trep, .urdf) or "scene:NAME". On any error the previous model
  // stays, the diagnostics (file:line:column) are shown and false is returned (*error set).
  // `params` override the file's (param …) values (like --set on the command line) and are kept
  // for reloads of the same file.
  bool openModel(const QString& source, QString* error = nullptr, const std::map<std::string, std::string>& params = {});
  // Opens a bundled example by resource path (":/gallery/…").
  bool openExample(const QString& resource, QString* error = nullptr);
  // What File > Open, Open recent, Examples and a dropped file do: unsaved edits are asked about
  // first (Save / Discard / Cancel; false when cancelled), then the model (or ":/gallery/…") opens.
  bool openFromUser(const QString& source);
  // The 3D view follows the body of that name (View > Follow body); false if there is none.
  bool followBody(const QString& name);
  // Reloads the current file, keeping the camera.
  bool reload(QString* error = nullptr);
  // URDF package roots for this session only (mechstudio --package-path), searched before the
  // Settings' package paths (and ROS_PACKAGE_PATH after both); not saved.
  void addSessionPackagePaths(const QStringList& dirs);
  // Every package root a URDF is opened with, in search order: the session's, then Settings >
  // Package paths.
  QStringList packagePaths() const;

  // Parts, for tests and the screenshot mode.
  SimController& sim() { return sim_; }
  ViewportWidget* viewport() const { return view_; }
  PlotManager* plots() const { return plots_; }
  // Plots the loaded model's signals matching the names or globs (docs/signals.md) in a new signal
  // plot, or adds them to `into`; a phase portrait of the first signal matching y against the first
  // matching x. Null with *error when nothing matches or no model is loaded.
  PlotDock* plotSignals(const QStringList& patterns, QString* error = nullptr, PlotDock* into = nullptr);
  PhaseDock* plotPhasePortrait(const QStringList& x, const QStringList& y, QString* error = nullptr);
  // The 3D view's context menu of a body: Plot <body> ▸ …, Plot joint <joint> ▸ … (null: no body).
  std::unique_ptr<QMenu> bodyPlotMenu(int body);
  SettingsPanel* settingsPanel() const { return settings_; }
  JointPanel* jointPanel() const { return joints_; }
  EditorPanel* editorPanel() const { return editor_; }
  QDockWidget* editorDock() const { return editorDock_; }
  // The model tree and property panel (the "Model" dock next to the editor).
  ModelTreePanel* modelTree() const { return tree_; }
  QDockWidget* modelDock() const { return modelDock_; }
  // Edit > Undo / Redo: the editor's shared undo stack (text and property edits).
  QAction* undoAction() const { return undoAct_; }
  QAction* redoAction() const { return redoAct_; }
  // File > Save: writes the editor's buffer to its file (atomically) and reloads the model from it;
  // false with *error (the buffer kept) when it cannot be written.
  bool saveEditor(QString* error = nullptr);
  QString currentSource() const { return source_; }

  // Edit > Apply (Ctrl+Return): compiles the editor's last valid model (the file is not saved) and
  // swaps it into the simulation — paused: now; running: at the next sync point, bodies that kept
  // their names keeping their state (SimController::apply). While the text has errors nothing
  // changes (simulation and tree stay at the last valid model) and false is returned (*error).
  bool applyEditor(QString* error = nullptr);
  QAction* applyAction() const { return applyAct_; }
  // Edit > Apply automatically: applies after each check that finds the text valid (off by default).
  QAction* autoApplyAction() const { return autoApplyAct_; }

  // Questions to the user (a QMessageBox unless a test injects its answers).
  enum class Question {
    RestoreRecovery,  // a recovery file newer than the model: Accept = restore, Reject = discard it
    CloseUnsaved,     // closing with unsaved edits: Accept = save, Reject = discard, Cancel
    ChangedOnDisk,    // the file changed on disk during unsaved edits: Accept = reload, Reject = keep
    ReplaceKeyframe   // a keyframe of that name exists (the name is passed as `file`): Accept = replace
  };
  enum class Answer { Accept, Reject, Cancel };
  using Asker = std::function<Answer(Question, const QString& file)>;
  void setAsker(Asker asker) { asker_ = std::move(asker); }

  // Keyframes (Simulation menu; docs/model-language.md "Keyframes").
  // Save State as Keyframe…: the state shown becomes a (keyframe NAME …) form of the editor's text,
  // one undoable edit (replacing a keyframe of that name after asking ReplaceKeyframe). The name is
  // asked through the keyframe name asker (a QInputDialog unless a test injects one; it gets the
  // suggested name, "keyframe-1", "keyframe-2", …, and returns "" to cancel). False when cancelled
  // or refused (*error: why; the banner shows it and the text stays as it was).
  using KeyframeNameAsker = std::function<QString(const QString& suggested)>;
  void setKeyframeNameAsker(KeyframeNameAsker asker) { keyframeNameAsker_ = std::move(asker); }
  bool saveKeyframe(QString* error = nullptr);
  // Load Keyframe ▸ NAME / Use Keyframe as Initial State ▸ NAME: the keyframe of the editor's last
  // valid model (else of the model loaded) into the simulation, checked against the model simulated
  // first (an unknown name or a keyframe that does not fit: false, *error with the reason, and the
  // banner). `mechstudio --keyframe NAME` uses it as the initial state.
  bool loadKeyframe(const QString& name, bool asInitialState = false, QString* error = nullptr);
  // The names the two submenus offer now.
  QStringList keyframeNames() const;
  QMenu* loadKeyframeMenu() const { return loadKeyframeMenu_; }
  QMenu* initialKeyframeMenu() const { return initialKeyframeMenu_; }
  QAction* saveKeyframeAction() const { return saveKeyframeAct_; }

  // Autosave: while the buffer has unsaved edits it is written every `ms` (default 5000) to
  // recoveryPath(its file) — JSON with the file's path and the text, written with QSaveFile; the
  // file goes away on save, on discarding and when the edits are undone.
  void setAutosaveInterval(int ms) { autosave_.setInterval(ms); }
  static QString recoveryPath(const QString& file);
  // At start: the newest recovery file left by a session that did not end normally is offered back
  // (its file is opened, which asks; an untitled buffer is asked about and restored into File >
  // New). Returns true when edits were restored.
  bool recoverAtStart();

  // File > New: a small valid model (a single pendulum), untitled, loaded into the simulation;
  // unsaved edits are asked about first (false: the user kept them).
  bool newModel();
  static QString newModelTemplate();
  // File > Save As: the buffer to `path` (atomically), which becomes the open model.
  bool saveEditorAs(const QString& path, QString* error = nullptr);
  // Where Save As writes (a QFileDialog unless a test injects a path; "" cancels).
  void setSaveAsChooser(std::function<QString()> chooser) { saveAsChooser_ = std::move(chooser); }
  QAction* newAction() const { return newAct_; }
  QAction* saveAction() const { return saveAct_; }
  QAction* saveAsAction() const { return saveAsAct_; }
  // True after "Keep" when the file changed on disk (the editor dock says so until saved/reloaded).
  bool changedOnDisk() const { return changedOnDisk_; }
  // The text of the failure/diagnostics banner ("" when hidden).
  QString bannerText() const;
  // Copies the newest snapshot and samples into the view, plots and status bar now.
  void pullFromSimulation();
  // Longest gap between two GUI timer ticks since the last call, in ms (responsiveness).
  double takeMaxTickGapMs();
  QStringList recentFiles() const { return recent_; }

  // Recording: every frame the view draws becomes parentDir/mechstudio-DATE/frame-NNNNNN.png;
  // stopping encodes an MP4 with ffmpeg when it is installed and returns what was written.
  bool startRecording(const QString& parentDir, QString* error = nullptr);
  QString stopRecording();
  bool recording() const { return !recordDir_.isEmpty(); }
  int recordedFrames() const { return recordFrames_; }

  // The reference simulation's integrator (Settings dock, --integrator): validated against the
  // loaded model (false with the engine's reason in *error), then applied at the next sync point.
  bool setIntegrator(const IntegratorOptions& options, QString* error = nullptr);
  // Comparison mode (the "Comparison" dock): copies[0] is the reference; all start from the state
  // shown. Also Simulation ▸ Compare from here (the dock's rows, or VI vs RK4 when it has none).
  void startComparison(const std::vector<CopySpec>& copies, bool equalCost);
  void compareFromHere();
  ComparisonPanel* comparisonPanel() const { return compare_; }
  QDockWidget* comparisonDock() const { return compareDock_; }
  // Lessons ▸ N: opens the lesson's scene, runs its variants as a comparison (the first the
  // reference), brings its focus plot to the front (log scale if the lesson says so) and shows
  // its explanation panel. `numberOrId`: "1"…"6" or an id ("drift"). False with *error if unknown.
  // Also takes the path of an experiment file (one ending in .experiment, or an existing file).
  bool openLesson(const QString& numberOrId, QString* error = nullptr);
  // Opens an experiment as openLesson does: its model (scene, model file with its parameters, or
  // its inline model, written to the cache folder and opened from there), its copies, its focus
  // plot, signal plots, phase portrait and camera, and its panel.
  bool openExperiment(const Lesson& lesson, QString* error = nullptr);
  // Reads an experiment file (errors with file:line:column) and opens it (File ▸ Open, drops,
  // the Lessons menu's user experiments).
  bool openExperimentFile(const QString& path, QString* error = nullptr);
  // File ▸ Save Experiment As…: what is on screen as an experiment file (atomically) that
  // openExperimentFile reopens as it was: the model (its scene or file, relative to the experiment,
  // with its parameters; a model edited and applied but not saved, or opened from an experiment's
  // inline model, inline), the initial keyframe, the copies compared (or the one simulation), the
  // signal plots, the first phase portrait, the camera, the plot window as duration, and an open
  // lesson's texts, focus and log scale. False with *error.
  bool saveExperiment(const QString& path, QString* error = nullptr);
  // Asks for the file of Save Experiment As (a QFileDialog by default; tests replace it).
  std::function<QString()> experimentPathChooser;
  // The user's experiment gallery, listed in the Lessons menu below the built-in lessons:
  // $MECHSTUDIO_EXPERIMENTS if set, else the "experiments" folder in the application data
  // location (~/.local/share/MechStudio/mechstudio/experiments on Linux).
  static QString userExperimentDir();
  LessonPanel* lessonPanel() const { return lesson_; }
  QDockWidget* lessonDock() const { return lessonDock_; }
  QMenu* lessonsMenu() const { return lessonsMenu_; }

  // Screenshot of the whole window to PNG (atomically); false with *error on failure.
  bool saveScreenshot(const QString& path, QString* error = nullptr);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildActions();
  void buildMenus();
  void buildToolbar();
  void buildDocks();
  void buildStatusBar();
  void readSettings();
  void writeSettings() const;
  void tick();
  void updateStatus(const Snapshot& s);
  void updateTransport(const Snapshot& s);
  void showBanner(const QString& text, bool error);
  void hideBanner();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void rebuildExamplesMenu();
  void watchFile(const QString& path);
  void fileChangedOnDisk();
  void chooseAndOpen();
  void chooseScreenshot();
  void toggleRecording(bool on);
  void recordFrame();
  void speedChosen(int index);
  void syncEditor(const QString& path, bool isScene, const Model& model);
  void updateEditorTitle();
  Answer ask(Question q, const QString& file);
  void writeRecovery();
  void removeRecovery();
  void offerRecovery(const QString& path);
  bool resolveUnsaved();  // Save / Discard / Cancel before the buffer goes; false: keep it
  void autoApply();
  void rebuildKeyframeMenus();
  const std::vector<KeyframeDesc>* keyframes() const;
  KeyframeNameAsker keyframeNameAsker_;
  QAction* saveKeyframeAct_ = nullptr;
  QMenu *loadKeyframeMenu_ = nullptr, *initialKeyframeMenu_ = nullptr;

  SimController sim_;
  ViewportWidget* view_ = nullptr;
  PlotManager* plots_ = nullptr;
  SettingsPanel* settings_ = nullptr;
  JointPanel* joints_ = nullptr;
  EditorPanel* editor_ = nullptr;
  QDockWidget* editorDock_ = nullptr;
  ModelTreePanel* tree_ = nullptr;
  QDockWidget* modelDock_ = nullptr;
  QAction *undoAct_ = nullptr, *redoAct_ = nullptr;
  QAction *applyAct_ = nullptr, *autoApplyAct_ = nullptr;
  std::string appliedText_;  // the text of the model now in the simulation (auto-apply skips it)
  Asker asker_;
  std::function<QString()> saveAsChooser_;
  QAction *newAct_ = nullptr, *saveAsAct_ = nullptr;
  bool saveOrSaveAs();
  bool saveAsChosen();
  QTimer autosave_;
  bool loadingEditor_ = false;  // the buffer is being replaced (not an edit)
  bool changedOnDisk_ = false;
  QByteArray savedByEditor_;  // what the editor last wrote (its own change on disk needs no second reload)
  QWidget* banner_ = nullptr;
  QLabel* bannerLabel_ = nullptr;
  QPushButton* bannerDetails_ = nullptr;
  QString bannerFull_;  // the whole text (the label shows the first lines)

  // Actions.
  QAction *openAct_, *saveAct_, *reloadAct_, *autoReloadAct_, *quitAct_;
  QAction *runAct_, *stepAct_, *stepBackAct_, *resetAct_;
  QAction *screenshotAct_, *recordAct_;
  QAction *fitAct_, *followAct_;
  QAction *compareHereAct_ = nullptr, *ghostsAct_ = nullptr;
  ComparisonPanel* compare_ = nullptr;
  QDockWidget* compareDock_ = nullptr;
  LessonPanel* lesson_ = nullptr;
  QDockWidget* lessonDock_ = nullptr;
  QMenu* lessonsMenu_ = nullptr;
  int lessonNumber_ = 0;
  QString lessonFile_;  // the experiment file open as a lesson ("Start again" reopens it)
  std::shared_ptr<const Lesson> experiment_;  // the lesson or experiment open (null: a plain model)
  QString initialKeyframe_;                   // the keyframe used as the initial state ("": none)
  QList<QAction*> userLessonActions_;  // the Lessons menu's entries for the user's experiment files
  void rebuildUserLessons();
  std::shared_ptr<const CompiledSystem> loadedSystem_;
  IntegratorOptions shownIntegrator_;
  std::vector<std::tuple<std::string, unsigned, std::string>> shownCopies_;  // legend state shown
  void updateComparison(const Snapshot& s);
  void modelLoaded(std::shared_ptr<const CompiledSystem> sys);
  std::vector<std::string> bodyNames_;  // of the loaded model
  QMenu *recentMenu_ = nullptr, *examplesMenu_ = nullptr, *viewMenu_ = nullptr, *plotsMenu_ = nullptr;
  QComboBox* speed_ = nullptr;
  QSlider* history_ = nullptr;
  QLabel *statusTime_, *statusStep_, *statusIter_, *statusRtf_, *statusContacts_, *statusModel_, *statusSolver_;

  // State of the window.
  QString source_;          // what is open (file path or scene:NAME)
  std::map<std::string, std::string> params_;  // its parameter overrides
  QStringList sessionPackagePaths_;             // --package-path (not saved)
  QStringList recent_;
  QFileSystemWatcher* watcher_ = nullptr;
  QTimer reloadDebounce_;
  QTimer timer_;
  QElapsedTimer tickClock_;
  double maxTickGapMs_ = 0;
  long shownGeneration_ = -1;
  long shownStep_ = -1;
  int shownCursor_ = -1;
  bool shownRunning_ = false;
  bool runButtonPauses_ = false;  // the Run action shows "Pause" and its icon (set on a change only)
  int tickCount_ = 0;
  bool restoredLayout_ = false, defaultLayoutApplied_ = false;
  std::vector<StepSample> sampleBuffer_;
  // Recording: frames written as PNG into recordDir_, encoded with ffmpeg when it exists.
  QString recordDir_;
  int recordFrames_ = 0;
  QString recordError_;
};

}  // namespace ms::ui
