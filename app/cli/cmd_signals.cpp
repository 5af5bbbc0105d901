// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli signals (scene:NAME | FILE) [--set key=value]... [--degrees]: lists the signals of a
// model with their units, one line each.
#include "cli/cli_common.h"
#include "signals/signals.h"
#include "system/compiled_system.h"

namespace cli {

// signals (scene:NAME | FILE) [--set k=v]... [--degrees]: one line per signal, "name [unit]".
int runSignals(const std::vector<std::string>& args) {
  SimulateOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (takeSetOption(args, i, o.params)) {
      // a scene or .mech parameter
    } else if (a == "--degrees") {
      o.degrees = true;
    } else if (takeLoadOption(args, i, o.load)) {
      // --package-path, --no-ground, --self-collision
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

}  // namespace cli
