// SPDX-License-Identifier: GPL-3.0-or-later
// Automatic collisions (issue 16; system/collision_pairs.h): bodies collide without contact-pairs,
// except joined, excluded, masked (contype/conaffinity) and initially overlapping pairs; a pair
// missed by the broad phase is caught after the step and the step solved again; states of
// another pair set are restored exactly; contact signals follow the pairs. Penetration is measured
// independently of the solver, by the bodies' signed distance over every pair of bodies.
#include <QTest>

#include <cmath>

#include "sanitizer_build.h"
#include "core/diagnostics.h"
#include "io/mech_reader.h"
#include "scenes/scenes.h"
#include "signals/signals.h"
#include "model_text.h"
#include "simulation.h"
#include "system/collision_pairs.h"
#include "system/compiled_system.h"
#include "test_paths.h"

using namespace ms;

namespace {



// A block on the ground, a tilted cube dropped on it, a sphere and a capsule dropped on that;
// `extra` is appended inside the mechanism.
std::string dropText(const std::string& extra = "") {
  return "(mechanism \"drop\"\n"
         "  (ground floor)\n"
         "  (body base (mass 10) (shape box 0.5 0.5 0.2) (position 0 0 0.1))\n"
         "  (body cube (mass 1) (shape box 0.2 0.2 0.2) (position 0.05 0 0.6) (rotation 0.3 0.2 0.1))\n"
         "  (body ball (mass 0.5) (shape sphere 0.08) (position -0.1 0.05 1.0))\n"
         "  (body pin (mass 0.3) (shape capsule 0.03 0.2) (position 0.1 -0.05 1.4) (rotation 1.4 0 0.3))\n" +
         extra + ")\n";
}

// The deepest overlap of any two bodies that may collide, exactly (bodyDistance), ≥ 0.
double worstOverlap(const Simulation& sim) {
  const CompiledSystem& sys = sim.system();
  double worst = 0;
  for (size_t i = 0; i < sys.bodies.size(); ++i)
    for (size_t j = i + 1; j < sys.bodies.size(); ++j)
      if (sys.mayCollide(int(i), int(j))) worst = std::max(worst, -bodyDistance(sys, int(i), int(j), sim.state()));
  return worst;
}

// Runs `steps` steps; every step must succeed. Returns the worst overlap between bodies and the
// worst penetration of the grounds (metrics) seen.
std::pair<double, double> run(Simulation& sim, int steps) {
  double overlap = 0, ground = 0;
  for (int k = 0; k < steps; ++k) {
    if (!sim.step()) qFatal("%s", sim.metrics().message.c_str());
    overlap = std::max(overlap, worstOverlap(sim));
    ground = std::max(ground, sim.metrics().penetration);
  }
  return {overlap, ground};
}

double z(const Simulation& sim, const std::string& body) { return sim.state().bodies[size_t(sim.system().model.bodyIndex(body))].x.z(); }

}  // namespace

class TestAutoCollisions : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void bodiesCollideWithoutContactPairs();
  void exclusionsAndMasksLetBodiesPass();
  void joinedAndOverlappingPairsAreLeftOut();
  void aPairMissedByTheBroadPhaseIsSolvedAgain();
  void statesOfOtherPairsAreRestored();
  void contactSignalsFollowThePairs();
  void baselinesUseTheModelsContacts();
  void spheresInABoxNeverOverlap();
};

void TestAutoCollisions::bodiesCollideWithoutContactPairs() {
  // No contact-pair: the cube lands on the block, the sphere and the capsule on them; 3 s.
  Simulation sim(compile(test::parseMech(dropText())));
  QVERIFY(sim.system().autoCollisions);
  const auto [overlap, ground] = run(sim, 300);
  qInfo("overlap between bodies %.3g m, with the ground %.3g m, %ld pair changes, %zu pairs at the end", overlap, ground,
        sim.pairChanges(), sim.state().autoPairs.size());
  QVERIFY(overlap <= 1e-6);
  QVERIFY(ground <= 1e-6);
  QVERIFY(z(sim, "cube") > 0.29);  // on the block's top (0.2 m), not through it
  QVERIFY(z(sim, "ball") >= 0.08 - 1e-6);  // on something (it may roll off the block)
  QVERIFY(z(sim, "pin") >= 0.03 - 1e-6);
  QVERIFY(!sim.state().autoPairs.empty());
  QCOMPARE(sim.contactSystem().autoPairs.size(), sim.state().autoPairs.size());
  QVERIFY(sim.system().contactGroups.size() < sim.contactSystem().contactGroups.size());
  QVERIFY(sim.contactSystem().base.get() == &sim.system());
  QCOMPARE(sim.contactSystem().contacts.size(), sim.state().contactImpulse.size());
}

