// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli lesson (N | ID | FILE.experiment): the copies of a lesson or an experiment file in
// lockstep (ms::Comparison, the engine's lockstep runner: used here only), a table of the quantity it
// is about and a summary per copy. Its options and its part of --help.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/cli_common.h"
#include "comparison.h"
#include "core/check.h"
#include "io/experiment_file.h"
#include "scenes/lessons.h"
#include "simulation.h"
#include "system/compiled_system.h"

namespace cli {

namespace {

constexpr const char* kLessonHeader =
    "copy,label,step,time,energy,constraint_violation,penetration,angular_momentum,status";

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

}  // namespace

void printLessonOptions(std::FILE* f) {
  std::fprintf(f,
               "  N | ID            lesson number (1-11) or name (see 'lessons')\n"
               "  FILE.experiment   an experiment file (docs/lessons.md, \"Experiment files\")\n"
               "  --duration S      simulated time [s] (default: the lesson's)\n"
               "  --csv FILE        per-step rows of every copy ('-' = standard output):\n"
               "                      %s\n"
               "  --quiet           no table, only the summary\n",
               kLessonHeader);
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

}  // namespace cli
