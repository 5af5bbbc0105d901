// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import (see urdf_import.h).
//
// Parsing: urdfdom (Debian's liburdfdom) reads the standard URDF elements; its console output is
// captured and turned into diagnostics. tinyxml2 reads the same text a second time, only to find
// line numbers (for urdfdom's messages and ours) and the loop-closure extension, which urdfdom
// ignores. No URDF semantics are parsed by hand except that extension.
//
// Frames. Engine bodies live in their centre-of-mass frames: a link with <inertial> becomes a body
// whose frame is the inertial frame (inertial origin xyz and rpy applied to the link frame), so
// the inertia tensor ixx..izz, which URDF gives in that frame, is the body inertia as written.
// With T_J the joint origin (joint frame in the parent link frame), R_Ip / R_Ic the inertial
// rotations of parent and child and c_p / c_c their inertial positions, a URDF joint
//   R_child_link = R_parent_link · R_J · rot(a, θ)
// becomes the engine joint q_b = q_a · q_off · rot(axis', θ) (dynamics/joint_constraint.h) with
//   q_off = R_Ip⁻¹ · R_J · R_Ic,   axis' = R_Icᵀ · a,
//   parentAnchor = R_Ipᵀ (o_J − c_p),   childAnchor = −R_Icᵀ c_c        (joint point = child link origin).
// In general the importer keeps, for every link, the pose of its link frame in the frame of the
// body it belongs to (F_p for the parent side, F_c for the child side, each composed with the joint
// frame on that side); then q_off = F_p.R · F_c.Rᵀ, axis' = F_c.R · a, anchors = F_p.p and F_c.p.
// Prismatic coordinates are displacements along axis' in the engine's joint frame, equal to the
// URDF displacement along a. All initial joint coordinates are 0: the pose written in the file.
//
// Links and joints.
//  - The root link is the world when it has no <inertial>, an inertial mass of 0, or is named
//    "world" (its inertial, if any, is then ignored with a warning); otherwise the root is a free
//    body (a note says so).
//  - A link without <inertial> attached by a fixed joint is lumped into its parent body (or the
//    world): its visuals and collisions are carried over with the composed transform and its child
//    joints are re-attached to that body. An <inertial> with mass 0 on a fixed-joint child counts
//    as massless. A massless link moved by any other joint is an error (a moving body needs mass),
//    as are a negative or non-finite mass, and an inertia that is not positive definite or violates
//    the triangle inequality.
//  - revolute → Revolute with <limit lower upper> (kept when lower < upper); continuous →
//    Revolute without limits; prismatic → Prismatic with limits; fixed between two bodies →
//    Fixed; floating → Floating; planar → PlanarAxis with axis = plane normal (URDF's planar joint
//    moves in the plane and turns about its normal, as in MoveIt, Drake and Pinocchio; the engine's
//    "planar" keeps the orientation fixed). <dynamics damping> → JointDesc::damping.
//    <mimic> and <dynamics friction> are not supported (warnings).
//  - Geometry: box, sphere, cylinder (along z, as in the engine) and mesh (file name as written,
//    scale) for both <visual> and <collision>, placed in the body's centre-of-mass frame; the
//    <material> colour (inline, or a named material defined under <robot>) when one is given.
//    A collision mesh's file (relative to the URDF's directory, file://, or a resolved package://
//    URI) is read for its vertices, whose convex hull collides (io/collision_mesh.h); one that
//    cannot be used (an unresolved package:// URI or another URI, an unreadable file or a format
//    other than STL and OBJ (COLLADA .dae included), a degenerate hull, more than 32 hull vertices)
//    is kept as written without vertices, with a warning that it does not collide.
//    Geometry of links fixed to the world is not imported (the model has no world geometry).
//
// Packages. A mesh named package://NAME/PATH (visual or collision) is looked up in the package roots
// (UrdfImportOptions::packagePaths, then ROS_PACKAGE_PATH) by the rule written in urdf_import.h
// (R/NAME/PATH, R itself when it is the package, then packages named NAME found below R). The file
// found becomes ShapeDesc::meshFile as an absolute path, so the 3D view draws it and a collision mesh
// is read like any other file. When none is found the URI is kept as written and a warning at the
// <mesh> element names the package, the URI and every path tried, and says how to add a root.
//
// Loop-closure extension (an element urdfdom ignores), any number of them directly inside <robot>:
//   <loop_joint name="close" type="revolute" parent="coupler" child="rocker">
//     <origin xyz="0 0.4 0" rpy="0 0 0"/>        joint frame in the parent link frame (default identity)
//     <child_origin xyz="0 0 0.3" rpy="0 0 0"/>  the same frame in the child link frame
//                                                 (default: computed from the zero configuration)
//     <axis xyz="1 0 0"/>                         in the joint frame (default 1 0 0)
//     <limit lower="-1" upper="1"/>               optional, as for URDF joints
//     <dynamics damping="0.1"/>                   optional
//   </loop_joint>
// parent and child may also be written as URDF-style <parent link="..."/> and <child link="..."/>.
// type: a URDF type (revolute, continuous, prismatic, fixed, floating, planar) or any engine joint
// name (spherical, cylindrical, planar-axis, ... as in model/joint_kinds.cc). At the zero
// configuration the joint frames on both sides should coincide; when they do not (by more than
// 1e-6) a warning gives the gap, and the simulation projects the initial pose onto the constraint.
// If the child link is fixed to the world, parent and child are swapped (the coordinate changes
// sign). Both links may not belong to the same rigid body.
#include "io/urdf_import.h"

