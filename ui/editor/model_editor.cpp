// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/model_editor.h"

#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHash>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QSaveFile>
#include <QTextBlock>
#include <QContextMenuEvent>
#include <QMenu>
#include <QToolTip>
#include <QUndoCommand>
#include <QUndoStack>
#include <time.h>

#include <algorithm>

#include "editor/model_highlighter.h"
#include "io/mech_writer.h"
#include "io/sexpr.h"

namespace ms::ui {

namespace {
// CPU time of the calling (GUI) thread in ms: what a check costs, which other processes sharing the
// cores do not inflate (wall time does).
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
}  // namespace

namespace {
const QColor kErrorColour("#d32f2f"), kWarningColour("#e69500"), kNoteColour("#1976d2");
QColor severityColour(Severity s) {
  return s == Severity::Error ? kErrorColour : s == Severity::Warning ? kWarningColour : kNoteColour;
}
bool isDelimiter(QChar c) { return c.isSpace() || c == '(' || c == ')' || c == '"' || c == ';'; }

// One undo step of the document as a command of the shared stack: undo()/redo() replay the
// document's own step (the first redo() is the edit that was just made).
class DocumentStep : public QUndoCommand {
 public:
  DocumentStep(QTextDocument* doc, const QString& label) : QUndoCommand(label), doc_(doc) {}
  void undo() override { doc_->undo(); }
  void redo() override {
    if (first_) first_ = false;
    else doc_->redo();
  }

 private:
  QTextDocument* doc_;
  bool first_ = true;
};

// Document position (UTF-16) of every byte offset of a UTF-8 text.
std::vector<int> charPositions(const std::string& text) {
  std::vector<int> out(text.size() + 1);
  int pos = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    out[i] = pos;
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if ((b & 0xC0) != 0x80) pos += b >= 0xF0 ? 2 : 1;  // a code point starts; 4-byte ones are surrogate pairs
  }
  out[text.size()] = pos;
  return out;
}

// The gutter: line numbers and diagnostic markers, painted by the editor.
class Gutter : public QWidget {
 public:
  explicit Gutter(ModelEditor* e) : QWidget(e), editor_(e) { setMouseTracking(true); }
  QSize sizeHint() const override { return {editor_->gutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* e) override { editor_->paintGutter(e, this); }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* he = static_cast<QHelpEvent*>(e);
      const QString tip = editor_->gutterToolTip(he->pos().y());
      if (tip.isEmpty()) QToolTip::hideText();
      else QToolTip::showText(he->globalPos(), tip, this);
      return true;
    }
    return QWidget::event(e);
  }

 private:
  ModelEditor* editor_;
};
}  // namespace

ModelEditor::ModelEditor(QWidget* parent) : QPlainTextEdit(parent) {
  // A fixed-pitch font, no wrapping, tab stops of two characters.
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabStopDistance(2 * fontMetrics().horizontalAdvance(' '));
  highlighter_ = new ModelHighlighter(document(), language_);
  gutter_ = new Gutter(this);
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& r, int dy) {
    if (dy) gutter_->scroll(0, dy);
    else gutter_->update(0, r.y(), gutter_->width(), r.height());
  });
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] { updateBracketSelections(); });
  updateGutterWidth();
  // Diagnostics: debounced after the last edit.
  checkTimer_.setSingleShot(true);
  checkTimer_.setInterval(300);
  connect(&checkTimer_, &QTimer::timeout, this, [this] { checkNow(); });
  connect(document(), &QTextDocument::contentsChanged, this, [this] {
    if (!settingText_) checkTimer_.start();
  });
  // The shared undo stack: each new undo step of the document becomes one command.
  undo_ = new QUndoStack(this);
  connect(document(), &QTextDocument::undoCommandAdded, this, [this] {
    if (settingText_) return;
    undo_->push(new DocumentStep(document(), pendingLabel_.isEmpty() ? QString("Typing") : pendingLabel_));
    pendingLabel_.clear();
  });
}