void TestAutoCollisions::exclusionsAndMasksLetBodiesPass() {
  // (exclude base cube): the cube falls through the block onto the ground; the ball's contype and
  // conaffinity (2) match nobody's (1): it falls through everything onto the ground.
  const std::string text = dropText("  (exclude base cube)\n");
  Model m = test::parseMech(text);
  QCOMPARE(int(m.exclusions.size()), 1);
  BodyDesc& ball = m.bodies[size_t(m.bodyIndex("ball"))];
  ball.contype = ball.conaffinity = 2;
  Simulation sim(compile(m));
  QVERIFY(!sim.system().mayCollide(m.bodyIndex("base"), m.bodyIndex("cube")));
  QVERIFY(!sim.system().mayCollide(m.bodyIndex("ball"), m.bodyIndex("base")));
  QVERIFY(sim.system().mayCollide(m.bodyIndex("pin"), m.bodyIndex("base")));
  run(sim, 300);
  QVERIFY(std::abs(z(sim, "cube") - 0.1) < 1e-3);   // resting on the ground, inside the block
  QVERIFY(std::abs(z(sim, "ball") - 0.08) < 1e-3);  // likewise
  for (const BodyPair& p : sim.state().autoPairs) QVERIFY(sim.system().mayCollide(p.a, p.b));
  // (collisions pairs): nothing collides but the ground.
  Model pairs = test::parseMech(dropText("  (collisions pairs)\n"));
  QCOMPARE(pairs.collisions, CollisionMode::Pairs);
  Simulation none(compile(pairs));
  run(none, 300);
  QVERIFY(std::abs(z(none, "cube") - 0.1) < 0.02);  // on the ground (tilted edges: within 2 cm)
  QVERIFY(none.state().autoPairs.empty());
  QCOMPARE(none.pairChanges(), 0L);
}

void TestAutoCollisions::joinedAndOverlappingPairsAreLeftOut() {
  // Two links on a revolute joint overlap at the joint: excluded without a note. Two free boxes
  // overlapping by 5 cm at the start: left out with a note naming them.
  const std::string text =
      "(mechanism \"m\"\n"
      "  (ground floor)\n"
      "  (body upper (mass 1) (shape capsule 0.05 0.5) (position 0 0 1)\n"
      "    (joint revolute (axis 1 0 0) (parent-anchor 0 0 1.25) (child-anchor 0 0 0.25))\n"
      "    (body lower (mass 1) (shape capsule 0.05 0.5)\n"
      "      (joint revolute (axis 1 0 0) (parent-anchor 0 0 -0.25) (child-anchor 0 0 0.2) (position 1))))\n"
      "  (body a (mass 1) (shape box 0.2 0.2 0.2) (position 2 0 0.1))\n"
      "  (body b (mass 1) (shape box 0.2 0.2 0.2) (position 2.15 0 0.1)))\n";
  const Model m = test::parseMech(text);
  auto sys = compile(m);
  QVERIFY(!sys->mayCollide(m.bodyIndex("upper"), m.bodyIndex("lower")));
  QVERIFY(!sys->mayCollide(m.bodyIndex("a"), m.bodyIndex("b")));
  QVERIFY(sys->mayCollide(m.bodyIndex("lower"), m.bodyIndex("a")));
  int notes = 0;
  for (const std::string& n : sys->notes)
    if (n.find("'a' and 'b' overlap by 0.05") != std::string::npos && n.find("(exclude a b)") != std::string::npos) ++notes;
  QCOMPARE(notes, 1);
  QCOMPARE(int(sys->notes.size()), 1);
  Simulation sim(sys);
  run(sim, 100);
  // 30 spheres drawn at one place: 435 overlapping pairs, all left out; 20 notes name a pair and one
  // counts the other 415.
  std::string pile = "(mechanism \"pile\"\n";
  for (int k = 0; k < 30; ++k) pile += "  (body s" + std::to_string(k) + " (mass 1) (shape sphere 0.1) (position 0 0 1))\n";
  const Model p = test::parseMech(pile + ")\n");
  auto ps = compile(p);
  QCOMPARE(int(ps->notes.size()), 21);
  QVERIFY2(ps->notes.back().find("and 415 more pairs of bodies overlap at the start (435 in all)") != std::string::npos,
           ps->notes.back().c_str());
  QVERIFY(!ps->mayCollide(0, 29));
}

