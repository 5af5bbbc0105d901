// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/model_tree.h"

#include <filesystem>

#include <QColor>
#include <QDropEvent>
#include <QMimeData>
#include <QHeaderView>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

#include "editor/model_editor.h"
#include "model/joint_kinds.h"

namespace ms::ui {

namespace {
constexpr int kKindRole = Qt::UserRole, kIndexRole = Qt::UserRole + 1, kKeyRole = Qt::UserRole + 2;
}  // namespace

ModelTreePanel::ModelTreePanel(ModelEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
  // Layout: the state header, the tree, the property panel under a splitter handle.
  header_ = new QLabel;
  header_->setObjectName("model-tree-header");
  header_->setWordWrap(true);
  tree_ = new QTreeWidget;
  tree_->setObjectName("model-tree");
  tree_->setHeaderLabels({"Element", "Kind"});
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  tree_->header()->setStretchLastSection(true);
  tree_->setColumnWidth(0, 170);
  properties_ = new PropertyPanel(editor_);
  properties_->setObjectName("property-panel");
  auto* top = new QWidget;
  auto* tv = new QVBoxLayout(top);
  tv->setContentsMargins(0, 0, 0, 0);
  tv->setSpacing(0);
  tv->addWidget(header_);
  tv->addWidget(tree_, 1);
  auto* split = split_ = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(properties_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(split);

  // Both directions of the synchronisation, and a rebuild after every check of the text.
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!syncing_) nodeChanged(item, true);
  });
  connect(editor_, &QPlainTextEdit::cursorPositionChanged, this, [this] { followCursor(); });
  connect(editor_, &ModelEditor::modelChecked, this, [this] { rebuild(); });
  // Structure edits from the node's context menu.
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  // Drag a body onto another body (or the root) to re-parent it; the drop is a text edit.
  tree_->setDragEnabled(true);
  tree_->setAcceptDrops(true);
  tree_->setDragDropMode(QAbstractItemView::InternalMove);
  tree_->viewport()->setAcceptDrops(true);
  tree_->viewport()->installEventFilter(this);
  connect(tree_, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) { showMenu(at); });
  askName = [this](const QString& title, const QString& current) {
    return QInputDialog::getText(this, title, "Name:", QLineEdit::Normal, current);
  };
  rebuild();
}

QString ModelTreePanel::unusedName(const QString& stem, bool body) const {
  const Model& m = editor_->lastValidModel()->result.model;
  for (int k = 1;; ++k) {
    const std::string n = (stem + QString::number(k)).toStdString();
    if ((body ? m.bodyIndex(n) : m.jointIndex(n)) < 0 && m.jointIndex(n + "-joint") < 0) return QString::fromStdString(n);
  }
}

bool ModelTreePanel::addChildBody(int parent, JointType joint, QString* error) {
  if (!editor_->lastValidModel()) return false;
  const std::string name = unusedName("body", true).toStdString();
  return editor_->applyEdit([&](const sexpr::Document& d, const MechParseResult& p) { return ms::addChildBody(d, p, parent, name, joint); },
                            QString("Add body %1").arg(QString::fromStdString(name)), error);
}

bool ModelTreePanel::addLoopJoint(int bodyA, int bodyB, JointType joint, QString* error) {
  if (!editor_->lastValidModel()) return false;
  const std::string name = unusedName("loop", false).toStdString();
  return editor_->applyEdit(
      [&](const sexpr::Document& d, const MechParseResult& p) { return ms::addLoopJoint(d, p, name, joint, bodyA, bodyB); },
      QString("Add loop joint %1").arg(QString::fromStdString(name)), error);
}

bool ModelTreePanel::deleteBody(int body, QString* error) {
  return editor_->applyEdit([&](const sexpr::Document& d, const MechParseResult& p) { return ms::deleteBody(d, p, body); },
                            "Delete body", error);
}

