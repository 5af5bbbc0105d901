// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-bench: timings of the engine (issue 2, "Benchmarks"), on Google Benchmark with a
// custom reporter that prints one CSV row per benchmark case to stdout (progress goes to stderr).
//
// Families (see docs/benchmarks.md):
//  (a) chain        — `chain` scene, joint revolute|spherical, n links: one benchmark iteration is
//                      1000 steps at Δt = 0.01, tol 1e-10 from the scene's initial conditions
//                      (reset outside the timing); reported per step.
//  (b) ldu          — sparse graph LDU (factor + solve) against the dense block LDU reference and
//                      Eigen's PartialPivLU on the same matrix: the real Newton matrices of the
//                      chain and of four-link-segments, and the ladder, net and crystal graphs of
//                      Brüdigam et al. 2023 §5.2 (Fig. 9b–d) with random, diagonally dominant 6×6
//                      blocks.
//  (c) four-link-segments — as (a) for the `four-link-segments` scene (closed loops).
//  (d) box-drop, sphere-chain — as (a) with rigid contacts (interior point, §3.3–3.5, §5.2).
//  (h) box-stack — as (a) with contacts between bodies (issue 16: box–box face manifolds);
//      spheres-in-box — automatic collisions found by the broad phase, 100 steps per iteration.
//  (e) tolerance    — the paper's Fig. 10: revolute chains n = 2 … 100 at Newton tolerances 1e-6,
//                      1e-8 and 1e-10 (as (a) otherwise).
//  (g) gc-chain     — revolute chains for vi, midpoint-gc and riqn at Δt 0.01 and 1 ms, tol 1e-8
//                      (RIQN against Newton on the same midpoint DEL, Lee et al. 2016 §4.3); the
//                      tolerance family (e) also runs midpoint-gc and riqn.
//  (i) contact      — issue 31's cases at each model's own Δt and default tolerances (the models'
//                      files, loaded as the CLI loads them): quadruped.mech at Δt 1 and 5 ms,
//                      spheres-in-box.mech (64 spheres), box-stack.mech (10 cubes),
//                      contact-pairs.mech, scene sphere-chain n = 100, the 200-sphere pile
//                      (spheres-in-box.mech in three layers) and the folding capsule chain n = 20 of
//                      tst_capsule_chain; a few hundred steps per iteration. Reported besides the
//                      time: the real-time factor Δt / (median time per step), the interior-point
//                      iterations per step (median and max over the steps of one run), the
//                      subdivided steps and the largest penetration of that run.
//  (f) scaled-pendulum — the paper's Fig. 11: the `scaled-pendulum` scene at scales s = 1, 0.5, 0.1
//                      with Δt/s from 1e-4 to 1e-2 (two decades), released at π/2 and simulated for
//                      half the small-swing period T/2 = π √(2l/(3g)); one benchmark iteration is the
//                      whole half swing. Reports the final-angle error |−π/2 − θ_T| as the paper
//                      measures it, and the error against the exact large-swing solution θ(t_end).
// Every case is repeated (20 times in a full run; dense solves of > 256 nodes 5 times), with the
// repetitions of all cases interleaved in random order, and reported as best (min) and median of
// the repetitions. A case that fails (a step that does not converge, a singular matrix) gets a row
// with the reason in the `error` column instead of aborting the run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/LU>

#include "core/check.h"
#include "core/types.h"
#include "integrator/integrator_options.h"
#include "integrator/variational_step.h"
#include "io/mech_reader.h"
#include "io/model_file.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "solver/dense_ldu.h"
#include "solver/graph.h"
#include "solver/ldu_graph.h"
#include "system/compiled_system.h"