ModelEditor::~ModelEditor() = default;

// ---- the buffer -------------------------------------------------------------------------------

void ModelEditor::setSource(const QString& text, const QString& fileName) {
  fileName_ = fileName;
  language_ = languageForPath(fileName);
  settingText_ = true;
  highlighter_->setLanguage(language_);
  setPlainText(text);  // clears the document's undo history, so the stack starts afresh too
  undo_->clear();
  document()->setModified(false);
  settingText_ = false;
  lastValid_.reset();
  imported_.reset();
  importedDiags_.clear();
  stale_ = false;
  nodeSelections_.clear();
  checkTimer_.stop();
  checkNow();
}

void ModelEditor::setImportedModel(std::shared_ptr<const ParsedModel> model, std::vector<Diagnostic> diags) {
  // Locations in other files (an MJCF include, a mesh) are not positions in this buffer.
  const std::string file = fileName_.toStdString();
  for (Diagnostic& d : diags)
    if (!d.file.empty() && d.file != file) {
      if (d.line > 0) d.message = d.file + ":" + std::to_string(d.line) + ": " + d.message;
      d.line = d.column = 0;
    }
  imported_ = std::move(model);
  importedDiags_ = std::move(diags);
  checkNow();
}

void ModelEditor::setUntitled(const QString& text, ModelLanguage language) {
  setSource(text, QString());
  language_ = language;
  highlighter_->setLanguage(language_);
  checkNow();
}

bool ModelEditor::loadFile(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = "cannot read " + path + ": " + f.errorString();
    return false;
  }
  setSource(QString::fromUtf8(f.readAll()), path);
  return true;
}

bool ModelEditor::saveTo(const QString& path, QString* error) {
  // Atomic: a temporary file renamed over the target on commit; nothing changes on failure.
  QSaveFile f(path);
  const QByteArray bytes = toPlainText().toUtf8();
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
    if (error) *error = "cannot write " + path + ": " + f.errorString();
    f.cancelWriting();
    return false;
  }
  if (path != fileName_) {
    fileName_ = path;
    language_ = languageForPath(path);
    highlighter_->setLanguage(language_);
  }
  document()->setModified(false);
  return true;
}

bool ModelEditor::isModified() const { return document()->isModified(); }

// ---- diagnostics ------------------------------------------------------------------------------

int ModelEditor::positionOf(int line, int column) const {
  QTextBlock b = document()->findBlockByNumber(std::max(0, line - 1));
  if (!b.isValid()) b = document()->lastBlock();
  return b.position() + std::clamp(column - 1, 0, int(b.text().size()));
}

