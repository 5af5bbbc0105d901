// SPDX-License-Identifier: GPL-3.0-or-later
// The editor dock's content: the find/replace bar above the ModelEditor and the problems list
// below it (activating a problem moves the cursor to it). Keys, while the panel has the focus:
// Ctrl+F find, Ctrl+G / Ctrl+Shift+G next / previous (F3 toggles a plot), Ctrl+H replace, Ctrl+/ comment toggle, Esc closes the bar.
#pragma once

#include <QWidget>

class QLabel;
class QToolBar;
class QTreeWidget;

namespace ms::ui {

class FindBar;
class ModelEditor;

class EditorPanel : public QWidget {
  Q_OBJECT
 public:
  explicit EditorPanel(QWidget* parent = nullptr);

  ModelEditor* editor() const { return editor_; }
  FindBar* findBar() const { return find_; }
  QTreeWidget* problemsView() const { return problems_; }
  // The row of buttons above the text (the main window puts Apply there).
  QToolBar* toolBar() const { return tools_; }
  // A note above the text (e.g. "changed on disk"); "" hides it.
  void setNote(const QString& text);
  QString note() const;

  // Shows a file's text (read-only with a note when `readOnly`, e.g. the gallery text of a scene).
  bool loadFile(const QString& path, QString* error = nullptr, bool readOnly = false);
  // An editable .mech text without a file (File > New), saved with Save As.
  void newUntitled(const QString& text);
  // Shows `text` with a note and no file (e.g. nothing to edit).
  void showText(const QString& text, const QString& fileName, const QString& note);
  // Writes the buffer to its file (QSaveFile); false with *error, buffer unchanged, on failure.
  bool save(QString* error = nullptr);
  bool canSave() const;

 signals:
  // The buffer's modified state changed (differs from the file or not).
  void modifiedChanged(bool modified);

 private:
  void fillProblems();

  ModelEditor* editor_;
  FindBar* find_;
  QTreeWidget* problems_;
  QLabel* note_;
  QToolBar* tools_;
};

}  // namespace ms::ui
