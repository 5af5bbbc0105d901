// SPDX-License-Identifier: GPL-3.0-or-later
// Building with the mouse (issue 34). Moving (io/mech_drag.h, mech_edit's setBodyValues/
// setJointValues): a drag on a handle changes one form of the text — the joint's (position …), its
// (parent-anchor …) or a free body's (position …)/(rotation …) — and the model then starts with the
// body moved exactly as the handle moved it, for every joint type; values written as expressions
// are not replaced. Adding and connecting (mech_edit's addBodyAt, connectBodies): a body dropped on
// the ground rests on it, one dropped on a body is jointed to it at the point; connecting a free
// body nests it under the other with the joint, whose two points then coincide; connecting a body
// that already hangs on a joint makes a loop joint; a body is never jointed to itself.
#include <QTest>

#include <cmath>

#include "core/quaternion.h"
#include "io/mech_drag.h"
#include "io/mech_reader.h"
#include "model/joint_kinds.h"
#include "system/compiled_system.h"
#include "system/initial_conditions.h"
#include "model_text.h"
#include "test_paths.h"

using namespace ms;

namespace {

using Parsed = test::ParsedMech;
Parsed parse(const std::string& text) { return test::parseMechDocument(text); }

int bodyIndex(const Parsed& p, const std::string& name) {
  for (size_t i = 0; i < p.result.model.bodies.size(); ++i)
    if (p.result.model.bodies[i].name == name) return int(i);
  qFatal("no body %s", name.c_str());
  return -1;
}

// The initial state of a parsed model.
State initial(const Parsed& p) {
  const auto sys = compile(p.result.model);
  return makeInitialState(*sys, sys->model);
}

// The text of form `span` of `before` in `after`, when `after` differs from `before` in that form
// only ("" otherwise).
std::string onlyFormChanged(const std::string& before, const std::string& after, const SourceRef& span) {
  const size_t tail = before.size() - span.end;
  if (after.size() < span.begin + tail || after.compare(0, span.begin, before, 0, span.begin) != 0 ||
      after.compare(after.size() - tail, tail, before, span.end, tail) != 0)
    return "";
  return after.substr(span.begin, after.size() - tail - span.begin);
}

// Largest distance between the poses of two body states (m, and the rotation angle in rad).
double poseDistance(const BodyState& a, const BodyState& b) {
  const Vec4 d = quat::mul(quat::conj(a.q), b.q);
  return std::max((a.x - b.x).norm(), quat::toRotationVector(d).norm());
}

}  // namespace

class TestMechDrag : public QObject {
  Q_OBJECT
 private slots:
  void crankRingChangesOnlyItsAngle();
  void anchorArrowChangesOnlyTheAnchor();
  void bodyArrowMovesTheBodyOnItsJoint();
  void axisRingsTiltTheAxis();
  void everyJointTypeMovesAlongItsHandles();
  void freeBodyPoseIsWrittenOrAdded();
  void expressionsAndFixedJointsAreRefused();
  void rangesAndReferencesOfOneCoordinateJoints();
  void resizeHandlesChangeOneSizeNumber();
  void bodiesAreAddedWhereClicked();
  void connectingNestsAFreeBodyOrClosesALoop();
};

void TestMechDrag::crankRingChangesOnlyItsAngle() {
  const Parsed p = parse(test::sourceText("models/four-bar.mech"));
  const int crank = bodyIndex(p, "crank");
  const DragHandles h = dragHandles(p.result, crank, DragMode::Joint);
  QVERIFY2(h.refusal.empty(), h.refusal.c_str());
  QCOMPARE(int(h.handles.size()), 1);
  QVERIFY(h.handles[0].rotate);
  QVERIFY((h.handles[0].direction.cwiseAbs() - Vec3::UnitX()).norm() <= 1e-12);
  QVERIFY(h.handles[0].origin.norm() <= 1e-12);  // A, the world origin
  QCOMPARE(h.handles[0].label, std::string("joint 'crank-shaft' angle"));
  QCOMPARE(h.handles[0].value, -0.3184);  // the written angle a view snaps
  // The crank carries the coupler (its subtree); the rocker hangs on the ground.
  QCOMPARE(int(h.moving.size()), 2);
  const MechEdit e = dragEdit(p.doc, p.result, h, 0, 0.1);
  QVERIFY2(e.ok, e.error.c_str());
  const SourceRef& form = p.result.map.joints[1].properties.at("position").form;  // crank-shaft's
  QCOMPARE(QString::fromStdString(onlyFormChanged(p.doc.text(), e.doc.text(), form)), QString("(position -0.2184)"));
  // (Where a body of a loop then starts is the engine's projection onto the closed loop, which
  // moves every body a little: everyJointTypeMovesAlongItsHandles checks the poses on a tree.)
}

