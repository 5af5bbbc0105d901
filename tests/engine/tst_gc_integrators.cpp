// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for the generalized-coordinate integrators (engine/integrator/gc/): the DRNEA gradients and
// the analytic second derivatives against finite differences of a Lagrangian computed independently
// (from finite-difference body velocities), the articulated-body solve against the mass matrix, the
// Newton Jacobian of midpoint-gc against finite differences of its residual (trees, loops, forces
// through the bodies), and the acceptance claims: bounded energy over 3600 s, observed order 2,
// loops held to 1e-9, agreement with a fine RK4 reference, chart re-centring on a tumbling body,
// refusals with reasons, restart, no allocation per step.
#include <QTest>

#include <cmath>
#include <random>

#include "sanitizer_build.h"
#include "allocation_counter.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "integrator/gc/midpoint_gc_step.h"
#include "integrator/gc/riqn_step.h"
#include "integrator/integrator_options.h"
#include "io/model_file.h"
#include "scenes/scenes.h"
#include "comparison.h"
#include "scenes/lessons.h"
#include "simulation.h"
#include "test_paths.h"

using namespace ms;
using Params = std::map<std::string, std::string>;

namespace {

IntegratorOptions options(IntegratorKind k) {
  IntegratorOptions o;
  o.kind = k;
  return o;
}

std::unique_ptr<Simulation> make(const Model& model, IntegratorKind k, double dt) {
  Model m = model;
  m.solver.dt = dt;
  auto sim = std::make_unique<Simulation>(compile(m));
  sim->setIntegrator(options(k));
  sim->reset();
  return sim;
}

std::unique_ptr<Simulation> make(const std::string& scene, IntegratorKind k, double dt, const Params& p = {}) {
  return make(buildScene(scene, p), k, dt);
}


// A lesson's copies in lockstep (as `mechstudio-cli lesson`), run for T seconds; per copy the
// total iterations and steps.
struct LessonRun {
  std::unique_ptr<Comparison> cmp;
  std::vector<long> iterations, steps;
  std::vector<double> maxViolation, maxEnergyError;
};
LessonRun runLesson(const Lesson& l, double T) {
  LessonRun r;
  std::vector<ComparisonCopy> copies;
  for (const LessonVariant& v : l.variants) copies.push_back({v.label, v.options, v.dt, v.tolerance});
  r.cmp = std::make_unique<Comparison>(compile(lessonModel(l)), copies);
  const int n = r.cmp->size();
  r.iterations.assign(n, 0);
  r.steps.assign(n, 0);
  r.maxViolation.assign(n, 0);
  r.maxEnergyError.assign(n, 0);
  std::vector<double> e0(n);
  for (int i = 0; i < n; ++i) e0[i] = r.cmp->simulation(i).metrics().energy;
  r.cmp->advanceTo(T, [&](int i) {
    const StepMetrics& m = r.cmp->simulation(i).metrics();
    r.iterations[i] += m.iterations;
    r.steps[i] += 1;
    r.maxViolation[i] = std::max(r.maxViolation[i], m.constraintViolation);
    r.maxEnergyError[i] = std::max(r.maxEnergyError[i], std::abs(m.energy - e0[i]));
  });
  return r;
}

bool runTo(Simulation& sim, double T) {
  while (sim.state().time < T - 0.5 * sim.settings().dt)
    if (!sim.step()) return false;
  return true;
}

Mat3 randomInertia(std::mt19937& rng) {
  // Principal moments in [0.2, 0.5] (the triangle inequality holds), principal axes turned at random.
  std::uniform_real_distribution<double> u(-1, 1), d(0.2, 0.5);
  const Mat3 R = quat::rotation(quat::fromRotationVector(Vec3(u(rng), u(rng), u(rng))));
  return R * Vec3(d(rng), d(rng), d(rng)).asDiagonal() * R.transpose();
}

JointDesc joint(const std::string& name, JointType t, int parent, int child, const Vec3& pa, const Vec3& pb, const Vec3& axis,
                const Vec4& offset = quat::identity()) {
  JointDesc j;
  j.name = name;
  j.type = t;
  j.parent = parent;
  j.child = child;
  j.parentAnchor = pa;
  j.childAnchor = pb;
  j.axis = axis;
  j.offset = offset;
  return j;
}

// A tree with every supported joint type: revolute (world→b0), spherical (b0→b1), prismatic
// (b1→b2), floating (b0→b3), revolute (b3→b4) and a root body b5 with no joint, random inertias.
Model mixedTree() {
  std::mt19937 rng(7);
  Model m;
  m.name = "mixed";
  for (int i = 0; i < 6; ++i) {
    BodyDesc b;
    b.name = "b" + std::to_string(i);
    b.mass = 0.5 + 0.3 * i;
    b.inertia = randomInertia(rng);
    m.bodies.push_back(b);
  }
  m.bodies[5].position = Vec3(1, 2, 0.5);
  m.bodies[5].orientation = quat::fromAxisAngle(Vec3(1, 1, 0), 0.4);
  m.bodies[5].linearVelocity = Vec3(0.3, -0.2, 1.0);
  m.bodies[5].angularVelocity = Vec3(0.5, 1.5, -0.7);
  m.joints.push_back(joint("j0", JointType::Revolute, -1, 0, Vec3(0, 0, 0), Vec3(0, 0, 0.5), Vec3(0.3, 0.2, 1),
                           quat::fromAxisAngle(Vec3(1, 0, 0), 0.3)));
  m.joints.push_back(joint("j1", JointType::Spherical, 0, 1, Vec3(0, 0, -0.5), Vec3(0.1, 0, 0.4), Vec3::UnitZ()));
  m.joints.push_back(joint("j2", JointType::Prismatic, 1, 2, Vec3(0, 0, -0.4), Vec3(0, 0, 0.3), Vec3(1, 0.5, 0.2)));
  m.joints.push_back(joint("j3", JointType::Floating, 0, 3, Vec3(0.2, 0, 0), Vec3(0, 0.1, 0), Vec3::UnitZ()));
  m.joints.push_back(joint("j4", JointType::Revolute, 3, 4, Vec3(0, 0, -0.3), Vec3(0, 0, 0.3), Vec3(1, 0, 0)));
  m.joints[0].initialPosition = {0.4};
  m.joints[0].initialVelocity = {1.2};
  m.joints[1].initialPosition = {0.2, -0.3, 0.1};
  m.joints[1].initialVelocity = {0.7, 0.4, -0.9};
  m.joints[2].initialPosition = {0.15};
  m.joints[2].initialVelocity = {-0.5};
  m.joints[3].initialPosition = {0.1, 0.2, -0.1, 0.3, 0.1, -0.2};
  m.joints[3].initialVelocity = {0.2, -0.1, 0.3, 0.8, -0.6, 0.5};
  m.joints[4].initialPosition = {-0.6};
  m.joints[4].initialVelocity = {2.0};
  return m;
}

// The Lagrangian computed without the twist machinery: COM velocities and angular velocities by
// central differences of the forward kinematics along q̇.
double lagrangian(const gc::GcTree& t, const gc::Charts& charts, const VecX& q, const VecX& qd, const Vec3& g) {
  gc::Kinematics k, s[4];
  k.resize(t);
  // Fourth-order central differences along q̇ (steps −2e, −e, e, 2e).
  const double e = 1e-3, w[4] = {1, -8, 8, -1}, at[4] = {-2, -1, 1, 2};
  gc::forwardKinematics(t, charts, q, k);
  for (int i = 0; i < 4; ++i) {
    s[i].resize(t);
    gc::forwardKinematics(t, charts, VecX(q + at[i] * e * qd), s[i]);
  }
  double L = 0;
  for (size_t b = 0; b < t.bodyCoord.size(); ++b) {
    const CompiledBody& cb = t.sys->bodies[b];
    Vec3 v = Vec3::Zero();
    Mat3 dR = Mat3::Zero();
    for (int i = 0; i < 4; ++i) {
      v += w[i] * s[i].x[b] / (12 * e);
      dR += w[i] * s[i].R[b] / (12 * e);
    }
    const Mat3 W = dR * k.R[b].transpose();  // ω^×
    const Vec3 om(W(2, 1), W(0, 2), W(1, 0));
    const Mat3 Iw = k.R[b] * cb.inertia * k.R[b].transpose();
    L += 0.5 * cb.mass * v.squaredNorm() + 0.5 * om.dot(Iw * om) + cb.mass * g.dot(k.x[b]);
  }
  return L;
}

struct Fixture {
  gc::GcTree tree;
  gc::Charts charts;
  VecX q, qd;
};

// The tree of a model at its initial state, with the chart angles moved away from zero.
Fixture fixture(const Model& model, unsigned seed) {
  auto sys = compile(model);
  Simulation sim(sys);
  sim.reset();
  Fixture f{gc::buildGcTree(sys, false), {}, {}, {}};
  const int n = f.tree.size();
  f.q.setZero(n);
  f.charts.assign(f.tree.joints.size(), quat::identity());
  gc::coordinatesFromState(f.tree, sim.state(), f.q, f.charts);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  for (int i = 0; i < n; ++i) f.q(i) += u(rng);
  f.qd.resize(n);
  for (int i = 0; i < n; ++i) f.qd(i) = 2 * u(rng);
  return f;
}

double relErr(const MatX& a, const MatX& b) { return (a - b).lpNorm<Eigen::Infinity>() / std::max(1.0, b.lpNorm<Eigen::Infinity>()); }

// Energy over a run: max |E − E0| in the first and in the last tenth.
struct Tenths {
  double first = 0, last = 0;
  bool ok = true;
};
Tenths energyTenths(Simulation& sim, double T) {
  Tenths r;
  const double E0 = sim.metrics().energy;
  const long steps = std::lround(T / sim.settings().dt);
  for (long s = 1; s <= steps; ++s) {
    if (!sim.step()) {
      r.ok = false;
      return r;
    }
    const double d = std::abs(sim.metrics().energy - E0);
    if (s <= steps / 10) r.first = std::max(r.first, d);
    if (s > steps - steps / 10) r.last = std::max(r.last, d);
  }
  return r;
}

}  // namespace

