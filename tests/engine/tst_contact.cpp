// SPDX-License-Identifier: GPL-3.0-or-later
// Rigid contact and friction in the variational step (paper §3.3–3.5, §5.1): the dropped box
// never penetrates and comes to rest on the ground; a box on an incline sticks while tan θ < μ and
// otherwise slides with acceleration g (sin θ − μ cos θ), for planes tilted about x and about y
// (the friction cone is built in the plane's tangent space, not from world axes).
#include <QTest>

#include <cmath>
#include <random>

#include "sanitizer_build.h"
#include "model_text.h"
#include "io/mech_reader.h"
#include "scenes/scenes.h"
#include "allocation_counter.h"
#include "integrator/variational_step.h"
#include "integrator/vi_internal.h"
#include "newton_fd.h"
#include "test_paths.h"
#include "simulation.h"
#include "system/collision_pairs.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {
std::unique_ptr<Simulation> make(const std::string& scene, const std::map<std::string, std::string>& p = {}) {
  return std::make_unique<Simulation>(compile(buildScene(scene, p)));
}

// A model written in the model language (contacts between bodies are `contact-pair` forms).
Model parse(const std::string& text) { return test::parseMech(text); }

// Allocations made by `steps` steps of sim (−1 if a step failed).
long allocationsOf(Simulation& sim, int steps) {
  g_allocations = 0;
  g_countAllocations = true;
  bool ok = true;
  for (int s = 0; s < steps; ++s) ok = sim.step() && ok;
  g_countAllocations = false;
  return ok ? g_allocations.load() : -1L;
}

// Runs until `duration`; every step must converge. Returns the largest penetration (grounds and pairs).
double runFor(Simulation& sim, double duration) {
  double maxPen = 0;
  while (sim.state().time < duration - 1e-9) {
    if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
    maxPen = std::max(maxPen, sim.metrics().penetration);
  }
  return maxPen;
}
}  // namespace