void ModelEditor::checkNow() {
  checkTimer_.stop();
  const double cpu0 = threadCpuMs();
  // The engine's reader and compiler on the whole buffer.
  std::string text = toPlainText().toStdString();
  auto parsed = std::make_shared<ParsedModel>();
  // An imported model whose file text is unchanged: the loader's model and diagnostics.
  const bool useImported = imported_ && language_ != ModelLanguage::Mech && !document()->isModified();
  const std::vector<Diagnostic> diags =
      useImported ? importedDiags_ : checkModelText(text, fileName_.toStdString(), language_, &parsed->result, overrides_);
  // The model behind the text: replaced when the text has no errors, marked stale otherwise.
  const bool hasError =
      std::any_of(diags.begin(), diags.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
  if (language_ != ModelLanguage::Mech) {
    lastValid_ = useImported ? imported_ : nullptr;
    stale_ = false;
  } else if (!hasError) {
    parsed->charOf = charPositions(text);
    parsed->text = std::move(text);
    lastValid_ = std::move(parsed);
    stale_ = false;
  } else {
    stale_ = true;
  }
  problems_.clear();
  diagnosticSelections_.clear();
  for (const Diagnostic& d : diags) {
    Problem p;
    p.severity = d.severity;
    p.message = QString::fromStdString(d.message);
    if (d.line > 0) {
      // line:column (column in bytes) → the token that starts there.
      QTextBlock b = document()->findBlockByNumber(d.line - 1);
      if (!b.isValid()) b = document()->lastBlock();
      const QString text = b.text();
      const QByteArray utf8 = text.toUtf8();
      int start = int(QString::fromUtf8(utf8.left(std::max(0, d.column - 1))).size());
      int end = start;
      const int n = int(text.size());
      if (start >= n) {
        start = std::max(0, n - 1);  // past the end of the line: its last character
        end = n;
      } else if (text[start] == '"') {
        end = text.indexOf('"', start + 1);
        end = end < 0 ? n : end + 1;
      } else if (text[start] == '(') {
        end = start + 1;
        while (end < n && !isDelimiter(text[end])) ++end;
      } else if (text[start] == ')' || text[start] == ';') {
        end = start + 1;
      } else {
        while (end < n && !isDelimiter(text[end])) ++end;
        if (end == start) end = start + 1;
      }
      p.line = b.blockNumber() + 1;
      p.column = start + 1;
      p.span = QTextCursor(document());
      p.span.setPosition(b.position() + start);
      p.span.setPosition(b.position() + end, QTextCursor::KeepAnchor);
      // The wavy underline.
      QTextEdit::ExtraSelection sel;
      sel.cursor = p.span;
      sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
      sel.format.setUnderlineColor(severityColour(d.severity));
      diagnosticSelections_.append(sel);
    }
    problems_.push_back(std::move(p));
  }
  updateExtraSelections();
  gutter_->update();
  emit problemsChanged();
  lastCheckMs_ = threadCpuMs() - cpu0;
  emit modelChecked();
}

bool ModelEditor::setLiteral(const SourceRef& token, double value, const QString& label, QString* error) {
  // The engine's targeted edit: one number token rewritten, every other byte kept.
  return applyEdit(
      [&](const sexpr::Document& doc, const MechParseResult&) {
        MechEdit e;
        Diagnostics diags;
        e.doc = setValue(doc, token, value, diags);
        e.ok = !diags.hasErrors();
        if (!e.ok) e.error = diags.items().front().message;
        return e;
      },
      label, error);
}

bool ModelEditor::applyEdit(const std::function<MechEdit(const sexpr::Document&, const MechParseResult&)>& edit,
                            const QString& label, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (isReadOnly()) return fail("the text is read-only");
  // The source map must be the current text's: check a pending edit first.
  if (checkTimer_.isActive()) checkNow();
  if (!lastValid_ || stale_) return fail("the text has errors: fix them first");
  const std::string& text = lastValid_->text;
  if (toPlainText().toStdString() != text) return fail("the text changed since it was read");
  Diagnostics diags;
  const sexpr::Document doc = sexpr::Document::parse(text, fileName_.toStdString(), diags);
  const MechEdit e = edit(doc, lastValid_->result);
  if (!e.ok) return fail(QString::fromStdString(e.error));
  return replaceText(e.doc.text(), label, error);
}

bool ModelEditor::replaceText(const std::string& newText, const QString& label, QString* error) {
  // The same rules as when the text is typed: read and compile the result; any error refuses it.
  for (const Diagnostic& d : checkModelText(newText, fileName_.toStdString(), language_, nullptr, overrides_))
    if (d.severity == Severity::Error) {
      if (error) *error = QString::fromStdString(d.message);
      return false;
    }
  // Only the middle that differs is replaced (common prefix and suffix kept, on UTF-8 boundaries).
  const std::string& text = lastValid_->text;
  size_t head = 0;
  while (head < text.size() && head < newText.size() && text[head] == newText[head]) ++head;
  size_t tail = 0;
  while (tail < text.size() - head && tail < newText.size() - head &&
         text[text.size() - 1 - tail] == newText[newText.size() - 1 - tail])
    ++tail;
  auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  while (head > 0 && head < text.size() && continuation(text[head])) --head;
  while (tail > 0 && continuation(text[text.size() - tail])) --tail;
  // Applied as one edit of the document (one undo step of the shared stack), then re-checked.
  QTextCursor c(document());
  c.setPosition(lastValid_->position(head));
  c.setPosition(lastValid_->position(text.size() - tail), QTextCursor::KeepAnchor);
  pendingLabel_ = label;
  c.beginEditBlock();
  c.insertText(QString::fromStdString(newText.substr(head, newText.size() - tail - head)));
  c.endEditBlock();
  pendingLabel_.clear();
  checkNow();
  return true;
}

void ModelEditor::setNodeHighlight(int begin, int end) {
  // A light band behind the text of the selected tree node.
  nodeSelections_.clear();
  if (begin < end) {
    QTextEdit::ExtraSelection sel;
    sel.cursor = QTextCursor(document());
    sel.cursor.setPosition(begin);
    sel.cursor.setPosition(std::min(end, document()->characterCount() - 1), QTextCursor::KeepAnchor);
    sel.format.setBackground(QColor("#e3eefb"));
    nodeSelections_.append(sel);
  }
  updateExtraSelections();
}

void ModelEditor::goToProblem(int index) {
  if (index < 0 || index >= int(problems_.size())) return;
  const Problem& p = problems_[size_t(index)];
  if (!p.span.isNull()) {
    QTextCursor c(document());
    c.setPosition(p.span.selectionStart());
    setTextCursor(c);
    centerCursor();
  }
  setFocus();
}

void ModelEditor::updateExtraSelections() {
  // The current line, matched brackets, then the underlines on top.
  QList<QTextEdit::ExtraSelection> all;
  if (!isReadOnly()) {
    QTextEdit::ExtraSelection line;
    line.format.setBackground(QColor("#fbf8e6"));
    line.format.setProperty(QTextFormat::FullWidthSelection, true);
    line.cursor = textCursor();
    line.cursor.clearSelection();
    all.append(line);
  }
  all += nodeSelections_;
  all += bracketSelections_;
  all += diagnosticSelections_;
  setExtraSelections(all);
}

bool ModelEditor::viewportEvent(QEvent* e) {
  // Tooltips: the messages of the problems under the mouse.
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int pos = cursorForPosition(he->pos()).position();
    QStringList msgs;
    for (const Problem& p : problems_)
      if (!p.span.isNull() && pos >= p.span.selectionStart() && pos <= p.span.selectionEnd()) msgs << p.message;
    if (msgs.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(he->globalPos(), msgs.join('\n'), viewport());
    return true;
  }
  return QPlainTextEdit::viewportEvent(e);
}

// ---- brackets ---------------------------------------------------------------------------------

void ModelEditor::ensureBracketTable() const {
  if (bracketsRevision_ == document()->revision()) return;
  bracketsRevision_ = document()->revision();
  // One pass over the text with the language's lexical rules (strings, ; comments).
  const QString text = document()->toPlainText();
  const int n = int(text.size());
  brackets_.assign(size_t(n), -2);
  std::vector<int> open;
  bool inString = false, inComment = false;
  for (int i = 0; i < n; ++i) {
    const QChar c = text[i];
    if (inComment) {
      inComment = c != '\n';
    } else if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == ';') {
      inComment = true;
    } else if (c == '"') {
      inString = true;
    } else if (c == '(') {
      brackets_[size_t(i)] = -1;
      open.push_back(i);
    } else if (c == ')') {
      brackets_[size_t(i)] = -1;
      if (!open.empty()) {
        brackets_[size_t(i)] = open.back();
        brackets_[size_t(open.back())] = i;
        open.pop_back();
      }
    }
  }
}

