// SPDX-License-Identifier: GPL-3.0-or-later
// The document: open, recent files, reload on change, save, recovery, drops and apply (see
// document_controller.h).
#include "document_controller.h"

#include <QAction>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeySequence>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTextDocument>
#include <QToolBar>
#include <QUrl>
#include <algorithm>

#include "core/check.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "experiment_controller.h"
#include "gallery.h"
#include "io/experiment_file.h"
#include "io/mech_assemble.h"
#include "io/mesh_file.h"
#include "io/mech_writer.h"
#include "io/model_file.h"
#include "main_window.h"
#include "settings_panel.h"
#include "status_bar.h"
#include "system/compiled_system.h"
#include "theme_icon.h"
#include "transport.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

namespace {
constexpr int kMaxRecent = 10;
}  // namespace

DocumentController::DocumentController(MainWindow& window) : QObject(&window), w_(window), editor_(window.editorPanel()) {
  buildActions();
  recentMenu_ = new QMenu("Open &recent", &w_);
  examplesMenu_ = new QMenu("&Examples", &w_);
  rebuildExamplesMenu();
  // The editor dock: Apply on its toolbar, its title follows the buffer.
  connect(editor_, &EditorPanel::modifiedChanged, this, [this] { updateEditorTitle(); });
  editor_->toolBar()->addAction(applyAct_);
  editor_->toolBar()->addAction(autoApplyAct_);
  updateEditorTitle();
  // New package paths: an open URDF (.urdf, or .xml that may hold one) is read again with them (its
  // meshes may resolve now).
  connect(w_.settingsPanel(), &SettingsPanel::packagePathsChanged, this, [this] {
    if (source_.endsWith(".urdf", Qt::CaseInsensitive) || source_.endsWith(".xml", Qt::CaseInsensitive)) reload();
  });
  // A new ground or self-collision setting: the open model file is read again with it.
  connect(w_.settingsPanel(), &SettingsPanel::loadSettingsChanged, this, [this] {
    if (!source_.isEmpty() && !source_.startsWith("scene:")) reload();
  });

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
  // Apply automatically after each check that finds the text valid.
  connect(ed, &ModelEditor::modelChecked, this, [this] { autoApply(); });
}

void DocumentController::buildActions() {
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
  assembleAct_ = new QAction("A&ssemble", this);
  assembleAct_->setToolTip("Close every loop and write each joint's position and velocity as the simulation starts from "
                           "them (one undoable edit, then applied); the selected body stays where it is");
  connect(assembleAct_, &QAction::triggered, this, [this] { assembleEditor(); });
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
}

void DocumentController::readSettings(const QSettings& s) {
  recent_ = s.value("recentFiles").toStringList();
  rebuildRecentMenu();
  autoReloadAct_->setChecked(s.value("autoReload", true).toBool());
}

void DocumentController::writeSettings(QSettings& s) const {
  s.setValue("recentFiles", recent_);
  s.setValue("autoReload", autoReloadAct_->isChecked());
}

// ---- opening models ----------------------------------------------------------------------------