namespace {

using namespace ms;
using Clock = std::chrono::steady_clock;

constexpr int kSteps = 1000;     // steps per benchmark iteration of a simulation case
constexpr double kDt = 0.01;     // s
constexpr double kTol = 1e-10;   // Newton tolerance on the residual ∞-norm
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.141592653589793;

struct Options {
  bool quick = false;
  int repetitions = 20;          // simulation cases and sparse solves
  int denseRepetitions = 20;     // dense solves up to kDenseLargeNodes nodes
  int denseLargeRepetitions = 5; // dense solves above (each takes seconds)
  double minTime = 0.2;          // s of measured time per repetition (at least one iteration)
  double denseMinTime = 0.05;
  int maxGraphNodes = 1 << 30;   // synthetic graphs larger than this are not registered
};
constexpr int kDenseLargeNodes = 256;
Options g_opt;

// ----------------------------------------------------------------------------------------------
// Result rows. Each row is one case; LDU rows join three benchmarks (sparse, dense, Eigen LU).

enum class Role { Simulation, Sparse, Dense, EigenLU };

struct RoleResult {
  bool resolved = false;  // aggregates or an error arrived
  int reps = 0;           // successful repetitions
  double best = kNaN, median = kNaN;  // µs per iteration
  double itersMedian = kNaN, violationMax = kNaN;
};

struct Row {
  std::string family, variant, size;
  int n = 0;             // links / segments (0 for synthetic graphs)
  int steps = kSteps;    // simulation cases: steps per benchmark iteration
  double angleErrorPaper = kNaN, angleErrorExact = kNaN;  // (f): final-angle errors, rad
  int nodes = -1;        // graph nodes (bodies + constrained joints)
  int fillIn = -1;       // fill-in node pairs of the elimination order
  double relDiff = kNaN; // ‖x_sparse − x_dense‖ / ‖x_dense‖ for LDU rows
  double dt = kNaN;      // (i): the case's Δt, s
  std::vector<Role> roles;
  std::map<Role, RoleResult> results;
  std::string error;
  bool printed = false;
};

std::vector<Row> g_rows;
std::map<std::string, std::pair<int, Role>> g_byName;  // benchmark name → (row, role)

void noteError(int row, const std::string& msg) {
  if (g_rows[row].error.empty()) g_rows[row].error = msg;
}

double minStatistic(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// ----------------------------------------------------------------------------------------------
// (a), (c): simulation cases.

struct SimCase {
  std::shared_ptr<const CompiledSystem> sys;
  std::unique_ptr<Simulation> sim;
  std::string error;
};

// Settings of a simulation case (defaults: kDt, kTol).
struct SimSettings {
  double dt = kDt, tolerance = kTol;
  IntegratorKind integrator = IntegratorKind::Variational;
};
std::map<int, SimSettings> g_simSettings;  // by row

SimCase& simCase(int row, const std::string& scene, const std::map<std::string, std::string>& params) {
  static std::map<int, SimCase> cache;
  auto it = cache.find(row);
  if (it != cache.end()) return it->second;
  SimCase& c = cache[row];
  try {
    c.sys = compile(buildScene(scene, params));
    c.sim = std::make_unique<Simulation>(c.sys);
    const SimSettings set = g_simSettings[row];
    c.sim->settings().dt = set.dt;
    c.sim->settings().tolerance = set.tolerance;
    if (set.integrator != IntegratorKind::Variational) {
      IntegratorOptions o;
      o.kind = set.integrator;
      c.sim->setIntegrator(o);
    }
    c.sim->reset();  // initial conditions depend on Δt
    g_rows[row].nodes = c.sys->numNodes;
    g_rows[row].fillIn = c.sys->order.fillIn;
  } catch (const std::exception& e) {
    c.error = std::string("setup failed: ") + e.what();
  }
  return c;
}

void benchSimulation(benchmark::State& st, int row, const std::string& scene,
                     const std::map<std::string, std::string>& params) {
  SimCase& c = simCase(row, scene, params);
  if (!c.error.empty()) {
    st.SkipWithError(c.error.c_str());
    for (auto _ : st) (void)_;
    return;
  }
  Simulation& sim = *c.sim;
  const int stepsPerIteration = g_rows[row].steps;
  long steps = 0, iterations = 0;
  double violation = 0;
  for (auto _ : st) {
    sim.reset();  // outside the (manual) timing
    bool ok = true;
    long its = 0;
    const auto t0 = Clock::now();
    for (int s = 0; s < stepsPerIteration; ++s) {
      if (!sim.step()) {
        ok = false;
        break;
      }
      its += sim.metrics().iterations;
      violation = std::max(violation, sim.metrics().constraintViolation);
    }
    const auto t1 = Clock::now();
    if (!ok) {
      c.error = sim.metrics().message;
      st.SkipWithError(c.error.c_str());
      break;
    }
    st.SetIterationTime(seconds(t0, t1));
    steps += stepsPerIteration;
    iterations += its;
  }
  if (steps > 0) {
    st.counters["iters_per_step"] = double(iterations) / double(steps);
    st.counters["max_violation"] = violation;
    if (g_rows[row].family == "scaled-pendulum") {
      st.counters["final_angle"] = sim.jointPosition(0)(0);
      st.counters["final_time"] = sim.state().time;
    }
  }
}

// ----------------------------------------------------------------------------------------------
// (i): contact cases (issue 31).

// Where a contact case's model comes from: a model file or scene:NAME with parameters (as
// `mechstudio-cli simulate SOURCE --set K=V` reads it), or model-language text; dt > 0 replaces
// the model's Δt.
struct ContactSource {
  std::string source;
  std::map<std::string, std::string> params;
  double dt = 0;
};

// What one run of a contact case's steps showed (the run is deterministic: every repetition
// repeats it, so the first complete run is kept).
struct ContactStats {
  bool filled = false;
  std::vector<double> iterations;  // interior-point (Newton) iterations of each step
  int subdivided = 0;              // steps with StepMetrics::substeps > 1
  double penetration = 0;          // largest StepMetrics::penetration, m
};
std::map<int, ContactStats> g_contactStats;  // by row

// The models directory of the source tree (the contact cases read the committed models).
std::string modelsDir() { return std::string(MECHSTUDIO_SOURCE_DIR) + "/models"; }

SimCase& contactCase(int row, const ContactSource& src) {
  static std::map<int, SimCase> cache;
  auto it = cache.find(row);
  if (it != cache.end()) return it->second;
  SimCase& c = cache[row];
  try {
    Model model;
    Diagnostics diags;
    if (!loadModel(src.source, src.params, model, diags)) throw std::runtime_error(diags.format());
    c.sys = compile(model);
    c.sim = std::make_unique<Simulation>(c.sys);
    if (src.dt > 0) c.sim->settings().dt = src.dt;
    c.sim->reset();  // initial conditions depend on Δt
    g_rows[row].dt = c.sim->settings().dt;
    g_rows[row].n = int(c.sys->bodies.size());
    g_rows[row].nodes = c.sys->numNodes;
    g_rows[row].fillIn = c.sys->order.fillIn;
  } catch (const std::exception& e) {
    c.error = std::string("setup failed: ") + e.what();
  }
  return c;
}

void benchContact(benchmark::State& st, int row, const ContactSource& src) {
  SimCase& c = contactCase(row, src);
  if (!c.error.empty()) {
    st.SkipWithError(c.error.c_str());
    for (auto _ : st) (void)_;
    return;
  }
  Simulation& sim = *c.sim;
  ContactStats& stats = g_contactStats[row];
  const int stepsPerIteration = g_rows[row].steps;
  long steps = 0, iterations = 0;
  double violation = 0;
  std::vector<double> its;
  its.reserve(size_t(stepsPerIteration));
  for (auto _ : st) {
    sim.reset();  // outside the (manual) timing
    its.clear();
    int subdivided = 0;
    double penetration = 0;
    bool ok = true;
    const auto t0 = Clock::now();
    for (int s = 0; s < stepsPerIteration; ++s) {
      if (!sim.step()) {
        ok = false;
        break;
      }
      const StepMetrics& m = sim.metrics();
      its.push_back(m.iterations);
      subdivided += m.substeps > 1;
      penetration = std::max(penetration, m.penetration);
      violation = std::max(violation, m.constraintViolation);
    }
    const auto t1 = Clock::now();
    if (!ok) {
      c.error = sim.metrics().message;
      st.SkipWithError(c.error.c_str());
      break;
    }
    st.SetIterationTime(seconds(t0, t1));
    steps += stepsPerIteration;
    for (double k : its) iterations += long(k);
    if (!stats.filled) {
      stats.filled = true;
      stats.iterations = its;
      stats.subdivided = subdivided;
      stats.penetration = penetration;
    }
  }
  if (steps > 0) {
    st.counters["iters_per_step"] = double(iterations) / double(steps);
    st.counters["max_violation"] = violation;
  }
}

double medianOf(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// (f): the exact angle of the scaled pendulum (a rod hinged at one end, at rest at θ0) at time t:
// θ'' = −(m g c / J) sin θ with c the hinge–centre distance and J the inertia about the hinge,
// integrated by RK4 with 2·10^5 steps per unit of ω0 t (converged to ~1e-13 rad).
double exactPendulumAngle(const CompiledSystem& sys, double g, double theta0, double t) {
  const BodyDesc& b = sys.model.bodies[0];
  const double c = sys.model.joints[0].childAnchor.norm();
  const Vec3 axis = sys.model.joints[0].axis.normalized();
  const double J = axis.dot(b.inertia * axis) + b.mass * c * c, k = b.mass * g * c / J;
  const int n = std::max(1000, int(2e5 * std::sqrt(k) * t));
  const double h = t / n;
  double th = theta0, om = 0;
  auto acc = [k](double x) { return -k * std::sin(x); };
  for (int i = 0; i < n; ++i) {
    const double k1 = om, l1 = acc(th);
    const double k2 = om + 0.5 * h * l1, l2 = acc(th + 0.5 * h * k1);
    const double k3 = om + 0.5 * h * l2, l3 = acc(th + 0.5 * h * k2);
    const double k4 = om + h * l3, l4 = acc(th + h * k3);
    th += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    om += h / 6 * (l1 + 2 * l2 + 2 * l3 + l4);
  }
  return th;
}

// ----------------------------------------------------------------------------------------------
// (b): sparse vs dense linear solves.

struct LduCase {
  EliminationOrder order;
  GraphLDU pristine, work;  // the assembled matrix, and the copy factorised in place
  MatX dense;               // the same matrix, dense
  VecX b, x;
  std::string error;  // the case cannot be measured
  std::string note;   // measured, with a remark for the error column
};

// A scene's real Newton matrix: assembled by the integrator at the start of step 11 (after 10
// steps from the initial conditions), at the warm start (previous velocities and multipliers);
// right-hand side −residual. If the scene cannot take 10 steps, the matrix is taken at the last state
// reached and `note` says so.
void buildSceneNewton(LduCase& c, const std::string& scene, const std::map<std::string, std::string>& params,
                      std::string& note) {
  note.clear();
  auto sys = compile(buildScene(scene, params));
  Simulation sim(sys);
  sim.settings().dt = kDt;
  sim.settings().tolerance = kTol;
  sim.reset();
  for (int s = 0; s < 10; ++s)
    if (!sim.step()) {
      note = "note: matrix taken at step " + std::to_string(sim.state().step) + " because " + sim.metrics().message;
      break;
    }
  VariationalIntegrator vi(sys);
  const int nb = int(sys->bodies.size());
  VecX vel(6 * nb), lam = VecX::Zero(6 * (sys->numNodes - nb)), r;
  for (int i = 0; i < nb; ++i) {
    vel.segment<3>(6 * i) = sim.state().bodies[i].v;
    vel.segment<3>(6 * i + 3) = sim.state().bodies[i].w;
  }
  for (size_t k = 0; k < sys->joints.size(); ++k)
    if (sys->joints[k].node >= 0) lam.segment<6>(6 * (sys->joints[k].node - nb)) = sim.state().lambda[k];
  if (!vi.residualAt(sim.settings(), sim.inputs(), sim.state(), vel, lam, r, true))
    throw std::runtime_error("residualAt failed (|w| >= 2/dt)");
  c.order = sys->order;
  c.pristine = vi.matrix();
  c.b = -r;
}

// Synthetic graph with random 6×6 blocks, strictly diagonally dominant (well conditioned).
void buildSynthetic(LduCase& c, const std::vector<std::vector<int>>& adj, unsigned seed) {
  const int n = int(adj.size());
  c.order = computeEliminationOrder(adj, std::vector<bool>(n, false));
  c.pristine = GraphLDU(c.order);
  c.pristine.setZero();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random6 = [&] {
    Mat6 m;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) m(i, j) = u(rng);
    return m;
  };
  for (int i = 0; i < n; ++i) {
    c.pristine.diag(i) = random6() + (6.0 * double(adj[i].size()) + 6.0) * Mat6::Identity();
    for (int j : adj[i]) {
      const int k = c.pristine.blockIndex(i, j);
      MS_ASSERT(k >= 0, "edge without a block");
      c.pristine.block(k) = random6();
    }
  }
  c.b.resize(6 * n);
  for (int i = 0; i < 6 * n; ++i) c.b[i] = u(rng);
}

// nx × ny × nz grid graph. Nodes are numbered x fastest (row-major), or, with `acrossFirst`, along x
// slowest (a ladder numbered rung by rung: 0–1 first rung, 2–3 second, ...). The engine's DFS visits
// neighbours in ascending index order, so the numbering decides the spanning tree and the fill-in.
std::vector<std::vector<int>> gridGraph(int nx, int ny, int nz, bool acrossFirst = false) {
  const int n = nx * ny * nz;
  std::vector<std::vector<int>> adj(n);
  auto id = [&](int x, int y, int z) { return acrossFirst ? (x * ny + y) * nz + z : (z * ny + y) * nx + x; };
  auto link = [&](int a, int b) {
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        if (x + 1 < nx) link(id(x, y, z), id(x + 1, y, z));
        if (y + 1 < ny) link(id(x, y, z), id(x, y + 1, z));
        if (z + 1 < nz) link(id(x, y, z), id(x, y, z + 1));
      }
  return adj;
}

using LduBuilder = std::function<void(LduCase&)>;

LduCase& lduCase(int row, const LduBuilder& build) {
  static std::map<int, std::unique_ptr<LduCase>> cache;
  auto it = cache.find(row);
  if (it != cache.end()) return *it->second;
  auto& c = *(cache[row] = std::make_unique<LduCase>());
  try {
    build(c);
    if (!c.note.empty()) noteError(row, c.note);
    c.work = c.pristine;
    c.dense = c.pristine.toDense();
    c.x = VecX::Zero(c.b.size());
    g_rows[row].nodes = c.order.numNodes;
    g_rows[row].fillIn = c.order.fillIn;
    // Sanity: the sparse and the dense reference solutions agree.
    if (!c.work.factor()) throw std::runtime_error("sparse LDU: singular pivot");
    c.work.solve(c.b, c.x);
    VecX xd;
    if (!denseBlockLDUSolve(c.dense, c.order.list, 6, c.b, xd)) throw std::runtime_error("dense LDU: singular pivot");
    g_rows[row].relDiff = (c.x - xd).norm() / std::max(xd.norm(), 1e-300);
  } catch (const std::exception& e) {
    c.error = std::string("setup failed: ") + e.what();
  }
  return c;
}

void benchLdu(benchmark::State& st, int row, Role role, const LduBuilder& build) {
  LduCase& c = lduCase(row, build);
  if (!c.error.empty()) {
    st.SkipWithError(c.error.c_str());
    for (auto _ : st) (void)_;
    return;
  }
  VecX x(c.b.size());
  for (auto _ : st) {
    bool ok = true;
    Clock::time_point t0, t1;
    if (role == Role::Sparse) {
      c.work = c.pristine;  // restore the unfactorised matrix, outside the timing
      t0 = Clock::now();
      ok = c.work.factor();
      if (ok) c.work.solve(c.b, x);
      t1 = Clock::now();
    } else if (role == Role::Dense) {
      t0 = Clock::now();
      ok = denseBlockLDUSolve(c.dense, c.order.list, 6, c.b, x);
      t1 = Clock::now();
    } else {
      t0 = Clock::now();
      Eigen::PartialPivLU<MatX> lu(c.dense);
      x = lu.solve(c.b);
      t1 = Clock::now();
    }
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
    if (!ok) {
      st.SkipWithError("singular pivot");
      break;
    }
    st.SetIterationTime(seconds(t0, t1));
  }
}

// ----------------------------------------------------------------------------------------------
// Registration.

benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b, int reps, double minTime) {
  return b->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(reps)
      ->MinTime(minTime)
      ->ComputeStatistics("min", &minStatistic);
}

int addRow(Row r) {
  g_rows.push_back(std::move(r));
  return int(g_rows.size()) - 1;
}

void registerSimulation(const std::string& family, const std::string& scene, const std::string& variant, int n,
                        std::map<std::string, std::string> params, SimSettings settings = {}, int steps = kSteps,
                        std::string size = "") {
  Row r;
  r.family = family;
  r.variant = variant;
  r.size = size.empty() ? "n=" + std::to_string(n) : size;
  r.n = n;
  r.steps = steps;
  r.roles = {Role::Simulation};
  const int row = addRow(r);
  g_simSettings[row] = settings;
  const std::string name = family + (variant.empty() ? "" : "/" + variant) + "/" + r.size;
  g_byName[name] = {row, Role::Simulation};
  configure(benchmark::RegisterBenchmark(name.c_str(),
                                         [row, scene, params](benchmark::State& st) {
                                           benchSimulation(st, row, scene, params);
                                         }),
            g_opt.repetitions, g_opt.minTime);
}

// (i): one contact case of `steps` steps per benchmark iteration (at least 0.05 s per repetition:
// one iteration of every case takes longer), at most `maxReps` repetitions.
void registerContact(const std::string& variant, const std::string& size, int steps, ContactSource src,
                     int maxReps = 1 << 30) {
  Row r;
  r.family = "contact";
  r.variant = variant;
  r.size = size;
  r.steps = steps;
  r.roles = {Role::Simulation};
  const int row = addRow(r);
  const std::string name = "contact/" + variant + "/" + size;
  g_byName[name] = {row, Role::Simulation};
  configure(benchmark::RegisterBenchmark(name.c_str(), [row, src](benchmark::State& st) { benchContact(st, row, src); }),
            std::min(g_opt.repetitions, maxReps), 0.05);
}

// (i): issue 31's contact cases. Steps per iteration: about one simulated second (the capsule
// chain: its first 3 s, as in tst_capsule_chain; the pile: its first second, the drop of the upper
// layers onto the lower; 0.3 s per step now, so at most 5 repetitions). --quick: a tenth of the
// steps, without the pile.
void registerContactFamily() {
  const std::string models = modelsDir() + "/";
  const int div = g_opt.quick ? 10 : 1;
  registerContact("quadruped", "dt=1ms", 1000 / div, {models + "quadruped.mech", {}, 0.001});
  registerContact("quadruped", "dt=5ms", 200 / div, {models + "quadruped.mech", {}, 0.005});
  registerContact("spheres-in-box", "n=64", 100 / div, {models + "spheres-in-box.mech", {}, 0});
  registerContact("box-stack", "n=10", 200 / div, {models + "box-stack.mech", {}, 0});
  registerContact("contact-pairs", "default", 200 / div, {models + "contact-pairs.mech", {}, 0});
  registerContact("sphere-chain", "n=100", 200 / div, {"scene:sphere-chain", {{"n", "100"}}, 0});
  if (!g_opt.quick)
    registerContact("pile", "n=200/layers=3", 100,
                    {models + "spheres-in-box.mech", {{"rows", "9"}, {"layers", "3"}, {"n", "200"}}, 0}, 5);
  // The folding capsule chain of tst_capsule_chain (tests/data/mech/capsule-chain.mech, 20 links).
  registerContact("capsule-chain", "n=20", 300 / div,
                  {std::string(MECHSTUDIO_SOURCE_DIR) + "/tests/data/mech/capsule-chain.mech", {{"n", "20"}}, 0});
}

void registerLdu(const std::string& variant, const std::string& size, int n, int nodes, const LduBuilder& build) {
  Row r;
  r.family = "ldu";
  r.variant = variant;
  r.size = size;
  r.n = n;
  r.nodes = nodes;
  r.roles = {Role::Sparse, Role::Dense, Role::EigenLU};
  const int row = addRow(r);
  const std::string base = "ldu/" + variant + "/" + size + "/";
  const int denseReps = nodes > kDenseLargeNodes ? g_opt.denseLargeRepetitions : g_opt.denseRepetitions;
  const std::pair<Role, const char*> roles[] = {{Role::Sparse, "sparse"}, {Role::Dense, "dense"}, {Role::EigenLU, "eigen-lu"}};
  for (const auto& [role, tag] : roles) {
    const std::string name = base + tag;
    g_byName[name] = {row, role};
    const Role rl = role;
    configure(benchmark::RegisterBenchmark(name.c_str(), [row, rl, build](benchmark::State& st) { benchLdu(st, row, rl, build); }),
              rl == Role::Sparse ? g_opt.repetitions : denseReps, rl == Role::Sparse ? g_opt.minTime : g_opt.denseMinTime);
  }
}

void registerAll() {
  // (a) chains.
  for (const char* joint : {"revolute", "spherical"})
    for (int n : {1, 2, 5, 10, 20, 50, 100})
      registerSimulation("chain", "chain", joint, n, {{"n", std::to_string(n)}, {"joint", joint}});
  // (b) sparse vs dense.
  for (const char* joint : {"revolute", "spherical"})
    for (int n : {10, 100}) {
      const std::map<std::string, std::string> params = {{"n", std::to_string(n)}, {"joint", joint}};
      registerLdu(std::string("chain-") + joint, "n=" + std::to_string(n), n, 2 * n,
                  [params](LduCase& c) { buildSceneNewton(c, "chain", params, c.note); });
    }
  for (int n : {5, 20}) {
    const std::map<std::string, std::string> params = {{"n", std::to_string(n)}};
    registerLdu("four-link-segments", "n=" + std::to_string(n), n, 9 * n,
                [params](LduCase& c) { buildSceneNewton(c, "four-link-segments", params, c.note); });
  }
  // (d) contacts: the box drop and the sphere chain (interior point on the graph LDU; a chain that
  // does not converge gets its reason in the error column).
  registerSimulation("box-drop", "box-drop", "", 1, {});
  for (int n : {5, 10, 15, 20, 50, 100, 200})
    registerSimulation("sphere-chain", "sphere-chain", "", n, {{"n", std::to_string(n)}});
  // The same chains lying on the ground (every sphere in contact, at rest): the same work per step
  // whatever n, so the time per step shows the solver's scaling alone.
  for (int n : {5, 10, 20, 50, 100, 200})
    registerSimulation("sphere-chain-flat", "sphere-chain", "", n, {{"n", std::to_string(n)}, {"angle_deg", "0"}});
  // (h) collisions between bodies (issue 16): stacks of n cubes on box–box face manifolds.
  for (int n : {2, 5, 10, 30})
    registerSimulation("box-stack", "box-stack", "", n, {{"n", std::to_string(n)}});
  // Automatic collisions with the broad phase: n spheres rolling in a box of walls, the first 1 s
  // (100 steps; the floor grows with n, so the work per sphere stays the same).
  for (int n : {50, 100, 200, 400})
    registerSimulation("spheres-in-box", "spheres-in-box", "", n, {{"n", std::to_string(n)}}, {}, 100);
  // (i) issue 31: contacts at each model's own Δt.
  registerContactFamily();
  unsigned seed = 1;
  // Ladder numbered rung by rung (along the ladder), then the same graphs numbered row by row.
  for (int k : {4, 8, 16, 32, 64, 128, 256}) {
    if (2 * k > g_opt.maxGraphNodes) break;
    const unsigned s = seed++;
    registerLdu("ladder", "2x" + std::to_string(k), 0, 2 * k,
                [k, s](LduCase& c) { buildSynthetic(c, gridGraph(k, 2, 1, true), s); });
  }
  for (int k : {4, 8, 16, 32, 64}) {
    if (2 * k > g_opt.maxGraphNodes) break;
    const unsigned s = seed++;
    registerLdu("ladder-rowwise", "2x" + std::to_string(k), 0, 2 * k,
                [k, s](LduCase& c) { buildSynthetic(c, gridGraph(k, 2, 1, false), s); });
  }
  for (int k : {3, 4, 6, 8, 11, 16, 22}) {
    if (k * k > g_opt.maxGraphNodes) break;
    const unsigned s = seed++;
    registerLdu("net", std::to_string(k) + "x" + std::to_string(k), 0, k * k,
                [k, s](LduCase& c) { buildSynthetic(c, gridGraph(k, k, 1), s); });
  }
  for (int k : {2, 3, 4, 5, 6}) {
    if (k * k * k > g_opt.maxGraphNodes) break;
    const unsigned s = seed++;
    const std::string ks = std::to_string(k);
    registerLdu("crystal", ks + "x" + ks + "x" + ks, 0, k * k * k,
                [k, s](LduCase& c) { buildSynthetic(c, gridGraph(k, k, k), s); });
  }
  // (c) chains of closed four-link segments.
  for (int n : {1, 2, 5, 10, 20})
    registerSimulation("four-link-segments", "four-link-segments", "", n, {{"n", std::to_string(n)}});
  // (e) Fig. 10: revolute chains at three Newton tolerances.
  for (const char* tol : {"1e-6", "1e-8", "1e-10"})
    for (int n : {2, 5, 10, 20, 50, 100}) {
      SimSettings set;
      set.tolerance = std::atof(tol);
      registerSimulation("tolerance", "chain", std::string("tol=") + tol, n, {{"n", std::to_string(n)}}, set);
    }
  // (g) generalized coordinates: revolute chains for the variational integrator in maximal
  // coordinates, trep's midpoint VI (Newton, dense) and Lee et al.'s RIQN on the same midpoint DEL,
  // at Δt = 0.01 and at Lee et al.'s Δt = 1 ms, tolerance 1e-8 (at 1e-10 the generalized-coordinate
  // solvers stop on the longer chains: family (e) with these integrators shows where).
  for (IntegratorKind k : {IntegratorKind::Variational, IntegratorKind::MidpointGC, IntegratorKind::RIQN})
    for (const char* dts : {"1e-2", "1e-3"})
      for (int n : {1, 2, 5, 10, 20, 50, 100}) {
        SimSettings set;
        set.dt = std::atof(dts);
        set.tolerance = 1e-8;
        set.integrator = k;
        registerSimulation("gc-chain", "chain", std::string(toString(k)) + "/dt=" + dts, n, {{"n", std::to_string(n)}},
                           set);
      }
  for (IntegratorKind k : {IntegratorKind::MidpointGC, IntegratorKind::RIQN})
    for (const char* tol : {"1e-6", "1e-8", "1e-10"})
      for (int n : {2, 5, 10, 20, 50, 100}) {
        SimSettings set;
        set.tolerance = std::atof(tol);
        set.integrator = k;
        registerSimulation("tolerance", "chain", std::string(toString(k)) + "/tol=" + tol, n, {{"n", std::to_string(n)}},
                           set);
      }
  // (f) Fig. 11: the scaled pendulum over two decades of Δt/s, each run a half swing.
  for (const char* s : {"1", "0.5", "0.1"})
    for (const char* dts : {"1e-4", "2e-4", "5e-4", "1e-3", "2e-3", "5e-3", "1e-2"}) {
      const double scale = std::atof(s), l = scale * scale;
      SimSettings set;
      set.dt = std::atof(dts) * scale;
      const double halfPeriod = kPi * std::sqrt(2 * l / (3 * 9.81));
      const int steps = std::max(1, int(std::lround(halfPeriod / set.dt)));
      registerSimulation("scaled-pendulum", "scaled-pendulum", std::string("s=") + s, 1, {{"scale", s}}, set, steps,
                         std::string("dt/s=") + dts);
    }
}

// ----------------------------------------------------------------------------------------------
// CSV output.

const char* kHeader =
    "family,variant,size,n,nodes,fill_in,reps,us_per_step_best,us_per_step_median,newton_iters_per_step,"
    "max_violation,sparse_us_best,sparse_us_median,dense_us_best,dense_us_median,dense_reps,eigen_lu_us_best,"
    "eigen_lu_us_median,speedup_dense_best,speedup_dense_median,speedup_eigen_lu_best,rel_diff_sparse_dense,"
    "angle_error_paper,angle_error_exact,dt,real_time_factor,ip_iters_median,ip_iters_max,subdivided_steps,"
    "max_penetration,error";

std::string num(double v, int digits = 4) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string sci(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch == '\n' ? ' ' : ch;
  }
  return out + "\"";
}

