// SPDX-License-Identifier: GPL-3.0-or-later
// models/exoskeleton-arm.mech, the arm exoskeleton of Brüdigam et al. 2023 §5.4 and Appendix E
// (Algorithm 8): a 4-DoF exoskeleton strapped to a passive human arm by two compliant
// `planar-axis` cuffs, which close two connected kinematic loops. Measured over 10 s of the
// rehabilitation exercise at the file's own Δt: the loops stay closed, every step converges, the
// exoskeleton's shoulder and elbow flexion follow their sinusoids (and so does the arm), the cuffs
// really deflect but only a little, and the gain factor `scale` changes the elbow torque. Each test
// states the acceptance criterion it checks; the measured figures are printed with qInfo().
#include <QTest>

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "sanitizer_build.h"
#include "core/quaternion.h"
#include "io/model_file.h"
#include "simulation.h"
#include "system/compiled_system.h"

#include "state_checks.h"
#include "test_paths.h"

using namespace ms;

namespace {


// Algorithm 8's trajectories, sin(t) with t in seconds.
double shoulderTarget(double t) { return kPi / 4 + kPi / 4 * std::sin(t); }
double elbowTarget(double t) { return -kPi / 4 + kPi / 4 * std::sin(t); }

// What one run of the exercise measured.
struct ExoRun {
  bool ok = false;
  std::string failure;
  double dt = 0;
  long steps = 0;
  double seconds = 0;       // wall time of the stepping loop
  double maxViolation = 0;  // report's constraintViolation, worst step (t = 0 included)
  int maxIterations = 0;
  double meanIterations = 0;
  // Exoskeleton joints against their targets: RMS and worst error, and the range swept.
  double shoulderRms = 0, shoulderMaxErr = 0, shoulderMin = 1e9, shoulderMax = -1e9;
  double elbowRms = 0, elbowMaxErr = 0, elbowMin = 1e9, elbowMax = -1e9;
  // The patient's own arm: flexion of the upper arm (its long axis in the sagittal plane) and the
  // elbow joint's angle, against the same targets.
  double armShoulderRms = 0, armElbowRms = 0;
  // The held exoskeleton joints (abduction, rotation): largest |angle|.
  double abductionMax = 0, rotationMax = 0;
  // Cuff deflections: largest in-plane translation |(t1, t2)| [m] and |pitch| [rad] of each cuff.
  double upperTrans = 0, upperAngle = 0, foreTrans = 0, foreAngle = 0;
  // Largest |controller effort| on the exoskeleton elbow and shoulder flexion joints [N m].
  double elbowTorque = 0, shoulderTorque = 0;
};

ExoRun runExercise(const std::map<std::string, std::string>& params, double duration = 10.0) {
  ExoRun r;
  Model m;
  if (!test::loadGallery("exoskeleton-arm.mech", params, m, r.failure)) return r;
  const int flexion = m.jointIndex("exo-flexion"), abduction = m.jointIndex("exo-abduction"),
            rotation = m.jointIndex("exo-rotation"), exoElbow = m.jointIndex("exo-elbow"),
            elbow = m.jointIndex("elbow"), upperCuff = m.jointIndex("upper-cuff"),
            foreCuff = m.jointIndex("forearm-cuff"), upperArm = m.bodyIndex("upper-arm");
  if (std::min({flexion, abduction, rotation, exoElbow, elbow, upperCuff, foreCuff, upperArm}) < 0) {
    r.failure = "a joint or body of the exoskeleton model is missing";
    return r;
  }
  Simulation sim(compile(m));
  r.dt = sim.settings().dt;
  r.steps = std::lround(duration / r.dt);
  r.maxViolation = sim.metrics().constraintViolation;
  double sE2 = 0, eE2 = 0, aS2 = 0, aE2 = 0, iterations = 0;
  QElapsedTimer timer;
  timer.start();
  for (long k = 1; k <= r.steps; ++k) {
    if (!sim.step()) {
      r.failure = sim.metrics().message;
      return r;
    }
    if (!test::finiteState(sim.state())) {
      r.failure = "non-finite state at step " + std::to_string(k);
      return r;
    }
    // The efforts the model's PD controllers put on the actuators in this step.
    const double elbowEffort = sim.actuatorEffort(exoElbow)(0), shoulderEffort = sim.actuatorEffort(flexion)(0);
    const StepMetrics& mt = sim.metrics();
    r.maxViolation = std::max(r.maxViolation, mt.constraintViolation);
    r.maxIterations = std::max(r.maxIterations, mt.iterations);
    iterations += mt.iterations;
    r.elbowTorque = std::max(r.elbowTorque, std::abs(elbowEffort));
    r.shoulderTorque = std::max(r.shoulderTorque, std::abs(shoulderEffort));

    const double t = sim.state().time;
    const double s = sim.jointPosition(flexion)(0), e = sim.jointPosition(exoElbow)(0);
    const double es = s - shoulderTarget(t), ee = e - elbowTarget(t);
    sE2 += es * es;
    eE2 += ee * ee;
    r.shoulderMaxErr = std::max(r.shoulderMaxErr, std::abs(es));
    r.elbowMaxErr = std::max(r.elbowMaxErr, std::abs(ee));
    r.shoulderMin = std::min(r.shoulderMin, s);
    r.shoulderMax = std::max(r.shoulderMax, s);
    r.elbowMin = std::min(r.elbowMin, e);
    r.elbowMax = std::max(r.elbowMax, e);

    // The arm's flexion: its long axis u = R z (elbow to shoulder) is (−sin s, ·, cos s).
    const Vec3 u = quat::rotation(sim.state().bodies[upperArm].q) * Vec3::UnitZ();
    const double armS = std::atan2(-u.x(), u.z()) - shoulderTarget(t);
    const double armE = sim.jointPosition(elbow)(0) - elbowTarget(t);
    aS2 += armS * armS;
    aE2 += armE * armE;

    r.abductionMax = std::max(r.abductionMax, std::abs(sim.jointPosition(abduction)(0)));
    r.rotationMax = std::max(r.rotationMax, std::abs(sim.jointPosition(rotation)(0)));
    const Vec6 cu = sim.jointPosition(upperCuff), cf = sim.jointPosition(foreCuff);
    r.upperTrans = std::max(r.upperTrans, cu.head<2>().norm());
    r.upperAngle = std::max(r.upperAngle, std::abs(cu(2)));
    r.foreTrans = std::max(r.foreTrans, cf.head<2>().norm());
    r.foreAngle = std::max(r.foreAngle, std::abs(cf(2)));
  }
  r.seconds = timer.nsecsElapsed() * 1e-9;
  r.shoulderRms = std::sqrt(sE2 / r.steps);
  r.elbowRms = std::sqrt(eE2 / r.steps);
  r.armShoulderRms = std::sqrt(aS2 / r.steps);
  r.armElbowRms = std::sqrt(aE2 / r.steps);
  r.meanIterations = iterations / r.steps;
  r.ok = true;
  return r;
}

void report(const char* label, const ExoRun& r) {
  qInfo("%s: dt = %g s, %ld steps in %.3f s wall time (%.0f steps/s), Newton iterations mean %.2f max %d; "
        "max constraint violation %.3g",
        label, r.dt, r.steps, r.seconds, r.steps / r.seconds, r.meanIterations, r.maxIterations, r.maxViolation);
  qInfo("  exo shoulder flexion: RMS error %.4f rad, max %.4f rad, range [%.4f, %.4f] rad (commanded [0, %.4f])",
        r.shoulderRms, r.shoulderMaxErr, r.shoulderMin, r.shoulderMax, kPi / 2);
  qInfo("  exo elbow flexion:    RMS error %.4f rad, max %.4f rad, range [%.4f, %.4f] rad (commanded [%.4f, 0])",
        r.elbowRms, r.elbowMaxErr, r.elbowMin, r.elbowMax, -kPi / 2);
  qInfo("  patient's arm: shoulder flexion RMS error %.4f rad, elbow RMS error %.4f rad", r.armShoulderRms,
        r.armElbowRms);
  qInfo("  held exo joints: |abduction| max %.3g rad, |rotation| max %.3g rad", r.abductionMax, r.rotationMax);
  qInfo("  cuffs: upper %.3f mm / %.4f rad, forearm %.3f mm / %.4f rad (max in-plane translation / pitch)",
        r.upperTrans * 1e3, r.upperAngle, r.foreTrans * 1e3, r.foreAngle);
  qInfo("  max |controller torque|: shoulder flexion %.3f N m, elbow %.3f N m", r.shoulderTorque, r.elbowTorque);
}

}  // namespace

