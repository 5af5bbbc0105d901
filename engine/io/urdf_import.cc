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
//    <mimic joint multiplier offset> → a coupling θ = offset + multiplier · θ_joint (CouplingDesc,
//    a constraint: a gripper's fingers move as one), named JOINT_mimic; one whose joint or target is
//    not a moving joint here (fixed, lumped) is a warning. <dynamics friction> is not supported (a warning).
//  - Geometry: box, sphere, cylinder (along z, as in the engine) and mesh (file name as written,
//    scale) for both <visual> and <collision>, placed in the body's centre-of-mass frame; the
//    <material> colour (inline, or a named material defined under <robot>) when one is given.
//    A collision mesh's file (relative to the URDF's directory, file://, or a resolved package://
//    URI) is read for its vertices, whose convex hull collides (io/collision_mesh.h); one that
//    cannot be used (an unresolved package:// URI or another URI, an unreadable file or a format
//    other than STL, OBJ and COLLADA, a degenerate hull)
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
//
// This file holds the public entry points and the reading: tinyxml2's index of the file, urdfdom
// (its console output captured) and its messages as diagnostics, then the stages in order. The link
// tree is built in urdf_lumping.cc, geometry in urdf_meshes.cc (package lookup: urdf_packages.cc),
// loop closures in urdf_loops.cc (internal declarations: urdf_internal.h).
#include "io/urdf_import.h"

#include <console_bridge/console.h>

#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>

#include "core/suggest.h"
#include "io/urdf_internal.h"

namespace ms::urdf_detail {

namespace {

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

}  // namespace

// <mimic> joints as couplings of their coordinate to the target joint's (both moving joints with
// one coordinate: revolute, continuous or prismatic).
void Importer::readMimics(Model& model) {
  for (const auto& [name, joint] : urdf_->joints_) {
    if (!joint || !joint->mimic) continue;
    const int line = lineOf(nthChild(jointElement(name), "mimic", 0), jointLine(name));
    const std::string who = "joint '" + name + "'";
    const int j = model.jointIndex(name), target = model.jointIndex(joint->mimic->joint_name);
    const auto oneCoordinate = [&](int k) { return k >= 0 && jointKind(model.joints[size_t(k)].type).freeCoordinates() == 1; };
    if (!oneCoordinate(j)) {
      warning(line, who + ": <mimic> on a " + (joint->type == urdf::Joint::FIXED ? std::string("fixed joint") : "joint that is not revolute, continuous or prismatic") +
                        " (nothing to couple); left out");
      continue;
    }
    if (!oneCoordinate(target)) {
      const std::string& t = joint->mimic->joint_name;
      std::vector<std::string> names;
      for (const auto& kv : urdf_->joints_) names.push_back(kv.first);
      warning(line, who + ": <mimic> names " +
                        (urdf_->joints_.count(t) ? "joint '" + t + "', which is not a revolute, continuous or prismatic joint here"
                                                 : "unknown joint '" + t + "'" + suggestion(t, names)) +
                        "; the joint moves independently");
      continue;
    }
    if (!std::isfinite(joint->mimic->multiplier) || !std::isfinite(joint->mimic->offset)) {
      error(line, who + ": <mimic> multiplier and offset must be finite");
      continue;
    }
    CouplingDesc c;
    c.name = name + "_mimic";
    c.joint = j;
    c.reference = target;
    c.multiplier = joint->mimic->multiplier;
    c.offset = joint->mimic->offset;
    model.couplings.push_back(std::move(c));
  }
}

// Imports `xml` into `out`; false (and `out` untouched) when an error was reported.
bool Importer::run(const std::string& xml, Model& out) {
  const int errorsBefore = diags_.errorCount();
  Model model;
  if (readXml(xml) && readUrdfdom(xml)) {
    model.name = urdf_->getName();
    buildTree(model);
    readLoops(model);
    readMimics(model);
    // Self-collision off (Gazebo's and PyBullet's default), unless <gazebo><self_collide>true asks for it.
    model.collisions = CollisionMode::NoSelf;
    for (const XMLElement* g = xml_.robot->FirstChildElement("gazebo"); g; g = g->NextSiblingElement("gazebo"))
      if (const XMLElement* sc = g->Attribute("reference") ? nullptr : g->FirstChildElement("self_collide"))
        if (const char* t = sc->GetText(); t && (std::string(t) == "true" || std::string(t) == "1"))
          model.collisions = CollisionMode::All;
    // A model needs at least one body to simulate.
    if (model.bodies.empty() && diags_.errorCount() == errorsBefore)
      error(lineOf(xml_.robot), "the robot has no link with mass (every link is fixed to the world)");
  }
  if (diags_.errorCount() != errorsBefore) return false;
  out = std::move(model);
  return true;
}

// Parses the text with tinyxml2 and indexes <robot>'s children; reports malformed XML.
bool Importer::readXml(const std::string& xml) {
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
int Importer::locate(const std::string& text) const {
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
bool Importer::readUrdfdom(const std::string& xml) {
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

}  // namespace ms::urdf_detail

namespace ms {

namespace fs = std::filesystem;

bool importUrdfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags, const UrdfImportOptions& options) {
  // Nothing escapes: any unexpected exception becomes a diagnostic.
  try {
    urdf_detail::Importer importer(fileNameForMessages, baseDir, options, diags);
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