class TestContact : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // §5.1: 0.5 m, 1 kg cube from 0.4 m, Δt = 0.01, 3 s.
  void boxDropStopsOnTheGround() {
    auto sim = make("box-drop");
    QCOMPARE(int(sim->system().contacts.size()), 8);  // the box's corners
    double maxPen = 0;
    long iters = 0;
    int steps = 0;
    while (sim->state().time < 3.0 - 1e-9) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      maxPen = std::max(maxPen, sim->metrics().penetration);
      iters += sim->metrics().iterations;
      ++steps;
    }
    const BodyState& b = sim->state().bodies[0];
    double bottom = 1e9;
    for (double g : sim->state().contactGap) bottom = std::min(bottom, g);
    const double speed = b.v.norm();
    qInfo("box-drop: max penetration %.3g m, final speed %.3g m/s, bottom face at %.3g m, %d active contacts, "
          "mean %.2f interior-point iterations per step",
          maxPen, speed, bottom, sim->metrics().contacts, double(iters) / steps);
    QVERIFY(maxPen <= 1e-5);
    QVERIFY(speed < 1e-6);
    QVERIFY(std::abs(bottom) < 1e-4);
    QVERIFY(std::abs(b.x.z() - 0.25) < 1e-4);
    QCOMPARE(sim->metrics().contacts, 4);  // resting on its bottom face
    QVERIFY(double(iters) / steps <= 15);
  }

  // The Newton matrix with contacts (impulses on the bodies, rows φ(z2), μγ − Σβ, Bż + ψ) equals
  // central finite differences of the residual, at random velocities and impulses, on a tilted plane.
  void newtonMatrixMatchesFiniteDifferences() {
    auto sys = compile(buildScene("box-incline", {{"angle_deg", "25"}, {"tilt_axis", "y"}}));
    Simulation sim(sys);
    for (int s = 0; s < 3; ++s) QVERIFY(sim.step());  // a state with velocities
    // The contact compliance (ε_n·γ, ε_f·ψ, ε_f·β) is part of the residual: no correction.
    bool ok = false;
    const double worst = test::worstNewtonError(sys, sim, 7, ok);
    QVERIFY(ok);
    qInfo("contact Newton matrix vs finite differences: worst relative error %.3g", worst);
    QVERIFY(worst < 1e-6);
  }

  // §5.2: the sphere chain falls onto the ground from 45°: every step converges, nothing penetrates
  // more than 1e-4 m, the joints stay closed, no NaN.
  void runSphereChain(int n, double duration) {
    auto sim = make("sphere-chain", {{"n", std::to_string(n)}});
    double maxPen = 0, maxViol = 0;
    long iters = 0;
    int steps = 0, maxContacts = 0, maxIters = 0;
    while (sim->state().time < duration - 1e-9) {
      QVERIFY2(sim->step(), ("n = " + std::to_string(n) + ": " + sim->metrics().message).c_str());
      maxPen = std::max(maxPen, sim->metrics().penetration);
      maxViol = std::max(maxViol, sim->metrics().constraintViolation);
      maxContacts = std::max(maxContacts, sim->metrics().contacts);
      maxIters = std::max(maxIters, sim->metrics().iterations);
      iters += sim->metrics().iterations;
      ++steps;
    }
    for (const BodyState& b : sim->state().bodies) QVERIFY(b.x.allFinite() && b.v.allFinite());
    qInfo("sphere chain n = %d, %.0f s: max penetration %.3g m, max joint violation %.3g, up to %d contacts, mean %.2f "
          "(max %d) interior-point iterations per step",
          n, duration, maxPen, maxViol, maxContacts, double(iters) / steps, maxIters);
    QVERIFY(maxPen <= 1e-4);
    QVERIFY(maxViol <= 1e-9);
    // All 5 spheres reach the ground within 3 s; of longer chains, at least the part that has landed.
    QVERIFY(n == 5 ? maxContacts == 5 : maxContacts >= std::min(n, 20));
  }

  // The lean set (n = 5 and 30, 3 s).
  void sphereChainLandsWithoutPenetrating() {
    runSphereChain(5, 3.0);
    runSphereChain(30, 3.0);
  }

  // The issue's range up to n = 200 for 10 s (about 20 s in Release; skipped in the sanitizer build).
  void longSphereChainsConvergeAtEveryStep() {
    if (test::sanitizerBuild()) QSKIP("10 s chains of 100 and 200 spheres: Release only");
    runSphereChain(100, 10.0);
    runSphereChain(200, 10.0);
  }

  // Contacts between bodies (contact-pair): a ball dropped off-centre onto a box lying on the ground
  // (sphere–box) comes to rest on the box's top face without penetrating it.
  void ballComesToRestOnABox() {
    auto sys = compile(parse(R"((mechanism "ball-on-box"
        (ground floor)
        (body box (mass 1) (shape box 0.4 0.4 0.4) (position 0 0 0.2))
        (body ball (mass 0.5) (shape sphere 0.1) (position 0.05 -0.03 0.8))
        (contact-pair touch ball box)))"));
    QCOMPARE(int(sys->contacts.size()), 8 + 1 + 1);  // box corners, ball on the ground, ball on the box
    Simulation sim(sys);
    const double pen = runFor(sim, 3.0);
    const BodyState& ball = sim.state().bodies[1];
    qInfo("ball on box: max penetration %.3g m, ball centre at z = %.6f m (top face + r = 0.5), speed %.3g m/s", pen,
          ball.x.z(), ball.v.norm());
    QVERIFY(pen <= 1e-5);
    QVERIFY(std::abs(ball.x.z() - 0.5) < 1e-4);
    QVERIFY(ball.v.norm() < 1e-6);
    QVERIFY(std::abs(sim.state().bodies[0].x.z() - 0.2) < 1e-4);  // the box did not sink either
  }

  // A capsule dropped across another lying on the ground (capsule–capsule), and a ball onto it
  // (sphere–capsule): both stop on it, nothing penetrates.
  void capsulesAndBallsStackWithoutPenetrating() {
    auto sys = compile(parse(R"((mechanism "stack"
        (ground floor (friction 0.8))
        (body log (mass 2) (shape capsule 0.05 0.6) (rotation 0 (deg 90) 0) (position 0 0 0.05))
        (body bar (mass 1) (shape capsule 0.04 0.4) (rotation (deg 90) 0 0) (position 0 0 0.4))
        (body pebble (mass 0.2) (shape sphere 0.03) (position 0.2 0 0.3))
        (contact-pair bar-on-log bar log)
        (contact-pair pebble-on-log pebble log)))"));
    Simulation sim(sys);
    const double pen = runFor(sim, 2.0);
    const double barZ = sim.state().bodies[1].x.z(), pebbleZ = sim.state().bodies[2].x.z();
    qInfo("stack: max penetration %.3g m; bar at z = %.6f m (on the log: 0.14), pebble at z = %.6f m (0.13)", pen, barZ,
          pebbleZ);
    QVERIFY(pen <= 1e-5);
    QVERIFY(std::abs(barZ - 0.14) < 1e-3);
    QVERIFY(std::abs(pebbleZ - 0.13) < 1e-3);
  }

  // Two free spheres in zero gravity, one moving into the other: the contact is inelastic (the
  // variational step with a hard φ ≥ 0 stops the approach), so both leave with half the speed; the
  // total momentum is conserved by the equal and opposite impulses. After the impact the spheres
  // touch with zero force, a degenerate complementarity pair (s = γ = 0) that the interior point
  // resolves to about √(complementarity tolerance): the speeds approach 0.5 as it is tightened.
  void collidingSpheresConserveMomentum() {
    for (const double compTol : {1e-8, 1e-12}) {
      Model m = parse(R"((mechanism "billiards"
          (gravity 0 0 0)
          (body a (mass 1) (shape sphere 0.1) (position 0 0 0) (velocity 1 0 0))
          (body b (mass 1) (shape sphere 0.1) (position 0.5 0 0))
          (contact-pair hit a b)))");
      m.solver.complementarityTolerance = compTol;
      Simulation sim(compile(m));
      const Vec3 p0 = sim.linearMomentum();
      const double pen = runFor(sim, 1.0);
      const Vec3 va = sim.state().bodies[0].v, vb = sim.state().bodies[1].v;
      const double dp = (sim.linearMomentum() - p0).norm();
      qInfo("spheres, complementarity tolerance %.0e: momentum change %.3g N s, velocities %.9f and %.9f m/s, max "
            "penetration %.3g m",
            compTol, dp, va.x(), vb.x(), pen);
      QVERIFY(dp < 1e-10);
      const double bound = 2.0 * std::sqrt(compTol);  // measured 0.7·√tol
      QVERIFY(std::abs(va.x() - 0.5) < bound && std::abs(vb.x() - 0.5) < bound);
      QVERIFY(pen <= 1e-8);
    }
  }

  // The Newton matrix of a contact between two bodies equals finite differences of the residual.
  void pairNewtonMatrixMatchesFiniteDifferences() {
    auto sys = compile(parse(R"((mechanism "pair"
        (gravity 0 0 -9.81)
        (body a (mass 1) (shape capsule 0.1 0.5) (rotation 0.3 0.2 0) (position 0 0 0))
        (body b (mass 2) (shape sphere 0.2) (position 0.1 0.05 0.35))
        (body c (mass 1) (shape box 0.3 0.2 0.4) (rotation 0.1 0 0.4) (position 0.1 0.05 0.8))
        (contact-pair ab b a)
        (contact-pair bc b c)))"));
    QCOMPARE(int(sys->contacts.size()), 2);
    Simulation sim(sys);
    bool ok = false;
    const double worst = test::worstNewtonError(sys, sim, 11, ok);
    QVERIFY(ok);
    qInfo("contact-pair Newton matrix vs finite differences: worst relative error %.3g", worst);
    QVERIFY(worst < 1e-6);
  }

  // A step with contacts does no heap allocation (after the first steps have sized everything).
  void contactStepDoesNotAllocate() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc is not interposed in this build (sanitizer or non-glibc)");
