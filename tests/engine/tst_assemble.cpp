// SPDX-License-Identifier: GPL-3.0-or-later
// Assemble (issue 34; io/mech_assemble.h, system/assemble.h, mech_edit's setJointCoordinates): an
// open four-bar is closed and its joints' coordinates written as the engine's projected state at
// t = 0 has them (within 1e-9 rad), so the written file starts, and moves, exactly as the open one
// does; a consistent file comes back byte for byte; a loop that cannot close names its worst joint;
// angles keep their turns; edits replace or add (position …)/(velocity …) and nothing else.
#include <QTest>

#include "io/mech_assemble.h"
#include "io/mech_edit.h"
#include "io/mech_reader.h"
#include "simulation.h"
#include "system/assemble.h"
#include "system/compiled_system.h"
#include "system/initial_conditions.h"
#include "model_text.h"
#include "test_paths.h"

using namespace ms;

namespace {

using Parsed = test::ParsedMech;
Parsed parse(const std::string& text) { return test::parseMechDocument(text); }
std::string fileText(const std::string& relative) { return test::sourceText(relative); }

}  // namespace

class TestAssemble : public QObject {
  Q_OBJECT
 private slots:
  void openFourBarIsClosedAndWritten();
  void consistentFileIsUnchanged();
  void impossibleLoopNamesItsJoint();
  void anglesKeepTheirTurns();
  void coordinatesAreReplacedOrAdded();
  void heldBodyStaysWhereItIsWritten();
};

void TestAssemble::openFourBarIsClosedAndWritten() {
  // Joint positions 0.14–0.16 rad off and the loop joint's anchor 2 cm off its axis.
  const Parsed open = parse(fileText("tests/data/mech/four-bar-open.mech"));
  const MechAssembly a = assembleMech(open.doc, open.result, {});
  QVERIFY2(a.ok, a.error.c_str());
  QCOMPARE(int(a.changed.size()), 4);
  // The written coordinates are the open model's projected state at t = 0.
  const auto sysOpen = compile(open.result.model);
  const State s0 = makeInitialState(*sysOpen, sysOpen->model);
  const std::vector<JointCoordinates> engine = jointCoordinates(*sysOpen, s0);
  const Parsed closed = parse(a.doc.text());
  double worst = 0;
  for (size_t k = 0; k < engine.size(); ++k) {
    const JointDesc& j = closed.result.model.joints[k];
    QCOMPARE(j.initialPosition.size(), engine[k].position.size());
    for (size_t i = 0; i < j.initialPosition.size(); ++i) {
      worst = std::max(worst, std::abs(j.initialPosition[i] - engine[k].position[i]));
      QVERIFY(std::abs(j.initialVelocity[i] - engine[k].velocity[i]) <= 1e-12 * std::max(1.0, std::abs(engine[k].velocity[i])));
    }
  }
  qInfo("open four-bar: written positions within %.2g rad of the projected state; the result's own check %.2g", worst, a.check);
  QVERIFY(worst <= 1e-9);
  QVERIFY(a.check <= 1e-9);
  // The closed file needs no projection and moves as the open one does: 300 steps within 1e-9 m.
  Simulation simOpen(sysOpen), simClosed(compile(closed.result.model));
  for (size_t i = 0; i < simOpen.state().bodies.size(); ++i)
    QVERIFY((simOpen.state().bodies[i].x - simClosed.state().bodies[i].x).norm() <= 1e-12);
  double apart = 0;
  for (int k = 0; k < 300; ++k) {
    QVERIFY(simOpen.step());
    QVERIFY(simClosed.step());
    for (size_t i = 0; i < simOpen.state().bodies.size(); ++i)
      apart = std::max(apart, (simOpen.state().bodies[i].x - simClosed.state().bodies[i].x).norm());
  }
  qInfo("open and assembled four-bar over 300 steps: %.2g m apart", apart);
  QVERIFY(apart <= 1e-9);
  // Assembled once, nothing moves a second time.
  const MechAssembly again = assembleMech(closed.doc, closed.result, {});
  QVERIFY(again.ok);
  QCOMPARE(int(again.changed.size()), 0);
  QCOMPARE(again.doc.text(), a.doc.text());
}

