// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: the loop-closure extension. <loop_joint> elements inside <robot> (which urdfdom
// ignores; the format is at the top of urdf_import.cc), read with tinyxml2 and added as joints
// closing kinematic loops.
#include <cstdlib>

#include "dynamics/joint_constraint.h"
#include "io/urdf_internal.h"

namespace ms::urdf_detail {

namespace {

// Parses exactly three finite numbers separated by whitespace ("0 0.5 1").
bool parseVec3(const char* text, Vec3& out) {
  if (!text) return false;
  const char* s = text;
  for (int i = 0; i < 3; ++i) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end == s || !std::isfinite(v)) return false;
    out(i) = v;
    s = end;
  }
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') ++s;
  return *s == '\0';
}

// Parses one finite number (surrounding whitespace allowed).
bool parseNumber(const char* text, double& out) {
  if (!text) return false;
  char* end = nullptr;
  out = std::strtod(text, &end);
  if (end == text || !std::isfinite(out)) return false;
  while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r') ++end;
  return *end == '\0';
}

// Rotation from URDF roll-pitch-yaw (fixed axes x, y, z), computed exactly as urdfdom does.
Mat3 rpyRotation(const Vec3& rpy) {
  urdf::Rotation r;
  r.setFromRPY(rpy.x(), rpy.y(), rpy.z());
  urdf::Pose pose;
  pose.rotation = r;
  return toFrame(pose).R;
}

// Maps a loop joint type to the engine's; `limited` tells whether <limit> applies.
bool loopType(const std::string& t, JointType& type, bool& limited) {
  limited = false;
  if (t == "revolute") type = JointType::Revolute, limited = true;
  else if (t == "continuous") type = JointType::Revolute;
  else if (t == "prismatic") type = JointType::Prismatic, limited = true;
  else if (t == "fixed") type = JointType::Fixed;
  else if (t == "floating") type = JointType::Floating;
  else if (t == "planar") type = JointType::PlanarAxis;
  else if (auto k = jointTypeFromName(t)) type = *k, limited = jointKind(*k).freeCoordinates() == 1;
  else return false;
  return true;
}

// Reads an optional numeric attribute; false when present but not a number.
bool optionalNumber(const XMLElement* e, const char* attr, double& out) {
  const char* v = e->Attribute(attr);
  return !v || parseNumber(v, out);
}

}  // namespace

// Reads the <loop_joint> extension elements and adds them as joints closing loops.
void Importer::readLoops(Model& model) {
  std::set<std::string> names;
  for (const JointDesc& j : model.joints) names.insert(j.name);
  for (const auto& [name, e] : xml_.joints) names.insert(name);
  for (const XMLElement* e : xml_.loops) readLoop(model, e, names);
}