#endif
    auto chain = make("sphere-chain", {{"n", "5"}});
    for (int s = 0; s < 120; ++s) QVERIFY(chain->step());  // landing: contacts active
    QCOMPARE(allocationsOf(*chain, 50), 0L);
    // The box drop from its second step on: the fall, the impact of its corners and the rest.
    auto box = make("box-drop");
    QVERIFY(box->step());
    QCOMPARE(allocationsOf(*box, 200), 0L);
  }

  // Islands (vi_islands.cc): contact-pairs.mech holds three groups nothing couples (a box with a
  // ball dropped on it, a log with a bar and two pebbles, two rolling balls). Each step solved
  // island by island reaches the solution of the same step solved as one problem from the same
  // state, the steps are solved as islands, and they allocate nothing. (Both solutions lie within
  // the tolerances of the exact one: at the default complementarity tolerance 1e-8 the two balls'
  // collision differs by 3e-4 rad/s, a slip the tolerance allows; at 1e-13, by 2e-7.)
  void islandsSolveTheSameStepAsOneProblem() {
    Model model;
    std::string failure;
    QVERIFY2(test::loadGallery("contact-pairs.mech", {}, model, failure), failure.c_str());
    const auto sys = compile(model);
    Simulation byIslands(sys), whole(sys);
    whole.settings().islands = false;
    for (Simulation* sim : {&byIslands, &whole}) sim->settings().complementarityTolerance = 1e-13;
    double worst = 0;
    int mostIslands = 0, wholeIslands = 0;
    for (int s = 0; s < 150; ++s) {
      whole.setState(byIslands.state());
      QVERIFY2(byIslands.step(), byIslands.metrics().message.c_str());
      QVERIFY2(whole.step(), whole.metrics().message.c_str());
      mostIslands = std::max(mostIslands, byIslands.metrics().islands);
      wholeIslands = std::max(wholeIslands, whole.metrics().islands);
      for (size_t i = 0; i < sys->bodies.size(); ++i) {
        const BodyState &a = byIslands.state().bodies[i], &b = whole.state().bodies[i];
        worst = std::max({worst, (a.x - b.x).lpNorm<Eigen::Infinity>(), (a.v - b.v).lpNorm<Eigen::Infinity>(),
                          (a.q - b.q).lpNorm<Eigen::Infinity>(), (a.w - b.w).lpNorm<Eigen::Infinity>()});
      }
    }
    qInfo("contact-pairs.mech, 150 steps: up to %d islands; largest difference of a step to the step as one "
          "problem %.3g", mostIslands, worst);
    QCOMPARE(wholeIslands, 0);
    QVERIFY(mostIslands >= 3);
    QVERIFY(worst < 1e-6);
#ifdef MS_TEST_COUNTS_MALLOC
    QCOMPARE(allocationsOf(byIslands, 50), 0L);
#endif
  }

  // With 4 friction directions the contact step's elimination order (vi::leafFirstOrder) is the
  // compiled order, which the integrator therefore takes as it is: on the gallery's contact
  // models, joint limits, and 64 spheres with automatic pairs between all of them that are near.
  void contactOrderIsTheCompiledOrder() {
    std::vector<std::shared_ptr<const CompiledSystem>> systems;
    for (const char* name : {"box-stack.mech", "contact-pairs.mech", "quadruped.mech", "gripper.mech",
                             "limited-pendulum.mech", "cam-follower.mech", "spheres-in-box.mech"}) {
      Model model;
      std::string failure;
      QVERIFY2(test::loadGallery(name, {}, model, failure), failure.c_str());
      systems.push_back(compile(model));
    }
    const std::shared_ptr<const CompiledSystem> spheres = systems.back();
    Simulation sim(spheres);
    std::vector<BodyPair> near;
    nearPairs(*spheres, sim.state(), 0.2, near);
    QVERIFY(near.size() > 50);
    systems.push_back(withAutoPairs(spheres, near));
    for (const auto& sys : systems) {
      QCOMPARE(sys->frictionDirections, 4);
      QVERIFY(!sys->contacts.empty() || !sys->limits.empty());
      const EliminationOrder contactOrder = vi::leafFirstOrder(*sys);
      QVERIFY(contactOrder.list == sys->order.list);
      QVERIFY(contactOrder.children == sys->order.children);
      QVERIFY(contactOrder.parents == sys->order.parents);
    }
  }

  // Sticking: tan 20° = 0.36 < μ = 0.5 — the box does not move (planes tilted about x and y).
  void boxSticksOnAGentleIncline() {
    for (const char* axis : {"x", "y"}) {
      auto sim = make("box-incline", {{"angle_deg", "20"}, {"mu", "0.5"}, {"tilt_axis", axis}});
      const Vec3 x0 = sim->state().bodies[0].x;
      double maxPen = 0;
      while (sim->state().time < 2.0 - 1e-9) {
        QVERIFY2(sim->step(), sim->metrics().message.c_str());
        maxPen = std::max(maxPen, sim->metrics().penetration);
      }
      const double moved = (sim->state().bodies[0].x - x0).norm();
      qInfo("incline 20 deg, mu 0.5, tilted about %s: displacement after 2 s %.3g m, max penetration %.3g m", axis,
            moved, maxPen);
      QVERIFY(moved < 1e-6);
      QVERIFY(maxPen <= 1e-5);
    }
  }

  // Sliding: tan 30° = 0.58 > μ = 0.3 — acceleration g (sin θ − μ cos θ) along the slope, within 1 %.
  void boxSlidesOnASteepIncline() {
    const double theta = 30 * M_PI / 180, mu = 0.3, g = 9.81;
    const double expected = g * (std::sin(theta) - mu * std::cos(theta));
    for (const char* axis : {"x", "y"}) {
      auto sim = make("box-incline", {{"angle_deg", "30"}, {"mu", "0.3"}, {"tilt_axis", axis}});
      const Vec3 x0 = sim->state().bodies[0].x;
      // Measure between 0.5 s and 1.5 s (after the first contact steps).
      while (sim->state().time < 0.5 - 1e-9) QVERIFY2(sim->step(), sim->metrics().message.c_str());
      const Vec3 v1 = sim->state().bodies[0].v;
      const double t1 = sim->state().time;
      while (sim->state().time < 1.5 - 1e-9) QVERIFY2(sim->step(), sim->metrics().message.c_str());
      const Vec3 v2 = sim->state().bodies[0].v;
      const double a = (v2 - v1).norm() / (sim->state().time - t1);
      // Motion stays in the plane (the box slides, it does not lift off or sink).
      const Vec3 n = sim->system().model.grounds[0].normal.normalized();
      const double offPlane = std::abs((sim->state().bodies[0].x - x0).dot(n));
      qInfo("incline 30 deg, mu 0.3, tilted about %s: acceleration %.5f m/s^2 (expected %.5f, error %.3f %%), "
            "off-plane motion %.3g m",
            axis, a, expected, 100 * std::abs(a - expected) / expected, offPlane);
      QVERIFY(std::abs(a - expected) < 0.01 * expected);
      QVERIFY(offPlane < 1e-4);
    }
  }
};

QTEST_GUILESS_MAIN(TestContact)
#include "tst_contact.moc"