void TestAutoCollisions::aPairMissedByTheBroadPhaseIsSolvedAgain() {
  // A ball at rest pushed by 10⁴ N for one step moves 1 m within it, but its motion bound at the
  // step's start (at rest, no gravity) is 0: the slab 0.5 m away is not a pair for that step. At its
  // end the ball would be inside the slab: the missed pair is added and the step solved again.
  const std::string text =
      "(mechanism \"m\"\n"
      "  (gravity 0 0 0)\n"
      "  (body ball (mass 1) (shape sphere 0.1) (position 0 0 0))\n"
      "  (body slab (mass 1000) (shape box 4 4 4) (position 2.6 0 0)))\n";
  Simulation sim(compile(test::parseMech(text)));
  sim.inputs().force[0] = Vec3(1e4, 0, 0);
  QVERIFY(sim.step());
  // The step solved the ball's velocity with its next knot (x + v Δt) against the slab.
  State next = sim.state();
  for (BodyState& b : next.bodies) b.x += b.v * sim.settings().dt;
  const double d = bodyDistance(sim.system(), 0, 1, next);
  qInfo("at the step's next knot: distance %.3g m, ball at x = %.6f m, %ld pair changes", d, next.bodies[0].x.x(),
        sim.pairChanges());
  QVERIFY(d >= -1e-6);
  QVERIFY(next.bodies[0].x.x() > 0.49);  // it reached the slab's face (0.5 m: 0.6 − 0.1)
  QCOMPARE(int(sim.state().autoPairs.size()), 1);
  QCOMPARE(sim.pairChanges(), 1L);
  sim.inputs().force[0].setZero();
  QVERIFY(sim.step());
  QVERIFY(sim.state().bodies[1].v.x() > 0);  // the slab took the impact
  QVERIFY(bodyDistance(sim.system(), 0, 1, sim.state()) >= -1e-6);
}

void TestAutoCollisions::statesOfOtherPairsAreRestored() {
  // A state saved at 1.5 s (with its pairs) and set again after the run reproduces the run from it.
  Simulation sim(compile(test::parseMech(dropText())));
  run(sim, 50);
  const State saved = sim.state();
  QVERIFY(!saved.autoPairs.empty());
  run(sim, 100);
  const State first = sim.state();
  run(sim, 50);  // further: other pairs
  sim.setState(saved);
  QCOMPARE(sim.contactSystem().autoPairs.size(), saved.autoPairs.size());
  QCOMPARE(sim.state().contactImpulse.size(), sim.contactSystem().contacts.size());
  run(sim, 100);
  double worst = 0;
  for (size_t b = 0; b < first.bodies.size(); ++b)
    worst = std::max(worst, (first.bodies[b].x - sim.state().bodies[b].x).norm());
  qInfo("replayed from the saved state: position difference %.3g m", worst);
  QVERIFY(worst <= 1e-8);
  // A state of the model's own system (no pairs) is accepted as well.
  sim.reset();
  QVERIFY(sim.state().autoPairs.empty());
  QVERIFY(&sim.contactSystem() == &sim.system());
}

void TestAutoCollisions::contactSignalsFollowThePairs() {
  // The catalogue lists the pairs that may collide; the cube resting on the block carries the
  // weight of itself and of whatever lies on it.
  Simulation sim(compile(test::parseMech(dropText())));
  const SignalCatalogue cat(sim.system());
  const int normal = cat.find("contact.base-cube.normal");
  QVERIFY(normal >= 0);
  QVERIFY(cat.find("contact.ball-pin.normal") >= 0);
  run(sim, 300);
  std::vector<double> v;
  cat.evaluate(sim, {normal}, AngleUnit::Radians, v);
  qInfo("contact.base-cube.normal at 3 s: %.6f N", v[0]);
  QVERIFY(v[0] > 9.81 * 1.0 * 0.99);
}

void TestAutoCollisions::baselinesUseTheModelsContacts() {
  // Automatic pairs are the variational integrator's: under RK4 the model's system is stepped.
  Simulation sim(compile(test::parseMech(dropText())));
  run(sim, 60);
  QVERIFY(!sim.state().autoPairs.empty());
  IntegratorOptions rk4;
  rk4.kind = IntegratorKind::RK4;
  rk4.contacts = ContactModel::Soft;
  sim.setIntegrator(rk4);
  QVERIFY(&sim.contactSystem() == &sim.system());
  QVERIFY(sim.state().autoPairs.empty());
  QCOMPARE(sim.state().contactImpulse.size(), sim.system().contacts.size());
  QVERIFY(sim.step());
  QVERIFY(sim.state().autoPairs.empty());
}

void TestAutoCollisions::spheresInABoxNeverOverlap() {
  // The broad-phase scene: 50 spheres rolling and colliding in a box of walls (sanitizer build: 0.2 s).
  Simulation sim(compile(buildScene("spheres-in-box", {{"n", "50"}})));
  const int steps = test::sanitizerBuild() ? 20 : 200;
  const auto [overlap, ground] = run(sim, steps);
  qInfo("50 spheres, %d steps: overlap %.3g m, walls %.3g m, %ld pair changes", steps, overlap, ground, sim.pairChanges());
  QVERIFY(overlap <= 1e-5);
  QVERIFY(ground <= 1e-5);
  QVERIFY(sim.pairChanges() > 0);
}

QTEST_GUILESS_MAIN(TestAutoCollisions)
#include "tst_auto_collisions.moc"
