// SPDX-License-Identifier: GPL-3.0-or-later
// dragHandles / dragEdit (mech_drag.h): the handles of a body at the compiled model's initial state
// and the text edit of a drag on one of them.
#include "io/mech_drag.h"

#include <cmath>
#include <memory>

#include "core/check.h"
#include "core/quaternion.h"
#include "io/mech_writer.h"
#include "model/joint_kinds.h"
#include "system/assemble.h"
#include "system/compiled_system.h"
#include "system/initial_conditions.h"

namespace ms {

namespace {

constexpr const char* kAxisNames[] = {"x", "y", "z"};

// The compiled model and its initial state (throws UserError when it does not compile or a loop
// cannot close).
struct Compiled {
  std::shared_ptr<const CompiledSystem> sys;
  State state;
};

Compiled compiled(const Model& model) {
  Compiled c;
  c.sys = compile(model);
  c.state = makeInitialState(*c.sys, c.sys->model);
  return c;
}

// The joint whose form is nested in body `body`'s form (its tree joint; loop joints stand apart), -1
// when it has none.
int treeJoint(const MechParseResult& parse, int body) {
  const SourceRef& b = parse.map.bodies[size_t(body)].form;
  for (size_t k = 0; k < parse.model.joints.size(); ++k) {
    const SourceRef& j = parse.map.joints[k].form;
    if (parse.model.joints[k].child == body && b.valid() && j.valid() && j.begin > b.begin && j.end <= b.end) return int(k);
  }
  return -1;
}

// Body `body` and every body below it through tree joints.
std::vector<int> subtree(const MechParseResult& parse, int body) {
  const int nb = int(parse.model.bodies.size());
  std::vector<int> parent(size_t(nb), -1);
  for (int b = 0; b < nb; ++b)
    if (const int k = treeJoint(parse, b); k >= 0) parent[size_t(b)] = parse.model.joints[size_t(k)].parent;
  std::vector<int> out;
  for (int b = 0; b < nb; ++b) {
    int a = b;
    for (int guard = 0; a >= 0 && a != body && guard <= nb; ++guard) a = parent[size_t(a)];
    if (a == body) out.push_back(b);
  }
  return out;
}

// The geometry the joint's coordinates are measured with (the full one when rows were dropped).
const JointGeometry& geometry(const CompiledJoint& j) { return j.hasDroppedRows ? j.full : j.geo; }

// The parent's orientation (the world's: identity) and the joint's point, at `state`.
Mat3 parentRotation(const JointGeometry& g, const State& state) {
  return g.parent >= 0 ? quat::rotation(state.bodies[size_t(g.parent)].q) : Mat3::Identity();
}
// The joint's point on the parent (its anchor) and on the child (apart by its free translations).
Vec3 parentPoint(const JointGeometry& g, const State& state) {
  const Vec3 xa = g.parent >= 0 ? state.bodies[size_t(g.parent)].x : Vec3::Zero();
  return xa + parentRotation(g, state) * g.pa;
}
Vec3 childPoint(const JointGeometry& g, const State& state) {
  const BodyState& b = state.bodies[size_t(g.child)];
  return b.x + quat::rotate(b.q, g.pb);
}

std::vector<double> tidy(std::vector<double> v) {
  for (double& x : v) x = tidyNumber(x);
  return v;
}

// Body state `b` moved by handle `h` by `amount`.
BodyState moved(BodyState b, const DragHandle& h, double amount) {
  if (!h.rotate) {
    b.x += amount * h.direction;
    return b;
  }
  const Vec4 r = quat::fromAxisAngle(h.direction, amount);
  b.x = h.origin + quat::rotate(r, b.x - h.origin);
  b.q = quat::mul(r, b.q);
  return b;
}

DragHandle handle(bool rotate, const Vec3& origin, const Vec3& direction, std::string label,
                  double value = std::numeric_limits<double>::quiet_NaN()) {
  DragHandle h;
  h.rotate = rotate;
  h.origin = origin;
  h.direction = direction.normalized();
  h.label = std::move(label);
  h.value = value;
  return h;
}

}  // namespace

namespace {

// dragHandles for a model compiled already (c null: it did not compile, `why` says why).
DragHandles handlesAt(const MechParseResult& parse, int body, DragMode mode, const Compiled* compiledModel, const std::string& why) {
  DragHandles h;
  h.mode = mode;
  h.body = body;
  if (body < 0 || size_t(body) >= parse.model.bodies.size() || parse.map.bodies.size() != parse.model.bodies.size()) {
    h.refusal = "no such body";
    return h;
  }
  h.joint = treeJoint(parse, body);
  const std::string bodyName = "body '" + parse.model.bodies[size_t(body)].name + "'";
  const BodyDesc& desc = parse.model.bodies[size_t(body)];
  const ElementSource& src = parse.map.bodies[size_t(body)];
  if (mode == DragMode::Resize && (desc.visuals.empty() || src.visuals.empty()) && (desc.collisions.empty() || src.collisions.empty())) {
    h.refusal = bodyName + " has no shape to resize";
    return h;
  }
  if ((mode == DragMode::Anchor || mode == DragMode::Body || mode == DragMode::Axis) && h.joint < 0) {
    h.refusal = bodyName + " has no joint: its pose is moved without a modifier";
    return h;
  }
  if (!compiledModel) {
    h.refusal = why;
    return h;
  }
  const Compiled& c = *compiledModel;
  h.moving = subtree(parse, body);
  // Resize: the first shape (drawn, else colliding), its sizes as arrows at its faces or ends.
  if (mode == DragMode::Resize) {
    const bool drawn = !desc.visuals.empty() && !src.visuals.empty();
    const ShapeDesc& shape = drawn ? desc.visuals[0] : desc.collisions[0];
    const BodyState& b = c.state.bodies[size_t(body)];
    const Vec3 centre = b.x + quat::rotate(b.q, shape.position);
    const Mat3 axes = quat::rotation(b.q) * quat::rotation(shape.orientation);
    const auto arrow = [&](int axis, double out, const std::string& what, double value, double gain, int size) {
      DragHandle a = handle(false, centre + out * axes.col(axis), axes.col(axis), bodyName + " " + what, value);
      a.gain = gain;
      a.size = size;
      h.handles.push_back(a);
    };
    const Vec3& s = shape.size;
    switch (shape.kind) {
      case ShapeDesc::Kind::Box:
        for (int i = 0; i < 3; ++i) arrow(i, 0.5 * s[i], std::string("size ") + kAxisNames[i], s[i], 2, i);
        break;
      case ShapeDesc::Kind::Sphere: arrow(0, s.x(), "radius", s.x(), 1, 0); break;
      case ShapeDesc::Kind::Cylinder:
      case ShapeDesc::Kind::Capsule:
        arrow(0, s.x(), "radius", s.x(), 1, 0);
        arrow(2, 0.5 * s.y() + (shape.kind == ShapeDesc::Kind::Capsule ? s.x() : 0.0), "length", s.y(), 2, 1);
        break;
      default: h.refusal = bodyName + "'s first shape is a plane or a mesh: its size is not dragged (scale a mesh in the text)";
    }
    return h;
  }
  // A free body: arrows along and rings about the world axes through its centre of mass.
  if (h.joint < 0) {
    const Vec3 x = c.state.bodies[size_t(body)].x;
    const Vec3& written = parse.model.bodies[size_t(body)].position;
    for (int i = 0; i < 3; ++i) h.handles.push_back(handle(false, x, Vec3::Unit(i), bodyName + " " + kAxisNames[i], written[i]));
    for (int i = 0; i < 3; ++i)
      h.handles.push_back(handle(true, x, Vec3::Unit(i), bodyName + " rotation about " + kAxisNames[i]));
    return h;
  }
  const JointDesc& d = parse.model.joints[size_t(h.joint)];
  const std::string jointName = "joint '" + d.name + "'";
  const JointGeometry& g = geometry(c.sys->joints[size_t(h.joint)]);
  const Mat3 Ra = parentRotation(g, c.state);
  // The anchor: arrows along the parent frame's axes, at the joint's point on the parent.
  if (mode == DragMode::Anchor) {
    for (int i = 0; i < 3; ++i)
      h.handles.push_back(
          handle(false, parentPoint(g, c.state), Ra.col(i), jointName + " parent-anchor " + kAxisNames[i], d.parentAnchor[i]));
    return h;
  }
  // The body on its joint: arrows along its own axes at its frame's origin; moving it by d moves the
  // child anchor (the joint's point in the body) by −d (gain −1).
  if (mode == DragMode::Body) {
    const BodyState& b = c.state.bodies[size_t(body)];
    const Mat3 Rb = quat::rotation(b.q);
    for (int i = 0; i < 3; ++i) {
      h.handles.push_back(handle(false, b.x, Rb.col(i), jointName + " child-anchor " + kAxisNames[i], d.childAnchor[i]));
      h.handles.back().gain = -1;
    }
    return h;
  }
  // The axis: rings about two directions across it (in the joint frame: the axis is V3, the rings
  // turn about V1 and V2), through the joint's point on the parent; the bodies stay during the drag.
  if (mode == DragMode::Axis) {
    if (d.type == JointType::Fixed) {
      h.refusal = jointName + " is fixed: it has no axis";
      return h;
    }
    const Mat3 frame = Ra * g.Ro;
    for (int i = 0; i < 2; ++i)
      h.handles.push_back(handle(true, parentPoint(g, c.state), frame * g.axes.col(i), jointName + " axis tilt " + std::to_string(i + 1)));
    h.handles.push_back(handle(false, parentPoint(g, c.state), frame * g.axes.col(2), jointName + " axis"));
    h.handles.back().shown = true;
    h.moving.clear();
    return h;
  }
  // The joint's freedom: its free translations (C_T rows), then its free rotation(s), in the joint
  // frame R_a·R_off (Appendix B; evalJointMinimal measures the coordinates the same way), at the
  // joint's point on the child (rotations turn about it: the translations then stay).
  const Vec3 origin = childPoint(g, c.state);
  const Mat3 frame = Ra * g.Ro;
  const std::vector<double> given = expandedCoordinates(d.initialPosition, size_t(g.fT + g.fR));
  for (int r = 0; r < g.fT; ++r)
    h.handles.push_back(handle(false, origin, frame * g.CT.row(r).transpose(),
                               jointName + (g.fT == 1 ? std::string(" position") : " translation " + std::to_string(r + 1)),
                               given[size_t(r)]));
  if (g.fR == 1) h.handles.push_back(handle(true, origin, frame * g.axes.col(2), jointName + " angle", given[size_t(g.fT)]));
  // A joint of one coordinate: its range, and the ring's reference direction.
  if (g.fT + g.fR == 1) {
    DragHandle& only = h.handles.back();
    if (!d.lowerLimit.empty()) only.lower = d.lowerLimit[0];
    if (!d.upperLimit.empty()) only.upper = d.upperLimit[0];
    if (only.rotate) {
      const BodyState& b = c.state.bodies[size_t(body)];
      const Vec3 n = only.direction;
      Vec3 r = b.x - origin;
      r -= r.dot(n) * n;
      if (!(r.norm() > 1e-9)) {
        // The centre of mass on the axis: the body's frame axis most across it.
        const Mat3 R = quat::rotation(b.q);
        int k = 0;
        (R.transpose() * n).cwiseAbs().minCoeff(&k);
        r = R.col(k) - R.col(k).dot(n) * n;
      }
      only.reference = r.normalized();
    }
  }
  if (g.fR == 3)
    for (int i = 0; i < 3; ++i)
      h.handles.push_back(handle(true, origin, frame.col(i), jointName + " rotation about " + kAxisNames[i]));
  if (h.handles.empty()) h.refusal = jointName + " is fixed: hold the anchor modifier to move its point";
  return h;
}

}  // namespace

DragHandles dragHandles(const MechParseResult& parse, int body, DragMode mode) {
  return dragHandleSets(parse, body).of(mode);
}

DragHandleSets dragHandleSets(const MechParseResult& parse, int body) {
  Compiled c;
  std::string why;
  bool ok = true;
  try {
    c = compiled(parse.model);
  } catch (const UserError& e) {
    ok = false;
    why = e.what();
  }
  const Compiled* at = ok ? &c : nullptr;
  return {handlesAt(parse, body, DragMode::Joint, at, why), handlesAt(parse, body, DragMode::Anchor, at, why),
          handlesAt(parse, body, DragMode::Body, at, why), handlesAt(parse, body, DragMode::Axis, at, why),
          handlesAt(parse, body, DragMode::Resize, at, why)};
}

MechEdit dragEdit(const sexpr::Document& doc, const MechParseResult& parse, const DragHandles& handles, int index,
                  double amount) {
  MechEdit refused;
  refused.doc = doc;
  if (index < 0 || size_t(index) >= handles.handles.size() || handles.body < 0 ||
      size_t(handles.body) >= parse.model.bodies.size()) {
    refused.error = "no such handle";
    return refused;
  }
  if (!std::isfinite(amount)) {
    refused.error = "the drag gave no finite amount";
    return refused;
  }
  const DragHandle& h = handles.handles[size_t(index)];
  if (h.shown) {
    refused.error = "the " + h.label + " is only drawn: turn a ring to tilt it";
    return refused;
  }
  const BodyDesc& body = parse.model.bodies[size_t(handles.body)];
  // Resize: one size number of the first shape, which must be written as a number.
  if (handles.mode == DragMode::Resize) {
    const ElementSource& src = parse.map.bodies[size_t(handles.body)];
    const ElementSource* shape = !src.visuals.empty() ? &src.visuals[0] : !src.collisions.empty() ? &src.collisions[0] : nullptr;
    const auto size = shape ? shape->properties.find("size") : std::map<std::string, PropertySource>::const_iterator();
    if (!shape || size == shape->properties.end() || h.size < 0 || size_t(h.size) >= size->second.values.size()) {
      refused.error = "the shape's size is not in the text";
      return refused;
    }
    const SourceRef& token = size->second.values[size_t(h.size)];
    const double now = tidyNumber(h.value + amount);
    if (!token.literal) {
      refused.error = "the " + h.label + " is written as " + doc.text().substr(token.begin, token.end - token.begin) +
                      " (an expression or a parameter): write it as a number to change it from the view";
      return refused;
    }
    if (!(now > 0)) {
      refused.error = "the " + h.label + " would be " + sexpr::formatNumber(now) + ": sizes must be positive";
      return refused;
    }
    Diagnostics diags;
    MechEdit e;
    e.doc = setValue(doc, token, now, diags);
    e.ok = !diags.hasErrors();
    if (!e.ok) e.error = diags.format();
    return e;
  }
  // A free body: its written pose moved.
  if (handles.joint < 0) {
    BodyState written;
    written.x = body.position;
    written.q = body.orientation;
    const BodyState b = moved(written, h, amount);
    if (!h.rotate) return setBodyValues(doc, parse, handles.body, "position", tidy({b.x.x(), b.x.y(), b.x.z()}));
    const ElementSource& src = parse.map.bodies[size_t(handles.body)];
    if (src.properties.count("orientation"))
      return setBodyValues(doc, parse, handles.body, "orientation", tidy({b.q(0), b.q(1), b.q(2), b.q(3)}));
    const Vec3 r = quat::toRotationVector(b.q);
    return setBodyValues(doc, parse, handles.body, "rotation", tidy({r.x(), r.y(), r.z()}));
  }
  const JointDesc& d = parse.model.joints[size_t(handles.joint)];
  if (handles.mode == DragMode::Anchor || handles.mode == DragMode::Body) {
    // The handle's direction is an axis of the parent's frame (the anchor) or of the body's (the
    // joint's point in the body, which moves by `amount` as the body moves by −amount): that
    // coordinate of the anchor changes by `amount`.
    const bool parentSide = handles.mode == DragMode::Anchor;
    Vec3 a = parentSide ? d.parentAnchor : d.childAnchor;
    a[index % 3] += amount;
    return setJointValues(doc, parse, handles.joint, parentSide ? "parent-anchor" : "child-anchor", tidy({a.x(), a.y(), a.z()}));
  }
  // The axis and the joint's coordinates are read at the compiled model's initial state.
  Compiled c;
  try {
    c = compiled(parse.model);
  } catch (const UserError& e) {
    refused.error = e.what();
    return refused;
  }
  if (handles.mode == DragMode::Axis) {
    // The written axis (in the joint frame R_a·R_off, as the handle's direction is in the world)
    // turned by `amount` about the handle's direction, read back in that frame.
    const JointGeometry& g = geometry(c.sys->joints[size_t(handles.joint)]);
    const Mat3 frame = parentRotation(g, c.state) * g.Ro;
    const Vec3 axis = frame.transpose() * (quat::rotate(quat::fromAxisAngle(h.direction, amount), frame * d.axis.normalized()));
    return setJointValues(doc, parse, handles.joint, "axis", tidy({axis.x(), axis.y(), axis.z()}));
  }
  // The joint's coordinates: the child moved, its coordinates read back (the change is added to the
  // written ones, so a loop the engine closed differently keeps its offset).
  State after = c.state;
  after.bodies[size_t(handles.body)] = moved(c.state.bodies[size_t(handles.body)], h, amount);
  const std::vector<double> before = jointCoordinates(*c.sys, c.state)[size_t(handles.joint)].position;
  const std::vector<double> now = jointCoordinates(*c.sys, after)[size_t(handles.joint)].position;
  std::vector<double> position = expandedCoordinates(d.initialPosition, before.size());
  const JointKind& kind = jointKind(d.type);
  for (size_t i = 0; i < position.size(); ++i) {
    double delta = now[i] - before[i];
    // One angle turned by the ring: whole turns as dragged (the reading is within π of the start).
    if (h.rotate && kind.freeRotational() == 1 && int(i) == kind.freeTranslational())
      delta += 2 * M_PI * std::round((amount - delta) / (2 * M_PI));
    position[i] += delta;
  }
  return setJointValues(doc, parse, handles.joint, "position", tidy(position));
}

}  // namespace ms
