// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/integrator/explicit_rk: observed convergence orders of explicit Euler, Heun and
// RK4 on a smooth constrained problem, the claims of the lessons (engine/scenes/lessons.h) that
// compare the baselines with the variational integrator, measured; failure handling, switching
// integrators mid-run, the soft-contact hook and no allocation per step.
#include <QTest>

#include <cmath>

#include "sanitizer_build.h"
#include "allocation_counter.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "integrator/explicit_rk.h"
#include "scenes/lessons.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "system/initial_conditions.h"

using namespace ms;
using Params = std::map<std::string, std::string>;

namespace {

IntegratorOptions options(IntegratorKind k, double alpha = 0, double beta = 0) {
  IntegratorOptions o;
  o.kind = k;
  o.baumgarteAlpha = alpha;
  o.baumgarteBeta = beta;
  return o;
}

// A simulation of `scene` at step dt with the given integrator, from the scene's initial state.
std::unique_ptr<Simulation> make(const std::string& scene, const IntegratorOptions& o, double dt, const Params& p = {}) {
  Model m = buildScene(scene, p);
  m.solver.dt = dt;
  auto sim = std::make_unique<Simulation>(compile(m));
  sim->setIntegrator(o);
  sim->reset();
  return sim;
}

std::unique_ptr<Simulation> make(const Lesson& l, const LessonVariant& v) {
  return make(l.scene, v.options, v.dt, l.params);
}

const LessonVariant& variant(const Lesson& l, IntegratorKind k) {
  for (const LessonVariant& v : l.variants)
    if (v.options.kind == k) return v;
  throw std::runtime_error("lesson " + l.id + " has no variant " + toString(k));
}


// Steps until time T (to within half a step).
bool runTo(Simulation& sim, double T) {
  while (sim.state().time < T - 0.5 * sim.settings().dt)
    if (!sim.step()) return false;
  return true;
}

// Largest distance of body positions between two states.
double positionError(const State& a, const State& b) {
  double e = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i) e = std::max(e, (a.bodies[i].x - b.bodies[i].x).norm());
  return e;
}

}  // namespace

class TestExplicitIntegrators : public QObject {
  Q_OBJECT
 private slots:
  void convergenceOrders();
  void lessonDriftRk4LoopViolationGrows();
  void lessonEnergyHeunGrowsViBounded();
  void lessonDissipationEulerUnderdamps();
  void lessonIntermediateAxisRk4Drifts();
  void nonFiniteStopsTheRun();
  void switchingIntegratorAndStepMidRun();
  void invalidCombinationsAreRefused();
  void softContactHookIsCalled();
  void stepDoesNotAllocate();
};