class TestExoskeleton : public QObject {
  Q_OBJECT
 private slots:
  void modelHasTwoCuffLoops();
  void exerciseKeepsLoopsClosedAndTracks();
  void scaleChangesElbowTorque();
};

void TestExoskeleton::modelHasTwoCuffLoops() {
  // Acceptance: the file reads without diagnostics; 7 bodies (torso, 2 arm segments, 4
  // exoskeleton links) and 9 joints; the two cuffs are planar-axis joints with stiffness and
  // damping in all 3 free coordinates, and they are the loop-closing joints of the spanning tree;
  // after the redundant cuff rows are dropped, 36 constraint rows remain on 7 × 6 coordinates:
  // 6 degrees of freedom (4 exoskeleton joints, the arm's pitch in each cuff); dt ≤ 0.001 (what
  // the explicit elbow PD needs, see the file); the start is consistent as written: violation
  // ≤ 1e-12 at t = 0 and every joint's coordinates (cuffs: 0) within 1e-12 of the file's.
  Model m;
  Diagnostics d;
  QVERIFY2(loadModel(test::modelPath("exoskeleton-arm.mech"), {}, m, d) && d.empty(), d.format().c_str());
  QCOMPARE(int(m.bodies.size()), 7);
  QCOMPARE(int(m.joints.size()), 9);
  QVERIFY(m.solver.dt <= 0.001);
  const auto sys = compile(m);
  for (const char* cuff : {"upper-cuff", "forearm-cuff"}) {
    const int j = m.jointIndex(cuff);
    QVERIFY2(j >= 0, cuff);
    QCOMPARE(int(m.joints[j].type), int(JointType::PlanarAxis));
    QVERIFY(std::count(sys->loopJoints.begin(), sys->loopJoints.end(), j) == 1);
    for (int c = 0; c < 3; ++c) {
      QVERIFY(sys->joints[j].stiffness(c) > 0);
      QVERIFY(sys->joints[j].damping(c) > 0);
    }
  }
  QCOMPARE(int(sys->loopJoints.size()), 2);
  const int dof = 6 * int(sys->bodies.size()) - sys->numConstraintRows;
  qInfo("exoskeleton-arm: %d bodies, %d joints, %d constraint rows solved for, %d degrees of freedom; notes:",
        int(sys->bodies.size()), int(sys->joints.size()), sys->numConstraintRows, dof);
  for (const std::string& n : sys->notes) qInfo("  %s", n.c_str());
  QCOMPARE(dof, 6);
  // The start as written is consistent: after the engine's projection onto the constraints every
  // joint, the cuffs included, still has exactly the coordinates written in the file.
  Simulation sim(sys);
  QVERIFY(sim.metrics().constraintViolation <= 1e-12);
  double moved = 0;
  for (int j = 0; j < int(m.joints.size()); ++j) {
    const std::vector<double>& p = m.joints[j].initialPosition;
    const Vec6 q = sim.jointPosition(j);
    for (int c = 0; c < sim.jointDof(j); ++c) {
      const double written = p.empty() ? 0.0 : p.size() == 1 ? p[0] : p[c];
      moved = std::max(moved, std::abs(q(c) - written));
    }
  }
  qInfo("initial joint coordinates: largest difference from the file %.3g", moved);
  QVERIFY(moved <= 1e-12);
}

