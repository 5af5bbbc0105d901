// SPDX-License-Identifier: GPL-3.0-or-later
// Reader of the MechStudio model language (.mech; specification: docs/model-language.md).
//
// readMech() turns a parsed s-expression Document into a Model plus a SourceMap that records, for
// every element and every value-bearing property, the span of text it came from (so the editor can
// select the text of a tree node and rewrite exactly one token, see setValue() in mech_writer.h).
// It reports every problem it finds as file:line:column diagnostics and carries on; it never throws,
// never recurses without bound and never expands more than kMaxExpandedNodes nodes.
// compile() (system/compiled_system.h) stays the separate second step with its own messages.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "io/sexpr.h"
#include "model/model.h"

namespace ms {

// Nodes (tokens and lists) that repeat/chain may instantiate in total: each copy costs the size of
// its template, so the work of any file is bounded whatever the template holds. A 10000-link chain
// or 2000 four-link segments (the largest built-in scenes) fit.
constexpr long kMaxExpandedNodes = 1000000;
// Expression nodes evaluated in total (a second bound on the work of pathological files).
constexpr long kMaxEvaluations = 4000000;
// Deepest nesting of an arithmetic expression.
constexpr int kMaxExpressionDepth = 100;

// A span of the source text: [begin, end) bytes, with the line:column of `begin`.
struct SourceRef {
  size_t begin = 0, end = 0;
  int line = 0, column = 0;
  // True when the value came from a single number token that setValue() may rewrite (false for
  // expressions, parameter references and names).
  bool literal = false;
  bool valid() const { return end > begin; }
};

// One property form, e.g. (axis 1 0 0): the whole list and one span per value.
struct PropertySource {
  SourceRef form;
  std::vector<SourceRef> values;
};

// One element (body, joint, shape, spring, controller, wrench, actuator) of the model.
struct ElementSource {
  SourceRef form;  // the whole (body …), (joint …), (loop-joint …), (shape …) … list
  SourceRef name;  // its name token(s), when it has one
  // True for elements produced by repeat/chain: the spans point into the template, which is shared
  // by every copy (editing it changes all copies).
  bool generated = false;
  // Keyed by the property's keyword: "mass", "inertia", "axis", "position", "stiffness", …; also
  // "type", "parent", "child" (loop joints), "joint" (controllers, actuators), "body", "body-a", …
  // For shapes: "size" (the dimensions after the kind), "file", "at", "rotation", "orientation",
  // "color", "scale".
  std::map<std::string, PropertySource> properties;
  // Bodies only: one entry per element of BodyDesc::visuals / collisions (a (shape …) form appears
  // in both lists).
  std::vector<ElementSource> visuals, collisions;
  // Keyframes only: per body name, its (position …), (orientation …), (velocity …) and
  // (angular-velocity …) forms and value spans (the keyframe form of the property panel).
  std::map<std::string, std::map<std::string, PropertySource>> entries;
};

// Where everything in a MechParseResult came from. The vectors run parallel to the Model's.
struct SourceMap {
  // The (mechanism …) form; properties "name", "gravity", "dt", "tolerance", "max-iterations",
  // "line-search".
  ElementSource mechanism;
  std::map<std::string, PropertySource> params;  // (param NAME value): values[0] is the value
  std::vector<ElementSource> bodies, joints, springs, controllers, wrenches, actuators, grounds, contactPairs, exclusions;
  // Parallel to Model::tendons: the (tendon …) form, its name, properties "stiffness", "rest-length",
  // "damping", and "joint" with one value per term (the joint's name).
  std::vector<ElementSource> tendons;
  // Parallel to Model::couplings: the (coupling …) form, its name, properties "joint" and "follows"
  // (values[0]: the joint's name), "multiplier" and "offset".
  std::vector<ElementSource> couplings;
  // Parallel to Model::keyframes: the (keyframe …) form, its name, and per body (keyed by the body's
  // name) the (body NAME …) entry as `form` with its name token as values[0].
  std::vector<ElementSource> keyframes;
};

struct MechParseResult {
  Model model;
  SourceMap map;
  std::map<std::string, double> params;  // final parameter values (after --set overrides)
};

// Reads a parsed document (syntax errors were already reported by Document::parse). `overrides` maps
// parameter names to values from `--set k=v` (a number or an expression such as "(deg 30)"); an
// override naming no parameter is an error. Returns true when no error was reported (warnings
// allowed). `out` is reset first and filled as far as possible even on errors.
// `maxExpandedNodes` lowers the expansion bound (e.g. for a fuzzer); it never exceeds kMaxExpandedNodes.
bool readMech(const sexpr::Document& doc, const std::map<std::string, std::string>& overrides, MechParseResult& out,
              Diagnostics& diags, long maxExpandedNodes = kMaxExpandedNodes);
// Parses `text` (reported as `fileName`) and reads it.
bool readMechText(const std::string& text, const std::string& fileName,
                  const std::map<std::string, std::string>& overrides, MechParseResult& out, Diagnostics& diags,
                  long maxExpandedNodes = kMaxExpandedNodes);
// Loads the file at `path` (an unreadable file is reported) and reads it.
bool readMechFile(const std::string& path, const std::map<std::string, std::string>& overrides, MechParseResult& out,
                  Diagnostics& diags, long maxExpandedNodes = kMaxExpandedNodes);

// Volume of a solid shape (box, sphere, capsule, cylinder, or the convex hull of a collision mesh's
// meshVertices); false for a plane or a mesh without vertices (visual only).
bool shapeVolume(const ShapeDesc& s, double& volume);
// Inertia about the centre of mass of a uniform solid shape of mass `mass`, in the body frame
// (rotated by the shape's orientation; its offset is ignored: the body frame is the centre-of-mass
// frame). A collision mesh gives its convex hull's inertia about the hull's centroid (the centroid's
// offset from the mesh origin is ignored like the offset). False for a plane or a mesh without
// vertices. Box and cylinder use the same expressions as the scenes.
bool shapeInertia(const ShapeDesc& s, double mass, Mat3& inertia);

}  // namespace ms
