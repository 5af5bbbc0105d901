// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli simulate (scene:NAME | FILE) (--duration S | --steps N) [OPTION]...: steps a mechanism
// with the chosen integrator and writes per-step metrics, body poses and signals as CSV, and a
// summary on standard error. Its options, their checks and its part of --help.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "cli/cli_common.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "signals/signals.h"
#include "simulation.h"
#include "system/compiled_system.h"

namespace cli {

namespace {

constexpr const char* kMetricsHeader =
    "step,time,kinetic,potential,energy,constraint_violation,iterations,residual,step_us,penetration,contacts,"
    "limit_violation,limits,stalled,substeps,singular,auto_pairs,islands,sleeping";
constexpr const char* kPosesHeader = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";

// Options choosing and tuning the time stepper; true if `name` is one of them.
bool parseIntegratorOption(const std::string& name, const std::string& value, ms::IntegratorOptions& o) {
  if (name == "--integrator") {
    if (!ms::parseIntegratorKind(value, o.kind))
      throw InputError{"unknown integrator '" + value + "' (choose " + ms::integratorChoices() + ")"};
    return true;
  }
  // Soft contacts: --contacts rigid|soft, --contact-stiffness K, --contact-damping B.
  if (name == "--contacts") {
    if (!ms::parseContactModel(value, o.contacts))
      throw InputError{"unknown contact model '" + value + "' (choose rigid or soft)"};
    return true;
  }
  if (name == "--contact-stiffness" || name == "--contact-damping") {
    const auto v = parseDouble(value);
    const bool stiffness = name == "--contact-stiffness";
    if (!v || *v < 0 || (stiffness && *v == 0))
      throw InputError{name + (stiffness ? " expects a positive number in N/m" : " expects a number >= 0 in N s/m") +
                       ", got '" + value + "'"};
    (stiffness ? o.contactStiffness : o.contactDamping) = *v;
    return true;
  }
  if (name == "--mujoco-integrator") {
    if (!ms::parseMuJoCoScheme(value, o.mujocoScheme))
      throw InputError{"unknown MuJoCo integrator '" + value + "' (choose euler, rk4 or implicit)"};
    return true;
  }
  if (name == "--baumgarte") {
    const size_t comma = value.find(',');
    const auto a = comma == std::string::npos ? std::nullopt : parseDouble(value.substr(0, comma));
    const auto b = comma == std::string::npos ? std::nullopt : parseDouble(value.substr(comma + 1));
    if (!a || !b || *a < 0 || *b < 0)
      throw InputError{"--baumgarte expects ALPHA,BETA, two numbers >= 0 in 1/s, got '" + value + "'"};
    o.baumgarteAlpha = *a;
    o.baumgarteBeta = *b;
    return true;
  }
  return false;
}

constexpr long long kMaxSteps = 1'000'000'000'000LL;

SimulateOptions parseSimulate(const std::vector<std::string>& args) {
  SimulateOptions o;
  std::map<std::string, bool> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (takeLoadOption(args, i, o.load)) continue;  // --package-path, --no-ground, --self-collision
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      // "--opt=value" or "--opt value".
      std::string name = a, value;
      bool hasValue = false;
      if (const size_t eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        hasValue = true;
      }
      static const std::vector<std::string> withValue = {"--set",      "--dt",       "--duration", "--steps",
                                                         "--tol",      "--comp-tol", "--max-iter", "--csv", "--sleep",
                                                         "--poses", "--signals", "--signal",
                                                         "--integrator", "--baumgarte", "--contacts",
                                                         "--contact-stiffness", "--contact-damping",
                                                         "--mujoco-integrator", "--keyframe"};
      const bool takesValue = std::find(withValue.begin(), withValue.end(), name) != withValue.end();
      if (name == "--quiet" || name == "--degrees") {
        if (hasValue) throw InputError{"option " + name + " takes no value"};
        (name == "--quiet" ? o.quiet : o.degrees) = true;
        continue;
      }
      if (!takesValue) throw InputError{"unknown option '" + name + "' (see --help)"};
      if (!hasValue) {
        // A following "--option" is not a value; a single '-' (stdout) or "-0.1" is.
        if (i + 1 >= args.size() || (args[i + 1].size() > 2 && args[i + 1].compare(0, 2, "--") == 0))
          throw InputError{"option " + name + " needs a value"};
        value = args[++i];
      }
      if (name != "--set" && name != "--signal") {
        if (seen[name]) throw InputError{"option " + name + " given more than once"};
        seen[name] = true;
      }
      if (name == "--set") {
        const size_t eq = value.find('=');
        if (eq == std::string::npos) throw InputError{"--set expects key=value, got '" + value + "'"};
        const std::string key = value.substr(0, eq);
        if (key.empty()) throw InputError{"--set has an empty key in '" + value + "'"};
        if (o.params.count(key)) throw InputError{"--set " + key + " given more than once"};
        o.params[key] = value.substr(eq + 1);
      } else if (name == "--dt") {
        o.dt = positiveDouble(name, value);
      } else if (name == "--duration") {
        o.duration = positiveDouble(name, value);
      } else if (name == "--steps") {
        o.steps = positiveInteger(name, value, kMaxSteps);
      } else if (name == "--tol") {
        o.tol = positiveDouble(name, value);
      } else if (name == "--sleep") {
        o.sleep = nonNegativeDouble(name, value);
      } else if (name == "--comp-tol") {
        o.compTol = positiveDouble(name, value);
      } else if (name == "--max-iter") {
        o.maxIter = positiveInteger(name, value, 1'000'000);
      } else if (parseIntegratorOption(name, value, o.integrator)) {
        // time stepper options: nothing more to do here
      } else if (name == "--csv" || name == "--poses" || name == "--signals") {
        if (value.empty()) throw InputError{"option " + name + " needs a file name"};
        (name == "--csv" ? o.csv : name == "--poses" ? o.poses : o.signals) = value;
      } else if (name == "--keyframe") {
        if (value.empty()) throw InputError{"option --keyframe needs a keyframe name"};
        o.keyframe = value;
      } else if (name == "--signal") {
        if (value.empty()) throw InputError{"option --signal needs a signal name or pattern"};
        o.signalPatterns.push_back(value);
      }
    } else if (a.size() > 1 && a[0] == '-') {
      throw InputError{"unknown option '" + a + "' (see --help)"};
    } else {
      if (!o.model.empty()) throw InputError{"unexpected argument '" + a + "' (model already given: '" + o.model + "')"};
      if (a.empty()) throw InputError{"empty model argument (expected scene:NAME or a model file)"};
      o.model = a;
    }
  }
  if (o.model.empty())
    throw InputError{"simulate needs a model: scene:NAME or a model file (see '" + std::string(kProg) + " scenes')"};
  if ((seen["--contact-stiffness"] || seen["--contact-damping"]) && o.integrator.contacts != ms::ContactModel::Soft)
    throw InputError{std::string(seen["--contact-stiffness"] ? "--contact-stiffness" : "--contact-damping") +
                     " sets a soft contact parameter: it needs --contacts soft"};
  if (seen["--mujoco-integrator"] && o.integrator.kind != ms::IntegratorKind::MuJoCo)
    throw InputError{"--mujoco-integrator chooses MuJoCo's own integrator: it needs --integrator mujoco"};
  if (o.duration && o.steps) throw InputError{"give either --duration or --steps, not both"};
  if (!o.duration && !o.steps) throw InputError{"give one of --duration or --steps"};
  if (!o.signalPatterns.empty() && !o.signals) throw InputError{"--signal chooses columns of --signals FILE: give --signals"};
  if (o.degrees && !o.signals) throw InputError{"--degrees sets the angle unit of --signals FILE: give --signals"};
  // Two outputs to standard output, or to one file, would interleave.
  const std::pair<const char*, const std::optional<std::string>*> outputs[] = {
      {"--csv", &o.csv}, {"--poses", &o.poses}, {"--signals", &o.signals}};
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = a + 1; b < 3; ++b) {
      const auto &pa = *outputs[a].second, &pb = *outputs[b].second;
      if (!pa || !pb) continue;
      const std::string both = std::string(outputs[a].first) + " and " + outputs[b].first;
      if (*pa == "-" && *pb == "-") throw InputError{both + " cannot both write to standard output"};
      if (*pa == "-" || *pb == "-") continue;
      // Absolute first: weakly_canonical leaves a relative path without an existing prefix relative
      // ("a.csv" against "./a.csv" before the file exists).
      std::error_code ec1, ec2;
      const auto p1 = std::filesystem::weakly_canonical(std::filesystem::absolute(*pa), ec1);
      const auto p2 = std::filesystem::weakly_canonical(std::filesystem::absolute(*pb), ec2);
      if (!ec1 && !ec2 && p1 == p2) throw InputError{both + " name the same file '" + *pa + "'"};
    }
  return o;
}