#include <console_bridge/console.h>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>

#include "dynamics/joint_constraint.h"
#include "io/collision_mesh.h"

namespace ms {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

// Link body index meaning "could not be made into a body" (an error was reported).
constexpr int kInvalidBody = -2;

// A rigid transform from a child frame to a parent frame: x_parent = R x_child + p.
struct Frame {
  Mat3 R = Mat3::Identity();
  Vec3 p = Vec3::Zero();
};

// Composition a·b: frame b (given in frame a) expressed in a's parent.
Frame operator*(const Frame& a, const Frame& b) { return {a.R * b.R, a.p + a.R * b.p}; }

// The inverse transform.
Frame inverse(const Frame& f) { return {f.R.transpose(), -(f.R.transpose() * f.p)}; }

// True when every entry of the transform is finite.
bool finite(const Frame& f) { return f.R.allFinite() && f.p.allFinite(); }

// A urdfdom pose (position, unit quaternion) as a Frame.
Frame toFrame(const urdf::Pose& pose) {
  Eigen::Quaterniond q(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z);
  const double n = q.norm();
  if (n > 0 && std::isfinite(n)) q.coeffs() /= n;
  return {q.toRotationMatrix(), Vec3(pose.position.x, pose.position.y, pose.position.z)};
}

// A rotation matrix as a unit quaternion [w, x, y, z] with w ≥ 0.
Vec4 toQuat(const Mat3& R) {
  Eigen::Quaterniond q(R);
  q.normalize();
  Vec4 v(q.w(), q.x(), q.y(), q.z());
  if (v(0) < 0) v = -v;
  return v;
}

// A urdfdom vector as an Eigen vector.
Vec3 toVec(const urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }

// Shortest round-trippable text of a number, for messages.
std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

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

// One console_bridge message (urdfdom reports its errors through console_bridge).
struct LogMessage {
  console_bridge::LogLevel level;
  std::string text;
};

// Collects urdfdom's warnings and errors instead of printing them.
class LogCapture : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level < console_bridge::CONSOLE_BRIDGE_LOG_WARN || level == console_bridge::CONSOLE_BRIDGE_LOG_NONE) return;
    for (const LogMessage& m : messages)
      if (m.level == level && m.text == text) return;  // urdfdom repeats some messages
    messages.push_back({level, text});
  }
  std::vector<LogMessage> messages;
};

// console_bridge's output handler is process-wide: one urdfdom parse at a time.
std::mutex& consoleMutex() {
  static std::mutex m;
  return m;
}

// Runs urdfdom on the text, returning its model (null on failure) and what it logged.
urdf::ModelInterfaceSharedPtr parseWithUrdfdom(const std::string& xml, std::vector<LogMessage>& log) {
  std::lock_guard<std::mutex> lock(consoleMutex());
  LogCapture capture;
  console_bridge::useOutputHandler(&capture);
  urdf::ModelInterfaceSharedPtr model;
  // urdfdom catches its own parse errors, but guard against anything escaping it.
  try {
    model = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    capture.messages.push_back({console_bridge::CONSOLE_BRIDGE_LOG_ERROR, e.what()});
    model.reset();
  } catch (...) {
    capture.messages.push_back({console_bridge::CONSOLE_BRIDGE_LOG_ERROR, "unknown exception in urdfdom"});
    model.reset();
  }
  console_bridge::restorePreviousOutputHandler();
  log = std::move(capture.messages);
  return model;
}