void TestMechDrag::anchorArrowChangesOnlyTheAnchor() {
  const Parsed p = parse(test::sourceText("models/four-bar.mech"));
  const int crank = bodyIndex(p, "crank");
  const DragHandles h = dragHandles(p.result, crank, DragMode::Anchor);
  QVERIFY2(h.refusal.empty(), h.refusal.c_str());
  QCOMPARE(int(h.handles.size()), 3);
  for (const DragHandle& a : h.handles) QVERIFY(!a.rotate);
  QCOMPARE(h.handles[1].label, std::string("joint 'crank-shaft' parent-anchor y"));
  QCOMPARE(h.handles[1].value, -0.2);
  const MechEdit e = dragEdit(p.doc, p.result, h, 1, 0.05);
  QVERIFY2(e.ok, e.error.c_str());
  QCOMPARE(p.result.model.joints[1].name, std::string("crank-shaft"));
  const SourceRef& form = p.result.map.joints[1].properties.at("parent-anchor").form;
  QCOMPARE(QString::fromStdString(onlyFormChanged(p.doc.text(), e.doc.text(), form)), QString("(parent-anchor 0 -0.15 0)"));
}

// With the body modifier the coupler slides on its pin: the arrow along its z axis writes only the
// crank-pin's (child-anchor …), by minus the amount, and the coupler starts moved by the amount along
// its own z axis (the loop it closes is opened: the rocker does not follow, Assemble is asked).
void TestMechDrag::bodyArrowMovesTheBodyOnItsJoint() {
  const std::string text = test::sourceText("models/four-bar.mech");
  const size_t loop = text.find("  (loop-joint");
  const Parsed p = parse(text.substr(0, loop) + ")\n");  // without the loop: the coupler is free to move
  const int coupler = bodyIndex(p, "coupler");
  const DragHandles h = dragHandles(p.result, coupler, DragMode::Body);
  QVERIFY2(h.refusal.empty(), h.refusal.c_str());
  QCOMPARE(int(h.handles.size()), 3);
  QCOMPARE(h.handles[2].label, std::string("joint 'crank-pin' child-anchor z"));
  QCOMPARE(h.handles[2].value, -0.175);
  QCOMPARE(h.handles[2].gain, -1.0);  // the body up by 0.025: the point in it down by as much
  const MechEdit e = dragEdit(p.doc, p.result, h, 2, -0.025);
  QVERIFY2(e.ok, e.error.c_str());
  const int pin = p.result.model.jointIndex("crank-pin");
  const SourceRef& form = p.result.map.joints[size_t(pin)].properties.at("child-anchor").form;
  QCOMPARE(QString::fromStdString(onlyFormChanged(p.doc.text(), e.doc.text(), form)), QString("(child-anchor 0 0 -0.2)"));
  const BodyState before = initial(p).bodies[size_t(coupler)], after = initial(parse(e.doc.text())).bodies[size_t(coupler)];
  QVERIFY((after.x - (before.x + 0.025 * quat::rotate(before.q, Vec3::UnitZ()))).norm() <= 1e-12);
  QVERIFY(quat::toRotationVector(quat::mul(quat::conj(before.q), after.q)).norm() <= 1e-12);  // not turned
  // A free body has no joint to move on.
  const Parsed free = parse("(mechanism \"m\" (body b (mass 1) (shape box 0.1 0.1 0.1)))");
  QVERIFY(dragHandles(free.result, 0, DragMode::Body).refusal.find("has no joint") != std::string::npos);
}