void writeMetricsRow(std::FILE* f, const ms::StepMetrics& m) {
  std::fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%.3f,%.17g,%d,%.17g,%d,%d,%d,%d,%d,%d,%d\n", m.step, m.time,
               m.kinetic, m.potential, m.energy, m.constraintViolation, m.iterations, m.residual, m.stepMicroseconds,
               m.penetration, m.contacts, m.limitViolation, m.limits, int(m.stalled), m.substeps, m.singular,
               m.autoPairs, m.islands, m.sleeping);
}

void writePoseRows(std::FILE* f, const ms::Simulation& sim, const std::vector<std::string>& names) {
  const ms::State& s = sim.state();
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const ms::BodyState& b = s.bodies[i];
    const ms::Vec3 wWorld = ms::quat::rotation(b.q) * b.w;  // state stores body-frame ω
    std::fprintf(f,
                 "%ld,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                 s.step, s.time, names[i].c_str(), b.x(0), b.x(1), b.x(2), b.q(0), b.q(1), b.q(2), b.q(3), b.v(0),
                 b.v(1), b.v(2), wWorld(0), wWorld(1), wWorld(2));
  }
}

// ---- run statistics for the summary ------------------------------------------------------------

struct RunStats {
  long steps = 0, stalled = 0, subdivided = 0, singularPassed = 0, singularKept = 0;
  double e0 = 0, maxDrift = 0, maxViolation = 0, sumIterations = 0, sumStepUs = 0;
  // The last refinement (StepMetrics::refinedInterval): its interval and the time of its step.
  double refinedInterval = 0, refinedAt = 0;
  void initial(const ms::StepMetrics& m) {
    e0 = m.energy;
    maxViolation = m.constraintViolation;
  }
  void add(const ms::StepMetrics& m) {
    ++steps;
    maxDrift = std::max(maxDrift, std::abs(m.energy - e0));
    maxViolation = std::max(maxViolation, m.constraintViolation);
    sumIterations += m.iterations;
    sumStepUs += m.stepMicroseconds;
    stalled += m.stalled;
    subdivided += m.substeps > 1;
    singularPassed += m.singular == 1;
    singularKept += m.singular == 2;
    if (m.refinedInterval > 0) {
      refinedInterval = m.refinedInterval;
      refinedAt = m.time;
    }
  }
};

