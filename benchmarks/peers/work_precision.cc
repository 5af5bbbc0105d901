// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-peers --work-precision (issue 33): accuracy per unit of cost. For each scenario, each
// engine and each of its integrators, a sweep of Δt; every run measures its cost (the wall time of
// the steps alone, per simulated second) and the scenario's errors, read the same way from every
// engine (poses and velocities of the bodies' centres of mass through PeerInstance):
//   trajectory_error_1s [m]   largest distance of a body's centre of mass at t = 1 s from the
//                             reference: our RK4 (acceleration-level dynamics in maximal
//                             coordinates) at Δt = 1e-4 s, checked against MuJoCo's RK4 (generalized
//                             coordinates) at the same Δt — two independent implementations of a
//                             fourth-order method; without MuJoCo against our VI at Δt = 1e-5 s. The
//                             agreement is printed on stderr.
//   energy_error_max [J]      max |E − E0| over the run, E = Σ ½ m|v|² + ½ ωᵀ(R J Rᵀ)ω − m g·x from
//                             the engine's velocities (ours: the velocities at the knot)
//   closure_max [m]           largest gap of a loop-closing joint over the run
//   penetration_max [m]       deepest point of a contact shape below the ground over the run
//   penetration_rest [m]      the same over the last 0.5 s (at rest)
//   rebound [m]               highest centre of mass after the first touch above the final one
//                             (the box drop)
//   slide_error [m]           the incline: |distance the box moved along the slope by t = 1 s −
//                             ½ a t²|, a = g (sin θ − μ cos θ) where tan θ > μ, a = 0 where it sticks
//                             (the stick/slide boundary). The incline is given to every engine turned
//                             level, with gravity tilted by θ (peer_scene.cc): the same physics.
// A combination that refuses a scenario is a row with status `refused` and the reason; a run whose
// step fails is `failed` with the time and the engine's message. Provenance (commit, machine, load,
// engine versions and settings, the reference's agreement) goes to stderr. Each point runs in a child
// process (an engine that aborts fails that point only). A run predicted (from the
// engine's previous Δt) to take longer than --budget seconds is a row with status `skipped`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "core/quaternion.h"
#include "peer_runner.h"

namespace peers {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Δt of the reference solution (RK4) and of its check, s.
constexpr double kReferenceDt = 1e-4;
#ifndef PEERS_HAVE_MUJOCO
constexpr double kCheckDt = 1e-5;  // our VI (second order) when MuJoCo's RK4 is not built in
#endif
// A shape point at or below this height touches the ground (rebound: the first touch), m.
constexpr double kTouch = 1e-3;
// Penetration "at rest": over the last kRestWindow seconds of the run.
constexpr double kRestWindow = 0.5;

struct Scenario {
  std::string name, scene;
  std::map<std::string, std::string> params;
  double duration;       // s: the run over which energy, closure and penetration are measured
  bool trajectory;       // trajectory error at t = 1 s against the reference
  bool energy, closure, contact;
  double slide = kNaN;  // the incline: the expected acceleration along the slope (0: sticks), m/s²
};

// The incline of the contact scenes: a 1 kg, 0.5 m box on a 20° slope, μ 0.5 (sticks: tan 20° = 0.364)
// or 0.3 (slides with g (sin θ − μ cos θ)).
constexpr double kInclineDeg = 20;
double slideAcceleration(double mu) {
  const double th = kInclineDeg * M_PI / 180;
  return std::max(0.0, 9.81 * (std::sin(th) - mu * std::cos(th)));
}

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> s = {
      {"double-pendulum", "double-pendulum", {}, 60, true, true, false, false},
      {"three-link-loop", "three-link-loop", {}, 60, false, true, true, false},
      {"chain/revolute/n=10", "chain", {{"n", "10"}, {"joint", "revolute"}}, 10, true, true, false, false},
      {"chain/revolute/n=100", "chain", {{"n", "100"}, {"joint", "revolute"}}, 10, true, true, false, false},
      {"box-drop", "box-drop", {}, 2, false, false, false, true},
      {"incline/stick", "box-incline", {{"angle_deg", "20"}, {"mu", "0.5"}}, 2, false, false, false, true, slideAcceleration(0.5)},
      {"incline/slide", "box-incline", {{"angle_deg", "20"}, {"mu", "0.3"}}, 2, false, false, false, true, slideAcceleration(0.3)},
  };
  return s;
}

const std::vector<double> kDefaultDts = {0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002};