// The i-th child element called `name` of `e` (null when absent).
const XMLElement* nthChild(const XMLElement* e, const char* name, size_t i) {
  if (!e) return nullptr;
  for (const XMLElement* c = e->FirstChildElement(name); c; c = c->NextSiblingElement(name))
    if (i-- == 0) return c;
  return nullptr;
}

// The line of an element, or `fallback` when there is no element.
int lineOf(const XMLElement* e, int fallback = 0) { return e ? e->GetLineNum() : fallback; }

// A plain description of tinyxml2's parse error (its ErrorStr is meant for programmers).
std::string xmlErrorText(const tinyxml2::XMLDocument& doc) {
  // The element tinyxml2 names in its message ("... XMLElement name=link"), if any.
  std::string element;
  if (const char* str = doc.ErrorStr()) {
    const std::string s = str;
    const size_t at = s.rfind("name=");
    if (at != std::string::npos) element = s.substr(at + 5);
  }
  const std::string in = element.empty() ? std::string() : " in <" + element + ">";
  switch (doc.ErrorID()) {
    case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: return "the file is empty";
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
      return "element <" + (element.empty() ? std::string("?") : element) +
             "> is not closed, or is closed by a different end tag";
    case tinyxml2::XML_ERROR_PARSING_ELEMENT: return "malformed element" + in;
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: return "malformed attribute" + in;
    case tinyxml2::XML_ERROR_PARSING_TEXT: return "text that is not inside any element (is this an XML file?)";
    case tinyxml2::XML_ERROR_PARSING_CDATA: return "malformed CDATA section";
    case tinyxml2::XML_ERROR_PARSING_COMMENT: return "malformed or unterminated comment";
    case tinyxml2::XML_ERROR_PARSING_DECLARATION: return "malformed XML declaration";
    case tinyxml2::XML_ERROR_PARSING_UNKNOWN: return "malformed markup";
    case tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED: return "elements are nested too deeply";
    default: return std::string("parse error ") + (doc.ErrorName() ? doc.ErrorName() : "") + in;
  }
}

// Texts joined with ", " (for lists of paths in messages).
std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// True when `p` names a regular file (following symbolic links); errors count as no.
bool isRegularFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Splits package://NAME/PATH; false when the prefix, NAME or PATH is missing (NAME is set when known).
bool splitPackageUri(const std::string& uri, std::string& name, std::string& rest) {
  const std::string prefix = "package://";
  if (uri.compare(0, prefix.size(), prefix) != 0) return false;
  const size_t slash = uri.find('/', prefix.size());
  name = uri.substr(prefix.size(), slash == std::string::npos ? std::string::npos : slash - prefix.size());
  rest = slash == std::string::npos ? std::string() : uri.substr(slash + 1);
  // A PATH is relative to the package ("package://p//x" is p/x, never /x).
  rest.erase(0, rest.find_first_not_of('/') == std::string::npos ? rest.size() : rest.find_first_not_of('/'));
  return !name.empty() && !rest.empty();
}

// Finds package:// files below the package roots (the rule in urdf_import.h), remembering each
// search below a root for the rest of the import (a robot names its package in every mesh).
class PackageFinder {
 public:
  explicit PackageFinder(std::vector<std::string> roots) : roots_(std::move(roots)) {}
  const std::vector<std::string>& roots() const { return roots_; }