bool DocumentController::openModel(const QString& source, QString* error, const std::map<std::string, std::string>& params) {
  const bool isScene = source.startsWith("scene:");
  const QString path = isScene ? source : QFileInfo(source).absoluteFilePath();
  const bool sameFile = path == source_;
  // Read the description; every problem is listed with its location.
  Model model;
  Diagnostics diags;
  // URDF meshes package://NAME/...: the session's and the Settings' package roots.
  const ModelLoadOptions options = loadOptions();
  const bool ok = loadModel(path.toStdString(), params, model, diags, options);
  QString text;
  if (!ok) {
    text = QString("Could not open %1:\n%2").arg(path, QString::fromStdString(diags.format()).trimmed());
  } else {
    // The separate compile step, then the initial conditions (Simulation construction).
    try {
      auto sys = compile(model);
      w_.sim().load(sys);
      // A robot from another format is framed where its author put it; a mechanism over its reach.
      w_.viewport()->setFitReach(isScene || path.endsWith(".mech", Qt::CaseInsensitive));
      w_.systemLoaded(sys, isScene ? QString() : QFileInfo(path).absolutePath(), sameFile);
      source_ = path;
      params_ = params;
      w_.transport()->runAction()->setChecked(false);
      w_.status()->hideBanner();
      // The compile step's notes join the reader's diagnostics (all listed under Problems).
      for (const std::string& note : sys->notes) diags.add(Severity::Note, path.toStdString(), 0, 0, note);
      // Warnings: one line over the view (the list is under Problems; Details… shows them all).
      int warnings = 0;
      for (const Diagnostic& d : diags.items()) warnings += d.severity == Severity::Warning;
      if (warnings > 0)
        w_.status()->showBanner(QString("%1 warning%2 reading %3 (listed under Problems in the editor dock)\n%4")
                                    .arg(warnings)
                                    .arg(warnings == 1 ? "" : "s")
                                    .arg(isScene ? source : QFileInfo(path).fileName())
                                    .arg(QString::fromStdString(diags.format()).trimmed()),
                                false, 1);
      w_.setWindowTitle(QString("%1 — MechStudio").arg(isScene ? source : QFileInfo(path).fileName()));
      w_.status()->setModelText(QString("%1: %2 bodies, %3 joints")
                                .arg(QString::fromStdString(model.name.empty() ? path.toStdString() : model.name))
                                .arg(sys->bodies.size())
                                .arg(sys->joints.size()));
      syncEditor(path, isScene, model);
      // A model from another format: the tree and the Problems list show what was read.
      if (!isScene && !path.endsWith(".mech", Qt::CaseInsensitive)) {
        auto imported = std::make_shared<ParsedModel>();
        imported->result.model = model;
        const QString ext = QFileInfo(path).suffix().toLower();
        imported->importedFrom = ext == "trep" ? "trep" : isUrdfFile(path.toStdString()) ? "URDF" : "MJCF";
        editor_->editor()->setImportedModel(imported, diags.items());
      }
      if (!isScene) {
        addRecent(path);
        watchFile(path);
      }
      return true;
    } catch (const UserError& e) {
      text = QString("Could not open %1:\n%2").arg(path, QString::fromUtf8(e.what()));
    }
  }
  w_.status()->showBanner(text, true);
  if (error) *error = text;
  return false;
}

bool DocumentController::openExample(const QString& resource, QString* error) {
  QString why;
  const QString path = extractGalleryModel(resource, &why);
  if (path.isEmpty()) {
    w_.status()->showBanner("Could not open the example: " + why, true);
    if (error) *error = why;
    return false;
  }
  return openModel(path, error);
}

bool DocumentController::reload(QString* error) {
  if (source_.isEmpty()) return false;
  return openModel(source_, error, params_);
}

void DocumentController::addSessionPackagePaths(const QStringList& dirs) {
  for (const QString& d : dirs)
    if (!sessionPackagePaths_.contains(d)) sessionPackagePaths_ << d;
}

QStringList DocumentController::packagePaths() const { return sessionPackagePaths_ + w_.settingsPanel()->packagePaths(); }

void DocumentController::setSessionLoadOverrides(std::optional<bool> groundUnderFloatingBase, int selfCollision) {
  sessionGround_ = groundUnderFloatingBase;
  sessionSelfCollision_ = selfCollision;
}

ModelLoadOptions DocumentController::loadOptions() const {
  // Package roots, ground and self-collision: the session's (command line), else the Settings'.
  ModelLoadOptions options;
  for (const QString& dir : packagePaths()) options.packagePaths.push_back(QDir(dir).absolutePath().toStdString());
  const SettingsPanel* s = w_.settingsPanel();
  options.groundUnderFloatingBase = sessionGround_.value_or(s->groundUnderFloatingBase());
  options.selfCollision = ModelLoadOptions::SelfCollision(sessionSelfCollision_ > 0 ? sessionSelfCollision_ : s->selfCollision());
  return options;
}

// ---- the editor dock ----------------------------------------------------------------------------