struct Row {
  std::string status = "ok", note;
  double usPerSimSecond = kNaN, trajectory = kNaN, energy = kNaN, closure = kNaN;
  double penetrationMax = kNaN, penetrationRest = kNaN, rebound = kNaN, slide = kNaN;
  int repetitions = 0;
  double spread = kNaN;  // (slowest − fastest) / median of the repetitions' costs
};

// Wall time of the steps alone of one more run (no readouts), µs; NaN if a step fails.
double timedRun(const PeerEngine& engine, const Scenario& sc, double dt, double duration) {
  PeerScene scene = makePeerScene(sc.name, sc.scene, sc.params, dt);
  auto inst = engine.make(scene);
  const long steps = std::lround(duration / dt);
  const auto t0 = Clock::now();
  for (long k = 0; k < steps; ++k)
    if (!inst->step()) return kNaN;
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Total energy of the bodies (kinetic + gravity), J.
double energy(const PeerScene& s, const PeerInstance& inst) {
  double e = 0;
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    Vec3 x, v, w;
    Vec4 q;
    inst.pose(int(i), x, q);
    inst.velocity(int(i), v, w);
    const Mat3 R = ms::quat::rotation(q.normalized());
    const PeerBody& b = s.bodies[i];
    e += 0.5 * b.mass * v.squaredNorm() + 0.5 * w.dot(R * b.inertia * R.transpose() * w) - b.mass * s.gravity.dot(x);
  }
  return e;
}

// Height of the lowest point of the contact shapes (box corners, sphere bottoms), m.
double lowestPoint(const PeerScene& s, const PeerInstance& inst) {
  double low = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    Vec3 x;
    Vec4 q;
    inst.pose(int(i), x, q);
    const Mat3 R = ms::quat::rotation(q.normalized());
    for (const PeerShape& sh : s.bodies[i].shapes) {
      const Vec3 c = x + R * sh.position;
      if (sh.kind == PeerShape::Kind::Sphere) {
        low = std::min(low, c.z() - sh.size.x());
        continue;
      }
      const Mat3 Rs = R * ms::quat::rotation(sh.orientation);
      for (int k = 0; k < 8; ++k) {
        const Vec3 corner(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5);
        low = std::min(low, (c + Rs * corner.cwiseProduct(sh.size)).z());
      }
    }
  }
  return low;
}

// Centres of mass of every body at time t in a run of `engine` at Δt (throws on refusal or failure).
std::vector<Vec3> positionsAt(const PeerEngine& engine, const Scenario& sc, double dt, double t) {
  PeerScene scene = makePeerScene(sc.name, sc.scene, sc.params, dt);
  auto inst = engine.make(scene);
  const long steps = std::lround(t / dt);
  for (long k = 0; k < steps; ++k)
    if (!inst->step()) throw std::runtime_error("the reference run failed at step " + std::to_string(k + 1) + ": " + inst->failure());
  std::vector<Vec3> x(scene.bodies.size());
  for (size_t i = 0; i < x.size(); ++i) {
    Vec4 q;
    inst->pose(int(i), x[i], q);
  }
  return x;
}

double largestDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

