// SPDX-License-Identifier: GPL-3.0-or-later
// The model editor's third slice (issue 6): Apply swaps the editor's model into the simulation
// without saving (paused: at once; running: between two steps, bodies that kept their names keep
// their state, new ones hang from them consistently); an invalid text changes nothing; autosave
// writes a recovery file within its interval; a crash (the window destroyed without closing) is
// followed by a recovery offer that restores the exact text; closing with unsaved edits asks; a
// change on disk during unsaved edits offers Reload or Keep and each does what it says; File > New
// and Save As.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextCursor>
#include <QDockWidget>
#include <cmath>
#include <memory>

#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "editor/model_tree.h"
#include "main_window.h"
#include "document_controller.h"
#include "window_test_util.h"
#include "system/initial_conditions.h"
#include "ui_test_util.h"

using namespace ms;
using namespace ms::ui;
using Q = DocumentController::Question;
using A = DocumentController::Answer;
using test::readBytes;
using test::withThirdLink;

namespace {
// Replaces the whole buffer as one edit (like a paste): unsaved, on the undo stack.
void replaceText(ModelEditor* ed, const QString& text) {
  QTextCursor c(ed->document());
  c.select(QTextCursor::Document);
  c.insertText(text);
  ed->checkNow();
}
}  // namespace

