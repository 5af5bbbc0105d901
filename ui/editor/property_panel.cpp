// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/property_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollArea>
#include <QVBoxLayout>
#include <set>

#include "editor/model_editor.h"
#include "model/joint_kinds.h"
#include "system/assemble.h"

namespace ms::ui {

namespace {
// A number as the panel shows a model value (shortest form that reads back).
QString number(double v) { return QString::number(v, 'g', 12); }
QString vec(const Vec3& v) { return number(v.x()) + "  " + number(v.y()) + "  " + number(v.z()); }

// The unit of a joint's coordinates: rad for hinges, m for sliders, both for mixed joints.
QString coordinateUnit(JointType t, const QString& perRad, const QString& perM) {
  if (t == JointType::Revolute || t == JointType::Spherical) return perRad;
  if (t == JointType::Prismatic) return perM;
  return perM + " or " + perRad;
}

// The properties of each kind in display order, with units ("" for none); others follow unit-less.
struct PropSpec {
  const char* key;
  QString unit;
};
std::vector<PropSpec> specsFor(NodeKind kind, const Model& model, int index) {
  switch (kind) {
    case NodeKind::Mechanism:
      return {{"gravity", "m/s²"}, {"dt", "s"}, {"tolerance", ""}, {"max-iterations", ""}, {"line-search", ""}};
    case NodeKind::Body:
      return {{"mass", "kg"},         {"density", "kg/m³"},       {"inertia", "kg·m²"},
              {"position", "m"},      {"rotation", "rad"},        {"orientation", "w x y z"},
              {"velocity", "m/s"},    {"angular-velocity", "rad/s"}, {"friction", "μ"},
              {"color", "0–1"}};
    case NodeKind::Joint: {
      const JointType t = index >= 0 && index < int(model.joints.size()) ? model.joints[size_t(index)].type
                                                                         : JointType::Revolute;
      return {{"axis", "direction"},
              {"parent-anchor", "m"},
              {"child-anchor", "m"},
              {"offset-rotation", "rad"},
              {"offset", "w x y z"},
              {"position", coordinateUnit(t, "rad", "m")},
              {"velocity", coordinateUnit(t, "rad/s", "m/s")},
              {"lower", coordinateUnit(t, "rad", "m")},
              {"upper", coordinateUnit(t, "rad", "m")},
              {"stiffness", coordinateUnit(t, "N·m/rad", "N/m")},
              {"rest", coordinateUnit(t, "rad", "m")},
              {"damping", coordinateUnit(t, "N·m·s/rad", "N·s/m")},
              {"armature", coordinateUnit(t, "kg·m²", "kg")}};
    }
    case NodeKind::Spring:
      return {{"anchor-a", "m"}, {"anchor-b", "m"}, {"stiffness", "N/m"}, {"rest-length", "m"}, {"damping", "N·s/m"}};
    case NodeKind::Controller:
      return {{"kp", "N·m/rad"}, {"kd", "N·m·s/rad"}, {"coordinate", "index"}, {"target", "rad; sin: amplitude, Hz, rad"},
              {"effort-limit", "N·m"}};
    case NodeKind::Wrench: return {{"force", "N"}, {"torque", "N·m"}};
    case NodeKind::Actuator:
      return {{"effort", "input"}, {"gear", "effort per input"}, {"control-range", "input"}, {"force-range", "before the gear"}};
    case NodeKind::Tendon: return {{"stiffness", "N/m or N·m/rad"}, {"rest-length", "m or rad"}, {"damping", "N·s/m or N·m·s/rad"}};
    case NodeKind::Coupling: return {{"multiplier", "per unit of the followed coordinate"}, {"offset", "rad or m"}};
    case NodeKind::Ground: return {{"at", "m"}, {"normal", "direction"}, {"friction", "μ"}};
    case NodeKind::ContactPair: return {{"friction", "μ"}};
    case NodeKind::Exclusion:  // two body names: edited in the text
    case NodeKind::Keyframe:  // per-body states: a form of their own (showElement)
    case NodeKind::Group: break;
  }
  return {};
}
// Keys that name other elements or kinds (shown as text, never as numbers).
const std::set<std::string> kReferenceKeys = {"type", "parent", "child", "joint", "body", "body-a", "body-b", "name", "kind", "file"};
}  // namespace

const ElementSource* elementSource(const SourceMap& map, NodeKind kind, int index) {
  auto at = [index](const std::vector<ElementSource>& v) -> const ElementSource* {
    return index >= 0 && index < int(v.size()) ? &v[size_t(index)] : nullptr;
  };
  switch (kind) {
    case NodeKind::Mechanism: return &map.mechanism;
    case NodeKind::Body: return at(map.bodies);
    case NodeKind::Joint: return at(map.joints);
    case NodeKind::Spring: return at(map.springs);
    case NodeKind::Controller: return at(map.controllers);
    case NodeKind::Wrench: return at(map.wrenches);
    case NodeKind::Actuator: return at(map.actuators);
    case NodeKind::Ground: return at(map.grounds);
    case NodeKind::ContactPair: return at(map.contactPairs);
    case NodeKind::Exclusion: return at(map.exclusions);
    case NodeKind::Keyframe: return at(map.keyframes);
    case NodeKind::Tendon: return at(map.tendons);
    case NodeKind::Coupling: return at(map.couplings);
    case NodeKind::Group: break;
  }
  return nullptr;
}

PropertyPanel::PropertyPanel(ModelEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
  // Layout: a title line above a scrolling form.
  title_ = new QLabel;
  title_->setObjectName("property-title");
  title_->setStyleSheet("QLabel { font-weight: bold; padding: 3px 4px; }");
  scroll_ = new QScrollArea;
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(0);
  v->addWidget(title_);
  v->addWidget(scroll_, 1);
  showNote("Select an element in the tree or put the cursor in its text.");
}

void PropertyPanel::resetContent() {
  // A fresh form (the old one is deleted later: this may run inside one of its fields' signals).
  rows_.clear();
  if (content_) {
    QWidget* old = scroll_->takeWidget();
    old->hide();
    old->deleteLater();
  }
  content_ = new QWidget;
  form_ = new QFormLayout(content_);
  form_->setContentsMargins(6, 4, 6, 4);
  form_->setVerticalSpacing(3);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  scroll_->setWidget(content_);
}

void PropertyPanel::showNote(const QString& note) {
  resetContent();
  model_.reset();
  kind_ = NodeKind::Group;
  index_ = -1;
  title_->setText("Properties");
  auto* l = new QLabel(note);
  l->setWordWrap(true);
  l->setStyleSheet("QLabel { color: #666; }");
  form_->addRow(l);
}

QString PropertyPanel::title() const { return title_->text(); }

void PropertyPanel::showImported(std::shared_ptr<const ParsedModel> model, NodeKind kind, int index) {
  // The values as read (no text to edit): a body's mass, inertia and pose; a joint's kind, bodies,
  // axis and anchors.
  const Model& m = model->result.model;
  const auto vec = [](const auto& v) {
    QStringList parts;
    for (int i = 0; i < int(v.size()); ++i) parts << QString::number(v(i), 'g', 5);
    return parts.join("  ");
  };
  const auto bodyName = [&](int b) { return b < 0 ? QString("world") : QString::fromStdString(m.bodies[size_t(b)].name); };
  if (kind == NodeKind::Body && index >= 0 && index < int(m.bodies.size())) {
    resetContent();
    const BodyDesc& b = m.bodies[size_t(index)];
    title_->setText("Body " + QString::fromStdString(b.name) + "  (read-only: " + model->importedFrom + ")");
    addTextRow("mass", QString::number(b.mass, 'g', 6) + " kg");
    addTextRow("inertia", vec(b.inertia.diagonal()) + " kg·m² (diagonal)");
    addTextRow("position", vec(b.position) + " m");
    addTextRow("orientation", vec(b.orientation) + " (w x y z)");
    addTextRow("shapes", QString("%1 collision, %2 visual").arg(b.collisions.size()).arg(b.visuals.size()));
  } else if (kind == NodeKind::Joint && index >= 0 && index < int(m.joints.size())) {
    resetContent();
    const JointDesc& j = m.joints[size_t(index)];
    title_->setText("Joint " + QString::fromStdString(j.name) + "  (read-only: " + model->importedFrom + ")");
    addTextRow("type", jointKind(j.type).name);
    addTextRow("parent", bodyName(j.parent));
    addTextRow("child", bodyName(j.child));
    addTextRow("axis", vec(j.axis));
    addTextRow("parent anchor", vec(j.parentAnchor) + " m");
    addTextRow("child anchor", vec(j.childAnchor) + " m");
  } else {
    return showNote("Read from " + model->importedFrom + ": bodies and joints show their values here (read-only).");
  }
  model_ = std::move(model);
  kind_ = kind;
  index_ = index;
  readOnly_ = true;
}

void PropertyPanel::showElement(std::shared_ptr<const ParsedModel> model, NodeKind kind, int index, bool readOnly) {
  if (model && !model->importedFrom.isEmpty()) return showImported(std::move(model), kind, index);
  const ElementSource* src = model ? elementSource(model->result.map, kind, index) : nullptr;
  if (!src) return showNote("Select an element in the tree or put the cursor in its text.");
  resetContent();
  model_ = std::move(model);
  kind_ = kind;
  index_ = index;
  readOnly_ = readOnly || editor_->isReadOnly();
  const Model& m = model_->result.model;
  // Title: kind and name (the name token as written).
  // In NodeKind's order.
  static const char* kindNames[] = {"Mechanism", "Body",         "Joint",     "Spring",   "Controller", "Wrench",   "Actuator",
                                    "Ground",    "Contact pair", "Exclusion", "Keyframe", "Tendon",     "Coupling", ""};
  static_assert(sizeof kindNames / sizeof kindNames[0] == size_t(NodeKind::Group) + 1, "one name per NodeKind");
  elementName_ = model_->textOf(src->name).remove('"');
  title_->setText(QString(kindNames[int(kind)]) + (elementName_.isEmpty() ? QString() : " " + elementName_) +
                  (readOnly ? "  (stale: read-only)" : ""));
  if (src->generated) {
    auto* l = new QLabel("Made by repeat/chain: its values live in the template, shared by every copy (edit them in the text).");
    l->setWordWrap(true);
    l->setStyleSheet("QLabel { color: #7d6608; }");
    form_->addRow(l);
    readOnly_ = true;
  }
  // A keyframe: per body (in the model's order) its state, each number a field.
  if (kind == NodeKind::Keyframe) {
    static const std::pair<const char*, const char*> items[] = {
        {"position", "m"}, {"orientation", "w x y z (unit)"}, {"velocity", "m/s"}, {"angular-velocity", "rad/s (world)"}};
    for (const BodyDesc& b : m.bodies) {
      const auto entry = src->entries.find(b.name);
      if (entry == src->entries.end()) continue;
      auto* heading = new QLabel("<b>" + QString::fromStdString(b.name).toHtmlEscaped() + "</b>");
      form_->addRow(heading);
      for (const auto& [item, unit] : items) {
        const auto it = entry->second.find(item);
        if (it != entry->second.end() && !it->second.values.empty())
          addRow(QString::fromStdString(b.name + "." + item), item, it->second, unit);
      }
    }
    return;
  }
  // References and kinds as text.
  for (const auto& [key, ps] : src->properties)
    if (kReferenceKeys.count(key) && ps.form.valid()) addTextRow(QString::fromStdString(key), model_->textOf(ps.form));
  // The known properties in order, then any other number-valued ones.
  std::set<std::string> shown(kReferenceKeys.begin(), kReferenceKeys.end());
  for (const PropSpec& spec : specsFor(kind, m, index)) {
    shown.insert(spec.key);
    const auto it = src->properties.find(spec.key);
    if (it != src->properties.end() && !it->second.values.empty()) {
      addRow(spec.key, spec.key, it->second, spec.unit);
      continue;
    }
    // Absent: the value the model takes, read-only.
    if (kind == NodeKind::Body && index >= 0 && index < int(m.bodies.size())) {
      const BodyDesc& b = m.bodies[size_t(index)];
      const QString k = spec.key;
      if (k == "mass" && !src->properties.count("density")) addDefaultRow(k, number(b.mass), spec.unit);
      else if (k == "inertia")
        addDefaultRow(k, number(b.inertia(0, 0)) + "  " + number(b.inertia(1, 1)) + "  " + number(b.inertia(2, 2)), spec.unit);
      else if (k == "position") addDefaultRow(k, vec(b.position), spec.unit);
      else if (k == "friction") addDefaultRow(k, number(b.friction), spec.unit);
    } else if (kind == NodeKind::Joint && index >= 0 && index < int(m.joints.size())) {
      const JointDesc& j = m.joints[size_t(index)];
      const QString k = spec.key;
      const size_t n = size_t(jointKind(j.type).freeCoordinates());
      if (k == "axis") addDefaultRow(k, vec(j.axis), spec.unit);
      else if (k == "parent-anchor") addDefaultRow(k, vec(j.parentAnchor), spec.unit);
      else if (k == "child-anchor") addDefaultRow(k, vec(j.childAnchor), spec.unit);
      else if ((k == "position" || k == "velocity") && n > 0) {
        // The joint's coordinates or their rates: editable, written as a new form.
        const std::string keyword = spec.key;
        addAbsentRow(k, k, expandedCoordinates(k == "position" ? j.initialPosition : j.initialVelocity, n), spec.unit,
                     [index, keyword](const sexpr::Document& doc, const MechParseResult& p, const std::vector<double>& v) {
                       return setJointValues(doc, p, index, keyword, v);
                     });
      }
    }
  }
  for (const auto& [key, ps] : src->properties)
    if (!shown.count(key) && !ps.values.empty()) addRow(QString::fromStdString(key), QString::fromStdString(key), ps, "");
  // Shapes of a body (each (shape …) form once, though it is both a visual and a collision).
  std::set<size_t> seenShapes;
  int n = 0;
  std::vector<const ElementSource*> shapes;
  for (const ElementSource& s : src->visuals) shapes.push_back(&s);
  for (const ElementSource& s : src->collisions) shapes.push_back(&s);
  for (const ElementSource* s : shapes) {
    if (!seenShapes.insert(s->form.begin).second) continue;
    ++n;
    const auto kindIt = s->properties.find("kind");
    const QString head = model_->textOf(s->form).section(' ', 0, 0).remove('(');
    auto* h = new QLabel(QString("<b>%1 %2</b> %3").arg(head).arg(n).arg(kindIt != s->properties.end() ? model_->textOf(kindIt->second.form) : QString()));
    form_->addRow(h);
    static const std::pair<const char*, const char*> shapeProps[] = {
        {"size", "m"}, {"at", "m"}, {"rotation", "rad"}, {"orientation", "w x y z"}, {"color", "0–1"}, {"scale", ""}};
    for (const auto& [key, unit] : shapeProps) {
      const auto it = s->properties.find(key);
      if (it != s->properties.end() && !it->second.values.empty())
        addRow(QString("shape%1.%2").arg(n).arg(key), key, it->second, unit);
    }
    // Not turned in the text: its rotation vector, editable (written into the shape's form).
    if (!s->properties.count("rotation") && !s->properties.count("orientation") && kind == NodeKind::Body) {
      const int shape = n - 1;
      addAbsentRow(QString("shape%1.rotation").arg(n), "rotation", {0.0, 0.0, 0.0}, "rad",
                   [index, shape](const sexpr::Document& doc, const MechParseResult& p, const std::vector<double>& v) {
                     return setShapeValues(doc, p, index, shape, "rotation", v);
                   });
    }
  }
}

void PropertyPanel::addTextRow(const QString& label, const QString& text) {
  auto* l = new QLabel(text);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form_->addRow(label, l);
}

void PropertyPanel::addDefaultRow(const QString& label, const QString& value, const QString& unit) {
  // Not in the text: the model's value, greyed (mass and inertia come from the shapes, the rest are defaults).
  const QString origin = label == "mass" || label == "inertia" ? "from the shapes" : "default";
  auto* l = new QLabel(QString("%1  <span style='color:#888'>%2 (%3)</span>").arg(value, unit, origin));
  l->setStyleSheet("QLabel { color: #777; }");
  l->setWordWrap(true);
  l->setObjectName("default-" + label);
  form_->addRow(label, l);
}

void PropertyPanel::addAbsentRow(const QString& key, const QString& label, const std::vector<double>& values, const QString& unit,
                                 FormWriter write) {
  // Fields like addRow's, marked as not written yet; Enter in any of them writes the form.
  Row row;
  row.write = std::move(write);
  auto* w = new QWidget;
  auto* h = new QHBoxLayout(w);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(3);
  for (size_t k = 0; k < values.size(); ++k) {
    auto* e = new QLineEdit(number(values[k]));
    row.shown.push_back(e->text());
    e->setObjectName(QString("prop-%1-%2").arg(key).arg(k));
    e->setMinimumWidth(48);
    e->setStyleSheet("QLineEdit { color: #777; }");
    if (readOnly_) {
      e->setReadOnly(true);
    } else {
      e->setToolTip("Not in the text (the value the model takes): Enter writes the form with these numbers");
      const int idx = int(k);
      connect(e, &QLineEdit::editingFinished, this, [this, key, idx, e] { apply(key, idx, e); });
    }
    h->addWidget(e, 1);
    row.fields.push_back(e);
  }
  auto* u = new QLabel(unit.isEmpty() ? QString("(default)") : unit + " (default)");
  u->setStyleSheet("QLabel { color: #888; }");
  h->addWidget(u);
  addFieldsRow(key, label, w, row);
}

void PropertyPanel::addRow(const QString& key, const QString& label, const PropertySource& ps, const QString& unit) {
  // The value fields side by side, then the unit; literals editable, expressions read-only.
  Row row;
  auto* w = new QWidget;
  auto* h = new QHBoxLayout(w);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(3);
  for (size_t k = 0; k < ps.values.size(); ++k) {
    const SourceRef& r = ps.values[k];
    auto* e = new QLineEdit(model_->textOf(r));
    e->setObjectName(QString("prop-%1-%2").arg(key).arg(k));
    e->setMinimumWidth(48);
    if (!r.literal || readOnly_) {
      e->setReadOnly(true);
      e->setStyleSheet("QLineEdit { background: #f0f0f0; color: #555; }");
      e->setToolTip(r.literal ? "read-only: the text has errors" : "an expression or a parameter: edit it in the text");
    } else {
      e->setToolTip("Enter applies the value (only this number of the text changes)");
      const int idx = int(k);
      connect(e, &QLineEdit::editingFinished, this, [this, key, idx, e] { apply(key, idx, e); });
    }
    h->addWidget(e, 1);
    row.tokens.push_back(r);
    row.fields.push_back(e);
  }
  if (!unit.isEmpty()) {
    auto* u = new QLabel(unit);
    u->setStyleSheet("QLabel { color: #666; }");
    h->addWidget(u);
  }
  addFieldsRow(key, label, w, row);
}

void PropertyPanel::addFieldsRow(const QString& key, const QString& label, QWidget* fields, Row& row) {
  form_->addRow(label, fields);
  // The message line: why a value was refused.
  row.message = new QLabel;
  row.message->setObjectName("message-" + key);
  row.message->setWordWrap(true);
  row.message->setStyleSheet("QLabel { color: #c62828; }");
  row.message->hide();
  form_->addRow(QString(), row.message);
  rows_.insert(key, row);
}

bool PropertyPanel::apply(const QString& key, int value, QLineEdit* edit) {
  const auto it = rows_.find(key);
  if (it != rows_.end() && it->tokens.empty() && it->write && model_) return applyAbsent(key);
  if (it == rows_.end() || value < 0 || value >= int(it->tokens.size()) || !model_) return false;
  // Copies: a successful edit rebuilds the panel (rows_ cleared, widgets deleted later).
  const SourceRef token = it->tokens[size_t(value)];
  const QPointer<QLabel> message = it->message;
  const QPointer<QLineEdit> field = edit;
  const QString text = edit->text().trimmed();
  if (text == model_->textOf(token)) {
    message->hide();
    return true;  // unchanged
  }
  // A number first (C locale, like the text), then the editor's checks (the reader's rules).
  auto refuse = [&](const QString& why) {
    if (message) {
      message->setText(why);
      message->show();
    }
    if (field) field->setStyleSheet("QLineEdit { border: 1px solid #c62828; }");
    return false;
  };
  bool ok = false;
  const double v = QLocale::c().toDouble(text, &ok);
  if (!ok) return refuse(QString("'%1' is not a number").arg(text));
  QString why;
  const QString label = QString("Set %1 of %2 to %3").arg(key, elementName_.isEmpty() ? QString("the element") : elementName_, text);
  if (!editor_->setLiteral(token, v, label, &why)) return refuse(why + " (not applied)");
  return true;
}

bool PropertyPanel::applyAbsent(const QString& key) {
  const auto it = rows_.find(key);
  // Copies: a successful edit rebuilds the panel.
  const FormWriter write = it->write;
  const QPointer<QLabel> message = it->message;
  std::vector<double> values;
  for (QLineEdit* e : it->fields) {
    bool ok = false;
    values.push_back(QLocale::c().toDouble(e->text().trimmed(), &ok));
    if (!ok) {
      message->setText(QString("'%1' is not a number").arg(e->text().trimmed()));
      message->show();
      e->setStyleSheet("QLineEdit { border: 1px solid #c62828; }");
      return false;
    }
  }
  // Nothing typed: the form stays absent.
  bool same = true;
  for (size_t k = 0; k < values.size(); ++k) same = same && it->fields[k]->text().trimmed() == it->shown[k];
  if (same) return true;
  QString why;
  const QString label = QString("Set %1 of %2").arg(key, elementName_.isEmpty() ? QString("the element") : elementName_);
  if (!editor_->applyEdit([&](const sexpr::Document& doc, const MechParseResult& p) { return write(doc, p, values); }, label, &why)) {
    if (message) {
      message->setText(why + " (not applied)");
      message->show();
    }
    return false;
  }
  return true;
}

QLineEdit* PropertyPanel::field(const QString& key, int value) const {
  const auto it = rows_.find(key);
  if (it == rows_.end() || value < 0 || value >= int(it->fields.size())) return nullptr;
  return it->fields[size_t(value)];
}

QString PropertyPanel::message(const QString& key) const {
  const auto it = rows_.find(key);
  return it != rows_.end() && !it->message->isHidden() ? it->message->text() : QString();
}

bool PropertyPanel::enter(const QString& key, int value, const QString& text) {
  QLineEdit* e = field(key, value);
  if (!e || e->isReadOnly()) return false;
  e->setText(text);
  return apply(key, value, e);
}

}  // namespace ms::ui