int ModelEditor::matchingBracket(int pos) const {
  if (!isSExpression(language_)) return -2;
  ensureBracketTable();
  if (pos < 0 || pos >= int(brackets_.size())) return -2;
  return brackets_[size_t(pos)];
}

void ModelEditor::updateBracketSelections() {
  // The bracket after the cursor, else the one before it; its partner, or it alone in red.
  bracketSelections_.clear();
  const int pos = textCursor().position();
  int at = matchingBracket(pos) != -2 ? pos : matchingBracket(pos - 1) != -2 ? pos - 1 : -1;
  if (at >= 0) {
    const int partner = matchingBracket(at);
    auto mark = [this](int p, const QColor& bg) {
      QTextEdit::ExtraSelection s;
      s.cursor = QTextCursor(document());
      s.cursor.setPosition(p);
      s.cursor.setPosition(p + 1, QTextCursor::KeepAnchor);
      s.format.setBackground(bg);
      s.format.setFontWeight(QFont::Bold);
      bracketSelections_.append(s);
    };
    if (partner >= 0) {
      mark(at, QColor("#b4d7ff"));
      mark(partner, QColor("#b4d7ff"));
    } else {
      mark(at, QColor("#ffb3b3"));
    }
  }
  updateExtraSelections();
}

// ---- editing ----------------------------------------------------------------------------------

