// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's joints: (joint …) inside a body and (loop-joint …) at the top level, with the
// joint items they share.
#include "io/mech_reader_internal.h"

#include "core/quaternion.h"

namespace ms::mechread {

namespace {

// Names of all joint types, for messages.
std::string jointTypeList() {
  std::string s;
  for (int k = 0; k < kNumJointTypes; ++k) s += (k ? ", " : "") + std::string(jointKindAt(k).name);
  return s;
}

std::vector<std::string> jointTypeNames() {
  std::vector<std::string> v;
  for (int k = 0; k < kNumJointTypes; ++k) v.push_back(jointKindAt(k).name);
  return v;
}

// Reads the joint type symbol at children[i]; false (reported) if missing or unknown.
bool readJointType(const Node& n, size_t i, JointType& t, std::string& message, const Node*& where) {
  where = i < n.children.size() ? &n.children[i] : &n;
  if (i >= n.children.size() || !n.children[i].isSymbol()) {
    message = "(" + n.head() + " ...) needs a joint type: " + jointTypeList();
    return false;
  }
  const auto type = jointTypeFromName(n.children[i].text);
  if (!type) {
    message = "unknown joint type '" + n.children[i].text + "'" + suggestion(n.children[i].text, jointTypeNames()) +
              " (types: " + jointTypeList() + ")";
    return false;
  }
  t = *type;
  return true;
}

}  // namespace

// (joint TYPE NAME? joint-item*) inside body `body`: connects it to the enclosing body or the world.
void Reader::readJoint(const Node& n, int body, bool generated) {
  BodyExtra& ex = extra_[body];
  const std::string bodyName = model_.bodies[body].name;
  if (ex.hasJoint) {
    error(n.children[0], "body '" + bodyName + "' already has a joint (at " + at(ex.jointRef) +
                             "); connect it further with a (loop-joint ...)");
    return;
  }
  ex.hasJoint = true;
  ex.jointRef = ref(n);
  JointDesc j;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  std::string message;
  const Node* where = nullptr;
  const bool typeKnown = readJointType(n, 1, j.type, message, where);
  if (!typeKnown) error(*where, message);
  else src.properties["type"].form = ref(n.children[1]);
  size_t i = 2;
  // Optional name (defaults to the body's name).
  j.name = bodyName;
  if (i < n.children.size() && (n.children[i].isSymbol() || n.children[i].isString())) {
    std::string name;
    SourceRef nameRef;
    if (readName(n, i, name, nameRef, "a joint name")) {
      j.name = name;
      src.name = nameRef;
    }
  }
  j.parent = ex.enclosing;
  j.child = body;
  jointItems(n, i, j, src, typeKnown);
  const int idx = int(model_.joints.size());
  define(joints_, "joint", j.name, idx, src.name.valid() ? src.name : src.form);
  model_.joints.push_back(std::move(j));
  map_.joints.push_back(std::move(src));
}

// Joint items from children[i] on (shared by joint and loop-joint).
void Reader::jointItems(const Node& n, size_t i, JointDesc& j, ElementSource& src, bool typeKnown) {
  const JointKind& kind = jointKind(j.type);
  const int nf = kind.freeCoordinates();
  const std::string owner = "joint '" + j.name + "'";
  std::map<std::string, SourceRef> seen;
  const Node* lowerNode = nullptr;
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a joint property such as (axis ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(kJointItems, h)) {
      error(c.children[0], "unknown joint property '" + h + "'" + suggestion(h, kJointItems));
      continue;
    }
    const std::string key = h == "offset-rotation" ? "offset" : h;
    if (duplicate(seen, key, c, owner)) continue;
    PropertySource& ps = src.properties[h];
    // Geometry: anchors, axis, offset.
    if (h == "parent-anchor" || h == "child-anchor" || h == "axis" || h == "offset-rotation") {
      Vec3 x;
      if (!vec3(c, x, &ps)) continue;
      if (h == "parent-anchor") j.parentAnchor = x;
      else if (h == "child-anchor") j.childAnchor = x;
      else if (h == "offset-rotation") j.offset = quat::fromRotationVector(x);
      else if (!(x.norm() > 1e-12)) error(c, "the axis must not have zero length");
      else j.axis = x;
      continue;
    }
    if (h == "offset") {
      std::vector<double> q;
      if (!numbers(c, 1, 4, 4, q, &ps)) continue;
      const Vec4 qq(q[0], q[1], q[2], q[3]);
      if (!(qq.norm() > 1e-9)) error(c, "the offset quaternion (w x y z) must not be zero");
      else j.offset = qq;
      continue;
    }
    // Per-coordinate values: 1 (for all) or one per free coordinate.
    std::vector<double> v;
    if (!numbers(c, 1, 1, size_t(-1), v, &ps)) continue;
    if (!typeKnown) continue;
    const std::string typeName = kind.name;
    if (nf == 0) {
      error(c.children[0], "a " + typeName + " joint has no free coordinates, so (" + h + " ...) does not apply");
      continue;
    }
    if (int(v.size()) != 1 && int(v.size()) != nf) {
      const SourceRef where = int(v.size()) > nf ? ref(c.children[nf + 1]) : ref(c);
      error(where, "a " + typeName + " joint has " + std::to_string(nf) + " free coordinate" + (nf == 1 ? "" : "s") +
                       ": (" + h + " ...) takes " + (nf == 1 ? std::string("1 number") : "1 or " + std::to_string(nf) + " numbers") +
                       " (got " + std::to_string(v.size()) + ")");
      continue;
    }
    if (h == "stiffness" || h == "damping" || h == "armature") {
      bool bad = false;
      for (size_t m = 0; m < v.size() && !bad; ++m)
        if (v[m] < 0) {
          error(c.children[m + 1], h + " must not be negative (got " + num(v[m]) + ")");
          bad = true;
        }
      if (bad) continue;
    }
    if (h == "position") j.initialPosition = v;
    else if (h == "velocity") j.initialVelocity = v;
    else if (h == "stiffness") j.stiffness = v;
    else if (h == "rest") j.restPosition = v;
    else if (h == "damping") j.damping = v;
    else if (h == "armature") j.armature = v;
    else if (h == "lower") j.lowerLimit = v, lowerNode = &c;
    else j.upperLimit = v;
  }
  // Limits come in pairs, lower ≤ upper.
  const bool hasLower = seen.count("lower"), hasUpper = seen.count("upper");
  if (hasLower != hasUpper) {
    error(hasLower ? seen["lower"] : seen["upper"],
          owner + " has (" + std::string(hasLower ? "lower" : "upper") + " ...) but no (" +
              (hasLower ? "upper" : "lower") + " ...)");
  } else if (lowerNode && !j.lowerLimit.empty() && !j.upperLimit.empty() && nf > 0) {
    for (int k = 0; k < nf; ++k) {
      const double lo = j.lowerLimit.size() == 1 ? j.lowerLimit[0] : j.lowerLimit[k];
      const double hi = j.upperLimit.size() == 1 ? j.upperLimit[0] : j.upperLimit[k];
      if (lo > hi) {
        error(*lowerNode, owner + ": the lower limit " + num(lo) + " exceeds the upper limit " + num(hi));
        break;
      }
    }
  }
}

