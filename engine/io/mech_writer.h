// SPDX-License-Identifier: GPL-3.0-or-later
// Writer of the MechStudio model language (.mech; docs/model-language.md) and targeted edits.
//
// writeMech() renders a Model as a readable, commented, nested file: bodies connected from the world
// through joints are written inside their parent body together with that joint; every other joint
// becomes a (loop-joint …). Reading the text back (readMech) gives a Model equal to the original in
// every field (an (order …) form is added when the nesting alone would number bodies or joints
// differently).
#pragma once

#include <string>

#include "core/diagnostics.h"
#include "io/mech_reader.h"
#include "io/sexpr.h"
#include "model/model.h"

namespace ms {

// Bodies nested deeper than this are written at the top level, their joint as a (loop-joint …)
// (keeps every written file well inside sexpr::kMaxNesting).
constexpr int kMaxWrittenNesting = 50;

std::string writeMech(const Model& model);

// The (keyframe NAME (body B (position …) (orientation …) (velocity …) (angular-velocity …))…) form of
// one keyframe, on several lines: the first unindented, the others indented relative to it. Numbers
// are written in the shortest form that reads back to the same double (write → read is exact).
std::string keyframeText(const KeyframeDesc& keyframe);
// One body's entry of it, (body B (position …) (orientation …) (velocity …) (angular-velocity …)).
std::string keyframeBodyText(const KeyframeBody& body);

// Targeted edit: rewrites the one number token `token` (a SourceRef with literal = true, from a
// SourceMap of `doc`) as `value` in shortest round-trip form; every other byte (comments, layout) is
// unchanged. Returns the re-parsed document; on a token that is not a literal number of `doc`, or a
// non-finite value, reports an error and returns an unchanged copy.
sexpr::Document setValue(const sexpr::Document& doc, const SourceRef& token, double value, Diagnostics& diags);
// The same for a number atom of `doc` (e.g. from Document::atoms() or nodeAt()).
sexpr::Document setValue(const sexpr::Document& doc, const sexpr::Node& atom, double value, Diagnostics& diags);

}  // namespace ms