bool ModelTreePanel::renameBody(int body, const QString& name, QString* error) {
  return editor_->applyEdit(
      [&](const sexpr::Document& d, const MechParseResult& p) { return ms::renameBody(d, p, body, name.toStdString()); },
      QString("Rename body to %1").arg(name), error);
}

bool ModelTreePanel::renameJoint(int joint, const QString& name, QString* error) {
  return editor_->applyEdit(
      [&](const sexpr::Document& d, const MechParseResult& p) { return ms::renameJoint(d, p, joint, name.toStdString()); },
      QString("Rename joint to %1").arg(name), error);
}

bool ModelTreePanel::duplicateBody(int body, QString* error) {
  return editor_->applyEdit([&](const sexpr::Document& d, const MechParseResult& p) { return ms::duplicateBody(d, p, body); },
                            "Duplicate body", error);
}

bool ModelTreePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched != tree_->viewport()) return QWidget::eventFilter(watched, event);
  // A drag of a node of this tree is accepted by the panel itself (the view's own internal move
  // would rearrange items; here the text is edited and the tree rebuilt from it).
  if (event->type() == QEvent::DragEnter || event->type() == QEvent::DragMove) {
    auto* drag = static_cast<QDragMoveEvent*>(event);
    if (!drag->mimeData()->hasFormat("application/x-qabstractitemmodeldatalist")) return false;
    drag->setDropAction(Qt::MoveAction);
    drag->accept();
    return true;
  }
  if (event->type() != QEvent::Drop) return QWidget::eventFilter(watched, event);
  // The dragged node is the current one; the target is the node under the drop.
  auto* drop = static_cast<QDropEvent*>(event);
  QTreeWidgetItem* target = tree_->itemAt(drop->position().toPoint());
  const NodeKind kind = currentKind();
  const int body = currentIndex();
  drop->setDropAction(Qt::IgnoreAction);
  drop->accept();
  if (!target || kind != NodeKind::Body || stale_) return true;
  const auto targetKind = static_cast<NodeKind>(target->data(0, kKindRole).toInt());
  if (targetKind != NodeKind::Body && targetKind != NodeKind::Mechanism) return true;
  const int parent = targetKind == NodeKind::Body ? target->data(0, kIndexRole).toInt() : -1;
  QString why;
  if (parent != body && !moveBody(body, parent, &why)) QMessageBox::warning(this, "Move refused", why);
  return true;  // the tree is rebuilt from the edited text, not moved by the view
}

bool ModelTreePanel::moveBody(int body, int parent, QString* error) {
  return editor_->applyEdit([&](const sexpr::Document& d, const MechParseResult& p) { return ms::moveBody(d, p, body, parent); },
                            "Move body", error);
}

// Plot ▸ …: the quantities of a body or joint as signal globs (names as in docs/signals.md).
void ModelTreePanel::fillPlotMenu(QMenu* plot, bool isBody, const QString& name, const PlotFn& plotFn,
                                  const PhaseFn& phaseFn) {
  const auto item = [plot, plotFn](const QString& label, const QStringList& patterns) {
    QObject::connect(plot->addAction(label), &QAction::triggered, plot, [plotFn, patterns] { plotFn(patterns); });
  };
  const QString n = name + '.';
  if (isBody) {
    item("Position", {n + "[xyz]"});
    item("Velocity", {n + "v[xyz]"});
    item("Orientation (roll, pitch, yaw)", {n + "roll", n + "pitch", n + "yaw"});
    item("Angular velocity", {n + "w[xyz]"});
    item("Contact force", {"contact." + n + "normal", "contact." + n + "friction", "contact.*-" + n + "normal"});
  } else {
    item("Coordinates (angle, position)", {n + "angle", n + "position", n + "rot_?", n + "pos?"});
    item("Rates", {n + "*_rate"});
    item("Reaction force", {n + "force.?"});
    item("Reaction torque", {n + "torque.?"});
    item("Reaction force in the joint frame", {n + "force_local.?"});
    item("Efforts (actuator, spring, damper, limit)", {n + "effort*", n + "spring*", n + "damper*", n + "limit"});
    QObject::connect(plot->addAction("Phase portrait (coordinate against rate)"), &QAction::triggered, plot, [phaseFn, n] {
      phaseFn({n + "angle", n + "position", n + "rot_x", n + "pos1"},
              {n + "angle_rate", n + "position_rate", n + "rot_x_rate", n + "pos1_rate"});
    });
  }
}