// The refinement in the summary: Δt was too long for the motion from some step on (docs/engine.md,
// "Refinement").
std::string refinedNote(const RunStats& s, double dt) {
  if (s.refinedInterval <= 0) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "; refined: from t = %.6g s on, solved in sub-intervals of %g s (no solution over dt = %g s: "
                "set (solver (dt %g)) to start with it)",
                s.refinedAt, s.refinedInterval, dt, s.refinedInterval);
  return buf;
}

// The union of the signals matching each pattern, in catalogue order (all signals without patterns).
std::vector<int> selectSignals(const ms::SignalCatalogue& catalogue, const std::vector<std::string>& patterns) {
  std::vector<int> all;
  if (patterns.empty()) {
    for (int i = 0; i < catalogue.size(); ++i) all.push_back(i);
    return all;
  }
  for (const std::string& p : patterns)
    for (int i : catalogue.select(p)) all.push_back(i);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

void printSimulateOptions(std::FILE* f) {
  std::fprintf(f,
               "  scene:NAME        built-in scene to simulate (see '%s scenes')\n"
               "  FILE              a model file: .mech (MechStudio), .trep (trep), .urdf, or MuJoCo's MJCF\n"
               "                    (.mjcf, or .xml with a <mujoco> root)\n"
               "  --set key=value   set a scene or .mech parameter (repeatable, each key once)\n"
               "  --package-path DIR  a directory holding ROS packages, for URDF meshes package://NAME/...\n"
               "                    (repeatable; searched before ROS_PACKAGE_PATH; also for check, signals, convert)\n"
               "  --no-ground       no ground under a floating-base URDF robot (one is added by default, at its\n"
               "                    lowest collision shape; also for check, signals, convert)\n"
               "  --self-collision on|off  bodies of one mechanism collide with each other or not (default: as\n"
               "                    the model says; a URDF's is off, as in Gazebo and PyBullet)\n"
               "  --dt S            time step [s] (default: the scene's, usually 0.01)\n"
               "  --duration S      simulated time [s]; steps = round up(S / dt)\n"
               "  --steps N         number of steps (exactly one of --duration and --steps)\n"
               "  --keyframe NAME   start from the model's (keyframe NAME ...) instead of its initial conditions\n"
               "  --tol X           Newton tolerance on the residual inf-norm (default 1e-10)\n"
               "  --comp-tol X      contacts and limits: largest slack x impulse at convergence (default 1e-8)\n"
               "  --max-iter N      Newton iteration cap per step (default 100)\n"
               "  --sleep S         contacts: an island of bodies at rest for S seconds is not solved until it\n"
               "                    is touched, pushed or the gravity changes (0: never; default: the model's\n"
               "                    (solver (sleep S)), else 0)\n"
               "  --integrator NAME  time stepper: vi (variational, default), euler (explicit), symplectic-euler,\n"
               "                     heun (explicit RK2), rk4 (acceleration-level dynamics), exponential,\n"
               "                     midpoint-gc (trep's midpoint VI in joint coordinates, Newton),\n"
               "                     riqn (the same equations by Lee et al.'s O(n) quasi-Newton; trees only),\n"
               "                     mujoco (a MuJoCo copy of the model, when built with MuJoCo)\n"
               "  --baumgarte A,B   Baumgarte gains alpha,beta >= 0 [1/s] for euler, symplectic-euler, heun, rk4\n"
               "                    (default 0,0: no stabilisation)\n"
               "  --mujoco-integrator S  mujoco: MuJoCo's own integrator, euler (default), rk4 or implicit\n"
               "  --contacts M      rigid (default; the variational integrator's hard contacts) or soft\n"
               "                    (spring-damper per contact point with a Coulomb cone, for euler,\n"
               "                    symplectic-euler, heun, rk4 and exponential, which needs soft)\n"
               "  --contact-stiffness K  soft contacts: stiffness [N/m] (default 1e5)\n"
               "  --contact-damping B    soft contacts: damping [N s/m] (default 300)\n"
               "  --csv FILE        per-step metrics as CSV ('-' = standard output):\n"
               "                      %s\n"
               "  --poses FILE      per-body world-frame poses and velocities as CSV ('-' = standard output):\n"
               "                      %s\n"
               "  --signals FILE    per-step values of signals as CSV ('-' = standard output): step, time\n"
               "                    and one column per signal, named with its unit ('crank.angle [rad]')\n"
               "  --signal PATTERN  a signal name or glob ('crank.*', '*.force.z'; repeatable; default: all)\n"
               "  --degrees         angles and angular rates of --signals in degrees (default: radians)\n"
               "  --quiet           no summary on standard error\n",
               kProg, kMetricsHeader, kPosesHeader);
}

int runSimulate(const std::vector<std::string>& args) {
  // --help (or -h) anywhere among its arguments prints the usage.
  if (std::find_if(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; }) !=
      args.end()) {
    printUsage(stdout);
    return kExitOk;
  }
  const SimulateOptions o = parseSimulate(args);

  // Build, apply solver options, compile and set up; every user-caused problem is a UserError.
  ms::Model model = loadModel(o);
  if (o.dt) model.solver.dt = *o.dt;
  if (o.tol) model.solver.tolerance = *o.tol;
  if (o.compTol) model.solver.complementarityTolerance = *o.compTol;
  if (o.sleep) model.solver.sleepTime = *o.sleep;
  if (o.maxIter) model.solver.maxIterations = int(*o.maxIter);
  const std::shared_ptr<const ms::CompiledSystem> system = ms::compile(model);
  ms::Simulation sim(system);
  // The time stepper; a combination that makes no sense for this model is a UserError (exit 1).
  if (o.integrator != ms::IntegratorOptions()) sim.setIntegrator(o.integrator);
  // The run starts from a keyframe of the model (an unknown name or a misfit is a UserError: exit 1).
  if (o.keyframe) sim.setInitialKeyframe(*o.keyframe);

  const double dt = sim.settings().dt;
  long long steps = 0;
  if (o.steps) {
    steps = *o.steps;
  } else {
    const double ratio = *o.duration / dt;
    if (!(ratio <= double(kMaxSteps))) throw InputError{"--duration / dt gives too many steps"};
    const double r = std::round(ratio);
    steps = (std::abs(ratio - r) <= 1e-9 * std::max(1.0, r)) ? (long long)r : (long long)std::ceil(ratio);
    steps = std::max(1LL, steps);
  }

  std::vector<std::string> names;
  for (const ms::CompiledBody& b : system->bodies) names.push_back(csvField(b.name));

  // The signals asked for (an unknown name is a UserError before any file is written).
  std::unique_ptr<ms::SignalCatalogue> catalogue;
  std::vector<int> selection;
  const ms::AngleUnit angles = o.degrees ? ms::AngleUnit::Degrees : ms::AngleUnit::Radians;
  if (o.signals) {
    catalogue = std::make_unique<ms::SignalCatalogue>(*system);
    selection = selectSignals(*catalogue, o.signalPatterns);
  }

  // Outputs are opened only once the input is known to be good, so a bad command leaves files alone.
  std::unique_ptr<CsvOut> csv, poses, signals;
  if (o.csv) csv = std::make_unique<CsvOut>(*o.csv, "--csv");
  if (o.poses) poses = std::make_unique<CsvOut>(*o.poses, "--poses");
  if (o.signals) signals = std::make_unique<CsvOut>(*o.signals, "--signals");
  auto flushAll = [&]() -> std::string {
    std::string err;
    for (CsvOut* out : {csv.get(), poses.get(), signals.get()})
      if (out && err.empty()) err = out->flush();
    return err;
  };
  std::vector<double> signalValues;
  auto writeSignals = [&] {
    catalogue->evaluate(sim, selection, angles, signalValues);
    std::fprintf(signals->file(), "%ld,%.17g", sim.state().step, sim.state().time);
    for (double v : signalValues) std::fprintf(signals->file(), ",%.17g", v);
    std::fputc('\n', signals->file());
  };

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);

  // Initial state (step 0), then one row per step.
  RunStats stats;
  stats.initial(sim.metrics());
  if (csv) {
    std::fprintf(csv->file(), "%s\n", kMetricsHeader);
    writeMetricsRow(csv->file(), sim.metrics());
  }
  if (poses) {
    std::fprintf(poses->file(), "%s\n", kPosesHeader);
    writePoseRows(poses->file(), sim, names);
  }
  if (signals) {
    std::fprintf(signals->file(), "step,time");
    for (int i : selection) std::fprintf(signals->file(), ",%s", csvField(catalogue->header(i, angles)).c_str());
    std::fputc('\n', signals->file());
    writeSignals();
  }
  if (std::string err = flushAll(); !err.empty()) throw InputError{err};
  // The compile step's notes (dropped redundant rows, joints moved into their limits, …) once the run is
  // set up and its files open (a refused option stays a one-line error), unless --quiet.
  if (!o.quiet) {
    ms::Diagnostics notes;
    for (const std::string& note : system->notes) notes.add(ms::Severity::Note, o.model, 0, 0, note);
    printDiagnostics(notes);
  }

  const auto wall0 = std::chrono::steady_clock::now();
  auto lastFlush = wall0;
  bool failed = false, interrupted = false;
  for (long long k = 0; k < steps; ++k) {
    if (gInterrupted) {
      interrupted = true;
      break;
    }
    if (!sim.step()) {
      failed = true;
      break;
    }
    const ms::StepMetrics& m = sim.metrics();
    stats.add(m);
    if (csv) writeMetricsRow(csv->file(), m);
    if (poses) writePoseRows(poses->file(), sim, names);
    if (signals) writeSignals();
    // Flush a few times a second so that an external kill still leaves most rows on disk.
    if ((k & 255) == 255) {
      const auto now = std::chrono::steady_clock::now();
      if (now - lastFlush > std::chrono::milliseconds(250)) {
        lastFlush = now;
        if (std::string err = flushAll(); !err.empty()) throw InputError{err};
      }
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const std::string writeError = flushAll();

  if (!o.quiet) {
    const double n = double(std::max(1L, stats.steps));
    std::fprintf(stderr,
                 "%s: %s, %s, dt = %g s: %ld of %lld steps (%.6g s simulated) in %.3f s wall time; "
                 "mean %.2f us/step, mean %.2f %s/step; max constraint violation %.3g; "
                 "energy drift max|E-E0| = %.3g J (E0 = %.10g J); %ld steps stalled at the attainable accuracy, "
                 "%ld subdivided; singular configurations: %ld passed by solving the previous step again, "
                 "%ld with constraint work kept%s%s\n",
                 kProg, o.model.c_str(), ms::describe(o.integrator).c_str(), dt, stats.steps, steps, stats.steps * dt,
                 wall, stats.sumStepUs / n, stats.sumIterations / n, ms::iterationUnit(o.integrator.kind),
                 stats.maxViolation, stats.maxDrift, stats.e0, stats.stalled, stats.subdivided,
                 stats.singularPassed, stats.singularKept, refinedNote(stats, dt).c_str(),
                 failed ? "; stopped by a solver failure" : "");
  }
  if (!writeError.empty()) throw InputError{writeError};
  if (failed) {
    std::fprintf(stderr, "%s: solver failure: %s\n", kProg, oneLine(sim.metrics().message).c_str());
    return kExitSolverFailure;
  }
  if (interrupted) {
    std::fprintf(stderr, "%s: interrupted after step %ld; rows so far are written\n", kProg, stats.steps);
    return kExitInterrupted;
  }
  return kExitOk;
}

}  // namespace cli
