// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf: writes a model file or a scene
// as .mech, URDF or MJCF, chosen by the output's extension.
#include <filesystem>

#include "cli/cli_common.h"
#include "io/mech_writer.h"
#include "io/mjcf_writer.h"
#include "io/model_file.h"
#include "io/urdf_writer.h"

namespace cli {

// convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf: import and write as MechStudio text, URDF or MJCF,
// chosen by the output's extension (atomically: temp file + rename; nothing is written when the
// model cannot be expressed in the output format).
int runConvert(const std::vector<std::string>& args) {
  std::string in, out;
  std::map<std::string, std::string> params;
  ms::ModelLoadOptions load;
  for (size_t i = 0; i < args.size(); ++i) {
    if (takeLoadOption(args, i, load)) {
      // --package-path, --no-ground, --self-collision
    } else if (takeSetOption(args, i, params)) {
      // a scene or .mech parameter (its value is written into the output)
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
  if (in.empty() || out.empty()) throw InputError{"usage: convert FILE -o OUT.mech|OUT.urdf|OUT.xml|OUT.mjcf [--set key=value]..."};
  const std::string format = ms::modelFileExtension(out);
  if (format != ".mech" && format != ".urdf" && format != ".xml" && format != ".mjcf")
    throw InputError{"the output '" + out + "' must be a .mech file, a .urdf file or an .xml or .mjcf file (MJCF)"};
  ms::Model model;
  ms::Diagnostics diags;
  const bool ok = readModel(in, params, model, diags, load);
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
    // A tree nested deeper than MuJoCo's XML reader reads (tinyxml2: 100 elements) as files joined
    // by <include>s beside the output, written before the file that includes them.
    const std::vector<ms::MjcfFile> files = ms::splitMjcfByNesting(text, std::filesystem::path(out).filename().string());
    if (files.size() > 1) {
      const std::filesystem::path dir = std::filesystem::path(out).parent_path();
      for (size_t k = files.size(); k-- > 1;) writeFileAtomically((dir / files[k].name).string(), files[k].text);
      ms::Diagnostics noteDiags;
      noteDiags.add(ms::Severity::Note, out, 0, 0,
                    "the bodies nest " + std::to_string(ms::mjcfBodyNesting(model)) + " deep: written as " +
                        std::to_string(files.size()) + " files joined by <include> (" + files[1].name +
                        ", ...), as MuJoCo's XML reader (tinyxml2) reads elements nested 100 deep at most");
      printDiagnostics(noteDiags);
      text = files[0].text;
    }
  }
  writeFileAtomically(out, text);
  return kExitOk;
}

}  // namespace cli
