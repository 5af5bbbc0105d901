// SPDX-License-Identifier: GPL-3.0-or-later
// Trajectory fidelity of the MJCF import against MuJoCo itself (issue 32): contact-free models of
// tests/data/mjcf that use what MuJoCo composes differently from one joint per body — several joints
// in one body (two hinges through a point, hinges at offsets with a slide between them), hinges with
// a non-zero ref, springs about springref, dampers, armature, files assembled by <include>, actuators
// with gear, ctrlrange and forcerange, fixed tendons, joints combined into one (read by their signals) — run 1 s in MuJoCo 2.2.2 (RK4, Δt 1e-4) and in
// our variational integrator (Δt 1e-4); each joint's displacement agrees within 2e-3 rad or m.
// Built only with MuJoCo (tests/CMakeLists.txt).
#include <QTest>

#include <mujoco/mujoco.h>

#include <cmath>
#include <string>

#include "engine/test_paths.h"
#include "io/model_file.h"
#include "signals/signals.h"
#include "simulation.h"

using namespace ms;

namespace {

constexpr double kDt = 1e-4;
constexpr int kSteps = 10000;  // 1 s
constexpr double kTolerance = 2e-3;

std::string mjcfPath(const std::string& file) { return test::sourceDir() + "/tests/data/mjcf/" + file; }

// `file` of tests/data/mjcf in MuJoCo (null, with a warning, when MuJoCo refuses it) and in ours
// (false, with a warning, when ours refuses it).
mjModel* loadMuJoCo(const std::string& file) {
  char err[1000] = "";
  mjModel* mm = mj_loadXML(mjcfPath(file).c_str(), nullptr, err, sizeof err);
  if (!mm) qWarning("%s: MuJoCo refuses it: %s", file.c_str(), err);
  return mm;
}
bool loadOurs(const std::string& file, Model& model) {
  Diagnostics diags;
  const bool ok = loadModel(mjcfPath(file), {}, model, diags);
  if (!ok) qWarning("%s: %s", file.c_str(), diags.format().c_str());
  return ok;
}

// Runs `file` 1 s in both engines and compares every named joint's coordinate (MuJoCo's qpos − ref
// against ours, whose coordinate is also measured from the same zero); returns the largest
// difference of the displacements.
double largestDifference(const std::string& file) {
  mjModel* mm = loadMuJoCo(file);
  if (!mm) return INFINITY;
  mm->opt.timestep = kDt;
  mm->opt.integrator = mjINT_RK4;
  mjData* md = mj_makeData(mm);
  // Controls: MuJoCo's ctrl of actuator NAME from the custom entry mechstudio.effort.NAME (which our
  // importer reads as the actuator's input).
  for (int a = 0; a < mm->nu; ++a) {
    const char* an = mj_id2name(mm, mjOBJ_ACTUATOR, a);
    const int n = an ? mj_name2id(mm, mjOBJ_NUMERIC, ("mechstudio.effort." + std::string(an)).c_str()) : -1;
    if (n >= 0) md->ctrl[a] = mm->numeric_data[mm->numeric_adr[n]];
  }
  mj_forward(mm, md);

  Model model;
  if (!loadOurs(file, model)) return INFINITY;
  model.solver.dt = kDt;
  Simulation sim(compile(model));

  // The joints both sides know by name (hinges and slides: one coordinate each): a joint of ours, or
  // the signal of a coordinate of a joint ours combined several into (NAME.position / NAME.angle).
  struct Pair {
    std::string name;
    int mj, ours, signal;
    double mj0, ours0;
  };
  const SignalCatalogue catalogue(sim.system());
  std::vector<double> values;
  const auto ours = [&](const Pair& p) {
    if (p.signal < 0) return sim.jointPosition(p.ours)(0);
    catalogue.evaluate(sim, {p.signal}, AngleUnit::Radians, values);
    return values[0];
  };
  std::vector<Pair> joints;
  for (int j = 0; j < mm->njnt; ++j) {
    if (mm->jnt_type[j] != mjJNT_HINGE && mm->jnt_type[j] != mjJNT_SLIDE) continue;
    const char* name = mj_id2name(mm, mjOBJ_JOINT, j);
    const int k = name ? model.jointIndex(name) : -1;
    const int signal = k >= 0 || !name ? -1
                       : catalogue.find(std::string(name) + (mm->jnt_type[j] == mjJNT_HINGE ? ".angle" : ".position"));
    if ((k < 0 || sim.jointDof(k) != 1) && signal < 0) {
      qWarning("%s: joint %d (%s) has no one-coordinate joint or coordinate signal of ours", file.c_str(), j, name ? name : "unnamed");
      return INFINITY;
    }
    Pair p{name, j, k, signal, md->qpos[mm->jnt_qposadr[j]], 0};
    p.ours0 = ours(p);
    joints.push_back(p);
  }
  for (int i = 0; i < kSteps; ++i) mj_step(mm, md);
  // Our hinge angles are given in (−π, π]; MuJoCo's qpos is continuous: ours are unwrapped step by
  // step (a step turns a joint far less than π).
  std::vector<double> unwrapped(joints.size()), last(joints.size());
  for (size_t k = 0; k < joints.size(); ++k) last[k] = joints[k].ours0;
  for (int i = 0; i < kSteps; ++i) {
    if (!sim.step()) {
      qWarning("%s: our step %d failed: %s", file.c_str(), i, sim.metrics().message.c_str());
      return INFINITY;
    }
    for (size_t k = 0; k < joints.size(); ++k) {
      const double now = ours(joints[k]);
      double d = now - last[k];
      if (mm->jnt_type[joints[k].mj] == mjJNT_HINGE) d = std::remainder(d, 2 * M_PI);
      unwrapped[k] += d;
      last[k] = now;
    }
  }
  double worst = 0;
  for (size_t k = 0; k < joints.size(); ++k) {
    const Pair& p = joints[k];
    const double dm = md->qpos[mm->jnt_qposadr[p.mj]] - p.mj0, dours = unwrapped[k];
    qInfo("%s: %-10s start %+.6f / %+.6f, displacement after 1 s MuJoCo %+.6f, ours %+.6f, difference %.2e", file.c_str(),
          p.name.c_str(), p.mj0, p.ours0, dm, dours, std::abs(dm - dours));
    if (std::abs(p.mj0 - p.ours0) > 1e-9) worst = INFINITY;  // the same start, measured from the same zero
    worst = std::max(worst, std::abs(dm - dours));
  }
  mj_deleteData(md);
  mj_deleteModel(mm);
  return worst;
}

// Each <key> of `file` read as a keyframe against MuJoCo's mj_resetDataKeyframe + mj_forward: every
// body both sides know by name at the same centre of mass (xipos) and orientation (xquat), moving
// with the same velocities (mj_objectVelocity at the centre of mass; ours the discrete velocity of
// the time step, so within a step's change of velocity). Returns the largest pose difference, or
// infinity when a velocity is off or a key is missing.
double keyframeDifference(const std::string& file) {
  mjModel* mm = loadMuJoCo(file);
  if (!mm) return INFINITY;
  mjData* md = mj_makeData(mm);
  Model model;
  if (!loadOurs(file, model)) return INFINITY;
  double worst = 0;
  if (int(model.keyframes.size()) != mm->nkey) worst = INFINITY;
  for (int k = 0; k < mm->nkey && k < int(model.keyframes.size()); ++k) {
    mj_resetDataKeyframe(mm, md, k);
    mj_forward(mm, md);
    const KeyframeDesc& key = model.keyframes[size_t(k)];
    const char* kn = mj_id2name(mm, mjOBJ_KEY, k);
    if (key.name != (kn ? std::string(kn) : "key" + std::to_string(k))) worst = INFINITY;
    int compared = 0;
    for (const KeyframeBody& b : key.bodies) {
      const int id = mj_name2id(mm, mjOBJ_BODY, b.body.c_str());
      if (id < 0) continue;  // a link of a joint chain (MuJoCo has none)
      const Vec3 x(md->xipos[3 * id], md->xipos[3 * id + 1], md->xipos[3 * id + 2]);
      const Vec4 q(md->xquat[4 * id], md->xquat[4 * id + 1], md->xquat[4 * id + 2], md->xquat[4 * id + 3]);
      mjtNum vel[6];
      mj_objectVelocity(mm, md, mjOBJ_BODY, id, vel, 0);
      const Vec3 w(vel[0], vel[1], vel[2]), v(vel[3], vel[4], vel[5]);
      const double dx = (x - b.position).norm(), dq = std::min((q - b.orientation).norm(), (q + b.orientation).norm());
      const double dv = (v - b.velocity).norm(), dw = (w - b.angularVelocity).norm();
      qInfo("%s key '%s' body %-6s: position %.1e, orientation %.1e, velocity %.1e, angular velocity %.1e", file.c_str(),
            key.name.c_str(), b.body.c_str(), dx, dq, dv, dw);
      worst = std::max({worst, dx, dq});
      if (dv > 5e-3 || dw > 5e-3) worst = INFINITY;  // a step's change of velocity at Δt 1e-3
      ++compared;
    }
    if (compared != mm->nbody - 1) worst = INFINITY;
  }
  mj_deleteData(md);
  mj_deleteModel(mm);
  return worst;
}

}  // namespace

