// SPDX-License-Identifier: GPL-3.0-or-later
// assembleMech (mech_assemble.h): compile (which projects the initial pose and throws naming the
// worst joint when a loop cannot close), read the coordinates back (jointCoordinates), rewrite the
// joints that moved (setJointCoordinates), then read the result back and check it.
#include "io/mech_assemble.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "io/mech_edit.h"
#include "model/joint_kinds.h"
#include "system/assemble.h"
#include "system/compiled_system.h"
#include "system/initial_conditions.h"

namespace ms {

const char* const kAssembledNote =
    "; Joint positions and velocities written by Assemble: every loop closes at them, and the\n"
    "; velocities are the continuous ones at t = 0 (the same for any time step).\n";

namespace {

// A coordinate moved when it changed by more than this, relative to 1 m or rad (rates to 1 m/s or
// rad/s: the initial velocities are central differences of projected poses, exact to ~1e-11).
constexpr double kPositionChanged = 1e-12, kVelocityChanged = 1e-9;

bool differs(const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= tolerance * std::max(1.0, std::abs(b[i])))) return true;
  return false;
}

MechAssembly failed(const sexpr::Document& doc, const std::string& why) {
  MechAssembly a;
  a.doc = doc;
  a.error = why;
  return a;
}

// The projected coordinates of a parsed model (throws UserError when a loop cannot close).
std::vector<JointCoordinates> projected(const Model& model, const std::vector<int>& held = {}) {
  const auto sys = compile(model);
  return jointCoordinates(*sys, makeInitialState(*sys, sys->model, held));
}

}  // namespace

MechAssembly assembleMech(const sexpr::Document& doc, const MechParseResult& parse,
                          const std::map<std::string, std::string>& params, const std::vector<std::string>& hold) {
  std::vector<int> held;
  for (const std::string& name : hold) {
    const int b = parse.model.bodyIndex(name);
    if (b < 0) return failed(doc, "cannot hold '" + name + "' in place: there is no body of that name");
    held.push_back(b);
  }
  std::vector<JointCoordinates> coords;
  try {
    coords = projected(parse.model, held);
  } catch (const UserError& e) {
    // Held bodies may be where no closed loop can reach: say so, with what to try.
    std::string why = e.what();
    if (!hold.empty()) {
      why += " — holding";
      for (size_t i = 0; i < hold.size(); ++i) why += (i ? ", '" : " '") + hold[i] + "'";
      why += " where the written values put it: the loops may not close with it there (hold another body, or none)";
    }
    return failed(doc, why);
  }
  MechAssembly a;
  a.doc = doc;
  MechParseResult current = parse;
  for (size_t k = 0; k < coords.size(); ++k) {
    const JointDesc& j = current.model.joints[k];
    const size_t n = coords[k].position.size();
    if (n == 0) continue;
    AssembledJoint c;
    c.name = j.name;
    c.positionBefore = expandedCoordinates(j.initialPosition, n);
    c.velocityBefore = expandedCoordinates(j.initialVelocity, n);
    c.position = coords[k].position;
    c.velocity = coords[k].velocity;
    const bool movePos = differs(c.position, c.positionBefore, kPositionChanged);
    const bool moveVel = differs(c.velocity, c.velocityBefore, kVelocityChanged);
    if (!movePos && !moveVel) continue;
    const MechEdit e = setJointCoordinates(a.doc, current, int(k), movePos ? &c.position : nullptr, moveVel ? &c.velocity : nullptr);
    if (!e.ok) return failed(doc, "cannot write joint '" + j.name + "': " + e.error);
    a.doc = e.doc;
    // The spans of the edited text for the next joint.
    Diagnostics d;
    if (!readMech(a.doc, params, current, d)) return failed(doc, "the assembled text does not read back: " + d.format());
    a.changed.push_back(c);
  }
  if (!a.changed.empty() && a.doc.text().find(kAssembledNote) == std::string::npos) {
    // The note on the lines before the (mechanism …) form.
    std::string text = a.doc.text();
    size_t line = current.map.mechanism.form.begin;
    while (line > 0 && text[line - 1] != '\n') --line;
    text.insert(line, kAssembledNote);
    Diagnostics d;
    a.doc = sexpr::Document::parse(std::move(text), doc.fileName(), d);
    if (d.hasErrors() || !readMech(a.doc, params, current, d)) return failed(doc, "the assembled text does not read back: " + d.format());
  }
  // Check: the result's own projection gives the coordinates it says.
  try {
    const std::vector<JointCoordinates> again = projected(current.model);
    for (size_t k = 0; k < again.size(); ++k) {
      const std::vector<double> pos = expandedCoordinates(current.model.joints[k].initialPosition, again[k].position.size());
      for (size_t i = 0; i < pos.size(); ++i) a.check = std::max(a.check, std::abs(again[k].position[i] - pos[i]));
    }
  } catch (const UserError& e) {
    return failed(doc, std::string("the assembled model does not compile: ") + e.what());
  }
  a.ok = true;
  return a;
}

}  // namespace ms