// The Axis set: two rings across the crank's axis x (its joint frame is the ground's), at its joint's
// point; turning one by 90° writes only its (axis …), turned by 90° about the ring's direction; the
// bodies do not move with the drag. A fixed joint has no axis to tilt.
void TestMechDrag::axisRingsTiltTheAxis() {
  const Parsed p = parse(test::sourceText("models/four-bar.mech"));
  const int crank = bodyIndex(p, "crank");
  const DragHandles h = dragHandles(p.result, crank, DragMode::Axis);
  QVERIFY2(h.refusal.empty(), h.refusal.c_str());
  QCOMPARE(int(h.handles.size()), 3);
  QVERIFY(h.moving.empty());
  const Vec3 x = Vec3::UnitX();
  // The third, drawn only: the axis.
  QVERIFY(h.handles[2].shown && !h.handles[2].rotate);
  QVERIFY((h.handles[2].direction - x).norm() <= 1e-15);
  QVERIFY(!dragEdit(p.doc, p.result, h, 2, 0.1).ok);
  for (const DragHandle& r : {h.handles[0], h.handles[1]}) {
    QVERIFY(r.rotate);
    QVERIFY(std::abs(r.direction.dot(x)) <= 1e-15);  // across the axis
    QVERIFY(r.origin.norm() <= 1e-15);                // A, at the world origin
  }
  const MechEdit e = dragEdit(p.doc, p.result, h, 0, M_PI / 2);
  QVERIFY2(e.ok, e.error.c_str());
  const int shaft = p.result.model.jointIndex("crank-shaft");
  const SourceRef& form = p.result.map.joints[size_t(shaft)].properties.at("axis").form;
  const Vec3 turned = quat::rotate(quat::fromAxisAngle(h.handles[0].direction, M_PI / 2), x);
  const Parsed q = parse(e.doc.text());
  QVERIFY((q.result.model.joints[size_t(shaft)].axis - turned).norm() <= 1e-12);
  QVERIFY(!onlyFormChanged(p.doc.text(), e.doc.text(), form).empty());
  QVERIFY(dragHandles(p.result, bodyIndex(p, "ground"), DragMode::Axis).refusal.find("has no axis") != std::string::npos);
}

void TestMechDrag::everyJointTypeMovesAlongItsHandles() {
  // Body b on body a (itself turned and lifted) by a joint of each type with an oblique axis, an
  // offset and non-zero coordinates: each handle's drag starts b moved exactly as the handle moves
  // it (direction, sign, pivot), whatever the joint.
  for (int t = 0; t < kNumJointTypes; ++t) {
    const JointKind& kind = jointKindAt(t);
    const int n = kind.freeCoordinates();
    std::string position;
    for (int i = 0; i < n; ++i) position += " " + std::to_string(0.1 + 0.05 * i);
    const std::string text = std::string("(mechanism \"j\" (gravity 0 0 -9.81)\n") +
                             "  (body a (mass 1) (shape sphere 0.1) (joint fixed (parent-anchor 0.1 0.2 1) (offset 0.9 0.1 0.3 0.2))\n"
                             "    (body b (mass 2) (shape box 0.1 0.2 0.3)\n"
                             "      (joint " + kind.name + " (axis 0.3 0.5 0.8) (offset 0.8 0.4 -0.2 0.1)\n"
                             "        (parent-anchor 0.2 -0.1 0.3) (child-anchor 0.05 0.1 -0.2)" +
                             (n > 0 ? " (position" + position + ")" : "") + "))))\n";
    const Parsed p = parse(text);
    const int b = bodyIndex(p, "b");
    const DragHandles h = dragHandles(p.result, b, DragMode::Joint);
    if (n == 0) {
      QVERIFY(h.handles.empty());
      QVERIFY(h.refusal.find("fixed") != std::string::npos);
      continue;
    }
    QCOMPARE(int(h.handles.size()), kind.freeTranslational() + (kind.freeRotational() == 1 ? 1 : kind.freeRotational() == 3 ? 3 : 0));
    const State s0 = initial(p);
    for (size_t i = 0; i < h.handles.size(); ++i) {
      const DragHandle& d = h.handles[i];
      // The written number it changes: coordinate i, except within a rotation vector.
      if (kind.freeRotational() == 3 && int(i) >= kind.freeTranslational()) QVERIFY(std::isnan(d.value));
      else QCOMPARE(d.value, 0.1 + 0.05 * double(i));
      const double amount = d.rotate ? 0.3 : 0.07;
      const MechEdit e = dragEdit(p.doc, p.result, h, int(i), amount);
      QVERIFY2(e.ok, (kind.name + std::string(": ") + e.error).c_str());
      BodyState expected = s0.bodies[size_t(b)];
      if (d.rotate) {
        const Vec4 r = quat::fromAxisAngle(d.direction, amount);
        expected.x = d.origin + quat::rotate(r, expected.x - d.origin);
        expected.q = quat::mul(r, expected.q);
      } else {
        expected.x += amount * d.direction;
      }
      const double off = poseDistance(initial(parse(e.doc.text())).bodies[size_t(b)], expected);
      if (!(off <= 1e-9)) qWarning("%s, %s by %g: the body starts %.3g away from the dragged pose", kind.name, d.label.c_str(), amount, off);
      QVERIFY(off <= 1e-9);
    }
  }
}

