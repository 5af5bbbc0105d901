// SPDX-License-Identifier: GPL-3.0-or-later
// Keyframes in the main window (Simulation menu; docs/model-language.md "Keyframes"): Save State as
// Keyframe…, the Load Keyframe ▸ and Use Keyframe as Initial State ▸ submenus rebuilt after every
// check of the editor's text, and loading a keyframe into the simulation.
#pragma once

#include <QObject>
#include <QStringList>
#include <functional>
#include <vector>

class QAction;
class QMenu;

namespace ms {
struct KeyframeDesc;
}

namespace ms::ui {

class MainWindow;

class KeyframeActions : public QObject {
  Q_OBJECT
 public:
  explicit KeyframeActions(MainWindow& window);

  // Save State as Keyframe…: the state shown becomes a (keyframe NAME …) form of the editor's text,
  // one undoable edit (replacing a keyframe of that name after asking ReplaceKeyframe). The name is
  // asked through the keyframe name asker (a QInputDialog unless a test injects one; it gets the
  // suggested name, "keyframe-1", "keyframe-2", …, and returns "" to cancel). False when cancelled
  // or refused (*error: why; the banner shows it and the text stays as it was).
  using NameAsker = std::function<QString(const QString& suggested)>;
  void setNameAsker(NameAsker asker) { nameAsker_ = std::move(asker); }
  bool saveKeyframe(QString* error = nullptr);
  // Load Keyframe ▸ NAME / Use Keyframe as Initial State ▸ NAME: the keyframe of the editor's last
  // valid model (else of the model loaded) into the simulation, checked against the model simulated
  // first (an unknown name or a keyframe that does not fit: false, *error with the reason, and the
  // banner). `mechstudio --keyframe NAME` uses it as the initial state.
  bool loadKeyframe(const QString& name, bool asInitialState = false, QString* error = nullptr);
  // The names the two submenus offer now.
  QStringList keyframeNames() const;
  // Rebuilds the two submenus from keyframeNames().
  void rebuildMenus();
  // The keyframe used as the initial state since the model was loaded ("": none).
  QString initialKeyframe() const { return initialKeyframe_; }
  // A new model: no initial keyframe, the menus rebuilt; an edited one (Apply) keeps its initial
  // keyframe when it still has one of that name.
  void modelLoaded(bool edited = false);

  QAction* saveAction() const { return saveAct_; }
  QMenu* loadMenu() const { return loadMenu_; }
  QMenu* initialMenu() const { return initialMenu_; }
  // The action and the two submenus at the end of `menu`.
  void addTo(QMenu* menu);

 private:
  const std::vector<KeyframeDesc>* keyframes() const;

  MainWindow& w_;
  NameAsker nameAsker_;
  QAction* saveAct_ = nullptr;
  QMenu *loadMenu_ = nullptr, *initialMenu_ = nullptr;
  QString initialKeyframe_;  // the keyframe used as the initial state ("": none)
};

}  // namespace ms::ui
