// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: the link tree. The root link becomes the world or a free body; each link with mass
// becomes a body in its inertial (centre-of-mass) frame, with mass and inertia checked; a massless
// link on a fixed joint is lumped into its parent's body (its geometry and child joints follow it);
// URDF joints become engine joints with their frames, limits and damping.
#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "io/mech_reader.h"
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
  lumpMasses(*root);
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

// Which links each body is made of (heads and the links fixed to them, see LumpedMass) and their
// masses at zero joint coordinates, from the root down (an explicit stack: long chains).
void Importer::lumpMasses(const urdf::Link& root) {
  const bool rootIsWorld = !root.inertial || root.name == "world" || root.inertial->mass == 0;
  struct Item {
    const urdf::Link* link;
    Frame world;
    std::string head;
    bool moved;  // placed by a moving joint
  };
  std::vector<Item> stack{{&root, Frame(), root.name, false}};
  std::set<std::string> seen;
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    if (!seen.insert(it.link->name).second) continue;  // a second parent: reported by buildTree
    // Its mass (positive, finite) into its head's list.
    const urdf::Inertial* in = it.link->inertial.get();
    if (in && it.head != it.link->name && (!(in->mass >= 0) || !std::isfinite(in->mass))) {
      const XMLElement* e = linkElement(it.link->name) ? linkElement(it.link->name)->FirstChildElement("inertial") : nullptr;
      error(lineOf(nthChild(e, "mass", 0), linkLine(it.link->name)),
            "link '" + it.link->name + "': mass must be positive (got " + num(in->mass) + ")");
    }
    if (in && in->mass > 0 && std::isfinite(in->mass) && !(it.link == &root && rootIsWorld)) {
      const Frame f = it.world * toFrame(in->origin);
      Mat3 I;
      I << in->ixx, in->ixy, in->ixz, in->ixy, in->iyy, in->iyz, in->ixz, in->iyz, in->izz;
      LumpedMass::Part part{it.link->name, in->mass, f.p, f.R * I * f.R.transpose()};
      std::vector<LumpedMass::Part>& parts = lumped_[it.head].parts;
      if (it.head == it.link->name) parts.insert(parts.begin(), part);
      else parts.push_back(part);
    } else if (!in && it.moved) {
      // A moving link without <inertial>: the mass of its collision primitives (box, cylinder,
      // sphere) at 1000 kg/m³, MuJoCo's rule for a body without an inertial (inertiafromgeom).
      LumpedMass::Part part{it.link->name, 0.0, Vec3::Zero(), Mat3::Zero()};
      std::vector<LumpedMass::Part> pieces;
      for (const urdf::CollisionSharedPtr& c : it.link->collision_array) {
        if (!c || !c->geometry) continue;
        ShapeDesc s;
        const urdf::Geometry* g = c->geometry.get();
        if (g->type == urdf::Geometry::SPHERE) s.kind = ShapeDesc::Kind::Sphere, s.size = Vec3(static_cast<const urdf::Sphere*>(g)->radius, 0, 0);
        else if (g->type == urdf::Geometry::BOX) s.kind = ShapeDesc::Kind::Box, s.size = toVec(static_cast<const urdf::Box*>(g)->dim);
        else if (g->type == urdf::Geometry::CYLINDER)
          s.kind = ShapeDesc::Kind::Cylinder,
          s.size = Vec3(static_cast<const urdf::Cylinder*>(g)->radius, static_cast<const urdf::Cylinder*>(g)->length, 0);
        else continue;
        const Frame f = it.world * toFrame(c->origin);
        double volume = 0;
        Mat3 I;
        s.orientation = toQuat(f.R);
        if (!finite(f) || !shapeVolume(s, volume) || !(volume > 0) || !shapeInertia(s, 1000 * volume, I)) continue;
        pieces.push_back({it.link->name, 1000 * volume, f.p, I});
        part.mass += 1000 * volume;
        part.com += 1000 * volume * f.p;
      }
      if (part.mass > 0 && std::isfinite(part.mass)) {
        part.com /= part.mass;
        for (const LumpedMass::Part& p : pieces) {
          const Vec3 d = p.com - part.com;
          part.inertia += p.inertia + p.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
        }
        lumped_[it.head].parts.insert(lumped_[it.head].parts.begin(), part);
        const Mat3 Ib = it.world.R.transpose() * part.inertia * it.world.R;
        warning(linkLine(it.link->name), "link '" + it.link->name + "' has no <inertial> but moves: its mass " + num(part.mass) +
                                             " kg and inertia (diagonal " + num(Ib(0, 0)) + ", " + num(Ib(1, 1)) + ", " +
                                             num(Ib(2, 2)) + " kg m²) come from its collision shapes at 1000 kg/m³ "
                                             "(MuJoCo's rule for a body without inertial)");
      }
    }
    // Children: a fixed joint joins the child to this link's body, unless that is the world.
    for (const urdf::JointSharedPtr& j : it.link->child_joints) {
      if (!j) continue;
      auto c = links_.find(j->child_link_name);
      if (c == links_.end() || !c->second.link) continue;
      const bool worldGroup = rootIsWorld && it.head == root.name;
      const bool lump = j->type == urdf::Joint::FIXED && !worldGroup;
      stack.push_back({c->second.link.get(), it.world * toFrame(j->parent_to_joint_origin_transform),
                       lump ? it.head : c->second.link->name, j->type != urdf::Joint::FIXED});
    }
  }
}

