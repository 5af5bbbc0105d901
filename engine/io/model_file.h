// SPDX-License-Identifier: GPL-3.0-or-later
// One entry point for every front end (CLI, GUI, tests): a model named by a path (.mech, .trep or
// .urdf, chosen by extension) or by "scene:NAME" (a built-in parametric scene) becomes a Model.
#pragma once

#include <map>
#include <string>

#include "core/diagnostics.h"
#include "model/model.h"

namespace ms {

// Lower-case extension of a path, with the dot ("" if none).
std::string modelFileExtension(const std::string& path);

// True for the extensions loadModel() understands (.mech, .trep, .urdf).
bool isModelFile(const std::string& path);

// Reads `source` into `model`. Every problem goes to `diags` (file:line:column where known):
// unknown file type, unreadable file, syntax and semantic errors, unknown scene or parameter, and
// `params` given for a format without parameters. Returns false when there is any error.
bool loadModel(const std::string& source, const std::map<std::string, std::string>& params, Model& model,
               Diagnostics& diags);

}  // namespace ms