  // The first candidate file of the rule that exists, with every candidate tried.
  PackageLookup resolve(const std::string& uri) {
    PackageLookup out;
    out.wellFormed = splitPackageUri(uri, out.package, out.relative);
    if (!out.wellFormed) return out;
    // Checks one candidate; true when it is the file.
    auto tryFile = [&](const fs::path& candidate) {
      out.tried.push_back(candidate.lexically_normal().string());
      if (!isRegularFile(candidate)) return false;
      out.path = out.tried.back();
      return true;
    };
    // A directory that is the package, for the message when its file is missing.
    auto noteDir = [&](const fs::path& dir) {
      const std::string d = dir.lexically_normal().string();
      auto& dirs = out.packageDirs;
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    };
    for (const std::string& r : roots_) {
      const fs::path root(r);
      std::error_code ec;
      // 1. R/NAME/PATH.
      if (fs::is_directory(root / out.package, ec)) noteDir(root / out.package);
      if (tryFile(root / out.package / out.relative)) return out;
      // 2. R is the package.
      if (root.filename() == out.package && isRegularFile(root / "package.xml")) {
        noteDir(root);
        if (tryFile(root / out.relative)) return out;
      }
      // 3. Packages named NAME below R (R/NAME was tried in 1).
      for (const std::string& dir : packagesBelow(r, out.package)) {
        if (fs::path(dir) == (root / out.package).lexically_normal()) continue;
        noteDir(dir);
        if (tryFile(fs::path(dir) / out.relative)) return out;
      }
    }
    return out;
  }

 private:
  // Directories named `name` holding a package.xml below `root`, breadth first (bounded; see the
  // rule in urdf_import.h), remembered per root and name.
  const std::vector<std::string>& packagesBelow(const std::string& root, const std::string& name) {
    const auto key = std::make_pair(root, name);
    if (auto it = found_.find(key); it != found_.end()) return it->second;
    std::vector<std::string>& dirs = found_[key];
    std::set<std::string> visited;  // canonical paths (links may lead back)
    std::vector<std::pair<fs::path, int>> queue = {{fs::path(root), 0}};
    std::error_code ec;
    visited.insert(fs::weakly_canonical(root, ec).string());
    int directories = 0;
    for (size_t head = 0; head < queue.size() && directories < kPackageSearchDirectories; ++head) {
      const auto [dir, depth] = queue[head];
      ++directories;
      // The subdirectories, by name (not hidden ones).
      std::vector<fs::path> subdirs;
      fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
      for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string leaf = it->path().filename().string();
        std::error_code e2;
        if (!leaf.empty() && leaf[0] != '.' && fs::is_directory(it->path(), e2)) subdirs.push_back(it->path());
      }
      ec.clear();
      std::sort(subdirs.begin(), subdirs.end());
      // A package is a match or a leaf; other directories are searched further down.
      for (const fs::path& sub : subdirs) {
        std::error_code e3;
        if (!visited.insert(fs::weakly_canonical(sub, e3).string()).second) continue;
        if (isRegularFile(sub / "package.xml")) {
          if (sub.filename() == name) dirs.push_back(sub.lexically_normal().string());
        } else if (depth + 1 < kPackageSearchDepth) {
          queue.emplace_back(sub, depth + 1);
        }
      }
    }
    return dirs;
  }

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

class Importer {
 public:
  Importer(const std::string& file, const std::string& baseDir, const UrdfImportOptions& options, Diagnostics& diags)
      : file_(file), baseDir_(baseDir), packages_(urdfPackageRoots(options)), diags_(diags) {}

  // Imports `xml` into `out`; false (and `out` untouched) when an error was reported.
  bool run(const std::string& xml, Model& out) {
    const int errorsBefore = diags_.errorCount();
    Model model;
    if (readXml(xml) && readUrdfdom(xml)) {
      model.name = urdf_->getName();
      buildTree(model);
      readLoops(model);
      // A model needs at least one body to simulate.
      if (model.bodies.empty() && diags_.errorCount() == errorsBefore)
        error(lineOf(xml_.robot), "the robot has no link with mass (every link is fixed to the world)");
    }
    if (diags_.errorCount() != errorsBefore) return false;
    out = std::move(model);
    return true;
  }

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