// One run: the scenario at Δt with the engine, its cost and errors.
Row run(const PeerEngine& engine, const Scenario& sc, double dt, double duration, const std::vector<Vec3>* reference, int reps) {
  Row r;
  PeerScene scene;
  std::unique_ptr<PeerInstance> inst;
  try {
    scene = makePeerScene(sc.name, sc.scene, sc.params, dt);
    inst = engine.make(scene);
  } catch (const std::exception& e) {
    r.status = "refused";
    r.note = e.what();
    return r;
  }
  const long steps = std::lround(duration / dt);
  const long trajectoryStep = std::lround(1.0 / dt);
  const long restFrom = steps - std::lround(kRestWindow / dt);
  const double e0 = sc.energy ? energy(scene, *inst) : 0.0;
  double busy = 0, energyError = 0, gap = 0, deepest = 0, rest = 0, highest = -std::numeric_limits<double>::infinity();
  bool touched = false;
  std::vector<Vec3> x1;
  Vec3 start;
  {
    Vec4 q;
    inst->pose(0, start, q);
  }
  for (long k = 1; k <= steps; ++k) {
    const auto t0 = Clock::now();
    const bool ok = inst->step();
    busy += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (!ok) {
      r.status = "failed";
      r.note = "step " + std::to_string(k) + " (t = " + fmt(k * dt) + " s): " + inst->failure();
      return r;
    }
    // The measurements, outside the timing.
    if (sc.energy) {
      const double e = energy(scene, *inst);
      if (!std::isfinite(e)) {
        r.status = "failed";
        r.note = "non-finite energy at t = " + fmt(k * dt) + " s";
        return r;
      }
      energyError = std::max(energyError, std::abs(e - e0));
    }
    if (sc.closure) gap = std::max(gap, loopGap(scene, *inst));  // (the closure scenarios have loops)
    if (sc.contact) {
      const double low = lowestPoint(scene, *inst);
      deepest = std::max(deepest, -low);
      if (k >= restFrom) rest = std::max(rest, -low);
      touched = touched || low <= kTouch;
      if (touched) {
        Vec3 x;
        Vec4 q;
        inst->pose(0, x, q);
        highest = std::max(highest, x.z());
      }
    }
    if (std::isfinite(sc.slide) && k == trajectoryStep) {
      Vec3 x;
      Vec4 q;
      inst->pose(0, x, q);
      r.slide = std::abs((x - start).norm() - 0.5 * sc.slide * (k * dt) * (k * dt));
    }
    if (sc.trajectory && k == trajectoryStep && reference) {
      x1.resize(scene.bodies.size());
      for (size_t i = 0; i < x1.size(); ++i) {
        Vec4 q;
        inst->pose(int(i), x1[i], q);
      }
      r.trajectory = largestDistance(x1, *reference);
    }
  }
  // The cost: the median over this run and reps − 1 more, timed without readouts.
  std::vector<double> costs = {busy / (steps * dt)};
  for (int rep = 1; rep < reps; ++rep) {
    const double t = timedRun(engine, sc, dt, duration);
    if (std::isfinite(t)) costs.push_back(t / (steps * dt));
  }
  r.usPerSimSecond = median(costs);
  r.repetitions = int(costs.size());
  r.spread = (*std::max_element(costs.begin(), costs.end()) - *std::min_element(costs.begin(), costs.end())) / r.usPerSimSecond;
  if (sc.energy) r.energy = energyError;
  if (sc.closure) r.closure = gap;
  if (sc.contact) {
    Vec3 x;
    Vec4 q;
    inst->pose(0, x, q);
    r.penetrationMax = std::max(0.0, deepest);
    r.penetrationRest = std::max(0.0, rest);
    r.rebound = touched && !std::isfinite(sc.slide) ? std::max(0.0, highest - x.z()) : kNaN;
  }
  return r;
}