// A body's inertia: finite; a principal moment below 1e-4 of the largest, or below that of a 1 cm
// solid sphere of the body's mass, is raised to that (a placeholder inertia of 1e-6 on a sensor frame,
// a point mass); principal moments that violate the triangle inequality are set to their average
// (MuJoCo's balanceinertia). Each repair is said once, with the numbers; an inertia with a clearly
// negative principal moment is an error.
bool Importer::checkInertia(const std::string& who, int line, double mass, Mat3& I) {
  if (!I.allFinite()) {
    error(line, who + ": inertia must be finite");
    return false;
  }
  I = 0.5 * (I + I.transpose());
  Eigen::SelfAdjointEigenSolver<Mat3> es(I);
  Vec3 ev = es.eigenvalues();
  const Vec3 given = ev;
  const double floor = std::max(1e-4 * ev(2), 0.4 * mass * 1e-4);
  if (ev(0) < -1e-3 * std::max(ev(2), floor)) {
    error(line, who + ": inertia is not positive definite (principal moments " + num(ev(0)) + ", " + num(ev(1)) + ", " +
                    num(ev(2)) + ")");
    return false;
  }
  bool raised = false, balanced = false;
  for (int k = 0; k < 3; ++k)
    if (ev(k) < floor) ev(k) = floor, raised = true;
  if (ev(0) + ev(1) < ev(2) * (1 - 1e-9)) {
    ev.setConstant(ev.mean());
    balanced = true;
  }
  if (!raised && !balanced) return true;
  I = es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose();
  std::string what = "principal moments of inertia " + num(given(0)) + ", " + num(given(1)) + ", " + num(given(2));
  if (raised)
    what += balanced ? "; raised to at least " + num(floor) : " are raised to at least " + num(floor) +
                                                                  " (1e-4 of the largest, or a 1 cm sphere of its mass)";
  if (balanced)
    what += std::string(raised ? "; they then" : "") + " violate the triangle inequality: all set to their average " +
            num(ev(0)) + " (MuJoCo's balanceinertia)";
  warning(line, who + ": " + what);
  return true;
}