  // Parses the text with tinyxml2 and indexes <robot>'s children; reports malformed XML.
  bool readXml(const std::string& xml) {
    // Well-formedness, with tinyxml2's line number.
    if (xml_.doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) {
      error(xml_.doc.ErrorLineNum(), "not a well-formed XML file: " + xmlErrorText(xml_.doc));
      return false;
    }
    // The root element must be <robot>.
    xml_.robot = xml_.doc.RootElement();
    if (!xml_.robot || std::strcmp(xml_.robot->Name(), "robot") != 0) {
      error(lineOf(xml_.robot, 1), std::string("the root element is <") + (xml_.robot ? xml_.robot->Name() : "") +
                                       ">, expected <robot>");
      return false;
    }
    // Named links, joints and materials, and the loop-closure elements.
    for (const XMLElement* e = xml_.robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const char* tag = e->Name();
      const char* name = e->Attribute("name");
      if (std::strcmp(tag, "link") == 0 && name) xml_.links.emplace(name, e);
      else if (std::strcmp(tag, "joint") == 0 && name) xml_.joints.emplace(name, e);
      else if (std::strcmp(tag, "material") == 0 && name) xml_.materials.emplace(name, e);
      else if (std::strcmp(tag, "loop_joint") == 0) xml_.loops.push_back(e);
    }
    return true;
  }

  // The line a urdfdom message is about: the first [name] or 'name' in it that names a joint or a
  // link (joints first: "parent link [x] of joint [y] not found" is about joint y).
  int locate(const std::string& text) const {
    for (size_t i = 0; i < text.size(); ++i) {
      const char open = text[i];
      if (open != '[' && open != '\'') continue;
      const char close = open == '[' ? ']' : '\'';
      const size_t end = text.find(close, i + 1);
      if (end == std::string::npos) break;
      const std::string name = text.substr(i + 1, end - i - 1);
      if (auto it = xml_.joints.find(name); it != xml_.joints.end()) return lineOf(it->second);
      if (auto it = xml_.links.find(name); it != xml_.links.end()) return lineOf(it->second);
      i = end;
    }
    return lineOf(xml_.robot);
  }

  // Runs urdfdom and turns its messages into diagnostics; false when it rejected the file.
  bool readUrdfdom(const std::string& xml) {
    std::vector<LogMessage> log;
    urdf_ = parseWithUrdfdom(xml, log);
    bool reportedError = false;
    // Each captured message, at the line of the link or joint it names.
    // (urdfdom sometimes logs an error and carries on, e.g. dropping an <inertial> it cannot read:
    // that is an error here too.)
    for (const LogMessage& m : log) {
      if (m.level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) {
        error(locate(m.text), "urdfdom: " + m.text);
        reportedError = true;
      } else {
        warning(locate(m.text), "urdfdom: " + m.text);
      }
    }
    if (!urdf_ && !reportedError) error(lineOf(xml_.robot), "urdfdom could not read the robot description");
    if (urdf_ && !urdf_->getRoot()) {
      error(lineOf(xml_.robot), "the robot has no root link");
      urdf_.reset();
    }
    return urdf_ != nullptr && !reportedError;
  }

