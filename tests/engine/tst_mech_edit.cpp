// SPDX-License-Identifier: GPL-3.0-or-later
// Structure edits of .mech documents (io/mech_edit.h): every edit yields a readable, compilable
// model with the intended structure, leaves every byte outside the edited spans as it was, follows
// references on delete and rename, and refuses what it cannot do without changing the text.
#include <QTest>

#include <sstream>

#include "io/mech_edit.h"
#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "model_text.h"
#include "test_paths.h"

using namespace ms;

namespace {

using Parsed = test::ParsedMech;
// Parses and reads a text; fails the test on any error.
Parsed parse(const std::string& text) { return test::parseMechDocument(text); }

// A gallery file ("four-bar.mech") or a file of the source tree ("tests/data/…").
std::string galleryText(const std::string& file) {
  return test::sourceText(file.find('/') == std::string::npos ? "models/" + file : file);
}

// The edited text reads back and compiles.
Parsed reread(const MechEdit& e) {
  if (!e.ok) qFatal("edit refused: %s", e.error.c_str());
  Parsed p = parse(e.doc.text());
  compile(p.result.model);
  return p;
}

// Number of lines that are comments (';' first after indentation).
int commentLines(const std::string& t) {
  std::istringstream in(t);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    const size_t i = line.find_first_not_of(' ');
    n += i != std::string::npos && line[i] == ';';
  }
  return n;
}

// State after `steps` steps.
State run(const Model& m, int steps) {
  Simulation sim(compile(m));
  for (int k = 0; k < steps; ++k)
    if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
  return sim.state();
}

}  // namespace