class TestGcIntegrators : public QObject {
  Q_OBJECT

 private slots:
  // DRNEA's ∂L/∂q̇ and ∂L/∂q against finite differences of an independently computed L.
  void gradientsMatchFiniteDifferences() {
    for (const Model& model : {mixedTree(), buildScene("chain", {{"n", "5"}})}) {
      const Fixture f = fixture(model, 3);
      const Vec3 g(0.3, -0.2, -9.81);
      gc::Kinematics k;
      k.resize(f.tree);
      gc::Terms terms;
      terms.resize(f.tree);
      gc::forwardKinematics(f.tree, f.charts, f.q, k);
      gc::velocities(f.tree, f.qd, k);
      gc::lagrangianGradients(f.tree, k, g, terms, true);
      const int n = f.tree.size();
      VecX p(n), Lq(n);
      const double e = 1e-5;
      for (int i = 0; i < n; ++i) {
        VecX d = VecX::Unit(n, i) * e;
        p(i) = (lagrangian(f.tree, f.charts, f.q, f.qd + d, g) - lagrangian(f.tree, f.charts, f.q, f.qd - d, g)) / (2 * e);
        Lq(i) = (lagrangian(f.tree, f.charts, f.q + d, f.qd, g) - lagrangian(f.tree, f.charts, f.q - d, f.qd, g)) / (2 * e);
      }
      qInfo("%s (%d coordinates): rel. error dL/dqdot %.2e, dL/dq %.2e", model.name.c_str(), n, relErr(terms.p, p),
            relErr(terms.Lq, Lq));
      QVERIFY(relErr(terms.p, p) < 1e-6);
      QVERIFY(relErr(terms.Lq, Lq) < 1e-6);
    }
  }

