// SPDX-License-Identifier: GPL-3.0-or-later
// Model → URDF. The mapping and its choices are described in urdf_writer.h and docs/import-export.md.
// Frames, for a tree joint k placing body C under body P (or the world) with child anchor p_b:
//   link frame of a body B = B's centre-of-mass frame moved to its point c_B (c_C = p_b of k; 0 for
//   a root body), unrotated; the <inertial> origin is then −c_B;
//   k's <origin> = the child link frame in the parent link frame at the reference state:
//     rotation R = q (child orientation relative to the parent, from joint_placement.h),
//     xyz = x + R c_C − c_P   (x: the child's centre of mass in the parent's frame);
//   <axis> = the joint's unit axis V3 (joint frame = child frame at zero coordinates about it).
// For a revolute joint the child link origin is the joint point (x + R p_b = p_a), so URDF's rotation
// about the child link origin is the engine's; URDF's importer (urdf_import.cc) maps this back to
// anchors p_a, p_b, offset R·exp(a θ₀) and axis a with zero initial coordinates.
#include "io/xml_text.h"
#include "io/urdf_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <numeric>
#include <set>
#include <sstream>

#include "core/check.h"
#include "core/quaternion.h"
#include "model/joint_tree.h"
#include "system/initial_conditions.h"
#include "system/joint_placement.h"

