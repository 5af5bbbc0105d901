// SPDX-License-Identifier: GPL-3.0-or-later
// Collisions between bodies (issue 16) in the variational step: a stack of cubes stands (box–box face
// manifolds), a cube on a block sticks below μ m g and slides above it with the Coulomb acceleration,
// and a convex mesh (the gallery's rock) sticks on a 20° ramp with μ 0.5 and slides with μ 0.2. The
// penetration is measured independently of the solver's candidates, by the exact signed distance of
// the polytopes (contact::polytopeSignedDistance) or of the hull's vertices to the ramp.
#include <QTest>

#include <cmath>

#include "sanitizer_build.h"
#include "contact/contact_geometry.h"
#include "core/diagnostics.h"
#include "io/mech_reader.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/compiled_system.h"
#include "test_paths.h"

using namespace ms;

namespace {

std::unique_ptr<Simulation> makeScene(const std::string& scene, const std::map<std::string, std::string>& p) {
  return std::make_unique<Simulation>(compile(buildScene(scene, p)));
}

std::unique_ptr<Simulation> makeGallery(const std::string& file, const std::map<std::string, std::string>& p) {
  Model m;
  std::string failure;
  if (!test::loadGallery(file, p, m, failure)) qFatal("%s", failure.c_str());
  return std::make_unique<Simulation>(compile(m));
}

// The sanitizer build (scripts/test.sh) runs the long runs shortened; the Release build measures them.

contact::BodyPose poseOf(const Simulation& sim, int body) {
  contact::BodyPose z;
  z.x = sim.state().bodies[body].x;
  z.q = sim.state().bodies[body].q;
  return z;
}

// The deepest overlap of the contact pairs' shapes, max(0, −signed distance), measured exactly.
double pairPenetration(const Simulation& sim) {
  double worst = 0;
  for (const CompiledContactGroup& g : sim.system().contactGroups) {
    if (g.bodyA < 0) continue;
    contact::Contact c;
    contact::polytopeSignedDistance(g.shapeA, poseOf(sim, g.bodyA), g.shape, poseOf(sim, g.body), c);
    worst = std::max(worst, -c.phi);
  }
  return worst;
}

}  // namespace