void ModelTreePanel::showMenu(const QPoint& at) {
  const std::unique_ptr<QMenu> menu = contextMenu(tree_->itemAt(at));
  if (menu) menu->exec(tree_->viewport()->mapToGlobal(at));
}

std::unique_ptr<QMenu> ModelTreePanel::contextMenu(QTreeWidgetItem* item) {
  const auto model = editor_->lastValidModel();
  if (!item || !model) return nullptr;
  tree_->setCurrentItem(item);
  const NodeKind kind = currentKind();
  const int index = currentIndex();
  const Model& m = model->result.model;
  auto menu = std::make_unique<QMenu>(this);
  // Plots of the simulated model's signals (also while the text is stale or read-only).
  const PlotFn plot = [this](const QStringList& p) { emit plotRequested(p); };
  const PhaseFn phase = [this](const QStringList& x, const QStringList& y) { emit phasePortraitRequested(x, y); };
  if (kind == NodeKind::Body && index >= 0 && index < int(m.bodies.size()))
    fillPlotMenu(menu->addMenu("Plot"), true, QString::fromStdString(m.bodies[size_t(index)].name), plot, phase);
  if (kind == NodeKind::Joint && index >= 0 && index < int(m.joints.size()))
    fillPlotMenu(menu->addMenu("Plot"), false, QString::fromStdString(m.joints[size_t(index)].name), plot, phase);
  // A keyframe: load it, or make it the initial state (the simulated model's keyframe of that name).
  if (kind == NodeKind::Keyframe && index >= 0 && index < int(m.keyframes.size())) {
    const QString name = QString::fromStdString(m.keyframes[size_t(index)].name);
    QObject::connect(menu->addAction("Load Keyframe"), &QAction::triggered, this, [this, name] { emit keyframeRequested(name, false); });
    QObject::connect(menu->addAction("Use as Initial State"), &QAction::triggered, this,
                     [this, name] { emit keyframeRequested(name, true); });
  }
  if (!stale_ && !editor_->isReadOnly()) {
    if (!menu->isEmpty()) menu->addSeparator();
    addEditMenu(*menu, kind, index, m);
  }
  if (menu->isEmpty()) return nullptr;
  return menu;
}