void ModelEditor::keyPressEvent(QKeyEvent* e) {
  // Undo and redo go through the shared stack (never straight to the document).
  if (e == QKeySequence::Undo || e == QKeySequence::Redo) {
    if (!isReadOnly()) (e == QKeySequence::Undo) ? undo_->undo() : undo_->redo();
    return;
  }
  const bool plainKey = !(e->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
  if (!isReadOnly() && plainKey && (e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter)) {
    insertNewlineWithIndent();
    return;
  }
  // Tab inserts two spaces (the indentation unit of the gallery).
  if (!isReadOnly() && e->key() == Qt::Key_Tab && e->modifiers() == Qt::NoModifier) {
    textCursor().insertText("  ");
    return;
  }
  QPlainTextEdit::keyPressEvent(e);
}

void ModelEditor::contextMenuEvent(QContextMenuEvent* e) {
  // The standard menu, its Undo/Redo rerouted to the shared stack.
  QMenu* menu = createStandardContextMenu(e->pos());
  for (QAction* a : menu->actions()) {
    const bool isUndo = a->objectName() == "edit-undo", isRedo = a->objectName() == "edit-redo";
    if (!isUndo && !isRedo) continue;
    a->disconnect();
    a->setEnabled(!isReadOnly() && (isUndo ? undo_->canUndo() : undo_->canRedo()));
    connect(a, &QAction::triggered, undo_, isUndo ? &QUndoStack::undo : &QUndoStack::redo);
  }
  menu->exec(e->globalPos());
  delete menu;
}

void ModelEditor::insertNewlineWithIndent() {
  // The previous line's indentation, two more when it leaves a '(' open before the cursor.
  QTextCursor c = textCursor();
  const QString line = c.block().text();
  const int col = c.positionInBlock() - (c.hasSelection() ? c.position() - c.selectionStart() : 0);
  int k = 0;
  while (k < line.size() && k < col && (line[k] == ' ' || line[k] == '\t')) ++k;
  QString indent = line.left(k);
  int depth = 0;
  bool inString = c.block().previous().userState() == 1;
  for (int i = 0; i < col && i < line.size(); ++i) {
    const QChar ch = line[i];
    if (inString) {
      if (ch == '\\') ++i;
      else if (ch == '"') inString = false;
    } else if (ch == ';') {
      break;
    } else if (ch == '"') {
      inString = true;
    } else if (ch == '(') {
      ++depth;
    } else if (ch == ')') {
      depth = std::max(0, depth - 1);
    }
  }
  if (depth > 0 && isSExpression(language_)) indent += "  ";
  c.insertText("\n" + indent);
  setTextCursor(c);
  ensureCursorVisible();
}

void ModelEditor::toggleComment() {
  if (!isSExpression(language_) || isReadOnly()) return;
  // The selected lines (a selection ending at a line's start leaves that line out).
  QTextCursor c = textCursor();
  QTextBlock first = document()->findBlock(c.selectionStart());
  QTextBlock last = document()->findBlock(c.selectionEnd());
  if (c.hasSelection() && last != first && c.selectionEnd() == last.position()) last = last.previous();
  bool allCommented = true, anyText = false;
  for (QTextBlock b = first; b.isValid(); b = b.next()) {
    if (!b.text().trimmed().isEmpty()) {
      anyText = true;
      allCommented = allCommented && b.text().startsWith(';');
    }
    if (b == last) break;
  }
  if (!anyText) return;
  // One undo step for all lines.
  QTextCursor edit(document());
  edit.beginEditBlock();
  for (QTextBlock b = first; b.isValid(); b = b.next()) {
    const QString t = b.text();
    if (!t.trimmed().isEmpty()) {
      edit.setPosition(b.position());
      if (!allCommented) {
        edit.insertText("; ");
      } else {
        edit.setPosition(b.position() + (t.startsWith("; ") ? 2 : 1), QTextCursor::KeepAnchor);
        edit.removeSelectedText();
      }
    }
    if (b == last) break;
  }
  edit.endEditBlock();
}

// ---- the gutter -------------------------------------------------------------------------------

int ModelEditor::gutterWidth() const {
  int digits = 1;
  for (int n = std::max(1, blockCount()); n >= 10; n /= 10) ++digits;
  return 18 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits) + 6;
}