void DocumentController::syncEditor(const QString& path, bool isScene, const Model& model) {
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

void DocumentController::updateEditorTitle() {
  // "Editor — four-bar.mech*": the star while the buffer differs from the file.
  const ModelEditor* ed = editor_->editor();
  QString title = "Editor";
  if (!ed->fileName().isEmpty()) title += " — " + QFileInfo(ed->fileName()).fileName();
  else if (!ed->isReadOnly() && ed->language() == ModelLanguage::Mech) title += " — untitled";
  if (ed->isModified()) title += "*";
  if (changedOnDisk_) title += " (changed on disk)";
  w_.editorDock()->setWindowTitle(title);
  saveAct_->setEnabled(editor_->canSave() || (!ed->isReadOnly() && ed->fileName().isEmpty() && ed->language() == ModelLanguage::Mech));
  saveAsAct_->setEnabled(!ed->isReadOnly() && ed->language() == ModelLanguage::Mech);
}

bool DocumentController::saveEditor(QString* error) {
  QString err;
  if (!editor_->save(&err)) {
    if (error) *error = err;
    return false;
  }
  const QString file = editor_->editor()->fileName();
  w_.status()->showMessage("Saved " + file, 4000);
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

void DocumentController::chooseAndOpen() {
  const QString dir = source_.isEmpty() || source_.startsWith("scene:") ? QDir::homePath() : QFileInfo(source_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(&w_, "Open model", dir,
                                                    "Models and experiments (*.mech *.trep *.urdf *.xml *.mjcf *.experiment);;MechStudio (*.mech);;trep (*.trep);;"
                                                    "URDF (*.urdf);;MuJoCo MJCF (*.xml *.mjcf);;Experiments (*.experiment)");
  if (!path.isEmpty()) openFromUser(path);
}

bool DocumentController::openFromUser(const QString& source) {
  if (!resolveUnsaved()) return false;
  if (isExperimentFile(source.toStdString())) return w_.experiments()->openExperimentFile(source);
  return source.startsWith(":/") ? openExample(source) : openModel(source);
}

void DocumentController::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  rebuildRecentMenu();
  QSettings().setValue("recentFiles", recent_);
}

void DocumentController::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& p : recent_) {
    QAction* a = recentMenu_->addAction(QFileInfo(p).fileName());
    a->setToolTip(p);
    a->setStatusTip(p);
    connect(a, &QAction::triggered, this, [this, p] { openFromUser(p); });  // recent files open with defaults
  }
  recentMenu_->setEnabled(!recent_.isEmpty());
}

void DocumentController::rebuildExamplesMenu() {
  examplesMenu_->clear();
  for (const GalleryEntry& e : galleryEntries()) {
    QAction* a = examplesMenu_->addAction(e.title);
    const QString res = e.resource;
    connect(a, &QAction::triggered, this, [this, res] { openFromUser(res); });
  }
}

void DocumentController::watchFile(const QString& path) {
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  watcher_->addPath(path);
}