// (loop-joint NAME TYPE PARENT CHILD joint-item*)
void Reader::readLoopJoint(const Node& n, bool generated) {
  JointDesc j;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, j.name, src.name, "a name, a joint type and two bodies, e.g. (loop-joint close revolute a b)"))
    return;
  std::string message;
  const Node* where = nullptr;
  const bool typeKnown = readJointType(n, i, j.type, message, where);
  if (!typeKnown) {
    error(*where, message);
    if (i < n.children.size() && n.children[i].isList()) return;
  } else {
    src.properties["type"].form = ref(n.children[i]);
  }
  ++i;
  // Parent (body or world) and child (body), resolved at the end.
  std::string parent, child;
  SourceRef parentRef, childRef;
  if (!readName(n, i, parent, parentRef, "a parent body (or world) and a child body")) return;
  if (!readName(n, i, child, childRef, "a child body after the parent")) return;
  src.properties["parent"].form = parentRef;
  src.properties["child"].form = childRef;
  jointItems(n, i, j, src, typeKnown);
  const int idx = int(model_.joints.size());
  define(joints_, "joint", j.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::LoopParent, idx, parent, parentRef});
  fixups_.push_back({Fixup::Slot::LoopChild, idx, child, childRef});
  loopBodyRefs_.push_back(parent);
  loopBodyRefs_.push_back(child);
  model_.joints.push_back(std::move(j));
  map_.joints.push_back(std::move(src));
}

}  // namespace ms::mechread