// The structure edits of a node.
void ModelTreePanel::addEditMenu(QMenu& menu, NodeKind kind, int index, const Model& m) {
  // Every refusal is shown, never swallowed.
  auto run = [this](bool ok, const QString& why) {
    if (!ok && !why.isEmpty()) QMessageBox::warning(this, "Edit refused", why);
  };
  const std::pair<const char*, JointType> joints[] = {{"revolute", JointType::Revolute},
                                                      {"spherical", JointType::Spherical},
                                                      {"prismatic", JointType::Prismatic},
                                                      {"fixed", JointType::Fixed},
                                                      {"floating", JointType::Floating}};
  if (kind == NodeKind::Mechanism || kind == NodeKind::Body) {
    const int parent = kind == NodeKind::Body ? index : -1;
    QMenu* add = menu.addMenu("Add child body with joint");
    for (const auto& [label, type] : joints)
      add->addAction(label, this, [this, parent, t = type, run] {
        QString why;
        run(addChildBody(parent, t, &why), why);
      });
  }
  if (kind == NodeKind::Body) {
    QMenu* loop = menu.addMenu("Add revolute loop joint to");
    for (int b = -1; b < int(m.bodies.size()); ++b)
      if (b != index)
        loop->addAction(b < 0 ? QString("world") : QString::fromStdString(m.bodies[size_t(b)].name), this, [this, index, b, run] {
          QString why;
          run(addLoopJoint(b, index, JointType::Revolute, &why), why);
        });
    QMenu* move = menu.addMenu("Move to");
    for (int b = -1; b < int(m.bodies.size()); ++b)
      if (b != index)
        move->addAction(b < 0 ? QString("top level (joined to the world)") : QString::fromStdString(m.bodies[size_t(b)].name), this,
                        [this, index, b, run] {
                          QString why;
                          run(moveBody(index, b, &why), why);
                        });
    menu.addAction("Duplicate", this, [this, index, run] {
      QString why;
      run(duplicateBody(index, &why), why);
    });
    menu.addAction("Rename…", this, [this, index, run, name = QString::fromStdString(m.bodies[size_t(index)].name)] {
      const QString n = askName("Rename body", name);
      QString why;
      if (!n.isEmpty() && n != name) run(renameBody(index, n, &why), why);
    });
    menu.addAction("Delete (with what refers to it)", this, [this, index, run] {
      QString why;
      run(deleteBody(index, &why), why);
    });
  }
  if (kind == NodeKind::Joint) {
    menu.addAction("Rename…", this, [this, index, run, name = QString::fromStdString(m.joints[size_t(index)].name)] {
      const QString n = askName("Rename joint", name);
      QString why;
      if (!n.isEmpty() && n != name) run(renameJoint(index, n, &why), why);
    });
  }
}


void ModelTreePanel::resizeEvent(QResizeEvent* e) {
  // Wide (docked below the 3D view): tree and properties side by side; tall: one above the other.
  QWidget::resizeEvent(e);
  split_->setOrientation(width() > height() * 3 / 2 ? Qt::Horizontal : Qt::Vertical);
}

QString ModelTreePanel::headerText() const { return header_->text(); }

QTreeWidgetItem* ModelTreePanel::addNode(QTreeWidgetItem* parent, NodeKind kind, int index, const QString& name,
                                         const QString& what) {
  // One node: its name and kind, with the element's identity in the item's data. The root is built
  // detached and added to the view once, complete (one insertion instead of one per node).
  auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem();
  item->setText(0, name);
  item->setText(1, what);
  item->setData(0, kKindRole, int(kind));
  item->setData(0, kIndexRole, index);
  item->setData(0, kKeyRole, QString("%1:%2").arg(int(kind)).arg(kind == NodeKind::Group ? name : name.isEmpty() ? QString("#%1").arg(index) : name));
  if (kind == NodeKind::Group) {
    QFont f = item->font(0);
    f.setBold(true);
    item->setFont(0, f);
  }
  return item;
}

void ModelTreePanel::addShapeNodes(QTreeWidgetItem* parent, const BodyDesc& body) {
  // "collision box", "visual mesh 'link.stl'" …, with the size or the collision hull's vertex count.
  static const char* kinds[] = {"box", "sphere", "capsule", "cylinder", "plane", "mesh"};
  const auto describe = [](const ShapeDesc& s, bool collision) {
    if (s.kind == ShapeDesc::Kind::Mesh) {
      const QString file = QString::fromStdString(std::filesystem::path(s.meshFile).filename().string());
      if (!collision) return QString("'%1'").arg(file);
      return s.meshVertices.empty() ? QString("'%1' (does not collide)").arg(file)
                                    : QString("'%1', %2 hull points").arg(file).arg(s.meshVertices.size());
    }
    const auto n = [](double v) { return QString::number(v, 'g', 3); };
    switch (s.kind) {
      case ShapeDesc::Kind::Box: return QString("%1 × %2 × %3 m").arg(n(s.size.x()), n(s.size.y()), n(s.size.z()));
      case ShapeDesc::Kind::Sphere: return QString("radius %1 m").arg(n(s.size.x()));
      case ShapeDesc::Kind::Capsule:
      case ShapeDesc::Kind::Cylinder: return QString("radius %1 m, length %2 m").arg(n(s.size.x()), n(s.size.y()));
      default: return QString();
    }
  };
  for (int pass = 0; pass < 2; ++pass)
    for (const ShapeDesc& s : pass == 0 ? body.collisions : body.visuals) {
      auto* item = new QTreeWidgetItem(parent);
      item->setText(0, QString("%1 %2").arg(pass == 0 ? "collision" : "visual", kinds[int(s.kind)]));
      item->setText(1, describe(s, pass == 0));
      item->setForeground(0, QColor(0x70, 0x70, 0x70));
      item->setData(0, kKindRole, int(NodeKind::Group));
      item->setData(0, kIndexRole, -1);
    }
}

