// SPDX-License-Identifier: GPL-3.0-or-later
// The model tree of the editor (issue 6, second slice): the mechanism, its bodies nested with
// their joints (a body's joint under it, then its child bodies), then loop joints, grounds,
// contact pairs, springs, actuators, controllers and wrenches, built from the editor's last valid
// model (ModelEditor::lastValidModel()). Synchronised with the text both ways: the text cursor
// selects the innermost node whose form contains it; selecting a node puts the cursor at its form
// and highlights its span. While the text has errors the tree stays at the last valid model,
// greyed under a "(stale: the text has errors)" header. The property panel of the selected node
// sits under the tree.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>

#include "model/joint_kinds.h"

#include "editor/property_panel.h"

class QLabel;
class QSplitter;
class QTreeWidget;
class QTreeWidgetItem;

namespace ms::ui {

class ModelEditor;

class ModelTreePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ModelTreePanel(ModelEditor* editor, QWidget* parent = nullptr);

  QTreeWidget* tree() const { return tree_; }
  PropertyPanel* properties() const { return properties_; }
  // True while the tree shows an older model than the text (the text has errors).
  bool isStale() const { return stale_; }
  QString headerText() const;

  // The node of element (kind, index), null when there is none.
  QTreeWidgetItem* itemFor(NodeKind kind, int index) const;
  // The selected node's kind and index (Group, -1 when none).
  NodeKind currentKind() const;
  int currentIndex() const;
  // Selects a node as a click does: cursor to its form, span highlighted, properties shown.
  bool selectNode(NodeKind kind, int index);
  // Selects the body of that name (e.g. picked in the 3D view); false when the tree has none.
  bool selectBody(const QString& name);
  // The context menu of a node (selecting it), as a right-click shows it; null when it has none.
  std::unique_ptr<QMenu> contextMenu(QTreeWidgetItem* item);
  // The items of a "Plot" menu for a body (isBody) or joint of that name: signal globs of the loaded
  // model (docs/signals.md) handed to `plot`, a joint's coordinate against its rate to `phase`.
  // Shared by the tree and the 3D view's context menus.
  using PlotFn = std::function<void(const QStringList& patterns)>;
  using PhaseFn = std::function<void(const QStringList& x, const QStringList& y)>;
  static void fillPlotMenu(QMenu* plot, bool isBody, const QString& name, const PlotFn& plotFn, const PhaseFn& phaseFn);

  // Structure edits (the node's context menu; engine's io/mech_edit.h through the editor's text, one
  // undo step each). Bodies and joints are indices of the shown model; -1 for a body is the world.
  // false with *error when refused (the text is unchanged).
  bool addChildBody(int parent, JointType joint, QString* error = nullptr);  // named body1, body2, …
  bool addLoopJoint(int bodyA, int bodyB, JointType joint, QString* error = nullptr);
  bool deleteBody(int body, QString* error = nullptr);
  bool renameBody(int body, const QString& name, QString* error = nullptr);
  bool renameJoint(int joint, const QString& name, QString* error = nullptr);
  bool moveBody(int body, int parent, QString* error = nullptr);
  bool duplicateBody(int body, QString* error = nullptr);
  // Asks for a new name (QInputDialog by default; tests replace it). Empty: cancelled.
  std::function<QString(const QString& title, const QString& current)> askName;

 signals:
  // A body node was selected (by a click, the text cursor or selectBody).
  void bodySelected(const QString& name);
  // Plot ▸ … on a body or joint: signal names or globs of the loaded model (docs/signals.md).
  void plotRequested(const QStringList& patterns);
  void phasePortraitRequested(const QStringList& x, const QStringList& y);
  // A keyframe node's Load Keyframe (asInitialState false) or Use as Initial State.
  void keyframeRequested(const QString& name, bool asInitialState);

 protected:
  void resizeEvent(QResizeEvent* e) override;
  // Drops on the tree's viewport: a body dragged onto a body (or the root) moves there.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild();
  void showMenu(const QPoint& at);
  void addEditMenu(QMenu& menu, NodeKind kind, int index, const Model& m);
  QString unusedName(const QString& stem, bool body) const;
  void followCursor();
  void nodeChanged(QTreeWidgetItem* item, bool moveCursor);
  QTreeWidgetItem* addNode(QTreeWidgetItem* parent, NodeKind kind, int index, const QString& name, const QString& what);
  // An imported body's visual and collision shapes, one informational row each.
  void addShapeNodes(QTreeWidgetItem* parent, const BodyDesc& body);

  ModelEditor* editor_;
  QLabel* header_;
  QSplitter* split_;
  QTreeWidget* tree_;
  PropertyPanel* properties_;
  std::shared_ptr<const ParsedModel> shown_;
  bool stale_ = false;
  bool syncing_ = false;  // a selection made by the other side (no echo)
};

}  // namespace ms::ui
