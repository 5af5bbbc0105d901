// SPDX-License-Identifier: GPL-3.0-or-later
// Moving a body with the mouse (issue 34): the handles a selected body shows in the 3D view and the
// text edit a drag on one of them makes. Everything is read from the parsed .mech text, compiled, at
// its initial state (loops closed as the engine closes them), so a drag edits what the engine
// starts from:
// - a body with a joint moves along the joint's own freedom: an arrow per free translation
//   (world direction R_a·R_off·C_Tᵀ e_r, Appendix B) and a ring per free rotation (about the axis
//   V3, or the joint frame's three axes for a rotation vector), all through the joint's point; the
//   drag writes the joint's (position …) — the coordinates read back from the moved pose
//   (system/assemble.h), so nothing else changes;
// - with the anchor modifier, three arrows along the parent frame's axes (the world's for a joint to
//   the world) move the joint's point: the drag writes its (parent-anchor …), and the body with its
//   subtree moves along;
// - with the body modifier, three arrows along the body's own axes move the body on its joint (the
//   joint's point stays where it is in the parent): the drag writes the joint's (child-anchor …);
// - a body without a joint (a free body) moves its initial pose: arrows and rings along and about
//   the world axes through its centre of mass, written as its (position …) and (rotation …);
// - Axis: two rings about the directions across the joint's axis, through the joint's point, tilt
//   the axis: the drag writes the joint's (axis …) (the body's pose at its coordinates follows); an
//   arrow along the axis is drawn with them (`shown`: not dragged);
// - Resize: arrows on the first shape of the body (a box's three faces, a sphere's radius, a
//   cylinder's or capsule's radius and end) change its size numbers, about the shape's centre.
// A value written as an expression or a parameter is not replaced: the edit is refused with the
// reason (mech_edit.h setBodyValues / setJointValues).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "core/types.h"
#include "io/mech_edit.h"

namespace ms {

enum class DragMode {
  Joint,   // along the body's joint (its pose when it has none)
  Anchor,  // the joint's parent anchor
  Body,    // the body on its joint: the joint's child anchor
  Axis,    // the joint's axis, tilted
  Resize,  // the sizes of the body's first shape
};

struct DragHandle {
  bool rotate = false;                  // a ring about `direction` through `origin`; else an arrow along it
  Vec3 origin = Vec3::Zero();           // world, at the model's initial state
  Vec3 direction = Vec3::UnitX();       // world, unit
  std::string label;                    // what a drag changes: "joint 'crank-shaft' angle", …
  // The written number the drag changes (by gain × the distance, m or rad) — an anchor's or a free
  // body's coordinate, a joint's translation or angle — so a view can snap the result; NaN when the
  // drag changes several at once (a rotation vector, a free body's orientation).
  double value = std::numeric_limits<double>::quiet_NaN();
  // The written limits of that number (a revolute's angle, a prismatic's position); ±∞ where none.
  double lower = -std::numeric_limits<double>::infinity(), upper = std::numeric_limits<double>::infinity();
  // Rings: a unit direction (world) in the ring's plane that turns with the body — towards its centre
  // of mass, or along its frame axis most across the ring's axis when that lies on it — so the range
  // [lower, upper] can be drawn as the arc from `value` back and forth.
  Vec3 reference = Vec3::Zero();
  // The written number changes by `gain` × the distance dragged: 2 for a box side or a cylinder's
  // length (Resize; they grow at both ends), −1 for a child anchor (the body moves, the point in it
  // the other way), else 1. Resize: which size of the shape it is.
  double gain = 1;
  int size = -1;
  // Drawn only, never dragged: the axis arrow of the Axis set, which turns with its rings' drag.
  bool shown = false;
};

struct DragHandles {
  DragMode mode = DragMode::Joint;
  int body = -1;
  int joint = -1;                       // the body's joint (-1: a free body, whose pose is edited)
  std::vector<DragHandle> handles;      // empty: see `refusal`
  std::vector<int> moving;              // the bodies a drag moves rigidly: the body and its subtree
  std::string refusal;                  // why the body has no handles in this mode ("" when it has)
};

// The handles of body `body` (an index of parse.model.bodies) in `mode`.
DragHandles dragHandles(const MechParseResult& parse, int body, DragMode mode);
// All three sets with one compile of the model (a view selecting a body asks for them all).
struct DragHandleSets {
  DragHandles joint, anchor, body, axis, resize;
  const DragHandles& of(DragMode mode) const {
    switch (mode) {
      case DragMode::Joint: return joint;
      case DragMode::Anchor: return anchor;
      case DragMode::Body: return body;
      case DragMode::Axis: return axis;
      case DragMode::Resize: break;
    }
    return resize;
  }
};
DragHandleSets dragHandleSets(const MechParseResult& parse, int body);

// The edit a drag of handle `handle` of `handles` makes, `amount` the change of its written number
// (the distance dragged × gain: m along an arrow, rad about a ring, counter-clockwise looking
// against the direction): one form of the body's or joint's text
// replaced (or added). Refused (ok false, error says why) when the value is an expression, the
// element is generated, or the model does not compile.
MechEdit dragEdit(const sexpr::Document& doc, const MechParseResult& parse, const DragHandles& handles, int handle,
                  double amount);

}  // namespace ms
