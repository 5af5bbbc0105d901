// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-peers: our engine against MuJoCo, DART and ODE on the same scenes (issue 14; see
// docs/benchmarks.md, "Peers"). Every scene comes from engine/scenes (peer_scene.h) and is built by
// each engine's runner (ours_runner.cc, mujoco_runner.cc, dart_runner.cc, ode_runner.cc; a peer not
// found at configure time is left out). One repetition of a case = a fresh instance at the initial
// state (built outside the timing), then `steps` steps of Δt = 0.01 s timed with steady_clock as a
// whole; the repetitions of the engines are interleaved (engine order rotated every repetition).
// Reported per engine: best and median µs per step over the repetitions, and their ratios to ours.
// Before the timing each engine simulates 0.5 s of the case once and reports the height of
// the last body's centre of mass, to show that the engines simulate the same motion, and in
// scenes with loops the largest gap of a loop-closing joint (how well the loop is kept closed).
// Output: one CSV on stdout; the machine, the load and the engines' settings on stderr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/quaternion.h"
#include "peer_runner.h"

namespace {

using namespace peers;
using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
  std::string name, scene;
  std::map<std::string, std::string> params;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"chain/revolute/n=10", "chain", {{"n", "10"}, {"joint", "revolute"}}},
      {"chain/revolute/n=100", "chain", {{"n", "100"}, {"joint", "revolute"}}},
      {"chain/spherical/n=10", "chain", {{"n", "10"}, {"joint", "spherical"}}},
      {"chain/spherical/n=100", "chain", {{"n", "100"}, {"joint", "spherical"}}},
      {"box-drop", "box-drop", {}},
      {"sphere-chain/n=20", "sphere-chain", {{"n", "20"}}},
      {"three-link-loop", "three-link-loop", {}},
  };
  return c;
}

struct Options {
  bool quick = false;
  double dt = 0.01;     // s
  int reps = 20, steps = 1000;
  std::string filter;   // substring of the case name
  std::string engines;  // comma-separated names, empty = all
};

struct Result {
  std::string engine, version, note;
  std::vector<double> usPerStep;  // per successful repetition
  double checkZ = kNaN;
  double loopGap = kNaN;  // largest distance between the two points of a loop-closing joint
  bool modelled = true;
};

