// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli: the headless front end. Builds a mechanism (a built-in parametric scene or a
// .mech/.trep/.urdf/MJCF model file), steps it with the variational integrator and writes per-step
// metrics and body poses as CSV; checks and converts model files.
//
// Exit codes: 0 success; 1 bad input (one line "mechstudio-cli: error: <reason>" on stderr);
// 2 solver failure (every computed row is flushed first); 3 internal error; 130 interrupted.
//
// One file per command under app/cli/ (cmd_NAME.cpp, as git's builtin/*.c), helpers shared by them in
// cli/cli_common.h; this file holds the command table, the --help text built from it, and main().
// Adding a command: a new cli/cmd_NAME.cpp with its run function, one row in kCommands, one line in
// app/CMakeLists.txt.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "core/check.h"

#ifndef MECHSTUDIO_VERSION
#define MECHSTUDIO_VERSION "unknown"
#endif

namespace cli {

namespace {

// A command: its name, its entry point, its usage after the program name (continuation lines
// indented), its summary under "Commands:" (continuation lines indented to column 15), and the
// printer of its "Options of NAME:" section of --help (null: none). In the order --help lists them.
struct Command {
  const char* name;
  int (*run)(const Args& args);
  const char* usage;
  const char* summary;
  void (*options)(std::FILE* f);
};

const Command kCommands[] = {
    {"simulate", runSimulate, "simulate (scene:NAME | FILE) (--duration S | --steps N) [OPTION]...",
     "step a mechanism (the variational integrator unless --integrator)", printSimulateOptions},
    {"check", runCheck, "check FILE [--set key=value]... [--package-path DIR]... [--no-ground] [--self-collision on|off]",
     "read and compile a model file, print its diagnostics (exit 1 on errors)", nullptr},
    {"signals", runSignals, "signals (scene:NAME | FILE) [--set key=value]... [--degrees] [--package-path DIR]...\n"
     "           [--no-ground] [--self-collision on|off]",
     "list the signals of a model (joint coordinates and reactions, bodies,\n"
     "               contacts, system totals) with their units",
     nullptr},
    {"convert", runConvert, "convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf [--set key=value]...\n"
     "           [--package-path DIR]... [--no-ground] [--self-collision on|off]",
     "write a model file or a scene as .mech, URDF (.urdf, trees only) or MJCF\n"
     "               (.xml or .mjcf), chosen by the output's extension; MJCF of a tree\n"
     "               nested deeper than 90 bodies as files joined by <include>",
     nullptr},
    {"assemble", runAssemble, "assemble FILE.mech -o OUT.mech [--hold BODY]... [--set key=value]...",
     "close every loop of a model and write it with each joint's position and\n"
     "               velocity as the engine's projected state at t = 0 has them;\n"
     "               --hold keeps a body where its written values put it",
     nullptr},
    {"sweep", runSweep,
     "sweep (scene:NAME | FILE) --grid KEY=FROM:TO:COUNT... (--duration S | --steps N) --csv OUT\n"
     "           [--workers N] [--scheduler ADDR] [--metric AGG(QUANTITY)]...",
     "run one rollout per parameter set on Dask (a local cluster of --workers\n"
     "               processes, or the scheduler at --scheduler) and write one CSV row per\n"
     "               rollout (python3 -m mechstudio sweep; docs/scale-out.md)",
     nullptr},
    {"scenes", runScenes, "scenes", "list the built-in scenes, their parameters and defaults", nullptr},
    {"lesson", runLesson, "lesson (N | ID | FILE.experiment) [--duration S] [--csv FILE] [--quiet]",
     "run a teaching preset or an experiment file: one model, several\n"
     "               integrators in lockstep, and a summary of the quantity it is about\n"
     "               (constraint drift, energy, ...)",
     printLessonOptions},
    {"lessons", runLessons, "lessons", "list the lessons", nullptr},
};

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
  std::string names;
  for (const Command& c : kCommands) {
    if (cmd == c.name) return c.run(rest);
    names += std::string(names.empty() ? "" : ", ") + c.name;
  }
  if (!cmd.empty() && cmd[0] == '-') throw InputError{"unknown option '" + cmd + "' (see --help)"};
  throw InputError{"unknown command '" + cmd + "' (commands: " + names + "; see --help)"};
}

}  // namespace

// Usage lines and command summaries from the table, then each command's options, then exit codes.
void printUsage(std::FILE* f) {
  bool first = true;
  for (const Command& c : kCommands) {
    std::fprintf(f, "%s %s %s\n", first ? "Usage:" : "  or: ", kProg, c.usage);
    first = false;
  }
  std::fprintf(f, "  or:  %s --help | --version\n\nCommands:\n", kProg);
  for (const Command& c : kCommands) std::fprintf(f, "  %-12s %s\n", c.name, c.summary);
  for (const Command& c : kCommands)
    if (c.options) {
      std::fprintf(f, "\nOptions of %s:\n", c.name);
      c.options(f);
    }
  std::fprintf(f,
               "\n"
               "Exit status:\n"
               "  0    success\n"
               "  1    bad input\n"
               "  2    solver failure (rows so far are written)\n"
               "  3    internal error\n"
               "  130  interrupted\n");
}

}  // namespace cli

int main(int argc, char** argv) {
  using namespace cli;
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
