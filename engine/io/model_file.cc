// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/model_file.h"

#include <cctype>
#include <filesystem>

#include "core/check.h"
#include "io/default_ground.h"
#include "io/mech_reader.h"
#include "io/mjcf_import.h"
#include "io/trep_import.h"
#include "io/urdf_import.h"
#include "scenes/scenes.h"

namespace ms {

std::string modelFileExtension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

bool isModelFile(const std::string& path) {
  const std::string e = modelFileExtension(path);
  return e == ".mech" || e == ".trep" || e == ".urdf" || e == ".xml" || e == ".mjcf";
}

namespace {

// Reads `source` (see loadModel) as its format says, before the options that apply to every format.
bool readModel(const std::string& source, const std::map<std::string, std::string>& params, Model& model,
               Diagnostics& diags, const ModelLoadOptions& options, std::vector<InitialConditionsKeyframe>& keys) {
  // A built-in scene: its builder validates the name and the parameters.
  const std::string prefix = "scene:";
  if (source.compare(0, prefix.size(), prefix) == 0) {
    const std::string name = source.substr(prefix.size());
    if (name.empty()) {
      diags.error(source, 0, 0, "missing scene name after 'scene:'");
      return false;
    }
    try {
      model = buildScene(name, params);
    } catch (const UserError& e) {
      diags.error(source, 0, 0, e.what());
      return false;
    }
    return true;
  }
  // A file: the type comes from the extension; the file must exist.
  const std::string ext = modelFileExtension(source);
  if (!isModelFile(source)) {
    diags.error(source, 0, 0, "unknown model file type '" + ext + "' (expected .mech, .trep, .urdf, .xml or .mjcf, or scene:NAME)");
    return false;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source, ec)) {
    diags.error(source, 0, 0, "cannot open model file");
    return false;
  }
  if (ext == ".mech") {
    MechParseResult r;
    const bool ok = readMechFile(source, params, r, diags);
    model = std::move(r.model);
    return ok;
  }
  if (!params.empty()) {
    diags.error(source, 0, 0, "this file has no parameters (--set applies to .mech files and scenes)");
    return false;
  }
  // MJCF (.mjcf, or .xml whose root is <mujoco>); an .xml whose root is <robot> is URDF.
  if (ext == ".mjcf") return importMjcf(source, model, diags, &keys);
  if (ext == ".xml") {
    std::string text;
    if (!readWholeFile(source, text, diags)) return false;
    const std::string root = xmlRootElementName(text);
    if (root != "robot")
      return importMjcfString(text, source, std::filesystem::path(source).parent_path().string(), model, diags, &keys);
    return importUrdf(source, model, diags, UrdfImportOptions{options.packagePaths});
  }
  if (ext == ".trep") return importTrepFile(source, model, diags);
  // URDF: package:// meshes through the given package roots (and ROS_PACKAGE_PATH).
  return importUrdf(source, model, diags, UrdfImportOptions{options.packagePaths});
}

}  // namespace

bool isUrdfFile(const std::string& path) {
  const std::string ext = modelFileExtension(path);
  if (ext == ".urdf") return true;
  if (ext != ".xml") return false;
  std::string text;
  Diagnostics ignored;
  return readWholeFile(path, text, ignored) && xmlRootElementName(text) == "robot";
}

bool loadModel(const std::string& source, const std::map<std::string, std::string>& params, Model& model,
               Diagnostics& diags, const ModelLoadOptions& options) {
  std::vector<InitialConditionsKeyframe> keys;
  if (!readModel(source, params, model, diags, options, keys)) return false;
  // Keyframes given as initial conditions (MJCF <key>s): the states they give.
  bool ok = true;
  for (const InitialConditionsKeyframe& k : keys) {
    try {
      model.keyframes.push_back(keyframeFromInitialConditions(model, k));
    } catch (const UserError& e) {
      diags.error(k.file, k.line, k.column, "keyframe '" + k.name + "' gives no state of the model: " + e.what());
      ok = false;
    }
  }
  if (!ok) return false;
  // Self-collision as asked (a model of contact-pairs only stays so).
  if (options.selfCollision != ModelLoadOptions::SelfCollision::Default && model.collisions != CollisionMode::Pairs)
    model.collisions = options.selfCollision == ModelLoadOptions::SelfCollision::On ? CollisionMode::All : CollisionMode::NoSelf;
  // A URDF robot with a floating base gets a ground to stand on.
  std::string note;
  if (options.groundUnderFloatingBase && isUrdfFile(source) && addGroundUnderFloatingBase(model, note))
    diags.add(Severity::Note, source, 0, 0, note);
  return true;
}

}  // namespace ms
