// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli: the headless front end. Builds a mechanism (a built-in parametric scene or a
// .mech/.trep/.urdf/MJCF model file), steps it with the variational integrator and writes per-step
// metrics and body poses as CSV; checks and converts model files.
//
// Exit codes: 0 success; 1 bad input (one line "mechstudio-cli: error: <reason>" on stderr);
// 2 solver failure (every computed row is flushed first); 3 internal error; 130 interrupted.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/check.h"
#include "core/diagnostics.h"
#include "io/mech_reader.h"
#include "io/model_file.h"
#include "io/mech_writer.h"
#include "io/mjcf_writer.h"
#include "io/urdf_writer.h"
#include "io/trep_import.h"
#include "io/urdf_import.h"
#include "core/quaternion.h"
#include "comparison.h"
#include "integrator/integrator_options.h"
#include "io/experiment_file.h"
#include "scenes/lessons.h"
#include "scenes/scenes.h"
#include "signals/signals.h"
#include "simulation.h"
#include "system/compiled_system.h"

#ifndef MECHSTUDIO_VERSION
#define MECHSTUDIO_VERSION "unknown"
#endif

namespace {

constexpr const char* kProg = "mechstudio-cli";
constexpr const char* kMetricsHeader =
    "step,time,kinetic,potential,energy,constraint_violation,iterations,residual,step_us,penetration,contacts,"
    "limit_violation,limits,stalled,substeps,singular,auto_pairs";
constexpr const char* kLessonHeader =
    "copy,label,step,time,energy,constraint_violation,penetration,angular_momentum,status";
constexpr const char* kPosesHeader = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";

// Exit codes.
constexpr int kExitOk = 0, kExitBadInput = 1, kExitSolverFailure = 2, kExitInternal = 3, kExitInterrupted = 130;

// A problem with the user's input: reported as one line and exit code 1.
struct InputError {
  std::string reason;
};

// One line: newlines in engine messages (e.g. compile() listing several problems) become "; ".
std::string oneLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\n')
      out += "; ";
    else if (c != '\r')
      out += c;
  }
  return out;
}

void printUsage(std::FILE* f) {
  std::fprintf(f,
               "Usage: %s simulate (scene:NAME | FILE) (--duration S | --steps N) [OPTION]...\n"
               "  or:  %s check FILE [--set key=value]... [--package-path DIR]...\n"
               "  or:  %s signals (scene:NAME | FILE) [--set key=value]... [--degrees] [--package-path DIR]...\n"
               "  or:  %s convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf [--package-path DIR]...\n"
               "  or:  %s sweep (scene:NAME | FILE) --grid KEY=FROM:TO:COUNT... (--duration S | --steps N) --csv OUT\n"
               "           [--workers N] [--scheduler ADDR] [--metric AGG(QUANTITY)]...\n"
               "  or:  %s scenes\n"
               "  or:  %s lesson (N | ID | FILE.experiment) [--duration S] [--csv FILE] [--quiet]\n"
               "  or:  %s lessons\n"
               "  or:  %s --help | --version\n"
               "\n"
               "Commands:\n"
               "  simulate     step a mechanism (the variational integrator unless --integrator)\n"
               "  check        read and compile a model file, print its diagnostics (exit 1 on errors)\n"
               "  signals      list the signals of a model (joint coordinates and reactions, bodies,\n"
               "               contacts, system totals) with their units\n"
               "  convert      write a model file or a scene as .mech, URDF (.urdf, trees only) or MJCF\n"
               "               (.xml or .mjcf), chosen by the output's extension\n"
               "  sweep        run one rollout per parameter set on Dask (a local cluster of --workers\n"
               "               processes, or the scheduler at --scheduler) and write one CSV row per\n"
               "               rollout (python3 -m mechstudio sweep; docs/scale-out.md)\n"
               "  scenes       list the built-in scenes, their parameters and defaults\n"
               "  lesson       run a teaching preset or an experiment file: one model, several\n"
               "               integrators in lockstep, and a summary of the quantity it is about\n"
               "               (constraint drift, energy, ...)\n"
               "  lessons      list the lessons\n"
               "\n"
               "Options of simulate:\n"
               "  scene:NAME        built-in scene to simulate (see '%s scenes')\n"
               "  FILE              a model file: .mech (MechStudio), .trep (trep), .urdf, or MuJoCo's MJCF\n"
               "                    (.mjcf, or .xml with a <mujoco> root)\n"
               "  --set key=value   set a scene or .mech parameter (repeatable, each key once)\n"
               "  --package-path DIR  a directory holding ROS packages, for URDF meshes package://NAME/...\n"
               "                    (repeatable; searched before ROS_PACKAGE_PATH; also for check, signals, convert)\n"
               "  --dt S            time step [s] (default: the scene's, usually 0.01)\n"
               "  --duration S      simulated time [s]; steps = round up(S / dt)\n"
               "  --steps N         number of steps (exactly one of --duration and --steps)\n"
               "  --keyframe NAME   start from the model's (keyframe NAME ...) instead of its initial conditions\n"
               "  --tol X           Newton tolerance on the residual inf-norm (default 1e-10)\n"
               "  --comp-tol X      contacts and limits: largest slack x impulse at convergence (default 1e-8)\n"
               "  --max-iter N      Newton iteration cap per step (default 100)\n"
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
               "  --quiet           no summary on standard error\n"
               "\n"
               "Options of lesson:\n"
               "  N | ID            lesson number (1-10) or name (see 'lessons')\n"
               "  FILE.experiment   an experiment file (docs/lessons.md, \"Experiment files\")\n"
               "  --duration S      simulated time [s] (default: the lesson's)\n"
               "  --csv FILE        per-step rows of every copy ('-' = standard output):\n"
               "                      %s\n"
               "  --quiet           no table, only the summary\n"
               "\n"
               "Exit status:\n"
               "  0    success\n"
               "  1    bad input\n"
               "  2    solver failure (rows so far are written)\n"
               "  3    internal error\n"
               "  130  interrupted\n",
               kProg, kProg, kProg, kProg, kProg, kProg, kProg, kProg, kProg, kProg, kMetricsHeader, kPosesHeader, kLessonHeader);
}