void TestMechDrag::freeBodyPoseIsWrittenOrAdded() {
  const Parsed p = parse("(mechanism \"m\"\n  (body box (mass 1) (shape box 0.2 0.2 0.2)\n    (position 0 0 1)))\n");
  const DragHandles h = dragHandles(p.result, 0, DragMode::Joint);
  QCOMPARE(h.joint, -1);
  QCOMPARE(int(h.handles.size()), 6);
  // Along z: its (position …) rewritten.
  MechEdit e = dragEdit(p.doc, p.result, h, 2, 0.5);
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY(e.doc.text().find("(position 0 0 1.5)") != std::string::npos);
  // About z: a (rotation …) added after its name, the position kept.
  e = dragEdit(p.doc, p.result, h, 5, 0.25);
  QVERIFY2(e.ok, e.error.c_str());
  QCOMPARE(e.doc.text(), std::string("(mechanism \"m\"\n  (body box\n    (rotation 0 0 0.25) (mass 1) (shape box 0.2 0.2 0.2)\n"
                                     "    (position 0 0 1)))\n"));
  // The anchor modifier on a free body: nothing to move.
  QVERIFY(dragHandles(p.result, 0, DragMode::Anchor).refusal.find("has no joint") != std::string::npos);
}

void TestMechDrag::expressionsAndFixedJointsAreRefused() {
  // The box drop writes its height as an expression: the drag does not replace it.
  const Parsed drop = parse(test::sourceText("models/box-drop.mech"));
  const DragHandles h = dragHandles(drop.result, 0, DragMode::Joint);
  const MechEdit e = dragEdit(drop.doc, drop.result, h, 2, 0.1);
  QVERIFY(!e.ok);
  QVERIFY2(e.error.find("(position 0 0 (+ height 0.25))") != std::string::npos, e.error.c_str());
  QCOMPARE(e.doc.text(), drop.doc.text());
  // The four-bar's ground is welded: no handle along its joint, but its anchor moves.
  const Parsed bar = parse(test::sourceText("models/four-bar.mech"));
  const int ground = bodyIndex(bar, "ground");
  const DragHandles fixed = dragHandles(bar.result, ground, DragMode::Joint);
  QVERIFY(fixed.handles.empty());
  QCOMPARE(fixed.refusal, std::string("joint 'weld' is fixed: hold the anchor modifier to move its point"));
  QCOMPARE(int(dragHandles(bar.result, ground, DragMode::Anchor).handles.size()), 3);
  // The coupler's velocity is an expression, but a drag writes its position only.
  const DragHandles coupler = dragHandles(bar.result, bodyIndex(bar, "coupler"), DragMode::Joint);
  QVERIFY(dragEdit(bar.doc, bar.result, coupler, 0, 0.2).ok);
}

