// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: the kinematic tree. Pass 1 reads the <worldbody> and its nested <body>s with their
// <joint>s and <inertial>s; pass 2 gives each body a host (welded bodies are fused into their
// parent's engine body), makes the engine bodies in centre-of-mass frames with their shapes, and
// turns each body's joint(s) into one engine joint (frames: see the top of mjcf_import.cc).
#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "core/suggest.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

// The worldbody's geoms (planes → grounds, the others → a static body) and its bodies.
void Importer::readWorldbody(const XMLElement* wb) {
  XBody world;
  world.el = wb;
  world.name = "world_static";
  world.parent = -1;
  for (const XMLElement* e = wb->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "geom") {
      XGeom g;
      if (readGeom(e, "main", g)) {
        if (g.plane) planes_.push_back(g);
        else world.geoms.push_back(std::move(g));
      }
    } else if (tag == "site") {
      readSite(e, -1, "main");
    } else if (tag != "body") {
      unsupportedElement(e, tag == "camera" || tag == "light" ? "not used here" : "");
    }
  }
  if (!world.geoms.empty()) bodies_.push_back(std::move(world));
  for (const XMLElement* e = wb->FirstChildElement("body"); e; e = e->NextSiblingElement("body"))
    readBody(e, -1, "main", Pose());
}

void Importer::readBody(const XMLElement* e, int parent, const std::string& inheritedClass, const Pose& parentWorld) {
  checkAttributes(e);
  XBody b;
  b.el = e;
  b.parent = parent;
  std::string childclass = inheritedClass;
  if (const char* c = e->Attribute("childclass")) {
    if (classes_.count(c)) childclass = c;
    else {
      std::vector<std::string> names;
      for (const auto& kv : classes_) names.push_back(kv.first);
      error(e, "childclass", std::string("unknown default class '") + c + "'" + suggestion(c, names));
    }
  }
  b.name = e->Attribute("name") ? e->Attribute("name") : "body" + std::to_string(bodies_.size());
  if (b.name == "world") error(e, "name", "a body may not be named 'world'");
  if (!bodyNames_.insert(b.name).second) error(e, "name", "body '" + b.name + "' is defined twice");
  b.rel = pose(e, "");
  b.world = compose(parentWorld, b.rel);
  const int self = int(bodies_.size());
  bodies_.push_back(b);
  std::vector<const XMLElement*> kids;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "body") kids.push_back(c);
    else if (tag == "geom") {
      XGeom g;
      if (readGeom(c, childclass, g)) bodies_[size_t(self)].geoms.push_back(std::move(g));
    } else if (tag == "joint" || tag == "freejoint") {
      XJoint j;
      if (readJoint(c, childclass, j)) bodies_[size_t(self)].joints.push_back(std::move(j));
    } else if (tag == "inertial") {
      readInertial(c, bodies_[size_t(self)]);
    } else if (tag == "site") {
      readSite(c, self, childclass);
    } else {
      unsupportedElement(c, tag == "camera" || tag == "light" ? "not used here" : "");
    }
  }
  const Pose world = bodies_[size_t(self)].world;
  for (const XMLElement* c : kids) readBody(c, self, childclass, world);
}

void Importer::readInertial(const XMLElement* e, XBody& b) {
  checkAttributes(e);
  if (b.hasInertial) {
    error(e, "a body has one <inertial>");
    return;
  }
  b.hasInertial = true;
  const Pose p = pose(e, "");
  b.com = p.t;
  if (!number(e, "mass", "", b.mass)) error(e, "<inertial> needs a mass");
  else if (b.mass < 0) error(e, "mass", "the mass is negative (" + num(b.mass) + ")");
  const char* diag = e->Attribute("diaginertia");
  const char* full = e->Attribute("fullinertia");
  if (diag && full) error(e, "fullinertia", "<inertial> gives both diaginertia and fullinertia");
  if (diag) {
    Numbers n = numbers(e, "diaginertia", diag, 3);
    if (!n.ok) return;
    const Mat3 R = quat::rotation(p.q);
    b.inertia = R * Vec3(n.v[0], n.v[1], n.v[2]).asDiagonal() * R.transpose();
    b.inertia = 0.5 * (b.inertia + b.inertia.transpose()).eval();
  } else if (full) {
    Numbers n = numbers(e, "fullinertia", full, 6);
    if (!n.ok) return;
    Mat3 I;
    I << n.v[0], n.v[3], n.v[4], n.v[3], n.v[1], n.v[5], n.v[4], n.v[5], n.v[2];
    const Mat3 R = quat::rotation(p.q);
    b.inertia = p.q == quat::identity() ? I : Mat3(R * I * R.transpose());
  } else {
    error(e, "<inertial> needs diaginertia or fullinertia");
  }
}