// ---- strict number parsing ---------------------------------------------------------------------

// The whole string must be a finite number (no leading/trailing space, no hex, no inf/nan).
std::optional<double> parseDouble(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The whole string must be a decimal integer.
std::optional<long long> parseInteger(const std::string& s) {
  if (s.empty()) return std::nullopt;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

double positiveDouble(const std::string& opt, const std::string& value) {
  const auto v = parseDouble(value);
  if (!v) throw InputError{opt + " expects a number, got '" + value + "'"};
  if (*v < 0) throw InputError{opt + " must be positive, got negative value " + value};
  if (*v == 0) throw InputError{opt + " must be positive, got " + value};
  return *v;
}

long long positiveInteger(const std::string& opt, const std::string& value, long long max) {
  const auto v = parseInteger(value);
  if (!v) throw InputError{opt + " expects a whole number, got '" + value + "'"};
  if (*v < 0) throw InputError{opt + " must be positive, got negative value " + value};
  if (*v == 0) throw InputError{opt + " must be positive, got " + value};
  if (*v > max) throw InputError{opt + " is too large (at most " + std::to_string(max) + "), got " + value};
  return *v;
}

// ---- --package-path DIR (every command that loads a model) ----------------------------------------

// A root for URDF package://NAME/PATH meshes: an existing directory.
std::string packageRoot(const std::string& dir) {
  if (dir.empty()) throw InputError{"option --package-path needs a directory"};
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw InputError{"--package-path '" + dir + "' is not a directory"};
  return dir;
}

// True when args[i] is --package-path DIR or --package-path=DIR; the directory is added to `roots`
// and i left on the last argument used.
bool takePackagePath(const std::vector<std::string>& args, size_t& i, std::vector<std::string>& roots) {
  const std::string option = "--package-path";
  if (args[i] == option) {
    if (i + 1 >= args.size()) throw InputError{"option --package-path needs a directory"};
    roots.push_back(packageRoot(args[++i]));
    return true;
  }
  if (args[i].compare(0, option.size() + 1, option + "=") != 0) return false;
  roots.push_back(packageRoot(args[i].substr(option.size() + 1)));
  return true;
}

// ---- options of "simulate" ---------------------------------------------------------------------

struct SimulateOptions {
  std::string model;  // "scene:NAME" (a model file path in a later issue)
  std::map<std::string, std::string> params;
  std::optional<double> dt, duration, tol, compTol;
  std::optional<long long> steps, maxIter;
  std::optional<std::string> csv, poses, signals;
  std::optional<std::string> keyframe;  // --keyframe NAME: the initial state
  std::vector<std::string> signalPatterns;  // --signal (repeatable)
  std::vector<std::string> packagePaths;    // --package-path (repeatable): roots for URDF package:// meshes
  bool degrees = false;
  bool quiet = false;
  ms::IntegratorOptions integrator;  // --integrator, --baumgarte (validated against the model later)
};

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
                                                         "--tol",      "--comp-tol", "--max-iter", "--csv",
                                                         "--poses", "--signals", "--signal",
                                                         "--integrator", "--baumgarte", "--contacts",
                                                         "--contact-stiffness", "--contact-damping",
                                                         "--mujoco-integrator", "--keyframe", "--package-path"};
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
      if (name != "--set" && name != "--signal" && name != "--package-path") {
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
      } else if (name == "--package-path") {
        o.packagePaths.push_back(packageRoot(value));
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

// ---- model loading -----------------------------------------------------------------------------

// Prints diagnostics (one per line, file:line:column) to stderr.
void printDiagnostics(const ms::Diagnostics& diags) {
  for (const ms::Diagnostic& d : diags.items()) std::fprintf(stderr, "%s\n", d.format().c_str());
}

// ms::loadModel, with a problem that has no source location (unknown scene, missing file, wrong
// type) turned into one InputError line; located diagnostics stay in `diags` for the caller.
bool readModel(const std::string& source, const std::map<std::string, std::string>& params, ms::Model& model,
               ms::Diagnostics& diags, const std::vector<std::string>& packagePaths) {
  ms::ModelLoadOptions options;
  options.packagePaths = packagePaths;
  const bool ok = ms::loadModel(source, params, model, diags, options);
  if (!ok && diags.items().size() == 1 && diags.items()[0].line == 0)
    throw InputError{"'" + source + "': " + diags.items()[0].message};
  return ok;
}

// The description to simulate: a built-in scene ("scene:NAME") or a model file.
ms::Model loadModel(const SimulateOptions& o) {
  ms::Model model;
  ms::Diagnostics diags;
  const bool ok = readModel(o.model, o.params, model, diags, o.packagePaths);
  // Warnings are shown unless --quiet; errors always, then one summary line.
  if (!ok || !o.quiet) printDiagnostics(diags);
  if (!ok) throw InputError{"'" + o.model + "' has " + std::to_string(diags.errorCount()) + " error(s)"};
  return model;
}

// ---- output ------------------------------------------------------------------------------------

// A CSV destination: a file or standard output, buffered, flushed on demand; reports write errors.
class CsvOut {
 public:
  CsvOut(const std::string& path, const char* option) : path_(path) {
    if (path == "-") {
      f_ = stdout;
    } else {
      f_ = std::fopen(path.c_str(), "w");
      if (!f_) throw InputError{"cannot write " + std::string(option) + " file '" + path + "': " + std::strerror(errno)};
      owned_ = true;
    }
    std::setvbuf(f_, nullptr, _IOFBF, 1 << 16);
  }
  ~CsvOut() {
    if (owned_ && f_) std::fclose(f_);
  }
  CsvOut(const CsvOut&) = delete;
  CsvOut& operator=(const CsvOut&) = delete;
  std::FILE* file() const { return f_; }
  const std::string& path() const { return path_; }
  // Flushes; returns an error text if anything could not be written.
  std::string flush() {
    if (std::fflush(f_) != 0 || std::ferror(f_))
      return "cannot write '" + (path_ == "-" ? std::string("<stdout>") : path_) + "': " + std::strerror(errno);
    return {};
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  bool owned_ = false;
};

// A CSV field: quoted when it contains a comma, a quote or a line break.
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

void writeMetricsRow(std::FILE* f, const ms::StepMetrics& m) {
  std::fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%.3f,%.17g,%d,%.17g,%d,%d,%d,%d,%d\n", m.step, m.time,
               m.kinetic, m.potential, m.energy, m.constraintViolation, m.iterations, m.residual, m.stepMicroseconds,
               m.penetration, m.contacts, m.limitViolation, m.limits, int(m.stalled), m.substeps, m.singular,
               m.autoPairs);
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
  }
};

volatile std::sig_atomic_t gInterrupted = 0;
extern "C" void onSignal(int) { gInterrupted = 1; }

// ---- commands ----------------------------------------------------------------------------------

int runScenes(const std::vector<std::string>& args) {
  if (!args.empty()) throw InputError{"'scenes' takes no arguments, got '" + args.front() + "'"};
  const auto& catalog = ms::sceneCatalog();
  std::printf("Built-in scenes (use as scene:NAME; set parameters with --set key=value):\n");
  for (const ms::SceneInfo& s : catalog) {
    std::printf("\n%s\n    %s\n", s.name.c_str(), s.description.c_str());
    if (s.parameters.empty()) {
      std::printf("    (no parameters)\n");
      continue;
    }
    size_t w = 0;
    for (const auto& p : s.parameters) w = std::max(w, p.name.size() + 3 + p.defaultValue.size());
    for (const auto& p : s.parameters) {
      const std::string nv = p.name + " = " + p.defaultValue;
      std::printf("    %-*s  %s\n", int(w), nv.c_str(), p.description.c_str());
    }
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitInternal;
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

// signals (scene:NAME | FILE) [--set k=v]... [--degrees]: one line per signal, "name [unit]".
int runSignals(const std::vector<std::string>& args) {
  SimulateOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--set") {
      if (i + 1 >= args.size()) throw InputError{"option --set needs a value"};
      const std::string v = args[++i];
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) throw InputError{"--set expects key=value, got '" + v + "'"};
      if (!o.params.emplace(v.substr(0, eq), v.substr(eq + 1)).second)
        throw InputError{"--set " + v.substr(0, eq) + " given more than once"};
    } else if (a == "--degrees") {
      o.degrees = true;
    } else if (takePackagePath(args, i, o.packagePaths)) {
      // a root for URDF package:// meshes
    } else if (!a.empty() && a[0] == '-') {
      throw InputError{"unknown option '" + a + "' for signals"};
    } else {
      if (!o.model.empty()) throw InputError{"signals takes one model"};
      o.model = a;
    }
  }
  if (o.model.empty()) throw InputError{"signals needs a model: scene:NAME or a model file"};
  o.quiet = true;
  const auto system = ms::compile(loadModel(o));
  const ms::SignalCatalogue catalogue(*system);
  const ms::AngleUnit angles = o.degrees ? ms::AngleUnit::Degrees : ms::AngleUnit::Radians;
  for (int i = 0; i < catalogue.size(); ++i) std::printf("%s\n", catalogue.header(i, angles).c_str());
  return std::fflush(stdout) == 0 ? kExitOk : kExitInternal;
}

