// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import, internal to engine/io (not included elsewhere): the types and the Importer whose
// parts live in the urdf_*.cc files. The mapping is documented at the top of urdf_import.cc.
// The import, in order:
//   reading (urdf_import.cc): tinyxml2 for lines and the index of named elements, then urdfdom
//     (its messages become diagnostics);
//   the link tree (urdf_lumping.cc): links into bodies, massless links on fixed joints lumped into
//     their parent, URDF joints into engine joints;
//   geometry (urdf_meshes.cc): visuals and collisions of each link, mesh files (collision meshes
//     read for their convex hull), package:// URIs resolved by the PackageFinder (urdf_packages.cc);
//   loop closures (urdf_loops.cc): the <loop_joint> extension.
#pragma once

#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostics.h"
#include "io/collision_mesh.h"
#include "io/urdf_import.h"
#include "model/model.h"

namespace ms::urdf_detail {

using tinyxml2::XMLElement;

// Link body index meaning "could not be made into a body" (an error was reported).
constexpr int kInvalidBody = -2;

// A rigid transform from a child frame to a parent frame: x_parent = R x_child + p.
struct Frame {
  Mat3 R = Mat3::Identity();
  Vec3 p = Vec3::Zero();
};

// Composition a·b: frame b (given in frame a) expressed in a's parent.
inline Frame operator*(const Frame& a, const Frame& b) { return {a.R * b.R, a.p + a.R * b.p}; }

// The inverse transform.
inline Frame inverse(const Frame& f) { return {f.R.transpose(), -(f.R.transpose() * f.p)}; }

// True when every entry of the transform is finite.
inline bool finite(const Frame& f) { return f.R.allFinite() && f.p.allFinite(); }

// A urdfdom pose (position, unit quaternion) as a Frame.
inline Frame toFrame(const urdf::Pose& pose) {
  Eigen::Quaterniond q(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z);
  const double n = q.norm();
  if (n > 0 && std::isfinite(n)) q.coeffs() /= n;
  return {q.toRotationMatrix(), Vec3(pose.position.x, pose.position.y, pose.position.z)};
}

// A rotation matrix as a unit quaternion [w, x, y, z] with w ≥ 0.
inline Vec4 toQuat(const Mat3& R) {
  Eigen::Quaterniond q(R);
  q.normalize();
  Vec4 v(q.w(), q.x(), q.y(), q.z());
  if (v(0) < 0) v = -v;
  return v;
}

// A urdfdom vector as an Eigen vector.
inline Vec3 toVec(const urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }

// Shortest round-trippable text of a number, for messages.
inline std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// The i-th child element called `name` of `e` (null when absent).
inline const XMLElement* nthChild(const XMLElement* e, const char* name, size_t i) {
  if (!e) return nullptr;
  for (const XMLElement* c = e->FirstChildElement(name); c; c = c->NextSiblingElement(name))
    if (i-- == 0) return c;
  return nullptr;
}

// The line of an element, or `fallback` when there is no element.
inline int lineOf(const XMLElement* e, int fallback = 0) { return e ? e->GetLineNum() : fallback; }

// Finds package:// files below the package roots (the rule in urdf_import.h), remembering each
// search below a root for the rest of the import (a robot names its package in every mesh).
// (urdf_packages.cc)
class PackageFinder {
 public:
  explicit PackageFinder(std::vector<std::string> roots) : roots_(std::move(roots)) {}
  const std::vector<std::string>& roots() const { return roots_; }

  // The first candidate file of the rule that exists, with every candidate tried.
  PackageLookup resolve(const std::string& uri);

 private:
  const std::vector<std::string>& packagesBelow(const std::string& root, const std::string& name);

