// SPDX-License-Identifier: GPL-3.0-or-later
// Parametric scenes, defined once and shared by the CLI, the GUI, the tests and the benchmarks.
// Definitions follow Brüdigam et al. 2023 §5 so that figures compare with the peers measured here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/model.h"

namespace ms {

struct SceneParameter {
  std::string name;
  std::string defaultValue;
  std::string description;
};

struct SceneInfo {
  std::string name;
  std::string description;
  std::vector<SceneParameter> parameters;
};

// All built-in scenes, in display order.
const std::vector<SceneInfo>& sceneCatalog();

// Builds scene `name` with `params` (unset parameters take their defaults). Throws UserError for an
// unknown scene, an unknown parameter or a value that does not parse or is out of range.
Model buildScene(const std::string& name, const std::map<std::string, std::string>& params = {});

}  // namespace ms
