// SPDX-License-Identifier: GPL-3.0-or-later
// DocumentController on its own: a model file opened from a temporary folder, edited in the
// editor and saved atomically (the file is the buffer, nothing else is left in the folder), a
// change on disk reloaded, drops of model files accepted and others refused, the unsaved-changes
// question before another model opens, and the recent files list. Files are written only into a
// QTemporaryDir.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <QTextCursor>
#include <QUndoStack>
#include <QUrl>
#include <memory>

#include "document_controller.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "io/mech_assemble.h"
#include "status_bar.h"
#include "main_window.h"
#include "system/compiled_system.h"
#include "ui_test_util.h"
#include "window_test_util.h"

using namespace ms;
using namespace ms::ui;
using Q = DocumentController::Question;
using A = DocumentController::Answer;
using test::readBytes;

namespace {
bool writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}
}  // namespace

class TestDocumentController : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path_;  // a writable copy of the double pendulum
  std::unique_ptr<MainWindow> w_;
  DocumentController* docs_ = nullptr;
  ModelEditor* ed_ = nullptr;
  QList<Q> asked_;
  A answer_ = A::Cancel;

 private slots:
  void init() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("double-pendulum.mech");
    QFile::remove(path_);
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/models/double-pendulum.mech", path_));
    QFile::setPermissions(path_, QFile::ReadOwner | QFile::WriteOwner);
    QFile::remove(DocumentController::recoveryPath(path_));
    asked_.clear();
    answer_ = A::Cancel;
    test::openAnsweredWindow(w_, path_, asked_, answer_);
    if (QTest::currentTestFailed()) return;
    docs_ = w_->documents();
    ed_ = w_->editorPanel()->editor();
  }
  void cleanup() { test::closeAnsweredWindow(w_, path_, answer_); }

  // Open: the source, the editor's file and the recent list name the file; no question asked.
  void openSetsSourceAndRecent() {
    QCOMPARE(docs_->source(), QFileInfo(path_).absoluteFilePath());
    QCOMPARE(QFileInfo(ed_->fileName()).absoluteFilePath(), QFileInfo(path_).absoluteFilePath());
    QVERIFY(docs_->recentFiles().contains(QFileInfo(path_).absoluteFilePath()));
    QVERIFY(w_->loadedSystem());
    QCOMPARE(int(w_->loadedSystem()->bodies.size()), 2);
    QVERIFY(asked_.isEmpty());
  }

  // Edit > Assemble (issue 34): the open four-bar's joints get the engine's projected coordinates in
  // one undoable edit (the text equals io/mech_assemble's, which tst_assemble and the CLI check
  // against the engine), the model is applied, the status bar says what moved; undo restores the
  // text byte for byte; a loop that cannot close leaves the text as it was and names its joint.
  void assembleClosesTheLoopInOneUndoableEdit() {
    QTemporaryDir own;  // not dir_: the other tests expect only their model there
    QVERIFY(own.isValid());
    const QString open = own.filePath("four-bar-open.mech");
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/tests/data/mech/four-bar-open.mech", open));
    QFile::setPermissions(open, QFile::ReadOwner | QFile::WriteOwner);
    QString err;
    QVERIFY2(docs_->openModel(open, &err), qPrintable(err));
    const QString before = ed_->toPlainText();
    const int undoBefore = ed_->undoStack()->count();
    QString summary;
    QVERIFY2(docs_->assembleEditor(&err, &summary), qPrintable(err));
    qInfo("%s", qPrintable(summary));
    QVERIFY(summary.startsWith("Assembled: 4 joint(s) moved"));
    QVERIFY(summary.contains("rocker-pivot 0.138"));
    QCOMPARE(ed_->undoStack()->count(), undoBefore + 1);
    // The same text as the engine's assembleMech (the CLI's).
    Diagnostics d;
    const sexpr::Document doc = sexpr::Document::parse(before.toStdString(), open.toStdString(), d);
    MechParseResult parsed;
    QVERIFY(readMech(doc, {}, parsed, d));
    const MechAssembly expected = assembleMech(doc, parsed, {});
    QVERIFY(expected.ok);
    QCOMPARE(ed_->toPlainText().toStdString(), expected.doc.text());
    // Applied: the simulated model is the assembled one.
    QCOMPARE(docs_->appliedText(), expected.doc.text());
    // Assembled again: nothing moves, no undo step.
    QVERIFY(docs_->assembleEditor(&err, &summary));
    QVERIFY(summary.contains("nothing changed"));
    QCOMPARE(ed_->undoStack()->count(), undoBefore + 1);
    ed_->undoStack()->undo();
    QCOMPARE(ed_->toPlainText(), before);
    // A loop that cannot close: refused, the joint named, the text as it was.
    QTextCursor c(ed_->document());
    const int at = before.indexOf("(parent-anchor 0 0.2 0)             ; D");  // the rocker's pivot
    QVERIFY(at > 0);
    c.setPosition(at);
    c.setPosition(at + int(QString("(parent-anchor 0 0.2 0)").size()), QTextCursor::KeepAnchor);
    c.insertText("(parent-anchor 0 2.0 0)");
    const QString impossible = ed_->toPlainText();
    const bool impossibleOk = docs_->assembleEditor(&err, &summary);
    QVERIFY2(!impossibleOk, qPrintable(summary + " | " + err));
    QVERIFY2(err.contains("joint 'rocker-pivot' stays"), qPrintable(err));
    QVERIFY(w_->status()->bannerText().contains("rocker-pivot"));
    QCOMPARE(ed_->toPlainText(), impossible);
  }

  // Edit and save: the file holds the buffer byte for byte, the buffer is unmodified, and the
  // folder holds only the model (QSaveFile leaves no temporary behind).
  void editAndSaveAtomically() {
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::Start);
    c.insertText("; edited by tst_document_controller\n");
    QVERIFY(ed_->isModified());
    QString err;
    QVERIFY2(docs_->saveEditor(&err), qPrintable(err));
    QVERIFY(!ed_->isModified());
    QCOMPARE(readBytes(path_), ed_->toPlainText().toUtf8());
    QVERIFY(readBytes(path_).startsWith("; edited by tst_document_controller\n"));
    QCOMPARE(QDir(dir_.path()).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList{"double-pendulum.mech"});
  }

  // A change on disk (no unsaved edits): the model is read again — a third body appears.
  void reloadsOnChangeOnDisk() {
    QVERIFY(docs_->autoReloadAction()->isChecked());
    const QString text = test::withThirdLink(QString::fromUtf8(readBytes(path_)));
    QVERIFY(writeBytes(path_, text.toUtf8()));
    QTRY_VERIFY_WITH_TIMEOUT(w_->loadedSystem() && w_->loadedSystem()->bodies.size() == 3, 10000);
    QCOMPARE(ed_->toPlainText(), text);
    QVERIFY(asked_.isEmpty());
  }

  // Drops: a local model file is accepted and opened; a text file and a remote URL are not.
  void dropsOpenModelFiles() {
    const QString other = dir_.filePath("pendulum.mech");
    QFile::remove(other);
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/models/pendulum.mech", other));
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(dir_.filePath("notes.txt")), QUrl("https://example.org/x.mech")});
    QVERIFY(!DocumentController::canOpenDrop(&text));
    QVERIFY(!docs_->openDrop(&text));
    QMimeData model;
    model.setUrls({QUrl::fromLocalFile(other)});
    QVERIFY(DocumentController::canOpenDrop(&model));
    QVERIFY(docs_->openDrop(&model));
    QCOMPARE(docs_->source(), QFileInfo(other).absoluteFilePath());
  }

  // Unsaved edits before another model opens: Cancel keeps the buffer and the model; Discard opens.
  void unsavedEditsAreAskedAbout() {
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("\n; unsaved\n");
    answer_ = A::Cancel;
    QVERIFY(!docs_->openFromUser("scene:pendulum"));
    QCOMPARE(asked_, QList<Q>{Q::CloseUnsaved});
    QCOMPARE(docs_->source(), QFileInfo(path_).absoluteFilePath());
    QVERIFY(ed_->isModified());
    answer_ = A::Reject;
    QVERIFY(docs_->openFromUser("scene:pendulum"));
    QCOMPARE(docs_->source(), QString("scene:pendulum"));
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestDocumentController)
#include "tst_document_controller.moc"