// The gallery's four-bar with the coupler, rocker and loop joint off (0.14–0.16 rad) and at rest,
// assembled holding the crank: the crank keeps its written angle and rate, and the others come out
// as the gallery's consistent numbers (its loop-closure solution for that crank angle and rate).
void TestAssemble::heldBodyStaysWhereItIsWritten() {
  const std::string gallery = fileText("models/four-bar.mech");
  std::string text = gallery;
  const auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    QVERIFY2(at != std::string::npos, from.c_str());
    text.replace(at, from.size(), to);
  };
  replace("(position -0.662342367070235)", "(position -0.5)");
  replace("(velocity (* -1.1656165910524088 omega))", "(velocity 0)");
  replace("(position 0.2625960088527454)", "(position 0.4)");
  replace("(velocity (* 0.21649228654219144 omega))", "(velocity 0)");
  replace("(position 1.2433383759229804) (velocity (* 0.38210887759460024 omega))", "(position 1.1) (velocity 0)");
  const Parsed off = parse(text), reference = parse(gallery);
  const MechAssembly a = assembleMech(off.doc, off.result, {}, {"crank"});
  QVERIFY2(a.ok, a.error.c_str());
  QCOMPARE(int(a.changed.size()), 3);  // the crank's joint is not among them
  const Parsed closed = parse(a.doc.text());
  const auto sys = compile(reference.result.model);
  const std::vector<JointCoordinates> expected = jointCoordinates(*sys, makeInitialState(*sys, sys->model));
  double dq = 0, dv = 0;
  for (size_t k = 0; k < expected.size(); ++k) {
    const JointDesc& j = closed.result.model.joints[k];
    const std::vector<double> q = expandedCoordinates(j.initialPosition, expected[k].position.size()),
                              v = expandedCoordinates(j.initialVelocity, expected[k].position.size());
    for (size_t i = 0; i < q.size(); ++i) {
      dq = std::max(dq, std::abs(q[i] - expected[k].position[i]));
      dv = std::max(dv, std::abs(v[i] - expected[k].velocity[i]));
    }
  }
  qInfo("four-bar assembled holding the crank: positions %.2g rad, rates %.2g rad/s from the gallery's", dq, dv);
  QVERIFY(dq <= 1e-12);
  QVERIFY(dv <= 1e-10);
  // A held body whose own motion at its joints' rates the mechanism cannot make to second order
  // (the slider-crank's rod, translating on the crank's circle while its other end stays on the
  // guide): its pose is held, its velocity follows the others'. The consistent file stays as it is.
  const std::string sliderCrank = fileText("models/slider-crank.mech");
  const Parsed sc = parse(sliderCrank);
  const MechAssembly rod = assembleMech(sc.doc, sc.result, {}, {"rod"});
  QVERIFY2(rod.ok, rod.error.c_str());
  QCOMPARE(int(rod.changed.size()), 0);
  QCOMPARE(rod.doc.text(), sliderCrank);
  // A name that is no body: refused, nothing written.
  const MechAssembly none = assembleMech(off.doc, off.result, {}, {"cranck"});
  QVERIFY(!none.ok);
  QVERIFY2(none.error.find("no body of that name") != std::string::npos, none.error.c_str());
  QCOMPARE(none.doc.text(), off.doc.text());
}

void TestAssemble::consistentFileIsUnchanged() {
  // The gallery's four-bar (expressions in omega for the rates) is consistent: byte for byte.
  const std::string text = fileText("models/four-bar.mech");
  const Parsed p = parse(text);
  const MechAssembly a = assembleMech(p.doc, p.result, {});
  QVERIFY2(a.ok, a.error.c_str());
  QCOMPARE(int(a.changed.size()), 0);
  QCOMPARE(a.doc.text(), text);
}