bool Importer::readJoint(const XMLElement* e, const std::string& inherited, XJoint& j) {
  checkAttributes(e);
  j.el = e;
  if (std::string(e->Name()) == "freejoint") {
    j.type = "free";
    j.name = e->Attribute("name") ? e->Attribute("name") : "";
    return true;
  }
  const std::string cls = classOf(e, inherited);
  const char* type = attr(e, "type", cls);
  j.type = type ? type : "hinge";
  if (j.type != "hinge" && j.type != "slide" && j.type != "ball" && j.type != "free") {
    error(e, "type", "unknown joint type '" + j.type + "' (MJCF has hinge, slide, ball and free)" +
                         suggestion(j.type, {"hinge", "slide", "ball", "free"}));
    return false;
  }
  j.name = e->Attribute("name") ? e->Attribute("name") : "";
  vec3(e, "pos", cls, j.pos);
  if (vec3(e, "axis", cls, j.axis) && j.axis.norm() == 0) {
    error(e, "axis", "the joint axis is zero");
    return false;
  }
  j.axis.normalize();
  const double scale = j.type == "hinge" ? angleScale_ : 1.0;
  if (number(e, "ref", cls, j.ref)) j.ref *= scale;
  number(e, "stiffness", cls, j.stiffness);
  if (number(e, "springref", cls, j.springref)) j.springref *= scale;
  number(e, "damping", cls, j.damping);
  number(e, "armature", cls, j.armature);
  if (j.stiffness < 0 || j.damping < 0 || j.armature < 0)
    error(e, "joint stiffness, damping and armature must not be negative");
  const char* range = attr(e, "range", cls);
  j.limited = boolean(e, "limited", cls, autolimits_ && range != nullptr);
  if (j.limited) {
    if (!range) {
      error(e, "limited", "a limited joint needs a range");
      return false;
    }
    Numbers n = numbers(e, "range", range, 2);
    if (!n.ok) return false;
    j.lower = n.v[0] * scale;
    j.upper = n.v[1] * scale;
    if (!(j.lower < j.upper)) {
      error(e, "range", "the range's lower end " + num(n.v[0]) + " is not below its upper end " + num(n.v[1]));
      return false;
    }
    if (j.type == "ball" || j.type == "free") {
      warning(e, "range", "limits of " + j.type + " joints are not supported; the joint is not limited");
      j.limited = false;
    }
  }
  return true;
}