  // M, ∂(∂L/∂q̇)/∂q and ∂²L/∂q² against finite differences of the DRNEA gradients; ABA against M.
  void secondDerivativesAndAba() {
    for (const Model& model : {mixedTree(), buildScene("chain", {{"n", "6"}, {"joint", "spherical"}})}) {
      const Fixture f = fixture(model, 11);
      const Vec3 g(0.3, -0.2, -9.81);
      const int n = f.tree.size();
      gc::Kinematics k;
      k.resize(f.tree);
      gc::Terms terms;
      terms.resize(f.tree);
      auto grads = [&](const VecX& q, const VecX& qd, VecX& p, VecX& Lq) {
        gc::forwardKinematics(f.tree, f.charts, q, k);
        gc::velocities(f.tree, qd, k);
        gc::lagrangianGradients(f.tree, k, g, terms, true);
        p = terms.p;
        Lq = terms.Lq;
      };
      MatX Mfd(n, n), Afd(n, n), Hfd(n, n);
      const double e = 1e-6;
      for (int i = 0; i < n; ++i) {
        const VecX d = VecX::Unit(n, i) * e;
        VecX p1, L1, p2, L2;
        grads(f.q, f.qd + d, p1, L1);
        grads(f.q, f.qd - d, p2, L2);
        Mfd.col(i) = (p1 - p2) / (2 * e);
        grads(f.q + d, f.qd, p1, L1);
        grads(f.q - d, f.qd, p2, L2);
        Afd.col(i) = (p1 - p2) / (2 * e);
        Hfd.col(i) = (L1 - L2) / (2 * e);
      }
      VecX p, Lq;
      grads(f.q, f.qd, p, Lq);
      MatX M, A, H;
      gc::lagrangianHessians(f.tree, k, terms, g, M, A, H);
      qInfo("%s: rel. error M %.2e, A %.2e, H %.2e", model.name.c_str(), relErr(M, Mfd), relErr(A, Afd), relErr(H, Hfd));
      QVERIFY(relErr(M, Mfd) < 1e-6);
      QVERIFY(relErr(A, Afd) < 1e-6);
      QVERIFY(relErr(H, Hfd) < 1e-6);
      // The articulated-body solve inverts the same M.
      gc::AbaWork w;
      w.resize(f.tree);
      VecX tau = VecX::LinSpaced(n, -1, 2), x(n);
      QVERIFY(gc::solveMass(f.tree, k, tau, x, w));
      const double abaErr = (M * x - tau).lpNorm<Eigen::Infinity>() / tau.lpNorm<Eigen::Infinity>();
      qInfo("%s: ABA |M x - tau|/|tau| = %.2e", model.name.c_str(), abaErr);
      QVERIFY(abaErr < 1e-10);
    }
  }

