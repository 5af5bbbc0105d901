// SPDX-License-Identifier: GPL-3.0-or-later
// The document of the main window: the model file open and the editor's buffer of it. Opening
// (File ▸ Open, Open recent, Examples, drops), reload when the file changes on disk, Save / Save As
// / New, Apply (the buffer into the simulation without saving), the recovery autosave, the
// unsaved-changes questions, and the editor dock's title.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <map>
#include <optional>
#include <string>

class QAction;
class QFileSystemWatcher;
class QMenu;
class QMimeData;
class QSettings;

#include "io/mech_drag.h"
#include "io/model_file.h"

namespace ms::ui {

class EditorPanel;
class MainWindow;

class DocumentController : public QObject {
  Q_OBJECT
 public:
  // Builds its actions and menus and connects to the window's editor, settings and file watcher
  // (after MainWindow::buildDocks).
  explicit DocumentController(MainWindow& window);

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
  // Reloads the current file, keeping the camera.
  bool reload(QString* error = nullptr);
  // URDF package roots for this session only (mechstudio --package-path), searched before the
  // Settings' package paths (and ROS_PACKAGE_PATH after both); not saved.
  void addSessionPackagePaths(const QStringList& dirs);
  // Every package root a URDF is opened with, in search order: the session's, then Settings >
  // Package paths.
  QStringList packagePaths() const;
  // Ground and self-collision for this session (command line), before Settings: unset / 0 = Settings'.
  void setSessionLoadOverrides(std::optional<bool> groundUnderFloatingBase, int selfCollision);
  // How models are opened: package roots, ground under a floating base, self-collision.
  ModelLoadOptions loadOptions() const;
  // What is open (file path or scene:NAME) and its parameter overrides.
  QString source() const { return source_; }
  const std::map<std::string, std::string>& params() const { return params_; }
  // The text of the model now in the simulation when it came from the editor ("" when none yet).
  const std::string& appliedText() const { return appliedText_; }
  QStringList recentFiles() const { return recent_; }

  // File > Save: writes the editor's buffer to its file (atomically) and reloads the model from it;
  // false with *error (the buffer kept) when it cannot be written.
  bool saveEditor(QString* error = nullptr);
  // Edit > Apply (Ctrl+Return): compiles the editor's last valid model (the file is not saved) and
  // swaps it into the simulation — paused: now; running: at the next sync point, bodies that kept
  // their names keeping their state (SimController::apply). While the text has errors nothing
  // changes (simulation and tree stay at the last valid model) and false is returned (*error).
  bool applyEditor(QString* error = nullptr);
  // Edit > Assemble: closes every loop of the editor's model and writes each joint's position and
  // velocity as the engine's projected state at t = 0 has them (io/mech_assemble.h) — one undoable
  // edit — then applies it. What moved is shown in the status bar (and *summary); a loop that cannot
  // close is refused naming the joint furthest from closing (*error, the banner), the text unchanged.
  // The body selected in the view stays where its written values put it (a CAD program's fixed
  // part): the loops close by moving the others.
  bool assembleEditor(QString* error = nullptr, QString* summary = nullptr);
  // The move/rotate handles of body `body` (io/mech_drag.h dragHandleSets: along its joint or its
  // pose, its joint's anchor, the body on its joint, its first shape's sizes) when the editor's text
  // is the model in the view: a .mech text read without errors and applied. False (*why) otherwise.
  bool dragHandlesFor(const std::string& body, DragHandleSets& sets, QString* why = nullptr);
  // A handle drag ended in the view: its text edit (io/mech_drag.h dragEdit) as one undoable edit,
  // then applied; what changed is shown in the status bar; a refusal (an expression, a generated
  // element) in the banner (*error), the text unchanged.
  bool dragHandle(const DragHandles& handles, int handle, double amount, QString* error = nullptr);
  // Whether the view's tools may edit the text: it is an editable .mech text, read without errors
  // and applied (*why otherwise).
  bool canBuild(QString* why = nullptr) const;
  // The building tools (issue 34; io/mech_edit.h addBodyAt, connectBodies), each one undoable edit,
  // applied: a new body of `kind` ("box1", "sphere2", … at the palette's size) on body `parent`
  // ("" : the ground) at world point `point` with outward `normal`, jointed to it (the ground: the
  // world) by a `joint` joint, or free without one; a joint ("joint1", …) of `type` between body `a` ("": the ground) at `pointA` and body
  // `b` at `pointB` about world `axis`. Refusals in the banner (*error), the text unchanged.
  // A Mesh body is shaped by `meshFile` (absolute; written relative to the model's folder) and named
  // after it.
  bool addBody(ShapeDesc::Kind kind, const std::string& parent, const Vec3& point, const Vec3& normal, std::optional<JointType> joint,
               QString* error = nullptr, std::string* added = nullptr, const QString& meshFile = QString());
  bool connectBodies(const std::string& a, const Vec3& pointA, const std::string& b, const Vec3& pointB, const Vec3& axis,
                     JointType type, QString* error = nullptr);
  // A model read from URDF, MJCF or trep written as .mech beside its file (NAME.mech, or NAME-2.mech …
  // when taken; scenes in the working directory) and opened: what the view's tools edit. The path
  // written in *written; false (*error) when it cannot be written.
  bool convertToMech(QString* error = nullptr, QString* written = nullptr);
  // Delete and Duplicate from the 3D view (its context menu, Delete and Ctrl+D): the tree's edits
  // (io/mech_edit.h deleteBody, duplicateBody) of body `body`, applied.
  bool deleteBody(const std::string& body, QString* error = nullptr);
  bool duplicateBody(const std::string& body, QString* error = nullptr);