int runSimulate(const std::vector<std::string>& args) {
  const SimulateOptions o = parseSimulate(args);

  // Build, apply solver options, compile and set up; every user-caused problem is a UserError.
  ms::Model model = loadModel(o);
  if (o.dt) model.solver.dt = *o.dt;
  if (o.tol) model.solver.tolerance = *o.tol;
  if (o.compTol) model.solver.complementarityTolerance = *o.compTol;
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
                 "%ld with constraint work kept%s\n",
                 kProg, o.model.c_str(), ms::describe(o.integrator).c_str(), dt, stats.steps, steps, stats.steps * dt,
                 wall, stats.sumStepUs / n, stats.sumIterations / n, ms::iterationUnit(o.integrator.kind),
                 stats.maxViolation, stats.maxDrift, stats.e0, stats.stalled, stats.subdivided,
                 stats.singularPassed, stats.singularKept, failed ? "; stopped by a solver failure" : "");
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

// check FILE [--set k=v]...: read and compile, print every diagnostic; exit 1 if any error.
int runCheck(const std::vector<std::string>& args) {
  std::string path;
  std::map<std::string, std::string> params;
  std::vector<std::string> packagePaths;
  for (size_t i = 0; i < args.size(); ++i) {
    if (takePackagePath(args, i, packagePaths)) {
      // a root for URDF package:// meshes
    } else if (args[i] == "--set") {
      if (i + 1 >= args.size()) throw InputError{"option --set needs a value"};
      const std::string v = args[++i];
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) throw InputError{"--set expects key=value, got '" + v + "'"};
      if (!params.emplace(v.substr(0, eq), v.substr(eq + 1)).second) throw InputError{"--set " + v.substr(0, eq) + " given more than once"};
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw InputError{"unknown option '" + args[i] + "' for check"};
    } else {
      if (!path.empty()) throw InputError{"check takes one model file"};
      path = args[i];
    }
  }
  if (path.empty()) throw InputError{"check needs a model file"};
  ms::Model model;
  ms::Diagnostics diags;
  bool ok = readModel(path, params, model, diags, packagePaths);
  // The separate compile step: its problems have no source location.
  if (ok) {
    try {
      const auto sys = ms::compile(model);
      for (const std::string& note : sys->notes) diags.add(ms::Severity::Note, path, 0, 0, note);
    } catch (const ms::UserError& e) {
      diags.error(path, 0, 0, oneLine(e.what()));
      ok = false;
    }
  }
  printDiagnostics(diags);
  int warnings = 0;
  for (const ms::Diagnostic& d : diags.items()) warnings += d.severity == ms::Severity::Warning;
  std::fprintf(stderr, "%s: %d error(s), %d warning(s)%s\n", path.c_str(), diags.errorCount(), warnings,
               ok ? "; compiles" : "");
  return ok ? kExitOk : kExitBadInput;
}

// convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf: import and write as MechStudio text, URDF or MJCF,
// chosen by the output's extension (atomically: temp file + rename; nothing is written when the
// model cannot be expressed in the output format).
int runConvert(const std::vector<std::string>& args) {
  std::string in, out;
  std::vector<std::string> packagePaths;
  for (size_t i = 0; i < args.size(); ++i) {
    if (takePackagePath(args, i, packagePaths)) {
      // a root for URDF package:// meshes
    } else if (args[i] == "-o" || args[i] == "--output") {
      if (i + 1 >= args.size()) throw InputError{"option -o needs a file name"};
      if (!out.empty()) throw InputError{"option -o given more than once"};
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw InputError{"unknown option '" + args[i] + "' for convert"};
    } else {
      if (!in.empty()) throw InputError{"convert takes one input file"};
      in = args[i];
    }
  }
  if (in.empty() || out.empty()) throw InputError{"usage: convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf"};
  const std::string format = ms::modelFileExtension(out);
  if (format != ".mech" && format != ".urdf" && format != ".xml" && format != ".mjcf")
    throw InputError{"the output '" + out + "' must be a .mech file, a .urdf file or an .xml or .mjcf file (MJCF)"};
  ms::Model model;
  ms::Diagnostics diags;
  const bool ok = readModel(in, {}, model, diags, packagePaths);
  printDiagnostics(diags);
  if (!ok) throw InputError{"'" + in + "' has " + std::to_string(diags.errorCount()) + " error(s); nothing written"};
  // The text in the output's format; a model the format cannot express throws UserError (exit 1).
  std::string text;
  if (format == ".mech") {
    text = ms::writeMech(model);
  } else if (format == ".urdf") {
    // Mesh names relative to the input's directory are rewritten relative to the output's.
    ms::UrdfWriteOptions wo;
    if (in.compare(0, 6, "scene:") != 0) wo.meshBaseDir = std::filesystem::path(in).parent_path().string();
    wo.outputDir = std::filesystem::path(out).parent_path().string();
    if (wo.outputDir.empty()) wo.outputDir = ".";
    std::vector<std::string> notes;
    text = ms::writeUrdf(model, wo, &notes);
    // What URDF leaves out or changes, as notes about the output.
    ms::Diagnostics noteDiags;
    for (const std::string& n : notes) noteDiags.add(ms::Severity::Note, out, 0, 0, n);
    printDiagnostics(noteDiags);
  } else {
    // Everything MJCF carries (visuals, meshes, servos, MechStudio's <custom> entries), mesh names
    // relative to the output's directory.
    ms::MjcfWriteOptions mo;
    mo.complete = true;
    if (in.compare(0, 6, "scene:") != 0) mo.meshBaseDir = std::filesystem::path(in).parent_path().string();
    mo.outputDir = std::filesystem::path(out).parent_path().string();
    if (mo.outputDir.empty()) mo.outputDir = ".";
    text = ms::writeMjcf(model, mo);
  }
  const std::string tmp = out + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw InputError{"cannot write '" + out + "': " + std::strerror(errno)};
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(tmp, ec);
    throw InputError{"cannot write '" + out + "'"};
  }
  std::filesystem::rename(tmp, out, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError{"cannot write '" + out + "': " + ec.message()};
  }
  return kExitOk;
}

