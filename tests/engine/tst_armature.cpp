// SPDX-License-Identifier: GPL-3.0-or-later
// Joint armature (a rotor's inertia reflected on the joint coordinate, kinetic energy ½ a θ̇²; MJCF's
// `armature`, the model language's `(armature A)`): the variational step applies the effort
// −a (θ̇₁ − θ̇₀)/Δt (vi_assembly.cc). Measured here: a physical pendulum's small-oscillation period
// is that of the inertia about its pivot plus a; the energy (which counts ½ a θ̇²) stays bounded
// without dampers; the .mech reader and writer keep it and refuse a negative one; integrators that do
// not apply it refuse the model instead of ignoring it. (Against MuJoCo itself: tst_mjcf_fidelity.)
#include <QTest>

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "engine/integrator_refusal.h"
#include "integrator/integrator_options.h"
#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "simulation.h"

using namespace ms;

namespace {

constexpr double kMass = 2.0, kArm = 0.5, kIc = 0.03, kG = 9.81;  // kg, m (pivot to centre of mass), kg m², m/s²

// A body hinged to the world about x, its centre of mass kArm below the pivot, starting at θ0.
Model pendulum(double armature, double theta0) {
  Model m;
  m.name = "pendulum";
  BodyDesc b;
  b.name = "bob";
  b.mass = kMass;
  b.inertia = Vec3(kIc, kIc, kIc).asDiagonal();
  b.position = Vec3(0, 0, 1 - kArm);
  m.bodies = {b};
  JointDesc j;
  j.name = "pivot";
  j.parent = -1;
  j.child = 0;
  j.parentAnchor = Vec3(0, 0, 1);
  j.childAnchor = Vec3(0, 0, kArm);
  j.axis = Vec3::UnitX();
  j.initialPosition = {theta0};
  if (armature > 0) j.armature = {armature};
  m.joints = {j};
  m.gravity = Vec3(0, 0, -kG);
  return m;
}

// The period of the pendulum's oscillation, from the times of its first six upward zero crossings.
double measuredPeriod(double armature, double dt) {
  Model m = pendulum(armature, 0.01);
  m.solver.dt = dt;
  Simulation sim(compile(m));
  std::vector<double> crossings;
  double last = sim.jointPosition(0)(0);
  for (int i = 0; i < 200000 && crossings.size() < 6; ++i) {
    if (!sim.step()) return NAN;
    const double now = sim.jointPosition(0)(0);
    if (last < 0 && now >= 0) crossings.push_back(sim.state().time - dt * now / (now - last));  // linear interpolation
    last = now;
  }
  if (crossings.size() < 6) return NAN;
  return (crossings.back() - crossings.front()) / 5.0;
}

// Two such bodies, the second hinged below the first; armatures a1, a2; released from 90°.
Model doublePendulum(double a1, double a2) {
  Model m = pendulum(a1, M_PI / 2);
  BodyDesc b2 = m.bodies[0];
  b2.name = "bob2";
  m.bodies.push_back(b2);
  JointDesc j2 = m.joints[0];
  j2.name = "knee";
  j2.parent = 0;
  j2.child = 1;
  j2.parentAnchor = Vec3(0, 0, -kArm);
  j2.initialPosition = {0.0};
  j2.armature.clear();
  if (a2 > 0) j2.armature = {a2};
  m.joints.push_back(j2);
  m.solver.dt = 0.01;
  return m;
}

}  // namespace

class TstArmature : public QObject {
  Q_OBJECT
 private slots:
  // T = 2π √((I_c + m l² + a) / (m g l)) for small amplitudes (0.01 rad: the amplitude's correction,
  // 1 + θ₀²/16, is 6e-6); with and without armature, Δt 1e-3 (the integrator's phase error ~ (ωΔt)²/24).
  void smallOscillationPeriodCountsTheArmature() {
    for (double a : {0.0, 0.2, 1.0}) {
      const double expected = 2 * M_PI * std::sqrt((kIc + kMass * kArm * kArm + a) / (kMass * kG * kArm));
      const double measured = measuredPeriod(a, 1e-3);
      qInfo("armature %.1f kg m^2: period %.6f s, expected %.6f s (relative difference %.1e)", a, measured, expected,
            std::abs(measured - expected) / expected);
      QVERIFY(std::abs(measured - expected) <= 1e-4 * expected);
    }
  }