void TestExplicitIntegrators::convergenceOrders() {
  // Double pendulum (both links horizontal, at rest), 1 s; error = largest body position error at
  // t = 1 s against RK4 at Δt = 0.0025/16. Observed order p = log2(e(Δt)/e(Δt/2)).
  const double T = 1.0;
  const double dts[4] = {0.02, 0.01, 0.005, 0.0025};
  auto ref = make("double-pendulum", options(IntegratorKind::RK4), dts[3] / 16);
  QVERIFY(runTo(*ref, T));
  const State reference = ref->state();
  struct Case {
    IntegratorKind kind;
    double expected, tolerance;
  };
  for (const Case& c : {Case{IntegratorKind::RK4, 4, 0.2}, Case{IntegratorKind::Heun, 2, 0.2},
                        Case{IntegratorKind::ExplicitEuler, 1, 0.3}, Case{IntegratorKind::SymplecticEuler, 1, 0.3}}) {
    double err[4];
    for (int k = 0; k < 4; ++k) {
      auto sim = make("double-pendulum", options(c.kind), dts[k]);
      QVERIFY2(runTo(*sim, T), sim->metrics().message.c_str());
      QVERIFY(std::abs(sim->state().time - T) < 1e-9);
      err[k] = positionError(sim->state(), reference);
    }
    double p[3];
    for (int k = 0; k < 3; ++k) p[k] = std::log2(err[k] / err[k + 1]);
    // Least-squares slope of log e against log Δt over the four steps.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < 4; ++k) {
      const double x = std::log(dts[k]), y = std::log(err[k]);
      sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double slope = (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
    qInfo("%-16s errors %.3e %.3e %.3e %.3e  orders %.3f %.3f %.3f  fitted %.3f", displayName(c.kind), err[0], err[1],
          err[2], err[3], p[0], p[1], p[2], slope);
    QVERIFY2(std::abs(slope - c.expected) <= c.tolerance, displayName(c.kind));
    QVERIFY2(std::abs(p[2] - c.expected) <= c.tolerance, displayName(c.kind));
  }
}

void TestExplicitIntegrators::lessonDriftRk4LoopViolationGrows() {
  // Lesson 1: three-link loop at Δt = 0.01. RK4's loop violation grows (at 20 s > 10× at 2 s and
  // > 1e-6) while the VI's stays ≤ 1e-9; Baumgarte (α = β = 10 1/s) on RK4 bounds it.
  const Lesson& l = findLesson("drift");
  const LessonVariant& vi = variant(l, IntegratorKind::Variational);
  const LessonVariant& rk = variant(l, IntegratorKind::RK4);
  QCOMPARE(rk.dt, 0.01);
  const double T = l.duration;
  QVERIFY(T >= 20);
  auto simVi = make(l, vi), simRk = make(l, rk);
  IntegratorOptions stab = rk.options;
  stab.baumgarteAlpha = stab.baumgarteBeta = 10;
  auto simStab = make(l.scene, stab, rk.dt, l.params);
  double viWorst = 0, rk2 = 0, rk20 = 0, stabWorst = 0, stabLate = 0;
  while (simRk->state().time < T - 1e-9) {
    QVERIFY2(simVi->step(), simVi->metrics().message.c_str());
    QVERIFY2(simRk->step(), simRk->metrics().message.c_str());
    QVERIFY2(simStab->step(), simStab->metrics().message.c_str());
    const double t = simRk->state().time;
    viWorst = std::max(viWorst, simVi->metrics().constraintViolation);
    stabWorst = std::max(stabWorst, simStab->metrics().constraintViolation);
    if (t > T / 2) stabLate = std::max(stabLate, simStab->metrics().constraintViolation);
    if (std::abs(t - 2.0) < 1e-9) rk2 = simRk->metrics().constraintViolation;
    rk20 = simRk->metrics().constraintViolation;
  }
  qInfo("three-link loop, dt 0.01: RK4 violation %.3g m at 2 s, %.3g m at %.0f s (x%.1f); VI max %.3g m; "
        "RK4 + Baumgarte(10, 10) max %.3g m (second half %.3g m)",
        rk2, rk20, T, rk20 / rk2, viWorst, stabWorst, stabLate);
  QVERIFY(rk20 > 10 * rk2);
  QVERIFY(rk20 > 1e-6);
  QVERIFY(viWorst <= 1e-9);
  QVERIFY(stabWorst < rk20 / 10);
  QVERIFY(stabLate <= stabWorst);  // bounded: the second half is no worse than the whole run
}

void TestExplicitIntegrators::lessonEnergyHeunGrowsViBounded() {
  // Lesson 2: double pendulum, 60 s at Δt = 0.01. max|E − E0| over the last 6 s against the first
  // 6 s: Heun's grows (150x); the VI's does not grow over the run — its second half is no worse than
  // its first (a chaotic pendulum's first 6 s do not reach every excursion of its bounded error, which
  // the discrete energy measures at O(Δt²): 0.03 J in the first 6 s, 0.24 J at most in 3,000 s).
  const Lesson& l = findLesson("energy");
  const LessonVariant& vi = variant(l, IntegratorKind::Variational);
  const LessonVariant& heun = variant(l, IntegratorKind::Heun);
  const double T = l.duration, window = T / 10;
  auto simVi = make(l, vi), simHeun = make(l, heun);
  const double E0v = simVi->metrics().energy, E0h = simHeun->metrics().energy;
  double viEarly = 0, viLate = 0, hEarly = 0, hLate = 0, viFirstHalf = 0, viSecondHalf = 0;
  while (simHeun->state().time < T - 1e-9) {
    QVERIFY2(simVi->step(), simVi->metrics().message.c_str());
    QVERIFY2(simHeun->step(), simHeun->metrics().message.c_str());
    const double t = simHeun->state().time;
    const double dv = std::abs(simVi->metrics().energy - E0v), dh = std::abs(simHeun->metrics().energy - E0h);
    if (t <= window + 1e-9) viEarly = std::max(viEarly, dv), hEarly = std::max(hEarly, dh);
    if (t > T - window + 1e-9) viLate = std::max(viLate, dv), hLate = std::max(hLate, dh);
    (t <= T / 2 + 1e-9 ? viFirstHalf : viSecondHalf) = std::max(t <= T / 2 + 1e-9 ? viFirstHalf : viSecondHalf, dv);
  }
  qInfo("double pendulum %.0f s, dt %.3g: Heun max|E-E0| first %.0f s %.4g J, last %.0f s %.4g J (x%.1f); "
        "VI %.4g J, %.4g J (x%.2f)",
        T, heun.dt, window, hEarly, window, hLate, hLate / hEarly, viEarly, viLate, viLate / viEarly);
  qInfo("VI max|E-E0| first half %.4g J, second half %.4g J", viFirstHalf, viSecondHalf);
  QVERIFY(hLate > 10 * hEarly);
  QVERIFY(viSecondHalf <= 1.5 * viFirstHalf);
  QVERIFY(hLate > 50 * viLate);
}

void TestExplicitIntegrators::lessonDissipationEulerUnderdamps() {
  // Lesson 3: damped pendulum at Δt = 0.1. Reference: RK4 at Δt = 1 ms. Measured: the energy lost
  // E0 − E(t) at t = 1, 2, 3, 4, 5 s (the pendulum has nearly stopped by then), and the mechanical
  // energy left above the resting state at 10 s.
  const Lesson& l = findLesson("dissipation");
  const LessonVariant& vi = variant(l, IntegratorKind::Variational);
  const LessonVariant& eu = variant(l, IntegratorKind::ExplicitEuler);
  const LessonVariant& rf = variant(l, IntegratorKind::RK4);
  QCOMPARE(vi.dt, 0.1);
  QCOMPARE(eu.dt, 0.1);
  QCOMPARE(rf.dt, 0.001);
  auto simVi = make(l, vi), simEu = make(l, eu), simRf = make(l, rf);
  // Resting state: hanging, at rest (the link's centre 0.5 m below the pivot).
  const double Erest = -simVi->system().bodies[0].mass * 9.81 * 0.5;
  const double E0 = simVi->metrics().energy;
  QVERIFY(std::abs(simEu->metrics().energy - E0) < 1e-12);
  QVERIFY(std::abs(simRf->metrics().energy - E0) < 1e-12);
  Simulation* sims[3] = {simVi.get(), simEu.get(), simRf.get()};
  double worst = 0;
  for (double T : {1.0, 2.0, 3.0, 4.0, 5.0}) {
    for (Simulation* s : sims) QVERIFY2(runTo(*s, T), s->metrics().message.c_str());
    const double lostVi = E0 - simVi->metrics().energy, lostEu = E0 - simEu->metrics().energy,
                 lostRf = E0 - simRf->metrics().energy;
    const double off = std::abs(lostVi - lostRf) / lostRf;
    worst = std::max(worst, off);
    qInfo("damped pendulum t = %.0f s: energy lost: reference (RK4, 1 ms) %.4f J, VI (0.1 s) %.4f J (%.2f %% off), "
          "explicit Euler (0.1 s) %.4f J",
          T, lostRf, lostVi, 100 * off, lostEu);
    QVERIFY(lostRf > 1.0);
    // (explicit Euler compared at 10 s below)
  }
  QVERIFY(worst <= 0.05);
  double above10[3];
  for (int k = 0; k < 3; ++k) {
    QVERIFY2(runTo(*sims[k], 10.0), sims[k]->metrics().message.c_str());
    above10[k] = sims[k]->metrics().energy - Erest;
  }
  qInfo("damped pendulum: energy above rest at 10 s: reference %.3g J, VI %.3g J, explicit Euler %.3g J (E0 above rest "
        "%.3f J)",
        above10[2], above10[0], above10[1], E0 - Erest);
  QVERIFY(above10[1] > 1.0);                 // explicit Euler still swings (it gained energy)
  QVERIFY(above10[1] > 1000 * above10[2]);   // the reference has come to rest
  QVERIFY(std::abs(above10[0] - above10[2]) < 1e-3);
}

void TestExplicitIntegrators::lessonIntermediateAxisRk4Drifts() {
  // Lesson 5: free body spinning near its intermediate axis, Δt = 0.1, 100 s. RK4's energy and |L|
  // drift; the VI conserves its (discrete) angular momentum to ~1e-12 relative and its energy error
  // stays bounded.
  const Lesson& l = findLesson("intermediate-axis");
  const LessonVariant& vi = variant(l, IntegratorKind::Variational);
  const LessonVariant& rk = variant(l, IntegratorKind::RK4);
  const double T = l.duration;
  auto simVi = make(l, vi), simRk = make(l, rk);
  const Vec3 L0v = simVi->angularMomentum(), L0r = simRk->angularMomentum();
  const double E0v = simVi->metrics().energy, E0r = simRk->metrics().energy;
  double viL = 0, viEarly = 0, viLate = 0, rkE = 0, rkL = 0, rkEarlyE = 0;
  int flips = 0;
  double prev = simRk->state().bodies[0].w.y();
  while (simRk->state().time < T - 1e-9) {
    QVERIFY2(simVi->step(), simVi->metrics().message.c_str());
    QVERIFY2(simRk->step(), simRk->metrics().message.c_str());
    const double t = simRk->state().time;
    viL = std::max(viL, (simVi->angularMomentum() - L0v).norm() / L0v.norm());
    const double ev = std::abs(simVi->metrics().energy - E0v) / E0v;
    if (t <= T / 10 + 1e-9) viEarly = std::max(viEarly, ev);
    if (t > T - T / 10 + 1e-9) viLate = std::max(viLate, ev);
    rkE = std::abs(simRk->metrics().energy - E0r) / E0r;
    rkL = std::abs(simRk->angularMomentum().norm() - L0r.norm()) / L0r.norm();
    if (t <= T / 10 + 1e-9) rkEarlyE = std::max(rkEarlyE, rkE);
    const double w = simRk->state().bodies[0].w.y();
    flips += (w > 0) != (prev > 0);
    prev = w;
  }
  qInfo("free body %.0f s, dt %.2g: RK4 relative energy drift %.3g (%.3g after %.0f s), |L| drift %.3g, %d flips; "
        "VI |L| drift %.3g, relative energy error first tenth %.3g, last tenth %.3g",
        T, rk.dt, rkE, rkEarlyE, T / 10, rkL, flips, viL, viEarly, viLate);
  QVERIFY(flips >= 2);
  QVERIFY(rkE > 1e-6);
  QVERIFY(rkE > 3 * rkEarlyE);  // grows with time
  QVERIFY(rkL > 1e-6);
  QVERIFY(viL <= 1e-10);
  // The VI's discrete energy is conserved exactly for a free body; it differs from the exact energy
  // by O((|ω|Δt)²) (1 % at this coarse step), and stays there.
  QVERIFY(viLate <= 1.5 * viEarly);
  QVERIFY(viLate <= 0.02);
}

void TestExplicitIntegrators::nonFiniteStopsTheRun() {
  // Explicit Euler on a free body tied to the world by a very stiff spring (k = 1e8 N/m, ω = 1e4
  // rad/s) at Δt = 0.1 grows ~1000× per step until it overflows: the step that produces a
  // non-finite value fails and the last finite state is kept.
  Model m = buildScene("free-body");
  SpringDesc sp;
  sp.name = "stiff";
  sp.bodyA = -1;
  sp.bodyB = 0;
  sp.anchorA = Vec3(0, 0, 1);
  sp.stiffness = 1e8;
  m.springs.push_back(sp);
  m.solver.dt = 0.1;
  auto sim = std::make_unique<Simulation>(compile(m));
  sim->setIntegrator(options(IntegratorKind::ExplicitEuler));
  int steps = 0;
  while (steps < 10000 && sim->step()) ++steps;
  qInfo("explicit Euler, k = 1e8 N/m at dt 0.1: failed after %d steps: %s", steps, sim->metrics().message.c_str());
  QVERIFY(sim->failed());
  QCOMPARE(sim->metrics().status, StepStatus::NonFinite);
  for (const BodyState& b : sim->state().bodies) QVERIFY(b.x.allFinite() && b.q.allFinite() && b.v.allFinite() && b.w.allFinite());
  QVERIFY(!sim->step());  // stays failed until reset
  sim->reset();
  QVERIFY(sim->step());
}

void TestExplicitIntegrators::switchingIntegratorAndStepMidRun() {
  auto sim = make("three-link-loop", options(IntegratorKind::Variational), 0.01);
  QVERIFY(runTo(*sim, 1.0));
  const State before = sim->state();
  const Vec3 Lvi = sim->angularMomentum();
  sim->setIntegrator(options(IntegratorKind::RK4));
  QCOMPARE(sim->integratorOptions().kind, IntegratorKind::RK4);
  // Same pose and time; velocities projected onto Gν = 0 (a change of O(Δt)).
  QCOMPARE(sim->state().time, before.time);
  QCOMPARE(sim->state().step, before.step);
  double dv = 0;
  for (size_t i = 0; i < before.bodies.size(); ++i) {
    QCOMPARE(sim->state().bodies[i].x, before.bodies[i].x);
    dv = std::max(dv, (sim->state().bodies[i].v - before.bodies[i].v).norm());
  }
  AccelDynamics dyn(sim->systemPtr());
  double rate = 0;
  for (size_t k = 0; k < sim->system().joints.size(); ++k)
    rate = std::max(rate, dyn.constraintRate(int(k), sim->state()).lpNorm<Eigen::Infinity>());
  qInfo("VI -> RK4 at t = 1 s: velocity change %.3g m/s, |G nu| after %.3g; L discrete %.6f, continuous %.6f", dv, rate,
        Lvi.norm(), sim->angularMomentum().norm());
  QVERIFY(rate < 1e-12);
  QVERIFY(dv < 0.05);
  // Branching a baseline copy from the VI's state: setState keeps it exactly, the projection is explicit.
  auto branch = make("three-link-loop", options(IntegratorKind::Heun), 0.01);
  branch->setState(before);
  QCOMPARE(branch->state().bodies[1].v, before.bodies[1].v);
  QVERIFY(branch->projectVelocitiesOntoConstraints());
  double rate2 = 0;
  for (size_t k = 0; k < sim->system().joints.size(); ++k)
    rate2 = std::max(rate2, dyn.constraintRate(int(k), branch->state()).lpNorm<Eigen::Infinity>());
  QVERIFY(rate2 < 1e-12);
  // Steps continue at the same time base; a new Δt mid-run too.
  QVERIFY(sim->step());
  QVERIFY(std::abs(sim->state().time - 1.01) < 1e-12);
  sim->settings().dt = 0.005;
  for (int k = 0; k < 10; ++k) QVERIFY(sim->step());
  QVERIFY(std::abs(sim->state().time - 1.06) < 1e-12);
  QVERIFY(sim->metrics().constraintViolation < 1e-7);
  // Back to the VI: runs on.
  sim->setIntegrator(options(IntegratorKind::Variational));
  sim->settings().dt = 0.01;
  for (int k = 0; k < 10; ++k) QVERIFY2(sim->step(), sim->metrics().message.c_str());
  QVERIFY(std::abs(sim->state().time - 1.16) < 1e-12);
  QVERIFY(sim->metrics().constraintViolation < 1e-6);
}

void TestExplicitIntegrators::invalidCombinationsAreRefused() {
  auto loop = std::make_unique<Simulation>(compile(buildScene("three-link-loop")));
  QVERIFY_THROWS_EXCEPTION(UserError, loop->setIntegrator(options(IntegratorKind::Variational, 1, 1)));
  QVERIFY_THROWS_EXCEPTION(UserError, loop->setIntegrator(options(IntegratorKind::RK4, -1, 1)));
  QCOMPARE(loop->integratorOptions().kind, IntegratorKind::Variational);  // unchanged
  auto box = std::make_unique<Simulation>(compile(buildScene("box-drop")));
  QVERIFY_THROWS_EXCEPTION(UserError, box->setIntegrator(options(IntegratorKind::RK4)));
  for (IntegratorKind k : {IntegratorKind::ExplicitEuler, IntegratorKind::SymplecticEuler, IntegratorKind::Heun,
                           IntegratorKind::RK4}) {
    auto integ = makeIntegrator(options(k), loop->systemPtr());
    QCOMPARE(std::string(integ->name()), std::string(toString(k)));
  }
}

void TestExplicitIntegrators::softContactHookIsCalled() {
  // Soft contacts are another stage's job; here only the hook: a force that carries the box's weight
  // keeps it hovering, and the hook runs once per stage.
  auto sys = compile(buildScene("box-drop"));
  IntegratorOptions o = options(IntegratorKind::RK4);
  o.contacts = ContactModel::Soft;
  ExplicitIntegrator rk4(IntegratorKind::RK4, o, sys);
  QVERIFY(rk4.softContacts());
  int calls = 0, finished = 0;
  rk4.setContactForceHook([&](const State&, VecX& f) {
    ++calls;
    f(2) += 9.81 * sys->bodies[0].mass;
  });
  rk4.setContactStepHook([&](const StepSettings&, State&, StepReport& rep) {
    ++finished;
    rep.penetration = 0.5;
  });
  Simulation sim(sys);
  State s = sim.state();
  const Vec3 x0 = s.bodies[0].x;
  StepReport rep;
  for (int k = 0; k < 10; ++k) rep = rk4.step(sim.settings(), sim.inputs(), s);
  QCOMPARE(rep.status, StepStatus::Ok);
  QCOMPARE(rep.iterations, 4);
  QCOMPARE(calls, 40);
  QCOMPARE(finished, 10);
  QCOMPARE(rep.penetration, 0.5);
  QVERIFY((s.bodies[0].x - x0).norm() < 1e-12);
  // Rigid contact model: the hook is not consulted.
  ExplicitIntegrator rigid(IntegratorKind::RK4, options(IntegratorKind::RK4), sys);
  QVERIFY(!rigid.softContacts());
}

void TestExplicitIntegrators::stepDoesNotAllocate() {
  auto sys = compile(buildScene("three-link-loop"));
  Simulation sim(sys);
  for (IntegratorKind k : {IntegratorKind::ExplicitEuler, IntegratorKind::SymplecticEuler, IntegratorKind::Heun,
                           IntegratorKind::RK4}) {
    ExplicitIntegrator integ(k, options(k, 5, 5), sys);
    State s = sim.state();
    StepReport rep = integ.step(sim.settings(), sim.inputs(), s);  // warm-up
    g_allocations = 0;
    g_countAllocations = true;
    for (int n = 0; n < 20; ++n) rep = integ.step(sim.settings(), sim.inputs(), s);
    g_countAllocations = false;
    QCOMPARE(rep.status, StepStatus::Ok);
    QCOMPARE(rep.iterations, integ.stages());
    qInfo("%s: %ld allocations in 20 steps", displayName(k), g_allocations.load());
    QCOMPARE(g_allocations.load(), 0L);
  }
}

QTEST_APPLESS_MAIN(TestExplicitIntegrators)
#include "tst_explicit_integrators.moc"