class TstMjcfFidelity : public QObject {
  Q_OBJECT
 private slots:
  // Several joints in one body, refs, springs about springref, dampers.
  void severalJointsInOneBody() { QVERIFY(largestDifference("multi-joint.xml") <= kTolerance); }
  // Armature on hinges and a slide (a change of momentum a θ̇ on the joint coordinate).
  void armature() { QVERIFY(largestDifference("armature.xml") <= kTolerance); }
  // A model assembled by <include>s (nested, inside <worldbody> and beside it).
  void includedFiles() { QVERIFY(largestDifference("included-pendulum.xml") <= kTolerance); }
  // Motors with gear, ctrlrange and forcerange, a position servo with gear and a ctrlrange that
  // excludes its control 0.
  void actuatorTransmissions() { QVERIFY(largestDifference("actuators.xml") <= kTolerance); }
  // Fixed tendons: springs (rest length given, and MuJoCo's length at qpos0), dampers, a motor on one.
  void fixedTendons() { QVERIFY(largestDifference("tendons.xml") <= kTolerance); }
  // <keyframe><key qpos qvel>: free, ball, hinge and slide joints with refs, two joints in one body.
  // Joints combined into one engine joint (a planar root, two oblique slides, a screw) followed by
  // their signals NAME.position and NAME.angle.
  void combinedJointsKeepTheirCoordinates() { QVERIFY(largestDifference("combined-joints.xml") <= kTolerance); }

  void keyframesPlaceBodiesAsMuJoCo() { QVERIFY(keyframeDifference("keyframes.xml") <= 1e-9); }
};

QTEST_APPLESS_MAIN(TstMjcfFidelity)
#include "tst_mjcf_fidelity.moc"
