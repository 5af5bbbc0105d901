// SPDX-License-Identifier: GPL-3.0-or-later
// Experiment files (.experiment; format: docs/lessons.md, "Experiment files"): a model (a built-in
// scene, a model file or an inline (mechanism …) form, with parameter values), the copies to
// compare (integrator, Δt, tolerance, contact model, Baumgarte gains), the duration, the plots and
// the camera, and the explanation — everything a Lesson (scenes/lessons.h) holds. Written in the
// s-expression syntax of .mech files and parsed by the same parser (io/sexpr.h):
//
//   (experiment "energy"
//     (title "Energy: double pendulum, VI vs Heun")
//     (model scene:double-pendulum (set angle 1.2))
//     (copy "VI" (integrator vi) (dt 0.01))
//     (copy "Heun" (integrator heun) (dt 0.01))
//     (duration 60) (focus energy)
//     (explanation "…") (claim "…") (follow-up "…"))
//
// The reader reports every problem at file:line:column and carries on; it never throws.
// writeExperiment() writes text that reads back into an equal Lesson (operator==).
#pragma once

#include <string>

#include "core/diagnostics.h"
#include "io/sexpr.h"
#include "scenes/lessons.h"

namespace ms {

// True for a path ending in ".experiment" (any case).
bool isExperimentFile(const std::string& path);

// Reads a parsed document (syntax errors were already reported by Document::parse) into `out`
// (reset first; number stays 0, sourceFile is the document's file name). Returns true when no
// error was reported.
bool readExperiment(const sexpr::Document& doc, Lesson& out, Diagnostics& diags);
// Parses `text` (reported as `fileName`) and reads it.
bool readExperimentText(const std::string& text, const std::string& fileName, Lesson& out, Diagnostics& diags);
// Loads the file at `path` (an unreadable file is reported) and reads it.
bool readExperimentFile(const std::string& path, Lesson& out, Diagnostics& diags);
// readExperimentFile, throwing UserError with the errors (errorSummary) when there are any.
Lesson loadExperiment(const std::string& path);

// The text of an experiment file for `l` (number, sourceFile and the inline model's position are
// not written). Long texts are split into several strings, which the reader joins with one space.
std::string writeExperiment(const Lesson& l);

// The errors in `diags`, one per line as "file:line:column: message" (the first 10, then a count).
std::string errorSummary(const Diagnostics& diags);

}  // namespace ms