  // Turns urdfdom's link tree into bodies and joints, from the root down.
  void buildTree(Model& model) {
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
  int makeBody(Model& model, LinkInfo& info) {
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
  void attachChild(Model& model, const LinkInfo& parent, const urdf::Joint& joint, LinkInfo& child) {
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

  // URDF spelling of a joint's type, for messages.
  static std::string typeName(const urdf::Joint& joint) {
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

  // Anchors, offset and axis from the joint frame as seen in the parent and in the child body frames
  // (see the top of this file): q_off = F_p.R F_c.Rᵀ, axis' = F_c.R a.
  static void setJointFrames(JointDesc& j, const Frame& inParent, const Frame& inChild, const Vec3& axis) {
    j.parentAnchor = inParent.p;
    j.childAnchor = inChild.p;
    j.offset = toQuat(inParent.R * inChild.R.transpose());
    j.axis = inChild.R * axis;
  }

  // Joint limits (kept when lower < upper; lower > upper is an error).
  void addLimits(JointDesc& j, double lower, double upper, const std::string& who, int line) {
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
  void addDamping(JointDesc& j, double damping, const std::string& who, int line) {
    if (!(damping >= 0) || !std::isfinite(damping)) error(line, who + ": damping must be finite and non-negative");
    else if (damping > 0 && j.type != JointType::Fixed) j.damping = {damping};
  }

  // Copies a link's visuals and collisions onto its body, in the body's centre-of-mass frame.
  void addGeometry(Model& model, const LinkInfo& info) {
    const urdf::Link& link = *info.link;
    if (info.body == kInvalidBody) return;
    const XMLElement* linkElem = linkElement(link.name);
    // Links fixed to the world: the model has no world geometry.
    if (info.body < 0) {
      if (!link.visual_array.empty() || !link.collision_array.empty())
        warning(linkLine(link.name), "link '" + link.name +
                                         "' is fixed to the world; its visual and collision geometry is not imported");
      return;
    }
    BodyDesc& body = model.bodies[info.body];
    // Visuals, with their material colour.
    for (size_t i = 0; i < link.visual_array.size(); ++i) {
      const urdf::VisualSharedPtr& v = link.visual_array[i];
      if (!v) continue;
      const XMLElement* elem = nthChild(linkElem, "visual", i);
      ShapeDesc s;
      const std::string where = "link '" + link.name + "', visual " + std::to_string(i + 1);
      const int line = lineOf(elem, linkLine(link.name));
      if (!makeShape(v->geometry.get(), info.inBody * toFrame(v->origin), where, line, meshLine(elem, line), s))
        continue;
      if (v->material && colourGiven(elem, *v->material)) {
        const urdf::Color& c = v->material->color;
        s.color = Vec4(c.r, c.g, c.b, c.a);
      }
      body.visuals.push_back(std::move(s));
    }
    // Collisions.
    for (size_t i = 0; i < link.collision_array.size(); ++i) {
      const urdf::CollisionSharedPtr& c = link.collision_array[i];
      if (!c) continue;
      const XMLElement* elem = nthChild(linkElem, "collision", i);
      ShapeDesc s;
      const std::string where = "link '" + link.name + "', collision " + std::to_string(i + 1);
      const int line = lineOf(elem, linkLine(link.name));
      if (makeShape(c->geometry.get(), info.inBody * toFrame(c->origin), where, line, meshLine(elem, line), s, true))
        body.collisions.push_back(std::move(s));
    }
  }

  // True when the visual's material states a colour (inline, or in the named robot-level material);
  // a texture-only material keeps the default colour.
  bool colourGiven(const XMLElement* visual, const urdf::Material& material) const {
    const XMLElement* m = visual ? visual->FirstChildElement("material") : nullptr;
    if (!m) return material.texture_filename.empty();
    if (m->FirstChildElement("color")) return true;
    const char* name = m->Attribute("name");
    if (!name) return false;
    auto it = xml_.materials.find(name);
    return it != xml_.materials.end() && it->second->FirstChildElement("color") != nullptr;
  }

  // The line of the <geometry><mesh> element of a <visual> or <collision> (`fallback` without one).
  static int meshLine(const XMLElement* shape, int fallback) {
    const XMLElement* g = shape ? shape->FirstChildElement("geometry") : nullptr;
    return lineOf(g ? g->FirstChildElement("mesh") : nullptr, fallback);
  }

  // Converts one urdfdom geometry placed at `pose` (body frame); false (with a warning) when unusable.
  // A collision mesh also gets its vertices (loadCollisionMesh). Mesh warnings are given at `meshAt`.
  bool makeShape(const urdf::Geometry* g, const Frame& pose, const std::string& where, int line, int meshAt,
                 ShapeDesc& s, bool collision = false) {
    if (!g) return false;
    if (!finite(pose)) {
      warning(line, where + ": origin is not finite; the shape is skipped");
      return false;
    }
    s.position = pose.p;
    s.orientation = toQuat(pose.R);
    switch (g->type) {
      case urdf::Geometry::SPHERE: {
        const double r = static_cast<const urdf::Sphere*>(g)->radius;
        s.kind = ShapeDesc::Kind::Sphere;
        s.size = Vec3(r, 0, 0);
        break;
      }
      case urdf::Geometry::BOX: {
        s.kind = ShapeDesc::Kind::Box;
        s.size = toVec(static_cast<const urdf::Box*>(g)->dim);
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto* c = static_cast<const urdf::Cylinder*>(g);
        s.kind = ShapeDesc::Kind::Cylinder;
        s.size = Vec3(c->radius, c->length, 0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto* m = static_cast<const urdf::Mesh*>(g);
        s.kind = ShapeDesc::Kind::Mesh;
        s.meshFile = m->filename;
        s.meshScale = toVec(m->scale);
        s.size = Vec3::Zero();
        if (!s.meshScale.allFinite() || s.meshScale.minCoeff() <= 0) {
          warning(meshAt, where + ": mesh scale must be positive; the shape is skipped");
          return false;
        }
        // package://: the file found replaces the URI; an unresolved one is kept as written (warned).
        if (!resolvePackage(s, where, meshAt, collision)) return true;
        if (collision) loadCollision(s, where, meshAt);
        else checkMeshFile(s.meshFile, where, meshAt);
        return !s.meshFile.empty();
      }
      default:
        warning(line, where + ": unknown geometry; the shape is skipped");
        return false;
    }
    // Primitive sizes: positive and finite.
    const int used = s.kind == ShapeDesc::Kind::Box ? 3 : s.kind == ShapeDesc::Kind::Sphere ? 1 : 2;
    if (!s.size.head(used).allFinite() || s.size.head(used).minCoeff() <= 0) {
      warning(line, where + ": shape dimensions must be positive; the shape is skipped");
      return false;
    }
    return true;
  }

  // A package://NAME/PATH mesh: s.meshFile becomes the absolute path of the file found (true). When
  // there is none (or the URI is malformed), a warning names the package, the URI and every path
  // tried, and the URI is kept as written (false). Other names are left alone (true).
  bool resolvePackage(ShapeDesc& s, const std::string& where, int line, bool collision) {
    if (s.meshFile.rfind("package://", 0) != 0) return true;
    const PackageLookup found = packages_.resolve(s.meshFile);
    const std::string kept = collision ? " (the URI is kept as written; the mesh does not collide)"
                                       : " (the URI is kept as written; the 3D view draws a small box)";
    // Malformed: package://NAME without a path.
    if (!found.wellFormed) {
      warning(line, where + ": mesh '" + s.meshFile + "' is not a package URI of the form package://NAME/PATH" + kept);
      return false;
    }
    if (!found.path.empty()) {
      s.meshFile = found.path;
      return true;
    }
    // Not found: what was tried, and how to add a root.
    const std::string how = "; give the directory that holds the package '" + found.package +
                            "' with --package-path DIR, the ROS_PACKAGE_PATH environment variable or the Settings "
                            "field 'Package paths'";
    std::string what;
    if (packages_.roots().empty()) {
      what = "package '" + found.package + "' not found: no package paths are set (nothing was tried)";
    } else {
      what = found.packageDirs.empty() ? "package '" + found.package + "' not found"
                                       : "package '" + found.package + "' (" + joined(found.packageDirs) +
                                             ") has no file '" + found.relative + "'";
      what += "; tried " + joined(found.tried) + " (and searched " + joined(packages_.roots()) +
              " for a directory '" + found.package + "' holding a package.xml, up to " +
              std::to_string(kPackageSearchDepth) + " levels down)";
    }
    warning(line, where + ": mesh '" + s.meshFile + "': " + what + how + kept);
    return false;
  }

  // Warns about a mesh file that cannot be found (the name is kept as written either way).
  void checkMeshFile(const std::string& name, const std::string& where, int line) {
    if (name.empty()) {
      warning(line, where + ": mesh without a file name; the shape is skipped");
      return;
    }
    std::string path = name;
    if (path.rfind("file://", 0) == 0) path = path.substr(7);
    else if (path.find("://") != std::string::npos) {
      warning(line, where + ": mesh '" + name + "' uses a URI that cannot be resolved here (kept as written)");
      return;
    }
    std::error_code ec;
    fs::path p(path);
    if (p.is_relative() && !baseDir_.empty()) p = fs::path(baseDir_) / p;
    if (!fs::exists(p, ec)) warning(line, where + ": mesh file '" + name + "' not found (looked for " + p.string() + ")");
  }

  // Reads a collision mesh's vertices. A mesh that cannot be used (a URI other than file:// (package://
  // URIs are resolved before, by resolvePackage), a file that cannot be read, a degenerate hull, too
  // many hull vertices) is kept as written, without vertices, with a warning that it does not collide.
  void loadCollision(ShapeDesc& s, const std::string& where, int line) {
    if (s.meshFile.empty()) {
      warning(line, where + ": mesh without a file name; the shape is skipped");
      return;
    }
    std::string path = s.meshFile;
    if (path.rfind("file://", 0) == 0) path = path.substr(7);
    else if (path.find("://") != std::string::npos) {
      warning(line, where + ": mesh '" + s.meshFile +
                        "' uses a URI that cannot be resolved here (kept as written); it does not collide");
      return;
    }
    CollisionMeshReport report;
    const bool loaded = loadCollisionMesh(s, resolveMeshPath(path, baseDir_), meshFiles_, report);
    for (const std::string& w : report.warnings) warning(line, where + ": " + w);
    if (!loaded) warning(line, where + ": " + report.error + " (kept as written; it does not collide)");
  }

  // Reads the <loop_joint> extension elements and adds them as joints closing loops.
  void readLoops(Model& model) {
    std::set<std::string> names;
    for (const JointDesc& j : model.joints) names.insert(j.name);
    for (const auto& [name, e] : xml_.joints) names.insert(name);
    for (const XMLElement* e : xml_.loops) readLoop(model, e, names);
  }

  // One <loop_joint>: validates it and adds the joint (nothing on error).
  void readLoop(Model& model, const XMLElement* e, std::set<std::string>& names) {
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

  // Maps a loop joint type to the engine's; `limited` tells whether <limit> applies.
  static bool loopType(const std::string& t, JointType& type, bool& limited) {
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
  static bool optionalNumber(const XMLElement* e, const char* attr, double& out) {
    const char* v = e->Attribute(attr);
    return !v || parseNumber(v, out);
  }

  // The link named by a loop joint's `role` ("parent" or "child"); null (with an error) when missing.
  const LinkInfo* loopLink(const XMLElement* e, const char* role, const std::string& who, bool& ok) {
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
  bool readOrigin(const XMLElement* o, const std::string& who, Frame& out) {
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
  void warnIfOpen(const Model& model, const JointDesc& j, const std::string& who, int line) {
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

  const std::string& file_;
  const std::string& baseDir_;
  PackageFinder packages_;   // package:// lookups (the roots and the searches done so far)
  MeshFileCache meshFiles_;  // collision mesh files read so far
  Diagnostics& diags_;
  XmlIndex xml_;
  urdf::ModelInterfaceSharedPtr urdf_;
  std::map<std::string, LinkInfo> links_;
};

}  // namespace

std::vector<std::string> urdfPackageRoots(const UrdfImportOptions& options) {
  std::vector<std::string> roots;
  // One root: absolute, normalised, without a trailing separator, each once.
  auto add = [&](const std::string& r) {
    if (r.empty()) return;
    std::error_code ec;
    fs::path p = fs::absolute(fs::path(r), ec);
    if (ec) p = fs::path(r);
    std::string s = p.lexically_normal().string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    if (std::find(roots.begin(), roots.end(), s) == roots.end()) roots.push_back(s);
  };
  for (const std::string& r : options.packagePaths) add(r);
  // ROS_PACKAGE_PATH: colon-separated, after the explicit roots.
  if (options.useRosPackagePath)
    if (const char* env = std::getenv("ROS_PACKAGE_PATH")) {
      std::istringstream in(env);
      for (std::string r; std::getline(in, r, ':');) add(r);
    }
  return roots;
}

PackageLookup resolvePackageUri(const std::string& uri, const std::vector<std::string>& roots) {
  PackageFinder finder(roots);
  return finder.resolve(uri);
}

bool importUrdfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags, const UrdfImportOptions& options) {
  // Nothing escapes: any unexpected exception becomes a diagnostic.
  try {
    Importer importer(fileNameForMessages, baseDir, options, diags);
    return importer.run(xml, out);
  } catch (const std::exception& e) {
    diags.error(fileNameForMessages, 0, 0, std::string("internal error while importing URDF: ") + e.what());
  } catch (...) {
    diags.error(fileNameForMessages, 0, 0, "internal error while importing URDF");
  }
  return false;
}

bool importUrdf(const std::string& path, Model& out, Diagnostics& diags, const UrdfImportOptions& options) {
  try {
    std::string text;
    if (!readWholeFile(path, text, diags)) return false;
    // Mesh names are relative to the file's directory.
    const std::string baseDir = fs::path(path).parent_path().string();
    return importUrdfString(text, path, baseDir, out, diags, options);
  } catch (const std::exception& e) {
    diags.error(path, 0, 0, std::string("cannot read the file: ") + e.what());
  } catch (...) {
    diags.error(path, 0, 0, "cannot read the file");
  }
  return false;
}

}  // namespace ms
