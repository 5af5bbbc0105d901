// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import, internal to engine/io (not included elsewhere): the intermediate tree and the Importer
// whose parts live in the mjcf_*.cc files. The mapping is documented at the top of mjcf_import.cc.
// The importer works in two passes, each a list of stages:
//   pass 1, parse (mjcf_import.cc): <compiler> and <option>, <default> classes (mjcf_defaults.cc),
//     <asset> meshes and materials (mjcf_geoms.cc), <custom>, then the <worldbody> tree: bodies,
//     joints and inertials (mjcf_tree.cc) and geoms (mjcf_geoms.cc);
//   pass 2, convert (mjcf_import.cc): hosts, engine bodies and shapes (mjcf_tree.cc), grounds
//     (mjcf_geoms.cc), joints (mjcf_tree.cc), <equality> (mjcf_constraints.cc), <actuator>
//     (mjcf_actuators.cc), <contact> (mjcf_constraints.cc), MechStudio's <custom> entries.
// Attribute values (with their default classes) are read by the helpers in mjcf_defaults.cc.
#pragma once

#include <tinyxml2.h>

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/diagnostics.h"
#include "core/quaternion.h"
#include "io/collision_mesh.h"
#include "model/model.h"
#include "system/keyframe.h"

namespace ms::mjcf_detail {

using tinyxml2::XMLElement;
using tinyxml2::XMLNode;

constexpr double kPi = 3.14159265358979323846;
// The mass and inertia of a link between two joints of one MJCF body (jointChain), relative to the
// body's: MuJoCo's composed joints have no mass between them; maximal coordinates need some.
constexpr double kLinkMassRatio = 1e-6;

// A rigid transform: x_parent = t + rot(q) x_child.
struct Pose {
  Vec3 t = Vec3::Zero();
  Vec4 q = Vec4(1, 0, 0, 0);
};
inline Pose compose(const Pose& a, const Pose& b) { return {a.t + quat::rotate(a.q, b.t), quat::mul(a.q, b.q)}; }
inline Vec3 apply(const Pose& a, const Vec3& p) { return a.t + quat::rotate(a.q, p); }
inline Pose inverse(const Pose& a) {
  const Vec4 c = quat::conj(a.q);
  return {-quat::rotate(c, a.t), c};
}

// A quaternion with w ≥ 0 (the same rotation).
inline Vec4 canonical(Vec4 q) { return q(0) < 0 ? Vec4(-q) : q; }

// Shortest text of a number for messages.
inline std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// ---- source positions ---------------------------------------------------------------------------

// A place in a source file: the file (SourceMap's index: 0 the model file, then included files),
// line and column (1-based, bytes).
struct Loc {
  int line = 0, column = 0;
  int file = 0;
};

// Line and column of every element and attribute of the parsed documents of a model: the model
// file's and those of the files it includes, whose elements are cloned into the model's document
// (alias keeps their places) (mjcf_import.cc).
class SourceMap {
 public:
  // A source text (kept by the caller) and its name in messages; returns its index.
  int addFile(const std::string& name, const std::string& text);
  // The places of the elements of `doc`, parsed from file `file`'s text.
  void build(int file, const tinyxml2::XMLDocument& doc);
  // `clone` (a deep copy of `original`) is found where `original` is, and so are their children.
  void alias(const XMLElement* clone, const XMLElement* original);
  Loc element(const XMLElement* e) const;
  // The attribute's "name=" in the element's start tag; the element's position when not found.
  Loc attribute(const XMLElement* e, const char* name) const;
  Loc lineCol(int file, size_t off) const;
  const std::string& fileName(int file) const { return files_[size_t(file)].name; }

 private:
  struct File {
    std::string name;
    const std::string* text = nullptr;
    std::vector<size_t> lineStart;
  };
  void visit(int file, const XMLElement* e, size_t& cursor);