void ModelTreePanel::rebuild() {
  const std::shared_ptr<const ParsedModel> model = editor_->lastValidModel();
  stale_ = editor_->modelStale() && model;
  // The header says what the tree shows.
  if (!model) {
    header_->setText(editor_->language() == ModelLanguage::Mech ? "No valid model yet: the text has errors."
                                                                : "The tree shows .mech models.");
  } else if (stale_) {
    header_->setText("(stale: the text has errors) — the last valid model");
  } else if (!model->importedFrom.isEmpty()) {
    header_->setText(QString("Read-only, read from %1: %2 bodies, %3 joints (mechstudio-cli convert FILE -o OUT.mech "
                             "gives a .mech file to edit)")
                         .arg(model->importedFrom)
                         .arg(model->result.model.bodies.size())
                         .arg(model->result.model.joints.size()));
  } else {
    header_->setText(QString("%1 bodies, %2 joints").arg(model->result.model.bodies.size()).arg(model->result.model.joints.size()));
  }
  header_->setStyleSheet(stale_ || !model ? "QLabel { background: #fef9e7; color: #7d6608; padding: 2px 4px; }"
                                          : "QLabel { color: #555; padding: 2px 4px; }");
  tree_->setStyleSheet(stale_ ? "QTreeWidget { color: #999; }" : QString());
  if (model == shown_) {
    // Same model (only the stale state changed): the properties become read-only or editable.
    if (tree_->currentItem() && currentKind() != NodeKind::Group) properties_->showElement(shown_, currentKind(), currentIndex(), stale_);
    return;
  }
  // Rebuild, keeping the selected node (by kind and name) when it still exists.
  const QString key = tree_->currentItem() ? tree_->currentItem()->data(0, kKeyRole).toString() : QString();
  shown_ = model;
  syncing_ = true;
  tree_->clear();
  syncing_ = false;
  if (!model) return properties_->showNote("Nothing to show.");
  const Model& m = model->result.model;
  const SourceMap& map = model->result.map;
  QTreeWidgetItem* root = addNode(nullptr, NodeKind::Mechanism, 0, QString::fromStdString(m.name), "mechanism");
  // Bodies in the tree of joints: each body's (non-loop) joint, its children under it.
  const int nb = int(m.bodies.size());
  std::vector<int> treeJoint(size_t(nb), -1);
  std::vector<bool> loop(m.joints.size(), false);
  const bool imported = !model->importedFrom.isEmpty();
  for (size_t j = 0; j < m.joints.size(); ++j) {
    // A loop joint: written as one (.mech), or (imported) a second joint of a body that has one.
    const int child = m.joints[j].child;
    loop[j] = imported ? child >= 0 && child < nb && treeJoint[size_t(child)] >= 0
                       : j < map.joints.size() && map.joints[j].properties.count("child");
    if (!loop[j] && child >= 0 && child < nb && treeJoint[size_t(child)] < 0) treeJoint[size_t(child)] = int(j);
  }
  std::vector<std::vector<int>> children(static_cast<size_t>(nb));
  std::vector<int> tops;
  for (int b = 0; b < nb; ++b) {
    const int j = treeJoint[size_t(b)];
    const int p = j >= 0 ? m.joints[size_t(j)].parent : -1;
    if (p >= 0 && p < nb && p != b) children[size_t(p)].push_back(b);
    else tops.push_back(b);
  }
  auto jointKind = [&](int j) {
    QString t;
    if (j >= 0 && j < int(map.joints.size())) {
      const auto it = map.joints[size_t(j)].properties.find("type");
      if (it != map.joints[size_t(j)].properties.end()) t = model->textOf(it->second.form);
    }
    if (t.isEmpty() && imported && j >= 0 && j < int(m.joints.size())) t = ms::jointKind(m.joints[size_t(j)].type).name;
    return (t.isEmpty() ? QString() : t + " ") + "joint";
  };
  // Depth first without recursion (chains may be thousands of bodies long).
  std::vector<std::pair<QTreeWidgetItem*, int>> stack;
  for (auto it = tops.rbegin(); it != tops.rend(); ++it) stack.push_back({root, *it});
  std::vector<bool> added(size_t(nb), false);
  while (!stack.empty()) {
    auto [parent, b] = stack.back();
    stack.pop_back();
    if (added[size_t(b)]) continue;
    added[size_t(b)] = true;
    const BodyDesc& body = m.bodies[size_t(b)];
    QTreeWidgetItem* item = addNode(parent, NodeKind::Body, b, QString::fromStdString(body.name),
                                    QString("body, %1 kg").arg(body.mass, 0, 'g', 4));
    if (const int j = treeJoint[size_t(b)]; j >= 0)
      addNode(item, NodeKind::Joint, j, QString::fromStdString(m.joints[size_t(j)].name), jointKind(j));
    // An imported body's shapes (a .mech body's are in its text and its properties).
    if (imported) addShapeNodes(item, body);
    const std::vector<int>& ch = children[size_t(b)];
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back({item, *it});
  }
  // Then the other elements, each kind under a heading.
  auto group = [&](const QString& title, int count, auto&& add) {
    if (count == 0) return;
    QTreeWidgetItem* g = addNode(root, NodeKind::Group, -1, title, QString("%1").arg(count));
    for (int i = 0; i < count; ++i) add(g, i);
  };
  auto bodyName = [&](int b) { return b < 0 ? QString("world") : b < nb ? QString::fromStdString(m.bodies[size_t(b)].name) : QString("?"); };
  int loops = 0;
  for (bool l : loop) loops += l;
  std::vector<int> loopIdx;
  for (size_t j = 0; j < loop.size(); ++j)
    if (loop[j]) loopIdx.push_back(int(j));
  group("Loop joints", loops, [&](QTreeWidgetItem* g, int i) {
    const JointDesc& j = m.joints[size_t(loopIdx[size_t(i)])];
    addNode(g, NodeKind::Joint, loopIdx[size_t(i)], QString::fromStdString(j.name),
            jointKind(loopIdx[size_t(i)]) + ": " + bodyName(j.parent) + " – " + bodyName(j.child));
  });
  group("Grounds", int(m.grounds.size()), [&](QTreeWidgetItem* g, int i) {
    addNode(g, NodeKind::Ground, i, QString::fromStdString(m.grounds[size_t(i)].name), "ground plane");
  });
  group("Contact pairs", int(m.contactPairs.size()), [&](QTreeWidgetItem* g, int i) {
    const ContactPairDesc& c = m.contactPairs[size_t(i)];
    addNode(g, NodeKind::ContactPair, i, QString::fromStdString(c.name), bodyName(c.bodyA) + " – " + bodyName(c.bodyB));
  });
  group("Collision exclusions", int(m.exclusions.size()), [&](QTreeWidgetItem* g, int i) {
    const ExclusionDesc& e = m.exclusions[size_t(i)];
    addNode(g, NodeKind::Exclusion, i, bodyName(e.bodyA) + " – " + bodyName(e.bodyB), "do not collide");
  });
  group("Springs", int(m.springs.size()), [&](QTreeWidgetItem* g, int i) {
    const SpringDesc& s = m.springs[size_t(i)];
    addNode(g, NodeKind::Spring, i, QString::fromStdString(s.name), "spring: " + bodyName(s.bodyA) + " – " + bodyName(s.bodyB));
  });
  auto jointName = [&](int j) { return j >= 0 && j < int(m.joints.size()) ? QString::fromStdString(m.joints[size_t(j)].name) : QString("?"); };
  group("Tendons", int(m.tendons.size()), [&](QTreeWidgetItem* g, int i) {
    const TendonDesc& t = m.tendons[size_t(i)];
    QStringList terms;
    for (const TendonTerm& term : t.terms) terms << QString("%1 %2").arg(term.coef).arg(jointName(term.joint));
    addNode(g, NodeKind::Tendon, i, QString::fromStdString(t.name), "tendon: " + terms.join(" + "));
  });
  group("Couplings", int(m.couplings.size()), [&](QTreeWidgetItem* g, int i) {
    const CouplingDesc& c = m.couplings[size_t(i)];
    const QString rhs = c.reference >= 0 ? QString("%1 + %2 · %3").arg(c.offset).arg(c.multiplier).arg(jointName(c.reference))
                                         : QString::number(c.offset);
    addNode(g, NodeKind::Coupling, i, QString::fromStdString(c.name), "coupling: " + jointName(c.joint) + " = " + rhs);
  });
  group("Actuators", int(m.actuators.size()), [&](QTreeWidgetItem* g, int i) {
    const ActuatorDesc& a = m.actuators[size_t(i)];
    const bool onTendon = a.tendon >= 0 && a.tendon < int(m.tendons.size());
    addNode(g, NodeKind::Actuator, i, "on " + (onTendon ? QString::fromStdString(m.tendons[size_t(a.tendon)].name) : jointName(a.joint)),
            onTendon ? "actuator on a tendon" : "actuator");
  });
  group("PD controllers", int(m.controllers.size()), [&](QTreeWidgetItem* g, int i) {
    const ControllerDesc& c = m.controllers[size_t(i)];
    addNode(g, NodeKind::Controller, i, QString::fromStdString(c.name), "PD on " + jointName(c.joint));
  });
  group("Wrenches", int(m.wrenches.size()), [&](QTreeWidgetItem* g, int i) {
    addNode(g, NodeKind::Wrench, i, "on " + bodyName(m.wrenches[size_t(i)].body), "constant wrench");
  });
  group("Keyframes", int(m.keyframes.size()), [&](QTreeWidgetItem* g, int i) {
    const KeyframeDesc& k = m.keyframes[size_t(i)];
    addNode(g, NodeKind::Keyframe, i, QString::fromStdString(k.name), QString("keyframe: %1 bodies").arg(k.bodies.size()));
  });
  tree_->addTopLevelItem(root);
  tree_->expandAll();
  // The previous selection again (silently), or the cursor's node.
  QTreeWidgetItem* again = nullptr;
  if (!key.isEmpty())
    for (QTreeWidgetItemIterator it(tree_); *it; ++it)
      if ((*it)->data(0, kKeyRole).toString() == key) {
        again = *it;
        break;
      }
  if (again) {
    syncing_ = true;
    tree_->setCurrentItem(again);
    syncing_ = false;
    nodeChanged(again, false);
  } else {
    properties_->showNote("Select an element in the tree or put the cursor in its text.");
  }
  if (editor_->hasFocus()) followCursor();
}

