// SPDX-License-Identifier: GPL-3.0-or-later
// Structure edits of .mech documents (io/mech_edit.h): every edit yields a readable, compilable
// model with the intended structure, leaves every byte outside the edited spans as it was, follows
// references on delete and rename, and refuses what it cannot do without changing the text.
#include <QtTest/QtTest>

#include <fstream>
#include <sstream>

#include "io/mech_edit.h"
#include "io/mech_reader.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "test_paths.h"

using namespace ms;

namespace {

struct Parsed {
  sexpr::Document doc;
  MechParseResult result;
};

// Parses and reads a text; fails the test on any error.
Parsed parse(const std::string& text) {
  Parsed p;
  Diagnostics d;
  p.doc = sexpr::Document::parse(text, "test.mech", d);
  if (d.hasErrors() || !readMech(p.doc, {}, p.result, d)) qFatal("does not read: %s", d.format().c_str());
  return p;
}

std::string galleryText(const std::string& file) {
  std::ifstream in(test::modelPath(file));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