  // The Newton matrix of midpoint-gc against central differences of its residual: a tree with every
  // joint type, a closed loop, and forces through the bodies (a spring between bodies, a damped
  // spherical joint, an external force and torque, springs and dampers on revolute coordinates).
  void newtonJacobianMatchesFiniteDifferences() {
    Model tree = mixedTree();
    tree.joints[0].stiffness = {3};
    tree.joints[0].damping = {0.4};
    Model forced = tree;
    SpringDesc sp;
    sp.bodyA = 2;
    sp.bodyB = 4;
    sp.anchorA = Vec3(0.1, 0, 0);
    sp.stiffness = 20;
    sp.restLength = 0.3;
    sp.damping = 0.5;
    forced.springs.push_back(sp);
    forced.joints[1].damping = {0.3};
    Model loop = buildScene("three-link-loop", {});
    for (auto& [name, model, withInputs] : {std::tuple<const char*, Model, bool>{"tree", tree, false},
                                            std::tuple<const char*, Model, bool>{"forced", forced, true},
                                            std::tuple<const char*, Model, bool>{"loop", loop, false}}) {
      auto sys = compile(model);
      Simulation sim(sys);
      sim.reset();
      MidpointGCIntegrator integ(sys);
      StepSettings st;
      st.dt = 0.01;
      st.gravity = Vec3(0.2, 0.1, -9.81);
      integ.begin(st, sim.state());
      Inputs in = sim.inputs();
      if (withInputs) {
        in.force[3] = Vec3(1, -2, 0.5);
        in.torque[1] = Vec3(0.3, 0.2, -0.4);
      }
      const int n = integ.tree().size(), m = integ.tree().numLoopRows;
      VecX q1 = integ.coordinates() + st.dt * integ.rates() + 1e-3 * VecX::LinSpaced(n, -1, 1);
      VecX lambda = VecX::LinSpaced(m, 0.5, -0.3);
      MatX J;
      integ.jacobian(st, in, q1, lambda, J);
      MatX Jfd(n + m, n + m);
      VecX rp, rm;
      const double e = 1e-7;
      for (int i = 0; i < n + m; ++i) {
        VecX qp = q1, qm = q1, lp = lambda, lm = lambda;
        if (i < n) {
          qp(i) += e;
          qm(i) -= e;
        } else {
          lp(i - n) += e;
          lm(i - n) -= e;
        }
        integ.residual(st, in, qp, lp, rp);
        integ.residual(st, in, qm, lm, rm);
        Jfd.col(i) = (rp - rm) / (2 * e);
      }
      qInfo("%s (%d coordinates, %d loop rows): Newton matrix rel. error %.2e", name, n, m, relErr(J, Jfd));
      QVERIFY(relErr(J, Jfd) < 1e-5);
    }
  }