void TestAssemble::impossibleLoopNamesItsJoint() {
  const Parsed p = parse(fileText("tests/data/mech/four-bar-impossible.mech"));
  const MechAssembly a = assembleMech(p.doc, p.result, {});
  QVERIFY(!a.ok);
  QVERIFY2(a.error.find("joint 'rocker-pivot' stays 0.65") != std::string::npos, a.error.c_str());
  QCOMPARE(a.doc.text(), p.doc.text());
}

void TestAssemble::anglesKeepTheirTurns() {
  // A hinge given 7 rad (more than a turn) reads back as 7, not 7 − 2π; a ball joint's rotation
  // vector given beyond π likewise (the same rotation, the representation nearest the given one).
  const Parsed p = parse(R"((mechanism "turns"
  (body a (mass 1) (shape box 0.1 0.1 0.1)
    (joint revolute hinge (axis 1 0 0) (child-anchor 0 0 0.5) (position 7) (velocity 1))
    (body b (mass 1) (shape box 0.1 0.1 0.1)
      (joint spherical ball (parent-anchor 0 0 -0.5) (child-anchor 0 0 0.5) (position 0 0 4))))))");
  const auto sys = compile(p.result.model);
  const std::vector<JointCoordinates> c = jointCoordinates(*sys, makeInitialState(*sys, sys->model));
  QVERIFY2(std::abs(c[0].position[0] - 7.0) <= 1e-12, qPrintable(QString::number(c[0].position[0])));
  QVERIFY(std::abs(c[0].velocity[0] - 1.0) <= 1e-9);
  QVERIFY2(std::abs(c[1].position[2] - 4.0) <= 1e-12 && std::abs(c[1].position[0]) <= 1e-12,
           qPrintable(QString("%1 %2 %3").arg(c[1].position[0]).arg(c[1].position[1]).arg(c[1].position[2])));
  const MechAssembly a = assembleMech(p.doc, p.result, {});
  QVERIFY(a.ok);
  QCOMPARE(int(a.changed.size()), 0);
}

void TestAssemble::coordinatesAreReplacedOrAdded() {
  const std::string text = R"((mechanism "m"
  (body a (mass 1) (shape box 0.1 0.1 0.1)
    (joint revolute j1 (axis 1 0 0) ; hinge
      (position (/ pi 4)))       ; a comment after it
    (body b (mass 1) (shape box 0.1 0.1 0.1)
      (joint revolute j2 (axis 1 0 0) (parent-anchor 0 0 -0.5)))))
)";
  Parsed p = parse(text);
  const std::vector<double> pos = {0.5}, vel = {-2.0};
  MechEdit e = setJointCoordinates(p.doc, p.result, 0, &pos, nullptr);
  QVERIFY2(e.ok, e.error.c_str());
  QVERIFY(e.doc.text().find("(position 0.5))       ; a comment after it") != std::string::npos);
  QVERIFY(e.doc.text().find("; hinge") != std::string::npos);
  p = parse(e.doc.text());
  e = setJointCoordinates(p.doc, p.result, 1, &pos, &vel);
  QVERIFY2(e.ok, e.error.c_str());
  p = parse(e.doc.text());
  QCOMPARE(p.result.model.joints[1].initialPosition, pos);
  QCOMPARE(p.result.model.joints[1].initialVelocity, vel);
  QCOMPARE(p.result.model.joints[0].initialPosition, pos);
  QVERIFY(p.result.model.joints[0].initialVelocity.empty());
  // Joints made by chain are refused (their text is a shared template), the text unchanged.
  const Parsed chain = parse(fileText("models/chain.mech"));
  const MechEdit r = setJointCoordinates(chain.doc, chain.result, 1, &pos, nullptr);
  QVERIFY(!r.ok);
  QVERIFY2(r.error.find("repeat/chain") != std::string::npos, r.error.c_str());
  QCOMPARE(r.doc.text(), chain.doc.text());
}

QTEST_GUILESS_MAIN(TestAssemble)
#include "tst_assemble.moc"
