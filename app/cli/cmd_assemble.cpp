// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli assemble FILE.mech -o OUT.mech [--set key=value]...: closes every loop and writes
// the model with each joint's position and velocity read back from the projected state
// (system/assemble.h), so that the written numbers are the state the engine starts from.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli_common.h"
#include "core/check.h"
#include "io/mech_assemble.h"
#include "io/model_file.h"

namespace cli {

// A number list for the summary: "0.4" or "(0.1 0.2 0.3)".
std::string numbers(const std::vector<double>& v) {
  std::string s;
  char b[32];
  for (double x : v) {
    std::snprintf(b, sizeof b, "%.6g", x);
    s += (s.empty() ? "" : " ") + std::string(b);
  }
  return v.size() == 1 ? s : "(" + s + ")";
}

int runAssemble(const std::vector<std::string>& args) {
  std::string in, out;
  std::map<std::string, std::string> params;
  std::vector<std::string> hold;
  for (size_t i = 0; i < args.size(); ++i) {
    if (takeSetOption(args, i, params)) {
      // --set key=value
    } else if (args[i] == "--hold") {
      if (i + 1 >= args.size()) throw InputError{"option --hold needs a body name"};
      hold.push_back(args[++i]);
    } else if (args[i] == "-o" || args[i] == "--output") {
      if (i + 1 >= args.size()) throw InputError{"option -o needs a file name"};
      if (!out.empty()) throw InputError{"option -o given more than once"};
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw InputError{"unknown option '" + args[i] + "' for assemble"};
    } else {
      if (!in.empty()) throw InputError{"assemble takes one input file"};
      in = args[i];
    }
  }
  if (in.empty() || out.empty()) throw InputError{"usage: assemble FILE.mech -o OUT.mech [--hold BODY]... [--set key=value]..."};
  if (ms::modelFileExtension(in) != ".mech" || ms::modelFileExtension(out) != ".mech")
    throw InputError{"assemble reads and writes .mech files (for an MJCF or URDF model: convert FILE -o OUT.mech first)"};
  std::ifstream f(in, std::ios::binary);
  if (!f) throw InputError{"cannot read '" + in + "'"};
  std::stringstream buf;
  buf << f.rdbuf();
  ms::Diagnostics diags;
  const ms::sexpr::Document doc = ms::sexpr::Document::parse(buf.str(), in, diags);
  ms::MechParseResult parse;
  const bool ok = !diags.hasErrors() && ms::readMech(doc, params, parse, diags);
  printDiagnostics(diags);
  if (!ok) throw InputError{"'" + in + "' has " + std::to_string(diags.errorCount()) + " error(s); nothing written"};

  const ms::MechAssembly a = ms::assembleMech(doc, parse, params, hold);
  if (!a.ok) throw InputError{"'" + in + "': " + oneLine(a.error) + "; nothing written"};
  writeFileAtomically(out, a.doc.text());
  // What moved, joint by joint.
  for (const ms::AssembledJoint& j : a.changed)
    std::fprintf(stderr, "%s: joint '%s': position %s -> %s, velocity %s -> %s\n", kProg, j.name.c_str(),
                 numbers(j.positionBefore).c_str(), numbers(j.position).c_str(), numbers(j.velocityBefore).c_str(),
                 numbers(j.velocity).c_str());
  std::fprintf(stderr, "%s: assembled '%s': %zu joint(s) rewritten; the written positions are the engine's projected state "
               "at t = 0 within %.2g; wrote '%s'\n", kProg, in.c_str(), a.changed.size(), a.check, out.c_str());
  return kExitOk;
}

}  // namespace cli
