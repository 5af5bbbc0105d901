// SPDX-License-Identifier: GPL-3.0-or-later
// The interface of one engine's runner in the peer benchmark: an engine builds a scene (outside
// the timing) into an instance that steps it by Δt; the harness (peers_main.cc) times step() only.
// Runners for engines that were not found at configure time are not compiled (see CMakeLists.txt);
// their factory functions are declared here and registered under the PEERS_HAVE_* macros.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/quaternion.h"
#include "peer_scene.h"

namespace peers {

// A case this engine cannot model (the reason goes to the CSV's note column).
struct Unsupported : std::runtime_error {
  explicit Unsupported(const std::string& why) : std::runtime_error(why) {}
};

class PeerInstance {
 public:
  virtual ~PeerInstance() = default;
  // One step of Δt with the engine's own stepping function. False when the engine reports a
  // failure (the reason in failure()).
  virtual bool step() = 0;
  // Pose of body i's centre-of-mass frame (position, orientation [w, x, y, z], world), to check
  // that the engines simulate the same motion and how well they keep the loops closed.
  virtual void pose(int body, Vec3& x, Vec4& q) const = 0;
  // Velocity of body i's centre of mass and its angular velocity, both in the world frame, at the
  // time of the current pose (for the energy of the work-precision mode, work_precision.cc).
  virtual void velocity(int body, Vec3& v, Vec3& w) const = 0;
  virtual std::string failure() const { return {}; }
  // Remarks on how this instance modelled the scene (e.g. a split MJCF), for the note column.
  virtual std::string note() const { return {}; }
};

// Helpers of the CSV writers (peers_main.cc, work_precision.cc): a field quoted when it needs it,
// newlines as spaces; a number with `prec` significant digits (empty when not finite), the median, /proc/loadavg.
inline std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return q + "\"";
}
inline std::string fmt(double v, int prec = 4) {
  if (!std::isfinite(v)) return "";
  char b[40];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}
inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
inline std::string loadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The largest distance between the two bodies' points of a loop-closing joint (the points that
// coincide at the initial pose), NaN for a scene without loops.
inline double loopGap(const PeerScene& s, const PeerInstance& inst) {
  double gap = std::numeric_limits<double>::quiet_NaN();
  for (const PeerJoint& j : s.joints) {
    if (!j.loop) continue;
    auto point = [&](int body) {
      if (body < 0) return j.anchor;
      const PeerBody& b = s.bodies[size_t(body)];
      const Vec3 local = ms::quat::rotation(b.q).transpose() * (j.anchor - b.x);
      Vec3 x;
      Vec4 q;
      inst.pose(body, x, q);
      return Vec3(x + ms::quat::rotation(q.normalized()) * local);
    };
    const double g = (point(j.child) - point(j.parent)).norm();
    gap = std::isnan(gap) ? g : std::max(gap, g);
  }
  return gap;
}

struct PeerEngine {
  std::string name;     // "ours", "mujoco", "dart", "ode"
  std::string version;
  std::string integrator;  // the time stepper ("vi", "rk4", "euler", "semi-implicit euler", ...)
  // What is timed and the solver settings (for stderr and the docs).
  std::string description;
  // Builds a fresh instance at the scene's initial state; throws Unsupported (or ms::UserError).
  std::function<std::unique_ptr<PeerInstance>(const PeerScene&)> make;
};

// The descriptor of an engine whose instances are Instance(scene).
template <class Instance>
PeerEngine makePeerEngine(std::string name, std::string version, std::string integrator, std::string description) {
  return {std::move(name), std::move(version), std::move(integrator), std::move(description),
          [](const PeerScene& s) -> std::unique_ptr<PeerInstance> { return std::make_unique<Instance>(s); }};
}

// Our engine with the default variational integrator; and with another time stepper of ours
// (`integrator`: vi, midpoint-gc, riqn, rk4, rk4-baumgarte, exponential — the last with soft contacts).
PeerEngine oursEngine();
PeerEngine oursEngine(const std::string& integrator);
#ifdef PEERS_HAVE_MUJOCO
// MuJoCo with its default Euler integrator, or `integrator` = euler, rk4 or implicit.
PeerEngine mujocoEngine(const std::string& integrator = "euler");
// --mjcf=FILE (mjcf_mode.cc): the file in our engine and in MuJoCo; the process's exit code
// (0; 2: an engine refuses the file; 3: a step failed).
int runMjcfMode(const std::string& file, int steps, int reps);
#endif
#ifdef PEERS_HAVE_DART
PeerEngine dartEngine();
#endif
#ifdef PEERS_HAVE_ODE
PeerEngine odeEngine();
#endif

// The engines built in (peer_engines.cc): ours and MuJoCo with their default integrators, or
// (everyIntegrator) every integrator of each; `selection` keeps the listed ones ("ours,dart" or
// "ours:vi,mujoco:rk4"; empty: all).
std::vector<PeerEngine> peerEngines(bool everyIntegrator, const std::string& selection);

// --work-precision (work_precision.cc): the Δt sweep of every engine and integrator on the
// scenarios, one CSV on stdout; returns the process's exit code.
struct WorkPrecisionOptions {
  std::string filter;       // substring of the scenario name
  std::string engines;      // comma-separated engine names, empty = all
  std::vector<double> dts;  // empty = the default sweep
  bool quick = false;       // one short Δt pair per scenario (smoke test)
  int reps = 3;             // runs per point (the cost is their median)
  double budget = 120;      // s: a run predicted to take longer (all its repetitions) is skipped
};
int runWorkPrecision(const WorkPrecisionOptions& options);

}  // namespace peers
