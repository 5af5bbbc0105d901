// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-peers --mjcf=FILE (issue 31): one MJCF file in our engine and in MuJoCo, side by side.
// Ours: the file read by our importer (engine/io/mjcf_import.h, <include>s too), compiled, stepped by
// Simulation::step() at the model's default tolerances. MuJoCo: the same file loaded by mj_loadXML, stepped
// by mj_step with every option as the file sets it. Both at the file's own <option timestep>
// (MuJoCo's default 0.002 s when the file gives none), both from the model's initial state (ours:
// the importer's initial pose; MuJoCo: qpos0), no controls.
// One repetition = `steps` steps from the initial state, timed as a whole with steady_clock; the
// repetitions of the two engines are interleaved (their order alternates). Reported: best and
// median µs per step, the ratio ours/MuJoCo, our interior-point iterations per step (median and
// max over the steps of the first repetition) and its subdivided steps, and as a plausibility check
// the height of the root body's centre of mass after the run in both engines.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "io/mjcf_import.h"
#include "peer_runner.h"
#include "simulation.h"

namespace peers {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
namespace fs = std::filesystem;

struct MuJoCoError : std::runtime_error {
  explicit MuJoCoError(const char* w) : std::runtime_error(w) {}
};
void onError(const char* msg) { throw MuJoCoError(msg); }
void onWarning(const char*) {}

// A problem that ends the run: which engine, why; main prints it and exits non-zero.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string readText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw Refused("cannot read " + p.string());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// MuJoCo's model and data of the file (freed with it).
struct MuJoCoModel {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  ~MuJoCoModel() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// Our side: the compiled system of the file and its simulation.
struct OursModel {
  std::shared_ptr<const ms::CompiledSystem> sys;
  std::unique_ptr<ms::Simulation> sim;
  int warnings = 0;
  std::string firstWarnings;  // every warning, one a line
};

void loadMuJoCo(const std::string& file, MuJoCoModel& out) {
  mju_user_error = onError;
  mju_user_warning = onWarning;
  char error[1024] = "";
  try {
    out.m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  } catch (const std::exception& e) {
    std::snprintf(error, sizeof error, "%s", e.what());
  }
  if (!out.m) throw Refused(std::string("mujoco: MuJoCo ") + mj_versionString() + " refuses " + file + ": " + error);
  out.d = mj_makeData(out.m);
  if (!out.d) throw Refused("mujoco: mj_makeData failed for " + file);
}

void loadOurs(const std::string& file, double dt, OursModel& out) {
  ms::Model model;
  ms::Diagnostics diags;
  if (!ms::importMjcf(file, model, diags)) throw Refused("ours: our MJCF importer refuses " + file + ":\n" + diags.format());
  for (const ms::Diagnostic& d : diags.items())
    if (d.severity == ms::Severity::Warning && ++out.warnings) out.firstWarnings += "\n    " + d.format();
  try {
    out.sys = ms::compile(model);
    out.sim = std::make_unique<ms::Simulation>(out.sys);
  } catch (const std::exception& e) {
    throw Refused("ours: " + file + " imports but does not compile or start: " + e.what());
  }
  out.sim->settings().dt = dt;  // the file's timestep, or MuJoCo's default when it gives none
  out.sim->reset();
}

}  // namespace

int runMjcfMode(const std::string& file, int steps, int reps) {
  try {
    if (!fs::is_regular_file(file)) throw Refused("no such file: " + file);
    // Both engines load the file; each refusal is reported (when both refuse, both reasons).
    MuJoCoModel mj;
    OursModel ours;
    std::string refusals;
    try {
      loadMuJoCo(file, mj);
    } catch (const Refused& e) {
      refusals = e.what();
    }
    const double dt = mj.m ? mj.m->opt.timestep : 0.002;
    try {
      loadOurs(file, dt, ours);
    } catch (const Refused& e) {
      refusals += (refusals.empty() ? "" : "\nmechstudio-peers: ") + std::string(e.what());
    }
    if (!refusals.empty()) throw Refused(refusals);
    const ms::StepSettings& set = ours.sim->settings();

    // The root body: MuJoCo's first body below the world, found among ours by name.
    const int mjRoot = mj.m->nbody > 1 ? 1 : -1;
    const std::string rootName = mjRoot > 0 && mj_id2name(mj.m, mjOBJ_BODY, mjRoot) ? mj_id2name(mj.m, mjOBJ_BODY, mjRoot) : "";
    int ourRoot = -1;
    const auto& bodies = ours.sys->model.bodies;
    for (size_t i = 0; i < bodies.size(); ++i)
      if (bodies[i].name == rootName) ourRoot = int(i);

    std::cerr << "mechstudio-peers --mjcf: " << file << "\n"
              << "  " << reps << " repetitions of " << steps << " steps at dt " << dt << " s (the file's <option timestep>"
              << (std::regex_search(readText(file), std::regex(R"(<option[^>]*\btimestep\s*=)")) ? "" : "; none given: MuJoCo's default")
              << "), engines interleaved\n"
              << "  ours: MechStudio VI, Simulation::step(), default tolerances (tolerance " << set.tolerance
              << ", complementarity " << set.complementarityTolerance << ", max iterations " << set.maxIterations << "); "
              << ours.sys->model.bodies.size() << " bodies, " << ours.sys->model.joints.size() << " joints"
              << "\n"
              << "  ours: " << ours.warnings << " importer warnings" << ours.firstWarnings << "\n"
              << "  mujoco: MuJoCo " << mj_versionString() << ", mj_step, the file's options (integrator "
              << mj.m->opt.integrator << ", cone " << mj.m->opt.cone << ", solver " << mj.m->opt.solver << ", iterations "
              << mj.m->opt.iterations << "); nbody " << mj.m->nbody << ", nv " << mj.m->nv << "\n"
              << "  root body: '" << rootName << "'" << (ourRoot < 0 ? " (not found among ours: our first body used)" : "")
              << "\n";
    if (ourRoot < 0) ourRoot = 0;

    std::vector<double> oursUs, mjUs;
    std::vector<double> iters;
    iters.reserve(size_t(steps));
    int subdivided = 0;
    double oursZ = kNaN, mjZ = kNaN, maxPenetration = 0;
    std::string note;
    for (int rep = 0; rep < reps; ++rep)
      for (int k = 0; k < 2; ++k) {
        const bool oursTurn = (k + rep) % 2 == 0;
        if (oursTurn) {
          if (!note.empty()) continue;  // ours failed in an earlier repetition
          ms::Simulation& sim = *ours.sim;
          sim.reset();
          const bool first = iters.empty();
          int s = 0;
          const auto t0 = Clock::now();
          for (; s < steps; ++s) {
            if (!sim.step()) break;
            if (first) {
              const ms::StepMetrics& m = sim.metrics();
              iters.push_back(m.iterations);
              subdivided += m.substeps > 1;
              maxPenetration = std::max(maxPenetration, m.penetration);
            }
          }
          const auto t1 = Clock::now();
          if (s < steps) {
            note = "ours failed: " + sim.metrics().message;
            continue;
          }
          oursUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / steps);
          oursZ = sim.state().bodies[size_t(ourRoot)].x.z();
        } else {
          mj_resetData(mj.m, mj.d);
          const auto t0 = Clock::now();
          for (int s = 0; s < steps; ++s) mj_step(mj.m, mj.d);
          const auto t1 = Clock::now();
          mjUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / steps);
          mj_kinematics(mj.m, mj.d);  // poses of the final qpos
          if (mjRoot > 0) mjZ = mj.d->xipos[3 * mjRoot + 2];
        }
      }
    for (int w : {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC})
      if (mj.d->warning[w].number > 0) note += std::string(note.empty() ? "" : "; ") + "MuJoCo reported bad qpos/qvel/qacc";

