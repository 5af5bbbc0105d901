// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli sweep: hands a parameter sweep to the Python runner (python3 -m mechstudio sweep).
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "cli/cli_common.h"

namespace cli {

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

}  // namespace cli