  // A double pendulum released from 90°, no damper, 60 s at Δt 0.01: with armature on both hinges its
  // energy (with ½ a θ̇²) stays as bounded as without armature — measured per 10 s window, the
  // largest |E − E0| of the last window is not above the first's by more than the run's own scatter,
  // and the whole run's is of the order of the plain double pendulum's (whose error the integrator
  // bounds, docs/engine.md).
  void energyStaysBounded() {
    double worst[2] = {0, 0};
    for (int withArmature = 0; withArmature < 2; ++withArmature) {
      Model m = doublePendulum(withArmature ? 0.3 : 0.0, withArmature ? 0.1 : 0.0);
      Simulation sim(compile(m));
      const double e0 = sim.kineticEnergy() + sim.potentialEnergy();
      double window[6] = {0, 0, 0, 0, 0, 0}, rotorMax = 0;
      for (int i = 0; i < 6000; ++i) {
        QVERIFY2(sim.step(), sim.metrics().message.c_str());
        double& w = window[i / 1000];
        w = std::max(w, std::abs(sim.kineticEnergy() + sim.potentialEnergy() - e0));
        const double w1 = sim.jointVelocity(0)(0), w2 = sim.jointVelocity(1)(0);
        if (withArmature) rotorMax = std::max(rotorMax, 0.5 * 0.3 * w1 * w1 + 0.5 * 0.1 * w2 * w2);
      }
      worst[withArmature] = *std::max_element(window, window + 6);
      qInfo("%s armature: E0 = %.3f J, max |E - E0| per 10 s: %.3f %.3f %.3f %.3f %.3f %.3f J%s", withArmature ? "with" : "without",
            e0, window[0], window[1], window[2], window[3], window[4], window[5],
            withArmature ? qPrintable(QString(" (the rotors hold up to %1 J)").arg(rotorMax, 0, 'f', 2)) : "");
      QVERIFY(window[5] <= 2 * *std::max_element(window, window + 5));
    }
    QVERIFY(worst[1] <= 2 * worst[0]);
  }

  // (armature A) in a joint: read, written back, negative refused at its place.
  void modelLanguage() {
    const std::string text = R"((mechanism t (body b (mass 1) (shape box 0.1 0.1 0.1) (joint revolute j (axis 1 0 0) (armature 0.25)))))";
    MechParseResult r;
    Diagnostics d;
    QVERIFY2(readMechText(text, "t.mech", {}, r, d), d.format().c_str());
    QCOMPARE(r.model.joints[0].armature, std::vector<double>{0.25});
    const std::string written = writeMech(r.model);
    QVERIFY2(written.find("(armature 0.25)") != std::string::npos, written.c_str());
    MechParseResult bad;
    Diagnostics d2;
    QVERIFY(!readMechText("(mechanism t (body b (mass 1) (shape box 0.1 0.1 0.1) (joint revolute j (armature -1))))", "bad.mech", {}, bad, d2));
    QVERIFY2(d2.format().find("bad.mech:1:83: error: armature must not be negative (got -1)") != std::string::npos,
             d2.format().c_str());
  }

  // The explicit and generalized-coordinate integrators do not apply armature: they refuse it.
  void otherIntegratorsRefuseIt() {
    Simulation sim(compile(pendulum(0.2, 0.3)));
    for (IntegratorKind k : {IntegratorKind::RK4, IntegratorKind::ExplicitEuler, IntegratorKind::MidpointGC})
      QVERIFY(test::refusesIntegrator(sim, k, "joint 'pivot' has an armature"));
  }
};

QTEST_APPLESS_MAIN(TstArmature)
#include "tst_armature.moc"
