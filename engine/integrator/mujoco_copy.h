// SPDX-License-Identifier: GPL-3.0-or-later
// MuJoCo as a comparison copy (`--integrator mujoco`): the compiled model converted in memory to MJCF
// (io/mjcf_writer.h), loaded by MuJoCo (Debian's libmujoco-dev, 2.2.2) through its virtual file
// system, and stepped with MuJoCo's own solver and integrator (semi-implicit Euler by default, RK4
// or implicit-in-velocity selectable: IntegratorOptions::mujocoScheme). Each step:
//   1. if the state was set from outside (first step, restart(), or a state that is not the one the
//      last step produced) it is written into qpos/qvel: free bodies (x, q, v, ω body frame), hinge
//      and slide coordinates θ and rates (our minimal coordinates: MJCF `ref` = their reference
//      values), ball joints p₀⁻¹ q_off⁻¹ q_a⁻¹ q_b and ω_b − Q_bᵀQ_a ω_a (child frame);
//   2. inputs: body wrenches → xfrc_applied; actuator efforts → ctrl (motors), qfrc_applied (hinge,
//      slide) or, for the other joints, body wrenches through the joint's minimal-coordinate
//      Jacobian (as the engine's integrators apply them), together with the spring and damper
//      forces MJCF could not carry (MjcfInfo::forcesInMjcf); gravity and Δt from the step settings;
//   3. mj_step, then positions and velocities (mj_kinematics, mj_comPos, mj_comVel) read back into
//      the state: x = COM, q = body frame, v (world), ω (body frame);
//   4. the report: MuJoCo's solver iterations; the engine's measures at the new poses — joint
//      constraint violation ‖g‖∞ (the loops, which MuJoCo keeps with soft equality constraints),
//      penetration max(0, −min φ) over the engine's contact candidates, joint-limit violation —
//      and the number of MuJoCo contacts carrying load.
// A step that MuJoCo flags (bad qpos/qvel/qacc: it would reset its data and carry on) or that
// leaves non-finite values fails with StepStatus::NonFinite and the state unchanged. The step does
// not allocate (MuJoCo works on the stack of its mjData; buffers are sized here).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "integrator/integrator_options.h"
#include "io/mjcf_writer.h"

struct mjModel_;
struct mjData_;

namespace ms {

// Throws UserError with every reason if `sys` cannot be copied to MuJoCo (joint types, loops).
void validateMuJoCoCopy(const CompiledSystem& sys);

// Loads MJCF files (the first the main one, the others the files its <include>s name:
// splitMjcfByNesting) through MuJoCo's in-memory file system, one load at a time in the process.
// Returns the model (the caller deletes it with mj_deleteModel), or nullptr and MuJoCo's message in
// `error`. MuJoCo's error handler must throw (as the copy's and the peer benchmark's do).
mjModel_* loadMjcfFiles(const std::vector<MjcfFile>& files, std::string& error);

class MuJoCoIntegrator : public Integrator {
 public:
  // Converts and loads the model (throws UserError with the reason, MuJoCo's message included).
  explicit MuJoCoIntegrator(std::shared_ptr<const CompiledSystem> sys, MuJoCoScheme scheme = MuJoCoScheme::Euler,
                            const MjcfWriteOptions& mjcf = {});
  ~MuJoCoIntegrator() override;
  MuJoCoIntegrator(const MuJoCoIntegrator&) = delete;
  MuJoCoIntegrator& operator=(const MuJoCoIntegrator&) = delete;

  const char* name() const override { return "mujoco"; }
  StepReport step(const StepSettings& settings, const Inputs& inputs, State& state) override;
  void restart() override { synced_ = false; }

  MuJoCoScheme scheme() const { return scheme_; }
  // The MJCF given to MuJoCo, and how the model's parts map onto it.
  const std::string& mjcf() const { return xml_; }
  // The files MuJoCo loaded: mjcf() itself, or that cut where the tree nests deeper than a file may.
  const std::vector<MjcfFile>& mjcfFiles() const { return files_; }
  const MjcfInfo& mjcfInfo() const { return info_; }
  // MuJoCo's version string ("2.2.2").
  static std::string version();

 private:
  void writeState(const State& s);
  void applyInputs(const StepSettings& st, const Inputs& in, const State& s);
  void readState(State& s) const;

  std::shared_ptr<const CompiledSystem> sys_;
  MuJoCoScheme scheme_;
  std::string xml_;
  std::vector<MjcfFile> files_;
  MjcfInfo info_;
  mjModel_* m_ = nullptr;
  mjData_* d_ = nullptr;
  // Ids in the MuJoCo model: per body its id and free joint (−1), per joint its MuJoCo joint and motor.
  std::vector<int> bodyId_, freeJoint_, jointId_, motorId_;
  std::vector<char> explicitForces_;  // per joint: forces applied here through xfrc_applied
  bool synced_ = false;
  // The state the last step produced (bodies only): anything else is a state set from outside.
  State last_;
  int warnings_[4] = {0, 0, 0, 0};  // MuJoCo's bad-qpos/qvel/qacc and full-contact counters seen so far
};

}  // namespace ms