void DocumentController::fileChangedOnDisk() {
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

bool DocumentController::assembleEditor(QString* error, QString* summary) {
  ModelEditor* ed = editor_->editor();
  if (ed->checkPending()) ed->checkNow();
  const auto fail = [&](const QString& why) {
    w_.status()->showBanner(why, true);
    if (error) *error = why;
    return false;
  };
  if (ed->isReadOnly() || ed->language() != ModelLanguage::Mech)
    return fail("Assemble edits a .mech text: save the model as .mech (File > Save As…) and open that.");
  // A text with errors: the first one says why (a loop that cannot close names its joint there).
  if (ed->modelStale())
    for (const ModelEditor::Problem& p : ed->problems())
      if (p.severity == Severity::Error) return fail("Not assembled: " + p.message);
  // The selected body is held (when the text has it: the view may show a model applied earlier).
  std::vector<std::string> hold;
  const Snapshot snap = w_.sim().snapshot();
  const int selected = w_.viewport()->selectedBody();
  if (snap.system && selected >= 0 && size_t(selected) < snap.system->model.bodies.size())
    hold.push_back(snap.system->model.bodies[size_t(selected)].name);
  std::vector<AssembledJoint> moved;
  QString err;
  const bool ok = ed->applyEdit(
      [&](const sexpr::Document& doc, const MechParseResult& p) {
        if (!hold.empty() && p.model.bodyIndex(hold[0]) < 0) hold.clear();
        const MechAssembly a = assembleMech(doc, p, ed->overrides(), hold);
        moved = a.changed;
        MechEdit e;
        e.ok = a.ok && !a.changed.empty();
        e.error = a.ok ? "" : a.error;
        e.doc = a.doc;
        return e;
      },
      "Assemble", &err);
  if (!ok && !err.isEmpty()) return fail("Not assembled: " + err);
  // What moved: each joint and its largest change.
  QString text = moved.empty() ? QString("Assemble: every loop closes at the written coordinates; nothing changed")
                               : QString("Assembled%1: %2 joint(s) moved —")
                                     .arg(hold.empty() ? QString() : QString(" holding '%1'").arg(QString::fromStdString(hold[0])))
                                     .arg(moved.size());
  for (const AssembledJoint& j : moved) {
    double d = 0;
    for (size_t i = 0; i < j.position.size(); ++i) d = std::max(d, std::abs(j.position[i] - j.positionBefore[i]));
    text += QString(" %1 %2").arg(QString::fromStdString(j.name)).arg(d, 0, 'g', 3);
  }
  if (summary) *summary = text;
  if (!moved.empty() && !applyEditor(error)) return false;
  w_.status()->showMessage(text, 10000);
  return true;
}

bool DocumentController::canBuild(QString* why) const {
  const ModelEditor* ed = editor_->editor();
  const auto parsed = ed->lastValidModel();
  const auto no = [&](const QString& reason) {
    if (why) *why = reason;
    return false;
  };
  if (ed->isReadOnly() || ed->language() != ModelLanguage::Mech || !parsed || !parsed->importedFrom.isEmpty())
    return no("The view's tools edit a .mech text: save the model as .mech (File > Save As…) and open that.");
  if (ed->modelStale() || ed->checkPending()) return no("The text has errors, or is being checked: fix it first.");
  if (parsed->text != appliedText_) return no("The text differs from the model in the view: apply it first (Ctrl+Return).");
  return true;
}

bool DocumentController::dragHandlesFor(const std::string& body, DragHandleSets& sets, QString* why) {
  if (!canBuild(why)) return false;
  const auto parsed = editor_->editor()->lastValidModel();
  const int index = parsed->result.model.bodyIndex(body);
  if (index < 0) {
    if (why) *why = "no such body in the text";
    return false;
  }
  sets = dragHandleSets(parsed->result, index);
  return true;
}

bool DocumentController::editAndApply(const std::function<MechEdit(const sexpr::Document&, const MechParseResult&)>& edit,
                                      const QString& label, const QString& done, QString* error) {
  const auto fail = [&](const QString& why) {
    w_.status()->showBanner(why, true);
    if (error) *error = why;
    return false;
  };
  QString why;
  if (!canBuild(&why)) {
    // A model read from another format: the first such gesture offers to convert it.
    const auto parsed = editor_->editor()->lastValidModel();
    if (parsed && !parsed->importedFrom.isEmpty() && ask(Question::ConvertToMech, source_) == Answer::Accept) {
      QString written;
      if (!convertToMech(error, &written)) return false;
      w_.status()->showMessage(QString("Converted to %1: the view's tools edit it now — repeat the gesture").arg(QFileInfo(written).fileName()), 10000);
      return false;
    }
    return fail(why);
  }
  QString err;
  if (!editor_->editor()->applyEdit(edit, label, &err))
    return fail(label + ": not done — " + (err.isEmpty() ? QString("the edit changed nothing") : err));
  if (!applyEditor(error)) return false;
  w_.status()->showMessage(done, 10000);
  return true;
}

bool DocumentController::dragHandle(const DragHandles& handles, int handle, double amount, QString* error) {
  if (handle < 0 || size_t(handle) >= handles.handles.size()) {
    if (error) *error = "no such handle";
    return false;
  }
  const DragHandle& h = handles.handles[size_t(handle)];
  const QString label = QString::fromStdString(h.label);
  return editAndApply([&](const sexpr::Document& doc, const MechParseResult& p) { return dragEdit(doc, p, handles, handle, amount); },
                      "Drag " + label, QString("Moved: %1 by %2 %3").arg(label).arg(amount, 0, 'g', 4).arg(h.rotate ? "rad" : "m"),
                      error);
}

bool DocumentController::addBody(ShapeDesc::Kind kind, const std::string& parent, const Vec3& point, const Vec3& normal,
                                 std::optional<JointType> joint, QString* error, std::string* added, const QString& meshFile) {
  // The new body's shape, at the size a palette offers.
  ShapeDesc shape;
  shape.kind = kind;
  const char* stem = "box";
  switch (kind) {
    case ShapeDesc::Kind::Sphere: shape.size = Vec3(0.05, 0, 0), stem = "sphere"; break;
    case ShapeDesc::Kind::Capsule: shape.size = Vec3(0.02, 0.2, 0), stem = "capsule"; break;
    case ShapeDesc::Kind::Cylinder: shape.size = Vec3(0.03, 0.1, 0), stem = "cylinder"; break;
    case ShapeDesc::Kind::Mesh: break;
    default: shape.kind = ShapeDesc::Kind::Box, shape.size = Vec3(0.1, 0.1, 0.1); break;
  }
  // A mesh: its vertices (to rest it on the surface), its file relative to the model's folder, and
  // the body named after it ("gripper1").
  std::string meshStem;
  if (kind == ShapeDesc::Kind::Mesh) {
    MeshData mesh;
    MeshFileError err;
    if (!readMeshFile(meshFile.toStdString(), mesh, err)) {
      const QString why = "Not added: " + QString::fromStdString(err.formatAt(meshFile.toStdString()));
      w_.status()->showBanner(why, true);
      if (error) *error = why;
      return false;
    }
    shape.meshVertices = mesh.vertices;
    const QString modelFile = editor_->editor()->fileName().isEmpty() ? source_ : editor_->editor()->fileName();
    shape.meshFile = (modelFile.isEmpty() ? meshFile : QFileInfo(modelFile).absoluteDir().relativeFilePath(meshFile)).toStdString();
    for (const QChar c : QFileInfo(meshFile).completeBaseName())
      if (c.isLetterOrNumber() || c == '-' || c == '_') meshStem += char(c.toLatin1());
    if (meshStem.empty() || !std::isalpha(static_cast<unsigned char>(meshStem[0]))) meshStem = "mesh" + meshStem;
    stem = meshStem.c_str();
  }
  const auto parsed = editor_->editor()->lastValidModel();
  const std::string name = parsed ? freeBodyName(parsed->result.model, stem) : std::string(stem) + "1";
  if (added) *added = name;
  return editAndApply(
      [&](const sexpr::Document& doc, const MechParseResult& p) {
        return addBodyAt(doc, p, name, shape, parent.empty() ? -1 : p.model.bodyIndex(parent), joint, point, normal);
      },
      "Add body", QString("Added body '%1' %2").arg(QString::fromStdString(name))
                      .arg(!joint ? (parent.empty() ? QString("on the ground") : QString("resting on '%1'").arg(QString::fromStdString(parent)))
                                  : QString("jointed to '%1' (%2)").arg(QString::fromStdString(parent.empty() ? "the world" : parent),
                                                                       QString(jointKind(*joint).name))),
      error);
}

bool DocumentController::connectBodies(const std::string& a, const Vec3& pointA, const std::string& b, const Vec3& pointB,
                                       const Vec3& axis, JointType type, QString* error) {
  const auto parsed = editor_->editor()->lastValidModel();
  const std::string name = parsed ? freeBodyName(parsed->result.model, "joint") : std::string("joint1");
  return editAndApply(
      [&](const sexpr::Document& doc, const MechParseResult& p) {
        return ms::connectBodies(doc, p, name, type, a.empty() ? -1 : p.model.bodyIndex(a), pointA, p.model.bodyIndex(b), pointB, axis);
      },
      "Connect", QString("Joined '%1' and '%2' by %3 joint '%4'")
                     .arg(QString::fromStdString(a.empty() ? std::string("the ground") : a), QString::fromStdString(b),
                          QString(jointKind(type).name), QString::fromStdString(name)),
      error);
}

bool DocumentController::convertToMech(QString* error, QString* written) {
  const auto parsed = editor_->editor()->lastValidModel();
  const auto fail = [&](const QString& why) {
    w_.status()->showBanner(why, true);
    if (error) *error = why;
    return false;
  };
  if (!parsed) return fail("Nothing to convert: no model is read.");
  std::string text;
  try {
    text = writeMech(parsed->result.model);
  } catch (const UserError& e) {
    return fail("Not converted: " + QString::fromUtf8(e.what()));
  }
  // Beside the file, under a name not taken.
  const QFileInfo src(source_.startsWith("scene:") || source_.isEmpty() ? QDir::current().filePath("model") : source_);
  QString path = src.dir().filePath(src.completeBaseName() + ".mech");
  for (int i = 2; QFileInfo::exists(path); ++i) path = src.dir().filePath(QString("%1-%2.mech").arg(src.completeBaseName()).arg(i));
  QSaveFile out(path);
  if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), qint64(text.size())) != qint64(text.size()) || !out.commit())
    return fail(QString("Not converted: %1 cannot be written (%2)").arg(path, out.errorString()));
  if (written) *written = path;
  QString err;
  if (!openModel(path, &err)) return fail("Converted to " + path + ", but it does not open: " + err);
  return true;
}