// Creates the body of a head link and the links lumped into it (validating mass and inertia);
// returns its index. The body's frame: the head's inertial frame, or, with lumped mass, the
// orientation of the head's inertial frame at the common centre of mass.
int Importer::makeBody(Model& model, LinkInfo& info) {
  const urdf::Link& link = *info.link;
  const XMLElement* inertialElem = linkElement(link.name) ? linkElement(link.name)->FirstChildElement("inertial")
                                                          : nullptr;
  const int line = lineOf(inertialElem, linkLine(link.name));
  const std::vector<LumpedMass::Part>& parts = lumped_[link.name].parts;
  std::string who = "link '" + link.name + "'";
  if (parts.size() > 1 || (parts.size() == 1 && parts[0].link != link.name)) {
    who += " (with ";
    for (size_t k = 0; k < parts.size(); ++k)
      if (parts[k].link != link.name) who += (who.back() == ' ' ? "'" : ", '") + parts[k].link + "'";
    who += " lumped through fixed joints)";
  }
  bool ok = true;
  // Mass: positive and finite.
  const double ownMass = link.inertial ? link.inertial->mass : 0.0;
  if (link.inertial && (!(ownMass >= 0) || !std::isfinite(ownMass))) {
    error(lineOf(nthChild(inertialElem, "mass", 0), line), who + ": mass must be positive (got " + num(ownMass) + ")");
    ok = false;
  }
  double mass = 0;
  Vec3 com = Vec3::Zero();
  for (const LumpedMass::Part& p : parts) mass += p.mass, com += p.mass * p.com;
  if (ok && !(mass > 0)) {
    error(lineOf(nthChild(inertialElem, "mass", 0), line), who + ": mass must be positive (got " + num(mass) + ")");
    ok = false;
  }
  // The inertial frame.
  const Frame inertial = link.inertial ? toFrame(link.inertial->origin) : Frame();
  if (!finite(inertial)) {
    error(lineOf(nthChild(inertialElem, "origin", 0), line), who + ": inertial origin must be finite");
    ok = false;
  }
  if (!ok) return kInvalidBody;
  // The body frame (world) and its inertia in that frame: the head's own inertial frame and inertia
  // when nothing is lumped into it, else the parts' about their common centre of mass.
  Frame body = info.world * inertial;
  Mat3 I;
  if (parts.size() == 1 && parts[0].link == link.name && link.inertial) {
    const urdf::Inertial& in = *link.inertial;
    I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  } else {
    com /= mass;
    Mat3 Iw = Mat3::Zero();
    for (const LumpedMass::Part& p : parts) {
      const Vec3 d = p.com - com;
      Iw += p.inertia + p.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    body.p = com;
    I = body.R.transpose() * Iw * body.R;
  }
  // Inertia: finite, positive definite and satisfying the triangle inequality (as compile() requires),
  // near-degenerate ones repaired.
  if (!checkInertia(who, lineOf(nthChild(inertialElem, "inertia", 0), line), mass, I)) return kInvalidBody;
  BodyDesc b;
  b.name = link.name;
  b.mass = mass;
  b.inertia = I;
  b.position = body.p;
  b.orientation = toQuat(body.R);
  model.bodies.push_back(std::move(b));
  info.inBody = inverse(body) * info.world;
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
  // A link fixed to a body is part of it (its mass was lumped by lumpMasses).
  if (fixed && parent.body != -1) {
    child.body = parent.body;
    if (parent.body != kInvalidBody) child.inBody = parent.inBody * origin;
    return;
  }
  // A head link (moved by the joint, or fixed to the world): massless when it and the links fixed to
  // it carry no mass; then lumped into the world if fixed to it, an error when the joint moves.
  double groupMass = 0;
  for (const LumpedMass::Part& p : lumped_[link.name].parts) groupMass += p.mass;
  const bool massless = !(groupMass > 0);
  if (massless) {
    if (!fixed && link.inertial) {
      error(lineOf(nthChild(inertialElem, "mass", 0), lineOf(inertialElem, linkLine(link.name))),
            "link '" + link.name + "' has zero mass but is moved by " + who + " (" + typeName(joint) +
                "): a moving link needs a positive mass");
      child.body = kInvalidBody;
      return;
    }
    if (!fixed) {
      error(linkLine(link.name), "link '" + link.name + "' has no <inertial> but is moved by " + who + " (" +
                                     typeName(joint) + "): a moving link needs mass; add an <inertial>, collision "
                                     "boxes, cylinders or spheres (their mass at 1000 kg/m³) or make the joint fixed");
      child.body = kInvalidBody;
      return;
    }
    child.body = parent.body;
    child.inBody = parent.inBody * origin;
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