void TestMechDrag::rangesAndReferencesOfOneCoordinateJoints() {
  // A pendulum hanging from a revolute about x with stops, and a slider with its travel.
  const Parsed p = parse("(mechanism \"m\" (gravity 0 0 -9.81)\n"
                         "  (body arm (mass 1) (shape box 0.05 0.05 0.5)\n"
                         "    (joint revolute hinge (axis 1 0 0) (child-anchor 0 0 0.25) (position 0.3) (lower -0.5) (upper 1.2)))\n"
                         "  (body slider (mass 1) (shape box 0.1 0.1 0.1)\n"
                         "    (joint prismatic rail (axis 0 1 0) (parent-anchor 1 0 0) (position 0.1) (lower -0.2) (upper 0.4))))\n");
  const DragHandles arm = dragHandles(p.result, 0, DragMode::Joint);
  QCOMPARE(int(arm.handles.size()), 1);
  QCOMPARE(arm.handles[0].lower, -0.5);
  QCOMPARE(arm.handles[0].upper, 1.2);
  // The reference points from the hinge to the arm's centre of mass, across the axis.
  const State s = initial(p);
  const Vec3 toCom = (s.bodies[0].x - arm.handles[0].origin).normalized();
  QVERIFY((arm.handles[0].reference - toCom).norm() <= 1e-12);
  QVERIFY(std::abs(arm.handles[0].reference.dot(arm.handles[0].direction)) <= 1e-12);
  const DragHandles rail = dragHandles(p.result, 1, DragMode::Joint);
  QCOMPARE(int(rail.handles.size()), 1);
  QCOMPARE(rail.handles[0].lower, -0.2);
  QCOMPARE(rail.handles[0].upper, 0.4);
  QCOMPARE(rail.handles[0].value, 0.1);
  // The four-bar's crank has its centre of mass on its axis: the reference is a frame axis across it.
  const Parsed bar = parse(test::sourceText("models/four-bar.mech"));
  const DragHandles crank = dragHandles(bar.result, bodyIndex(bar, "crank"), DragMode::Joint);
  QVERIFY(std::abs(crank.handles[0].reference.norm() - 1) <= 1e-12);
  QVERIFY(std::abs(crank.handles[0].reference.dot(crank.handles[0].direction)) <= 1e-12);
  QVERIFY(std::isinf(crank.handles[0].lower) && std::isinf(crank.handles[0].upper));
}

void TestMechDrag::resizeHandlesChangeOneSizeNumber() {
  const Parsed p = parse(test::sourceText("models/four-bar.mech"));
  const int crank = bodyIndex(p, "crank");
  const DragHandles h = dragHandles(p.result, crank, DragMode::Resize);
  QVERIFY2(h.refusal.empty(), h.refusal.c_str());
  // The disc (cylinder 0.12 0.02 turned onto x): its radius and its length, the length along world x.
  QCOMPARE(int(h.handles.size()), 2);
  QCOMPARE(h.handles[0].label, std::string("body 'crank' radius"));
  QCOMPARE(h.handles[0].value, 0.12);
  QCOMPARE(h.handles[1].value, 0.02);
  QCOMPARE(h.handles[1].gain, 2.0);
  QVERIFY((h.handles[1].direction.cwiseAbs() - Vec3::UnitX()).norm() <= 1e-12);
  // The end face sits half the length out from the disc's centre.
  const State s = initial(p);
  QVERIFY(std::abs((h.handles[1].origin - s.bodies[size_t(crank)].x).norm() - 0.01) <= 1e-12);
  MechEdit e = dragEdit(p.doc, p.result, h, 0, 0.03);
  QVERIFY2(e.ok, e.error.c_str());
  const SourceRef& size = p.result.map.bodies[size_t(crank)].visuals[0].properties.at("size").values[0];
  QCOMPARE(e.doc.text().substr(0, size.begin), p.doc.text().substr(0, size.begin));
  QCOMPARE(e.doc.text().substr(size.begin, 4), std::string("0.15"));
  QCOMPARE(parse(e.doc.text()).result.model.bodies[size_t(crank)].visuals[0].size.x(), 0.15);
  // Not below zero.
  e = dragEdit(p.doc, p.result, h, 1, -0.05);
  QVERIFY(!e.ok);
  QVERIFY2(e.error.find("sizes must be positive") != std::string::npos, e.error.c_str());
  // A box: three sides.
  const Parsed box = parse("(mechanism \"m\" (body b (mass 1) (shape box 0.2 0.1 0.1 (at 0.1 0 0)) (position 0 0 1)))\n");
  const DragHandles bh = dragHandles(box.result, 0, DragMode::Resize);
  QCOMPARE(int(bh.handles.size()), 3);
  QVERIFY((bh.handles[0].origin - Vec3(0.2, 0, 1)).norm() <= 1e-12);  // the +x face of the shape placed at x = 0.1
  e = dragEdit(box.doc, box.result, bh, 0, 0.1);
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY(e.doc.text().find("(shape box 0.3 0.1 0.1 (at 0.1 0 0))") != std::string::npos);
}

