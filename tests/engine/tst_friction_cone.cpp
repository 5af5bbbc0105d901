// SPDX-License-Identifier: GPL-3.0-or-later
// Friction cones with n_f = 6, 8, 10 directions (`(solver (friction-directions N))`): each contact
// gets a companion graph node holding β₅..β_{n_f}. Checked here: the Newton matrix against finite
// differences (ground contact and contact pair), the elimination order (body → contact →
// companion) and the graph factorisation against dense LU, the polygon's sticking threshold
// μmg·cos(π/n_f) for a pull halfway between two directions (n_f = 4 and 8), the incline with
// n_f = 8, box drop and sphere chain with n_f = 8 against n_f = 4 (iterations, time), no heap
// allocation per step, and the compiler's check of n_f.
#include <QTest>

#include <array>
#include <chrono>
#include <cmath>
#include <random>

#include <Eigen/LU>

#include "model_text.h"
#include "allocation_counter.h"
#include "core/check.h"
#include "integrator/variational_step.h"
#include "io/mech_reader.h"
#include "newton_fd.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "solver/ldu_graph.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {
}

namespace {
Model parse(const std::string& text) { return test::parseMech(text); }

Model withDirections(Model m, int nf) {
  m.solver.frictionDirections = nf;
  return m;
}

// Worst relative error of the analytic Newton matrix against central differences at random
// velocities and impulses (impulses 2 ± 1, padding rows included) after `stepsFirst` steps.
double worstNewtonError(const std::shared_ptr<const CompiledSystem>& sys, int stepsFirst, unsigned seed) {
  Simulation sim(sys);
  for (int s = 0; s < stepsFirst; ++s)
    if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
  bool ok = false;
  const double worst = test::worstNewtonError(sys, sim, seed, ok);
  if (!ok) qFatal("the residual or its finite differences could not be evaluated");
  return worst;
}

// A 0.5 m, 1 kg box resting on flat ground (μ = 0.5) pulled by a constant horizontal force of
// `ratio`·μmg along the direction at angle π/n_f from d₁ (halfway between two cone directions).
// Returns the displacement after 1 s and the acceleration measured over 0.5–1 s.
struct PullResult {
  double displacement = 0, acceleration = 0;
};
PullResult pullBox(int nf, double ratio) {
  Model m = withDirections(buildScene("box-drop", {{"height", "0"}, {"mu", "0.5"}}), nf);
  Simulation sim(compile(m));
  const double mu = 0.5, g = 9.81, ang = kPi / nf;
  const Vec3 u(std::cos(ang), std::sin(ang), 0);
  sim.inputs().force[0] = ratio * mu * 1.0 * g * u;
  const Vec3 x0 = sim.state().bodies[0].x;
  Vec3 v1 = Vec3::Zero();
  while (sim.state().time < 1.0 - 1e-9) {
    if (!sim.step()) qFatal("step failed: %s", sim.metrics().message.c_str());
    if (std::abs(sim.state().time - 0.5) < 1e-9) v1 = sim.state().bodies[0].v;
  }
  PullResult r;
  r.displacement = (sim.state().bodies[0].x - x0).norm();
  r.acceleration = (sim.state().bodies[0].v - v1).dot(u) / 0.5;
  return r;
}

struct RunStats {
  double maxPen = 0, meanIterations = 0, usPerStep = 0;
  int maxContacts = 0;
};
RunStats run(const Model& m, double duration) {
  Simulation sim(compile(m));
  RunStats s;
  long iters = 0;
  int steps = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (sim.state().time < duration - 1e-9) {
    if (!sim.step()) qFatal("%s: step failed: %s", m.name.c_str(), sim.metrics().message.c_str());
    s.maxPen = std::max(s.maxPen, sim.metrics().penetration);
    s.maxContacts = std::max(s.maxContacts, sim.metrics().contacts);
    iters += sim.metrics().iterations;
    ++steps;
  }
  s.usPerStep = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / steps;
  s.meanIterations = double(iters) / steps;
  return s;
}
}  // namespace

