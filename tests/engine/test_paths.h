// SPDX-License-Identifier: GPL-3.0-or-later
// Paths of files in the source tree for the engine tests: the model gallery models/ and the test
// data tests/data/, under MECHSTUDIO_SOURCE_DIR (set by tests/CMakeLists.txt; not __FILE__, which a
// compiler cache with a base directory makes relative).
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "io/model_file.h"

namespace ms::test {

inline std::string sourceDir() { return MECHSTUDIO_SOURCE_DIR; }
// A file of the gallery, e.g. modelPath("scissor-lift.trep").
inline std::string modelPath(const std::string& file) { return sourceDir() + "/models/" + file; }
// The text of a file of the source tree, e.g. sourceText("tests/data/mech/four-bar-open.mech") ("" if absent).
inline std::string sourceText(const std::string& relative) {
  std::ifstream in(sourceDir() + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
// Loads a gallery file with parameter overrides; on failure `failure` holds the diagnostics.
inline bool loadGallery(const std::string& file, const std::map<std::string, std::string>& params, Model& model,
                        std::string& failure) {
  Diagnostics d;
  if (loadModel(modelPath(file), params, model, d)) return true;
  failure = d.format();
  return false;
}

}  // namespace ms::test