  std::vector<std::string> roots_;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> found_;
};

// The tinyxml2 view of the file: where each named element is, and the loop-closure elements.
struct XmlIndex {
  tinyxml2::XMLDocument doc;
  const XMLElement* robot = nullptr;
  std::map<std::string, const XMLElement*> links, joints, materials;
  std::vector<const XMLElement*> loops;
};

// What the importer knows about one URDF link.
struct LinkInfo {
  urdf::LinkConstSharedPtr link;
  int body = kInvalidBody;  // body index, -1 = the world
  Frame inBody;             // link frame in the body's centre-of-mass frame (world frame for the world)
  Frame world;              // link frame in the world at zero joint coordinates
};

// The mass of the links one body is made of: its head link (the root, or a link moved by a joint, or
// fixed to the world) and the links joined to it by fixed joints (lumped, as Drake, Gazebo and
// MuJoCo's URDF readers do), each as mass, centre of mass and inertia in the world at zero joint
// coordinates.
struct LumpedMass {
  struct Part {
    std::string link;
    double mass = 0;
    Vec3 com = Vec3::Zero();
    Mat3 inertia = Mat3::Zero();  // about its centre of mass, world frame
  };
  std::vector<Part> parts;  // the head's first (when it has an <inertial>)
};

class Importer {
 public:
  Importer(const std::string& file, const std::string& baseDir, const UrdfImportOptions& options, Diagnostics& diags)
      : file_(file), baseDir_(baseDir), packages_(urdfPackageRoots(options)), diags_(diags) {}

  bool run(const std::string& xml, Model& out);

 private:
  void error(int line, const std::string& m) { diags_.error(file_, line, 0, m); }
  void warning(int line, const std::string& m) { diags_.warning(file_, line, 0, m); }
  void note(int line, const std::string& m) { diags_.add(Severity::Note, file_, line, 0, m); }

  int linkLine(const std::string& name) const {
    auto it = xml_.links.find(name);
    return it == xml_.links.end() ? lineOf(xml_.robot) : lineOf(it->second);
  }
  int jointLine(const std::string& name) const {
    auto it = xml_.joints.find(name);
    return it == xml_.joints.end() ? lineOf(xml_.robot) : lineOf(it->second);
  }
  const XMLElement* linkElement(const std::string& name) const {
    auto it = xml_.links.find(name);
    return it == xml_.links.end() ? nullptr : it->second;
  }
  const XMLElement* jointElement(const std::string& name) const {
    auto it = xml_.joints.find(name);
    return it == xml_.joints.end() ? nullptr : it->second;
  }

  // ---- reading (urdf_import.cc) ----------------------------------------------------------------
  bool readXml(const std::string& xml);
  int locate(const std::string& text) const;
  bool readUrdfdom(const std::string& xml);

  // ---- the link tree and lumping (urdf_lumping.cc) ---------------------------------------------
  void buildTree(Model& model);
  int makeBody(Model& model, LinkInfo& info);
  void lumpMasses(const urdf::Link& root);
  bool checkInertia(const std::string& who, int line, double mass, Mat3& I);
  void attachChild(Model& model, const LinkInfo& parent, const urdf::Joint& joint, LinkInfo& child);
  static void setJointFrames(JointDesc& j, const Frame& inParent, const Frame& inChild, const Vec3& axis);
  void addLimits(JointDesc& j, double lower, double upper, const std::string& who, int line);
  void addDamping(JointDesc& j, double damping, const std::string& who, int line);

  // ---- geometry and meshes (urdf_meshes.cc) ----------------------------------------------------
  void addGeometry(Model& model, const LinkInfo& info);
  bool colourGiven(const XMLElement* visual, const urdf::Material& material) const;
  bool makeShape(const urdf::Geometry* g, const Frame& pose, const std::string& where, int line, int meshAt,
                 ShapeDesc& s, bool collision = false);
  bool resolvePackage(ShapeDesc& s, const std::string& where, int line, bool collision);
  void checkMeshFile(const std::string& name, const std::string& where, int line);
  void loadCollision(ShapeDesc& s, const std::string& where, int line);

  // ---- loop closures (urdf_loops.cc) -----------------------------------------------------------
  void readLoops(Model& model);
  void readMimics(Model& model);
  void readLoop(Model& model, const XMLElement* e, std::set<std::string>& names);
  const LinkInfo* loopLink(const XMLElement* e, const char* role, const std::string& who, bool& ok);
  bool readOrigin(const XMLElement* o, const std::string& who, Frame& out);
  void warnIfOpen(const Model& model, const JointDesc& j, const std::string& who, int line);

  const std::string& file_;
  const std::string& baseDir_;
  PackageFinder packages_;   // package:// lookups (the roots and the searches done so far)
  MeshFileCache meshFiles_;  // collision mesh files read so far
  Diagnostics& diags_;
  XmlIndex xml_;
  urdf::ModelInterfaceSharedPtr urdf_;
  std::map<std::string, LinkInfo> links_;
  std::map<std::string, LumpedMass> lumped_;  // per head link
};

}  // namespace ms::urdf_detail
