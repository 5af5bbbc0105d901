// SPDX-License-Identifier: GPL-3.0-or-later
// Saving, listing and loading keyframes (see keyframe_actions.h).
#include "keyframe_actions.h"

#include <QAction>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <algorithm>

#include "core/check.h"
#include "document_controller.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "io/mech_edit.h"
#include "main_window.h"
#include "status_bar.h"
#include "system/compiled_system.h"
#include "system/keyframe.h"
#include "transport.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

KeyframeActions::KeyframeActions(MainWindow& window) : QObject(&window), w_(window) {
  // Keyframes: saved states written into the model's text (rebuilt after every check of the text).
  saveAct_ = new QAction("Save State as &Keyframe…", this);
  saveAct_->setObjectName("save-keyframe");
  saveAct_->setStatusTip("Write the state shown into the model's text as a (keyframe NAME ...) form (undoable)");
  connect(saveAct_, &QAction::triggered, this, [this] { saveKeyframe(); });
  loadMenu_ = new QMenu("&Load Keyframe", &w_);
  loadMenu_->setObjectName("load-keyframe-menu");
  initialMenu_ = new QMenu("Use Keyframe as &Initial State", &w_);
  initialMenu_->setObjectName("initial-keyframe-menu");
  rebuildMenus();
  // The menus follow the text.
  connect(w_.editorPanel()->editor(), &ModelEditor::modelChecked, this, [this] { rebuildMenus(); });
}

void KeyframeActions::addTo(QMenu* menu) {
  menu->addAction(saveAct_);
  menu->addMenu(loadMenu_);
  menu->addMenu(initialMenu_);
}

void KeyframeActions::modelLoaded(bool edited) {
  rebuildMenus();
  // An edited model (Apply) keeps the initial keyframe when it still has one of that name
  // (SimController::apply keeps it in the simulation under the same condition).
  if (!edited || !keyframeNames().contains(initialKeyframe_)) initialKeyframe_.clear();
}

const std::vector<KeyframeDesc>* KeyframeActions::keyframes() const {
  // The editor's last valid model (it has the keyframes just saved), else the model loaded.
  const ModelEditor* ed = w_.editorPanel()->editor();
  if (const auto m = ed->lastValidModel(); m && ed->language() == ModelLanguage::Mech) return &m->result.model.keyframes;
  return w_.loadedSystem() ? &w_.loadedSystem()->model.keyframes : nullptr;
}

QStringList KeyframeActions::keyframeNames() const {
  QStringList names;
  if (const auto* k = keyframes())
    for (const KeyframeDesc& d : *k) names << QString::fromStdString(d.name);
  return names;
}

void KeyframeActions::rebuildMenus() {
  const QStringList names = keyframeNames();
  for (QMenu* menu : {loadMenu_, initialMenu_}) {
    const bool initial = menu == initialMenu_;
    menu->clear();
    for (const QString& n : names) {
      QAction* a = menu->addAction(QString(n).replace('&', "&&"));
      a->setObjectName((initial ? "initial-keyframe-" : "load-keyframe-") + n);
      connect(a, &QAction::triggered, this, [this, n, initial] { loadKeyframe(n, initial); });
    }
    if (names.isEmpty()) menu->addAction("(the model has no keyframes)")->setEnabled(false);
  }
}

bool KeyframeActions::loadKeyframe(const QString& name, bool asInitialState, QString* error) {
  QString why;
  const KeyframeDesc* found = nullptr;
  if (const auto* list = keyframes())
    for (const KeyframeDesc& k : *list)
      if (QString::fromStdString(k.name) == name) found = &k;
  if (!w_.loadedSystem()) {
    why = "no model is open";
  } else if (!found) {
    const QStringList names = keyframeNames();
    why = QString("the model has no keyframe '%1' (its keyframes: %2)")
              .arg(name, names.isEmpty() ? QString("none") : "'" + names.join("', '") + "'");
  } else {
    // Checked here against the model the simulation has (or gets with the requests queued before
    // this one): the simulation thread would refuse the same keyframe.
    try {
      stateFromKeyframe(*w_.loadedSystem(), *found);
    } catch (const UserError& e) {
      why = QString::fromUtf8(e.what());
    }
  }
  if (!why.isEmpty()) {
    w_.status()->showBanner((asInitialState ? "Keyframe not used as the initial state: " : "Keyframe not loaded: ") + why, true);
    if (error) *error = why;
    return false;
  }
  w_.status()->hideBanner();
  w_.transport()->runAction()->setChecked(false);
  if (asInitialState) w_.sim().useKeyframeAsInitialState(*found);
  else w_.sim().loadKeyframe(*found);
  if (asInitialState) initialKeyframe_ = name;
  w_.viewport()->clearTrails();
  // (Not before the window is shown: the status bar would draw the message over its model label.)
  if (w_.isVisible())
    w_.status()->showMessage(QString(asInitialState ? "Keyframe '%1' is the initial state (Reset returns to it)" : "Loaded keyframe '%1'").arg(name), 6000);
  return true;
}

bool KeyframeActions::saveKeyframe(QString* error) {
  ModelEditor* ed = w_.editorPanel()->editor();
  QString why;
  auto refuse = [&](const QString& text) {
    const QString full = "Keyframe not saved: " + text;
    w_.status()->showBanner(full, true);
    if (error) *error = full;
    return false;
  };
  if (ed->isReadOnly() || ed->language() != ModelLanguage::Mech)
    return refuse("keyframes are written into an editable .mech text, and this model has none (save it as .mech first).");
  if (ed->checkPending()) ed->checkNow();
  const auto parsed = ed->lastValidModel();
  if (!parsed || ed->modelStale()) return refuse("the text has errors (see the problems list); fix them first.");
  // The state shown, once every request queued so far is applied.
  w_.sim().sync();
  const Snapshot snap = w_.sim().snapshot();
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
  QString name = nameAsker_ ? nameAsker_(suggested)
                                    : QInputDialog::getText(&w_, "Save State as Keyframe", "Name of the keyframe:", QLineEdit::Normal, suggested);
  name = name.trimmed();
  if (name.isEmpty()) return false;  // cancelled
  if (textModel.keyframe(name.toStdString()) && w_.documents()->ask(DocumentController::Question::ReplaceKeyframe, name) != DocumentController::Answer::Accept) return false;
  const KeyframeDesc k = keyframeFromState(*snap.system, snap.state, name.toStdString());
  QString err;
  if (!ed->applyEdit([&k](const sexpr::Document& doc, const MechParseResult& p) { return setKeyframe(doc, p, k); },
                     "Save keyframe '" + name + "'", &err))
    return refuse(err);
  w_.status()->showMessage(QString("Saved keyframe '%1' into the text (t = %2 s; not saved to the file yet)").arg(name).arg(snap.state.time, 0, 'f', 3), 6000);
  return true;
}

}  // namespace ms::ui
