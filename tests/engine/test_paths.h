// SPDX-License-Identifier: GPL-3.0-or-later
// Paths of files in the source tree for the engine tests, found from this header's location
// (tests/engine): the model gallery models/ and the test data tests/data/.
#pragma once

#include <map>
#include <string>

#include "io/model_file.h"

namespace ms::test {

inline std::string sourceDir() {
  std::string here = __FILE__;
  here = here.substr(0, here.find_last_of('/'));
  return here + "/../..";
}
// A file of the gallery, e.g. modelPath("scissor-lift.trep").
inline std::string modelPath(const std::string& file) { return sourceDir() + "/models/" + file; }
// Loads a gallery file with parameter overrides; on failure `failure` holds the diagnostics.
inline bool loadGallery(const std::string& file, const std::map<std::string, std::string>& params, Model& model,
                        std::string& failure) {
  Diagnostics d;
  if (loadModel(modelPath(file), params, model, d)) return true;
  failure = d.format();
  return false;
}

}  // namespace ms::test