class TestMechEdit : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // A child body with its joint goes inside its parent's form; nothing else in the text changes.
  void addChildBodyInsertsIntoTheParent() {
    const std::string before = galleryText("double-pendulum.mech");
    Parsed p = parse(before);
    const MechEdit e = addChildBody(p.doc, p.result, p.result.model.bodyIndex("link2"), "link3", JointType::Revolute);
    const Parsed q = reread(e);
    const Model& m = q.result.model;
    QCOMPARE(int(m.bodies.size()), 3);
    const int j = m.jointIndex("link3-joint");
    QVERIFY(j >= 0);
    QCOMPARE(m.joints[size_t(j)].parent, m.bodyIndex("link2"));
    QCOMPARE(m.joints[size_t(j)].child, m.bodyIndex("link3"));
    // One insertion: the old text is a prefix and a suffix of the new one around it.
    const std::string& after = e.doc.text();
    size_t head = 0;
    while (head < before.size() && before[head] == after[head]) ++head;
    const size_t tail = before.size() - head;
    QVERIFY(after.compare(after.size() - tail, tail, before, head, tail) == 0);
    QCOMPARE(commentLines(after), commentLines(before));
    // A top-level body joins the world.
    const MechEdit top = addChildBody(q.doc, q.result, -1, "free", JointType::Spherical);
    const Parsed r = reread(top);
    QCOMPARE(r.result.model.joints[size_t(r.result.model.jointIndex("free-joint"))].parent, -1);
  }

  // A loop joint between two bodies closes a loop (the model compiles and simulates).
  void addLoopJointClosesALoop() {
    Parsed p = parse(galleryText("double-pendulum.mech"));
    const Model& m = p.result.model;
    const MechEdit e = addLoopJoint(p.doc, p.result, "pin", JointType::Spherical, -1, m.bodyIndex("link2"));
    const Parsed q = reread(e);
    QCOMPARE(int(q.result.model.joints.size()), 3);
    QCOMPARE(q.result.model.joints[2].parent, -1);
    QCOMPARE(q.result.model.joints[2].child, m.bodyIndex("link2"));
  }

  // Deleting the four-bar's rocker removes its joint and the loop joint that refers to it.
  void deleteBodyTakesItsReferences() {
    const std::string before = galleryText("four-bar.mech");
    Parsed p = parse(before);
    const Model& m0 = p.result.model;
    const MechEdit e = deleteBody(p.doc, p.result, m0.bodyIndex("rocker"));
    const Parsed q = reread(e);
    const Model& m = q.result.model;
    QCOMPARE(int(m.bodies.size()), int(m0.bodies.size()) - 1);
    QCOMPARE(m.bodyIndex("rocker"), -1);
    QCOMPARE(m.jointIndex("rocker-pivot"), -1);
    QCOMPARE(m.jointIndex("coupler-rocker"), -1);
    QCOMPARE(int(m.joints.size()), int(m0.joints.size()) - 2);
    QVERIFY(e.doc.text().size() < before.size());
    // Deleting a body with nested bodies takes them too.
    const MechEdit crank = deleteBody(q.doc, q.result, m.bodyIndex("crank"));
    const Parsed r = reread(crank);
    QCOMPARE(r.result.model.bodyIndex("coupler"), -1);
  }

  // Renaming follows every reference; the renamed model is the same mechanism.
  void renameFollowsReferences() {
    Parsed p = parse(galleryText("four-bar.mech"));
    const Model& m0 = p.result.model;
    const MechEdit e = renameBody(p.doc, p.result, m0.bodyIndex("coupler"), "link");
    const Parsed q = reread(e);
    const Model& m = q.result.model;
    QCOMPARE(m.bodyIndex("coupler"), -1);
    const int link = m.bodyIndex("link");
    QVERIFY(link >= 0);
    QCOMPARE(m.joints[size_t(m.jointIndex("coupler-rocker"))].parent, link);
    const State a = run(m0, 20), b = run(m, 20);
    double diff = 0;
    for (size_t i = 0; i < a.bodies.size(); ++i) diff = std::max(diff, (a.bodies[i].x - b.bodies[i].x).norm());
    qInfo("four-bar with the coupler renamed: state difference after 20 steps %.3g m", diff);
    QCOMPARE(diff, 0.0);
    // A joint with PD controllers: the controllers follow.
    Parsed x = parse(galleryText("exoskeleton-arm.mech"));
    const int flex = x.result.model.jointIndex("exo-flexion");
    const MechEdit ej = renameJoint(x.doc, x.result, flex, "shoulder-flexion");
    const Parsed y = reread(ej);
    const int nf = y.result.model.jointIndex("shoulder-flexion");
    QVERIFY(nf >= 0);
    int following = 0;
    for (const ControllerDesc& c : y.result.model.controllers) following += c.joint == nf;
    QVERIFY(following >= 1);
  }

  // Moving a body under another parent: its joint's parent changes, its nested bodies come along.
  void moveBodyReparents() {
    Parsed p = parse(galleryText("double-pendulum.mech"));
    const Model& m0 = p.result.model;
    const MechEdit e = moveBody(p.doc, p.result, m0.bodyIndex("link2"), -1);
    const Parsed q = reread(e);
    QCOMPARE(q.result.model.joints[size_t(q.result.model.jointIndex("joint2"))].parent, -1);
    // And back under link1.
    const MechEdit back = moveBody(q.doc, q.result, q.result.model.bodyIndex("link2"), q.result.model.bodyIndex("link1"));
    const Parsed r = reread(back);
    QCOMPARE(r.result.model.joints[size_t(r.result.model.jointIndex("joint2"))].parent,
             r.result.model.bodyIndex("link1"));
  }

  // Duplicating a body copies its joint and nested bodies with fresh names, next to the original.
  void duplicateBodyCopiesTheSubtree() {
    Parsed p = parse(galleryText("double-pendulum.mech"));
    const MechEdit e = duplicateBody(p.doc, p.result, p.result.model.bodyIndex("link1"));
    const Parsed q = reread(e);
    const Model& m = q.result.model;
    QCOMPARE(int(m.bodies.size()), 4);
    QVERIFY(m.bodyIndex("link1-copy") >= 0 && m.bodyIndex("link2-copy") >= 0);
    const int j2 = m.jointIndex("joint2-copy");
    QVERIFY(j2 >= 0);
    QCOMPARE(m.joints[size_t(j2)].parent, m.bodyIndex("link1-copy"));
    QCOMPARE(m.joints[size_t(m.jointIndex("joint1-copy"))].parent, -1);
    // Twice: the second copy takes the next free suffix.
    const MechEdit again = duplicateBody(q.doc, q.result, q.result.model.bodyIndex("link1"));
    const Parsed r = reread(again);
    QVERIFY(r.result.model.bodyIndex("link1-copy2") >= 0);
  }

  // setKeyframe: a new name goes before the mechanism's closing parenthesis, an existing one is
  // replaced in place; every other byte stays, and what reads back is the keyframe exactly.
  void setKeyframeInsertsOrReplaces() {
    const std::string before = galleryText("four-bar.mech");
    Parsed p = parse(before);
    Simulation sim(compile(p.result.model));
    for (int k = 0; k < 37; ++k) QVERIFY(sim.step());
    const KeyframeDesc k1 = sim.keyframe("k1");
    const Parsed q = reread(setKeyframe(p.doc, p.result, k1));
    const std::string& t = q.doc.text();
    const size_t close = p.result.map.mechanism.form.end - 1;  // the mechanism's ')'
    QCOMPARE(t.substr(0, close), before.substr(0, close));
    QCOMPARE(t.substr(t.size() - (before.size() - close)), before.substr(close));
    QCOMPARE(t.substr(close, 13), std::string("\n  (keyframe "));
    QCOMPARE(q.result.model.keyframes.size(), size_t(1));
    const KeyframeDesc& back = q.result.model.keyframes[0];
    QCOMPARE(back.name, std::string("k1"));
    QCOMPARE(back.bodies.size(), k1.bodies.size());
    for (size_t b = 0; b < k1.bodies.size(); ++b) {  // write → read is exact
      QCOMPARE(back.bodies[b].body, k1.bodies[b].body);
      QVERIFY(back.bodies[b].position == k1.bodies[b].position && back.bodies[b].orientation == k1.bodies[b].orientation);
      QVERIFY(back.bodies[b].velocity == k1.bodies[b].velocity &&
              back.bodies[b].angularVelocity == k1.bodies[b].angularVelocity);
    }
    // The same name again, later state: replaced in place (the text around the form unchanged).
    for (int k = 0; k < 20; ++k) QVERIFY(sim.step());
    const KeyframeDesc k1b = sim.keyframe("k1");
    const Parsed r = reread(setKeyframe(q.doc, q.result, k1b));
    const SourceRef& form = q.result.map.keyframes[0].form;
    const std::string& u = r.doc.text();
    QCOMPARE(u.substr(0, form.begin), t.substr(0, form.begin));
    QCOMPARE(u.substr(u.size() - (t.size() - form.end)), t.substr(form.end));
    std::string expected;  // indented like the form it replaces (2 spaces)
    for (char c : keyframeText(k1b)) expected += c == '\n' ? std::string("\n  ") : std::string(1, c);
    QCOMPARE(u.substr(form.begin, u.size() - (t.size() - form.end) - form.begin), expected);
    QCOMPARE(r.result.model.keyframes.size(), size_t(1));
    QVERIFY(r.result.model.keyframes[0].bodies[1].position == k1b.bodies[1].position);
    // Another name: a second form; loading either gives its state back exactly.
    const Parsed s2 = reread(setKeyframe(r.doc, r.result, k1));
    QCOMPARE(s2.result.model.keyframes.size(), size_t(1));  // "k1" again: replaced
    KeyframeDesc k2 = k1;
    k2.name = "second";
    const Parsed s3 = reread(setKeyframe(s2.doc, s2.result, k2));
    QCOMPARE(s3.result.model.keyframes.size(), size_t(2));
    QCOMPARE(s3.result.model.keyframes[1].name, std::string("second"));
    QVERIFY(!setKeyframe(p.doc, p.result, KeyframeDesc()).ok);  // no name
  }

  // Structure edits keep the keyframes valid: rename, delete, duplicate and a new child body.
  void structureEditsFollowKeyframes() {
    Parsed p = parse(galleryText("tests/data/mech/keyframes.mech"));
    const Model& m = p.result.model;
    const int l1 = m.bodyIndex("link1"), l2 = m.bodyIndex("link2");
    auto entry = [](const Model& model, const std::string& kf, const std::string& body) {
      const KeyframeDesc* k = model.keyframe(kf);
      if (!k) qFatal("no keyframe %s", kf.c_str());
      for (const KeyframeBody& b : k->bodies)
        if (b.body == body) return b;
      qFatal("keyframe %s has no body %s", kf.c_str(), body.c_str());
    };
    // Rename: every keyframe's entry follows.
    const Parsed renamed = reread(renameBody(p.doc, p.result, l2, "lower"));
    QCOMPARE(entry(renamed.result.model, "swing", "lower").velocity, Vec3(0, 2, 0));
    // Delete: the entries go with the body.
    const Parsed deleted = reread(deleteBody(p.doc, p.result, l2));
    QCOMPARE(deleted.result.model.keyframe("down")->bodies.size(), size_t(1));
    QVERIFY(deleted.doc.text().find("(body link2") == std::string::npos);
    // Duplicate: the copy starts where the original is.
    const Parsed dup = reread(duplicateBody(p.doc, p.result, l2));
    const KeyframeBody a = entry(dup.result.model, "swing", "link2"), b = entry(dup.result.model, "swing", "link2-copy");
    QVERIFY(a.position == b.position && a.orientation == b.orientation && a.velocity == b.velocity &&
            a.angularVelocity == b.angularVelocity);
    // A new child (and a new top-level body): placed by its joint, moving with its parent, so the
    // keyframes fit the new model's joints.
    for (int parent : {l1, -1}) {
      const Parsed added = reread(addChildBody(p.doc, p.result, parent, "link3", JointType::Revolute));
      Simulation sim(compile(added.result.model));
      sim.loadKeyframe("swing");
      sim.loadKeyframe("down");
      const KeyframeBody c = entry(added.result.model, "swing", "link3");
      QCOMPARE(c.position, parent < 0 ? Vec3(0, 0, -0.5) : Vec3(0, 0, -1.5));
      QCOMPARE(c.velocity, parent < 0 ? Vec3(0, 0, 0) : Vec3(0, 1.5, 0));
      QCOMPARE(c.angularVelocity, parent < 0 ? Vec3(0, 0, 0) : Vec3(1, 0, 0));
    }
  }

  // Refusals leave the text as it was and say why.
  void refusalsChangeNothing() {
    Parsed p = parse(galleryText("double-pendulum.mech"));
    const Model& m = p.result.model;
    const int l1 = m.bodyIndex("link1"), l2 = m.bodyIndex("link2");
    const MechEdit edits[] = {
        addChildBody(p.doc, p.result, l1, "link2", JointType::Revolute),   // name taken
        addChildBody(p.doc, p.result, l1, "bad name", JointType::Revolute), // not a symbol
        addChildBody(p.doc, p.result, l1, "2.5", JointType::Revolute),      // a number
        moveBody(p.doc, p.result, l1, l2),                                  // into its own child
        renameBody(p.doc, p.result, l1, "link2"),                           // name taken
        addLoopJoint(p.doc, p.result, "self", JointType::Fixed, l1, l1),    // same body
    };
    for (const MechEdit& e : edits) {
      QVERIFY(!e.ok);
      QVERIFY(!e.error.empty());
      QCOMPARE(e.doc.text(), p.doc.text());
    }
    // Generated bodies (repeat/chain) are refused: their span is the shared template.
    Parsed g = parse(galleryText("quadruped.mech"));
    const MechEdit gen = renameBody(g.doc, g.result, g.result.model.bodyIndex("hip1"), "hip-one");
    QVERIFY(!gen.ok);
    QVERIFY(QString::fromStdString(gen.error).contains("repeat"));
  }
};

QTEST_GUILESS_MAIN(TestMechEdit)
#include "tst_mech_edit.moc"