void TestMechDrag::bodiesAreAddedWhereClicked() {
  Parsed p = parse("(mechanism \"m\"\n  (gravity 0 0 -9.81))\n");
  ShapeDesc box;
  box.kind = ShapeDesc::Kind::Box;
  box.size = Vec3(0.2, 0.1, 0.1);
  // On the ground with a fixed joint: welded to the world there (no axis), resting on the point, and
  // no ground plane comes with it (it cannot fall).
  MechEdit w = addBodyAt(p.doc, p.result, "base", box, -1, JointType::Fixed, Vec3(0, 0.2, 0), Vec3::UnitZ());
  QVERIFY2(w.ok, w.error.c_str());
  QVERIFY2(w.doc.text().find("(body base\n    (mass 1)\n    (shape box 0.2 0.1 0.1)\n    (joint fixed base-joint\n"
                             "      (parent-anchor 0 0.2 0)\n      (child-anchor 0 0 -0.05))))") != std::string::npos,
           w.doc.text().c_str());
  QVERIFY((initial(parse(w.doc.text())).bodies[0].x - Vec3(0, 0.2, 0.05)).norm() <= 1e-15);
  // On the ground without a joint: a free body resting on it.
  QCOMPARE(freeBodyName(p.result.model, "box"), std::string("box1"));
  MechEdit e = addBodyAt(p.doc, p.result, "box1", box, -1, std::nullopt, Vec3(0.3, 0.1, 0), Vec3::UnitZ());
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY2(e.doc.text().find("(body box1\n    (mass 1)\n    (shape box 0.2 0.1 0.1)\n    (position 0.3 0.1 0.05))\n  (ground ground)") !=
               std::string::npos,
           e.doc.text().c_str());
  p = parse(e.doc.text());
  QCOMPARE(freeBodyName(p.result.model, "box"), std::string("box2"));
  // On the box's end face (x = 0.4): a sphere on a revolute joint about x, at that point.
  ShapeDesc ball;
  ball.kind = ShapeDesc::Kind::Sphere;
  ball.size = Vec3(0.05, 0, 0);
  e = addBodyAt(p.doc, p.result, "ball1", ball, 0, JointType::Revolute, Vec3(0.4, 0.1, 0.05), Vec3::UnitX());
  QVERIFY2(e.ok, e.error.c_str());
  p = parse(e.doc.text());
  const int k = p.result.model.jointIndex("ball1-joint");
  QVERIFY(k >= 0);
  QCOMPARE(p.result.model.joints[size_t(k)].parent, 0);
  QVERIFY((p.result.model.joints[size_t(k)].axis - Vec3::UnitX()).norm() <= 1e-15);
  const State s = initial(p);
  QVERIFY((s.bodies[1].x - Vec3(0.45, 0.1, 0.05)).norm() <= 1e-12);  // just outside the face
  // A name taken, or no shape: refused, the text unchanged.
  QVERIFY((s.bodies[1].q - s.bodies[0].q).norm() <= 1e-15);     // turned as its parent
  // Without a joint on a body: a free body resting on it, at the top level.
  e = addBodyAt(p.doc, p.result, "box2", box, 0, std::nullopt, Vec3(0.3, 0.1, 0.1), Vec3::UnitZ());
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY2(e.doc.text().find("\n  (body box2\n    (mass 1)\n    (shape box 0.2 0.1 0.1)\n    (position 0.3 0.1 0.15))") !=
               std::string::npos,
           e.doc.text().c_str());
  QVERIFY(!addBodyAt(p.doc, p.result, "box1", box, -1, std::nullopt, Vec3::Zero(), Vec3::UnitZ()).ok);
  QVERIFY(!addBodyAt(p.doc, p.result, "x", ShapeDesc{}, -1, std::nullopt, Vec3::Zero(), Vec3::UnitZ()).ok);
}