// Hosts: a body with a joint, or a jointless child of the world, has its own engine body; any other
// jointless body is part of its parent's.
void Importer::assignHosts() {
  for (size_t i = 0; i < bodies_.size(); ++i) {
    XBody& b = bodies_[i];
    if (!b.joints.empty() || b.parent < 0) {
      b.host = int(i);
      b.inHost = Pose();
    } else {
      const XBody& p = bodies_[size_t(b.parent)];
      b.host = p.host;
      b.inHost = compose(p.inHost, b.rel);
    }
  }
  // Own mass properties: <inertial>, or the geoms'.
  for (XBody& b : bodies_) {
    const bool fromGeoms = inertiaFromGeom_ == "true" || (inertiaFromGeom_ == "auto" && !b.hasInertial);
    if (!fromGeoms) continue;
    b.mass = 0;
    b.com.setZero();
    for (const XGeom& g : b.geoms) b.mass += g.mass, b.com += g.mass * g.com;
    if (b.mass > 0) b.com /= b.mass;
    b.inertia.setZero();
    for (const XGeom& g : b.geoms) {
      const Vec3 d = g.com - b.com;
      b.inertia += g.inertia + g.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
  }
  // Host totals.
  for (XBody& h : bodies_) {
    if (h.host != int(&h - bodies_.data())) continue;
    double m = 0;
    Vec3 c = Vec3::Zero();
    for (const XBody& b : bodies_)
      if (&bodies_[size_t(b.host)] == &h) m += b.mass, c += b.mass * apply(b.inHost, b.com);
    h.hostMass = m;
    h.hostCom = m > 0 ? Vec3(c / m) : Vec3::Zero();
    Mat3 I = Mat3::Zero();
    for (const XBody& b : bodies_) {
      if (&bodies_[size_t(b.host)] != &h) continue;
      const Mat3 R = quat::rotation(b.inHost.q);
      const Vec3 d = apply(b.inHost, b.com) - h.hostCom;
      I += (b.inHost.q == quat::identity() ? b.inertia : Mat3(R * b.inertia * R.transpose())) +
           b.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    h.hostInertia = I;
  }
}

namespace {

// True when I is a body inertia: finite, positive definite, and its principal moments satisfy the
// triangle inequality.
bool inertiaValid(const Mat3& I) {
  if (!I.allFinite()) return false;
  Eigen::SelfAdjointEigenSolver<Mat3> eig(0.5 * (I + I.transpose()));
  const Vec3 m = eig.eigenvalues();
  const double tol = 1e-12 * std::max(1.0, m.maxCoeff());
  return m.minCoeff() > 0 && m(0) + m(1) >= m(2) - tol && m(0) + m(2) >= m(1) - tol && m(1) + m(2) >= m(0) - tol;
}

}  // namespace

void Importer::makeBodies() {
  for (size_t i = 0; i < bodies_.size(); ++i) {
    XBody& h = bodies_[i];
    if (h.host != int(i)) continue;
    const bool moving = !h.joints.empty();
    BodyDesc d;
    d.name = h.name;
    d.mass = h.hostMass;
    d.inertia = h.hostInertia;
    if (!(d.mass > 0)) {
      if (moving) {
        error(h.el, "body '" + h.name + "' has no mass: give it an <inertial> or geoms with volume or mass");
        continue;
      }
      // A static body's mass does not matter (it is fixed to the world).
      d.mass = 1;
      d.inertia = Mat3::Identity();
    } else if (!inertiaValid(d.inertia)) {
      if (moving) {
        error(h.el, "body '" + h.name + "': its inertia " +
                        (d.inertia.isZero() ? std::string("is zero (its mass is given on geoms without a volume, e.g. a mesh that "
                                                          "could not be read): give it an <inertial>")
                                            : std::string("is not positive definite or violates the triangle inequality")));
        continue;
      }
      d.inertia = d.mass * Mat3::Identity();
    }
    d.position = apply(h.world, h.hostCom);
    d.orientation = canonical(h.world.q);
    h.engine = int(model_.bodies.size());
    model_.bodies.push_back(std::move(d));
  }
  // Shapes, in the host's engine frame.
  for (size_t i = 0; i < bodies_.size(); ++i) {
    const XBody& b = bodies_[i];
    const int e = bodies_[size_t(b.host)].engine;
    if (e < 0) continue;
    BodyDesc& d = model_.bodies[size_t(e)];
    const Pose f = engineFrame(int(i));
    bool first = true;
    std::uint32_t type = 0, affinity = 0;
    for (const XGeom& g : b.geoms) {
      if (g.plane) shapeOnBody(d, f, g);
      if (!g.usable || g.plane) continue;
      ShapeDesc s = g.shape;
      const Pose sp = compose(f, Pose{s.position, s.orientation});
      s.position = sp.t;
      s.orientation = canonical(sp.q);
      if (g.visible) {
        ShapeDesc v = s;
        v.meshVertices.clear();
        d.visuals.push_back(std::move(v));
      }
      if (!g.name.empty()) geomByName_[g.name] = {e, -1};
      if (!g.collides || (s.kind == ShapeDesc::Kind::Mesh && s.meshVertices.empty())) continue;
      // The geom's own masks (the body's are or-ed below, for the broad phase).
      s.contype = g.contype;
      s.conaffinity = g.conaffinity;
      d.collisions.push_back(std::move(s));
      // The body's friction and masks: the first colliding geom's friction, the geoms' masks or-ed.
      if (first) d.friction = g.friction;
      else if (g.friction != d.friction)
        warnOnce("geom-friction", src_.attribute(g.el, "friction"),
                 "geoms of one body with different frictions: the body's contacts use the first one's");
      first = false;
      type |= g.contype, affinity |= g.conaffinity;
    }
    if (!first) d.contype = type, d.conaffinity = affinity;
  }
}

// A plane on a moving body: a shape (it does not collide with the grounds).
void Importer::shapeOnBody(BodyDesc& d, const Pose& f, const XGeom& g) {
  ShapeDesc s = g.shape;
  const Pose sp = compose(f, Pose{s.position, s.orientation});
  s.position = sp.t;
  s.orientation = canonical(sp.q);
  if (g.visible) d.visuals.push_back(s);
  if (g.collides) d.collisions.push_back(s);
}

// The engine joint of each moving host; static hosts are fixed to the world.
void Importer::makeJoints() {
  // Names: the file's (unique), then generated ones that do not clash with them.
  std::set<std::string> used;
  for (const char* tag : {"actuator", "tendon", "equality"})
    for (const XMLElement* e = root_->FirstChildElement(tag); e; e = e->NextSiblingElement(tag)) collectUsedJoints(e);
  for (const XBody& b : bodies_)
    for (const XJoint& x : b.joints)
      if (!x.name.empty() && !used.insert(x.name).second) error(x.el, "name", "joint '" + x.name + "' is defined twice");
  for (size_t i = 0; i < bodies_.size(); ++i) {
    const XBody& b = bodies_[i];
    if (b.host != int(i) || b.engine < 0) continue;
    // The parent's engine body and this frame's pose in the parent's engine frame.
    int parentEngine = -1;
    Pose rel = b.rel;
    if (b.parent >= 0) {
      parentEngine = bodies_[size_t(bodies_[size_t(b.parent)].host)].engine;
      rel = compose(engineFrame(b.parent), b.rel);
    }
    const Vec3 c = b.hostCom;
    if (b.joints.empty()) {
      // Welded to the world.
      JointDesc j;
      j.name = uniqueJointName(used, b.name + "_weld");
      j.type = JointType::Fixed;
      j.parent = -1;
      j.child = b.engine;
      j.parentAnchor = apply(rel, c);
      j.childAnchor = Vec3::Zero();
      j.offset = canonical(rel.q);
      model_.joints.push_back(std::move(j));
      continue;
    }
    if (b.joints.size() > 1) {
      // Several joints: one engine joint with the same motion when nothing of the parts is lost
      // (combinedJoint), else a chain of links, one engine joint per MJCF joint (jointChain).
      JointDesc j;
      if (!combinable(b) || !combinedJoint(b, j)) {
        jointChain(b, rel, parentEngine, used);
        continue;
      }
      j.name = uniqueJointName(used, b.name + "_joint");
      j.parent = parentEngine;
      j.child = b.engine;
      j.offset = canonical(rel.q);
      const Vec3 point = j.childAnchor;  // combinedJoint: the joint point in b's frame
      j.childAnchor = point - c;
      j.parentAnchor = apply(rel, point);
      for (const XJoint& x : b.joints)
        if (!x.name.empty()) combinedJoints_[x.name] = j.name;
      combinedAliases(b, int(model_.joints.size()));
      model_.joints.push_back(std::move(j));
      continue;
    }
    const XJoint& x = b.joints[0];
    if (x.type == "free") {
      if (b.parent >= 0) error(x.el, "a free joint is allowed only in a body of the worldbody");
      continue;  // a free body
    }
    JointDesc j = engineJoint(x, rel, c);
    j.name = x.name.empty() ? uniqueJointName(used, b.name + "_joint") : x.name;
    j.parent = parentEngine;
    j.child = b.engine;
    engineJointOf_[x.el] = int(model_.joints.size());
    if (!x.name.empty()) jointByName_[x.name] = int(model_.joints.size());
    model_.joints.push_back(std::move(j));
  }
}

// One MJCF joint (not free) as an engine joint between a parent link and a child link whose frames
// are both MJCF body b's frame at the joint's ref up to a translation: `rel` is b's frame in the
// parent link's frame, `origin` the child link's origin (centre of mass) in b's frame.
JointDesc Importer::engineJoint(const XJoint& x, const Pose& rel, const Vec3& origin) const {
  JointDesc j;
  j.axis = x.axis;
  j.childAnchor = x.pos - origin;
  j.parentAnchor = apply(rel, x.pos);
  if (x.type == "hinge") {
    j.type = JointType::Revolute;
    j.offset = x.ref == 0 ? rel.q : quat::mul(rel.q, quat::fromAxisAngle(x.axis, -x.ref));
  } else if (x.type == "slide") {
    j.type = JointType::Prismatic;
    j.offset = rel.q;
    if (x.ref != 0) j.parentAnchor = apply(rel, x.pos - x.ref * x.axis);
  } else {
    j.type = JointType::Spherical;
    j.offset = rel.q;
  }
  j.offset = canonical(j.offset.normalized());
  if (x.type != "ball") {
    if (x.ref != 0) j.initialPosition = {x.ref};
    if (x.stiffness != 0) j.stiffness = {x.stiffness}, j.restPosition = {x.springref};
    if (x.damping != 0) j.damping = {x.damping};
    if (x.armature != 0) j.armature = {x.armature};
    if (x.limited) j.lowerLimit = {x.lower}, j.upperLimit = {x.upper};
  } else {
    if (x.stiffness != 0) j.stiffness = {x.stiffness};
    if (x.damping != 0) j.damping = {x.damping};
    if (x.armature != 0) j.armature = {x.armature};
  }
  return j;
}

// The joints named in e's subtree (joint, joint1, joint2 attributes) into jointsUsed_.
void Importer::collectUsedJoints(const XMLElement* e) {
  for (const char* a : {"joint", "joint1", "joint2"})
    if (const char* n = e->Attribute(a)) jointsUsed_.insert(n);
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) collectUsedJoints(c);
}

// Whether the joints of body b may be combined into one engine joint without losing anything of
// them: every one at ref 0, without spring, damper, armature or limit, and named by no actuator, tendon or
// equality (each of those needs the joint's own coordinate), in a model without keyframes.
bool Importer::combinable(const XBody& b) const {
  if (keyframes_) return false;  // a key's qpos sets each joint's own coordinate
  for (const XJoint& x : b.joints)
    if (x.ref != 0 || x.stiffness != 0 || x.damping != 0 || x.armature != 0 || x.limited ||
        (!x.name.empty() && jointsUsed_.count(x.name)))
      return false;
  return true;
}

// The joints of body b, in their order, as a chain of links: parent → joint 1 → link 1 → joint 2 →
// … → joint n → b, the way MuJoCo composes them (each joint's axis and point move with the joints
// before it). A link is a small body (kLinkMassRatio of b's mass and inertia, no shapes, not
// colliding) at the next joint's point, in b's orientation at the joints' refs; parent and b keep
// MuJoCo's parent–child rule (they do not collide).
void Importer::jointChain(const XBody& b, const Pose& rel, int parentEngine, std::set<std::string>& used) {
  for (const XJoint& x : b.joints)
    if (x.type == "free") {
      error(x.el, "a free joint must be the only joint of its body ('" + b.name + "')");
      return;
    }
  Pose linkRel = rel;  // b's frame in the current parent link's frame
  int parent = parentEngine;
  for (size_t k = 0; k < b.joints.size(); ++k) {
    const XJoint& x = b.joints[k];
    const bool last = k + 1 == b.joints.size();
    const Vec3 origin = last ? b.hostCom : b.joints[k + 1].pos;
    const std::string label = x.name.empty() ? "joint" + std::to_string(k + 1) : x.name;
    int child = b.engine;
    if (!last) {
      // The link after this joint.
      BodyDesc d;
      d.name = b.name + "/" + label;
      for (int n = 2; bodyNames_.count(d.name); ++n) d.name = b.name + "/" + label + "_" + std::to_string(n);
      bodyNames_.insert(d.name);
      const BodyDesc& host = model_.bodies[size_t(b.engine)];
      d.mass = kLinkMassRatio * host.mass;
      d.inertia = kLinkMassRatio * host.inertia;
      d.position = apply(b.world, origin);
      d.orientation = canonical(b.world.q);
      d.contype = d.conaffinity = 0;
      child = int(model_.bodies.size());
      model_.bodies.push_back(std::move(d));
    }
    JointDesc j = engineJoint(x, linkRel, origin);
    j.name = x.name.empty() ? uniqueJointName(used, b.name + "_joint" + std::to_string(k + 1)) : x.name;
    j.parent = parent;
    j.child = child;
    engineJointOf_[x.el] = int(model_.joints.size());
    if (!x.name.empty()) jointByName_[x.name] = int(model_.joints.size());
    model_.joints.push_back(std::move(j));
    linkRel = Pose{-origin, quat::identity()};
    parent = child;
  }
  if (parentEngine >= 0) model_.exclusions.push_back({parentEngine, b.engine});
}

// The engine joint whose motion is that of several hinges and slides of one body, all at their
// reference 0 and without forces of their own (combinable; MuJoCo composes them, the configuration
// space is the same), when each MJCF joint's coordinate is a linear function of the engine joint's
// (so it stays readable by its name, Model::aliases):
//   2 slides → planar (normal a₁ × a₂), 3 slides → fixed-orientation, 2 slides ⊥ a hinge after them
//   → planar-axis (the slides move the hinge's point along their axes), a hinge and a slide along one
//   axis → cylindrical.
// Sets type, axis and (in childAnchor) the joint point in the body's frame; false for any other
// combination (jointChain makes those: three hinges compose Euler angles, and a hinge before a slide
// turns the slide's axis).
bool Importer::combinedJoint(const XBody& b, JointDesc& j) {
  std::vector<const XJoint*> hinges, slides;
  for (const XJoint& x : b.joints) {
    if (x.type == "hinge") hinges.push_back(&x);
    else if (x.type == "slide") slides.push_back(&x);
    else return false;
  }
  auto independent = [](const std::vector<const XJoint*>& js) {
    if (js.size() == 2) return js[0]->axis.cross(js[1]->axis).norm() > 1e-9;
    if (js.size() == 3) {
      Mat3 A;
      A << js[0]->axis, js[1]->axis, js[2]->axis;
      return std::abs(A.determinant()) > 1e-9;
    }
    return true;
  };
  const size_t nh = hinges.size(), ns = slides.size();
  bool ok = independent(hinges) && independent(slides);
  j.childAnchor = nh > 0 ? hinges[0]->pos : slides[0]->pos;
  for (const XJoint* h : hinges) ok = ok && (h->pos - hinges[0]->pos).norm() <= 1e-9;
  if (ok && nh == 0 && ns == 2) {
    j.type = JointType::Planar;
    j.axis = slides[0]->axis.cross(slides[1]->axis).normalized();
  } else if (ok && nh == 0 && ns == 3) {
    j.type = JointType::FixedOrientation;
  } else if (ok && nh == 1 && ns == 2 && std::abs(slides[0]->axis.dot(hinges[0]->axis)) < 1e-9 &&
             std::abs(slides[1]->axis.dot(hinges[0]->axis)) < 1e-9 && b.joints.back().type == "hinge") {
    j.type = JointType::PlanarAxis;
    j.axis = hinges[0]->axis;
  } else if (ok && nh == 1 && ns == 1 && slides[0]->axis.cross(hinges[0]->axis).norm() < 1e-9) {
    j.type = JointType::Cylindrical;
    j.axis = hinges[0]->axis;
  } else {
    return false;
  }
  return true;
}

// The names of the MJCF joints combined into engine joint `joint` (of body b): a slide's coordinate
// is w·Δ with w the row of the pseudo-inverse of the slides' axes [a₁ … aₙ] (Δ = Σ qᵢ aᵢ in the body's
// frame, the joint frame), a hinge's is the rotation about its axis.
void Importer::combinedAliases(const XBody& b, int joint) {
  std::vector<const XJoint*> slides;
  for (const XJoint& x : b.joints)
    if (x.type == "slide") slides.push_back(&x);
  Eigen::Matrix<double, 3, Eigen::Dynamic> A(3, slides.size());
  for (size_t i = 0; i < slides.size(); ++i) A.col(Eigen::Index(i)) = slides[i]->axis.normalized();
  const Eigen::MatrixXd W = (A.transpose() * A).inverse() * A.transpose();
  size_t slide = 0;
  for (const XJoint& x : b.joints) {
    CoordinateAlias a;
    a.name = x.name;
    a.joint = joint;
    a.angular = x.type == "hinge";
    a.direction = a.angular ? Vec3(x.axis.normalized()) : Vec3(W.row(Eigen::Index(slide)).transpose());
    slide += !a.angular;
    if (!x.name.empty()) model_.aliases.push_back(std::move(a));
  }
}

// `want`, or want_2, want_3 … when taken.
std::string Importer::uniqueJointName(std::set<std::string>& used, const std::string& want) {
  std::string n = want;
  for (int k = 2; used.count(n); ++k) n = want + "_" + std::to_string(k);
  used.insert(n);
  return n;
}

// The engine body and frame of an MJCF body named by attribute `a` of e (required unless optional);
// -1 for the world. False (with an error) for unknown names.
// A site's frame (sites carry no mass and take no part in contacts; the equalities may name them).
void Importer::readSite(const XMLElement* e, int body, const std::string& inherited) {
  checkAttributes(e);
  const char* name = e->Attribute("name");
  if (!name) return;  // nothing can name it
  XSite site;
  site.el = e;
  site.body = body;
  site.rel = pose(e, classOf(e, inherited));
  if (!sites_.emplace(name, site).second) error(e, "name", std::string("site '") + name + "' is defined twice");
}

const XSite* Importer::siteRef(const XMLElement* e, const char* a) {
  const char* n = e->Attribute(a);
  if (!n) {
    error(e, std::string("<") + e->Name() + "> needs " + a);
    return nullptr;
  }
  const auto it = sites_.find(n);
  if (it != sites_.end()) return &it->second;
  std::vector<std::string> names;
  for (const auto& kv : sites_) names.push_back(kv.first);
  error(e, a, std::string("unknown site '") + n + "'" + suggestion(n, names));
  return nullptr;
}

bool Importer::bodyRef(const XMLElement* e, const char* a, bool optional, int& xbody) {
  const char* n = e->Attribute(a);
  xbody = -1;
  if (!n) {
    if (!optional) error(e, std::string("<") + e->Name() + "> needs " + a);
    return optional;
  }
  if (std::string(n) == "world") return true;
  for (size_t i = 0; i < bodies_.size(); ++i)
    if (bodies_[i].name == n && bodies_[i].el != root_->FirstChildElement("worldbody")) {
      xbody = int(i);
      return true;
    }
  std::vector<std::string> names;
  for (const XBody& b : bodies_) names.push_back(b.name);
  error(e, a, std::string("unknown body '") + n + "'" + suggestion(n, names));
  return false;
}

}  // namespace ms::mjcf_detail