bool DocumentController::deleteBody(const std::string& body, QString* error) {
  return editAndApply([&](const sexpr::Document& doc, const MechParseResult& p) { return ms::deleteBody(doc, p, p.model.bodyIndex(body)); },
                      "Delete body", QString("Deleted body '%1' (Ctrl+Z brings it back)").arg(QString::fromStdString(body)), error);
}

bool DocumentController::duplicateBody(const std::string& body, QString* error) {
  return editAndApply(
      [&](const sexpr::Document& doc, const MechParseResult& p) { return ms::duplicateBody(doc, p, p.model.bodyIndex(body)); },
      "Duplicate body", QString("Duplicated body '%1'").arg(QString::fromStdString(body)), error);
}

bool DocumentController::applyEditor(QString* error) {
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
      w_.sim().apply(sys, true);
      const QString dir = QFileInfo(ed->fileName().isEmpty() ? source_ : ed->fileName()).absolutePath();
      w_.systemLoaded(sys, dir, true, true);
      appliedText_ = parsed->text;
      w_.status()->hideBanner();
      w_.status()->setModelText(QString("%1: %2 bodies, %3 joints (applied from the editor%4)")
                                .arg(QString::fromStdString(parsed->result.model.name))
                                .arg(sys->bodies.size())
                                .arg(sys->joints.size())
                                .arg(ed->isModified() ? ", not saved" : ""));
      return true;
    } catch (const UserError& e) {
      why = "Not applied: " + QString::fromUtf8(e.what()) + ". The simulation keeps the last applied model.";
    }
  }
  w_.status()->showBanner(why, true);
  if (error) *error = why;
  return false;
}