  // Acceptance: double pendulum, Δt 0.01, 3600 s: the energy error stays bounded (last tenth at
  // most 1.5× the first) for both integrators.
  void doublePendulumEnergyBounded() {
    for (IntegratorKind k : {IntegratorKind::MidpointGC, IntegratorKind::RIQN}) {
      auto sim = make("double-pendulum", k, 0.01);
      const Tenths t = energyTenths(*sim, test::sanitizerBuild() ? 360 : 3600);
      qInfo("%s: max|E-E0| first tenth %.4g J, last tenth %.4g J (ratio %.3f)", toString(k), t.first, t.last,
            t.last / t.first);
      QVERIFY(t.ok);
      QVERIFY(t.first > 0);
      QVERIFY(t.last <= 1.5 * t.first);
    }
  }

  // Acceptance: the observed order of midpoint-gc on the double pendulum is 2 ± 0.2 (positions at
  // t = 1 s against a run at Δt/64); riqn solves the same equations and has the same order.
  void observedOrderIsTwo() {
    for (IntegratorKind k : {IntegratorKind::MidpointGC, IntegratorKind::RIQN}) {
      const double T = 1.0, h0 = 0.02;
      auto ref = make("double-pendulum", k, h0 / 64);
      QVERIFY(runTo(*ref, T));
      std::vector<double> err;
      for (double h : {h0, h0 / 2, h0 / 4}) {
        auto sim = make("double-pendulum", k, h);
        QVERIFY(runTo(*sim, T));
        err.push_back((sim->state().bodies[1].x - ref->state().bodies[1].x).norm());
      }
      const double o1 = std::log2(err[0] / err[1]), o2 = std::log2(err[1] / err[2]);
      qInfo("%s: errors %.3e %.3e %.3e, observed orders %.3f %.3f", toString(k), err[0], err[1], err[2], o1, o2);
      QVERIFY(std::abs(o1 - 2) <= 0.2);
      QVERIFY(std::abs(o2 - 2) <= 0.2);
    }
  }