// One <loop_joint>: validates it and adds the joint (nothing on error).
void Importer::readLoop(Model& model, const XMLElement* e, std::set<std::string>& names) {
  const int line = e->GetLineNum();
  bool ok = true;
  // Name: present and unique among joints.
  const char* nameAttr = e->Attribute("name");
  std::string name = nameAttr ? nameAttr : "";
  if (name.empty()) {
    error(line, "<loop_joint> needs a name attribute");
    name = "loop_joint";
    ok = false;
  } else if (!names.insert(name).second) {
    error(line, "loop joint '" + name + "': a joint with this name already exists");
    ok = false;
  }
  const std::string who = "loop joint '" + name + "'";
  // Type: a URDF joint type or an engine joint name.
  const char* typeAttr = e->Attribute("type");
  JointType type = JointType::Revolute;
  bool limited = false;
  if (!typeAttr) {
    error(line, who + ": missing type attribute");
    ok = false;
  } else if (!loopType(typeAttr, type, limited)) {
    error(line, who + ": unknown type '" + std::string(typeAttr) +
                    "' (use revolute, continuous, prismatic, fixed, floating, planar, spherical, cylindrical, or "
                    "another engine joint name)");
    ok = false;
  }
  // Parent and child links: attributes, or <parent link=..>/<child link=..> elements.
  const LinkInfo* parent = loopLink(e, "parent", who, ok);
  const LinkInfo* child = loopLink(e, "child", who, ok);
  // Unknown child elements are probably typos.
  static const std::set<std::string> known = {"origin", "child_origin", "axis", "limit", "dynamics", "parent", "child"};
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement())
    if (!known.count(c->Name()))
      warning(c->GetLineNum(), who + ": unknown element <" + std::string(c->Name()) + "> is ignored");
  // Frames: origin (in the parent link), child_origin (in the child link, default from the pose).
  Frame origin, childOrigin;
  bool hasChildOrigin = false;
  ok &= readOrigin(nthChild(e, "origin", 0), who, origin);
  if (const XMLElement* co = nthChild(e, "child_origin", 0)) {
    hasChildOrigin = true;
    ok &= readOrigin(co, who, childOrigin);
  }
  // Axis, in the joint frame.
  Vec3 axis = Vec3::UnitX();
  if (const XMLElement* a = nthChild(e, "axis", 0)) {
    if (!parseVec3(a->Attribute("xyz"), axis)) {
      error(a->GetLineNum(), who + ": <axis xyz> needs three numbers");
      ok = false;
    } else if (axis.norm() < 1e-12) {
      error(a->GetLineNum(), who + ": axis has zero length");
      ok = false;
    }
  }
  // Limits and damping.
  double lower = 0, upper = 0, damping = 0;
  const XMLElement* limitElem = nthChild(e, "limit", 0);
  const XMLElement* dynElem = nthChild(e, "dynamics", 0);
  if (limitElem && (!optionalNumber(limitElem, "lower", lower) || !optionalNumber(limitElem, "upper", upper))) {
    error(limitElem->GetLineNum(), who + ": <limit> lower and upper must be numbers");
    ok = false;
  }
  if (dynElem && !optionalNumber(dynElem, "damping", damping)) {
    error(dynElem->GetLineNum(), who + ": <dynamics> damping must be a number");
    ok = false;
  }
  if (!ok || !parent || !child) return;
  if (parent->body == kInvalidBody || child->body == kInvalidBody) return;  // already reported
  // The two sides must be different rigid bodies.
  if (parent->body == child->body) {
    error(line, who + ": links '" + parent->link->name + "' and '" + child->link->name +
                    "' belong to the same rigid body" + (parent->body < 0 ? " (the world)" : ""));
    return;
  }
  // The joint frame on each side, in that side's body frame.
  if (!hasChildOrigin) childOrigin = inverse(child->world) * (parent->world * origin);
  Frame inParent = parent->inBody * origin, inChild = child->inBody * childOrigin;
  int pb = parent->body, cb = child->body;
  // The engine's child must be a body: swap the sides when the child link is fixed to the world.
  if (cb < 0) {
    std::swap(pb, cb);
    std::swap(inParent, inChild);
  }
  JointDesc j;
  j.name = name;
  j.type = type;
  j.parent = pb;
  j.child = cb;
  setJointFrames(j, inParent, inChild, axis.normalized());
  if (limited && limitElem) addLimits(j, lower, upper, who, limitElem->GetLineNum());
  if (dynElem) addDamping(j, damping, who, dynElem->GetLineNum());
  warnIfOpen(model, j, who, line);
  model.joints.push_back(std::move(j));
}

// The link named by a loop joint's `role` ("parent" or "child"); null (with an error) when missing.
const LinkInfo* Importer::loopLink(const XMLElement* e, const char* role, const std::string& who, bool& ok) {
  const char* name = e->Attribute(role);
  int line = e->GetLineNum();
  if (!name) {
    if (const XMLElement* c = e->FirstChildElement(role)) {
      name = c->Attribute("link");
      line = c->GetLineNum();
    }
  }
  if (!name) {
    error(line, who + ": missing " + role + " link (write " + role + "=\"link name\")");
    ok = false;
    return nullptr;
  }
  auto it = links_.find(name);
  if (it == links_.end() || !it->second.link) {
    error(line, who + ": " + role + " link '" + name + "' does not exist");
    ok = false;
    return nullptr;
  }
  return &it->second;
}

// Reads <origin xyz rpy> (both optional, default zero); false (with an error) when malformed.
bool Importer::readOrigin(const XMLElement* o, const std::string& who, Frame& out) {
  out = Frame();
  if (!o) return true;
  Vec3 xyz = Vec3::Zero(), rpy = Vec3::Zero();
  const char* x = o->Attribute("xyz");
  const char* r = o->Attribute("rpy");
  if ((x && !parseVec3(x, xyz)) || (r && !parseVec3(r, rpy))) {
    error(o->GetLineNum(), who + ": <" + std::string(o->Name()) + "> xyz and rpy need three numbers each");
    return false;
  }
  out.p = xyz;
  out.R = rpyRotation(rpy);
  return true;
}

// Warns when a loop joint is not satisfied at the zero configuration (the engine's measure).
void Importer::warnIfOpen(const Model& model, const JointDesc& j, const std::string& who, int line) {
  const JointGeometry geo = makeJointGeometry(j.type, j.parent, j.child, j.parentAnchor, j.childAnchor, j.axis, j.offset);
  JointPoses z;
  z.xa = j.parent < 0 ? Vec3::Zero() : model.bodies[j.parent].position;
  z.qa = j.parent < 0 ? Vec4(1, 0, 0, 0) : model.bodies[j.parent].orientation;
  z.xb = model.bodies[j.child].position;
  z.qb = model.bodies[j.child].orientation;
  const double gap = jointConstraintValue(geo, z).cwiseAbs().maxCoeff();
  if (gap > 1e-6)
    warning(line, who + ": the loop is not closed at the zero configuration (constraint violation " + num(gap) +
                      "); the initial pose will be projected onto it");
}

}  // namespace ms::urdf_detail