// sweep MODEL --grid key=from:to:count... [--workers N] [--scheduler ADDR] [--duration S | --steps N]
// [--dt S] [--integrator NAME] [--metric AGG(QUANTITY)]... --csv OUT: the Python runner
// (python3 -m mechstudio sweep, docs/scale-out.md) takes over this process; its exit status is ours.
int runSweep(const std::vector<std::string>& args) {
#if defined(MECHSTUDIO_PYTHON)
  const char* python = MECHSTUDIO_PYTHON;
#else
  const char* python = "/usr/bin/python3";
#endif
#if defined(MECHSTUDIO_PYTHON_PATH)
  // From a build tree: the module built beside this program (an installed one is on Python's path).
  std::error_code ec;
  if (std::filesystem::is_directory(MECHSTUDIO_PYTHON_PATH "/mechstudio", ec)) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = std::string(MECHSTUDIO_PYTHON_PATH) + (old && *old ? std::string(":") + old : "");
    setenv("PYTHONPATH", path.c_str(), 1);
  }
#endif
  std::vector<std::string> argv = {python, "-m", "mechstudio", "sweep"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(stdout);
  execv(python, cargv.data());
  throw InputError{std::string("sweep needs Python 3 with the mechstudio module (") + python + ": " + std::strerror(errno) +
                   "; build with -DMECHSTUDIO_BUILD_PYTHON=ON or install the package)"};
}

