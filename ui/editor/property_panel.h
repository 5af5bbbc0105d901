// SPDX-License-Identifier: GPL-3.0-or-later
// The property panel of the model editor (issue 6, second slice): typed fields with units for the
// properties written in the selected element's form (mass, inertia, pose, velocity, joint axis,
// anchors, limits, stiffness, damping, friction, shape sizes, colour, spring and controller
// values). A number written as a literal is an editable field; editing it rewrites only that token
// of the text (ModelEditor::setLiteral → the engine's setValue) after the reader's own checks; a
// refused value is explained under its field and changes nothing. A value written as an expression
// or a parameter is shown read-only with its text; some properties absent from the text are shown
// read-only with the value the model takes (its default or the value derived from the shapes).
#pragma once

#include <QHash>
#include <QPointer>
#include <QWidget>
#include <functional>
#include <memory>

#include "io/mech_edit.h"
#include "io/mech_reader.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QScrollArea;

namespace ms::ui {

class ModelEditor;
struct ParsedModel;

// The kinds of node of the model tree; Group is a heading ("Springs", …) without an element.
enum class NodeKind { Mechanism, Body, Joint, Spring, Controller, Wrench, Actuator, Ground, ContactPair, Exclusion, Keyframe, Tendon, Coupling, Group };

// The source of element `index` of kind `kind` in `map` (null for Group or an index out of range).
const ElementSource* elementSource(const SourceMap& map, NodeKind kind, int index);

class PropertyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PropertyPanel(ModelEditor* editor, QWidget* parent = nullptr);

  // Shows element (kind, index) of `model`; every field read-only when `readOnly` (stale text).
  void showElement(std::shared_ptr<const ParsedModel> model, NodeKind kind, int index, bool readOnly);
  // Shows element (kind, index) of a model read from another format (no text): its values, read-only.
  void showImported(std::shared_ptr<const ParsedModel> model, NodeKind kind, int index);
  // Shows only a note (nothing selected).
  void showNote(const QString& note);

  // The field of value `value` of property `key` ("mass", "axis", "shape1.size", …), null if absent.
  QLineEdit* field(const QString& key, int value = 0) const;
  // The message under property `key` ("" when none is shown).
  QString message(const QString& key) const;
  // The panel's title (element kind and name).
  QString title() const;
  // Types `text` into a field and applies it as pressing Enter does; false when refused.
  bool enter(const QString& key, int value, const QString& text);

 private:
  // One editable or read-only row: label, value fields, unit; a message line under it.
  void addRow(const QString& key, const QString& label, const PropertySource& ps, const QString& unit);
  void addDefaultRow(const QString& label, const QString& value, const QString& unit);
  // A property absent from the text, as editable fields holding the value the model takes: Enter in
  // any writes the whole form (`write` with every field's number) as one undoable edit.
  using FormWriter = std::function<MechEdit(const sexpr::Document&, const MechParseResult&, const std::vector<double>&)>;
  void addAbsentRow(const QString& key, const QString& label, const std::vector<double>& values, const QString& unit,
                    FormWriter write);
  void addTextRow(const QString& label, const QString& text);
  bool apply(const QString& key, int value, QLineEdit* edit);
  // The row's fields (`fields`) under `label`, its message line, and the row kept under `key`.
  struct Row;
  void addFieldsRow(const QString& key, const QString& label, QWidget* fields, Row& row);
  bool applyAbsent(const QString& key);
  void resetContent();

  ModelEditor* editor_;
  QLabel* title_;
  QScrollArea* scroll_;
  QPointer<QWidget> content_;
  QFormLayout* form_ = nullptr;
  std::shared_ptr<const ParsedModel> model_;
  NodeKind kind_ = NodeKind::Group;
  int index_ = -1;
  bool readOnly_ = true;
  QString elementName_;
  // Per property key: its value tokens, fields and message label.
  struct Row {
    std::vector<SourceRef> tokens;  // empty: an absent property (`write` adds its form)
    std::vector<QLineEdit*> fields;
    QLabel* message = nullptr;
    FormWriter write;
    std::vector<QString> shown;  // an absent property's fields as first shown
  };
  QHash<QString, Row> rows_;
};

}  // namespace ms::ui
