// SPDX-License-Identifier: GPL-3.0-or-later
// The editor's check of a model text: the engine's reader (.mech) or trep importer (.trep) with
// their file:line:column diagnostics, then compile() whose UserError messages have no location.
// Pure and thread-safe (no Qt widgets), so it can run wherever the editor needs it.
#pragma once

#include <QString>
#include <map>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "io/mech_reader.h"

namespace ms::ui {

// The language of a buffer, decided by the file's extension (MJCF: .mjcf, and .xml files; an .xml
// URDF is checked as nothing, like a .urdf).
enum class ModelLanguage { Plain, Mech, Trep, Mjcf };
ModelLanguage languageForPath(const QString& path);
// True for the s-expression languages (highlighting, bracket matching and indentation apply).
inline bool isSExpression(ModelLanguage l) { return l == ModelLanguage::Mech || l == ModelLanguage::Trep; }

// Reads and compiles `text` (named `fileName` in the diagnostics). Diagnostics from other files
// (none today) and compile errors come without a location (line 0). Plain text gives none.
// When `parsed` is given, a .mech text's read result (model and source map) is stored there.
// `overrides` are the parameter values the model was opened with (--set k=v), as the loader uses them.
std::vector<Diagnostic> checkModelText(const std::string& text, const std::string& fileName, ModelLanguage language,
                                       MechParseResult* parsed = nullptr,
                                       const std::map<std::string, std::string>& overrides = {});

}  // namespace ms::ui