// lessons: list the teaching presets.
int runLessons(const std::vector<std::string>& args) {
  if (!args.empty()) throw InputError{"'lessons' takes no arguments, got '" + args.front() + "'"};
  std::printf("Lessons (run with '%s lesson N'; in the app: Lessons menu or 'mechstudio --lesson N'):\n", kProg);
  for (const ms::Lesson& l : ms::lessons()) {
    std::printf("\n%d  %s\n    %s\n    copies:", l.number, l.id.c_str(), l.title.c_str());
    for (const ms::LessonVariant& v : l.variants) {
      if (v.tolerance != 0) std::printf(" [%s, dt = %g s, tol %g]", v.label.c_str(), v.dt, v.tolerance);
      else std::printf(" [%s, dt = %g s]", v.label.c_str(), v.dt);
    }
    std::printf("\n");
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitInternal;
}

// A number as %g prints it.
std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Per-copy figures of a lesson run.
struct CopyStats {
  double e0 = 0, l0 = 0, maxEnergyError = 0, maxViolation = 0, maxPenetration = 0, maxMomentumError = 0;
  double lastEnergyError = 0, lastViolation = 0, lastPenetration = 0, lastMomentumError = 0, stepUs = 0;
  long steps = 0, iterations = 0, lastIterations = 0;
  void initial(const ms::Simulation& s) {
    e0 = s.metrics().energy;
    l0 = s.angularMomentum().norm();
  }
  void add(const ms::Simulation& s) {
    const ms::StepMetrics& m = s.metrics();
    ++steps;
    stepUs += m.stepMicroseconds;
    iterations += m.iterations;
    lastIterations = m.iterations;
    lastEnergyError = m.energy - e0;
    lastViolation = m.constraintViolation;
    lastPenetration = m.penetration;
    lastMomentumError = s.angularMomentum().norm() - l0;
    maxEnergyError = std::max(maxEnergyError, std::abs(lastEnergyError));
    maxViolation = std::max(maxViolation, lastViolation);
    maxPenetration = std::max(maxPenetration, lastPenetration);
    maxMomentumError = std::max(maxMomentumError, std::abs(lastMomentumError));
  }
  // The lesson's quantity, now.
  double focus(ms::LessonFocus f) const {
    switch (f) {
      case ms::LessonFocus::ConstraintViolation: return lastViolation;
      case ms::LessonFocus::Energy: return lastEnergyError;
      case ms::LessonFocus::Penetration: return lastPenetration;
      case ms::LessonFocus::AngularMomentum: return lastMomentumError;
      case ms::LessonFocus::Iterations: return double(lastIterations);
    }
    return 0;
  }
};

const char* focusName(ms::LessonFocus f) {
  switch (f) {
    case ms::LessonFocus::ConstraintViolation: return "constraint violation [m]";
    case ms::LessonFocus::Energy: return "energy error E - E0 [J]";
    case ms::LessonFocus::Penetration: return "penetration [m]";
    case ms::LessonFocus::AngularMomentum: return "angular momentum error |L| - |L0| [N m s]";
    case ms::LessonFocus::Iterations: return "solver iterations in the last step";
  }
  return "";
}

// lesson (N | ID) [--duration S] [--csv FILE] [--quiet]: the copies of a lesson in lockstep, a table
// of its quantity at 10 moments and a summary per copy. Exit 0 also when a copy diverges (that is
// what some lessons show); 2 if the reference copy fails.
int runLesson(const std::vector<std::string>& args) {
  std::optional<std::string> key, csvPath;
  std::optional<double> duration;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw InputError{"option " + a + " needs a value"};
      return args[++i];
    };
    if (a == "--duration") duration = positiveDouble(a, value());
    else if (a == "--csv") csvPath = value();
    else if (a == "--quiet") quiet = true;
    else if (a.size() > 1 && a[0] == '-') throw InputError{"unknown option '" + a + "' of lesson (see --help)"};
    else if (key) throw InputError{"give one lesson, got '" + *key + "' and '" + a + "'"};
    else key = a;
  }
  if (!key) throw InputError{"lesson needs a number or a name (see '" + std::string(kProg) + " lessons')"};
  // A path ending in .experiment, or an existing file that names no built-in lesson, is an
  // experiment file (a malformed one is reported at its file:line:column).
  ms::Lesson fromFile;
  const ms::Lesson* found = nullptr;
  std::error_code ec;
  if (!ms::isExperimentFile(*key)) {
    for (const ms::Lesson& l : ms::lessons())
      if (l.id == *key || std::to_string(l.number) == *key) found = &l;
    if (!found && !std::filesystem::is_regular_file(*key, ec)) found = &ms::findLesson(*key);
  }
  if (!found) {
    fromFile = ms::loadExperiment(*key);
    found = &fromFile;
  }
  const ms::Lesson& lesson = *found;
  // The report goes to standard output, or to standard error when the CSV does.
  std::FILE* out = csvPath && *csvPath == "-" ? stderr : stdout;
  const double T = duration ? *duration : lesson.duration;
  std::vector<ms::ComparisonCopy> copies;
  for (const ms::LessonVariant& v : lesson.variants) copies.push_back({v.label, v.options, v.dt, v.tolerance});
  const auto system = ms::compile(ms::lessonModel(lesson));
  // The body the view follows must exist (the GUI would refuse it too).
  if (!lesson.follow.empty() && system->model.bodyIndex(lesson.follow) < 0)
    throw ms::UserError("(follow " + lesson.follow + "): the model has no body of that name");
  ms::Comparison cmp(system, copies);
  // Every copy starts from the experiment's keyframe (an unknown or misfitting one: exit 1).
  if (!lesson.keyframe.empty()) {
    ms::Simulation start(system);
    start.setInitialKeyframe(lesson.keyframe);
    cmp.setState(start.state());
  }
  const int n = cmp.size();
  std::unique_ptr<CsvOut> csv;
  if (csvPath) {
    csv = std::make_unique<CsvOut>(*csvPath, "--csv");
    std::fprintf(csv->file(), "%s\n", kLessonHeader);
  }
  auto row = [&](int i) {
    const ms::Simulation& s = cmp.simulation(i);
    const ms::StepMetrics& m = s.metrics();
    std::fprintf(csv->file(), "%d,%s,%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%s\n", i, csvField(cmp.copy(i).label).c_str(),
                 m.step, m.time, m.energy, m.constraintViolation, m.penetration, s.angularMomentum().norm(),
                 cmp.stopped(i) ? "stopped" : "ok");
  };

  std::vector<CopyStats> stats(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    stats[size_t(i)].initial(cmp.simulation(i));
    if (csv) row(i);
  }
  if (lesson.number > 0)
    std::fprintf(out, "Lesson %d: %s\n", lesson.number, lesson.title.c_str());
  else
    std::fprintf(out, "Experiment %s: %s\n", lesson.id.c_str(), lesson.title.c_str());
  if (!lesson.explanation.empty()) std::fprintf(out, "%s\n", lesson.explanation.c_str());
  if (!lesson.claim.empty()) std::fprintf(out, "Expect: %s\n", lesson.claim.c_str());
  std::fprintf(out, "\n");
  if (!quiet) {
    std::fprintf(out, "%-10s", "t [s]");
    for (int i = 0; i < n; ++i) std::fprintf(out, "  %22s", cmp.copy(i).label.c_str());
    std::fprintf(out, "    (%s)\n", focusName(lesson.focus));
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  // Advance in steps of the reference copy; every step of every copy is recorded.
  const double dt0 = cmp.copy(0).dt;
  const long total = std::max(1L, long(std::ceil(T / dt0 - 1e-9)));
  const auto record = [&](int i) {
    stats[size_t(i)].add(cmp.simulation(i));
    if (csv) row(i);
  };
  long nextRow = 0;
  for (long k = 1; k <= total && !gInterrupted; ++k) {
    const double t = double(k) * dt0;
    cmp.advanceTo(t, record);
    if (!quiet && (k * 10 >= nextRow * total)) {
      ++nextRow;
      std::fprintf(out, "%-10.4g", t);
      for (int i = 0; i < n; ++i) {
        if (cmp.stopped(i)) std::fprintf(out, "  %22s", "stopped");
        else std::fprintf(out, "  %22.6g", stats[size_t(i)].focus(lesson.focus));
      }
      std::fprintf(out, "\n");
    }
  }
  std::fprintf(out, "\nSummary over %g s:\n", T);
  std::fprintf(out, "  %-24s %-58s %12s %12s %12s %12s %12s %10s %10s\n", "copy", "integrator", "max|dE| J",
              "max viol.", "max pen. m", "max|dL|", "us per sim s", "iters/step", "us/step");
  for (int i = 0; i < n; ++i) {
    const CopyStats& c = stats[size_t(i)];
    const ms::Simulation& s = cmp.simulation(i);
    const double usPerSimSecond = c.steps ? c.stepUs / (double(c.steps) * s.settings().dt) : 0;
    std::string how = ms::describe(cmp.copy(i).options) + ", dt " + shortNumber(s.settings().dt) + " s";
    if (cmp.copy(i).tolerance != 0) how += ", tol " + shortNumber(cmp.copy(i).tolerance);
    const double perStep = c.steps ? 1.0 / double(c.steps) : 0.0;
    std::fprintf(out, "  %-24s %-58s %12.4g %12.4g %12.4g %12.4g %12.4g %10.3g %10.4g\n", cmp.copy(i).label.c_str(),
                how.c_str(), c.maxEnergyError, c.maxViolation, c.maxPenetration, c.maxMomentumError, usPerSimSecond,
                double(c.iterations) * perStep, c.stepUs * perStep);
    if (cmp.stopped(i)) std::fprintf(out, "  %-24s stopped: %s\n", "", oneLine(cmp.stopReason(i)).c_str());
  }
  if (csv)
    if (std::string err = csv->flush(); !err.empty()) throw InputError{err};
  if (gInterrupted) return kExitInterrupted;
  if (cmp.stopped(0)) {
    std::fprintf(stderr, "%s: the reference copy failed: %s\n", kProg, oneLine(cmp.stopReason(0)).c_str());
    return kExitSolverFailure;
  }
  return std::fflush(out) == 0 ? kExitOk : kExitInternal;
}