QTreeWidgetItem* ModelTreePanel::itemFor(NodeKind kind, int index) const {
  for (QTreeWidgetItemIterator it(tree_); *it; ++it)
    if ((*it)->data(0, kKindRole).toInt() == int(kind) && (*it)->data(0, kIndexRole).toInt() == index) return *it;
  return nullptr;
}

NodeKind ModelTreePanel::currentKind() const {
  const QTreeWidgetItem* it = tree_->currentItem();
  return it ? NodeKind(it->data(0, kKindRole).toInt()) : NodeKind::Group;
}

int ModelTreePanel::currentIndex() const {
  const QTreeWidgetItem* it = tree_->currentItem();
  return it ? it->data(0, kIndexRole).toInt() : -1;
}

bool ModelTreePanel::selectNode(NodeKind kind, int index) {
  QTreeWidgetItem* item = itemFor(kind, index);
  if (!item) return false;
  if (item == tree_->currentItem()) nodeChanged(item, true);
  else tree_->setCurrentItem(item);  // → nodeChanged
  tree_->scrollToItem(item);
  return true;
}

bool ModelTreePanel::selectBody(const QString& name) {
  if (!shown_) return false;
  const int b = shown_->result.model.bodyIndex(name.toStdString());
  return b >= 0 && selectNode(NodeKind::Body, b);
}