std::string csvRow(const Row& r) {
  auto get = [&](Role role) {
    auto it = r.results.find(role);
    return it == r.results.end() ? RoleResult() : it->second;
  };
  std::vector<std::string> f = {r.family, r.variant, r.size, r.n > 0 ? std::to_string(r.n) : "",
                                r.nodes >= 0 ? std::to_string(r.nodes) : "", r.fillIn >= 0 ? std::to_string(r.fillIn) : ""};
  if (r.family != "ldu") {
    const RoleResult s = get(Role::Simulation);
    f.push_back(std::to_string(s.reps));
    f.push_back(num(s.best / r.steps));
    f.push_back(num(s.median / r.steps));
    f.push_back(num(s.itersMedian, 4));
    f.push_back(sci(s.violationMax));
    for (int i = 0; i < 11; ++i) f.push_back("");
    f.push_back(sci(r.angleErrorPaper));
    f.push_back(sci(r.angleErrorExact));
  } else {
    const RoleResult s = get(Role::Sparse), d = get(Role::Dense), e = get(Role::EigenLU);
    f.push_back(std::to_string(s.reps));
    for (int i = 0; i < 4; ++i) f.push_back("");
    f.push_back(num(s.best));
    f.push_back(num(s.median));
    f.push_back(num(d.best));
    f.push_back(num(d.median));
    f.push_back(std::to_string(d.reps));
    f.push_back(num(e.best));
    f.push_back(num(e.median));
    f.push_back(num(d.best / s.best, 3));
    f.push_back(num(d.median / s.median, 3));
    f.push_back(num(e.best / s.best, 3));
    f.push_back(sci(r.relDiff));
    f.push_back("");
    f.push_back("");
  }
  // (i): Δt, the real-time factor (Δt over the median time per step) and one run's interior-point work.
  const auto cs = g_contactStats.find(int(&r - g_rows.data()));
  if (r.family == "contact" && cs != g_contactStats.end() && cs->second.filled && !cs->second.iterations.empty()) {
    const ContactStats& c = cs->second;
    const RoleResult s = get(Role::Simulation);
    f.push_back(num(r.dt));
    f.push_back(num(r.dt / (s.median / r.steps * 1e-6), 3));
    f.push_back(num(medianOf(c.iterations)));
    f.push_back(num(*std::max_element(c.iterations.begin(), c.iterations.end())));
    f.push_back(std::to_string(c.subdivided));
    f.push_back(sci(c.penetration));
  } else {
    for (int i = 0; i < 6; ++i) f.push_back("");
  }
  f.push_back(quoted(r.error));
  std::string line;
  for (size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + f[i];
  return line;
}

// (f): the final-angle errors of a scaled-pendulum row from the run's last state.
void finalAngleErrors(int row, double theta, double time) {
  if (!std::isfinite(theta)) return;
  Row& r = g_rows[row];
  const SimCase& c = simCase(row, "", {});
  r.angleErrorPaper = std::abs(-kPi / 2 - theta);
  r.angleErrorExact = std::abs(exactPendulumAngle(*c.sys, 9.81, kPi / 2, time) - theta);
}

class CsvReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override {
    PrintBasicContext(&GetErrorStream(), context);
    GetOutputStream() << kHeader << std::endl;
    return true;
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<int> touched;
    for (const Run& run : runs) {
      auto it = g_byName.find(run.run_name.function_name);
      if (it == g_byName.end()) continue;
      const int row = it->second.first;
      RoleResult& res = g_rows[row].results[it->second.second];
      touched.push_back(row);
      if (run.run_type == Run::RT_Iteration) {
        if (run.error_occurred) {
          noteError(row, run.error_message);
          res.resolved = true;
        } else {
          ++res.reps;
        }
        continue;
      }
      auto counter = [&](const char* name) {
        auto c = run.counters.find(name);
        return c == run.counters.end() ? kNaN : double(c->second.value);
      };
      if (run.aggregate_name == "min") {
        res.best = run.GetAdjustedRealTime();
      } else if (run.aggregate_name == "median") {
        res.median = run.GetAdjustedRealTime();
        res.itersMedian = counter("iters_per_step");
        res.violationMax = counter("max_violation");
        res.resolved = true;
        if (g_rows[row].family == "scaled-pendulum") finalAngleErrors(row, counter("final_angle"), counter("final_time"));
      }
    }
    for (int row : touched) flushIfComplete(row);
  }

  void Finalize() override {
    for (size_t i = next_; i < g_rows.size(); ++i)
      if (!g_rows[i].results.empty()) {
        if (!complete(g_rows[i])) noteError(int(i), "incomplete (filtered out or too few repetitions)");
        GetOutputStream() << csvRow(g_rows[i]) << std::endl;
      }
    next_ = g_rows.size();
  }

 private:
  static bool complete(Row& r) {
    for (Role role : r.roles)
      if (!r.results[role].resolved) return false;
    return true;
  }

  // Rows go to the CSV in registration order (stable for diffing even when repetitions are
  // interleaved); progress goes to stderr as each case completes.
  void flushIfComplete(int row) {
    Row& r = g_rows[row];
    if (r.printed || !complete(r)) return;
    r.printed = true;
    progress(r);
    while (next_ < g_rows.size() && g_rows[next_].printed) GetOutputStream() << csvRow(g_rows[next_++]) << std::endl;
  }

  void progress(Row& r) {
    std::string msg = r.family + " " + r.variant + " " + r.size + ": ";
    if (r.family != "ldu") {
      const RoleResult& s = r.results[Role::Simulation];
      msg += num(s.best / r.steps) + " us/step best, " + num(s.median / r.steps) + " median, " + num(s.itersMedian, 3) +
             " it/step";
      if (std::isfinite(r.angleErrorExact))
        msg += ", final angle error " + sci(r.angleErrorPaper) + " (paper's), " + sci(r.angleErrorExact) + " (exact)";
      const auto cs = g_contactStats.find(int(&r - g_rows.data()));
      if (r.family == "contact" && cs != g_contactStats.end() && !cs->second.iterations.empty()) {
        const ContactStats& c = cs->second;
        msg += ", real time x" + num(r.dt / (s.median / r.steps * 1e-6), 3) + ", iterations median " +
               num(medianOf(c.iterations)) + " max " +
               num(*std::max_element(c.iterations.begin(), c.iterations.end())) + ", " + std::to_string(c.subdivided) +
               " subdivided, penetration " + sci(c.penetration);
      }
    } else {
      const RoleResult &s = r.results[Role::Sparse], &d = r.results[Role::Dense], &e = r.results[Role::EigenLU];
      msg += "sparse " + num(s.best) + " us, dense " + num(d.best) + " us (x" + num(d.best / s.best, 3) +
             "), Eigen LU " + num(e.best) + " us (x" + num(e.best / s.best, 3) + ")";
    }
    if (!r.error.empty()) msg += (r.error.rfind("note:", 0) == 0 ? "  (" + r.error + ")" : "  ERROR: " + r.error);
    GetErrorStream() << msg << std::endl;
  }

  size_t next_ = 0;  // first row not yet written to the CSV
};