int run(const std::vector<std::string>& args) {
  if (args.empty()) throw InputError{"no command given (try '" + std::string(kProg) + " --help')"};
  const std::string& cmd = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    printUsage(stdout);
    return kExitOk;
  }
  if (cmd == "--version") {
    std::printf("%s %s\n", kProg, MECHSTUDIO_VERSION);
    return kExitOk;
  }
  if (cmd == "simulate") {
    if (std::find_if(rest.begin(), rest.end(), [](const std::string& a) { return a == "--help" || a == "-h"; }) !=
        rest.end()) {
      printUsage(stdout);
      return kExitOk;
    }
    return runSimulate(rest);
  }
  if (cmd == "scenes") return runScenes(rest);
  if (cmd == "lesson") return runLesson(rest);
  if (cmd == "lessons") return runLessons(rest);
  if (cmd == "check") return runCheck(rest);
  if (cmd == "signals") return runSignals(rest);
  if (cmd == "convert") return runConvert(rest);
  if (cmd == "sweep") return runSweep(rest);
  if (!cmd.empty() && cmd[0] == '-') throw InputError{"unknown option '" + cmd + "' (see --help)"};
  throw InputError{"unknown command '" + cmd + "' (commands: simulate, check, signals, convert, sweep, scenes, lesson, lessons; see --help)"};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return run(args);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, oneLine(e.reason).c_str());
    return kExitBadInput;
  } catch (const ms::UserError& e) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, oneLine(e.what()).c_str());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", kProg, oneLine(e.what()).c_str());
    return kExitInternal;
  } catch (...) {
    std::fprintf(stderr, "%s: internal error: unknown exception\n", kProg);
    return kExitInternal;
  }
}