void ModelTreePanel::followCursor() {
  // The innermost element whose form contains the cursor (only while the spans are the text's).
  if (syncing_ || !shown_ || stale_ || editor_->checkPending()) return;
  const int pos = editor_->textCursor().position();
  QTreeWidgetItem* best = nullptr;
  int bestLength = 0;
  for (QTreeWidgetItemIterator it(tree_); *it; ++it) {
    const ElementSource* src =
        elementSource(shown_->result.map, NodeKind((*it)->data(0, kKindRole).toInt()), (*it)->data(0, kIndexRole).toInt());
    if (!src || !src->form.valid()) continue;
    const int b = shown_->position(src->form.begin), e = shown_->position(src->form.end);
    if (pos < b || pos > e) continue;
    if (!best || e - b < bestLength) {
      best = *it;
      bestLength = e - b;
    }
  }
  if (!best || best == tree_->currentItem()) return;
  syncing_ = true;
  tree_->setCurrentItem(best);
  tree_->scrollToItem(best);
  syncing_ = false;
  nodeChanged(best, false);
}

void ModelTreePanel::nodeChanged(QTreeWidgetItem* item, bool moveCursor) {
  // The properties of the node, its span highlighted (cursor moved there when asked), its body
  // announced for the 3D view.
  if (!item || !shown_) {
    properties_->showNote("Select an element in the tree or put the cursor in its text.");
    editor_->setNodeHighlight(0, 0);
    return;
  }
  const NodeKind kind = NodeKind(item->data(0, kKindRole).toInt());
  const int index = item->data(0, kIndexRole).toInt();
  if (kind == NodeKind::Group) properties_->showNote(item->text(0) + ": select one of them.");
  else properties_->showElement(shown_, kind, index, stale_);
  const ElementSource* src = elementSource(shown_->result.map, kind, index);
  if (!stale_ && src && src->form.valid()) {
    const int b = shown_->position(src->form.begin), e = shown_->position(src->form.end);
    editor_->setNodeHighlight(b, e);
    if (moveCursor) {
      syncing_ = true;
      // Its end then its start made visible: as much of the form as fits, its first line surely.
      QTextCursor c = editor_->textCursor();
      c.setPosition(e);
      editor_->setTextCursor(c);
      editor_->ensureCursorVisible();
      c.setPosition(b);
      editor_->setTextCursor(c);
      editor_->ensureCursorVisible();
      syncing_ = false;
    }
  } else {
    editor_->setNodeHighlight(0, 0);
  }
  if (kind == NodeKind::Body) emit bodySelected(item->text(0));
}

}  // namespace ms::ui
