// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli: what the commands share (as git's builtin.h). The program name and exit codes, the
// one-line input error, strict number parsing, --package-path and --set, model loading with its
// diagnostics, CSV output, the interrupt flag, and every command's entry point: one file per command
// under app/cli/ (cmd_NAME.cpp), listed with its help in the command table of app/cli_main.cpp.
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "integrator/integrator_options.h"
#include "io/model_file.h"
#include "model/model.h"

namespace cli {

using Args = std::vector<std::string>;

inline constexpr const char* kProg = "mechstudio-cli";

// Exit codes.
inline constexpr int kExitOk = 0, kExitBadInput = 1, kExitSolverFailure = 2, kExitInternal = 3, kExitInterrupted = 130;

// A problem with the user's input: reported as one line and exit code 1.
struct InputError {
  std::string reason;
};


// Writes `text` to `path` atomically (a temp file beside it, then a rename): on failure nothing is
// left behind and the old file, if any, is as it was (InputError).
void writeFileAtomically(const std::string& path, const std::string& text);

// One line: newlines in engine messages (e.g. compile() listing several problems) become "; ".
std::string oneLine(std::string s);

// The whole --help text (app/cli_main.cpp: usage lines and commands from the command table).
void printUsage(std::FILE* f);

// ---- strict number parsing ---------------------------------------------------------------------

// The whole string must be a finite number (no leading/trailing space, no hex, no inf/nan).
std::optional<double> parseDouble(const std::string& s);
// The whole string must be a decimal integer.
std::optional<long long> parseInteger(const std::string& s);
// A number > 0 given to option `opt` (else an InputError naming it).
double positiveDouble(const std::string& opt, const std::string& value);
// A finite number ≥ 0 (InputError otherwise).
double nonNegativeDouble(const std::string& opt, const std::string& value);
// A whole number in 1..max given to option `opt`.
long long positiveInteger(const std::string& opt, const std::string& value, long long max);

// ---- options of the commands that load a model ---------------------------------------------------

// A root for URDF package://NAME/PATH meshes: an existing directory.
std::string packageRoot(const std::string& dir);
// True when args[i] is an option of how a model is loaded, then set in `load` with i left on the last
// argument used: --package-path DIR (repeatable; a root for URDF package:// meshes), --no-ground (no
// ground under a floating-base URDF robot), --self-collision on|off (between the bodies of one
// mechanism; URDF's default is off). "--opt=value" works too.
bool takeLoadOption(const std::vector<std::string>& args, size_t& i, ms::ModelLoadOptions& load);
// True when args[i] is --set key=value (each key once); the pair is added to `params` and i left on
// the value.
bool takeSetOption(const std::vector<std::string>& args, size_t& i, std::map<std::string, std::string>& params);

struct SimulateOptions {
  std::string model;  // "scene:NAME" (a model file path in a later issue)
  std::map<std::string, std::string> params;
  std::optional<double> dt, duration, tol, compTol, sleep;
  std::optional<long long> steps, maxIter;
  std::optional<std::string> csv, poses, signals;
  std::optional<std::string> keyframe;  // --keyframe NAME: the initial state
  std::vector<std::string> signalPatterns;  // --signal (repeatable)
  ms::ModelLoadOptions load;                // --package-path (repeatable), --no-ground, --self-collision
  bool degrees = false;
  bool quiet = false;
  ms::IntegratorOptions integrator;  // --integrator, --baumgarte (validated against the model later)
};


// ---- model loading -----------------------------------------------------------------------------

// Prints diagnostics (one per line, file:line:column) to stderr.
void printDiagnostics(const ms::Diagnostics& diags);
// ms::loadModel, with a problem that has no source location (unknown scene, missing file, wrong
// type) turned into one InputError line; located diagnostics stay in `diags` for the caller.
bool readModel(const std::string& source, const std::map<std::string, std::string>& params, ms::Model& model,
               ms::Diagnostics& diags, const ms::ModelLoadOptions& load);
// The description to simulate: a built-in scene ("scene:NAME") or a model file.
ms::Model loadModel(const SimulateOptions& o);

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
std::string csvField(const std::string& s);

// Set by SIGINT/SIGTERM (onSignal) once a command has installed it; the run stops at the next step.
extern volatile std::sig_atomic_t gInterrupted;
extern "C" void onSignal(int);

// ---- the commands (one file each: app/cli/cmd_NAME.cpp) ------------------------------------------

int runSimulate(const Args& args);
int runCheck(const Args& args);
int runSignals(const Args& args);
int runConvert(const Args& args);
int runAssemble(const Args& args);
int runSweep(const Args& args);
int runScenes(const Args& args);
int runLesson(const Args& args);
int runLessons(const Args& args);
// The "Options of NAME:" sections of --help.
void printSimulateOptions(std::FILE* f);
void printLessonOptions(std::FILE* f);

}  // namespace cli