  // Questions to the user (a QMessageBox unless a test injects its answers).
  enum class Question {
    RestoreRecovery,  // a recovery file newer than the model: Accept = restore, Reject = discard it
    CloseUnsaved,     // closing with unsaved edits: Accept = save, Reject = discard, Cancel
    ChangedOnDisk,    // the file changed on disk during unsaved edits: Accept = reload, Reject = keep
    ReplaceKeyframe,  // a keyframe of that name exists (the name is passed as `file`): Accept = replace
    ConvertToMech     // a view edit on a model read from URDF, MJCF or trep: Accept = convert to .mech and open it
  };
  enum class Answer { Accept, Reject, Cancel };
  using Asker = std::function<Answer(Question, const QString& file)>;
  void setAsker(Asker asker) { asker_ = std::move(asker); }
  Answer ask(Question q, const QString& file);
  // Save / Discard / Cancel before the buffer goes; false: keep it.
  bool resolveUnsaved();

  // Autosave: while the buffer has unsaved edits it is written every `ms` (default 5000) to
  // recoveryPath(its file) — JSON with the file's path and the text, written with QSaveFile; the
  // file goes away on save, on discarding and when the edits are undone.
  void setAutosaveInterval(int ms) { autosave_.setInterval(ms); }
  // The single-shot timer armed by the first edit after a write (tests check it, not the clock).
  const QTimer& autosaveTimer() const { return autosave_; }
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
  // True after "Keep" when the file changed on disk (the editor dock says so until saved/reloaded).
  bool changedOnDisk() const { return changedOnDisk_; }

  // Drops: a local model or experiment file is accepted, and opened as File > Open does.
  static bool canOpenDrop(const QMimeData* mime);
  bool openDrop(const QMimeData* mime);

  // Recent files and "Reload when the file changes" (QSettings).
  void readSettings(const QSettings& s);
  void writeSettings(QSettings& s) const;

  QAction* newAction() const { return newAct_; }
  QAction* openAction() const { return openAct_; }
  QAction* saveAction() const { return saveAct_; }
  QAction* saveAsAction() const { return saveAsAct_; }
  QAction* reloadAction() const { return reloadAct_; }
  QAction* autoReloadAction() const { return autoReloadAct_; }
  QAction* applyAction() const { return applyAct_; }
  // Edit > Apply automatically: applies after each check that finds the text valid (off by default).
  QAction* autoApplyAction() const { return autoApplyAct_; }
  QAction* assembleAction() const { return assembleAct_; }
  QMenu* recentMenu() const { return recentMenu_; }
  QMenu* examplesMenu() const { return examplesMenu_; }

 private:
  void buildActions();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void rebuildExamplesMenu();
  void watchFile(const QString& path);
  void fileChangedOnDisk();
  void chooseAndOpen();
  void syncEditor(const QString& path, bool isScene, const Model& model);
  void updateEditorTitle();
  void writeRecovery();
  void removeRecovery();
  void offerRecovery(const QString& path);
  void autoApply();
  bool saveOrSaveAs();
  bool saveAsChosen();

  MainWindow& w_;
  EditorPanel* editor_;
  QAction *newAct_, *openAct_, *saveAct_, *saveAsAct_, *reloadAct_, *autoReloadAct_, *applyAct_, *autoApplyAct_;
  QAction* assembleAct_ = nullptr;
  QMenu *recentMenu_ = nullptr, *examplesMenu_ = nullptr;
  Asker asker_;
  std::function<QString()> saveAsChooser_;

  QString source_;                              // what is open (file path or scene:NAME)
  std::map<std::string, std::string> params_;  // its parameter overrides
  QStringList sessionPackagePaths_;             // --package-path (not saved)
  std::optional<bool> sessionGround_;           // --no-ground (not saved)
  int sessionSelfCollision_ = 0;                // --self-collision on|off: 1 / 2 (not saved)
  QStringList recent_;
  // One undoable edit of the editor's text (refused unless canBuild()), then applied; `done` in the
  // status bar, a refusal in the banner.
  bool editAndApply(const std::function<MechEdit(const sexpr::Document&, const MechParseResult&)>& edit, const QString& label,
                    const QString& done, QString* error);
  std::string appliedText_;  // the text of the model now in the simulation (auto-apply skips it)
  QFileSystemWatcher* watcher_ = nullptr;
  QTimer reloadDebounce_;
  QTimer autosave_;
  bool loadingEditor_ = false;  // the buffer is being replaced (not an edit)
  bool changedOnDisk_ = false;
  QByteArray savedByEditor_;  // what the editor last wrote (its own change on disk needs no second reload)
};

}  // namespace ms::ui