void usage() {
  std::printf(
      "mechstudio-bench [--quick] [--reps=N] [Google Benchmark flags...]\n"
      "  Prints one CSV row per case to stdout (progress to stderr); see docs/benchmarks.md.\n"
      "  --quick     few repetitions, small graphs only: a smoke run in well under 30 s\n"
      "              (also MECHSTUDIO_BENCH_QUICK=1)\n"
      "  --reps=N    repetitions per case (default 20; dense solves of > %d nodes: 5)\n"
      "  Useful Google Benchmark flags: --benchmark_filter=REGEX (e.g. '^chain/'),\n"
      "  --benchmark_out=FILE --benchmark_out_format=json (raw per-repetition data).\n",
      kDenseLargeNodes);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("MECHSTUDIO_BENCH_QUICK");
  g_opt.quick = env && *env && std::strcmp(env, "0") != 0;
  int reps = 0;
  std::vector<char*> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      g_opt.quick = true;
    } else if (a.rfind("--reps=", 0) == 0) {
      reps = std::atoi(a.c_str() + 7);
      if (reps < 2) {
        std::fprintf(stderr, "mechstudio-bench: --reps must be at least 2\n");
        return 1;
      }
    } else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (g_opt.quick) {
    g_opt.repetitions = g_opt.denseRepetitions = g_opt.denseLargeRepetitions = 2;
    g_opt.minTime = 0.002;
    g_opt.denseMinTime = 0.002;
    g_opt.maxGraphNodes = 128;
  }
  if (reps > 0) g_opt.repetitions = g_opt.denseRepetitions = reps;
  // Interleave the repetitions of all cases in random order, so that a burst of load on the machine
  // spreads over many cases instead of spoiling every repetition of one (overridable on the command line).
  static char interleave[] = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + 1, interleave);
  int n = int(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  registerAll();
  CsvReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