  // Acceptance: where all are exact (a single pendulum, small steps), midpoint-gc, riqn and the
  // maximal-coordinate VI agree with a fine RK4 reference to their expected order.
  void singlePendulumAgreesWithRk4() {
    const double T = 1.0;
    // (The sanitizer build takes the reference at 1e-4 s: RK4's error there, ~1e-16, is still far
    // below the compared integrators' ~1e-7.)
    const double href = test::sanitizerBuild() ? 1e-4 : 1e-5;
    auto ref = make("pendulum", IntegratorKind::RK4, href);
    QVERIFY(runTo(*ref, T));
    const Vec3 xref = ref->state().bodies[0].x;
    for (auto [k, order] : {std::pair{IntegratorKind::MidpointGC, 2.0}, std::pair{IntegratorKind::RIQN, 2.0},
                            std::pair{IntegratorKind::Variational, 2.0}}) {
      std::vector<double> err;
      for (double h : {0.004, 0.002, 0.001}) {
        auto sim = make("pendulum", k, h);
        QVERIFY(runTo(*sim, T));
        err.push_back((sim->state().bodies[0].x - xref).norm());
      }
      const double o = std::log2(err[1] / err[2]);
      qInfo("%s: errors %.3e %.3e %.3e against RK4 (%g s), observed order %.3f", toString(k), err[0], err[1], err[2], href,
            o);
      QVERIFY(err[2] < 1e-3);
      QVERIFY(o > order - 0.2);
    }
  }

  // Acceptance: midpoint-gc on the three-link loop and on trep's closed chain, 60 s: loop violation
  // at most 1e-9 and the energy bounded.
  void loopsHeld() {
    struct Case {
      const char* name;
      Model model;
    };
    std::vector<Case> cases;
    cases.push_back({"three-link-loop", buildScene("three-link-loop", {})});
    Model trep;
    std::string failure;
    QVERIFY2(test::loadGallery("trep-closed-chain.trep", {}, trep, failure), failure.c_str());
    cases.push_back({"trep-closed-chain.trep", trep});
    for (const Case& c : cases) {
      auto sim = make(c.model, IntegratorKind::MidpointGC, c.model.solver.dt);
      const double E0 = sim->metrics().energy;
      double viol = 0, dE = 0, dEfirst = 0;
      const long steps = std::lround(60 / sim->settings().dt);
      for (long s = 1; s <= steps; ++s) {
        QVERIFY2(sim->step(), c.name);
        viol = std::max(viol, sim->metrics().constraintViolation);
        dE = std::max(dE, std::abs(sim->metrics().energy - E0));
        if (s == steps / 10) dEfirst = dE;
      }
      qInfo("%s, midpoint-gc, 60 s: max violation %.2e, max|E-E0| %.3e J (first tenth %.3e J)", c.name, viol, dE, dEfirst);
      QVERIFY(viol <= 1e-9);
      QVERIFY(dE <= 1.5 * dEfirst + 1e-9);
    }
  }

  // A joint type without coordinates (cylindrical) is held as a constraint on a floating body: the
  // double pendulum with a cylindrical second joint keeps it to 1e-9 and its energy bounded (600 s).
  void jointWithoutCoordinatesHeldAsConstraint() {
    Model cyl = buildScene("double-pendulum", {});
    cyl.joints[1].type = JointType::Cylindrical;
    auto sim = make(cyl, IntegratorKind::MidpointGC, 0.01);
    const Tenths t = energyTenths(*sim, 600);
    qInfo("cylindrical double pendulum, 600 s: max|E-E0| first tenth %.4g J, last tenth %.4g J, violation %.2e", t.first,
          t.last, sim->metrics().constraintViolation);
    QVERIFY(t.ok);
    QVERIFY(t.last <= 1.5 * t.first);
    QVERIFY(sim->metrics().constraintViolation <= 1e-9);
  }

  // A tumbling free body crosses many chart re-centrings: energy and angular momentum stay close,
  // and the motion follows the maximal-coordinate VI for a short time.
  void chartRecentringOnTumblingBody() {
    const Params p = {{"spin", "4"}, {"perturbation", "0.3"}};
    auto gcSim = make("free-body", IntegratorKind::MidpointGC, 0.001, p);
    auto viSim = make("free-body", IntegratorKind::Variational, 0.001, p);
    const double E0 = gcSim->metrics().energy;
    const Vec3 L0 = gcSim->angularMomentum();
    double dE = 0, dL = 0, dq = 0;
    for (int s = 0; s < 20000; ++s) {
      QVERIFY(gcSim->step());
      if (s < 1000) {
        QVERIFY(viSim->step());
        dq = std::max(dq, 1 - std::abs(gcSim->state().bodies[0].q.dot(viSim->state().bodies[0].q)));
      }
      dE = std::max(dE, std::abs(gcSim->metrics().energy - E0));
      dL = std::max(dL, (gcSim->angularMomentum() - L0).norm());
    }
    qInfo("free body, 20 s: max|E-E0| %.2e J (E0 %.3f), max|L-L0| %.2e (|L0| %.3f), 1-|q.q_vi| over 1 s %.2e", dE, E0,
          dL, L0.norm(), dq);
    QVERIFY(dE < 1e-3 * std::abs(E0));
    QVERIFY(dL < 1e-2 * L0.norm());
    QVERIFY(dq < 1e-4);
  }

