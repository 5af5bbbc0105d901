// SPDX-License-Identifier: GPL-3.0-or-later
// Model → MJCF. The conversion and its modelling choices are described in mjcf_writer.h and in
// docs/engine.md ("MuJoCo comparison copy").
#include "io/xml_text.h"
#include "io/mjcf_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "contact/convex_hull.h"
#include "core/check.h"
#include "core/quaternion.h"
#include "io/collision_mesh.h"
#include "model/joint_tree.h"
#include "system/initial_conditions.h"
#include "system/joint_placement.h"

namespace ms {
namespace {

using xml::escape;
using xml::number;
using xml::vector3;

bool supportedType(JointType t) {
  return t == JointType::Revolute || t == JointType::Prismatic || t == JointType::Spherical || t == JointType::Fixed ||
         t == JointType::Floating;
}

// Floating joints constrain nothing: their child becomes a top-level body with a free joint.
bool inTree(const JointDesc& j) { return j.type != JointType::Floating; }

std::string quat4(const Vec4& q) { return number(q(0)) + " " + number(q(1)) + " " + number(q(2)) + " " + number(q(3)); }


// A name not used yet among `used` (MuJoCo names are unique per kind of element): `preferred`, or
// `fallback` when it is empty, taken or reserved.
std::string uniqueName(std::set<std::string>& used, const std::string& preferred, const std::string& fallback) {
  std::string n = preferred.empty() || used.count(preferred) || preferred == "world" ? fallback : preferred;
  for (int k = 2; used.count(n); ++k) n = fallback + "_" + std::to_string(k);
  used.insert(n);
  return n;
}

// Shape kinds that collide between two bodies in the engine (contact_geometry.h: every pair but two
// planes; meshes are not written as geoms, see collides()).
// contype/conaffinity of a body's geoms. Bit 0 is the grounds' (contype 1 on planes, affinity 1 on
// every geom); with automatic collisions the body's own masks follow, shifted by one bit (MuJoCo's
// rule is the engine's: (type_A & affinity_B) | (type_B & affinity_A); bit 31 of a mask is lost).
// Without them, geoms of two bodies never collide (contype 0).
// A shape's own masks (ShapeDesc::contype/conaffinity) are and-ed with its body's: exact when they
// are subsets of the body's (as the MJCF reader makes them: a body's masks are its geoms' or-ed).
std::uint64_t geomTypeOf(const BodyDesc& b, const ShapeDesc& s, bool automatic) {
  return automatic ? (std::uint64_t(b.contype & s.contype) << 1) & 0xffffffffu : 0;
}
std::uint64_t geomAffinityOf(const BodyDesc& b, const ShapeDesc& s, bool automatic) {
  return (automatic ? (std::uint64_t(b.conaffinity & s.conaffinity) << 1) & 0xffffffffu : 0) | 1u;
}

bool pairSupported(ShapeDesc::Kind a, ShapeDesc::Kind b) {
  return !(a == ShapeDesc::Kind::Plane && b == ShapeDesc::Kind::Plane);
}

// A collision mesh with vertices (its convex hull collides; MuJoCo collides a mesh's hull too).
bool meshCollides(const ShapeDesc& s) { return s.kind == ShapeDesc::Kind::Mesh && !s.meshVertices.empty(); }

bool collides(const ShapeDesc& s) {
  return s.kind == ShapeDesc::Kind::Sphere || s.kind == ShapeDesc::Kind::Capsule || s.kind == ShapeDesc::Kind::Box ||
         s.kind == ShapeDesc::Kind::Cylinder;
}

// The geom element of a collision shape (without its closing "/>").
std::string geomElement(const std::string& name, const ShapeDesc& s) {
  std::string type, size;
  switch (s.kind) {
    case ShapeDesc::Kind::Sphere: type = "sphere", size = number(s.size.x()); break;
    case ShapeDesc::Kind::Capsule: type = "capsule", size = number(s.size.x()) + " " + number(0.5 * s.size.y()); break;
    case ShapeDesc::Kind::Cylinder: type = "cylinder", size = number(s.size.x()) + " " + number(0.5 * s.size.y()); break;
    case ShapeDesc::Kind::Box: type = "box", size = vector3(0.5 * s.size); break;
    default: MS_ASSERT(false, "not a collision shape");
  }
  return "<geom name=\"" + escape(name) + "\" type=\"" + type + "\" size=\"" + size + "\" pos=\"" + vector3(s.position) +
         "\" quat=\"" + quat4(s.orientation.normalized()) + "\"";
}

// MuJoCo's default torsional and rolling friction (unused with its default condim 3).
const char* kFrictionTail = " 0.005 0.0001";

// A controller's actuator name: its own, else "pd" + its index.
std::string controllerName(const ControllerDesc& c, long index) { return c.name.empty() ? "pd" + std::to_string(index) : c.name; }

std::string rgba(const Vec4& c) { return number(c(0)) + " " + number(c(1)) + " " + number(c(2)) + " " + number(c(3)); }

// Two shapes that are the same geom (a collision shape that is also drawn).
bool sameShape(const ShapeDesc& a, const ShapeDesc& b) {
  return a.kind == b.kind && a.size == b.size && a.position == b.position && a.orientation == b.orientation &&
         a.meshFile == b.meshFile && a.meshScale == b.meshScale && a.color == b.color;
}

// The centroid of a mesh shape's (scaled) vertices' convex hull in the shape frame: MuJoCo moves a
// mesh so that it is at the geom's position (0 when the file cannot be read; io/mjcf_geoms.cc
// then does not move it either).
Vec3 meshCentroid(const ShapeDesc& s, const std::string& baseDir, MeshFileCache& cache) {
  std::vector<Vec3> pts = s.meshVertices;
  if (pts.empty()) {
    const MeshData* data = nullptr;
    const MeshFileError* err = nullptr;
    if (!cache.read(resolveMeshPath(s.meshFile, baseDir), data, err)) return Vec3::Zero();
    for (const Vec3& v : data->vertices) pts.push_back(v.cwiseProduct(s.meshScale));
  }
  contact::ConvexHull hull;
  std::string why;
  if (!contact::buildConvexHull(pts, hull, why)) return Vec3::Zero();
  return contact::hullMassProperties(hull).centroid;
}

// A motor's gear, ctrlrange and forcerange attributes for an actuator's transmission (an open end
// of a range as the largest double).
std::string transmission(const ActuatorDesc& a) {
  std::ostringstream out;
  out << " gear=\"" << number(a.gear) << "\"";
  for (int r = 0; r < 2; ++r) {
    const char* name = r == 0 ? "ctrl" : "force";
    const double lo = r == 0 ? a.controlLower : a.forceLower, hi = r == 0 ? a.controlUpper : a.forceUpper;
    const bool limited = lo > -kInf || hi < kInf;
    out << " " << name << "limited=\"" << (limited ? "true" : "false") << "\"";
    if (limited)
      out << " " << name << "range=\"" << number(std::max(lo, -std::numeric_limits<double>::max())) << " "
          << number(std::min(hi, std::numeric_limits<double>::max())) << "\"";
  }
  return out.str();
}

}  // namespace

void checkMjcfConvertible(const Model& m) {
  std::string why;
  auto add = [&](const std::string& s) { why += (why.empty() ? "" : "\n") + s; };
  const JointTree tree = buildJointTree(m, [&](int k) { return inTree(m.joints[k]); });
  std::vector<char> loop(m.joints.size(), 0);
  for (int k : tree.loopJoints) loop[size_t(k)] = 1;
  for (size_t k = 0; k < m.joints.size(); ++k) {
    const JointDesc& j = m.joints[k];
    const std::string who = "joint '" + j.name + "' (" + jointKind(j.type).name + ")";
    if (!supportedType(j.type)) {
      add(who + ": MuJoCo has no such joint here (the copy supports revolute, prismatic, spherical, fixed and "
                "floating joints)");
      continue;
    }
    if (!loop[k] || j.type == JointType::Floating) continue;
    if (j.type == JointType::Prismatic)
      add(who + " closes a loop: MuJoCo 2.2 has no equality constraint for a prismatic joint");
    if (!j.lowerLimit.empty() || !j.upperLimit.empty())
      add(who + " closes a loop and has limits: MuJoCo limits only joints of its tree");
  }
  // Fixed tendons: terms on tree hinges and slides (MuJoCo's joints); a rest length MuJoCo can say.
  for (const TendonDesc& t : m.tendons) {
    for (const TendonTerm& term : t.terms)
      if (term.joint < 0 || size_t(term.joint) >= m.joints.size() || loop[size_t(term.joint)] ||
          (m.joints[size_t(term.joint)].type != JointType::Revolute && m.joints[size_t(term.joint)].type != JointType::Prismatic))
        add("tendon '" + t.name + "': its terms must be on revolute or prismatic joints of the tree (MuJoCo's fixed tendons)");
    if (t.restLength < 0 && t.stiffness != 0)
      add("tendon '" + t.name + "': a negative rest length (MuJoCo reads a negative springlength as 'the length at qpos0')");
  }
  if (!why.empty()) throw UserError(why);
}

int mjcfBodyNesting(const Model& m) {
  const JointTree tree = buildJointTree(m, [&](int k) { return inTree(m.joints[k]); });
  std::vector<int> depth(m.bodies.size(), 1);
  int deepest = m.bodies.empty() ? 0 : 1;
  // Tree joints come in breadth-first order: a parent's depth is known before its children's.
  for (int k : tree.treeJoints) {
    const JointDesc& j = m.joints[size_t(k)];
    depth[size_t(j.child)] = j.parent >= 0 ? depth[size_t(j.parent)] + 1 : 1;
    deepest = std::max(deepest, depth[size_t(j.child)]);
  }
  return deepest;
}

namespace {
// writeMjcf writes one element per line, and each body's opening and closing tags on lines of their own.
bool opensBody(const std::string& line) { return line.find("<body ") != std::string::npos; }
bool closesBody(const std::string& line) { return line.find("</body>") != std::string::npos; }

// Lines [begin, end) into `out`, the bodies deeper than bodiesPerFile each into a file of its own.
void cutDeepBodies(const std::vector<std::string>& lines, size_t begin, size_t end, const std::string& stem,
                   int bodiesPerFile, std::string& out, std::vector<MjcfFile>& files) {
  int depth = 0;
  for (size_t i = begin; i < end; ++i) {
    if (opensBody(lines[i]) && depth == bodiesPerFile) {
      // The body's last line: where its nesting returns to 0.
      size_t j = i;
      for (int d = 0; j < end; ++j) {
        if (opensBody(lines[j])) ++d;
        if (closesBody(lines[j]) && --d == 0) break;
      }
      MS_ASSERT(j < end, "an MJCF body without its closing tag");
      MjcfFile part{stem + "-part" + std::to_string(files.size()) + ".xml", "<mujoco>\n"};
      const size_t slot = files.size();
      files.push_back({});  // its place, so that the parts it includes are numbered after it
      cutDeepBodies(lines, i, j + 1, stem, bodiesPerFile, part.text, files);
      part.text += "</mujoco>\n";
      out += "<include file=\"" + part.name + "\"/>\n";
      files[slot] = std::move(part);
      i = j;
      continue;
    }
    if (opensBody(lines[i])) ++depth;
    if (closesBody(lines[i])) --depth;
    out += lines[i];
    out += '\n';
  }
}
}  // namespace

std::vector<MjcfFile> splitMjcfByNesting(const std::string& xml, const std::string& mainName, int bodiesPerFile) {
  MS_ASSERT(bodiesPerFile >= 1, "at least one body per MJCF file");
  std::vector<std::string> lines;
  std::istringstream in(xml);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::string stem = std::filesystem::path(mainName).stem().string();
  std::vector<MjcfFile> files(1);
  files[0].name = mainName;
  std::string text;  // (not files[0].text: the parts grow the vector)
  cutDeepBodies(lines, 0, lines.size(), stem, bodiesPerFile, text, files);
  files[0].text = std::move(text);
  return files;
}

std::string writeMjcf(const Model& model, const MjcfWriteOptions& options, MjcfInfo* info) {
  checkMjcfConvertible(model);
  const std::shared_ptr<const CompiledSystem> sys = compile(model);
  const State s = makeInitialState(*sys, sys->model);
  return writeMjcf(*sys, s, options, info);
}

std::string writeMjcf(const CompiledSystem& sys, const State& ref, const MjcfWriteOptions& options, MjcfInfo* infoOut) {
  const Model& m = sys.model;
  checkMjcfConvertible(m);
  MS_ASSERT(ref.bodies.size() == m.bodies.size(), "reference state of another system");
  const int nb = int(m.bodies.size()), nj = int(m.joints.size());
  const JointTree tree = buildJointTree(m, [&](int k) { return inTree(m.joints[k]); });

  MjcfInfo info;
  info.body.resize(size_t(nb));
  info.freeJoint.assign(size_t(nb), "");
  info.joint.assign(size_t(nj), "");
  info.motor.assign(size_t(nj), "");
  info.ballReference.assign(size_t(nj), quat::identity());
  info.forcesInMjcf.assign(size_t(nj), 1);

  // Names: the model's where MuJoCo accepts them (unique per kind, not "world").
  std::set<std::string> bodyNames, jointNames, geomNames, siteNames;
  for (int i = 0; i < nb; ++i) info.body[size_t(i)] = uniqueName(bodyNames, m.bodies[size_t(i)].name, "body" + std::to_string(i));
  for (int k : tree.treeJoints) {
    const JointType t = m.joints[size_t(k)].type;
    if (t == JointType::Revolute || t == JointType::Prismatic || t == JointType::Spherical)
      info.joint[size_t(k)] = uniqueName(jointNames, m.joints[size_t(k)].name, "joint" + std::to_string(k));
  }
  for (int i = 0; i < nb; ++i)
    if (tree.parentJoint[size_t(i)] < 0) info.freeJoint[size_t(i)] = uniqueName(jointNames, info.body[size_t(i)] + "_free", "free" + std::to_string(i));

  // Joints with an actuator or a controller get a motor (hinge and slide tree joints).
  std::vector<char> driven(size_t(nj), 0);
  for (const ActuatorDesc& a : m.actuators) {
    if (a.tendon < 0) driven[size_t(a.joint)] = 1;
    else if (!options.complete)  // (the comparison drives the tendon's joints with their share)
      for (const TendonTerm& term : m.tendons[size_t(a.tendon)].terms) driven[size_t(term.joint)] = 1;
  }
  if (!options.complete)  // (export: controllers become <position> servos)
    for (const ControllerDesc& c : m.controllers) driven[size_t(c.joint)] = 1;
  std::vector<const CompiledLimit*> limitOf(size_t(nj), nullptr);
  for (const CompiledLimit& l : sys.limits) limitOf[size_t(l.joint)] = &l;

  // Children of each body (index + 1; 0 = the world) along the tree.
  std::vector<std::vector<int>> children(size_t(nb + 1));
  for (int k : tree.treeJoints) children[size_t(m.joints[size_t(k)].parent + 1)].push_back(k);

  std::ostringstream x;
  x << "<!-- SPDX-License-Identifier: GPL-3.0-or-later -->\n"
    << "<!-- Written by MechStudio (engine/io/mjcf_writer.cc) from the model '" << escape(m.name)
    << "': body frames at the centres of mass, bodies placed at the initial state. -->\n";
  x << "<mujoco model=\"" << escape(m.name.empty() ? "mechstudio" : m.name) << "\">\n";
  x << "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n";
  x << "  <option timestep=\"" << number(m.solver.dt) << "\" gravity=\"" << vector3(m.gravity) << "\"/>\n";
  // Room for every contact candidate of the engine (box 8, cylinder 10, …) twice over.
  const int nconmax = std::max<int>(100, 2 * int(sys.contacts.size()) + 8 * int(m.contactPairs.size()));
  const int njmax = std::max(500, 6 * nconmax + 12 * int(tree.loopJoints.size()) + 2 * int(sys.limits.size()));
  x << "  <size nconmax=\"" << nconmax << "\" njmax=\"" << njmax << "\"/>\n";
  // Export: the mesh files (one asset per file and scale) and MechStudio's own entries.
  std::map<std::pair<std::string, std::string>, std::string> meshAsset;  // (file, scale) → asset name
  MeshFileCache meshFiles;
  if (options.complete) {
    std::ostringstream assets;
    for (const BodyDesc& b : m.bodies)
      for (const std::vector<ShapeDesc>* list : {&b.visuals, &b.collisions})
        for (const ShapeDesc& sh : *list) {
          if (sh.kind != ShapeDesc::Kind::Mesh) continue;
          const auto key = std::make_pair(sh.meshFile, vector3(sh.meshScale));
          if (meshAsset.count(key)) continue;
          const std::string name = "mesh" + std::to_string(meshAsset.size());
          meshAsset[key] = name;
          std::string file = sh.meshFile;
          if (!options.outputDir.empty() && !std::filesystem::path(file).is_absolute()) {
            // Relative to the output's directory, unless the two share no directory but the root.
            const std::filesystem::path abs = resolveMeshPath(file, options.meshBaseDir);
            const std::filesystem::path dir = std::filesystem::absolute(options.outputDir).lexically_normal();
            const bool shareMore = std::distance(abs.begin(), abs.end()) > 2 && std::distance(dir.begin(), dir.end()) > 1 &&
                                   *std::next(abs.begin()) == *std::next(dir.begin());
            file = shareMore ? abs.lexically_relative(dir).string() : abs.string();
          }
          assets << "    <mesh name=\"" << name << "\" file=\"" << escape(file) << "\" scale=\"" << key.second << "\"/>\n";
        }
    if (!assets.str().empty()) x << "  <asset>\n" << assets.str() << "  </asset>\n";
    x << "  <custom>\n    <text name=\"mechstudio.collisions\" data=\"" << (sys.autoCollisions ? "all-shifted" : "pairs")
      << "\"/>\n";
    for (const ControllerDesc& c : m.controllers)
      if (c.offset != 0 || c.amplitude != 0 || c.frequency != 0 || c.phase != 0)
        x << "    <numeric name=\"mechstudio.setpoint." << escape(controllerName(c, &c - m.controllers.data())) << "\" data=\""
          << number(c.offset) << " " << number(c.amplitude) << " " << number(c.frequency) << " " << number(c.phase) << "\"/>\n";
    x << "  </custom>\n";
  }
  x << "  <worldbody>\n";

  // Grounds: planes whose +z is the normal. One with its own friction collides through <pair>s.
  std::vector<std::string> groundGeom(m.grounds.size());
  for (size_t g = 0; g < m.grounds.size(); ++g) {
    const GroundDesc& gd = m.grounds[g];
    groundGeom[g] = uniqueName(geomNames, gd.name, "ground" + std::to_string(g));
    const Eigen::Quaterniond r = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), gd.normal.normalized());
    const bool own = gd.friction >= 0;
    x << "    <geom name=\"" << escape(groundGeom[g]) << "\" type=\"plane\" size=\"0 0 1\" pos=\"" << vector3(gd.point)
      << "\" quat=\"" << quat4(Vec4(r.w(), r.x(), r.y(), r.z())) << "\" contype=\"" << (own ? 0 : 1)
      << "\" conaffinity=\"0\" friction=\"0" << kFrictionTail << "\"/>\n";
  }

  // Sites of the springs' ends (tendons), per body (index + 1).
  std::vector<std::vector<std::pair<std::string, Vec3>>> sites(size_t(nb + 1));
  std::vector<std::pair<std::string, std::string>> springSites(m.springs.size());
  for (size_t s = 0; s < m.springs.size(); ++s) {
    const SpringDesc& sp = m.springs[s];
    const std::string base = sp.name.empty() ? "spring" + std::to_string(s) : sp.name;
    springSites[s].first = uniqueName(siteNames, base + "_a", "spring" + std::to_string(s) + "_a");
    springSites[s].second = uniqueName(siteNames, base + "_b", "spring" + std::to_string(s) + "_b");
    sites[size_t(sp.bodyA + 1)].push_back({springSites[s].first, sp.anchorA});
    sites[size_t(sp.bodyB + 1)].push_back({springSites[s].second, sp.anchorB});
  }
  for (const auto& st : sites[0]) x << "    <site name=\"" << escape(st.first) << "\" pos=\"" << vector3(st.second) << "\"/>\n";

  // Collision geom names per body and shape ("" for shapes that do not collide).
  std::vector<std::vector<std::string>> geomName(static_cast<size_t>(nb));
  for (int i = 0; i < nb; ++i) {
    const BodyDesc& b = m.bodies[size_t(i)];
    for (size_t c = 0; c < b.collisions.size(); ++c)
      geomName[size_t(i)].push_back(collides(b.collisions[c]) || (options.complete && meshCollides(b.collisions[c])) ? uniqueName(geomNames, info.body[size_t(i)] + "_shape" + std::to_string(c),
                                                                         "geom" + std::to_string(i) + "_" + std::to_string(c))
                                                              : std::string());
  }

  // One body with its inertial, joint, geoms, sites and children (depth first).
  auto geomType = [&](const BodyDesc& b, const ShapeDesc& s) { return geomTypeOf(b, s, sys.autoCollisions); };
  auto geomAffinity = [&](const BodyDesc& b, const ShapeDesc& s) { return geomAffinityOf(b, s, sys.autoCollisions); };
  std::function<void(int, int, const std::string&)> writeBody = [&](int i, int viaJoint, const std::string& indent) {
    const BodyDesc& b = m.bodies[size_t(i)];
    Vec3 pos = ref.bodies[size_t(i)].x;
    Vec4 q = ref.bodies[size_t(i)].q.normalized();
    std::string jointXml;
    if (viaJoint >= 0) {
      // Placed by its tree joint at the joint's reference coordinates θ₀.
      const CompiledJoint& cj = sys.joints[size_t(viaJoint)];
      const JointGeometry& g = fullJointGeometry(cj);
      const JointPlacement place = placeJointChild(cj, ref);
      const Vec6& theta0 = place.theta0;
      pos = place.position;
      q = place.orientation;
      const std::string& jn = info.joint[size_t(viaJoint)];
      const Vec3 axis = g.axes.col(2);
      if (g.type == JointType::Revolute || g.type == JointType::Prismatic) {
        jointXml = indent + "  <joint name=\"" + escape(jn) + "\" type=\"" +
                   (g.type == JointType::Revolute ? "hinge" : "slide") + "\" pos=\"" + vector3(g.pb) + "\" axis=\"" +
                   vector3(axis) + "\" ref=\"" + number(theta0(0)) + "\"";
        if (cj.hasSpring) jointXml += " stiffness=\"" + number(cj.stiffness(0)) + "\" springref=\"" + number(cj.rest(0)) + "\"";
        if (cj.hasDamper) jointXml += " damping=\"" + number(cj.damping(0)) + "\"";
        if (cj.hasArmature) jointXml += " armature=\"" + number(cj.armature(0)) + "\"";
        if (const CompiledLimit* l = limitOf[size_t(viaJoint)])
          jointXml += " limited=\"true\" range=\"" + number(l->lower) + " " + number(l->upper) + "\"";
        jointXml += "/>\n";
      } else if (g.type == JointType::Spherical) {
        info.ballReference[size_t(viaJoint)] = quat::fromRotationVector(theta0.head<3>());
        jointXml = indent + "  <joint name=\"" + escape(jn) + "\" type=\"ball\" pos=\"" + vector3(g.pb) + "\"/>\n";
        info.forcesInMjcf[size_t(viaJoint)] = !(cj.hasSpring || cj.hasDamper);
      }
    } else {
      jointXml = indent + "  <freejoint name=\"" + escape(info.freeJoint[size_t(i)]) + "\"/>\n";
    }
    x << indent << "<body name=\"" << escape(info.body[size_t(i)]) << "\" pos=\"" << vector3(pos) << "\" quat=\""
      << quat4(q) << "\">\n";
    const Mat3& J = b.inertia;
    x << indent << "  <inertial pos=\"0 0 0\" mass=\"" << number(b.mass) << "\" fullinertia=\"" << number(J(0, 0)) << " "
      << number(J(1, 1)) << " " << number(J(2, 2)) << " " << number(J(0, 1)) << " " << number(J(0, 2)) << " " << number(J(1, 2))
      << "\"/>\n";
    x << jointXml;
    // A geom element of any shape but a plane (meshes: their asset, at the position MuJoCo centres them on).
    auto anyGeom = [&](const std::string& name, const ShapeDesc& sh) {
      if (sh.kind != ShapeDesc::Kind::Mesh) return geomElement(name, sh);
      const Vec3 at = sh.position + quat::rotate(sh.orientation.normalized(), meshCentroid(sh, options.meshBaseDir, meshFiles));
      return "<geom name=\"" + escape(name) + "\" type=\"mesh\" mesh=\"" + meshAsset.at({sh.meshFile, vector3(sh.meshScale)}) +
             "\" pos=\"" + vector3(at) + "\" quat=\"" + quat4(sh.orientation.normalized()) + "\"";
    };
    auto collidingGeom = [&](size_t c, const std::string& extra) {
      x << indent << "  " << anyGeom(geomName[size_t(i)][c], b.collisions[c]) << " contype=\"" << geomType(b, b.collisions[c])
        << "\" conaffinity=\"" << geomAffinity(b, b.collisions[c]) << "\" friction=\"" << number(b.friction) << kFrictionTail << "\"" << extra
        << "/>\n";
    };
    if (!options.complete) {
      for (size_t c = 0; c < b.collisions.size(); ++c)
        if (!geomName[size_t(i)][c].empty()) collidingGeom(c, "");
    } else {
      // Drawn shapes in order (a collision shape equal to one: the same geom), then collision-only
      // shapes in group 3 (not drawn). Planes on bodies have no MJCF geom (MuJoCo's are static).
      std::vector<char> used(b.collisions.size(), 0);
      for (size_t v = 0; v < b.visuals.size(); ++v) {
        const ShapeDesc& sh = b.visuals[v];
        if (sh.kind == ShapeDesc::Kind::Plane) continue;
        size_t c = 0;
        while (c < b.collisions.size() && (used[c] || geomName[size_t(i)][c].empty() || !sameShape(b.collisions[c], sh))) ++c;
        if (c < b.collisions.size()) {
          used[c] = 1;
          collidingGeom(c, " rgba=\"" + rgba(sh.color) + "\"");
          continue;
        }
        const std::string name = uniqueName(geomNames, info.body[size_t(i)] + "_visual" + std::to_string(v),
                                            "visual" + std::to_string(i) + "_" + std::to_string(v));
        x << indent << "  " << anyGeom(name, sh) << " contype=\"0\" conaffinity=\"0\" rgba=\"" << rgba(sh.color) << "\"/>\n";
      }
      for (size_t c = 0; c < b.collisions.size(); ++c)
        if (!used[c] && !geomName[size_t(i)][c].empty())
          collidingGeom(c, " group=\"3\" rgba=\"" + rgba(b.collisions[c].color) + "\"");
    }
    for (const auto& st : sites[size_t(i + 1)])
      x << indent << "  <site name=\"" << escape(st.first) << "\" pos=\"" << vector3(st.second) << "\"/>\n";
    for (int k : children[size_t(i + 1)]) writeBody(m.joints[size_t(k)].child, k, indent + "  ");
    x << indent << "</body>\n";
  };
  for (int k : children[0]) writeBody(m.joints[size_t(k)].child, k, "    ");
  for (int i = 0; i < nb; ++i)
    if (tree.parentJoint[size_t(i)] < 0) writeBody(i, -1, "    ");
  x << "  </worldbody>\n";

  // Contacts given explicitly: grounds with their own friction, and contact-pairs.
  std::ostringstream pairs;
  for (size_t g = 0; g < m.grounds.size(); ++g) {
    if (m.grounds[g].friction < 0) continue;
    for (int i = 0; i < nb; ++i)
      for (const std::string& gn : geomName[size_t(i)])
        if (!gn.empty()) {
          const std::string mu = number(m.grounds[g].friction);
          pairs << "    <pair geom1=\"" << escape(groundGeom[g]) << "\" geom2=\"" << escape(gn) << "\" friction=\"" << mu
                << " " << mu << " 0.005 0.0001 0.0001\"/>\n";
        }
  }
  for (const ContactPairDesc& cp : m.contactPairs) {
    const BodyDesc &A = m.bodies[size_t(cp.bodyA)], &B = m.bodies[size_t(cp.bodyB)];
    const std::string mu = number(cp.friction >= 0 ? cp.friction : 0.5 * (A.friction + B.friction));
    for (size_t a = 0; a < A.collisions.size(); ++a)
      for (size_t c = 0; c < B.collisions.size(); ++c) {
        const std::string &ga = geomName[size_t(cp.bodyA)][a], &gb = geomName[size_t(cp.bodyB)][c];
        if (ga.empty() || gb.empty() || !pairSupported(A.collisions[a].kind, B.collisions[c].kind)) continue;
        pairs << "    <pair geom1=\"" << escape(ga) << "\" geom2=\"" << escape(gb) << "\" friction=\"" << mu << " "
              << mu << " 0.005 0.0001 0.0001\"/>\n";
      }
  }
  // Automatic collisions: the pairs the engine leaves out (joined, excluded, contact-pairs, overlapping
  // at the start, two bodies of one mechanism without self-collision) are excluded in MuJoCo too (it
  // leaves out parent–child pairs itself).
  if (sys.autoCollisions) {
    std::vector<std::uint64_t> excluded = sys.excludedPairs;
    const std::vector<int>& bodies = sys.collidingBodies;
    for (size_t i = 0; i < bodies.size() && !sys.mechanismOf.empty(); ++i)
      for (size_t j = i + 1; j < bodies.size(); ++j)
        if (sys.mechanismOf[size_t(bodies[i])] == sys.mechanismOf[size_t(bodies[j])])
          excluded.push_back((std::uint64_t(std::min(bodies[i], bodies[j])) << 32) | std::uint64_t(std::max(bodies[i], bodies[j])));
    std::sort(excluded.begin(), excluded.end());
    excluded.erase(std::unique(excluded.begin(), excluded.end()), excluded.end());
    for (std::uint64_t key : excluded)
      pairs << "    <exclude body1=\"" << escape(info.body[size_t(key >> 32)]) << "\" body2=\""
            << escape(info.body[size_t(key & 0xffffffffu)]) << "\"/>\n";
  }
  if (!pairs.str().empty()) x << "  <contact>\n" << pairs.str() << "  </contact>\n";

  // Loop joints as equality constraints on the child (body1) and the parent (body2, world if omitted).
  std::ostringstream eq;
  for (int k : tree.loopJoints) {
    const JointDesc& jd = m.joints[size_t(k)];
    const CompiledJoint& cj = sys.joints[size_t(k)];
    const JointGeometry& g = cj.hasDroppedRows ? cj.full : cj.geo;
    info.forcesInMjcf[size_t(k)] = !(cj.hasSpring || cj.hasDamper);
    if (jd.type == JointType::Floating) continue;
    const std::string bodies = "body1=\"" + escape(info.body[size_t(jd.child)]) + "\"" +
                               (jd.parent >= 0 ? " body2=\"" + escape(info.body[size_t(jd.parent)]) + "\"" : "");
    const std::string name = jd.name.empty() ? "loop" + std::to_string(k) : jd.name;
    if (jd.type == JointType::Fixed) {
      eq << "    <weld name=\"" << escape(name) << "\" " << bodies << "/>\n";
      ++info.loopConstraints;
      continue;
    }
    eq << "    <connect name=\"" << escape(name) << "\" " << bodies << " anchor=\"" << vector3(g.pb) << "\"/>\n";
    ++info.loopConstraints;
    if (jd.type == JointType::Revolute && options.revoluteLoop == MjcfWriteOptions::RevoluteLoop::TwoConnects) {
      // The second point on the axis (the same vector in the child frame as in the joint frame).
      eq << "    <connect name=\"" << escape(name + "_axis") << "\" " << bodies << " anchor=\""
         << vector3(g.pb + options.revoluteLoopSpan * g.axes.col(2)) << "\"/>\n";
      ++info.loopConstraints;
    }
  }
  // Couplings as joint equalities: MuJoCo's y − y0 = a0 + a1 (x − x0) with y0, x0 the joints' refs
  // (their reference coordinates θ₀, so qpos is the engine's coordinate): a0 = offset + m x0 − y0, a1 = m.
  for (const CouplingDesc& c : m.couplings) {
    const auto refOf = [&](int k) { return placeJointChild(sys.joints[size_t(k)], ref).theta0(0); };
    for (int k : {c.joint, c.reference})
      if (k >= 0 && info.joint[size_t(k)].empty())
        throw UserError("coupling '" + c.name + "': joint '" + m.joints[size_t(k)].name +
                        "' is not written as a hinge or slide of a body, which an MJCF joint equality needs");
    const double y0 = refOf(c.joint), x0 = c.reference >= 0 ? refOf(c.reference) : 0.0;
    eq << "    <joint name=\"" << escape(c.name) << "\" joint1=\"" << escape(info.joint[size_t(c.joint)]) << "\"";
    if (c.reference >= 0) eq << " joint2=\"" << escape(info.joint[size_t(c.reference)]) << "\"";
    const double a0 = c.offset + (c.reference >= 0 ? c.multiplier * x0 : 0.0) - y0;
    eq << " polycoef=\"" << number(a0) << " " << number(c.reference >= 0 ? c.multiplier : 0.0) << " 0 0 0\"/>\n";
  }
  if (!eq.str().empty()) x << "  <equality>\n" << eq.str() << "  </equality>\n";

  // Springs between bodies as spatial tendons, fixed tendons as fixed ones.
  if (!m.springs.empty() || !m.tendons.empty()) {
    x << "  <tendon>\n";
    for (const TendonDesc& t : m.tendons) {
      x << "    <fixed name=\"" << escape(t.name) << "\" stiffness=\"" << number(t.stiffness) << "\" damping=\""
        << number(t.damping) << "\" springlength=\"" << number(std::max(t.restLength, 0.0)) << "\">\n";
      for (const TendonTerm& term : t.terms)
        x << "      <joint joint=\"" << escape(info.joint[size_t(term.joint)]) << "\" coef=\"" << number(term.coef) << "\"/>\n";
      x << "    </fixed>\n";
    }
    for (size_t s = 0; s < m.springs.size(); ++s) {
      const SpringDesc& sp = m.springs[s];
      x << "    <spatial stiffness=\"" << number(sp.stiffness) << "\" damping=\"" << number(sp.damping) << "\" springlength=\""
        << number(sp.restLength) << "\">\n";
      x << "      <site site=\"" << escape(springSites[s].first) << "\"/>\n";
      x << "      <site site=\"" << escape(springSites[s].second) << "\"/>\n";
      x << "    </spatial>\n";
    }
    x << "  </tendon>\n";
  }

  // Motors on the driven hinge and slide joints (ctrl = the effort in N·m or N).
  std::ostringstream act;
  std::set<std::string> actuatorNames;
  for (int k = 0; k < nj; ++k) {
    if (!driven[size_t(k)] || info.joint[size_t(k)].empty() || m.joints[size_t(k)].type == JointType::Spherical) continue;
    info.motor[size_t(k)] = uniqueName(actuatorNames, info.joint[size_t(k)] + "_motor", "motor" + std::to_string(k));
    act << "    <motor name=\"" << escape(info.motor[size_t(k)]) << "\" joint=\"" << escape(info.joint[size_t(k)]) << "\"";
    // Export: the transmission of the joint's one actuator (ctrl is then its input); otherwise ctrl
    // is the joint effort itself (the comparison drives it so).
    const ActuatorDesc* only = nullptr;
    int count = 0;
    for (const ActuatorDesc& a : m.actuators)
      if (a.tendon < 0 && a.joint == k) only = &a, ++count;
    if (options.complete && count == 1) {
      act << transmission(*only);
    } else {
      act << " gear=\"1\" ctrllimited=\"false\"";
    }
    act << "/>\n";
  }
  // Export: motors on tendons (with their transmission; ctrl is their input).
  std::vector<std::string> tendonMotor(m.actuators.size());
  if (options.complete)
    for (size_t k = 0; k < m.actuators.size(); ++k) {
      const ActuatorDesc& a = m.actuators[k];
      if (a.tendon < 0) continue;
      const std::string& tn = m.tendons[size_t(a.tendon)].name;
      tendonMotor[k] = uniqueName(actuatorNames, tn + "_motor", "motor_t" + std::to_string(k));
      act << "    <motor name=\"" << escape(tendonMotor[k]) << "\" tendon=\"" << escape(tn) << "\"" << transmission(a) << "/>\n";
    }
  // Export: PD controllers as position servos, constant efforts as custom entries.
  if (options.complete) {
    for (size_t c = 0; c < m.controllers.size(); ++c) {
      const ControllerDesc& cd = m.controllers[c];
      const std::string& jn = info.joint[size_t(cd.joint)];
      if (jn.empty() || m.joints[size_t(cd.joint)].type == JointType::Spherical) continue;
      // kd = 0: a <position> servo; otherwise the <general> actuator that <position kp kv> stands for
      // in MuJoCo ≥ 3.1 (force = kp·ctrl − kp·q − kv·q̇), which MuJoCo 2.x reads too.
      const std::string head = "    <" + std::string(cd.kd == 0 ? "position" : "general") + " name=\"" +
                               escape(controllerName(cd, long(c))) + "\" joint=\"" + escape(jn) + "\"";
      if (cd.kd == 0) act << head << " kp=\"" << number(cd.kp) << "\"";
      else
        act << head << " gaintype=\"fixed\" gainprm=\"" << number(cd.kp) << "\" biastype=\"affine\" biasprm=\"0 " << number(-cd.kp)
            << " " << number(-cd.kd) << "\"";
      if (cd.effortLimit > 0)
        act << " forcelimited=\"true\" forcerange=\"" << number(-cd.effortLimit) << " " << number(cd.effortLimit) << "\"";
      act << "/>\n";
    }
  }
  if (!act.str().empty()) x << "  <actuator>\n" << act.str() << "  </actuator>\n";
  if (options.complete) {
    std::ostringstream efforts;
    for (size_t k = 0; k < m.actuators.size(); ++k) {
      const ActuatorDesc& a = m.actuators[k];
      const std::string& motor = a.tendon >= 0 ? tendonMotor[k] : info.motor[size_t(a.joint)];
      bool zero = true;
      for (double e : a.effort) zero = zero && e == 0;
      if (motor.empty() || zero) continue;
      efforts << "    <numeric name=\"mechstudio.effort." << escape(motor) << "\" data=\"";
      for (size_t k = 0; k < a.effort.size(); ++k) efforts << (k ? " " : "") << number(a.effort[k]);
      efforts << "\"/>\n";
    }
    if (!efforts.str().empty()) x << "  <custom>\n" << efforts.str() << "  </custom>\n";
  }
  x << "</mujoco>\n";
  if (infoOut) *infoOut = std::move(info);
  return x.str();
}

}  // namespace ms
