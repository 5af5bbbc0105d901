// SPDX-License-Identifier: GPL-3.0-or-later
// Keyframes in the desktop application (issue 15): Simulation ▸ Save State as Keyframe… writes the
// state shown into the editor's text as one undoable edit; Load Keyframe ▸ NAME puts it back into
// the simulation exactly (to 1e-12) after further steps and an edit of the text; Use Keyframe as
// Initial State ▸ NAME makes Reset return to it; a keyframe that does not fit the model, a name that
// exists (asked), a text with errors or with bodies that are not the simulated ones are refused with
// a message, and the text is never lost. Every step goes through the simulation thread's queue and
// SimController::sync(): no sleeps race the thread.
#include <QAction>
#include <QFile>
#include <QMenu>
#include <QTemporaryDir>
#include <QLineEdit>
#include <QTest>
#include <QTextCursor>
#include <QUndoStack>
#include <memory>

#include "engine/state_checks.h"
#include "core/quaternion.h"
#include "editor/editor_panel.h"
#include "editor/model_editor.h"
#include "io/mech_edit.h"
#include "main_window.h"
#include "document_controller.h"
#include "editor/model_tree.h"
#include "editor/property_panel.h"
#include "keyframe_actions.h"
#include "status_bar.h"
#include "ui_test_util.h"

using namespace ms;
using namespace ms::ui;
using Q = DocumentController::Question;
using A = DocumentController::Answer;

namespace {
using ms::test::stateDistance;
QAction* menuAction(QMenu* menu, const QString& objectName) {
  for (QAction* a : menu->actions())
    if (a->objectName() == objectName) return a;
  return nullptr;
}
}  // namespace