  // Lesson 7's claim (Fig. 10): on the 300-link chain the VI completes at 1e-10; midpoint-gc
  // completes at 1e-6 and 1e-8 and stops at 1e-10 within 3.5 s; riqn stops at every tolerance, and
  // no later at a tighter one.
  void lessonToleranceClaim() {
    if (test::sanitizerBuild()) QSKIP("five seconds of a 300-link chain in seven copies: Release only");
    const Lesson& l = findLesson("tolerance");
    const LessonRun r = runLesson(l, l.duration);
    for (int i = 0; i < r.cmp->size(); ++i)
      qInfo("%-24s %s, %ld steps, %.2f iterations/step%s", r.cmp->copy(i).label.c_str(),
            r.cmp->stopped(i) ? "stopped" : "completed", r.steps[i], double(r.iterations[i]) / std::max(1L, r.steps[i]),
            r.cmp->stopped(i) ? (", " + r.cmp->stopReason(i)).c_str() : "");
    auto index = [&](const std::string& label) {
      for (int i = 0; i < r.cmp->size(); ++i)
        if (r.cmp->copy(i).label == label) return i;
      throw std::runtime_error("no copy " + label);
    };
    QVERIFY(!r.cmp->stopped(index("VI, tol 1e-10")));
    QVERIFY(!r.cmp->stopped(index("midpoint-gc, tol 1e-6")));
    QVERIFY(!r.cmp->stopped(index("midpoint-gc, tol 1e-8")));
    QVERIFY(r.cmp->stopped(index("midpoint-gc, tol 1e-10")));
    QVERIFY(r.steps[index("midpoint-gc, tol 1e-10")] < 350);
    const int r6 = index("riqn, tol 1e-6"), r8 = index("riqn, tol 1e-8"), r10 = index("riqn, tol 1e-10");
    for (int i : {r6, r8, r10}) QVERIFY(r.cmp->stopped(i));
    QVERIFY(r.steps[r10] <= r.steps[r8] && r.steps[r8] <= r.steps[r6]);
  }

  // Lesson 8's claim: on the double four-bar both the VI and midpoint-gc pass every flat
  // configuration over 60 s with the loops closed to 1e-9 m; midpoint-gc's energy error is several
  // times smaller (6.1x measured: both are second order), and both stay bounded.
  void lessonSingularClaim() {
    const Lesson& l = findLesson("singular");
    const LessonRun r = runLesson(l, test::sanitizerBuild() ? 10 : l.duration);
    for (int i = 0; i < r.cmp->size(); ++i)
      qInfo("%s: %ld steps, max violation %.2e, max|E-E0| %.4g J", r.cmp->copy(i).label.c_str(), r.steps[i],
            r.maxViolation[i], r.maxEnergyError[i]);
    for (int i = 0; i < 2; ++i) {
      QVERIFY(!r.cmp->stopped(i));
      QVERIFY(r.maxViolation[i] <= 1e-9);
    }
    QVERIFY(r.maxEnergyError[1] * 3 < r.maxEnergyError[0]);
  }