namespace ms {
namespace {

using xml::escape;
using xml::number;
using xml::vector3;

namespace fs = std::filesystem;

// Joint types URDF has (revolute/continuous, prismatic, fixed, floating, planar).
bool urdfType(JointType t) {
  return t == JointType::Revolute || t == JointType::Prismatic || t == JointType::Fixed || t == JointType::Floating ||
         t == JointType::PlanarAxis;
}



// Text inside an XML comment ("--" is not allowed there).
std::string commentText(std::string s) {
  for (size_t at = s.find("--"); at != std::string::npos; at = s.find("--", at)) s.replace(at, 2, "- -");
  return s;
}

// A name not used yet among `used`: `preferred`, or `fallback` when it is empty, taken or "world".
std::string uniqueName(std::set<std::string>& used, const std::string& preferred, const std::string& fallback) {
  std::string n = preferred.empty() || used.count(preferred) || preferred == "world" ? fallback : preferred;
  for (int k = 2; used.count(n); ++k) n = fallback + "_" + std::to_string(k);
  used.insert(n);
  return n;
}

// Roll, pitch, yaw of a rotation (URDF: R = Rz(yaw)·Ry(pitch)·Rx(roll)). Roll first, then pitch and
// yaw from R·Rx(roll)ᵀ = Rz(yaw)·Ry(pitch), whose entries are of order one even at pitch = ±π/2, so
// the three angles reproduce R to rounding also near that singularity.
Vec3 rpyOf(const Mat3& R) {
  const double roll = std::atan2(R(2, 1), R(2, 2));
  const Mat3 Rzy = R * Eigen::AngleAxisd(roll, Vec3::UnitX()).toRotationMatrix().transpose();
  const double pitch = std::atan2(-Rzy(2, 0), Rzy(2, 2));
  const double yaw = std::atan2(-Rzy(0, 1), Rzy(1, 1));
  return Vec3(roll, pitch, yaw);
}

// <origin xyz rpy/> of a pose.
std::string originElement(const Vec3& xyz, const Mat3& R) {
  return "<origin xyz=\"" + vector3(xyz) + "\" rpy=\"" + vector3(rpyOf(R)) + "\"/>";
}

// The geometry element of a primitive shape (kind Box, Sphere or Cylinder; size as ShapeDesc).
std::string geometryElement(ShapeDesc::Kind kind, const Vec3& size) {
  switch (kind) {
    case ShapeDesc::Kind::Box: return "<box size=\"" + vector3(size) + "\"/>";
    case ShapeDesc::Kind::Sphere: return "<sphere radius=\"" + number(size.x()) + "\"/>";
    case ShapeDesc::Kind::Cylinder:
      return "<cylinder radius=\"" + number(size.x()) + "\" length=\"" + number(size.y()) + "\"/>";
    default: MS_ASSERT(false, "not a primitive URDF shape");
  }
  return {};
}

// "a", "a and b", "a, b and c".
std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// The joints of the model that URDF cannot hold: loops (a joint closing a cycle of the joint graph),
// bodies with two parent joints, and joint types URDF lacks; one line each.
std::vector<std::string> unconvertible(const Model& m) {
  std::vector<std::string> why;
  // Joint types URDF lacks: one line per type, naming its joints.
  for (int t = 0; t < kNumJointTypes; ++t) {
    const JointKind& kind = jointKindAt(t);
    if (urdfType(kind.type)) continue;
    std::vector<std::string> names;
    for (const JointDesc& j : m.joints)
      if (j.type == kind.type) names.push_back("'" + j.name + "'");
    if (names.empty()) continue;
    why.push_back((names.size() == 1 ? "joint " : "joints ") + listed(names) + " (" + kind.name +
                  "): URDF has no such joint (it has revolute, continuous, prismatic, fixed, floating and planar)");
  }
  // Union–find over the world (0) and the bodies (index + 1), joined along the spanning tree.
  const JointTree tree = buildJointTree(m);
  std::vector<int> root(m.bodies.size() + 1);
  std::iota(root.begin(), root.end(), 0);
  std::function<int(int)> find = [&](int a) {
    return root[size_t(a)] == a ? a : root[size_t(a)] = find(root[size_t(a)]);
  };
  for (int k : tree.treeJoints)
    root[size_t(find(m.joints[size_t(k)].child + 1))] = find(m.joints[size_t(k)].parent + 1);
  // Each other joint closes a loop (its two sides are already connected) or makes its child the
  // child of a second joint (a URDF link has one parent joint).
  std::vector<std::string> loops;
  for (int k : tree.loopJoints) {
    const JointDesc& j = m.joints[size_t(k)];
    if (j.child < 0 || j.child >= int(m.bodies.size()) || j.parent < -1 || j.parent >= int(m.bodies.size())) continue;
    const int a = find(j.parent + 1), b = find(j.child + 1);
    if (a == b) {
      loops.push_back("'" + j.name + "'");
      continue;
    }
    root[size_t(b)] = a;
    const int other = tree.parentJoint[size_t(j.child)];
    why.push_back("joint '" + j.name + "': body '" + m.bodies[size_t(j.child)].name +
                  "' is already the child of joint '" + (other >= 0 ? m.joints[size_t(other)].name : std::string("?")) +
                  "', and a URDF link has one parent joint (make '" + m.bodies[size_t(j.child)].name +
                  "' the parent of one of them)");
  }
  if (!loops.empty())
    why.insert(why.begin(), std::string("the model has kinematic loops, closed by joint") +
                                (loops.size() > 1 ? "s " : " ") + listed(loops) +
                                ": URDF describes trees only (no file is written)");
  return why;
}

// Joint and body properties URDF has no place for, as notes.
void modelNotes(const Model& m, std::vector<std::string>& notes) {
  auto count = [](size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  if (!m.springs.empty())
    notes.push_back(count(m.springs.size(), "spring") + " between bodies not written (URDF has no springs)");
  if (!m.actuators.empty())
    notes.push_back(count(m.actuators.size(), "actuator") + " not written (URDF describes no efforts)");
  if (!m.tendons.empty()) notes.push_back(count(m.tendons.size(), "tendon") + " not written (URDF has none)");
  if (!m.controllers.empty())
    notes.push_back(count(m.controllers.size(), "controller") + " not written (URDF has no controllers)");
  if (!m.wrenches.empty())
    notes.push_back(count(m.wrenches.size(), "wrench") + " not written (URDF has no external forces)");
  if (!m.grounds.empty()) notes.push_back(count(m.grounds.size(), "ground") + " not written (URDF has no environment)");
  if (!m.contactPairs.empty())
    notes.push_back(count(m.contactPairs.size(), "contact pair") + " not written (URDF has no contact pairs)");
  if (!m.exclusions.empty())
    notes.push_back(count(m.exclusions.size(), "collision exclusion") + " not written (URDF has no collision filters)");
  if (m.collisions == CollisionMode::Pairs || (m.collisions == CollisionMode::All && selfCollisionMatters(m)))
    notes.push_back(std::string("the collision mode '") + (m.collisions == CollisionMode::All ? "all" : "pairs") +
                    "' is not written (URDF has none; MechStudio reads a URDF without self-collision, as Gazebo "
                    "and PyBullet do)");
  if (!m.keyframes.empty())
    notes.push_back(count(m.keyframes.size(), "keyframe") + " not written (URDF has no states)");
  if (m.gravity != Vec3(0, 0, -9.81))
    notes.push_back("gravity (" + vector3(m.gravity) + ") not written (URDF has none; importers use 0 0 -9.81)");
  const SolverSettings d;
  const SolverSettings& s = m.solver;
  if (s.dt != d.dt || s.tolerance != d.tolerance || s.complementarityTolerance != d.complementarityTolerance ||
      s.maxIterations != d.maxIterations || s.maxLineSearch != d.maxLineSearch ||
      s.frictionDirections != d.frictionDirections)
    notes.push_back("solver settings (dt = " + number(s.dt) + " s, ...) not written (URDF has none)");
  bool friction = false, filters = false, planes = false, capsules = false;
  for (const BodyDesc& b : m.bodies) {
    friction = friction || b.friction != BodyDesc().friction;
    filters = filters || b.contype != 1 || b.conaffinity != 1;
    for (const auto* shapes : {&b.visuals, &b.collisions})
      for (const ShapeDesc& sh : *shapes) {
        planes = planes || sh.kind == ShapeDesc::Kind::Plane;
        capsules = capsules || sh.kind == ShapeDesc::Kind::Capsule;
      }
  }
  if (friction) notes.push_back("body friction coefficients not written (URDF has none)");
  if (filters) notes.push_back("contype/conaffinity collision filters not written (URDF has none)");
  if (capsules)
    notes.push_back("capsules written as a cylinder and two spheres (URDF has no capsule; their union is the capsule)");
  if (planes) notes.push_back("planes on bodies not written (URDF has no plane)");
}

// A mesh file name as the URDF should carry it (see UrdfWriteOptions).
std::string meshName(const std::string& name, const UrdfWriteOptions& o) {
  if (name.find("://") != std::string::npos || fs::path(name).is_absolute()) return name;
  std::error_code ec;
  fs::path p = fs::path(o.meshBaseDir.empty() ? "." : o.meshBaseDir) / name;
  p = fs::absolute(p, ec).lexically_normal();
  if (o.outputDir.empty()) return p.string();
  const fs::path out = fs::absolute(fs::path(o.outputDir), ec).lexically_normal();
  const fs::path rel = p.lexically_relative(out);
  return rel.empty() ? p.string() : rel.generic_string();
}

}  // namespace

void checkUrdfConvertible(const Model& model) {
  const std::vector<std::string> why = unconvertible(model);
  std::string all;
  for (const std::string& w : why) all += (all.empty() ? "" : "\n") + w;
  if (!all.empty()) throw UserError(all);
}

std::string writeUrdf(const Model& model, const UrdfWriteOptions& options, std::vector<std::string>* notes) {
  checkUrdfConvertible(model);
  const std::shared_ptr<const CompiledSystem> sys = compile(model);
  const State s = makeInitialState(*sys, sys->model);
  return writeUrdf(*sys, s, options, notes);
}

std::string writeUrdf(const CompiledSystem& sys, const State& ref, const UrdfWriteOptions& options,
                      std::vector<std::string>* notesOut) {
  const Model& m = sys.model;
  checkUrdfConvertible(m);
  MS_ASSERT(ref.bodies.size() == m.bodies.size(), "reference state of another system");
  const int nb = int(m.bodies.size());
  const JointTree tree = buildJointTree(m);
  std::vector<std::string> notes;

  // Names: the model's where URDF accepts them (unique links, unique joints, "world" reserved).
  std::set<std::string> linkNames{"world"}, jointNames;
  std::vector<std::string> link(static_cast<size_t>(nb)), jointName(m.joints.size()),
      rootJoint(static_cast<size_t>(nb));
  for (int i = 0; i < nb; ++i) {
    link[size_t(i)] = uniqueName(linkNames, m.bodies[size_t(i)].name, "body" + std::to_string(i));
    if (link[size_t(i)] != m.bodies[size_t(i)].name)
      notes.push_back("body '" + m.bodies[size_t(i)].name + "' written as link '" + link[size_t(i)] + "'");
  }
  for (int k : tree.treeJoints) {
    const std::string& n = m.joints[size_t(k)].name;
    jointName[size_t(k)] = uniqueName(jointNames, n, "joint" + std::to_string(k));
    if (jointName[size_t(k)] != n) notes.push_back("joint '" + n + "' written as '" + jointName[size_t(k)] + "'");
  }
  for (int i = 0; i < nb; ++i)
    if (tree.parentJoint[size_t(i)] < 0)
      rootJoint[size_t(i)] = uniqueName(jointNames, link[size_t(i)] + "_floating", "floating" + std::to_string(i));

  // Link frames: each body's frame moved to its joint point c (the tree joint's child anchor).
  std::vector<Vec3> c(static_cast<size_t>(nb), Vec3::Zero());
  for (int k : tree.treeJoints) c[size_t(m.joints[size_t(k)].child)] = fullJointGeometry(sys.joints[size_t(k)]).pb;

  // Initial coordinates that are not zero, and initial velocities: the URDF starts at the pose, at rest.
  std::vector<std::string> shifted;
  for (int k : tree.treeJoints) {
    const JointPlacement p = placeJointChild(sys.joints[size_t(k)], ref);
    const int nf = jointKind(m.joints[size_t(k)].type).freeCoordinates();
    if (nf > 0 && p.theta0.head(nf).cwiseAbs().maxCoeff() > 0)
      shifted.push_back("'" + m.joints[size_t(k)].name + "'" + (nf == 1 ? " (" + number(p.theta0(0)) + ")" : ""));
  }
  if (!shifted.empty()) {
    const std::string list = listed(shifted);
    const bool one = shifted.size() == 1;
    notes.push_back(
        "URDF has no initial configuration: joint" + std::string(one ? " " : "s ") + list +
        (one ? " starts at non-zero coordinates, so its frame is"
             : " start at non-zero coordinates, so their frames are") +
        " written at the initial pose (the URDF's zero configuration is the model's initial pose; limits are "
        "shifted by the same amounts)");
  }
  bool moving = false;
  for (const BodyState& b : ref.bodies)
    moving = moving || b.v.cwiseAbs().maxCoeff() > 0 || b.w.cwiseAbs().maxCoeff() > 0;
  if (moving) notes.push_back("initial velocities not written (URDF has none: the URDF starts at rest)");
  modelNotes(m, notes);

  std::ostringstream links, joints;
  // One shape as <visual> or <collision> elements (a capsule as three), in the link frame of body i.
  auto writeShape = [&](int i, const ShapeDesc& s, bool visual, int index) {
    const char* tag = visual ? "visual" : "collision";
    const Mat3 R = quat::rotation(s.orientation.normalized());
    const Vec3 at = s.position - c[size_t(i)];
    const std::string material = visual ? "      <material name=\"" +
                                              escape(link[size_t(i)] + "_visual" + std::to_string(index)) +
                                              "\"><color rgba=\"" + number(s.color(0)) + " " + number(s.color(1)) + " " +
                                              number(s.color(2)) + " " + number(s.color(3)) + "\"/></material>\n"
                                        : std::string();
    // One element: its origin in the link frame and its geometry.
    auto element = [&](const Vec3& xyz, const std::string& geometry) {
      links << "    <" << tag << ">\n      " << originElement(xyz, R) << "\n      <geometry>" << geometry
            << "</geometry>\n"
            << material << "    </" << tag << ">\n";
    };
    switch (s.kind) {
      case ShapeDesc::Kind::Box:
      case ShapeDesc::Kind::Sphere:
      case ShapeDesc::Kind::Cylinder: element(at, geometryElement(s.kind, s.size)); break;
      case ShapeDesc::Kind::Capsule:
        // The cylinder between the hemisphere centres and a sphere at each (±length/2 along z).
        element(at, geometryElement(ShapeDesc::Kind::Cylinder, s.size));
        for (double side : {-0.5, 0.5})
          element(at + R * Vec3(0, 0, side * s.size.y()), geometryElement(ShapeDesc::Kind::Sphere, s.size));
        break;
      case ShapeDesc::Kind::Mesh:
        element(at, "<mesh filename=\"" + escape(meshName(s.meshFile, options)) + "\" scale=\"" + vector3(s.meshScale) +
                        "\"/>");
        break;
      case ShapeDesc::Kind::Plane: break;  // noted in modelNotes
    }
  };

  // Links: inertial at the centre of mass (−c in the link frame), then the shapes.
  for (int i = 0; i < nb; ++i) {
    const BodyDesc& b = m.bodies[size_t(i)];
    const Mat3& J = b.inertia;
    links << "  <link name=\"" << escape(link[size_t(i)]) << "\">\n";
    links << "    <inertial>\n      " << originElement(-c[size_t(i)], Mat3::Identity()) << "\n      <mass value=\""
          << number(b.mass) << "\"/>\n      <inertia ixx=\"" << number(J(0, 0)) << "\" ixy=\"" << number(J(0, 1)) << "\" ixz=\""
          << number(J(0, 2)) << "\" iyy=\"" << number(J(1, 1)) << "\" iyz=\"" << number(J(1, 2)) << "\" izz=\"" << number(J(2, 2))
          << "\"/>\n    </inertial>\n";
    for (size_t v = 0; v < b.visuals.size(); ++v) writeShape(i, b.visuals[v], true, int(v));
    for (size_t k = 0; k < b.collisions.size(); ++k) writeShape(i, b.collisions[k], false, int(k));
    links << "  </link>\n";
  }

  // Tree joints, depth first from the world (children in index order): the importer then creates
  // the bodies in this order.
  std::vector<std::vector<int>> children(static_cast<size_t>(nb + 1));
  for (int k : tree.treeJoints) children[size_t(m.joints[size_t(k)].parent + 1)].push_back(k);
  for (auto& list : children) std::sort(list.begin(), list.end());
  std::function<void(int)> writeJoint = [&](int k) {
    const JointDesc& j = m.joints[size_t(k)];
    const CompiledJoint& cj = sys.joints[size_t(k)];
    const JointGeometry& g = fullJointGeometry(cj);
    const JointPlacement p = placeJointChild(cj, ref);
    const Mat3 R = quat::rotation(p.orientation.normalized());
    const Vec3 parentC = j.parent >= 0 ? c[size_t(j.parent)] : Vec3::Zero();
    const Vec3 xyz = p.position + R * c[size_t(j.child)] - parentC;
    const bool limited = !j.lowerLimit.empty() && !j.upperLimit.empty();
    const char* type = "fixed";
    switch (j.type) {
      case JointType::Revolute: type = limited ? "revolute" : "continuous"; break;
      case JointType::Prismatic: type = "prismatic"; break;
      case JointType::Floating: type = "floating"; break;
      case JointType::PlanarAxis: type = "planar"; break;
      default: break;
    }
    joints << "  <joint name=\"" << escape(jointName[size_t(k)]) << "\" type=\"" << type << "\">\n";
    joints << "    <parent link=\"" << escape(j.parent >= 0 ? link[size_t(j.parent)] : std::string("world"))
           << "\"/>\n    <child link=\"" << escape(link[size_t(j.child)]) << "\"/>\n";
    joints << "    " << originElement(xyz, R) << "\n";
    if (j.type != JointType::Fixed && j.type != JointType::Floating)
      joints << "    <axis xyz=\"" << vector3(g.axes.col(2).normalized()) << "\"/>\n";
    // Limits relative to the initial coordinate (prismatic joints need one: ±1e9 m when unlimited).
    if (limited && (j.type == JointType::Revolute || j.type == JointType::Prismatic))
      joints << "    <limit lower=\"" << number(j.lowerLimit[0] - p.theta0(0)) << "\" upper=\""
             << number(j.upperLimit[0] - p.theta0(0)) << "\" effort=\"0\" velocity=\"0\"/>\n";
    else if (j.type == JointType::Prismatic)
      joints << "    <limit lower=\"-1e9\" upper=\"1e9\" effort=\"0\" velocity=\"0\"/>\n";
    // Damping: one value for all free coordinates.
    const int nf = g.freeCoordinates();
    if (cj.hasDamper && nf > 0) {
      const auto d = cj.damping.head(nf);
      if ((d.array() == d(0)).all())
        joints << "    <dynamics damping=\"" << number(d(0)) << "\"/>\n";
      else
        notes.push_back("joint '" + j.name +
                        "': damping that differs between its coordinates not written (URDF has one value)");
    }
    if (cj.hasSpring)
      notes.push_back("joint '" + j.name + "': spring (stiffness) not written (URDF has no joint springs)");
    // Its coupling as <mimic> (URDF coordinates count from the written pose: offset + m θ₀ᵦ − θ₀ₐ).
    for (const CouplingDesc& cp : m.couplings) {
      if (cp.joint != k) continue;
      const auto oneCoordinate = [&](int q) { return m.joints[size_t(q)].type == JointType::Revolute || m.joints[size_t(q)].type == JointType::Prismatic; };
      const bool tree = cp.reference >= 0 && std::find(sys.treeJoints.begin(), sys.treeJoints.end(), cp.reference) != sys.treeJoints.end();
      if (!tree || !oneCoordinate(k) || !oneCoordinate(cp.reference)) {
        notes.push_back("coupling '" + cp.name + "' not written (a URDF <mimic> couples two revolute or prismatic tree joints)");
        continue;
      }
      const double offset = cp.offset + cp.multiplier * placeJointChild(sys.joints[size_t(cp.reference)], ref).theta0(0) - p.theta0(0);
      joints << "    <mimic joint=\"" << escape(jointName[size_t(cp.reference)]) << "\" multiplier=\"" << number(cp.multiplier)
             << "\" offset=\"" << number(offset) << "\"/>\n";
    }
    if (j.type == JointType::Prismatic && !limited)
      notes.push_back("joint '" + j.name +
                      "' has no limits: written with -1e9 and 1e9 m (URDF requires limits on a prismatic joint)");
    joints << "  </joint>\n";
    for (int child : children[size_t(j.child + 1)]) writeJoint(child);
  };
  for (int k : children[0]) writeJoint(k);
  // Bodies no joint places: a floating joint from the world at their initial pose.
  for (int i = 0; i < nb; ++i) {
    if (tree.parentJoint[size_t(i)] >= 0) continue;
    joints << "  <joint name=\"" << escape(rootJoint[size_t(i)])
           << "\" type=\"floating\">\n    <parent link=\"world\"/>\n"
           << "    <child link=\"" << escape(link[size_t(i)]) << "\"/>\n    "
           << originElement(ref.bodies[size_t(i)].x, quat::rotation(ref.bodies[size_t(i)].q.normalized()))
           << "\n  </joint>\n";
    for (int child : children[size_t(i + 1)]) writeJoint(child);
  }

  std::ostringstream x;
  x << "<?xml version=\"1.0\"?>\n"
    << "<!-- Written by MechStudio (engine/io/urdf_writer.cc) from the model '" << commentText(m.name)
    << "'. Link frames: the bodies' centre-of-mass frames moved to their joint points; the zero\n"
    << "     configuration is the model's initial pose. -->\n";
  for (const std::string& n : notes) x << "<!-- Note: " << commentText(n) << ". -->\n";
  x << "<robot name=\"" << escape(m.name.empty() ? "mechstudio" : m.name) << "\">\n";
  x << "  <link name=\"world\"/>\n" << links.str() << joints.str() << "</robot>\n";
  if (notesOut) *notesOut = std::move(notes);
  return x.str();
}

}  // namespace ms
