// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/editor_panel.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStyle>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "editor/find_bar.h"
#include "editor/model_editor.h"

namespace ms::ui {

EditorPanel::EditorPanel(QWidget* parent) : QWidget(parent) {
  // Layout: note, find bar, editor; the problems list under a splitter handle.
  editor_ = new ModelEditor;
  find_ = new FindBar(editor_);
  note_ = new QLabel;
  note_->setStyleSheet("QLabel { background: #fef9e7; color: #7d6608; padding: 2px 4px; }");
  note_->hide();
  auto* top = new QWidget;
  auto* tv = new QVBoxLayout(top);
  tv->setContentsMargins(0, 0, 0, 0);
  tv->setSpacing(0);
  tools_ = new QToolBar;
  tools_->setObjectName("editor-tools");
  tools_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tools_->setIconSize(QSize(16, 16));
  tv->addWidget(tools_);
  tv->addWidget(note_);
  tv->addWidget(find_);
  tv->addWidget(editor_, 1);
  problems_ = new QTreeWidget;
  problems_->setObjectName("problems");
  problems_->setHeaderLabels({"Line:col", "Problem"});
  problems_->setRootIsDecorated(false);
  problems_->setUniformRowHeights(true);
  problems_->setAlternatingRowColors(true);
  problems_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  problems_->header()->setStretchLastSection(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(problems_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(split);

  // Problems: refilled after each check; activation jumps to the location.
  connect(editor_, &ModelEditor::problemsChanged, this, [this] { fillProblems(); });
  connect(problems_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    editor_->goToProblem(item->data(0, Qt::UserRole).toInt());
  });
  connect(editor_->document(), &QTextDocument::modificationChanged, this, &EditorPanel::modifiedChanged);

  // Keys of the panel (active while the focus is inside it).
  auto key = [this](const QKeySequence& k, auto fn) {
    auto* a = new QAction(this);
    a->setShortcut(k);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, fn);
    addAction(a);
  };
  key(QKeySequence::Find, [this] { find_->open(false); });
  key(QKeySequence("Ctrl+H"), [this] { find_->open(true); });
  key(QKeySequence("Ctrl+G"), [this] { find_->findNext(false); });
  key(QKeySequence("Ctrl+Shift+G"), [this] { find_->findNext(true); });
  key(QKeySequence("Ctrl+/"), [this] { editor_->toggleComment(); });
}

bool EditorPanel::loadFile(const QString& path, QString* error, bool readOnly) {
  if (!editor_->loadFile(path, error)) return false;
  editor_->setReadOnly(readOnly);
  note_->setVisible(readOnly);
  note_->setText(readOnly ? "Read-only: a built-in scene, shown as its gallery file." : QString());
  return true;
}

void EditorPanel::newUntitled(const QString& text) {
  editor_->setUntitled(text, ModelLanguage::Mech);
  editor_->setReadOnly(false);
  setNote(QString());
}

void EditorPanel::showText(const QString& text, const QString& fileName, const QString& note) {
  editor_->setSource(text, fileName);
  editor_->setReadOnly(true);
  note_->setText(note);
  note_->setVisible(!note.isEmpty());
}

void EditorPanel::setNote(const QString& text) {
  note_->setText(text);
  note_->setVisible(!text.isEmpty());
}

QString EditorPanel::note() const { return note_->isVisible() ? note_->text() : QString(); }

bool EditorPanel::canSave() const { return !editor_->isReadOnly() && !editor_->fileName().isEmpty(); }

bool EditorPanel::save(QString* error) {
  if (!canSave()) {
    if (error) *error = "nothing to save: the buffer has no file";
    return false;
  }
  return editor_->saveTo(editor_->fileName(), error);
}

void EditorPanel::fillProblems() {
  // One row per diagnostic: location (— when it has none) and message, with a severity icon.
  problems_->clear();
  QList<QTreeWidgetItem*> items;
  int i = 0;
  for (const ModelEditor::Problem& p : editor_->problems()) {
    auto* item = new QTreeWidgetItem;
    item->setText(0, p.line > 0 ? QString("%1:%2").arg(p.line).arg(p.column) : QString("—"));
    item->setText(1, p.message);
    item->setToolTip(1, p.message);
    const QStyle::StandardPixmap icon = p.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                                        : p.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                          : QStyle::SP_MessageBoxInformation;
    item->setIcon(0, QApplication::style()->standardIcon(icon));
    item->setData(0, Qt::UserRole, i++);
    items.append(item);
  }
  problems_->addTopLevelItems(items);
}

}  // namespace ms::ui
