// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli check FILE [--set key=value]...: reads and compiles a model file and prints its
// diagnostics (exit 1 on errors).
#include "cli/cli_common.h"
#include "core/check.h"
#include "system/compiled_system.h"

namespace cli {

// check FILE [--set k=v]...: read and compile, print every diagnostic; exit 1 if any error.
int runCheck(const std::vector<std::string>& args) {
  std::string path;
  std::map<std::string, std::string> params;
  ms::ModelLoadOptions load;
  for (size_t i = 0; i < args.size(); ++i) {
    if (takeLoadOption(args, i, load)) {
      // --package-path, --no-ground, --self-collision
    } else if (takeSetOption(args, i, params)) {
      // a scene or .mech parameter
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
  bool ok = readModel(path, params, model, diags, load);
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

}  // namespace cli