  std::vector<File> files_;
  std::unordered_map<const XMLElement*, std::pair<int, size_t>> offset_;
};

// ---- what is read -------------------------------------------------------------------------------

// Attributes read per element (mjcf_defaults.cc).
const std::map<std::string, std::set<std::string>>& knownAttributes();

// Parsed numbers of an attribute.
struct Numbers {
  std::vector<double> v;
  bool ok = true;
};

// ---- the intermediate tree ---------------------------------------------------------------------------

struct XGeom {
  const XMLElement* el = nullptr;
  std::string name;
  ShapeDesc shape;              // pose in the MJCF body's frame
  bool plane = false, ellipsoid = false, usable = true;
  bool collides = true, visible = true;
  double friction = 1;
  std::uint32_t contype = 1, conaffinity = 1;
  double mass = 0;              // its mass (from mass or density × volume)
  Vec3 com = Vec3::Zero();      // its centroid in the body frame
  Mat3 inertia = Mat3::Zero();  // about its centroid, in the body frame
  bool hasMass = false;
  double meshVolume = 0;             // mesh: its hull's volume and inertia per unit mass about the
  Mat3 meshUnitInertia = Mat3::Zero();  // centroid, in the mesh frame
};

struct XJoint {
  const XMLElement* el = nullptr;
  std::string type, name;
  Vec3 pos = Vec3::Zero(), axis = Vec3::UnitZ();
  double ref = 0, stiffness = 0, springref = 0, damping = 0, armature = 0;
  bool limited = false;
  double lower = 0, upper = 0;
};

struct XBody {
  const XMLElement* el = nullptr;
  std::string name;
  int parent = -1;      // XBody index, -1 = the world
  Pose rel, world;      // frame in the parent's frame / in the world
  std::vector<XGeom> geoms;
  std::vector<XJoint> joints;
  bool hasInertial = false;
  double mass = 0;
  Vec3 com = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();  // about com, in this body's frame
  int host = -1;                // the XBody whose engine body this body is part of (itself when it has one)
  Pose inHost;                  // this frame in the host's frame
  int engine = -1;              // engine body (hosts only)
  // Host totals (the fused bodies' mass properties in the host frame).
  double hostMass = 0;
  Vec3 hostCom = Vec3::Zero();
  Mat3 hostInertia = Mat3::Zero();
};

// A named <site>: a frame on a body, for the equalities that name sites (connect/weld site1 site2).
struct XSite {
  const XMLElement* el = nullptr;
  int body = -1;  // XBody index, -1 = the world
  Pose rel;       // in the body's frame (the world's: world coordinates)
};

// A <mesh> of the <asset>s.
struct MeshAsset {
  std::string file;                 // the file, or "" for a mesh given by its vertices
  std::vector<Vec3> vertices;       // vertex="x y z …" (a convex mesh: MuJoCo takes their hull)
  Vec3 scale = Vec3::Ones();
  const XMLElement* el = nullptr;
};

class Importer {
 public:
  Importer(const std::string& file, const std::string& baseDir, const std::string& text)
      : file_(file), baseDir_(baseDir), text_(text) {}

  bool run(Model& out, Diagnostics& diags, std::vector<InitialConditionsKeyframe>* keys = nullptr);

 private:
  // ---- diagnostics (mjcf_import.cc) ------------------------------------------------------------
  void report(Severity s, Loc at, const std::string& msg) {
    items_.push_back({s, src_.fileName(at.file), at.line, at.column, msg});
    errors_ += s == Severity::Error;
  }
  void error(const XMLElement* e, const std::string& msg) { report(Severity::Error, src_.element(e), msg); }
  void error(const XMLElement* e, const char* attr, const std::string& msg) {
    report(Severity::Error, src_.attribute(e, attr), msg);
  }
  void warning(const XMLElement* e, const std::string& msg) { report(Severity::Warning, src_.element(e), msg); }
  void warning(const XMLElement* e, const char* attr, const std::string& msg) {
    report(Severity::Warning, src_.attribute(e, attr), msg);
  }
  void note(const XMLElement* e, const std::string& msg) { report(Severity::Note, src_.element(e), msg); }
  void reportOnce(Severity severity, const std::string& key, Loc at, const std::string& msg);
  void warnOnce(const std::string& key, Loc at, const std::string& msg) { reportOnce(Severity::Warning, key, at, msg); }
  void finish(Diagnostics& diags);

  // ---- attributes and default classes (mjcf_defaults.cc) ---------------------------------------
  std::string classOf(const XMLElement* e, const std::string& inherited);
  const char* attr(const XMLElement* e, const char* name, const std::string& cls) const;
  Numbers numbers(const XMLElement* e, const char* name, const char* text, int count);
  bool number(const XMLElement* e, const char* name, const std::string& cls, double& out);
  bool vec3(const XMLElement* e, const char* name, const std::string& cls, Vec3& out);
  bool boolean(const XMLElement* e, const char* name, const std::string& cls, bool fallback);
  std::uint32_t mask(const XMLElement* e, const char* name, const std::string& cls, std::uint32_t fallback);
  void checkAttributes(const XMLElement* e);
  void unsupportedElement(const XMLElement* e, const std::string& why = "");
  Vec4 orientation(const XMLElement* e, const std::string& cls);
  Pose pose(const XMLElement* e, const std::string& cls);
  void readCompiler(const XMLElement* e);
  void readOption(const XMLElement* e);
  void readDefault(const XMLElement* e, const std::string& parent);

  // ---- pass 1: parse (mjcf_import.cc) ----------------------------------------------------------
  bool parse();
  bool parseText(const std::string& text, int file, tinyxml2::XMLDocument& doc);
  void expandIncludes(XMLElement* e, tinyxml2::XMLDocument& owner, const std::string& dir, std::vector<std::string>& stack);
  void readCustom(const XMLElement* c);
  // The tree (mjcf_tree.cc).
  void readWorldbody(const XMLElement* wb);
  void readBody(const XMLElement* e, int parent, const std::string& inheritedClass, const Pose& parentWorld);
  void readInertial(const XMLElement* e, XBody& b);
  bool readJoint(const XMLElement* e, const std::string& inherited, XJoint& j);
  // Assets and geoms (mjcf_geoms.cc).
  void readAssets(const XMLElement* a);
  bool readGeom(const XMLElement* e, const std::string& inherited, XGeom& g);
  bool readMeshGeom(const XMLElement* e, const MeshAsset& m, XGeom& g);

