// SPDX-License-Identifier: GPL-3.0-or-later
// The editor's find/replace bar: find next/previous (wrapping), replace, replace all (one undo
// step), an optional case-sensitive match. Shown by EditorPanel on Ctrl+F (find) or Ctrl+H.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ms::ui {

class ModelEditor;

class FindBar : public QWidget {
  Q_OBJECT
 public:
  explicit FindBar(ModelEditor* editor, QWidget* parent = nullptr);

  // Shows the bar with the find field focused (the editor's selection as the text), and the
  // replace row when `replace`.
  void open(bool replace);
  void setFindText(const QString& t);
  void setReplaceText(const QString& t);
  void setCaseSensitive(bool on);
  QString findText() const;

  // Selects the next (or previous) match after the cursor, wrapping; false when there is none.
  bool findNext(bool backward = false);
  // Replaces the selected match (if the selection is one) and finds the next one.
  bool replaceOne();
  // Replaces every match in the buffer as one undo step; returns how many.
  int replaceAll();

 protected:
  void keyPressEvent(QKeyEvent* e) override;

 private:
  bool selectionMatches() const;

  ModelEditor* editor_;
  QLineEdit *find_, *replace_;
  QCheckBox* case_;
  QLabel* status_;
};

}  // namespace ms::ui