void TestMechDrag::connectingNestsAFreeBodyOrClosesALoop() {
  const Parsed p = parse("(mechanism \"m\"\n  (gravity 0 0 -9.81)\n"
                         "  (body a (mass 1) (shape box 0.2 0.1 0.1) (position 0 0 1))\n"
                         "  (body b (mass 1) (shape box 0.2 0.1 0.1) (position 0.5 0 1) (rotation 0 0 0.3)))\n");
  // a's end (0.1, 0, 1) to b's end: b moves under a with the joint; the points then coincide.
  const Vec3 pa(0.1, 0, 1), pb = Vec3(0.5, 0, 1) + quat::rotate(quat::fromRotationVector(Vec3(0, 0, 0.3)), Vec3(-0.1, 0, 0));
  MechEdit e = connectBodies(p.doc, p.result, "hinge", JointType::Revolute, 0, pa, 1, pb, Vec3::UnitY());
  QVERIFY2(e.ok, e.error.c_str());
  const Parsed q = parse(e.doc.text());
  const int k = q.result.model.jointIndex("hinge");
  QVERIFY(k >= 0);
  QCOMPARE(q.result.model.joints[size_t(k)].parent, q.result.model.bodyIndex("a"));
  QCOMPARE(q.result.model.joints[size_t(k)].child, q.result.model.bodyIndex("b"));
  const State s = initial(q);
  const BodyState& b = s.bodies[size_t(q.result.model.bodyIndex("b"))];
  const Vec3 bEnd = b.x + quat::rotate(b.q, Vec3(-0.1, 0, 0));
  QVERIFY((bEnd - pa).norm() <= 1e-12);  // b's end on a's
  // b keeps its orientation (the joint's offset), its hinge along world y.
  QVERIFY(quat::toRotationVector(quat::mul(quat::conj(b.q), quat::fromRotationVector(Vec3(0, 0, 0.3)))).norm() <= 1e-12);
  // b hangs on a now: joining it to the world is a loop joint, left open until assembled.
  e = connectBodies(q.doc, q.result, "to-world", JointType::Spherical, -1, Vec3(0.6, 0, 1), q.result.model.bodyIndex("b"),
                    Vec3(0.6, 0, 1), Vec3::UnitZ());
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY(e.doc.text().find("(loop-joint to-world spherical world b") != std::string::npos);
  // A revolute about z between a and b (turned 0.3 about z): no offset, b keeps its orientation as
  // the joint's angle 0.3.
  e = connectBodies(p.doc, p.result, "turn", JointType::Revolute, 0, pa, 1, pb, Vec3::UnitZ());
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY2(e.doc.text().find("(offset") == std::string::npos && e.doc.text().find("(position 0.3)") != std::string::npos,
           e.doc.text().c_str());
  const Parsed t = parse(e.doc.text());
  const State st = initial(t);
  const BodyState& bt = st.bodies[size_t(t.result.model.bodyIndex("b"))];
  QVERIFY(quat::toRotationVector(quat::mul(quat::conj(bt.q), quat::fromRotationVector(Vec3(0, 0, 0.3)))).norm() <= 1e-12);
  QVERIFY((bt.x + quat::rotate(bt.q, Vec3(-0.1, 0, 0)) - pa).norm() <= 1e-12);
  // A fixed joint: no axis written.
  e = connectBodies(p.doc, p.result, "weld", JointType::Fixed, 0, pa, 1, pb, Vec3::UnitZ());
  QVERIFY2(e.ok && e.doc.text().find("(joint fixed weld\n      (offset") != std::string::npos, e.doc.text().c_str());
  // A body jointed to itself: refused.
  e = connectBodies(q.doc, q.result, "self", JointType::Revolute, 0, pa, 0, pa, Vec3::UnitY());
  QVERIFY(!e.ok);
  QCOMPARE(e.error, std::string("a body cannot be jointed to itself"));
}

QTEST_GUILESS_MAIN(TestMechDrag)
#include "tst_mech_drag.moc"