void TestExoskeleton::exerciseKeepsLoopsClosedAndTracks() {
  // Acceptance, 10 s of the exercise at scale 1 (the paper's gains), healthy patient:
  //  - every step converges and the state stays finite;
  //  - both loops closed: constraint violation ≤ 1e-8 at every step (all rows, dropped ones too;
  //    measured ~1e-15);
  //  - tracking: RMS error of the exoskeleton's shoulder flexion < 0.12 rad and elbow < 0.07 rad
  //    (measured 0.101 and 0.055: a PD without gravity compensation lags and sags), and each joint
  //    sweeps at least 85 % of the commanded π/2 range (measured 93 % and 100 %), so a still arm
  //    cannot pass; the patient's own arm follows: RMS < 0.14 rad at the shoulder, < 0.07 rad at
  //    the elbow (measured 0.114 and 0.053);
  //  - the held exoskeleton joints (abduction, rotation) stay within 0.05 rad (measured 0.014);
  //  - the cuffs deflect, and not by much: for each cuff the largest in-plane translation lies
  //    between 0.5 mm and 1 cm and the largest pitch between 0.005 and 0.06 rad (measured 3.1 mm /
  //    0.021 rad upper, 4.6 mm / 0.021 rad forearm).
  const ExoRun r = runExercise({});
  QVERIFY2(r.ok, r.failure.c_str());
  report("exoskeleton-arm, scale 1", r);
  QVERIFY(r.maxViolation <= 1e-8);
  QVERIFY(r.shoulderRms < 0.12);
  QVERIFY(r.elbowRms < 0.07);
  QVERIFY(r.shoulderMax - r.shoulderMin >= 0.85 * kPi / 2);
  QVERIFY(r.elbowMax - r.elbowMin >= 0.85 * kPi / 2);
  QVERIFY(r.armShoulderRms < 0.14);
  QVERIFY(r.armElbowRms < 0.07);
  QVERIFY(r.abductionMax < 0.05 && r.rotationMax < 0.05);
  for (double t : {r.upperTrans, r.foreTrans}) QVERIFY(t > 0.5e-3 && t < 0.01);
  for (double a : {r.upperAngle, r.foreAngle}) QVERIFY(a > 0.005 && a < 0.06);
}