void ModelEditor::updateGutterWidth() { setViewportMargins(gutterWidth(), 0, 0, 0); }

void ModelEditor::resizeEvent(QResizeEvent* e) {
  QPlainTextEdit::resizeEvent(e);
  const QRect cr = contentsRect();
  gutter_->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void ModelEditor::paintGutter(QPaintEvent* e, QWidget* gutter) {
  QPainter painter(gutter);
  painter.fillRect(e->rect(), QColor("#f3f3f3"));
  // The worst severity per line.
  QHash<int, Severity> marks;
  for (const Problem& p : problems_) {
    if (p.span.isNull()) continue;
    const int line = document()->findBlock(p.span.selectionStart()).blockNumber();
    auto it = marks.find(line);
    if (it == marks.end() || int(p.severity) < int(*it)) marks[line] = p.severity;
  }
  const int current = textCursor().blockNumber();
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  int bottom = top + qRound(blockBoundingRect(block).height());
  const int h = fontMetrics().height();
  while (block.isValid() && top <= e->rect().bottom()) {
    if (block.isVisible() && bottom >= e->rect().top()) {
      const int n = block.blockNumber();
      // A dot for a line with a diagnostic, then the line number.
      auto it = marks.find(n);
      if (it != marks.end()) {
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(severityColour(*it));
        const int d = std::min(10, h - 4);
        painter.drawEllipse(QRect(4, top + (h - d) / 2, d, d));
      }
      QFont f = font();
      f.setBold(n == current);
      painter.setFont(f);
      painter.setPen(it != marks.end() ? severityColour(*it) : QColor(n == current ? "#333333" : "#9a9a9a"));
      painter.drawText(0, top, gutter->width() - 6, h, Qt::AlignRight, QString::number(n + 1));
    }
    block = block.next();
    top = bottom;
    bottom = top + qRound(blockBoundingRect(block).height());
  }
}

QString ModelEditor::gutterToolTip(int y) const {
  // The line at height y, then the messages of its problems.
  const QTextBlock b = cursorForPosition(QPoint(0, y)).block();
  QStringList msgs;
  for (const Problem& p : problems_)
    if (!p.span.isNull() && document()->findBlock(p.span.selectionStart()) == b) msgs << p.message;
  return msgs.join('\n');
}

}  // namespace ms::ui
