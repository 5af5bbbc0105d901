// SPDX-License-Identifier: GPL-3.0-or-later
// The text editor of model files (issue 6, first slice): a QPlainTextEdit with syntax highlighting
// (.mech or .trep, by extension), a line-number gutter with diagnostic markers, bracket matching,
// auto-indent on Enter, comment toggle, and diagnostics as you type: ~300 ms after the last edit the
// buffer is read and compiled by the engine; problems get wavy underlines at line:column, gutter
// markers and tooltips. The problems list and the find bar live in EditorPanel.
#pragma once

#include <QPlainTextEdit>
#include <QTextCursor>
#include <QTimer>
#include <algorithm>
#include <functional>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "editor/model_check.h"
#include "io/mech_edit.h"

class QUndoStack;

namespace ms::ui {

class ModelHighlighter;

// A .mech text that read and compiled without errors: its model, source map and the text itself,
// with the document position (UTF-16) of every byte offset of the source map.
struct ParsedModel {
  MechParseResult result;
  std::string text;
  std::vector<int> charOf;  // byte offset → document position (size = bytes + 1)
  // Non-empty for a model read from another format ("URDF", "MJCF", "trep"): no source map; the
  // tree and the property panel show it read-only.
  QString importedFrom;
  int position(size_t byte) const { return charOf.empty() ? 0 : charOf[std::min(byte, charOf.size() - 1)]; }
  // The source text of a span (e.g. an expression).
  QString textOf(const SourceRef& r) const {
    return r.valid() && r.end <= text.size() ? QString::fromUtf8(text.data() + r.begin, qsizetype(r.end - r.begin)) : QString();
  }
};

class ModelEditor : public QPlainTextEdit {
  Q_OBJECT
 public:
  // One diagnostic of the last check. `span` selects the offending token (null when the
  // diagnostic has no location, e.g. compile errors); it follows later edits.
  struct Problem {
    Severity severity = Severity::Error;
    int line = 0, column = 0;  // 1-based as reported (column in characters); 0 = no location
    QString message;
    QTextCursor span;
  };

  explicit ModelEditor(QWidget* parent = nullptr);
  ~ModelEditor() override;

  // ---- the buffer
  // Shows `text` as the content of `fileName` (whose extension picks the language); clean, checked.
  void setSource(const QString& text, const QString& fileName);
  // An untitled buffer (File > New) in `language`: no file until it is saved under a name.
  void setUntitled(const QString& text, ModelLanguage language);
  // Reads the file (UTF-8) into the buffer; false with *error when it cannot be read.
  bool loadFile(const QString& path, QString* error = nullptr);
  QString fileName() const { return fileName_; }
  ModelLanguage language() const { return language_; }
  ModelHighlighter* highlighter() const { return highlighter_; }
  // Writes the buffer atomically (QSaveFile) to `path`; on success the buffer is clean and named
  // `path`. On failure *error says why and the buffer is left exactly as it was.
  bool saveTo(const QString& path, QString* error = nullptr);
  bool isModified() const;

  // ---- diagnostics
  // Parameter values the text is read with (the --set values the model was opened with; empty: the
  // file's own). Set before setSource/loadFile; the next check uses them.
  void setOverrides(const std::map<std::string, std::string>& overrides) { overrides_ = overrides; }
  const std::map<std::string, std::string>& overrides() const { return overrides_; }
  // Debounce after the last edit (default 300 ms).
  void setCheckDelay(int ms) { checkTimer_.setInterval(ms); }
  // Reads and compiles the buffer now and shows the result (the debounce timer calls this).
  void checkNow();
  // True while an edit waits for the debounced check (the model and spans are not the text's yet).
  bool checkPending() const { return checkTimer_.isActive(); }
  const std::vector<Problem>& problems() const { return problems_; }
  // CPU time (of the GUI thread) of the last checkNow(): parse + compile + underlines + problems
  // list, in ms; unlike wall time it does not grow when other processes share the cores.
  double lastCheckMs() const { return lastCheckMs_; }
  // The wavy underlines now shown (one per located problem).
  QList<QTextEdit::ExtraSelection> diagnosticSelections() const { return diagnosticSelections_; }
  // Puts the cursor at problem `index` (its token selected) and focuses the editor.
  void goToProblem(int index);
  // Document position of a 1-based line and column (clamped into the document).
  int positionOf(int line, int column) const;