class TestFrictionCone : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Ground contacts (box on an incline tilted about y) and contact pairs, n_f = 6, 8, 10.
  void newtonMatrixMatchesFiniteDifferences() {
    for (int nf : {6, 8, 10}) {
      auto ground = compile(withDirections(buildScene("box-incline", {{"angle_deg", "25"}, {"tilt_axis", "y"}}), nf));
      QCOMPARE(int(ground->numNodes), 1 + 2 * 8);  // the box, 8 corner contacts, 8 companions
      const double eg = worstNewtonError(ground, 3, 7);
      auto pair = compile(withDirections(parse(R"((mechanism "pair"
          (gravity 0 0 -9.81)
          (body a (mass 1) (shape capsule 0.1 0.5) (rotation 0.3 0.2 0) (position 0 0 0))
          (body b (mass 2) (shape sphere 0.2) (position 0.1 0.05 0.35))
          (body c (mass 1) (shape box 0.3 0.2 0.4) (rotation 0.1 0 0.4) (position 0.1 0.05 0.8))
          (contact-pair ab b a)
          (contact-pair bc b c)))"),
                                         nf));
      const double ep = worstNewtonError(pair, 0, 11);
      qInfo("n_f = %d: Newton matrix vs finite differences, worst relative error %.3g (ground), %.3g (pairs)", nf, eg,
            ep);
      QVERIFY(eg < 1e-6);
      QVERIFY(ep < 1e-6);
    }
  }

  // Order contact → companion (each companion directly after its contact); the graph LDU solves the contact step's matrix like dense
  // LU. The state: a box on flat ground pulled along d₁ at 1.2 μmg, sliding, so that the active
  // friction direction is d₅ = −d₁, a companion direction. S·Y⁻¹ on the pair rows with s = c + 1e-6,
  // y = β + 1e-6 (c: the row's constraint value). Solved with the per-factorisation swaps
  // (companionSwaps: the 4 directions of smallest s/y into the contact node) and, for comparison,
  // with the fixed split (directions 1–4 in the contact node).
  void factorisationMatchesDenseLU() {
    const int nf = 8, extra = nf - kFrictionDirections;
    Model model = withDirections(buildScene("box-drop", {{"height", "0"}, {"mu", "0.5"}}), nf);
    auto sys = compile(model);
    const EliminationOrder& o = sys->order;
    int misplaced = 0;
    for (const CompiledContact& c : sys->contacts)
      misplaced += !(o.position[c.extraNode] == o.position[c.node] + 1);
    qInfo("box, n_f = 8: %d of %d companions not directly after their contact node; fill-in %d "
          "blocks",
          misplaced, int(sys->contacts.size()), o.fillIn);
    QVERIFY(misplaced == 0);
    Simulation sim(sys);
    sim.inputs().force[0] = Vec3(1.2 * 0.5 * 9.81, 0, 0);
    for (int s = 0; s < 50; ++s) QVERIFY(sim.step());
    const int nb = 1, nn = sys->numNodes;
    VecX vel(6 * nb), lam = VecX::Zero(6 * (nn - nb));
    vel << sim.state().bodies[0].v, sim.state().bodies[0].w;
    for (size_t ci = 0; ci < sys->contacts.size(); ++ci) {
      lam.segment<6>(6 * (sys->contacts[ci].node - nb)) = sim.state().contactImpulse[ci];
      lam.segment<6>(6 * (sys->contacts[ci].extraNode - nb)) = sim.state().contactFriction[ci];
    }
    VariationalIntegrator vi(sys);
    VecX r;
    QVERIFY(vi.residualAt(sim.settings(), sim.inputs(), sim.state(), vel, lam, r, true));
    GraphLDU fixed(sys->order);
    fixed.copyValues(vi.matrix());
    std::vector<std::array<double, 10>> ratio(sys->contacts.size());
    for (size_t ci = 0; ci < sys->contacts.size(); ++ci) {
      const CompiledContact& c = sys->contacts[ci];
      for (int q = 0; q < 6 + extra; ++q) {
        const int node = q < 6 ? c.node : c.extraNode, row = q < 6 ? q : q - 6;
        const double sv = std::max(r[6 * node + row], 0.0) + 1e-6;
        const double yv = std::max(lam[6 * (node - nb) + row], 0.0) + 1e-6;
        fixed.diag(node)(row, row) += sv / yv;
        if (q >= 2) ratio[ci][q - 2] = sv / yv;  // direction k = q − 2 (rows 2–5, then the companion's)
      }
    }
    GraphLDU swapped(sys->order);
    swapped.copyValues(fixed);
    std::vector<std::array<int, 8>> swaps(sys->contacts.size());
    std::vector<int> numSwaps(sys->contacts.size());
    int totalSwaps = 0;
    for (size_t ci = 0; ci < sys->contacts.size(); ++ci) {
      numSwaps[ci] = companionSwaps(ratio[ci].data(), nf, &swaps[ci][0], &swaps[ci][4]);
      totalSwaps += numSwaps[ci];
      for (int i = 0; i < numSwaps[ci]; ++i)
        swapCompanionUnknowns(swapped, *sys, sys->contacts[ci], swaps[ci][i], swaps[ci][4 + i]);
    }
    auto permute = [&](VecX& v) {
      for (size_t ci = 0; ci < sys->contacts.size(); ++ci)
        for (int i = 0; i < numSwaps[ci]; ++i)
          std::swap(v[6 * sys->contacts[ci].node + swaps[ci][i]], v[6 * sys->contacts[ci].extraNode + swaps[ci][4 + i]]);
    };
    const MatX D = fixed.toDense();
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> uni(-1, 1);
    VecX b(D.rows());
    for (int i = 0; i < b.size(); ++i) b[i] = uni(rng);
    const Eigen::FullPivLU<MatX> lu(D);
    const VecX xd = lu.solve(b);
    const double resD = (D * xd - b).norm() / b.norm();
    // Graph LDU with the swaps (as the contact step solves).
    QVERIFY(swapped.factor());
    VecX pb = b, xs;
    permute(pb);
    swapped.solve(pb, xs);
    permute(xs);
    const double diffS = (xs - xd).norm() / xd.norm(), resS = (D * xs - b).norm() / b.norm();
    // Graph LDU with the fixed split.
    const bool fixedOk = fixed.factor();
    VecX xf = VecX::Zero(b.size());
    if (fixedOk) fixed.solve(b, xf);
    const double diffF = fixedOk ? (xf - xd).norm() / xd.norm() : NAN;
    const double resF = fixedOk ? (D * xf - b).norm() / b.norm() : NAN;
    qInfo("sliding box, n_f = 8: condition ~%.3g; dense LU relative residual %.3g; graph LDU with %d swaps: "
          "relative residual %.3g, difference to dense %.3g; fixed split: %s, relative residual %.3g, difference %.3g",
          1.0 / lu.rcond(), resD, totalSwaps, resS, diffS, fixedOk ? "factorised" : "singular pivot", resF, diffF);
    QVERIFY(totalSwaps > 0);
    QVERIFY(resS < 1e-9);
    QVERIFY(diffS < 1e-8);
    if (fixedOk) QVERIFY(resS < 1e-2 * resF);  // the swaps gain orders of magnitude
  }

  // A pull halfway between two cone directions: the polygon resists up to μmg·cos(π/n_f). Slides
  // at 1.02× that, sticks at 0.98×; at 0.8 μmg (between cos 45° and cos 22.5°) the box slides with
  // n_f = 4 and sticks with n_f = 8.
  void stickingThresholdFollowsThePolygon() {
    const double g = 9.81, mu = 0.5;
    for (int nf : {4, 8}) {
      const double c = std::cos(kPi / nf);
      const PullResult below = pullBox(nf, 0.98 * c), above = pullBox(nf, 1.02 * c), mid = pullBox(nf, 0.8);
      const double expected = 0.02 * c * mu * g;  // (F − μmg cos(π/n_f)) / m
      qInfo("n_f = %d, pull at pi/n_f off d1: threshold mu m g cos(pi/n_f) = %.4f N; at 0.98x: moved %.3g m; at "
            "1.02x: moved %.4f m, acceleration %.5f m/s^2 (expected %.5f, error %.2f %%); at 0.8 mu m g: moved %.3g m",
            nf, c * mu * g, below.displacement, above.displacement, above.acceleration, expected,
            100 * std::abs(above.acceleration - expected) / expected, mid.displacement);
      QVERIFY(below.displacement < 1e-5);
      QVERIFY(above.displacement > 1e-2);
      QVERIFY(std::abs(above.acceleration - expected) < 0.01 * expected);
      if (nf == 4) QVERIFY(mid.displacement > 0.1);
      else QVERIFY(mid.displacement < 1e-5);
    }
  }

  // The incline with n_f = 8 (downhill is a cone direction for both tilt axes): sticks for
  // tan θ < μ, slides with g (sin θ − μ cos θ) within 1 %.
  void inclineWithEightDirections() {
    const double g = 9.81;
    for (const char* axis : {"x", "y"}) {
      Simulation stick(compile(withDirections(
          buildScene("box-incline", {{"angle_deg", "20"}, {"mu", "0.5"}, {"tilt_axis", axis}}), 8)));
      const Vec3 x0 = stick.state().bodies[0].x;
      double maxPen = 0;
      while (stick.state().time < 2.0 - 1e-9) {
        QVERIFY2(stick.step(), stick.metrics().message.c_str());
        maxPen = std::max(maxPen, stick.metrics().penetration);
      }
      const double moved = (stick.state().bodies[0].x - x0).norm();
      const double theta = 30 * kPi / 180, mu = 0.3, expected = g * (std::sin(theta) - mu * std::cos(theta));
      Simulation slide(compile(withDirections(
          buildScene("box-incline", {{"angle_deg", "30"}, {"mu", "0.3"}, {"tilt_axis", axis}}), 8)));
      while (slide.state().time < 0.5 - 1e-9) QVERIFY2(slide.step(), slide.metrics().message.c_str());
      const Vec3 v1 = slide.state().bodies[0].v;
      while (slide.state().time < 1.5 - 1e-9) QVERIFY2(slide.step(), slide.metrics().message.c_str());
      const double a = (slide.state().bodies[0].v - v1).norm();
      qInfo("n_f = 8, tilted about %s: 20 deg, mu 0.5: moved %.3g m in 2 s (max penetration %.3g m); 30 deg, mu 0.3: "
            "acceleration %.5f m/s^2 (expected %.5f, error %.3f %%)",
            axis, moved, maxPen, a, expected, 100 * std::abs(a - expected) / expected);
      QVERIFY(moved < 1e-6);
      QVERIFY(maxPen <= 1e-5);
      QVERIFY(std::abs(a - expected) < 0.01 * expected);
    }
  }

  // Box drop (3 s) and a 30-sphere chain (3 s) with n_f = 8 against n_f = 4: every step converges,
  // no penetration beyond 1e-5 / 1e-4 m; iterations and time per step reported.
  void boxDropAndChainWithEightDirections() {
    for (int nf : {4, 8}) {
      const RunStats box = run(withDirections(buildScene("box-drop", {}), nf), 3.0);
      const RunStats chain = run(withDirections(buildScene("sphere-chain", {{"n", "30"}}), nf), 3.0);
      qInfo("n_f = %d: box drop: max penetration %.3g m, mean %.2f iterations, %.1f us/step; sphere chain n = 30: max "
            "penetration %.3g m, up to %d contacts, mean %.2f iterations, %.1f us/step",
            nf, box.maxPen, box.meanIterations, box.usPerStep, chain.maxPen, chain.maxContacts, chain.meanIterations,
            chain.usPerStep);
      QVERIFY(box.maxPen <= 1e-5);
      QVERIFY(chain.maxPen <= 1e-4);
      QVERIFY(box.meanIterations <= 15);
      QVERIFY(chain.meanIterations <= 30);
    }
  }

  // A step with n_f = 8 allocates nothing (after the first steps have sized everything).
  void stepDoesNotAllocate() {
#ifndef MS_TEST_COUNTS_MALLOC
    QSKIP("malloc is not interposed in this build (sanitizer or non-glibc)");
#endif
    Simulation sim(compile(withDirections(buildScene("sphere-chain", {{"n", "5"}}), 8)));
    for (int s = 0; s < 120; ++s) QVERIFY(sim.step());
    g_allocations = 0;
    g_countAllocations = true;
    bool ok = true;
    for (int s = 0; s < 50; ++s) ok = sim.step() && ok;
    g_countAllocations = false;
    QVERIFY(ok);
    QCOMPARE(g_allocations.load(), 0L);
  }

  // The display force of a loaded contact includes the companion's directions: a box pulled at
  // 0.8 μmg and sticking (n_f = 8) shows a total friction force equal to the pull.
  void loadedContactsIncludeAllDirections() {
    Model m = withDirections(buildScene("box-drop", {{"height", "0"}, {"mu", "0.5"}}), 8);
    Simulation sim(compile(m));
    const double ang = kPi / 8;
    const Vec3 pull = 0.8 * 0.5 * 9.81 * Vec3(std::cos(ang), std::sin(ang), 0);
    sim.inputs().force[0] = pull;
    for (int s = 0; s < 50; ++s) QVERIFY(sim.step());
    std::vector<ContactPoint> pts;
    sim.loadedContacts(pts);
    Vec3 total = Vec3::Zero();
    for (const ContactPoint& p : pts) total += p.force;
    const double err = (total.head<2>() + pull.head<2>()).norm();
    qInfo("n_f = 8, sticking under a pull of %.4f N: %d loaded contacts, tangential force error %.3g N, normal %.4f N",
          pull.norm(), int(pts.size()), err, total.z());
    QVERIFY(err < 1e-6);
    QVERIFY(std::abs(total.z() - 9.81) < 1e-6);
  }

  // n_f outside {4, 6, 8, 10} is a compile error with a clear message (programmatic models).
  void compileRejectsOtherDirectionCounts() {
    for (int nf : {2, 5, 12}) {
      std::string msg;
      try {
        compile(withDirections(buildScene("box-drop", {}), nf));
      } catch (const UserError& e) {
        msg = e.what();
      }
      qInfo("n_f = %d: %s", nf, msg.c_str());
      QVERIFY(msg.find("friction directions must be 4, 6, 8 or 10") != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestFrictionCone)
#include "tst_friction_cone.moc"