void DocumentController::autoApply() {
  // After a check: only a valid text that differs from the model running.
  if (!autoApplyAct_->isChecked() || loadingEditor_) return;
  const ModelEditor* ed = editor_->editor();
  const auto parsed = ed->lastValidModel();
  if (!parsed || ed->modelStale() || ed->isReadOnly() || parsed->text == appliedText_) return;
  applyEditor();
}

QString DocumentController::recoveryPath(const QString& file) {
  // One file per model path: a hash of the absolute path plus the file's name (readable).
  const QString abs = file.isEmpty() ? QString() : QFileInfo(file).absoluteFilePath();
  const QString key = abs.isEmpty() ? QString("untitled")
                                    : QString::fromLatin1(QCryptographicHash::hash(abs.toUtf8(), QCryptographicHash::Sha1).toHex().left(16)) +
                                          "-" + QFileInfo(abs).fileName();
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery/" + key + ".json";
}

void DocumentController::writeRecovery() {
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
    w_.status()->showMessage("Autosave failed: cannot write " + path + ": " + f.errorString(), 8000);
}

void DocumentController::removeRecovery() {
  autosave_.stop();
  QFile::remove(recoveryPath(editor_->editor()->fileName()));
}

void DocumentController::offerRecovery(const QString& path) {
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
  w_.status()->showMessage("Restored unsaved edits of " + path + " (not saved yet)", 8000);
}

