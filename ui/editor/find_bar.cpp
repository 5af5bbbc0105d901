// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/find_bar.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTextDocument>
#include <QToolButton>

#include "editor/model_editor.h"

namespace ms::ui {

FindBar::FindBar(ModelEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
  // Two rows: find field, previous/next, match case, status; replace field, replace, all.
  auto* g = new QGridLayout(this);
  g->setContentsMargins(4, 2, 4, 2);
  g->setSpacing(4);
  find_ = new QLineEdit;
  find_->setPlaceholderText("Find");
  find_->setClearButtonEnabled(true);
  auto* prev = new QPushButton("Previous");
  auto* next = new QPushButton("Next");
  case_ = new QCheckBox("Match case");
  status_ = new QLabel;
  auto* close = new QToolButton;
  close->setText("✕");
  close->setAutoRaise(true);
  close->setToolTip("Close (Esc)");
  g->addWidget(find_, 0, 0);
  g->addWidget(prev, 0, 1);
  g->addWidget(next, 0, 2);
  g->addWidget(case_, 0, 3);
  g->addWidget(status_, 0, 4);
  g->addWidget(close, 0, 5);
  replace_ = new QLineEdit;
  replace_->setPlaceholderText("Replace with");
  auto* one = new QPushButton("Replace");
  auto* all = new QPushButton("Replace all");
  g->addWidget(replace_, 1, 0);
  g->addWidget(one, 1, 1);
  g->addWidget(all, 1, 2);
  g->setColumnStretch(0, 1);
  // The replace row's widgets are shown or hidden together.
  for (QWidget* w : {static_cast<QWidget*>(replace_), static_cast<QWidget*>(one), static_cast<QWidget*>(all)})
    w->setProperty("replaceRow", true);
  connect(find_, &QLineEdit::returnPressed, this, [this] { findNext(false); });
  connect(prev, &QPushButton::clicked, this, [this] { findNext(true); });
  connect(next, &QPushButton::clicked, this, [this] { findNext(false); });
  connect(replace_, &QLineEdit::returnPressed, this, [this] { replaceOne(); });
  connect(one, &QPushButton::clicked, this, [this] { replaceOne(); });
  connect(all, &QPushButton::clicked, this, [this] { replaceAll(); });
  connect(close, &QToolButton::clicked, this, [this] {
    hide();
    editor_->setFocus();
  });
  hide();
}

void FindBar::open(bool replace) {
  const QString sel = editor_->textCursor().selectedText();
  if (!sel.isEmpty() && !sel.contains(QChar::ParagraphSeparator)) find_->setText(sel);
  for (QWidget* w : findChildren<QWidget*>())
    if (w->property("replaceRow").toBool()) w->setVisible(replace);
  show();
  find_->setFocus();
  find_->selectAll();
}

void FindBar::setFindText(const QString& t) { find_->setText(t); }
void FindBar::setReplaceText(const QString& t) { replace_->setText(t); }
void FindBar::setCaseSensitive(bool on) { case_->setChecked(on); }
QString FindBar::findText() const { return find_->text(); }

bool FindBar::findNext(bool backward) {
  status_->clear();
  if (find_->text().isEmpty()) return false;
  QTextDocument::FindFlags flags;
  if (case_->isChecked()) flags |= QTextDocument::FindCaseSensitively;
  if (backward) flags |= QTextDocument::FindBackward;
  // From the cursor, then once around from the other end.
  QTextDocument* doc = editor_->document();
  QTextCursor c = doc->find(find_->text(), editor_->textCursor(), flags);
  if (c.isNull()) {
    QTextCursor from(doc);
    if (backward) from.movePosition(QTextCursor::End);
    c = doc->find(find_->text(), from, flags);
    if (!c.isNull()) status_->setText("wrapped");
  }
  if (c.isNull()) {
    status_->setText("not found");
    return false;
  }
  editor_->setTextCursor(c);
  return true;
}

bool FindBar::selectionMatches() const {
  const Qt::CaseSensitivity cs = case_->isChecked() ? Qt::CaseSensitive : Qt::CaseInsensitive;
  return editor_->textCursor().hasSelection() && editor_->textCursor().selectedText().compare(find_->text(), cs) == 0;
}

bool FindBar::replaceOne() {
  if (find_->text().isEmpty() || editor_->isReadOnly()) return false;
  if (selectionMatches()) {
    QTextCursor c = editor_->textCursor();
    c.insertText(replace_->text());
    editor_->setTextCursor(c);
  }
  return findNext(false);
}

int FindBar::replaceAll() {
  if (find_->text().isEmpty() || editor_->isReadOnly()) return 0;
  QTextDocument::FindFlags flags;
  if (case_->isChecked()) flags |= QTextDocument::FindCaseSensitively;
  // Front to back, each search starting after the previous replacement; one undo step.
  QTextDocument* doc = editor_->document();
  QTextCursor edit(doc);
  edit.beginEditBlock();
  int count = 0;
  QTextCursor c = doc->find(find_->text(), 0, flags);
  while (!c.isNull()) {
    c.insertText(replace_->text());
    ++count;
    c = doc->find(find_->text(), c, flags);
  }
  edit.endEditBlock();
  status_->setText(QString("%1 replaced").arg(count));
  return count;
}

void FindBar::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape) {
    hide();
    editor_->setFocus();
    return;
  }
  QWidget::keyPressEvent(e);
}

}  // namespace ms::ui