class TestEditorFiles : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path_;  // a writable copy of the double pendulum
  std::unique_ptr<MainWindow> w_;
  ModelEditor* ed_ = nullptr;
  // The questions asked and the answers given (scripted per test).
  QList<Q> asked_;
  A answer_ = A::Cancel;

  void openWindow() {
    test::openAnsweredWindow(w_, path_, asked_, answer_);
    if (QTest::currentTestFailed()) return;
    ed_ = w_->editorPanel()->editor();
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void init() {
    path_ = dir_.filePath("double-pendulum.mech");
    QFile::remove(path_);
    QVERIFY(QFile::copy(MECHSTUDIO_SOURCE_DIR "/models/double-pendulum.mech", path_));
    QFile::setPermissions(path_, QFile::ReadOwner | QFile::WriteOwner);
    QFile::remove(DocumentController::recoveryPath(path_));
    asked_.clear();
    answer_ = A::Cancel;
    openWindow();
  }
  // Closing without a prompt: the test's own edits are thrown away.
  void cleanup() { test::closeAnsweredWindow(w_, path_, answer_); }

  // Paused: Apply loads the buffer's model at once (two bodies → three); the file stays as it was.
  // (At t = 0 from the new initial conditions; after a step, the bodies carried over.)
  void applyWhilePausedSwapsModel() {
    const QByteArray disk = readBytes(path_);
    w_->sim().sync();
    const long gen0 = w_->sim().snapshot().generation;
    QCOMPARE(int(w_->sim().snapshot().system->bodies.size()), 2);
    replaceText(ed_, withThirdLink(ed_->toPlainText()));
    QVERIFY(!ed_->modelStale());
    w_->documents()->applyAction()->trigger();
    w_->sim().sync();
    const Snapshot s = w_->sim().snapshot();
    QCOMPARE(s.generation, gen0 + 1);
    QCOMPARE(int(s.system->bodies.size()), 3);
    QCOMPARE(s.running, false);
    QCOMPARE(readBytes(path_), disk);
    QVERIFY(ed_->isModified());
    // At t = 0 the edited model starts from its own initial conditions (nothing carried over: the
    // initial state is what the text says); paused after a step, the bodies keep their state.
    QCOMPARE(w_->sim().carriedBodies(), 0);
    w_->sim().stepOnce();
    w_->documents()->applyAction()->trigger();
    w_->sim().sync();
    QCOMPARE(w_->sim().carriedBodies(), 3);
    QCOMPARE(w_->sim().snapshot().state.step, 1L);
  }

  // Running: the swap happens at a sync point between two steps, the run goes on, the clock goes
  // on, and the links (same names) are exactly where they were, not at the new initial conditions.
  void applyWhileRunningKeepsNamedBodies() {
    w_->sim().setSpeed(0);
    w_->sim().setRunning(true);
    test::pump(300);
    // Slow enough that no step falls between the measurement and the swap (one step per 1 s).
    w_->sim().setSpeed(0.01);
    w_->sim().sync();
    const Snapshot s1 = w_->sim().snapshot();
    QVERIFY(s1.running);
    QVERIFY(s1.state.time > 0.05);
    // Heavier second link: same bodies and joints, another mass.
    QString text = ed_->toPlainText();
    const int at = int(text.indexOf("(body link2\n      (mass 1)"));
    QVERIFY(at > 0);
    text.replace(at, int(QString("(body link2\n      (mass 1)").size()), "(body link2\n      (mass 3)");
    replaceText(ed_, text);
    QVERIFY(w_->documents()->applyEditor());
    w_->sim().sync();
    const Snapshot s2 = w_->sim().snapshot();
    QCOMPARE(s2.generation, s1.generation + 1);
    QVERIFY(s2.running);
    QCOMPARE(s2.state.step, s1.state.step);
    QCOMPARE(s2.state.time, s1.state.time);
    QCOMPARE(s2.system->bodies[1].mass, 3.0);
    QCOMPARE(w_->sim().carriedBodies(), 2);
    for (int b = 0; b < 2; ++b) {
      const double dx = (s2.state.bodies[b].x - s1.state.bodies[b].x).norm();
      const double dv = (s2.state.bodies[b].v - s1.state.bodies[b].v).norm();
      qInfo("link%d: position moved by %.3g m, velocity changed by %.3g m/s at the swap (t = %.3f s)", b + 1, dx, dv,
            s2.state.time);
      QVERIFY(dx < 1e-9);
      QVERIFY(dv < 1e-6);
    }
    // Not the initial conditions: the carried state (poses and velocities of both links) is far from
    // the new model's initial state. (Not a single coordinate: how far the run got depends on the
    // machine's speed, and a chaotic double pendulum may pass any one value, e.g. z = 0, at the swap.)
    const State initial = makeInitialState(*s2.system, s2.system->model);
    double fromInitial = 0;
    for (int b = 0; b < 2; ++b)
      fromInitial += (s2.state.bodies[b].x - initial.bodies[b].x).norm() + (s2.state.bodies[b].v - initial.bodies[b].v).norm();
    qInfo("carried state: %.3g (m + m/s) from the initial conditions", fromInitial);
    QVERIFY(fromInitial > 1e-3);
    // And it keeps running: the clock advances from there.
    w_->sim().setSpeed(0);
    test::pump(200);
    QVERIFY(w_->sim().snapshot().state.time > s2.state.time);
  }

  // Running, a body added: the two links keep their state exactly, the new third link hangs from
  // the second as in its initial conditions and moves rigidly with it; every joint holds.
  void applyWhileRunningAddsBodyConsistently() {
    w_->sim().setSpeed(0);
    w_->sim().setRunning(true);
    test::pump(200);
    w_->sim().setSpeed(0.01);
    w_->sim().sync();
    const Snapshot s1 = w_->sim().snapshot();
    replaceText(ed_, withThirdLink(ed_->toPlainText()));
    QVERIFY(w_->documents()->applyEditor());
    w_->sim().sync();
    const Snapshot s2 = w_->sim().snapshot();
    QCOMPARE(int(s2.system->bodies.size()), 3);
    QCOMPARE(w_->sim().carriedBodies(), 2);
    QCOMPARE(s2.state.step, s1.state.step);
    for (int b = 0; b < 2; ++b) QVERIFY((s2.state.bodies[b].x - s1.state.bodies[b].x).norm() < 1e-9);
    const double g = constraintViolation(*s2.system, s2.state);
    // link3's centre is 1 m from link2's along link2's own axis (joint3 at 0: in line with link2).
    const double d = (s2.state.bodies[2].x - s2.state.bodies[1].x).norm();
    qInfo("third link added at t = %.3f s: constraint violation %.2g, link2-link3 distance %.12f m", s2.state.time, g, d);
    QVERIFY(g < 1e-10);
    QCOMPARE(std::round(d * 1e9) / 1e9, 1.0);
  }

  // A text with errors: Apply refuses, the simulation runs on with the old model, the text is kept
  // byte for byte and the tree stays at the last valid model, marked stale.
  void invalidApplyKeepsOldModelAndText() {
    w_->sim().setSpeed(0);
    w_->sim().setRunning(true);
    test::pump(100);
    const long gen0 = w_->sim().snapshot().generation;
    QString text = ed_->toPlainText();
    text.replace("(mass 1)", "(mass 1) (frictionn 0.5");
    replaceText(ed_, text);
    QVERIFY(ed_->modelStale());
    QString err;
    QVERIFY(!w_->documents()->applyEditor(&err));
    QVERIFY(err.contains("errors"));
    w_->sim().sync();
    const Snapshot s = w_->sim().snapshot();
    QCOMPARE(s.generation, gen0);
    QVERIFY(s.running);
    QCOMPARE(int(s.system->bodies.size()), 2);
    QCOMPARE(ed_->toPlainText(), text);
    QVERIFY(w_->modelTree()->isStale());
    const double t = s.state.time;
    test::pump(100);
    QVERIFY(w_->sim().snapshot().state.time > t);
  }

  // Apply automatically: each check that finds the text valid applies it.
  void autoApplyAfterValidCheck() {
    QVERIFY(!w_->documents()->autoApplyAction()->isChecked());
    w_->documents()->autoApplyAction()->setChecked(true);
    w_->sim().sync();
    const long gen0 = w_->sim().snapshot().generation;
    replaceText(ed_, withThirdLink(ed_->toPlainText()));
    w_->sim().sync();
    QCOMPARE(w_->sim().snapshot().generation, gen0 + 1);
    QCOMPARE(int(w_->sim().snapshot().system->bodies.size()), 3);
    w_->documents()->autoApplyAction()->setChecked(false);
  }

  // Autosave: the recovery file (path and text) appears within the interval after an edit.
  void autosaveWritesRecoveryFile() {
    w_->documents()->setAutosaveInterval(500);
    const QString rec = DocumentController::recoveryPath(path_);
    QVERIFY(!QFile::exists(rec));
    const QTimer& timer = w_->documents()->autosaveTimer();
    QVERIFY(!timer.isActive());
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("; an edit\n");
    // The edit arms the single-shot timer of the interval (the file is written when it fires: how
    // late the event loop runs it on a busy machine is not the controller's doing).
    QVERIFY(timer.isActive());
    QVERIFY(timer.isSingleShot());
    QCOMPARE(timer.interval(), 500);
    QVERIFY(!QFile::exists(rec));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(rec), 30000);
    QVERIFY(!timer.isActive());
    const QJsonObject o = QJsonDocument::fromJson(readBytes(rec)).object();
    QCOMPARE(o.value("path").toString(), QFileInfo(path_).absoluteFilePath());
    QCOMPARE(o.value("text").toString(), ed_->toPlainText());
    // Saving removes it.
    QVERIFY(w_->documents()->saveEditor());
    QVERIFY(!QFile::exists(rec));
  }

  // "Kill the app during unsaved edits": the window is destroyed without closing; a new window that
  // opens the file offers the recovery and restores the exact text, unsaved.
  void crashThenRecoveryRestoresText() {
    w_->documents()->setAutosaveInterval(200);
    const QByteArray disk = readBytes(path_);
    const QString edited = withThirdLink(ed_->toPlainText()) + "; unsaved edit ✓ with ünïcode\n";
    replaceText(ed_, edited);
    const QString rec = DocumentController::recoveryPath(path_);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(rec), 2000);
    w_.reset();  // the crash: no close event, no prompt
    QVERIFY(QFile::exists(rec));
    QCOMPARE(readBytes(path_), disk);
    asked_.clear();
    answer_ = A::Accept;  // Restore
    openWindow();
    QCOMPARE(asked_, QList<Q>{Q::RestoreRecovery});
    QCOMPARE(ed_->toPlainText(), edited);
    QVERIFY(ed_->isModified());
    QVERIFY(w_->editorDock()->windowTitle().endsWith("*"));
    QCOMPARE(readBytes(path_), disk);
    // Declining the offer discards the recovery file: a crash with "Discard" asks no more.
    w_.reset();
    asked_.clear();
    answer_ = A::Reject;
    openWindow();
    QCOMPARE(asked_, QList<Q>{Q::RestoreRecovery});
    QCOMPARE(QString::fromUtf8(readBytes(path_)), ed_->toPlainText());
    QVERIFY(!QFile::exists(rec));
  }

  // At the next start, the newest recovery file is offered even when another model opens first:
  // a file's edits (its file is opened and asked about) and an untitled buffer's (restored into New).
  void recoveryIsOfferedAtStart() {
    w_->documents()->setAutosaveInterval(200);
    const QString edited = withThirdLink(ed_->toPlainText());
    replaceText(ed_, edited);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(DocumentController::recoveryPath(path_)), 2000);
    w_.reset();  // the crash
    // The next start opens a gallery example first; the recovery is still offered.
    w_ = std::make_unique<MainWindow>();
    w_->documents()->setAsker([this](Q q, const QString&) {
      asked_.append(q);
      return answer_;
    });
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(w_->openExample(":/gallery/pendulum.mech"));
    asked_.clear();
    answer_ = A::Accept;
    QVERIFY(w_->recoverAtStart());
    ed_ = w_->editorPanel()->editor();
    QCOMPARE(asked_, QList<Q>{Q::RestoreRecovery});
    QCOMPARE(QFileInfo(ed_->fileName()).absoluteFilePath(), QFileInfo(path_).absoluteFilePath());
    QCOMPARE(ed_->toPlainText(), edited);
    // An untitled buffer: File > New, edited, crashed; restored into a new untitled buffer.
    QVERIFY(w_->documents()->saveEditorAs(path_, nullptr));  // (clears this file's recovery)
    QVERIFY(w_->documents()->newModel());
    w_->documents()->setAutosaveInterval(200);
    const QString untitled = ed_->toPlainText() + "; edited while untitled\n";
    replaceText(ed_, untitled);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(DocumentController::recoveryPath(QString())), 2000);
    w_.reset();
    openWindow();
    asked_.clear();
    QVERIFY(w_->recoverAtStart());
    QCOMPARE(asked_, QList<Q>{Q::RestoreRecovery});
    QCOMPARE(ed_->toPlainText(), untitled);
    QVERIFY(ed_->isModified());
  }

  // Opening another model (menu, recent file, example, drop) with unsaved edits asks first.
  void openingAnotherModelAsks() {
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("; an unsaved edit\n");
    const QString text = ed_->toPlainText();
    answer_ = A::Cancel;
    QVERIFY(!w_->documents()->openFromUser(":/gallery/pendulum.mech"));
    QCOMPARE(asked_, QList<Q>{Q::CloseUnsaved});
    QCOMPARE(ed_->toPlainText(), text);
    asked_.clear();
    answer_ = A::Reject;  // Discard
    QVERIFY(w_->documents()->openFromUser(":/gallery/pendulum.mech"));
    QCOMPARE(asked_, QList<Q>{Q::CloseUnsaved});
    QVERIFY(ed_->toPlainText() != text);
    QVERIFY(!ed_->isModified());
  }

  // Closing with unsaved edits asks: Cancel keeps the window and the text, Discard closes.
  void closeWithUnsavedChangesAsks() {
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("; an edit\n");
    const QString text = ed_->toPlainText();
    answer_ = A::Cancel;
    QVERIFY(!w_->close());
    QCOMPARE(asked_, QList<Q>{Q::CloseUnsaved});
    QVERIFY(w_->isVisible());
    QCOMPARE(ed_->toPlainText(), text);
    answer_ = A::Reject;
    QVERIFY(w_->close());
    QCOMPARE(asked_.size(), 2);
    QVERIFY(!w_->isVisible());
    QVERIFY(!QFile::exists(DocumentController::recoveryPath(path_)));
    // Save writes the buffer, then closes.
    openWindow();
    c = QTextCursor(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("; saved on close\n");
    answer_ = A::Accept;
    QVERIFY(w_->close());
    QCOMPARE(QString::fromUtf8(readBytes(path_)), ed_->toPlainText());
  }

  // Another program writes the file during unsaved edits: Keep keeps the buffer and says so;
  // Reload takes the file's text.
  void changeOnDiskOffersReloadOrKeep() {
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("; my edit\n");
    const QString mine = ed_->toPlainText();
    const auto writeOther = [this](const QByteArray& bytes) {
      QFile f(path_);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(bytes);
    };
    const QByteArray other1 = readBytes(path_) + "; another program's edit\n";
    answer_ = A::Reject;  // Keep
    writeOther(other1);
    QTRY_COMPARE_WITH_TIMEOUT(asked_.size(), 1, 3000);
    QCOMPARE(asked_[0], Q::ChangedOnDisk);
    QCOMPARE(ed_->toPlainText(), mine);
    QVERIFY(ed_->isModified());
    QVERIFY(w_->documents()->changedOnDisk());
    QVERIFY(w_->editorPanel()->note().contains("changed on disk"));
    QVERIFY(w_->editorDock()->windowTitle().contains("changed on disk"));
    // A second change: Reload.
    const QByteArray other2 = other1 + "; and another\n";
    answer_ = A::Accept;
    writeOther(other2);
    QTRY_COMPARE_WITH_TIMEOUT(asked_.size(), 2, 3000);
    QCOMPARE(asked_[1], Q::ChangedOnDisk);
    QCOMPARE(ed_->toPlainText(), QString::fromUtf8(other2));
    QVERIFY(!ed_->isModified());
    QVERIFY(!w_->documents()->changedOnDisk());
    QVERIFY(w_->editorPanel()->note().isEmpty());
  }

  // File > New: the template is a valid one-body model, untitled, in the simulation; Save (Ctrl+S)
  // of the untitled buffer is Save As, and the new file becomes the open model.
  void newFromTemplateThenSaveAs() {
    w_->documents()->newAction()->trigger();
    w_->sim().sync();
    QCOMPARE(ed_->toPlainText(), DocumentController::newModelTemplate());
    QVERIFY(ed_->fileName().isEmpty());
    QCOMPARE(ed_->language(), ModelLanguage::Mech);
    QVERIFY(ed_->lastValidModel());
    QVERIFY(!ed_->modelStale());
    QCOMPARE(int(ed_->problems().size()), 0);
    QCOMPARE(int(w_->sim().snapshot().system->bodies.size()), 1);
    QCOMPARE(w_->editorDock()->windowTitle(), QString("Editor — untitled"));
    QVERIFY(w_->documents()->saveAction()->isEnabled());
    const QString target = dir_.filePath("pendulum.mech");
    QFile::remove(target);
    w_->documents()->setSaveAsChooser([&] { return target; });
    w_->documents()->saveAction()->trigger();
    QCOMPARE(QString::fromUtf8(readBytes(target)), DocumentController::newModelTemplate());
    QCOMPARE(ed_->fileName(), QFileInfo(target).absoluteFilePath());
    QCOMPARE(w_->documents()->source(), QFileInfo(target).absoluteFilePath());
    QVERIFY(!ed_->isModified());
    QCOMPARE(w_->editorDock()->windowTitle(), QString("Editor — pendulum.mech"));
    // Save As of an edited file: the new file has the edits, the old one is untouched.
    const QByteArray old = readBytes(target);
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("; a copy\n");
    const QString copy = dir_.filePath("copy.mech");
    QVERIFY(w_->documents()->saveEditorAs(copy));
    QCOMPARE(QString::fromUtf8(readBytes(copy)), ed_->toPlainText());
    QCOMPARE(readBytes(target), old);
    QCOMPARE(w_->documents()->source(), QFileInfo(copy).absoluteFilePath());
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestEditorFiles)
#include "tst_editor_files.moc"