  // ---- pass 2: the model (mjcf_import.cc) ------------------------------------------------------
  void convert();
  void applyCustom();
  // Bodies and joints (mjcf_tree.cc).
  void assignHosts();
  void makeBodies();
  void shapeOnBody(BodyDesc& d, const Pose& f, const XGeom& g);
  void makeJoints();
  void combinedAliases(const XBody& b, int joint);
  bool combinedJoint(const XBody& b, JointDesc& j);
  bool combinable(const XBody& b) const;
  JointDesc engineJoint(const XJoint& x, const Pose& rel, const Vec3& origin) const;
  void jointChain(const XBody& b, const Pose& rel, int parentEngine, std::set<std::string>& used);
  void collectUsedJoints(const XMLElement* e);
  static std::string uniqueJointName(std::set<std::string>& used, const std::string& want);
  bool bodyRef(const XMLElement* e, const char* a, bool optional, int& xbody);
  void readSite(const XMLElement* e, int body, const std::string& inherited);
  // The site named by attribute `a` of `e` (an error at the attribute if there is none).
  const XSite* siteRef(const XMLElement* e, const char* a);
  // A site's frame in its engine body's frame (world sites: in the world).
  Pose siteInEngine(const XSite& site) const {
    return site.body < 0 ? site.rel : compose(engineFrame(site.body), site.rel);
  }
  // The pose of body i's frame in its host's engine (centre-of-mass) frame.
  Pose engineFrame(int i) const {
    const XBody& b = bodies_[size_t(i)];
    const XBody& h = bodies_[size_t(b.host)];
    return {b.inHost.t - h.hostCom, b.inHost.q};
  }
  int engineOf(int xbody) const { return xbody < 0 ? -1 : bodies_[size_t(bodies_[size_t(xbody)].host)].engine; }
  // World pose of an MJCF body's frame (the world: identity).
  Pose worldOf(int xbody) const { return xbody < 0 ? Pose() : bodies_[size_t(xbody)].world; }
  // A point given in an MJCF body's frame, in its engine body's frame (world: unchanged).
  Vec3 inEngine(int xbody, const Vec3& p) const { return xbody < 0 ? p : apply(engineFrame(xbody), p); }
  // Grounds (mjcf_geoms.cc).
  void makeGrounds();
  // Equalities and contacts (mjcf_constraints.cc).
  void makeEqualities();
  void jointEquality(const XMLElement* e);
  void makeContacts();
  // Actuators (mjcf_actuators.cc).
  enum class GeneralKind { Motor, Pd, Other };
  GeneralKind generalKind(const XMLElement* e, const std::string& cls, double& gain, double& kv);
  void makeActuators();
  // Keyframes (mjcf_keyframes.cc).
  void makeKeyframes();
  // Fixed tendons (mjcf_tendons.cc).
  void makeTendons();

  std::string file_, baseDir_;
  const std::string& text_;
  tinyxml2::XMLDocument doc_;
  SourceMap src_;
  // Included files: their texts and documents (their elements are cloned into doc_), kept for the
  // source map.
  std::deque<std::string> includedTexts_;
  std::deque<tinyxml2::XMLDocument> includedDocs_;
  const XMLElement* root_ = nullptr;
  std::vector<Diagnostic> items_;
  int errors_ = 0;
  std::map<std::string, std::pair<size_t, int>> once_;

  double angleScale_ = kPi / 180;
  std::string eulerseq_ = "xyz", meshdir_, inertiaFromGeom_ = "auto";
  bool autolimits_ = true;
  std::map<std::string, std::map<std::string, std::map<std::string, std::string>>> classes_;
  std::map<std::string, MeshAsset> meshes_;
  std::map<std::string, Vec4> materials_;
  std::map<std::string, const XMLElement*> custom_;
  MeshFileCache meshFiles_;

  std::vector<XBody> bodies_;
  std::set<std::string> bodyNames_;
  std::map<std::string, XSite> sites_;
  std::vector<XGeom> planes_;
  std::set<std::string> pairedGeoms_;  // geoms named by <contact><pair>s
  std::map<std::string, std::pair<int, int>> geomByName_;  // engine body (or -1) and ground (or -1)
  std::map<std::string, int> jointByName_, motorByName_, controllerByName_, tendonByName_;
  std::map<std::string, std::string> combinedJoints_;
  std::set<std::string> jointsUsed_;  // MJCF joints named by an actuator, a tendon or an equality  // MJCF joint name → the engine joint it is part of
  std::map<const GroundDesc*, double> groundPairFriction_;
  std::map<const XMLElement*, int> engineJointOf_;  // each MJCF <joint> (not free) → its engine joint
  bool keyframes_ = false;  // the model has <key>s: every joint keeps its own coordinate (no combining)
  std::vector<InitialConditionsKeyframe> keys_;  // the <key>s (mjcf_keyframes.cc)

  Model model_;
};

}  // namespace ms::mjcf_detail