    const double oursBest = oursUs.empty() ? kNaN : *std::min_element(oursUs.begin(), oursUs.end());
    const double mjBest = mjUs.empty() ? kNaN : *std::min_element(mjUs.begin(), mjUs.end());
    const double oursMed = median(oursUs), mjMed = median(mjUs);
    const double itMax = iters.empty() ? kNaN : *std::max_element(iters.begin(), iters.end());
    std::cout << "file,dt,steps,reps,ours_us_best,ours_us_median,mujoco_us_best,mujoco_us_median,ratio_best,ratio_median,"
                 "ours_iters_median,ours_iters_max,ours_subdivided_steps,ours_max_penetration,root_body,root_z_ours,"
                 "root_z_mujoco,note\n";
    std::cout << csvField(fs::path(file).filename().string()) << "," << fmt(dt) << "," << steps << "," << reps << ","
              << fmt(oursBest) << "," << fmt(oursMed) << "," << fmt(mjBest) << "," << fmt(mjMed) << ","
              << fmt(oursBest / mjBest, 3) << "," << fmt(oursMed / mjMed, 3) << "," << fmt(median(iters)) << ","
              << fmt(itMax) << "," << (iters.empty() ? "" : std::to_string(subdivided)) << ","
              << (iters.empty() ? "" : fmt(maxPenetration, 3)) << "," << csvField(rootName) << "," << fmt(oursZ, 5) << ","
              << fmt(mjZ, 5) << "," << csvField(note) << "\n";
    if (!note.empty()) {
      std::cerr << "mechstudio-peers: " << note << "\n";
      return 3;
    }
    return 0;
  } catch (const Refused& e) {
    std::cerr << "mechstudio-peers: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mechstudio-peers: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace peers