void addNote(std::string& note, const std::string& s) {
  if (s.empty() || note.find(s) != std::string::npos) return;
  note += (note.empty() ? "" : "; ") + s;
}
// How this engine models this case differently from ours (fixed remarks; the runners add theirs).
std::string modelRemark(const std::string& engine, const PeerScene& s) {
  bool loop = false;
  for (const PeerJoint& j : s.joints) loop |= j.loop;
  std::string r;
  if (engine == "ours") return r;
  if (loop) addNote(r, "loop closed by a point constraint (ours: a revolute joint)");
  if (s.ground) {
    if (engine == "mujoco") addNote(r, "soft contacts (default solref/solimp), pyramidal cone");
    if (engine == "dart") addNote(r, "ground = fixed 40x40x1 m box (FCL)");
    if (engine == "ode") addNote(r, "dContactApprox1 friction pyramid");
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string mjcf;                 // --mjcf=FILE: the MJCF mode (mjcf_mode.cc)
  bool workPrecision = false;       // --work-precision: the Δt sweep (work_precision.cc)
  double budget = 120;              // --budget=S: its wall-time limit per point
  std::vector<double> dts;          // --dts=A,B,...: its Δt values
  bool stepsGiven = false, repsGiven = false, sceneOption = false;
  // A positive integer option value; false (with a message) for anything else.
  auto positive = [](const std::string& a, size_t prefix, int& out) {
    const std::string v = a.substr(prefix);
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 1 || n > 100000000) {
      std::cerr << "mechstudio-peers: " << a.substr(0, prefix) << " needs a positive integer, got '" << v << "'\n";
      return false;
    }
    out = int(n);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") opt.quick = sceneOption = true;
    else if (a.rfind("--reps=", 0) == 0) {
      if (!positive(a, 7, opt.reps)) return 1;
      repsGiven = true;
    } else if (a.rfind("--steps=", 0) == 0) {
      if (!positive(a, 8, opt.steps)) return 1;
      stepsGiven = true;
    } else if (a.rfind("--dt=", 0) == 0) {
      char* end = nullptr;
      opt.dt = std::strtod(a.c_str() + 5, &end);
      if (a.size() == 5 || *end != '\0') opt.dt = kNaN;
      sceneOption = true;
    } else if (a.rfind("--filter=", 0) == 0) opt.filter = a.substr(9), sceneOption = true;
    else if (a.rfind("--engines=", 0) == 0) opt.engines = a.substr(10), sceneOption = true;
    else if (a == "--work-precision") workPrecision = true;
    else if (a.rfind("--budget=", 0) == 0) {
      char* end = nullptr;
      budget = std::strtod(a.c_str() + 9, &end);
      if (a.size() == 9 || *end != '\0' || !(budget > 0)) {
        std::cerr << "mechstudio-peers: --budget needs a positive number of seconds, got '" << a.substr(9) << "'\n";
        return 1;
      }
    }
    else if (a.rfind("--dts=", 0) == 0) {
      std::stringstream list(a.substr(6));
      for (std::string item; std::getline(list, item, ',');) {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(v > 0 && v <= 0.1)) {
          std::cerr << "mechstudio-peers: --dts needs time steps in (0, 0.1] separated by commas, got '" << item << "'\n";
          return 1;
        }
        dts.push_back(v);
      }
    } else if (a.rfind("--mjcf=", 0) == 0) {
      mjcf = a.substr(7);
      if (mjcf.empty()) {
        std::cerr << "mechstudio-peers: --mjcf needs a file name\n";
        return 1;
      }
    } else {
      std::cerr << "usage: mechstudio-peers [--quick] [--reps=N] [--steps=N] [--dt=SECONDS] [--filter=SUBSTRING] [--engines=ours,mujoco,dart,ode]\n"
                   "       mechstudio-peers --work-precision [--quick] [--reps=N] [--budget=S] [--filter=SUBSTRING] [--engines=LIST] [--dts=A,B,...]\n"
                   "       mechstudio-peers --mjcf=FILE [--steps=N] [--reps=N]\n"
                   "  One CSV on stdout: our engine and the peers found at build time on the same scenes;\n"
                   "  with --work-precision, cost and errors of every engine and integrator over a sweep of\n"
                   "  time steps (LIST: engine names or engine:integrator, e.g. ours:vi,mujoco:rk4);\n"
                   "  with --mjcf, one MJCF file in our engine and in MuJoCo at the file's own timestep\n"
                   "  (defaults: 1000 steps, 10 repetitions).\n";
      if (a == "--help" || a == "-h") return 0;
      std::cerr << "mechstudio-peers: unknown option '" << a << "'\n";
      return 1;
    }
  }
  if (workPrecision) {
    if (!mjcf.empty() || stepsGiven || (opt.dt != 0.01)) {
      std::cerr << "mechstudio-peers: --work-precision takes only --quick, --reps, --budget, --filter, --engines and --dts\n";
      return 1;
    }
    WorkPrecisionOptions w;
    w.reps = repsGiven ? opt.reps : opt.quick ? 1 : 3;
    w.budget = budget;
    w.filter = opt.filter;
    w.engines = opt.engines;
    w.dts = dts;
    w.quick = opt.quick;
    return runWorkPrecision(w);
  }
  if (!dts.empty()) {
    std::cerr << "mechstudio-peers: --dts is an option of --work-precision (the per-step comparison takes --dt)\n";
    return 1;
  }
  // The MJCF mode: one file, both engines at its own timestep.
  if (!mjcf.empty()) {
    if (sceneOption) {
      std::cerr << "mechstudio-peers: --mjcf takes only --steps and --reps (the time step is the file's; "
                   "--quick, --dt, --filter and --engines are for the built-in scenes)\n";
      return 1;
    }
#ifdef PEERS_HAVE_MUJOCO
    return runMjcfMode(mjcf, stepsGiven ? opt.steps : 1000, repsGiven ? opt.reps : 10);
#else
    std::cerr << "mechstudio-peers: --mjcf needs MuJoCo, which was not found when this was built (libmujoco-dev)\n";
    return 1;
#endif
  }
  if (opt.quick) opt.reps = 2, opt.steps = 10;
  if (!(opt.dt > 0 && opt.dt <= 0.1)) {
    std::cerr << "mechstudio-peers: --dt must be in (0, 0.1]\n";
    return 1;
  }
  const int checkSteps = int(std::lround(0.5 / opt.dt));  // the check run covers 0.5 s

  const std::vector<PeerEngine> engines = peerEngines(false, opt.engines);
  std::cerr << "mechstudio-peers: " << opt.reps << " repetitions of " << opt.steps << " steps, dt " << opt.dt << " s; load average "
            << loadAverage() << "\n";
  for (const PeerEngine& e : engines) std::cerr << "  " << e.name << " (" << e.version << "): " << e.description << "\n";
  const auto start = Clock::now();

  std::cout << "case,engine,version,us_per_step_best,us_per_step_median,steps,repetitions,ratio_to_ours_best,"
               "ratio_to_ours_median,z_last_after_0.5s,loop_gap_after_0.5s,note\n";
  for (const Case& c : cases()) {
    if (!opt.filter.empty() && c.name.find(opt.filter) == std::string::npos) continue;
    std::cerr << c.name << " ..." << std::flush;
    std::vector<Result> res(engines.size());
    PeerScene scene;
    std::string sceneError;
    try {
      scene = makePeerScene(c.name, c.scene, c.params, opt.dt);
    } catch (const std::exception& e) {
      sceneError = e.what();
    }
    for (size_t k = 0; k < engines.size(); ++k) {
      Result& r = res[k];
      r.engine = engines[k].name;
      r.version = engines[k].version;
      if (!sceneError.empty()) {
        r.modelled = false;
        r.note = sceneError;
        continue;
      }
      addNote(r.note, modelRemark(r.engine, scene));
      // The check run (also: can this engine model the case at all?).
      try {
        auto inst = engines[k].make(scene);
        addNote(r.note, inst->note());
        int s = 0;
        for (; s < checkSteps; ++s)
          if (!inst->step()) break;
        if (s < checkSteps) addNote(r.note, "check run failed at step " + std::to_string(s + 1) + ": " + inst->failure());
        else {
          Vec3 x;
          Vec4 q;
          inst->pose(int(scene.bodies.size()) - 1, x, q);
          r.checkZ = x.z();
          r.loopGap = loopGap(scene, *inst);
        }
      } catch (const std::exception& e) {
        r.modelled = false;
        addNote(r.note, std::string("not modelled: ") + e.what());
      }
    }
    // Timed repetitions, engines interleaved.
    for (int rep = 0; rep < opt.reps; ++rep)
      for (size_t kk = 0; kk < engines.size(); ++kk) {
        const size_t k = (kk + size_t(rep)) % engines.size();
        Result& r = res[k];
        if (!r.modelled) continue;
        try {
          auto inst = engines[k].make(scene);
          int s = 0;
          const auto t0 = Clock::now();
          for (; s < opt.steps; ++s)
            if (!inst->step()) break;
          const auto t1 = Clock::now();
          if (s < opt.steps) {
            addNote(r.note, "step " + std::to_string(s + 1) + " failed: " + inst->failure());
            continue;
          }
          r.usPerStep.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / opt.steps);
        } catch (const std::exception& e) {
          addNote(r.note, std::string("failed: ") + e.what());
        }
      }
    const double oursBest = res[0].engine == "ours" && !res[0].usPerStep.empty()
                                ? *std::min_element(res[0].usPerStep.begin(), res[0].usPerStep.end())
                                : kNaN;
    const double oursMedian = res[0].engine == "ours" ? median(res[0].usPerStep) : kNaN;
    for (const Result& r : res) {
      const double best = r.usPerStep.empty() ? kNaN : *std::min_element(r.usPerStep.begin(), r.usPerStep.end());
      const double med = median(r.usPerStep);
      std::cout << c.name << "," << r.engine << "," << csvField(r.version) << "," << fmt(best) << "," << fmt(med) << ","
                << (r.usPerStep.empty() ? 0 : opt.steps) << "," << r.usPerStep.size() << "," << fmt(best / oursBest, 3) << ","
                << fmt(med / oursMedian, 3) << "," << fmt(r.checkZ, 5) << "," << fmt(r.loopGap, 2) << "," << csvField(r.note) << "\n";
    }
    std::cout.flush();
    std::cerr << " done\n";
  }
  std::cerr << "mechstudio-peers: " << std::chrono::duration<double>(Clock::now() - start).count() << " s; load average "
            << loadAverage() << "\n";
  return 0;
}
