// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli scenes: lists the built-in scenes, their parameters and defaults.
#include <algorithm>

#include "cli/cli_common.h"
#include "scenes/scenes.h"

namespace cli {

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

}  // namespace cli