// run() in a child process: an engine that aborts (Debian's DART asserts on a transform that blew
// up, which ends the process) fails this point only. The child sends the row through a pipe.
Row isolatedRun(const PeerEngine& engine, const Scenario& sc, double dt, double duration, const std::vector<Vec3>* reference,
                int reps) {
  int fd[2];
  if (pipe(fd) != 0) return run(engine, sc, dt, duration, reference, reps);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return run(engine, sc, dt, duration, reference, reps);
  }
  if (pid == 0) {
    close(fd[0]);
    const Row r = run(engine, sc, dt, duration, reference, reps);
    const double v[10] = {r.usPerSimSecond, r.trajectory, r.energy, r.closure, r.penetrationMax, r.penetrationRest, r.rebound,
                          double(r.repetitions), r.spread, r.slide};
    std::string msg(reinterpret_cast<const char*>(v), sizeof v);
    msg += r.status + '\n' + r.note;
    for (size_t off = 0; off < msg.size();) {
      const ssize_t n = write(fd[1], msg.data() + off, msg.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Row r;
  constexpr size_t kNumbers = 10 * sizeof(double);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || msg.size() < kNumbers) {
    r.status = "failed";
    r.note = WIFSIGNALED(status) ? "the engine aborted the process (signal " + std::to_string(WTERMSIG(status)) +
                                       ", " + strsignal(WTERMSIG(status)) + "; its message is on stderr)"
                                 : "the run's process ended without a result";
    return r;
  }
  double v[10];
  std::memcpy(v, msg.data(), kNumbers);
  r.usPerSimSecond = v[0], r.trajectory = v[1], r.energy = v[2], r.closure = v[3], r.penetrationMax = v[4];
  r.penetrationRest = v[5], r.rebound = v[6], r.repetitions = int(v[7]), r.spread = v[8], r.slide = v[9];
  const std::string rest = msg.substr(kNumbers);
  const size_t nl = rest.find('\n');
  r.status = rest.substr(0, nl);
  r.note = nl == std::string::npos ? "" : rest.substr(nl + 1);
  return r;
}

std::string commandOutput(const char* cmd) {
  std::string out;
  if (FILE* p = popen(cmd, "r")) {
    char b[256];
    while (fgets(b, sizeof b, p)) out += b;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

int runWorkPrecision(const WorkPrecisionOptions& opt) {
  // Every engine and integrator.
  const std::vector<PeerEngine> engines = peerEngines(true, opt.engines);
  const std::vector<double> dts = !opt.dts.empty() ? opt.dts : opt.quick ? std::vector<double>{0.01, 0.005} : kDefaultDts;

  // Provenance.
  std::cerr << "mechstudio-peers --work-precision: commit " << commandOutput("git rev-parse --short HEAD 2>/dev/null") << ", "
            << commandOutput("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2") << ", " << std::thread::hardware_concurrency()
            << " hardware threads, load average " << loadAverage() << "\n";
  std::cerr << "  " << opt.reps << " runs per point: the cost is the median of their step wall times (readouts not timed),"
               " the errors are the first run's; runs predicted beyond " << opt.budget << " s are skipped\n";
  for (const PeerEngine& e : engines) std::cerr << "  " << e.name << " " << e.integrator << " (" << e.version << "): " << e.description << "\n";
  const auto start = Clock::now();

  std::cout << "scenario,engine,integrator,dt,us_per_sim_second,trajectory_error_1s [m],energy_error_max [J],closure_max [m],"
               "penetration_max [m],penetration_rest [m],rebound [m],slide_error [m],repetitions,cost_spread,status,note\n";
  const PeerEngine rk4 = oursEngine("rk4");
#ifdef PEERS_HAVE_MUJOCO
  const PeerEngine checkEngine = mujocoEngine("rk4");
  const double checkDt = kReferenceDt;
#else
  const PeerEngine checkEngine = oursEngine("vi");
  const double checkDt = kCheckDt;
#endif
  for (const Scenario& sc : scenarios()) {
    if (!opt.filter.empty() && sc.name.find(opt.filter) == std::string::npos) continue;
    const double duration = opt.quick ? std::min(sc.duration, 1.0) : sc.duration;
    // The reference at t = 1 s: our RK4 at kReferenceDt, and its check.
    std::vector<Vec3> reference;
    if (sc.trajectory) {
      try {
        reference = positionsAt(rk4, sc, kReferenceDt, 1.0);
        const std::vector<Vec3> check = positionsAt(checkEngine, sc, checkDt, 1.0);
        std::cerr << sc.name << ": reference = our RK4 at dt " << kReferenceDt << " s; " << checkEngine.name << " "
                  << checkEngine.integrator << " at dt " << checkDt << " s differs by " << largestDistance(reference, check)
                  << " m at t = 1 s\n";
      } catch (const std::exception& e) {
        std::cerr << sc.name << ": no reference (" << e.what() << ")\n";
        reference.clear();
      }
    }
    for (const PeerEngine& e : engines) {
      // The wall time of the last run, scaled by the step ratio, predicts the next (smaller Δt) run's.
      double lastWall = kNaN, lastDt = kNaN;
      std::vector<double> sorted = dts;
      std::sort(sorted.begin(), sorted.end(), std::greater<double>());
      for (double dt : sorted) {
        std::cerr << sc.name << " " << e.name << " " << e.integrator << " dt " << dt << " ..." << std::flush;
        Row r;
        const double predicted = lastWall * lastDt / dt * opt.reps;
        if (std::isfinite(predicted) && predicted > opt.budget) {
          r.status = "skipped";
          r.note = "predicted " + fmt(predicted) + " s of wall time for " + std::to_string(opt.reps) +
                   " runs, beyond the budget of " + fmt(opt.budget) + " s (--budget)";
        } else {
          r = isolatedRun(e, sc, dt, duration, reference.empty() ? nullptr : &reference, opt.reps);
          if (r.status == "ok") lastWall = r.usPerSimSecond * duration * 1e-6, lastDt = dt;
        }
        std::cerr << " " << r.status << "\n";
        std::cout << sc.name << "," << e.name << "," << csvField(e.integrator) << "," << dt << "," << fmt(r.usPerSimSecond) << ","
                  << fmt(r.trajectory) << "," << fmt(r.energy) << "," << fmt(r.closure) << "," << fmt(r.penetrationMax) << ","
                  << fmt(r.penetrationRest) << "," << fmt(r.rebound) << "," << fmt(r.slide) << "," << r.repetitions << "," << fmt(r.spread) << ","
                  << r.status << "," << csvField(r.note) << "\n";
        std::cout.flush();
      }
    }
  }
  std::cerr << "mechstudio-peers --work-precision: " << std::chrono::duration<double>(Clock::now() - start).count()
            << " s; load average " << loadAverage() << "\n";
  return 0;
}

}  // namespace peers
