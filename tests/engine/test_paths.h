// SPDX-License-Identifier: GPL-3.0-or-later
// Paths of files in the source tree for the engine tests, found from this header's location
// (tests/engine): the model gallery models/ and the test data tests/data/.
#pragma once

#include <string>

namespace ms::test {

inline std::string sourceDir() {
  std::string here = __FILE__;
  here = here.substr(0, here.find_last_of('/'));
  return here + "/../..";
}
// A file of the gallery, e.g. modelPath("scissor-lift.trep").
inline std::string modelPath(const std::string& file) { return sourceDir() + "/models/" + file; }

}  // namespace ms::test
