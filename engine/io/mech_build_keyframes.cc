// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's keyframes: (keyframe …) forms, and the check once every body is known that each
// names every body of the model once.
#include "io/mech_reader_internal.h"

#include <cmath>

namespace ms::mechread {

namespace {

// A keyframe's orientation may differ from a unit quaternion by this much in norm (then normalised).
constexpr double kKeyframeUnitTolerance = 1e-6;

}  // namespace

// (keyframe NAME (body BODY (position x y z) (orientation w x y z) (velocity vx vy vz)
// (angular-velocity wx wy wz))…): a saved state. Body names are checked against the model once every
// body is known (resolveKeyframes). SourceMap: the form, the name, and per body (keyed by its name)
// the (body …) entry with its name token as values[0].
void Reader::readKeyframe(const Node& n) {
  KeyframeDesc k;
  ElementSource src;
  src.form = ref(n);
  size_t i = 1;
  if (!readName(n, i, k.name, src.name, "a name, e.g. (keyframe start (body b (position 0 0 0) ...))")) return;
  const std::string owner = "keyframe '" + k.name + "'";
  static const std::vector<std::string> items = {"position", "orientation", "velocity", "angular-velocity"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head() != "body") {
      error(c.isList() && !c.children.empty() ? c.children[0] : c,
            owner + ": expected (body NAME (position ...) (orientation ...) (velocity ...) (angular-velocity ...)), got " +
                sexpr::describeNode(c));
      continue;
    }
    size_t j = 1;
    KeyframeBody b;
    SourceRef bodyRef;
    if (!readName(c, j, b.body, bodyRef, "a body name")) continue;
    if (src.properties.count(b.body)) {
      error(bodyRef, owner + " gives body '" + b.body + "' twice (first at " + at(src.properties[b.body].values[0]) + ")");
      continue;
    }
    PropertySource& ps = src.properties[b.body];
    ps.form = ref(c);
    ps.values = {bodyRef};
    std::map<std::string, SourceRef> seen;
    bool ok = true;
    for (; j < c.children.size(); ++j) {
      const Node& p = c.children[j];
      if (!p.isList() || p.head().empty()) {
        error(p, "expected (position ...), (orientation ...), (velocity ...) or (angular-velocity ...), got " + sexpr::describeNode(p));
        ok = false;
        continue;
      }
      const std::string& h = p.head();
      if (!contains(items, h)) {
        error(p.children[0], "unknown keyframe property '" + h + "'" + suggestion(h, items));
        ok = false;
        continue;
      }
      if (duplicate(seen, h, p, "body '" + b.body + "' of " + owner)) {
        ok = false;
        continue;
      }
      if (h == "orientation") {
        std::vector<double> q;
        if (!numbers(p, 1, 4, 4, q, &src.entries[b.body][h])) {
          ok = false;
          continue;
        }
        const Vec4 qv(q[0], q[1], q[2], q[3]);
        const double norm = qv.norm();
        if (!(std::abs(norm - 1.0) <= kKeyframeUnitTolerance)) {
          error(p.children[0], "the orientation of body '" + b.body + "' in " + owner + " is not a unit quaternion (norm " +
                                   approx(norm) + "; it must be 1 within 1e-6)");
          ok = false;
          continue;
        }
        // Normalised, unless unit to rounding already (so that written keyframes read back exactly).
        b.orientation = std::abs(norm - 1.0) <= 1e-14 ? qv : Vec4(qv / norm);
        continue;
      }
      Vec3 x;
      if (!vec3(p, x, &src.entries[b.body][h])) {
        ok = false;
        continue;
      }
      (h == "position" ? b.position : h == "velocity" ? b.velocity : b.angularVelocity) = x;
    }
    for (const std::string& item : items)
      if (ok && !seen.count(item)) {
        error(c.children[0], "body '" + b.body + "' of " + owner + " has no (" + item + " ...)");
        ok = false;
      }
    if (ok) k.bodies.push_back(b);
  }
  define(keyframes_, "keyframe", k.name, int(model_.keyframes.size()), src.name);
  model_.keyframes.push_back(std::move(k));
  map_.keyframes.push_back(std::move(src));
}

// Every keyframe names each body of the model once (after (order …): bodies in their final order).
void Reader::resolveKeyframes() {
  std::vector<std::string> bodyNames;
  for (const BodyDesc& b : model_.bodies) bodyNames.push_back(b.name);
  for (size_t k = 0; k < model_.keyframes.size(); ++k) {
    KeyframeDesc& kf = model_.keyframes[k];
    const ElementSource& src = map_.keyframes[k];
    const std::string owner = "keyframe '" + kf.name + "'";
    for (const auto& [name, ps] : src.properties)
      if (model_.bodyIndex(name) < 0)
        error(ps.values[0], owner + " names body '" + name + "' that the model does not have" + suggestion(name, bodyNames));
    std::vector<std::string> missing;
    for (const BodyDesc& b : model_.bodies)
      if (!b.name.empty() && !src.properties.count(b.name)) missing.push_back(b.name);
    if (!missing.empty()) {
      std::string list;
      const size_t shown = std::min<size_t>(missing.size(), 5);
      for (size_t m = 0; m < shown; ++m) list += std::string(m == 0 ? "" : m + 1 == shown && shown == missing.size() ? " and " : ", ") + "'" + missing[m] + "'";
      if (missing.size() > shown) list += " and " + std::to_string(missing.size() - shown) + " more";
      error(src.name, owner + " has no state for bod" + std::string(missing.size() == 1 ? "y " : "ies ") + list);
    }
    std::stable_sort(kf.bodies.begin(), kf.bodies.end(), [&](const KeyframeBody& a, const KeyframeBody& b) {
      return unsigned(model_.bodyIndex(a.body)) < unsigned(model_.bodyIndex(b.body));
    });
  }
}

}  // namespace ms::mechread