class TestKeyframes : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::unique_ptr<MainWindow> w_;
  ModelEditor* ed_ = nullptr;
  QList<Q> asked_;
  QStringList askedNames_;  // the names the questions were about
  A answer_ = A::Cancel;
  QString name_;               // what the name asker answers
  QStringList suggested_;      // what it was offered

  void open(const QString& source) {
    const QString path = dir_.filePath(QFileInfo(source).fileName());
    QFile::remove(path);
    QVERIFY(QFile::copy(source, path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    QFile::remove(DocumentController::recoveryPath(path));
    w_ = std::make_unique<MainWindow>();
    w_->documents()->setAsker([this](Q q, const QString& about) {
      asked_.append(q);
      askedNames_.append(about);
      return answer_;
    });
    w_->keyframes()->setNameAsker([this](const QString& suggested) {
      suggested_.append(suggested);
      return name_;
    });
    w_->resize(1280, 800);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QString err;
    QVERIFY2(w_->openModel(path, &err), qPrintable(err));
    ed_ = w_->editorPanel()->editor();
    ms::ui::test::settle(*w_);
  }
  void steps(int n) {
    for (int k = 0; k < n; ++k) w_->sim().stepOnce();
    ms::ui::test::settle(*w_);
  }
  State shown() {
    w_->sim().sync();
    return w_->sim().snapshot().state;
  }

 private slots:
  void init() {
    asked_.clear();
    askedNames_.clear();
    suggested_.clear();
    answer_ = A::Cancel;
    name_.clear();
  }
  void cleanup() {
    answer_ = A::Reject;  // closing: the test's edits are discarded
    if (w_) {
      const QString file = ed_->fileName();
      w_->close();
      w_.reset();
      QFile::remove(DocumentController::recoveryPath(file));
    }
  }

  // The keyframe node's properties form (issue 34): per body its position, orientation, velocity
  // and angular velocity, each number a field; an edit rewrites that token only, one undo step; a
  // quaternion left non-unit is refused with the reader's reason.
  void keyframeNodeHasAPropertiesForm() {
    open(MECHSTUDIO_SOURCE_DIR "/models/four-bar.mech");
    steps(10);
    name_ = "swing";
    w_->keyframes()->saveAction()->trigger();
    ed_->checkNow();
    ModelTreePanel* tree = w_->modelTree();
    QVERIFY(tree->selectNode(NodeKind::Keyframe, 0));
    PropertyPanel* props = tree->properties();
    QCOMPARE(props->title(), QString("Keyframe swing"));
    for (const char* key : {"crank.position", "crank.orientation", "crank.velocity", "crank.angular-velocity"}) QVERIFY(props->field(key, 0));
    QVERIFY(props->field("crank.orientation", 3));
    QVERIFY(!props->field("crank.position", 0)->isReadOnly());
    ms::ui::test::pump(50);
    QVERIFY(w_->grab().save(ms::ui::test::outputPath("keyframe-form.png")));
    const QString before = ed_->toPlainText();
    const int undoBefore = ed_->undoStack()->count();
    QVERIFY2(props->enter("rocker.velocity", 2, "0.25"), qPrintable(props->message("rocker.velocity")));
    const QString after = ed_->toPlainText();
    QCOMPARE(ed_->undoStack()->count(), undoBefore + 1);
    ed_->checkNow();
    const KeyframeDesc& kf = ed_->lastValidModel()->result.model.keyframes[0];
    const auto rocker = std::find_if(kf.bodies.begin(), kf.bodies.end(), [](const KeyframeBody& b) { return b.body == "rocker"; });
    QVERIFY(rocker != kf.bodies.end());
    QCOMPARE(rocker->velocity.z(), 0.25);
    // One token changed: the texts agree outside it.
    int head = 0;
    while (head < before.size() && before[head] == after[head]) ++head;
    QVERIFY(after.mid(head).endsWith(before.mid(before.indexOf(')', head))));
    // A quaternion component alone breaks the unit norm: refused, explained, the text unchanged.
    QVERIFY(tree->selectNode(NodeKind::Keyframe, 0));
    QVERIFY(!tree->properties()->enter("crank.orientation", 0, "0.5"));
    QVERIFY2(tree->properties()->message("crank.orientation").contains("unit quaternion"),
             qPrintable(tree->properties()->message("crank.orientation")));
    QCOMPARE(ed_->toPlainText(), after);
  }

  // The acceptance test: save a keyframe, step on, edit the text, load it back: the same state.
  void saveEditLoadRestoresTheState() {
    open(MECHSTUDIO_SOURCE_DIR "/models/four-bar.mech");
    QCOMPARE(w_->keyframes()->keyframeNames(), QStringList());
    QVERIFY(!menuAction(w_->keyframes()->loadMenu(), "load-keyframe-keyframe-1"));
    steps(30);
    const State saved = shown();
    QCOMPARE(saved.step, 30L);
    const QString before = ed_->toPlainText();
    const int undoBefore = ed_->undoStack()->count();
    // A cancelled name changes nothing.
    name_ = "";
    w_->keyframes()->saveAction()->trigger();
    QCOMPARE(suggested_, QStringList{"keyframe-1"});
    QCOMPARE(ed_->toPlainText(), before);
    QCOMPARE(ed_->undoStack()->count(), undoBefore);
    // Saved: one form at the end of the mechanism, one undo step.
    name_ = "keyframe-1";
    w_->keyframes()->saveAction()->trigger();
    const QString withKeyframe = ed_->toPlainText();
    QVERIFY(withKeyframe.contains("\n  (keyframe keyframe-1\n    (body ground\n"));
    QVERIFY(withKeyframe.contains("(body coupler\n"));
    QCOMPARE(ed_->undoStack()->count(), undoBefore + 1);
    QVERIFY(ed_->isModified());
    QVERIFY(asked_.isEmpty());  // a new name: nothing to confirm
    QCOMPARE(w_->keyframes()->keyframeNames(), QStringList{"keyframe-1"});
    QVERIFY(menuAction(w_->keyframes()->loadMenu(), "load-keyframe-keyframe-1"));
    QVERIFY(menuAction(w_->keyframes()->initialMenu(), "initial-keyframe-keyframe-1"));
    // Undo removes it in one step (the text as before, byte for byte), Redo brings it back.
    // (The menus follow after the text's debounced check, run here at once.)
    w_->undoAction()->trigger();
    QCOMPARE(ed_->toPlainText(), before);
    QVERIFY(!ed_->isModified());
    ed_->checkNow();
    QCOMPARE(w_->keyframes()->keyframeNames(), QStringList());
    QVERIFY(!menuAction(w_->keyframes()->loadMenu(), "load-keyframe-keyframe-1"));
    w_->redoAction()->trigger();
    QCOMPARE(ed_->toPlainText(), withKeyframe);
    ed_->checkNow();
    QCOMPARE(w_->keyframes()->keyframeNames(), QStringList{"keyframe-1"});
    // Further steps, and the state they reach.
    steps(40);
    const State later = shown();
    QVERIFY(stateDistance(later, saved) > 1e-2);
    // A harmless edit (the coupler's colour), applied: the simulation gets a new model.
    const long generation = w_->sim().snapshot().generation;
    QString edited = ed_->toPlainText();
    QVERIFY(edited.contains("(color 0.2 0.7 0.3)"));
    edited.replace("(color 0.2 0.7 0.3)", "(color 0.3 0.6 0.3)");
    QTextCursor c(ed_->document());
    c.select(QTextCursor::Document);
    c.insertText(edited);
    ed_->checkNow();
    QString err;
    QVERIFY2(w_->documents()->applyEditor(&err), qPrintable(err));
    ms::ui::test::settle(*w_);
    QCOMPARE(w_->sim().snapshot().generation, generation + 1);
    // The next suggestion is the next free name.
    name_ = "";
    w_->keyframes()->saveAction()->trigger();
    QCOMPARE(suggested_.last(), QString("keyframe-2"));
    // Load ▸ keyframe-1: the saved state to 1e-12, at t = 0, paused.
    QAction* load = menuAction(w_->keyframes()->loadMenu(), "load-keyframe-keyframe-1");
    QVERIFY(load);
    load->trigger();
    const Snapshot s = (w_->sim().sync(), w_->sim().snapshot());
    const double d = stateDistance(s.state, saved);
    qInfo("loaded keyframe: largest difference from the saved state %.3g", d);
    QVERIFY2(d <= 1e-12, qPrintable(QString::number(d)));
    QCOMPARE(s.state.time, 0.0);
    QCOMPARE(s.running, false);
    QCOMPARE(s.historyCount, 1);
    QCOMPARE(w_->status()->bannerText(), QString());
    // From there the motion is the one that followed the save (to the Newton tolerance).
    steps(40);
    const double after = stateDistance(shown(), later);
    qInfo("40 steps after loading: largest difference from the 40 steps after saving %.3g", after);
    QVERIFY2(after < 1e-8, qPrintable(QString::number(after)));
    // The text was not touched by loading.
    QCOMPARE(ed_->toPlainText(), edited);
  }

  // Use as initial state: Reset returns to the keyframe; a name that exists is replaced after asking.
  void initialStateAndReplacing() {
    open(MECHSTUDIO_SOURCE_DIR "/tests/data/mech/keyframes.mech");
    QCOMPARE(w_->keyframes()->keyframeNames(), (QStringList{"down", "swing", "stale"}));
    QAction* initial = menuAction(w_->keyframes()->initialMenu(), "initial-keyframe-swing");
    QVERIFY(initial);
    initial->trigger();
    const State start = shown();
    QCOMPARE(start.bodies[1].x, Vec3(0, 0, -2));
    QCOMPARE(start.bodies[1].v, Vec3(0, 2, 0));
    steps(25);
    QVERIFY(stateDistance(shown(), start) > 1e-2);
    w_->sim().reset();
    QCOMPARE(stateDistance(shown(), start), 0.0);
    // Saving under an existing name asks; Cancel keeps the text, Accept replaces the form in place.
    steps(10);
    const QString before = ed_->toPlainText();
    name_ = "down";
    answer_ = A::Cancel;
    w_->keyframes()->saveAction()->trigger();
    QCOMPARE(asked_, QList<Q>{Q::ReplaceKeyframe});
    QCOMPARE(askedNames_, QStringList{"down"});
    QCOMPARE(ed_->toPlainText(), before);
    answer_ = A::Accept;
    QString err;
    QVERIFY2(w_->keyframes()->saveKeyframe(&err), qPrintable(err));
    const QString after = ed_->toPlainText();
    QCOMPARE(w_->keyframes()->keyframeNames(), (QStringList{"down", "swing", "stale"}));
    const int at = before.indexOf("(keyframe down");
    QCOMPARE(after.left(at), before.left(at));  // everything before the form as it was
    const int swing = before.indexOf("  ; v = w x r");
    QCOMPARE(after.mid(after.indexOf("  ; v = w x r")), before.mid(swing));  // and everything after it
    QVERIFY(!after.contains("(position 0 0 -2) (orientation 1 0 0 0) (velocity 0 0 0)"));
  }

  // Apply keeps an initial keyframe chosen earlier (issue 34): the edited model goes on from the state
  // it had, and Reset returns to the keyframe; an edit that removes the keyframe falls back to the
  // model's initial conditions.
  void applyKeepsTheInitialKeyframe() {
    open(MECHSTUDIO_SOURCE_DIR "/tests/data/mech/keyframes.mech");
    QAction* initial = menuAction(w_->keyframes()->initialMenu(), "initial-keyframe-swing");
    QVERIFY(initial);
    initial->trigger();
    const State start = shown();
    steps(25);
    const State before = shown();
    QVERIFY(stateDistance(before, start) > 1e-2);
    // An edit of the text (link2's mass), applied: the state carries over, the keyframe stays initial.
    QTextCursor c(ed_->document());
    const QString text = ed_->toPlainText();
    const int at = text.indexOf("(mass 1)", text.indexOf("(body link2"));
    QVERIFY(at > 0);
    c.setPosition(at);
    c.setPosition(at + 8, QTextCursor::KeepAnchor);
    c.insertText("(mass 1.5)");
    QString err;
    QVERIFY2(w_->documents()->applyEditor(&err), qPrintable(err));
    QCOMPARE(w_->keyframes()->initialKeyframe(), QString("swing"));
    QVERIFY(stateDistance(shown(), before) < 1e-12);
    w_->sim().reset();
    QCOMPARE(stateDistance(shown(), start), 0.0);
    // The keyframe renamed away: Apply falls back to the model's initial conditions for Reset.
    const QString edited = ed_->toPlainText();
    const int k = edited.indexOf("(keyframe swing");
    c.setPosition(k);
    c.setPosition(k + int(QString("(keyframe swing").size()), QTextCursor::KeepAnchor);
    c.insertText("(keyframe swung");
    QVERIFY2(w_->documents()->applyEditor(&err), qPrintable(err));
    QCOMPARE(w_->keyframes()->initialKeyframe(), QString());
    w_->sim().reset();
    QVERIFY(stateDistance(shown(), start) > 0.1);  // the model's own start: link1 horizontal
  }

  // Refusals: shown, and neither the text nor the simulation loses anything.
  void refusalsKeepTextAndState() {
    open(MECHSTUDIO_SOURCE_DIR "/tests/data/mech/keyframes.mech");
    steps(5);
    const State now = shown();
    const QString text = ed_->toPlainText();
    // A keyframe that no longer fits the joints.
    QAction* stale = menuAction(w_->keyframes()->loadMenu(), "load-keyframe-stale");
    QVERIFY(stale);
    stale->trigger();
    QVERIFY2(w_->status()->bannerText().contains("Keyframe not loaded: keyframe 'stale' does not fit joint 'joint2' (violation 0.2): "
                                       "was the model changed since it was saved?"),
             qPrintable(w_->status()->bannerText()));
    QCOMPARE(stateDistance(shown(), now), 0.0);
    QCOMPARE(shown().step, now.step);
    // An unknown name.
    QString err;
    QVERIFY(!w_->loadKeyframe("nope", false, &err));
    QCOMPARE(err, QString("the model has no keyframe 'nope' (its keyframes: 'down', 'swing', 'stale')"));
    // Saving while the text has errors: refused, the text stays (with its error).
    QTextCursor c(ed_->document());
    c.movePosition(QTextCursor::End);
    c.insertText("(oops");
    ed_->checkNow();
    const QString broken = ed_->toPlainText();
    name_ = "k";
    QVERIFY(!w_->keyframes()->saveKeyframe(&err));
    QVERIFY2(err.contains("the text has errors"), qPrintable(err));
    QCOMPARE(ed_->toPlainText(), broken);
    // A text whose bodies are not the simulated ones (link2 renamed, its keyframe entries too, not
    // applied yet): refused.
    c.select(QTextCursor::Document);
    c.insertText(text);
    ed_->checkNow();
    QVERIFY(!ed_->modelStale());
    QVERIFY2(ed_->applyEdit([](const sexpr::Document& doc, const MechParseResult& p) {
      return renameBody(doc, p, p.model.bodyIndex("link2"), "lower");
    }, "Rename", &err), qPrintable(err));
    const QString renamed = ed_->toPlainText();
    QVERIFY(renamed.contains("(body lower (position 0 0 -2)"));
    QVERIFY(!w_->keyframes()->saveKeyframe(&err));
    QVERIFY2(err.contains("the bodies of the simulated model are not the bodies of the editor's text"), qPrintable(err));
    QCOMPARE(w_->status()->bannerText(), err);
    QCOMPARE(ed_->toPlainText(), renamed);
    QCOMPARE(stateDistance(shown(), now), 0.0);
  }
};

MECHSTUDIO_GUI_TEST_MAIN(TestKeyframes)
#include "tst_keyframes.moc"