bool DocumentController::recoverAtStart() {
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
  w_.status()->showMessage("Restored the unsaved edits of an untitled model (not saved yet)", 8000);
  return true;
}

bool DocumentController::resolveUnsaved() {
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

bool DocumentController::saveAsChosen() {
  // The path from the dialog (or the test's chooser); "" cancels.
  const QString dir = source_.isEmpty() || source_.startsWith("scene:") ? QDir::homePath() : QFileInfo(source_).absolutePath();
  const QString path = saveAsChooser_ ? saveAsChooser_()
                                      : QFileDialog::getSaveFileName(&w_, "Save model as", dir + "/untitled.mech", "MechStudio (*.mech)");
  if (path.isEmpty()) return false;
  QString err;
  if (saveEditorAs(path, &err)) return true;
  QMessageBox::warning(&w_, "Save failed", err + "\n\nThe text stays in the editor.");
  return false;
}

bool DocumentController::saveOrSaveAs() {
  // An untitled buffer has no file yet: Save is Save As.
  if (editor_->editor()->fileName().isEmpty()) return saveAsChosen();
  QString err;
  if (saveEditor(&err)) return true;
  QMessageBox::warning(&w_, "Save failed", err + "\n\nThe text stays in the editor.");
  return false;
}

QString DocumentController::newModelTemplate() {
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

bool DocumentController::newModel() {
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
  w_.sim().setRunning(false);
  const bool ok = applyEditor();
  w_.setWindowTitle("untitled — MechStudio");
  updateEditorTitle();
  return ok;
}

bool DocumentController::saveEditorAs(const QString& path, QString* error) {
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
  w_.status()->showMessage("Saved " + abs, 4000);
  // The new file becomes the open model (errors go to the banner; the file is written either way).
  openModel(abs);
  updateEditorTitle();
  return true;
}

DocumentController::Answer DocumentController::ask(Question q, const QString& file) {
  if (asker_) return asker_(q, file);
  // The default: a message box with the three (or two) choices.
  const QString name = file.isEmpty() ? QString("the untitled model") : QFileInfo(file).fileName();
  QMessageBox box(&w_);
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
    case Question::ConvertToMech:
      box.setWindowTitle("Convert to .mech");
      box.setText(QString("%1 was read from another format; the 3D view's tools edit a .mech text.").arg(name));
      box.setInformativeText("Convert it to .mech (written beside it, the original kept) and open that?");
      accept = box.addButton("Convert", QMessageBox::AcceptRole);
      box.addButton(QMessageBox::Cancel);
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

bool DocumentController::canOpenDrop(const QMimeData* mime) {
  if (mime->hasUrls())
    for (const QUrl& u : mime->urls())
      if (u.isLocalFile() && (isModelFile(u.toLocalFile().toStdString()) || isExperimentFile(u.toLocalFile().toStdString())))
        return true;
  return false;
}

bool DocumentController::openDrop(const QMimeData* mime) {
  for (const QUrl& u : mime->urls())
    if (u.isLocalFile() && (isModelFile(u.toLocalFile().toStdString()) || isExperimentFile(u.toLocalFile().toStdString()))) {
      openFromUser(u.toLocalFile());
      return true;
    }
  return false;
}

}  // namespace ms::ui