  // Lesson 11's claim (double pendulum): a VI step 4 times smaller cuts its energy error ~16 times
  // (second order; its cost, 4 times the steps, is measured in the lesson's table, not here); RK4
  // with Baumgarte at 10 ms has a smaller energy error than the VI at 2.5 ms; RK4 without it lets
  // the constraints drift (violation above 1 mm, energy error the largest of all).
  void lessonCostClaim() {
    const Lesson& l = findLesson("cost");
    QCOMPARE(l.figure, std::string("work-precision-double-pendulum.png"));
    // The whole 60 s also in the sanitizer build (~0.5 s in Release): the drift needs the time.
    const LessonRun r = runLesson(l, l.duration);
    QCOMPARE(int(r.maxEnergyError.size()), 5);
    for (int i = 0; i < 5; ++i) {
      qInfo("%s: %ld steps, max violation %.3g, max|E-E0| %.4g J", l.variants[size_t(i)].label.c_str(), r.steps[size_t(i)],
            r.maxViolation[size_t(i)], r.maxEnergyError[size_t(i)]);
      QVERIFY(!r.cmp->stopped(i));
    }
    QCOMPARE(r.steps[1], 4 * r.steps[0]);
    const double ratio = r.maxEnergyError[0] / r.maxEnergyError[1];
    QVERIFY2(ratio > 12 && ratio < 20, qPrintable(QString::number(ratio)));
    QVERIFY(r.maxEnergyError[3] < r.maxEnergyError[1]);
    QVERIFY(r.maxViolation[4] > 1e-3);
    for (int i = 0; i < 4; ++i) QVERIFY(r.maxEnergyError[4] > r.maxEnergyError[size_t(i)]);
  }

  // Bad combinations are refused with the reason.
  void refusals() {
    struct Case {
      IntegratorKind kind;
      Model model;
      const char* expect;
    };
    Model cyl = buildScene("pendulum", {});
    cyl.joints[0].type = JointType::Cylindrical;
    Model limited;
    std::string failure;
    QVERIFY2(test::loadGallery("limited-pendulum.mech", {}, limited, failure), failure.c_str());
    const Case cases[] = {
        {IntegratorKind::RIQN, buildScene("three-link-loop", {}), "closes a loop"},
        {IntegratorKind::MidpointGC, buildScene("box-drop", {}), "contacts"},
        {IntegratorKind::RIQN, buildScene("box-drop", {}), "contacts"},
        {IntegratorKind::RIQN, cyl, "cylindrical"},
        {IntegratorKind::MidpointGC, limited, "limits"},
    };
    for (const Case& c : cases) {
      Simulation sim(compile(c.model));
      try {
        sim.setIntegrator(options(c.kind));
        QFAIL("accepted");
      } catch (const UserError& e) {
        qInfo("%s: %s", toString(c.kind), e.what());
        QVERIFY2(std::string(e.what()).find(c.expect) != std::string::npos, e.what());
      }
    }
  }

  // A state set from outside is taken as the new start; the step does not allocate.
  void restartAndNoAllocation() {
    for (IntegratorKind k : {IntegratorKind::MidpointGC, IntegratorKind::RIQN}) {
      const std::string scene = k == IntegratorKind::RIQN ? "chain" : "three-link-loop";
      auto sim = make(scene, k, 0.01);
      for (int s = 0; s < 50; ++s) QVERIFY(sim->step());
      State st = sim->state();
      auto fresh = make(scene, k, 0.01);
      fresh->setState(st);
      for (int s = 0; s < 30; ++s) {
        QVERIFY(sim->step());
        QVERIFY(fresh->step());
      }
      const double d = (sim->state().bodies.back().x - fresh->state().bodies.back().x).norm();
      qInfo("%s on %s: restarted copy differs by %.2e m after 30 steps", toString(k), scene.c_str(), d);
      QVERIFY(d < 1e-9);
#ifdef MS_TEST_COUNTS_MALLOC
      g_allocations = 0;
      g_countAllocations = true;
      for (int s = 0; s < 20; ++s) sim->step();
      g_countAllocations = false;
      qInfo("%s: %ld allocations in 20 steps", toString(k), g_allocations.load());
      QCOMPARE(g_allocations.load(), 0L);
#endif
    }
  }
};

QTEST_GUILESS_MAIN(TestGcIntegrators)
#include "tst_gc_integrators.moc"
