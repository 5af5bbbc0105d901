// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: the link tree. The root link becomes the world or a free body; each link with mass
// becomes a body in its inertial (centre-of-mass) frame, with mass and inertia checked; a massless
// link on a fixed joint is lumped into its parent's body (its geometry and child joints follow it);
// URDF joints become engine joints with their frames, limits and damping.
#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "io/urdf_internal.h"

namespace ms::urdf_detail {

namespace {

// URDF spelling of a joint's type, for messages.
std::string typeName(const urdf::Joint& joint) {
  switch (joint.type) {
    case urdf::Joint::REVOLUTE: return "revolute";
    case urdf::Joint::CONTINUOUS: return "continuous";
    case urdf::Joint::PRISMATIC: return "prismatic";
    case urdf::Joint::FLOATING: return "floating";
    case urdf::Joint::PLANAR: return "planar";
    case urdf::Joint::FIXED: return "fixed";
    default: return "unknown";
  }
}

}  // namespace

// Turns urdfdom's link tree into bodies and joints, from the root down.
void Importer::buildTree(Model& model) {
  for (const auto& [name, link] : urdf_->links_) links_[name].link = link;
  const urdf::LinkConstSharedPtr root = urdf_->getRoot();
  // A tree: no link may have two parent joints (urdfdom accepts that); loops need <loop_joint>.
  std::map<std::string, std::string> parentJoint;
  for (const auto& [name, joint] : urdf_->joints_) {
    if (!joint) continue;
    auto [it, fresh] = parentJoint.emplace(joint->child_link_name, name);
    if (!fresh)
      error(jointLine(name), "link '" + joint->child_link_name + "' is the child of two joints ('" + it->second +
                                 "' and '" + name + "'); close kinematic loops with <loop_joint>");
  }
  LinkInfo& r = links_[root->name];
  // The root: the world, or a free body when it has mass.
  if (!root->inertial || root->name == "world" || root->inertial->mass == 0) {
    r.body = -1;
    if (root->inertial && root->name == "world")
      warning(linkLine(root->name), "the root link 'world' is the world; its <inertial> is ignored");
    else if (root->inertial)
      note(linkLine(root->name), "the root link '" + root->name + "' has zero mass: it is the world");
  } else {
    r.body = makeBody(model, r);
    if (r.body >= 0)
      note(linkLine(root->name), "the root link '" + root->name +
                                     "' has mass, so it is a free body (attach it to a link named 'world' with a "
                                     "fixed joint to hold it in place)");
  }
  addGeometry(model, r);
  // Depth-first, pre-order, children in the order their joints appear in the file, with an
  // explicit stack (long chains must not overflow the call stack). Entries: (parent link, joint).
  using Edge = std::pair<std::string, urdf::JointConstSharedPtr>;
  std::vector<Edge> stack;
  std::set<std::string> visited{root->name};
  auto pushChildren = [&](const urdf::Link& link) {
    std::vector<urdf::JointConstSharedPtr> joints;
    for (const urdf::JointSharedPtr& j : link.child_joints)
      if (j) joints.push_back(j);
    std::stable_sort(joints.begin(), joints.end(), [&](const auto& a, const auto& b) {
      return jointLine(a->name) < jointLine(b->name);
    });
    for (auto j = joints.rbegin(); j != joints.rend(); ++j) stack.emplace_back(link.name, *j);
  };
  pushChildren(*root);
  while (!stack.empty()) {
    const auto [parentName, joint] = stack.back();
    stack.pop_back();
    auto it = links_.find(joint->child_link_name);
    if (it == links_.end() || !it->second.link) continue;  // urdfdom already rejects this
    if (!visited.insert(it->first).second) continue;       // second parent: reported above
    attachChild(model, links_[parentName], *joint, it->second);
    addGeometry(model, it->second);
    pushChildren(*it->second.link);
  }
  // Links the tree does not reach (urdfdom accepts a cycle of joints beside the tree).
  for (const auto& [name, info] : links_)
    if (!visited.count(name))
      error(linkLine(name), "link '" + name + "' is not connected to the root link '" + root->name +
                                "' (its joints form a cycle; close kinematic loops with <loop_joint>)");
}

// Creates the body of a link with mass (validating mass and inertia); returns its index.
int Importer::makeBody(Model& model, LinkInfo& info) {
  const urdf::Link& link = *info.link;
  const urdf::Inertial& in = *link.inertial;
  const XMLElement* inertialElem = linkElement(link.name) ? linkElement(link.name)->FirstChildElement("inertial")
                                                          : nullptr;
  const int line = lineOf(inertialElem, linkLine(link.name));
  const std::string who = "link '" + link.name + "'";
  bool ok = true;
  // Mass: positive and finite.
  if (!(in.mass > 0) || !std::isfinite(in.mass)) {
    error(lineOf(nthChild(inertialElem, "mass", 0), line), who + ": mass must be positive (got " + num(in.mass) + ")");
    ok = false;
  }
  // Inertia: finite, positive definite and satisfying the triangle inequality (as compile() requires).
  Mat3 I;
  I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  const int inertiaLine = lineOf(nthChild(inertialElem, "inertia", 0), line);
  if (!I.allFinite()) {
    error(inertiaLine, who + ": inertia must be finite");
    ok = false;
  } else {
    Eigen::SelfAdjointEigenSolver<Mat3> es(I);
    const Vec3 ev = es.eigenvalues();
    if (!(ev.minCoeff() > 0)) {
      error(inertiaLine, who + ": inertia is not positive definite (principal moments " + num(ev(0)) + ", " +
                             num(ev(1)) + ", " + num(ev(2)) + ")");
      ok = false;
    } else if (ev(0) + ev(1) < ev(2) * (1 - 1e-9)) {
      error(inertiaLine, who + ": principal moments of inertia " + num(ev(0)) + ", " + num(ev(1)) + ", " +
                             num(ev(2)) + " violate the triangle inequality");
      ok = false;
    }
  }
  // The inertial frame.
  const Frame inertial = toFrame(in.origin);
  if (!finite(inertial)) {
    error(lineOf(nthChild(inertialElem, "origin", 0), line), who + ": inertial origin must be finite");
    ok = false;
  }
  if (!ok) return kInvalidBody;
  // The body: frame = inertial frame, placed at its zero-configuration pose.
  BodyDesc b;
  b.name = link.name;
  b.mass = in.mass;
  b.inertia = I;
  const Frame pose = info.world * inertial;
  b.position = pose.p;
  b.orientation = toQuat(pose.R);
  model.bodies.push_back(std::move(b));
  info.inBody = inverse(inertial);
  return int(model.bodies.size()) - 1;
}

// Places the child link of `joint` (lumped into its parent or a new body) and adds the joint.
void Importer::attachChild(Model& model, const LinkInfo& parent, const urdf::Joint& joint, LinkInfo& child) {
  const std::string who = "joint '" + joint.name + "'";
  const int line = jointLine(joint.name);
  const Frame origin = toFrame(joint.parent_to_joint_origin_transform);
  // The joint origin must be a finite transform.
  if (!finite(origin)) {
    error(lineOf(nthChild(jointElement(joint.name), "origin", 0), line), who + ": origin must be finite");
    child.body = kInvalidBody;
    return;
  }
  child.world = parent.world * origin;
  const urdf::Link& link = *child.link;
  const bool fixed = joint.type == urdf::Joint::FIXED;
  const XMLElement* inertialElem = linkElement(link.name) ? linkElement(link.name)->FirstChildElement("inertial")
                                                          : nullptr;
  // Massless links: lumped through fixed joints, an error when the joint moves.
  bool massless = !link.inertial;
  if (link.inertial && link.inertial->mass == 0 && fixed) {
    massless = true;
    note(lineOf(inertialElem, linkLine(link.name)),
         "link '" + link.name + "' has zero mass and a fixed joint: it is treated as massless and lumped into its parent");
  }
  if (massless) {
    if (!fixed) {
      error(linkLine(link.name), "link '" + link.name + "' has no <inertial> but is moved by " + who + " (" +
                                     typeName(joint) + "): a moving link needs mass; add an <inertial> or make the "
                                     "joint fixed");
      child.body = kInvalidBody;
      return;
    }
    child.body = parent.body;
    child.inBody = parent.inBody * origin;
    return;
  }
  if (link.inertial->mass == 0) {
    error(lineOf(nthChild(inertialElem, "mass", 0), lineOf(inertialElem, linkLine(link.name))),
          "link '" + link.name + "' has zero mass but is moved by " + who + " (" + typeName(joint) +
              "): a moving link needs a positive mass");
    child.body = kInvalidBody;
    return;
  }
  // A link with mass: a new body and the joint connecting it.
  child.body = makeBody(model, child);
  if (child.body == kInvalidBody || parent.body == kInvalidBody) return;
  JointDesc j;
  j.name = joint.name;
  j.parent = parent.body;
  j.child = child.body;
  // Joint type.
  bool limited = false;
  switch (joint.type) {
    case urdf::Joint::REVOLUTE: j.type = JointType::Revolute; limited = true; break;
    case urdf::Joint::CONTINUOUS: j.type = JointType::Revolute; break;
    case urdf::Joint::PRISMATIC: j.type = JointType::Prismatic; limited = true; break;
    case urdf::Joint::FIXED: j.type = JointType::Fixed; break;
    case urdf::Joint::FLOATING: j.type = JointType::Floating; break;
    case urdf::Joint::PLANAR: j.type = JointType::PlanarAxis; break;
    default: error(line, who + ": unknown joint type"); return;
  }
  // Axis (URDF default 1 0 0), in the URDF joint frame.
  Vec3 axis = toVec(joint.axis);
  if (!axis.allFinite() || axis.norm() < 1e-12) {
    if (joint.type == urdf::Joint::FIXED || joint.type == urdf::Joint::FLOATING) {
      axis = Vec3::UnitX();
    } else {
      error(lineOf(nthChild(jointElement(joint.name), "axis", 0), line), who + ": axis has zero length");
      return;
    }
  }
  // Frames: the joint frame in the parent body's frame, and (= the child link frame) in the child's.
  setJointFrames(j, parent.inBody * origin, child.inBody, axis.normalized());
  // Limits, damping and unsupported options.
  if (limited && joint.limits) addLimits(j, joint.limits->lower, joint.limits->upper, who,
                                         lineOf(nthChild(jointElement(joint.name), "limit", 0), line));
  if (joint.dynamics) {
    const int dline = lineOf(nthChild(jointElement(joint.name), "dynamics", 0), line);
    addDamping(j, joint.dynamics->damping, who, dline);
    if (joint.dynamics->friction != 0) warning(dline, who + ": joint friction is not supported and is ignored");
  }
  if (joint.mimic)
    warning(lineOf(nthChild(jointElement(joint.name), "mimic", 0), line),
            who + ": <mimic> is not supported; the joint moves independently");
  model.joints.push_back(std::move(j));
}

// Anchors, offset and axis from the joint frame as seen in the parent and in the child body frames
// (see the top of urdf_import.cc): q_off = F_p.R F_c.Rᵀ, axis' = F_c.R a.
void Importer::setJointFrames(JointDesc& j, const Frame& inParent, const Frame& inChild, const Vec3& axis) {
  j.parentAnchor = inParent.p;
  j.childAnchor = inChild.p;
  j.offset = toQuat(inParent.R * inChild.R.transpose());
  j.axis = inChild.R * axis;
}

// Joint limits (kept when lower < upper; lower > upper is an error).
void Importer::addLimits(JointDesc& j, double lower, double upper, const std::string& who, int line) {
  if (!std::isfinite(lower) || !std::isfinite(upper)) {
    error(line, who + ": limits must be finite");
  } else if (lower > upper) {
    error(line, who + ": lower limit " + num(lower) + " exceeds upper limit " + num(upper));
  } else if (lower == upper) {
    warning(line, who + ": lower and upper limits are equal (" + num(lower) +
                      "); the limits are ignored (use a fixed joint to lock it)");
  } else {
    j.lowerLimit = {lower};
    j.upperLimit = {upper};
  }
}

// Joint damping (non-negative; zero adds nothing).
void Importer::addDamping(JointDesc& j, double damping, const std::string& who, int line) {
  if (!(damping >= 0) || !std::isfinite(damping)) error(line, who + ": damping must be finite and non-negative");
  else if (damping > 0 && j.type != JointType::Fixed) j.damping = {damping};
}

}  // namespace ms::urdf_detail
