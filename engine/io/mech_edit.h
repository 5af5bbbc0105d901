// SPDX-License-Identifier: GPL-3.0-or-later
// Structure edits of a .mech document, for the model editor's tree (issue 6): add a child body with
// its joint, add a loop joint between two bodies, delete a body (with what refers to it), rename a
// body or joint (references follow), move a body under another parent. Each is a text edit of the
// document: every byte outside the edited spans stays as it was (comments, layout), and the result
// is re-parsed. They work on the parse of the same text (`MechParseResult`, whose SourceMap gives
// the spans) and refuse elements made by repeat/chain (their spans are a shared template).
// Keyframes follow the bodies: a renamed body is renamed in them, a deleted one leaves them, a
// duplicated one starts where its original is, a new child body where its joint puts it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/mech_reader.h"
#include "io/sexpr.h"
#include "model/joint_kinds.h"

namespace ms {

struct MechEdit {
  bool ok = false;
  std::string error;     // why the edit was refused (ok = false; the document is unchanged)
  sexpr::Document doc;   // the edited document (a copy of the input when refused)
};

// (body NAME (mass 1) (shape box 0.1 0.1 0.1) (joint TYPE NAME-joint (axis 1 0 0) (parent-anchor 0 0 0)
// (child-anchor 0 0 0.5) (position 0))) as the last item of body `parent`'s form (-1: of the
// mechanism, joined to the world); (position 0) only for a joint that moves.
MechEdit addChildBody(const sexpr::Document& doc, const MechParseResult& parse, int parent, const std::string& name,
                      JointType joint);
// (loop-joint NAME TYPE A B (axis 1 0 0)) as the last item of the mechanism (A = -1: the world).
MechEdit addLoopJoint(const sexpr::Document& doc, const MechParseResult& parse, const std::string& name,
                      JointType joint, int bodyA, int bodyB);
// Deletes body `body`'s form (with the bodies nested in it) and every form that refers to a deleted
// body or joint: loop joints, springs, contact pairs, wrenches, tendons (and the actuators on them),
// couplings, actuators, PD controllers, and its names in an (order …) form.
MechEdit deleteBody(const sexpr::Document& doc, const MechParseResult& parse, int body);
// Renames a body or a joint and every reference to it.
MechEdit renameBody(const sexpr::Document& doc, const MechParseResult& parse, int body, const std::string& name);
MechEdit renameJoint(const sexpr::Document& doc, const MechParseResult& parse, int joint, const std::string& name);
// Copies body `body`'s form (with its joint and nested bodies) right after it, in the same parent;
// every body and joint name in the copy gets the suffix "-copy" (or "-copy2", … when taken).
MechEdit duplicateBody(const sexpr::Document& doc, const MechParseResult& parse, int body);
// Moves body `body`'s form (with its joint and nested bodies) into body `parent` (-1: the top level,
// joined to the world); its joint's anchors stay as written, now relative to the new parent.
MechEdit moveBody(const sexpr::Document& doc, const MechParseResult& parse, int body, int parent);
// Writes `keyframe` as a (keyframe NAME …) form (mech_writer's keyframeText): in place of the form of
// the keyframe of that name when there is one, else as the last item of the mechanism.
MechEdit setKeyframe(const sexpr::Document& doc, const MechParseResult& parse, const KeyframeDesc& keyframe);
// Writes joint `joint`'s coordinates (Assemble): its (position …) and (velocity …) forms replaced by
// (position v1 v2 …) / (velocity …) with the numbers in shortest round-trip form, or added as its
// last items when it has none; a null vector leaves that form as it is.
MechEdit setJointCoordinates(const sexpr::Document& doc, const MechParseResult& parse, int joint,
                             const std::vector<double>* position, const std::vector<double>* velocity);
// Writes (KEYWORD v1 v2 …) into body `body`'s or joint `joint`'s form — e.g. a body's (position …),
// a joint's (position …) or (parent-anchor …), as a drag in the 3D view sets them (io/mech_drag.h):
// in place of its (KEYWORD …) form, else as a new item right after the element's name. Refused when
// that form holds an expression or a parameter (the message quotes it), or the element is made by
// repeat/chain.
MechEdit setBodyValues(const sexpr::Document& doc, const MechParseResult& parse, int body, const std::string& keyword,
                       const std::vector<double>& values);
MechEdit setJointValues(const sexpr::Document& doc, const MechParseResult& parse, int joint, const std::string& keyword,
                        const std::vector<double>& values);
// The same for shape `shape` of body `body` — its distinct (shape …)/(visual …)/(collision …) forms
// counted from 0, drawn ones first, each form once (as the property panel lists them): an absent form
// goes inside the shape's form, after its last item on the same line.
MechEdit setShapeValues(const sexpr::Document& doc, const MechParseResult& parse, int body, int shape, const std::string& keyword,
                        const std::vector<double>& values);
// A number to write without the rounding noise of the arithmetic that made it: 12 significant digits
// (-0.2 + 0.05 is written -0.15, not -0.15000000000000002), far below what a mouse gesture resolves.
double tidyNumber(double v);

// Building in the 3D view (issue 34). `stem` followed by the first number that names no body or
// joint yet ("box1", "box2", …).
std::string freeBodyName(const Model& model, const std::string& stem);
// Adds body `name` (mass 1, shape `shape`: box, sphere, capsule, cylinder, or a mesh whose file and
// scale are written and whose meshVertices (scaled, read by the caller) place it) where a click put it,
// at world point `point` on a surface with outward normal `normal` of body `parent` (−1: the ground
// or empty space), its centre half its extent out along the normal (resting there):
// - no `joint`: a free body, (position …) at the model's initial state — with a (ground ground)
//   form, the plane z = 0, when the model has no ground and the body was put on it;
// - else jointed to `parent` (−1: the world) by a `joint` joint at that point, its axis the normal
//   (none for a fixed joint), the new body turned as the parent (anchors in the bodies' frames,
//   position 0).
// Keyframes get the body where it starts, moving with its parent.
MechEdit addBodyAt(const sexpr::Document& doc, const MechParseResult& parse, const std::string& name, const ShapeDesc& shape,
                   int parent, std::optional<JointType> joint, const Vec3& point, const Vec3& normal);
// Joins body `a` (−1: the world) at world point `pointA` and body `b` at `pointB` (both at the
// model's initial state) by a joint `name` of type `type` about world direction `axis` (none for a
// fixed joint); b keeps its present orientation: through the joint's angle when it differs from a's
// by a turn about the axis and the joint turns about it (a revolute's (position θ)), else through the
// joint frame's offset. When b is free (no
// joint of its own) and a is not inside it, b's form moves into a's with the joint; otherwise
// (b already hangs on a joint) it is a loop joint, left open where the points differ (Assemble
// closes it). Refused: a body jointed to itself, a name taken.
MechEdit connectBodies(const sexpr::Document& doc, const MechParseResult& parse, const std::string& name, JointType type,
                       int a, const Vec3& pointA, int b, const Vec3& pointB, const Vec3& axis);

}  // namespace ms