  // ---- the model behind the text (.mech; tree view and property panel)
  // The last checked text without errors (null before the first one); it stays while the text has
  // errors, and modelStale() then says that it is no longer the text's.
  std::shared_ptr<const ParsedModel> lastValidModel() const { return lastValid_; }
  bool modelStale() const { return stale_; }
  // Targeted edit: rewrites the number token `token` (of lastValidModel()'s source map) as `value`
  // (engine's setValue: that token only) as one undo step named `label`. The result is read and
  // compiled first; any error (the reader's rules: e.g. a negative mass) refuses the edit with
  // *error and changes nothing. Also refused while the text has errors or is read-only.
  bool setLiteral(const SourceRef& token, double value, const QString& label, QString* error = nullptr);
  // Structure edit (engine's io/mech_edit.h: add, delete, rename, move): `edit` gets the parsed
  // current text and its read model; its result is read and compiled and, if valid, applied as one
  // undo step named `label` that replaces only the bytes that differ. Refused like setLiteral().
  bool applyEdit(const std::function<MechEdit(const sexpr::Document&, const MechParseResult&)>& edit,
                 const QString& label, QString* error = nullptr);
  // A model read from another format (URDF, MJCF, trep; `model->importedFrom` set) with the loader's
  // diagnostics: while the buffer holds that file's text unmodified, lastValidModel() is `model` and
  // the problems are `diags` (the loader's, with its compile notes) instead of the buffer's own check.
  // Cleared by the next setSource/loadFile.
  void setImportedModel(std::shared_ptr<const ParsedModel> model, std::vector<Diagnostic> diags);
  // Highlights document positions [begin, end) (a selected tree node); begin >= end clears.
  void setNodeHighlight(int begin, int end);

  // ---- undo: one QUndoStack for typing and property edits alike. Every undo step of the document
  // (a merged run of typing, a paste, a comment toggle, a setLiteral()) becomes one command of the
  // stack whose undo()/redo() call the document's; Ctrl+Z / Ctrl+Shift+Z in the editor go through it.
  QUndoStack* undoStack() const { return undo_; }

  // ---- editing helpers
  // The position of the bracket matching the one at `pos` (strings and comments skipped): -1 when
  // it has none (unmatched), -2 when `pos` holds no bracket of the code.
  int matchingBracket(int pos) const;
  // Adds "; " at the start of every selected line, or removes it when every non-blank one has it.
  void toggleComment();

  // ---- the gutter (drawn by its own widget)
  int gutterWidth() const;
  void paintGutter(QPaintEvent* e, QWidget* gutter);
  QString gutterToolTip(int y) const;

 signals:
  void problemsChanged();
  // After every check: lastValidModel() or modelStale() may have changed.
  void modelChecked();

 protected:
  void keyPressEvent(QKeyEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  bool viewportEvent(QEvent* e) override;

 private:
  void updateExtraSelections();
  void updateBracketSelections();
  void updateGutterWidth();
  void ensureBracketTable() const;
  void insertNewlineWithIndent();

  QWidget* gutter_ = nullptr;
  ModelHighlighter* highlighter_ = nullptr;
  QString fileName_;
  ModelLanguage language_ = ModelLanguage::Plain;
  QTimer checkTimer_;
  std::map<std::string, std::string> overrides_;
  bool settingText_ = false;
  std::vector<Problem> problems_;
  std::shared_ptr<const ParsedModel> imported_;
  std::vector<Diagnostic> importedDiags_;
  double lastCheckMs_ = 0;
  QList<QTextEdit::ExtraSelection> diagnosticSelections_, bracketSelections_;
  // Bracket partners of the whole text (-2 no code bracket, -1 unmatched), per document revision.
  mutable std::vector<int> brackets_;
  mutable int bracketsRevision_ = -1;
  // The model of the last valid text, and whether the text has errors since.
  std::shared_ptr<const ParsedModel> lastValid_;
  bool stale_ = false;
  QList<QTextEdit::ExtraSelection> nodeSelections_;
  QUndoStack* undo_ = nullptr;
  // Replaces the text by `newText` (checked first) as one undo step: only the differing middle.
  bool replaceText(const std::string& newText, const QString& label, QString* error);
  QString pendingLabel_;  // the name of the next undo step (a property edit), "" for typing
};

}  // namespace ms::ui