void TestExoskeleton::scaleChangesElbowTorque() {
  // Four 10 s runs at Δt = 1 ms: physics, measured in the Release build; the sanitizer build (memory
  // errors, ~10× slower) runs exerciseKeepsLoopsClosedAndTracks only.
  if (test::sanitizerBuild()) QSKIP("four 10 s runs: Release only");
  // Acceptance: `scale` multiplies the flexion and elbow gains (Algorithm 8).
  //  - Healthy patient: at scale 0.5 the tracking error is larger than at scale 1, by more than
  //    half (elbow and shoulder RMS; measured ×1.9 each). The largest elbow torque barely changes
  //    (measured 3.41 → 3.52 N m): it is mostly the weight of the two forearms, which any gain must
  //    carry, so it is reported, not asserted.
  //  - Spastic patient (spasticity = 10 N m s/rad of elbow damping, the paper's case for tuning):
  //    the elbow torque at scale 1 exceeds the paper's 5 N m comfort limit and that of the healthy
  //    patient, and at scale 0.5 the largest elbow torque is lower than at scale 1 by at least 5 %
  //    (measured 11.13 → 9.71 N m, −13 %).
  //  All four runs keep the loops closed (≤ 1e-8).
  const ExoRun full = runExercise({});
  QVERIFY2(full.ok, full.failure.c_str());
  const ExoRun half = runExercise({{"scale", "0.5"}});
  QVERIFY2(half.ok, half.failure.c_str());
  report("exoskeleton-arm, scale 0.5", half);
  const ExoRun spastic = runExercise({{"spasticity", "10"}});
  QVERIFY2(spastic.ok, spastic.failure.c_str());
  const ExoRun spasticHalf = runExercise({{"spasticity", "10"}, {"scale", "0.5"}});
  QVERIFY2(spasticHalf.ok, spasticHalf.failure.c_str());
  report("exoskeleton-arm, spasticity 10, scale 1", spastic);
  report("exoskeleton-arm, spasticity 10, scale 0.5", spasticHalf);
  qInfo("max |elbow torque| [N m]: healthy scale 1 %.3f, scale 0.5 %.3f (ratio %.3f); spastic scale 1 %.3f, "
        "scale 0.5 %.3f (ratio %.3f)",
        full.elbowTorque, half.elbowTorque, half.elbowTorque / full.elbowTorque, spastic.elbowTorque,
        spasticHalf.elbowTorque, spasticHalf.elbowTorque / spastic.elbowTorque);
  for (const ExoRun* r : {&half, &spastic, &spasticHalf}) QVERIFY(r->maxViolation <= 1e-8);
  QVERIFY(half.elbowRms > 1.5 * full.elbowRms);
  QVERIFY(half.shoulderRms > 1.5 * full.shoulderRms);
  QVERIFY(spastic.elbowTorque > 5.0);
  QVERIFY(spastic.elbowTorque > full.elbowTorque);
  QVERIFY(spasticHalf.elbowTorque < 0.95 * spastic.elbowTorque);
}

QTEST_APPLESS_MAIN(TestExoskeleton)
#include "tst_exoskeleton.moc"