class TestCollisions : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Issue 16: box-stack n = 10 (0.2 m, 1 kg cubes), Δt = 0.01, 10 s (sanitizer build: n = 4, 1 s): every step converges, the
  // penetration stays ≤ 1e-5 m (between the cubes, exactly; with the ground, the corners' gaps) and
  // the top cube moves less than 1 mm.
  void boxStackStands() {
    const int n = test::sanitizerBuild() ? 4 : 10;
    const double duration = test::sanitizerBuild() ? 1.0 : 10.0;
    auto sim = makeScene("box-stack", {{"n", std::to_string(n)}});
    const int top = n - 1;
    const Vec3 start = sim->state().bodies[top].x;
    double pairPen = 0, groundPen = 0, drift = 0;
    long iterations = 0;
    while (sim->state().time < duration - 1e-9) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      iterations += sim->metrics().iterations;
      pairPen = std::max(pairPen, pairPenetration(*sim));
      for (size_t c = 0; c < sim->system().contacts.size(); ++c)
        if (sim->system().contactGroups[sim->system().contacts[c].group].bodyA < 0)
          groundPen = std::max(groundPen, -sim->state().contactGap[c]);
      drift = std::max(drift, (sim->state().bodies[top].x - start).norm());
    }
    qInfo("box-stack n=%d, %.0f s: penetration between cubes %.2e m, with the ground %.2e m; top cube drift %.2e m; "
          "%.2f interior-point iterations per step",
          n, duration, pairPen, groundPen, drift, iterations / (100.0 * duration));
    QVERIFY(pairPen <= 1e-5);
    QVERIFY(groundPen <= 1e-5);
    QVERIFY(drift < 1e-3);
  }

  // A 1 kg cube on a 10 kg block (μ 0.5 between them), pushed along x at its centre: at 0.9 μ m g it
  // sticks (moves < 1e-5 m in 1 s), at 1.5 μ m g it slides with a = push/m − μ g to 1 % (measured
  // between 0.1 and 0.3 s, before it reaches the block's edge); the block does not move.
  void cubeOnBlockSticksOrSlides() {
    const double mu = 0.5, g = 9.81, m = 1.0;
    for (double factor : {0.9, 1.5}) {
      const double push = factor * mu * m * g;
      auto sim = makeScene("box-on-box", {{"mu", "0.5"}, {"push", QByteArray::number(push, 'g', 17).toStdString()}});
      double x1 = 0, v1 = 0, t1 = 0;
      const double until = factor < 1 ? 1.0 : 0.3;
      while (sim->state().time < until - 1e-9) {
        QVERIFY2(sim->step(), sim->metrics().message.c_str());
        if (std::abs(sim->state().time - 0.1) < 1e-9) x1 = sim->state().bodies[1].x.x(), v1 = sim->state().bodies[1].v.x(), t1 = 0.1;
      }
      const BodyState& cube = sim->state().bodies[1];
      QVERIFY(sim->state().bodies[0].x.head<2>().norm() < 1e-6);  // the block stays (its centre starts above the origin)
      if (factor < 1) {
        qInfo("push 0.9 mu m g: cube moved %.2e m in 1 s", cube.x.x());
        QVERIFY(std::abs(cube.x.x()) < 1e-5);
      } else {
        const double expected = push / m - mu * g;
        const double a = (cube.v.x() - v1) / (sim->state().time - t1);
        qInfo("push 1.5 mu m g: acceleration %.6f m/s^2, Coulomb %.6f (error %.2e); moved %.3f m", a, expected,
              std::abs(a - expected) / expected, cube.x.x() - x1);
        QVERIFY(std::abs(a - expected) < 0.01 * expected);
      }
    }
  }

  // models/rock-on-ramp.mech: the rock (a convex mesh's hull, 17 vertices) dropped 2 cm onto a 20°
  // ramp. μ 0.5 > tan 20°: it lands and stays (moves < 1e-5 m between 1 and 3 s); μ 0.2: it slides
  // down. Penetration (the hull vertices' distances to the ramp) ≤ 1e-5 m throughout.
  void rockSticksOrSlidesOnTheRamp() {
    for (const char* mu : {"0.5", "0.2"}) {
      auto sim = makeGallery("rock-on-ramp.mech", {{"mu", mu}});
      QCOMPARE(int(sim->system().contacts.size()), 17);  // the hull's vertices against the ramp
      double pen = 0;
      Vec3 at1 = Vec3::Zero();
      while (sim->state().time < 3.0 - 1e-9) {
        QVERIFY2(sim->step(), sim->metrics().message.c_str());
        pen = std::max(pen, sim->metrics().penetration);
        if (std::abs(sim->state().time - 1.0) < 1e-9) at1 = sim->state().bodies[0].x;
      }
      const double moved = (sim->state().bodies[0].x - at1).norm();
      qInfo("rock on the 20 deg ramp, mu %s: moved %.3e m between 1 and 3 s; penetration %.2e m", mu, moved, pen);
      QVERIFY(pen <= 1e-5);
      if (std::string(mu) == "0.5") QVERIFY(moved < 1e-5);
      else QVERIFY(moved > 1.0);
    }
  }

  // models/cam-follower.mech: an eccentric disc (cylinder) lifting a spring-loaded plate (box) on a
  // slide, 10 s at Δt = 0.005: every step converges, the plate follows 0.11 + e sin θ (its height
  // stays in [0.08, 0.14] m and covers it) and never sinks into the cam by more than 1e-5 m.
  void camLiftsTheFollower() {
    auto sim = makeGallery("cam-follower.mech", {});
    double pen = 0, lo = 1e9, hi = -1e9;
    while (sim->state().time < 10.0 - 1e-9) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      pen = std::max(pen, sim->metrics().penetration);
      const double z = sim->state().bodies[1].x.z();
      lo = std::min(lo, z), hi = std::max(hi, z);
    }
    qInfo("cam-follower, 10 s: follower height %.6f to %.6f m (0.08 to 0.14 expected), penetration %.2e m, shaft at %.2f rad/s",
          lo, hi, pen, sim->state().bodies[0].w.norm());
    QVERIFY(pen <= 1e-5);
    QVERIFY(lo > 0.08 - 1e-4 && lo < 0.08 + 1e-3 && hi < 0.14 + 1e-4 && hi > 0.14 - 1e-3);
  }

  // models/gripper.mech: two PD-driven fingers squeeze a 0.3 kg box and the palm lifts: the box's
  // bottom is more than 1 cm above the ground from t = 5 s to 10 s, and it does not slip down the
  // fingers (its height follows the fingers' to 1 mm).
  void gripperHoldsTheBoxUp() {
    auto sim = makeGallery("gripper.mech", {});
    const int object = sim->system().model.bodyIndex("object"), finger = sim->system().model.bodyIndex("right-finger");
    double lowest = 1e9, slip = 0, pen = 0;
    const double offset = sim->state().bodies[finger].x.z() - sim->state().bodies[object].x.z();
    double gripAt = 0;
    while (sim->state().time < 10.0 - 1e-9) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      pen = std::max(pen, sim->metrics().penetration);
      const double t = sim->state().time;
      if (t >= 1.0 && gripAt == 0) gripAt = sim->state().bodies[finger].x.z() - sim->state().bodies[object].x.z();
      if (t >= 5.0 - 1e-9) {
        lowest = std::min(lowest, sim->state().bodies[object].x.z() - 0.03);
        slip = std::max(slip, std::abs(sim->state().bodies[finger].x.z() - sim->state().bodies[object].x.z() - gripAt));
      }
    }
    qInfo("gripper: box bottom at least %.4f m above the ground from 5 to 10 s; slip along the fingers %.2e m; "
          "finger-box offset %.4f m at the start; penetration %.2e m",
          lowest, slip, offset, pen);
    QVERIFY(lowest > 0.01);
    QVERIFY(slip < 1e-3);
    QVERIFY(pen <= 1e-5);
  }

  // A pile: two boxes, the rock mesh, a cylinder and a box dropped turned onto each other, every pair a
  // contact pair (tumbling contacts of every polytope and cylinder kind: faces, edges crossing,
  // rims), 3 s: every step converges (steps whose solution let two edges cross are solved again with
  // the pair's features chosen there, up to 3 times). A known limit, measured here: features that
  // meet between two knots are caught only at the next solution, and polytopes then overlap by up to
  // 4.2e-4 m for a step (stacks and resting contacts stay ≤ 1e-9 m, boxStackStands); the bound below
  // is that measurement's order, not the 1e-5 m of resting contact.
  void mixedPileSettles() {
    const std::string text = R"((mechanism "pile"
      (gravity 0 0 -9.81)
      (solver (dt 0.01))
      (body b0 (mass 1) (shape box 0.22 0.28 0.19) (friction 0.6) (position 0 0.02 0.2) (rotation 0.19 -0.74 0.83))
      (body b1 (mass 1) (shape box 0.27 0.15 0.13) (friction 0.6) (position 0.02 -0.03 0.55) (rotation -0.62 0.43 0.08))
      (body b2 (density 2700) (shape mesh "meshes/rock.obj") (friction 0.6) (position 0.08 0.03 0.9) (rotation 0.48 0.34 -0.87))
      (body b3 (mass 1) (shape cylinder 0.08 0.26) (friction 0.6) (position 0.03 0.13 1.25) (rotation 0.56 0.65 -0.46))
      (body b4 (mass 1) (shape box 0.27 0.18 0.27) (friction 0.6) (position 0.05 0.08 1.6) (rotation -0.93 -0.01 -0.48))
      (repeat (i 0 4) (repeat (j (+ i 1) 4) (contact-pair p{i}-{j} b{i} b{j})))
      (ground ground)))";
    Model m;
    Diagnostics d;
    MechParseResult r;
    QVERIFY2(readMechText(text, test::modelPath("pile.mech"), {}, r, d), d.format().c_str());
    auto sim = std::make_unique<Simulation>(compile(r.model));
    double pen = 0;
    long iterations = 0;
    const double duration = test::sanitizerBuild() ? 0.3 : 3.0;
    while (sim->state().time < duration - 1e-9) {
      QVERIFY2(sim->step(), sim->metrics().message.c_str());
      iterations += sim->metrics().iterations;
      for (const CompiledContactGroup& g : sim->system().contactGroups) {
        using K = contact::ContactShape::Kind;
        if (g.bodyA < 0 || g.shapeA.kind == K::Cylinder || g.shape.kind == K::Cylinder) continue;
        contact::Contact c;
        contact::polytopeSignedDistance(g.shapeA, poseOf(*sim, g.bodyA), g.shape, poseOf(*sim, g.body), c);
        pen = std::max(pen, -c.phi);
      }
      pen = std::max(pen, sim->metrics().penetration);
    }
    qInfo("mixed pile, %.1f s: largest overlap %.2e m, %.1f interior-point iterations per step", duration, pen,
          iterations / (100.0 * duration));
    QVERIFY(pen <= 1e-3);
  }
};

QTEST_GUILESS_MAIN(TestCollisions)
#include "tst_collisions.moc"
