// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import (see mjcf_import.h). MuJoCo's XML reference (mujoco.readthedocs.io, "XML Reference")
// defines the elements; this file maps them onto the engine's Model.
//
// Reading. tinyxml2 parses the text; it knows lines but not columns, so SourceMap finds each element's
// "<tag" (in document order, from its line on) and each attribute's "name=" inside the start tag, and
// every diagnostic carries file:line:column. Bytes that XML does not allow (control characters, NUL,
// invalid UTF-8: a binary file) are refused before parsing, at their position.
//
// Attributes. An attribute's value is the element's own, else the one its default class gives:
// `class` on the element, else the `childclass` of the nearest enclosing body, else "main"; a nested
// <default class="c"> inherits from its parent class. Angles (hinge range/ref/springref, euler,
// axisangle) are in <compiler angle> units, degrees unless angle="radian"; euler follows
// <compiler eulerseq> (lowercase: axes that move with the frame, uppercase: fixed axes).
// Every attribute and element not listed in kKnown below is reported once per kind with a count.
//
// Frames. Each MJCF body has a frame (pos + quat/axisangle/euler/xyaxes/zaxis, relative to its parent).
// Engine bodies live in their centre-of-mass frames: the body's frame moved to its centre of mass c
// (the <inertial pos>, or the geoms' centroid), its orientation kept, so the inertia is the MJCF one
// rotated into the body frame (<inertial quat> · diaginertia, or fullinertia as written).
// A joint J of body b (pos p_j, unit axis a in b's frame, ref r) whose parent frame P holds b's frame at
// pose (t, R) (at the reference configuration, where MuJoCo's qpos = ref) becomes the engine joint
// q_b = q_a · q_off · rot(a, θ) (dynamics/joint_constraint.h) with θ = qpos and
//   hinge: q_off = R · rot(a, −r),  p_a = t + R p_j − c_P,  p_b = p_j − c_b,  θ₀ = r
//   slide: q_off = R,               p_a = t + R (p_j − r a) − c_P,  p_b = p_j − c_b,  θ₀ = r
//   ball:  q_off = R,               p_a = t + R p_j − c_P,  p_b = p_j − c_b
//   free:  none (the engine's free body; MuJoCo allows it only on bodies of the worldbody).
// A body with no joint is welded to its parent: fused into the parent's engine body (its mass,
// inertia and geoms are added in the parent's frame; MuJoCo's dynamics are the same) or, when the
// parent is the world, made a body fixed to the world by a fixed joint (static geometry). Geoms of the
// worldbody: planes become grounds (point = pos, normal = the geom's z axis); any other geom goes to a
// static body "world_static" fixed to the world.
//
// Mass. <inertial> gives mass and inertia; without it (or with <compiler inertiafromgeom="true">) the
// body's are the geoms' together, each of mass `mass`, or `density` (1000 kg/m³) × volume, about its
// own centroid (sphere, capsule, box, cylinder as the engine's shapes; ellipsoid; a mesh's convex
// hull), moved to the body's centre of mass (parallel axes). MuJoCo centres a mesh at its centroid
// (and turns it to its principal axes, which is not done here: a note says so when they differ).
//
// Geoms. A geom collides when contype or conaffinity is non-zero, and is drawn when its group is
// 0, 1 or 2 (MuJoCo's visible groups). A body's friction is its colliding geoms' first friction
// coefficient; its contype/conaffinity the bitwise or of its geoms'. Collisions are automatic
// (Model::collisions = All, MuJoCo's rule), with <contact><exclude> as exclusions and <pair>s between
// two bodies' geoms as contact-pairs; a <pair> with a worldbody plane gives that ground its friction.
// A ground's friction is the plane's (MuJoCo takes the larger of two geoms' coefficients; a note says
// when a body's is larger).
//
// Equalities: <connect body1 body2 anchor> → a spherical loop joint (child body1 at `anchor`, parent
// body2 or the world, the point where it is at the reference configuration); two connects between
// the same bodies → one revolute loop joint along the line through the two anchors; <weld> → a fixed
// loop joint (at the reference configuration, or at relpose).
// Actuators: <motor joint> → an actuator of effort 0 (the effort is the joint force or torque; gear and
// ranges are not used), <position joint kp [kv]> → a PD controller with target 0 (the control input),
// effort limit from forcerange.
// MechStudio's own MJCF export (io/mjcf_writer.h) adds <custom> entries "mechstudio.*" that carry what
// MJCF cannot say (the collision mode, controller set-points, constant efforts); they are read back.
#include "io/mjcf_import.h"

#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>

#include "contact/convex_hull.h"
#include "core/quaternion.h"
#include "core/suggest.h"
#include "io/collision_mesh.h"
#include "io/mech_reader.h"

namespace ms {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

constexpr double kPi = 3.14159265358979323846;

// A rigid transform: x_parent = t + rot(q) x_child.
struct Pose {
  Vec3 t = Vec3::Zero();
  Vec4 q = Vec4(1, 0, 0, 0);
};
Pose compose(const Pose& a, const Pose& b) { return {a.t + quat::rotate(a.q, b.t), quat::mul(a.q, b.q)}; }
Vec3 apply(const Pose& a, const Vec3& p) { return a.t + quat::rotate(a.q, p); }
Pose inverse(const Pose& a) {
  const Vec4 c = quat::conj(a.q);
  return {-quat::rotate(c, a.t), c};
}

// A quaternion with w ≥ 0 (the same rotation).
Vec4 canonical(Vec4 q) { return q(0) < 0 ? Vec4(-q) : q; }

// Shortest text of a number for messages.
std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// ---- source positions ---------------------------------------------------------------------------

// Line and column (1-based, bytes) of every element and attribute of a parsed document.
class SourceMap {
 public:
  void build(const std::string& text, const tinyxml2::XMLDocument& doc) {
    text_ = &text;
    lineStart_.assign(1, 0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') lineStart_.push_back(i + 1);
    size_t cursor = 0;
    for (const XMLElement* e = doc.FirstChildElement(); e; e = e->NextSiblingElement()) visit(e, cursor);
  }
  std::pair<int, int> element(const XMLElement* e) const {
    auto it = offset_.find(e);
    if (it == offset_.end()) return {e ? e->GetLineNum() : 0, 0};
    return lineCol(it->second);
  }
  // The attribute's "name=" in the element's start tag; the element's position when not found.
  std::pair<int, int> attribute(const XMLElement* e, const char* name) const {
    auto it = offset_.find(e);
    if (it == offset_.end()) return element(e);
    const std::string& s = *text_;
    size_t i = it->second + 1 + std::strlen(e->Name());
    const size_t n = std::strlen(name);
    while (i < s.size()) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i >= s.size() || s[i] == '>' || s[i] == '/') break;
      const size_t start = i;
      while (i < s.size() && s[i] != '=' && s[i] != '>' && s[i] != '/' && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      const bool match = i - start == n && s.compare(start, n, name) == 0;
      if (match) return lineCol(start);
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i >= s.size() || s[i] != '=') break;
      ++i;
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) break;
      const size_t close = s.find(s[i], i + 1);
      if (close == std::string::npos) break;
      i = close + 1;
    }
    return element(e);
  }
  std::pair<int, int> lineCol(size_t off) const {
    const size_t line = size_t(std::upper_bound(lineStart_.begin(), lineStart_.end(), off) - lineStart_.begin());
    return {int(line), int(off - lineStart_[line - 1] + 1)};
  }

 private:
  // Elements start in document order: the next "<tag" (followed by a delimiter) from the later of the
  // previous element's start and the element's line.
  void visit(const XMLElement* e, size_t& cursor) {
    const std::string& s = *text_;
    const int line = e->GetLineNum();
    size_t from = cursor;
    if (line >= 1 && size_t(line) <= lineStart_.size()) from = std::max(from, lineStart_[size_t(line) - 1]);
    const std::string tag = std::string("<") + e->Name();
    for (size_t p = s.find(tag, from); p != std::string::npos; p = s.find(tag, p + 1)) {
      const size_t after = p + tag.size();
      if (after >= s.size() || std::isspace(static_cast<unsigned char>(s[after])) || s[after] == '>' || s[after] == '/') {
        offset_[e] = p;
        cursor = p + 1;
        break;
      }
    }
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) visit(c, cursor);
  }

  const std::string* text_ = nullptr;
  std::vector<size_t> lineStart_;
  std::unordered_map<const XMLElement*, size_t> offset_;
};

// The first byte XML does not allow (a control character other than tab/newline/return, or invalid
// UTF-8), or npos.
size_t firstBinaryByte(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return i;
      ++i;
      continue;
    }
    // A UTF-8 sequence: a lead byte and 1–3 continuation bytes.
    const int extra = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
    if (extra < 0 || i + size_t(extra) >= s.size()) return i;
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + size_t(k)]) & 0xC0) != 0x80) return i;
    i += size_t(extra) + 1;
  }
  return std::string::npos;
}

// ---- what is read -------------------------------------------------------------------------------

// Attributes read per element (anything else gets a "not supported" warning). Attributes that only
// name or group things in MuJoCo and mean nothing here ("user") are listed as well.
const std::map<std::string, std::set<std::string>>& knownAttributes() {
  static const std::map<std::string, std::set<std::string>> k = {
      {"mujoco", {"model"}},
      {"compiler", {"angle", "eulerseq", "meshdir", "assetdir", "texturedir", "inertiafromgeom", "autolimits",
                    "coordinate", "inertiagrouprange"}},
      {"option", {"timestep", "gravity"}},
      {"body", {"name", "childclass", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis"}},
      {"inertial", {"pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "mass", "diaginertia", "fullinertia"}},
      {"joint", {"name", "class", "type", "pos", "axis", "ref", "range", "limited", "stiffness", "springref",
                 "damping"}},
      {"freejoint", {"name"}},
      {"geom", {"name", "class", "type", "size", "fromto", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis",
                "rgba", "material", "mass", "density", "friction", "contype", "conaffinity", "group", "mesh",
                "condim"}},
      {"mesh", {"name", "class", "file", "scale", "vertex"}},
      {"material", {"name", "class", "rgba"}},
      {"connect", {"name", "class", "body1", "body2", "anchor", "active"}},
      {"weld", {"name", "class", "body1", "body2", "relpose", "active"}},
      {"motor", {"name", "class", "joint", "gear", "ctrlrange", "ctrllimited", "forcerange", "forcelimited"}},
      {"position", {"name", "class", "joint", "kp", "kv", "gear", "ctrlrange", "ctrllimited", "forcerange",
                    "forcelimited"}},
      {"general", {"name", "class", "joint", "gaintype", "gainprm", "biastype", "biasprm", "gear", "ctrlrange",
                   "ctrllimited", "forcerange", "forcelimited"}},
      {"exclude", {"name", "body1", "body2"}},
      {"pair", {"name", "class", "geom1", "geom2", "friction", "condim"}},
      {"default", {"class"}},
      {"numeric", {"name", "data", "size"}},
      {"text", {"name", "data"}},
  };
  return k;
}

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
  double ref = 0, stiffness = 0, springref = 0, damping = 0;
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

  bool run(Model& out, Diagnostics& diags) {
    if (parse()) convert();
    finish(diags);
    if (errors_ > 0) return false;
    out = std::move(model_);
    return true;
  }

 private:
  // ---- diagnostics -----------------------------------------------------------------------------
  void report(Severity s, std::pair<int, int> at, const std::string& msg) {
    items_.push_back({s, file_, at.first, at.second, msg});
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
  // A warning reported once per key; later occurrences are counted into it.
  void warnOnce(const std::string& key, std::pair<int, int> at, const std::string& msg) {
    auto it = once_.find(key);
    if (it != once_.end()) {
      ++it->second.second;
      return;
    }
    once_[key] = {items_.size(), 1};
    report(Severity::Warning, at, msg);
  }
  void finish(Diagnostics& diags) {
    for (const auto& [key, v] : once_)
      if (v.second > 1) items_[v.first].message += " (" + std::to_string(v.second) + " times; the first is here)";
    std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
    });
    for (const Diagnostic& d : items_) diags.add(d.severity, d.file, d.line, d.column, d.message);
  }

  // ---- attributes ------------------------------------------------------------------------------
  // The class an element's defaults come from.
  std::string classOf(const XMLElement* e, const std::string& inherited) {
    const char* c = e->Attribute("class");
    if (!c) return inherited;
    if (!classes_.count(c)) {
      std::vector<std::string> names;
      for (const auto& kv : classes_) names.push_back(kv.first);
      error(e, "class", std::string("unknown default class '") + c + "'" + suggestion(c, names));
      return inherited;
    }
    return c;
  }
  // The value of `attr` on `e` or from its class's defaults for elements named like e; null if none.
  const char* attr(const XMLElement* e, const char* name, const std::string& cls) const {
    if (const char* v = e->Attribute(name)) return v;
    auto c = classes_.find(cls);
    if (c == classes_.end()) return nullptr;
    auto t = c->second.find(e->Name());
    if (t == c->second.end()) return nullptr;
    auto a = t->second.find(name);
    return a == t->second.end() ? nullptr : a->second.c_str();
  }
  // Numbers of an attribute: exactly `count` of them (count < 0: 1…-count). Errors at the attribute.
  Numbers numbers(const XMLElement* e, const char* name, const char* text, int count) {
    Numbers r;
    std::istringstream in(text);
    std::string tok;
    while (in >> tok) {
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0' || !std::isfinite(v)) {
        error(e, name, std::string("attribute '") + name + "' of <" + e->Name() + ">: '" + tok +
                           "' is not a finite number");
        r.ok = false;
        return r;
      }
      r.v.push_back(v);
    }
    const int n = int(r.v.size());
    if ((count >= 0 && n != count) || (count < 0 && (n < 1 || n > -count))) {
      error(e, name, std::string("attribute '") + name + "' of <" + e->Name() + "> needs " +
                         (count >= 0 ? std::to_string(count) : "1 to " + std::to_string(-count)) + " number" +
                         (count == 1 ? "" : "s") + ", got " + std::to_string(n) + " ('" + text + "')");
      r.ok = false;
    }
    return r;
  }
  bool number(const XMLElement* e, const char* name, const std::string& cls, double& out) {
    const char* t = attr(e, name, cls);
    if (!t) return false;
    Numbers n = numbers(e, name, t, 1);
    if (n.ok) out = n.v[0];
    return n.ok;
  }
  bool vec3(const XMLElement* e, const char* name, const std::string& cls, Vec3& out) {
    const char* t = attr(e, name, cls);
    if (!t) return false;
    Numbers n = numbers(e, name, t, 3);
    if (n.ok) out = Vec3(n.v[0], n.v[1], n.v[2]);
    return n.ok;
  }
  bool boolean(const XMLElement* e, const char* name, const std::string& cls, bool fallback) {
    const char* t = attr(e, name, cls);
    if (!t) return fallback;
    const std::string s = t;
    if (s == "true") return true;
    if (s == "false") return false;
    if (s == "auto") return fallback;
    error(e, name, std::string("attribute '") + name + "' must be true, false or auto, not '" + s + "'");
    return fallback;
  }
  std::uint32_t mask(const XMLElement* e, const char* name, const std::string& cls, std::uint32_t fallback) {
    const char* t = attr(e, name, cls);
    if (!t) return fallback;
    char* end = nullptr;
    const long long v = std::strtoll(t, &end, 10);
    if (end == t || *end != '\0' || v < 0 || v > 0xffffffffLL) {
      error(e, name, std::string("attribute '") + name + "' must be an integer from 0 to 2^32-1, not '" + t + "'");
      return fallback;
    }
    return std::uint32_t(v);
  }
  // Attributes of `e` outside its kind's list, and unknown elements: a warning per kind.
  void checkAttributes(const XMLElement* e) {
    const auto& k = knownAttributes();
    auto it = k.find(e->Name());
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
      if (it != k.end() && it->second.count(a->Name())) continue;
      warnOnce(std::string(e->Name()) + "/" + a->Name(), src_.attribute(e, a->Name()),
               std::string("attribute '") + a->Name() + "' of <" + e->Name() + "> is not supported; ignored");
    }
  }
  void unsupportedElement(const XMLElement* e, const std::string& why = "") {
    warnOnce(std::string("<") + e->Name() + ">", src_.element(e),
             std::string("element <") + e->Name() + "> is not supported" + (why.empty() ? "" : " (" + why + ")") +
                 "; ignored");
  }

  // The orientation given by quat, axisangle, euler, xyaxes or zaxis (at most one), identity if none.
  Vec4 orientation(const XMLElement* e, const std::string& cls) {
    const char* given[5] = {attr(e, "quat", cls), attr(e, "axisangle", cls), attr(e, "euler", cls),
                            attr(e, "xyaxes", cls), attr(e, "zaxis", cls)};
    const char* names[5] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
    int which = -1;
    for (int k = 0; k < 5; ++k) {
      if (!given[k]) continue;
      if (which >= 0) {
        error(e, names[k], std::string("<") + e->Name() + "> gives both '" + names[which] + "' and '" + names[k] +
                               "': an orientation is given one way");
        return quat::identity();
      }
      which = k;
    }
    if (which < 0) return quat::identity();
    const int counts[5] = {4, 4, 3, 6, 3};
    Numbers n = numbers(e, names[which], given[which], counts[which]);
    if (!n.ok) return quat::identity();
    const std::vector<double>& v = n.v;
    switch (which) {
      case 0: {
        const Vec4 q(v[0], v[1], v[2], v[3]);
        if (q.norm() == 0) {
          error(e, "quat", "the quaternion is zero");
          return quat::identity();
        }
        return q.normalized();
      }
      case 1: {
        const Vec3 a(v[0], v[1], v[2]);
        if (a.norm() == 0) {
          error(e, "axisangle", "the rotation axis is zero");
          return quat::identity();
        }
        return quat::fromAxisAngle(a, v[3] * angleScale_);
      }
      case 2: {
        Vec4 q = quat::identity();
        for (int k = 0; k < 3; ++k) {
          const char c = eulerseq_[size_t(k)];
          const int axis = std::tolower(static_cast<unsigned char>(c)) - 'x';
          const Vec4 r = quat::fromAxisAngle(Vec3::Unit(axis), v[size_t(k)] * angleScale_);
          q = std::islower(static_cast<unsigned char>(c)) ? quat::mul(q, r) : quat::mul(r, q);
        }
        return q;
      }
      case 3: {
        Vec3 x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
        if (x.norm() == 0) {
          error(e, "xyaxes", "the x axis is zero");
          return quat::identity();
        }
        x.normalize();
        y -= x * x.dot(y);
        if (y.norm() == 0) {
          error(e, "xyaxes", "the y axis is parallel to the x axis");
          return quat::identity();
        }
        y.normalize();
        Mat3 R;
        R << x, y, x.cross(y);
        Eigen::Quaterniond q(R);
        return canonical(Vec4(q.w(), q.x(), q.y(), q.z()).normalized());
      }
      default: {
        const Vec3 z(v[0], v[1], v[2]);
        if (z.norm() == 0) {
          error(e, "zaxis", "the z axis is zero");
          return quat::identity();
        }
        const Eigen::Quaterniond q = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), z.normalized());
        return canonical(Vec4(q.w(), q.x(), q.y(), q.z()).normalized());
      }
    }
  }
  Pose pose(const XMLElement* e, const std::string& cls) {
    Pose p;
    vec3(e, "pos", cls, p.t);
    p.q = orientation(e, cls);
    return p;
  }

  // ---- pass 1: parse ---------------------------------------------------------------------------
  bool parse() {
    const size_t bad = firstBinaryByte(text_);
    if (bad != std::string::npos) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text_[bad]));
      SourceMap lines;
      tinyxml2::XMLDocument empty;
      lines.build(text_, empty);
      report(Severity::Error, lines.lineCol(bad),
             std::string("byte ") + hex + " is not text: this is not an MJCF (XML) file");
      return false;
    }
    if (doc_.Parse(text_.c_str(), text_.size()) != tinyxml2::XML_SUCCESS) {
      // tinyxml2's message is "Error=NAME ErrorID=N (0xN) Line number=L: detail"; say what NAME means.
      std::string detail = doc_.ErrorStr() ? doc_.ErrorStr() : "";
      const size_t colon = detail.rfind(": ");
      detail = colon != std::string::npos && colon + 2 < detail.size() ? detail.substr(colon + 2) : "";
      std::string what;
      switch (doc_.ErrorID()) {
        case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT: what = "an element is not closed, or is closed by another element's end tag"; break;
        case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: what = "a malformed attribute (write name=\"value\")"; break;
        case tinyxml2::XML_ERROR_PARSING_ELEMENT: what = "a malformed element"; break;
        case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: what = "the file has no element"; break;
        case tinyxml2::XML_ERROR_PARSING_COMMENT: what = "a comment is not closed (-->)"; break;
        case tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED:
          what = "elements nest deeper than the XML reader's limit (" + std::to_string(TINYXML2_MAX_ELEMENT_DEPTH) +
                 " levels; MuJoCo's reader has the same limit): a chain of that many bodies nested in each other";
          break;
        default: what = doc_.ErrorName(); break;
      }
      report(Severity::Error, {doc_.ErrorLineNum(), 1}, "malformed XML: " + what + (detail.empty() ? "" : " (" + detail + ")"));
      return false;
    }
    src_.build(text_, doc_);
    root_ = doc_.RootElement();
    if (!root_ || std::string(root_->Name()) != "mujoco") {
      error(root_, std::string("the root element is <") + (root_ ? root_->Name() : "") +
                       ">, not <mujoco>: this is not an MJCF model");
      return false;
    }
    checkAttributes(root_);
    if (const char* m = root_->Attribute("model")) model_.name = m;
    // Compiler and option first (angle units and directories apply to everything).
    for (const XMLElement* e = root_->FirstChildElement("compiler"); e; e = e->NextSiblingElement("compiler")) readCompiler(e);
    classes_["main"];
    for (const XMLElement* e = root_->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string n = e->Name();
      if (n == "compiler") continue;
      if (n == "option") readOption(e);
      else if (n == "default") readDefault(e, "");
      else if (n == "asset") readAssets(e);
      else if (n == "custom") readCustom(e);
      else if (n == "size") continue;  // sizes of MuJoCo's buffers: nothing to model
      else if (n != "worldbody" && n != "equality" && n != "actuator" && n != "contact")
        unsupportedElement(e, n == "include" ? "put the included file's elements into this file" : "");
    }
    const XMLElement* wb = root_->FirstChildElement("worldbody");
    if (!wb) {
      error(root_, "the model has no <worldbody>");
      return false;
    }
    for (const XMLElement* w = wb->NextSiblingElement("worldbody"); w; w = w->NextSiblingElement("worldbody"))
      error(w, "a second <worldbody>: MJCF has one");
    readWorldbody(wb);
    return errors_ == 0;
  }

  void readCompiler(const XMLElement* e) {
    checkAttributes(e);
    if (const char* a = e->Attribute("angle")) {
      const std::string s = a;
      if (s == "radian") angleScale_ = 1;
      else if (s == "degree") angleScale_ = kPi / 180;
      else error(e, "angle", "angle must be 'degree' or 'radian', not '" + s + "'");
    }
    if (const char* a = e->Attribute("eulerseq")) {
      const std::string s = a;
      bool ok = s.size() == 3;
      for (char c : s) ok = ok && std::string("xyzXYZ").find(c) != std::string::npos;
      if (ok) eulerseq_ = s;
      else error(e, "eulerseq", "eulerseq must be three of x y z X Y Z (e.g. 'xyz'), not '" + s + "'");
    }
    if (const char* a = e->Attribute("assetdir")) meshdir_ = a;
    if (const char* a = e->Attribute("meshdir")) meshdir_ = a;
    if (const char* a = e->Attribute("inertiafromgeom")) {
      const std::string s = a;
      if (s == "true" || s == "false" || s == "auto") inertiaFromGeom_ = s;
      else error(e, "inertiafromgeom", "inertiafromgeom must be true, false or auto, not '" + s + "'");
    }
    autolimits_ = boolean(e, "autolimits", "", autolimits_);
    if (const char* a = e->Attribute("coordinate"); a && std::string(a) != "local")
      error(e, "coordinate", std::string("coordinate='") + a + "' is not supported (only local coordinates)");
  }

  void readOption(const XMLElement* e) {
    checkAttributes(e);
    double dt = 0;
    if (number(e, "timestep", "", dt)) {
      if (dt > 0) model_.solver.dt = dt;
      else error(e, "timestep", "the time step must be positive, not " + num(dt));
    }
    vec3(e, "gravity", "", model_.gravity);
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement())
      unsupportedElement(c, "MechStudio's solver has its own settings");
  }

  // <default class="…"> with element defaults and nested classes (inheriting from this one).
  void readDefault(const XMLElement* e, const std::string& parent) {
    checkAttributes(e);
    std::string name = "main";
    if (const char* c = e->Attribute("class")) name = c;
    else if (!parent.empty()) {
      error(e, "a nested <default> needs a class attribute");
      return;
    }
    if (!parent.empty() && classes_.count(name)) {
      error(e, "class", "default class '" + name + "' is defined twice");
      return;
    }
    if (!parent.empty()) classes_[name] = classes_[parent];
    auto& cls = classes_[name];
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
      const std::string tag = c->Name();
      if (tag == "default") {
        readDefault(c, name);
        continue;
      }
      if (!knownAttributes().count(tag) || tag == "mujoco" || tag == "compiler" || tag == "option" ||
          tag == "body" || tag == "inertial") {
        unsupportedElement(c, "in <default>");
        continue;
      }
      checkAttributes(c);
      for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) {
        if (std::string(a->Name()) == "class" || std::string(a->Name()) == "name") continue;
        cls[tag][a->Name()] = a->Value();
      }
    }
  }

  void readAssets(const XMLElement* a) {
    for (const XMLElement* e = a->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "mesh") {
        checkAttributes(e);
        const std::string cls = classOf(e, "main");
        const char* file = attr(e, "file", cls);
        const char* vertex = attr(e, "vertex", cls);
        if (!file && !vertex) {
          error(e, "a <mesh> needs a file or vertex attribute");
          continue;
        }
        if (!e->Attribute("name") && !file) {
          error(e, "a <mesh> given by its vertices needs a name");
          continue;
        }
        std::string name = e->Attribute("name") ? e->Attribute("name") : fs::path(file).stem().string();
        MeshAsset m;
        if (file) m.file = file;
        m.el = e;
        if (vertex && !file) {
          Numbers n = numbers(e, "vertex", vertex, -3 * 100000);
          if (!n.ok) continue;
          if (n.v.size() % 3 != 0 || n.v.size() < 12) {
            error(e, "vertex", "vertex needs at least 4 points of 3 coordinates each (got " + std::to_string(n.v.size()) + " numbers)");
            continue;
          }
          for (size_t k = 0; k + 2 < n.v.size(); k += 3) m.vertices.emplace_back(n.v[k], n.v[k + 1], n.v[k + 2]);
        }
        if (const char* s = attr(e, "scale", cls)) {
          Numbers n = numbers(e, "scale", s, 3);
          if (n.ok) m.scale = Vec3(n.v[0], n.v[1], n.v[2]);
        }
        if (!meshes_.emplace(name, m).second) error(e, "name", "mesh '" + name + "' is defined twice");
      } else if (tag == "material") {
        checkAttributes(e);
        const char* name = e->Attribute("name");
        if (!name) {
          error(e, "a <material> needs a name");
          continue;
        }
        Vec4 rgba(1, 1, 1, 1);
        if (const char* t = attr(e, "rgba", classOf(e, "main"))) {
          Numbers n = numbers(e, "rgba", t, 4);
          if (n.ok) rgba = Vec4(n.v[0], n.v[1], n.v[2], n.v[3]);
        }
        materials_[name] = rgba;
      } else {
        unsupportedElement(e, tag == "texture" || tag == "hfield" || tag == "skin" ? "not drawn or simulated here" : "");
      }
    }
  }

  // MechStudio's own entries (written by its MJCF export); other custom data is reported.
  void readCustom(const XMLElement* c) {
    for (const XMLElement* e = c->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const char* name = e->Attribute("name");
      const std::string n = name ? name : "";
      if (n.rfind("mechstudio.", 0) != 0) {
        unsupportedElement(e, "custom data");
        continue;
      }
      checkAttributes(e);
      custom_[n] = e;
    }
  }

  // The worldbody's geoms (planes → grounds, the others → a static body) and its bodies.
  void readWorldbody(const XMLElement* wb) {
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
      } else if (tag != "body") {
        unsupportedElement(e, tag == "site" || tag == "camera" || tag == "light" ? "not used here" : "");
      }
    }
    if (!world.geoms.empty()) bodies_.push_back(std::move(world));
    for (const XMLElement* e = wb->FirstChildElement("body"); e; e = e->NextSiblingElement("body"))
      readBody(e, -1, "main", Pose());
  }

  void readBody(const XMLElement* e, int parent, const std::string& inheritedClass, const Pose& parentWorld) {
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
      } else {
        unsupportedElement(c, tag == "site" || tag == "camera" || tag == "light" ? "not used here" : "");
      }
    }
    const Pose world = bodies_[size_t(self)].world;
    for (const XMLElement* c : kids) readBody(c, self, childclass, world);
  }

  void readInertial(const XMLElement* e, XBody& b) {
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

  bool readJoint(const XMLElement* e, const std::string& inherited, XJoint& j) {
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
    if (j.stiffness < 0 || j.damping < 0) error(e, "joint stiffness and damping must not be negative");
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

  // One geom: its shape in the body frame, its collision and drawing roles, its mass properties.
  bool readGeom(const XMLElement* e, const std::string& inherited, XGeom& g) {
    checkAttributes(e);
    g.el = e;
    const std::string cls = classOf(e, inherited);
    g.name = e->Attribute("name") ? e->Attribute("name") : "";
    const char* typeAttr = attr(e, "type", cls);
    const std::string type = typeAttr ? typeAttr : "sphere";
    static const std::vector<std::string> kinds = {"sphere", "capsule", "box", "cylinder", "plane", "mesh",
                                                   "ellipsoid", "hfield", "sdf"};
    if (std::find(kinds.begin(), kinds.end(), type) == kinds.end()) {
      error(e, "type", "unknown geom type '" + type + "'" + suggestion(type, kinds));
      return false;
    }
    if (type == "hfield" || type == "sdf") {
      warnOnce("geom-" + type, src_.attribute(e, "type"), "geom type '" + type + "' is not supported; the geom is left out");
      return false;
    }
    ShapeDesc& s = g.shape;
    Pose p = pose(e, cls);
    // Size: up to 3 numbers (their meaning depends on the type); fromto for the elongated types.
    std::vector<double> size = {0, 0, 0};
    if (const char* t = attr(e, "size", cls)) {
      Numbers n = numbers(e, "size", t, -3);
      if (!n.ok) return false;
      for (size_t k = 0; k < n.v.size(); ++k) size[k] = n.v[k];
    }
    if (const char* ft = attr(e, "fromto", cls)) {
      if (type != "capsule" && type != "cylinder" && type != "box" && type != "ellipsoid") {
        error(e, "fromto", "fromto applies to capsules, cylinders, boxes and ellipsoids, not to a " + type);
        return false;
      }
      Numbers n = numbers(e, "fromto", ft, 6);
      if (!n.ok) return false;
      const Vec3 a(n.v[0], n.v[1], n.v[2]), b(n.v[3], n.v[4], n.v[5]);
      const Vec3 d = b - a;
      if (d.norm() == 0) {
        error(e, "fromto", "the two ends of fromto coincide");
        return false;
      }
      p.t = 0.5 * (a + b);
      const Eigen::Quaterniond q = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), d.normalized());
      p.q = canonical(Vec4(q.w(), q.x(), q.y(), q.z()).normalized());
      if (type == "box" || type == "ellipsoid") size[1] = size[0];
      size[type == "box" || type == "ellipsoid" ? 2 : 1] = 0.5 * d.norm();
    }
    s.position = p.t;
    s.orientation = p.q;
    auto positive = [&](int count) {
      for (int k = 0; k < count; ++k)
        if (!(size[size_t(k)] > 0)) {
          error(e, "size", "a " + type + " needs " + std::to_string(count) + " positive size value" +
                               (count > 1 ? "s" : "") + " (got " + num(size[size_t(k)]) + ")");
          return false;
        }
      return true;
    };
    if (type == "sphere") {
      if (!positive(1)) return false;
      s.kind = ShapeDesc::Kind::Sphere, s.size = Vec3(size[0], 0, 0);
    } else if (type == "capsule" || type == "cylinder") {
      if (!positive(2)) return false;
      s.kind = type == "capsule" ? ShapeDesc::Kind::Capsule : ShapeDesc::Kind::Cylinder;
      s.size = Vec3(size[0], 2 * size[1], 0);
    } else if (type == "box") {
      if (!positive(3)) return false;
      s.kind = ShapeDesc::Kind::Box, s.size = 2 * Vec3(size[0], size[1], size[2]);
    } else if (type == "ellipsoid") {
      if (!positive(3)) return false;
      g.ellipsoid = true;
      g.usable = false;
      warnOnce("geom-ellipsoid", src_.attribute(e, "type"),
               "ellipsoid geoms are not supported: they count for mass and inertia but are neither drawn nor collide");
    } else if (type == "plane") {
      s.kind = ShapeDesc::Kind::Plane;
      s.size = Vec3(2 * size[0], 2 * size[1], 0);
      g.plane = true;
    } else {  // mesh
      const char* mesh = attr(e, "mesh", cls);
      if (!mesh) {
        error(e, "a mesh geom needs a mesh attribute");
        return false;
      }
      auto it = meshes_.find(mesh);
      if (it == meshes_.end()) {
        std::vector<std::string> names;
        for (const auto& kv : meshes_) names.push_back(kv.first);
        error(e, "mesh", std::string("unknown mesh '") + mesh + "'" + suggestion(mesh, names));
        return false;
      }
      if (!readMeshGeom(e, it->second, g)) return false;
    }
    // Colour: rgba, else the material's, else MuJoCo's grey.
    s.color = Vec4(0.5, 0.5, 0.5, 1);
    if (const char* m = attr(e, "material", cls)) {
      auto it = materials_.find(m);
      if (it != materials_.end()) s.color = it->second;
      else warning(e, "material", std::string("unknown material '") + m + "'; the default colour is used");
    }
    if (const char* t = attr(e, "rgba", cls)) {
      Numbers n = numbers(e, "rgba", t, 4);
      if (n.ok) s.color = Vec4(n.v[0], n.v[1], n.v[2], n.v[3]);
    }
    // Roles.
    g.contype = mask(e, "contype", cls, 1);
    g.conaffinity = mask(e, "conaffinity", cls, 1);
    g.collides = (g.contype | g.conaffinity) != 0;
    double group = 0;
    number(e, "group", cls, group);
    g.visible = group < 3;
    if (const char* f = attr(e, "friction", cls)) {
      Numbers n = numbers(e, "friction", f, -3);
      if (n.ok) g.friction = n.v[0];
      if (n.ok && g.friction < 0) error(e, "friction", "the friction coefficient is negative");
    }
    double condim = 3;
    if (number(e, "condim", cls, condim) && condim != 3) {
      if (condim == 1) g.friction = 0;
      warnOnce("condim", src_.attribute(e, "condim"),
               "condim " + num(condim) + " is not supported: contacts have Coulomb friction (condim 3)" +
                   (condim == 1 ? "; this geom's friction is set to 0" : ""));
    }
    // Mass properties (planes have none).
    if (g.plane) return true;
    double volume = 0;
    Mat3 unitInertia = Mat3::Zero();  // per unit mass, about the centroid, in the body frame
    if (g.ellipsoid) {
      const double a = size[0], b = size[1], c = size[2];
      volume = 4.0 / 3.0 * kPi * a * b * c;
      const Mat3 R = quat::rotation(p.q);
      unitInertia = R * Vec3((b * b + c * c) / 5, (a * a + c * c) / 5, (a * a + b * b) / 5).asDiagonal() * R.transpose();
      g.com = p.t;
    } else if (s.kind == ShapeDesc::Kind::Mesh) {
      volume = g.meshVolume;
      const Mat3 R = quat::rotation(s.orientation);
      unitInertia = R * g.meshUnitInertia * R.transpose();
      g.com = p.t;  // a mesh is centred at its centroid, like MuJoCo
    } else {
      if (!shapeVolume(s, volume) || !shapeInertia(s, 1.0, unitInertia)) volume = 0;
      g.com = p.t;
    }
    double density = 1000;
    number(e, "density", cls, density);
    if (number(e, "mass", cls, g.mass)) {
      if (g.mass < 0) error(e, "mass", "the mass is negative");
    } else {
      if (density < 0) error(e, "density", "the density is negative");
      g.mass = density * volume;
    }
    g.inertia = g.mass * unitInertia;
    g.hasMass = volume > 0 || g.mass > 0;
    return true;
  }

  // A mesh geom: the file (meshdir, then the model's directory) and its vertices' convex hull (for
  // the centroid, the mass properties and, for a colliding geom of at most contact::kMaxHullVertices
  // hull vertices, collisions), placed so that its centroid is at the geom's position, as MuJoCo does.
  bool readMeshGeom(const XMLElement* e, const MeshAsset& m, XGeom& g) {
    ShapeDesc& s = g.shape;
    s.kind = ShapeDesc::Kind::Mesh;
    s.meshScale = m.scale;
    std::string rel = m.file;
    if (!rel.empty() && !fs::path(rel).is_absolute() && !meshdir_.empty()) rel = (fs::path(meshdir_) / rel).lexically_normal().string();
    s.meshFile = rel;
    const std::string path = rel.empty() ? std::string() : resolveMeshPath(rel, baseDir_);
    const MeshData* data = nullptr;
    const MeshFileError* err = nullptr;
    contact::ConvexHull hull;
    std::string why;
    std::vector<Vec3> pts;
    if (path.empty()) {
      for (const Vec3& v : m.vertices) pts.push_back(v.cwiseProduct(m.scale));
    } else if (meshFiles_.read(path, data, err)) {
      for (const Vec3& v : data->vertices) pts.push_back(v.cwiseProduct(m.scale));
    }
    if (pts.empty() || !contact::buildConvexHull(pts, hull, why)) {
      warnOnce("mesh-file:" + m.file, src_.attribute(m.el, "file"),
               "mesh '" + m.file + "': " + (err ? err->format() : why) +
                   " (drawn if the viewer reads it; it neither collides nor has mass)");
      g.collides = false;
      return true;
    }
    const contact::HullMassProperties mp = contact::hullMassProperties(hull);
    s.position = s.position - quat::rotate(s.orientation, mp.centroid);
    g.meshVolume = mp.volume;
    g.meshUnitInertia = mp.volume > 0 ? Mat3(mp.inertiaPerDensity / mp.volume) : Mat3::Zero();
    const Mat3& J = mp.inertiaPerDensity;
    const double off = std::max({std::abs(J(0, 1)), std::abs(J(0, 2)), std::abs(J(1, 2))});
    if (off > 1e-6 * J.diagonal().maxCoeff())
      warnOnce("mesh-axes:" + m.file, src_.element(e),
               "mesh '" + m.file + "': MuJoCo would also turn it to its principal axes; MechStudio keeps the file's orientation");
    if (path.empty()) {
      // Given by its vertices: MechStudio's meshes are files, so it only counts for mass and inertia.
      warnOnce("mesh-vertex", src_.attribute(m.el, "vertex"),
               "a mesh given by its vertices counts for mass and inertia but is neither drawn nor collides "
               "(MechStudio's meshes are files)");
      g.visible = g.collides = false;
      return true;
    }
    if (!g.collides) return true;
    CollisionMeshReport rep;
    ShapeDesc probe = s;
    if (!loadCollisionMesh(probe, path, meshFiles_, rep)) {
      warnOnce("mesh-collide:" + m.file, src_.element(e), "mesh '" + m.file + "': " + rep.error + "; it is drawn but does not collide");
      g.collides = false;
      return true;
    }
    for (const std::string& w : rep.warnings) warnOnce("mesh-warn:" + m.file + w, src_.element(e), w);
    s.meshVertices = std::move(probe.meshVertices);
    return true;
  }

  // ---- pass 2: the model -------------------------------------------------------------------------
  void convert() {
    assignHosts();
    makeBodies();
    makeGrounds();
    makeJoints();
    if (errors_ > 0) return;
    makeEqualities();
    makeActuators();
    makeContacts();
    applyCustom();
  }

  // Hosts: a body with a joint, or a jointless child of the world, has its own engine body; any other
  // jointless body is part of its parent's.
  void assignHosts() {
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

  // The pose of body i's frame in its host's engine (centre-of-mass) frame.
  Pose engineFrame(int i) const {
    const XBody& b = bodies_[size_t(i)];
    const XBody& h = bodies_[size_t(b.host)];
    return {b.inHost.t - h.hostCom, b.inHost.q};
  }

  void makeBodies() {
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
        d.collisions.push_back(std::move(s));
        // The body's friction and masks: the first colliding geom's friction, the masks or-ed.
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
  void shapeOnBody(BodyDesc& d, const Pose& f, const XGeom& g) {
    ShapeDesc s = g.shape;
    const Pose sp = compose(f, Pose{s.position, s.orientation});
    s.position = sp.t;
    s.orientation = canonical(sp.q);
    if (g.visible) d.visuals.push_back(s);
    if (g.collides) d.collisions.push_back(s);
  }
  static bool inertiaValid(const Mat3& I) {
    if (!I.allFinite()) return false;
    Eigen::SelfAdjointEigenSolver<Mat3> eig(0.5 * (I + I.transpose()));
    const Vec3 m = eig.eigenvalues();
    const double tol = 1e-12 * std::max(1.0, m.maxCoeff());
    return m.minCoeff() > 0 && m(0) + m(1) >= m(2) - tol && m(0) + m(2) >= m(1) - tol && m(1) + m(2) >= m(0) - tol;
  }

  void makeGrounds() {
    for (const XMLElement* ct = root_->FirstChildElement("contact"); ct; ct = ct->NextSiblingElement("contact"))
      for (const XMLElement* e = ct->FirstChildElement("pair"); e; e = e->NextSiblingElement("pair"))
        for (const char* a : {"geom1", "geom2"})
          if (const char* n = e->Attribute(a)) pairedGeoms_.insert(n);
    for (size_t k = 0; k < planes_.size(); ++k) {
      const XGeom& g = planes_[k];
      // A plane that collides with nothing (and is not in a <pair>) is only a picture: left out.
      if (!g.collides && !pairedGeoms_.count(g.name)) {
        note(g.el, "this plane collides with nothing (contype and conaffinity 0); MechStudio leaves it out");
        continue;
      }
      GroundDesc gd;
      gd.name = g.name.empty() ? "ground" + (model_.grounds.empty() ? std::string() : std::to_string(model_.grounds.size())) : g.name;
      gd.point = g.shape.position;
      gd.normal = quat::rotate(g.shape.orientation, Vec3::UnitZ());
      gd.friction = g.friction > 0 ? g.friction : -1;
      for (const BodyDesc& b : model_.bodies)
        if (gd.friction >= 0 && !b.collisions.empty() && b.friction > gd.friction) {
          note(g.el, "body '" + b.name + "' has a larger friction (" + num(b.friction) + ") than this plane (" +
                         num(gd.friction) + "): MuJoCo would use the larger one, MechStudio uses the plane's");
          break;
        }
      if (!g.name.empty()) geomByName_[g.name] = {-1, int(model_.grounds.size())};
      model_.grounds.push_back(std::move(gd));
    }
  }

  // The engine joint of each moving host; static hosts are fixed to the world.
  void makeJoints() {
    // Names: the file's (unique), then generated ones that do not clash with them.
    std::set<std::string> used;
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
        // Several joints: one engine joint with the same motion (combinedJoint), or an error.
        JointDesc j;
        if (!combinedJoint(b, j)) continue;
        j.name = uniqueJointName(used, b.name + "_joint");
        j.parent = parentEngine;
        j.child = b.engine;
        j.offset = canonical(rel.q);
        const Vec3 point = j.childAnchor;  // combinedJoint: the joint point in b's frame
        j.childAnchor = point - c;
        j.parentAnchor = apply(rel, point);
        if (j.type == JointType::Floating && b.parent < 0) continue;  // a free body
        for (const XJoint& x : b.joints)
          if (!x.name.empty()) combinedJoints_[x.name] = j.name;
        model_.joints.push_back(std::move(j));
        continue;
      }
      const XJoint& x = b.joints[0];
      if (x.type == "free") {
        if (b.parent >= 0) error(x.el, "a free joint is allowed only in a body of the worldbody");
        continue;  // a free body
      }
      JointDesc j;
      j.name = x.name.empty() ? uniqueJointName(used, b.name + "_joint") : x.name;
      j.parent = parentEngine;
      j.child = b.engine;
      j.axis = x.axis;
      j.childAnchor = x.pos - c;
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
        if (x.limited) j.lowerLimit = {x.lower}, j.upperLimit = {x.upper};
      } else {
        if (x.stiffness != 0) j.stiffness = {x.stiffness};
        if (x.damping != 0) j.damping = {x.damping};
      }
      if (!x.name.empty()) jointByName_[x.name] = int(model_.joints.size());
      model_.joints.push_back(std::move(j));
    }
  }
  // The engine joint whose motion is that of several hinges and slides of one body, all at their
  // reference 0 (MuJoCo composes them; the configuration space is the same):
  //   2 slides → planar (normal a₁ × a₂), 3 slides → fixed-orientation, 3 hinges through one point →
  //   spherical, 2 slides ⊥ a hinge → planar-axis, a hinge and a slide along one axis → cylindrical,
  //   3 slides and 3 hinges → floating.
  // Sets type, axis and (in childAnchor) the joint point in the body's frame; false with an error
  // for any other combination. Springs, dampers and limits of the parts are not kept (a warning).
  bool combinedJoint(const XBody& b, JointDesc& j) {
    std::vector<const XJoint*> hinges, slides;
    for (const XJoint& x : b.joints) {
      if (x.type == "hinge") hinges.push_back(&x);
      else if (x.type == "slide") slides.push_back(&x);
      else {
        error(x.el, "a " + x.type + " joint must be the only joint of its body ('" + b.name + "')");
        return false;
      }
      if (x.ref != 0) {
        error(x.el, "ref", "body '" + b.name + "' has several joints: their ref must be 0 here");
        return false;
      }
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
    } else if (ok && nh == 3 && ns == 0) {
      j.type = JointType::Spherical;
    } else if (ok && nh == 1 && ns == 2 && std::abs(slides[0]->axis.dot(hinges[0]->axis)) < 1e-9 &&
               std::abs(slides[1]->axis.dot(hinges[0]->axis)) < 1e-9) {
      j.type = JointType::PlanarAxis;
      j.axis = hinges[0]->axis;
    } else if (ok && nh == 1 && ns == 1 && slides[0]->axis.cross(hinges[0]->axis).norm() < 1e-9) {
      j.type = JointType::Cylindrical;
      j.axis = hinges[0]->axis;
    } else if (ok && nh == 3 && ns == 3) {
      j.type = JointType::Floating;
    } else {
      error(b.joints[1].el, "body '" + b.name + "' has " + std::to_string(nh) + " hinge(s) and " + std::to_string(ns) +
                                " slide(s): MechStudio joins two bodies with one joint, and no joint moves like these (it "
                                "reads 2 or 3 independent slides, 3 hinges through one point, 2 slides perpendicular to a "
                                "hinge, a hinge and a slide along one axis, and 3 slides with 3 hinges); split the body");
      return false;
    }
    for (const XJoint& x : b.joints)
      if (x.stiffness != 0 || x.damping != 0 || x.limited)
        warnOnce("combined-forces", src_.element(x.el),
                 "springs, dampers and limits of joints combined into one (" + std::string(jointKind(j.type).name) +
                     ") are not kept");
    return true;
  }

  // `want`, or want_2, want_3 … when taken.
  static std::string uniqueJointName(std::set<std::string>& used, const std::string& want) {
    std::string n = want;
    for (int k = 2; used.count(n); ++k) n = want + "_" + std::to_string(k);
    used.insert(n);
    return n;
  }

  // The engine body and frame of an MJCF body named by attribute `a` of e (required unless optional);
  // -1 for the world. False (with an error) for unknown names.
  bool bodyRef(const XMLElement* e, const char* a, bool optional, int& xbody) {
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
  int engineOf(int xbody) const { return xbody < 0 ? -1 : bodies_[size_t(bodies_[size_t(xbody)].host)].engine; }
  // World pose of an MJCF body's frame (the world: identity).
  Pose worldOf(int xbody) const { return xbody < 0 ? Pose() : bodies_[size_t(xbody)].world; }
  // A point given in an MJCF body's frame, in its engine body's frame (world: unchanged).
  Vec3 inEngine(int xbody, const Vec3& p) const { return xbody < 0 ? p : apply(engineFrame(xbody), p); }
  Vec4 engineOrientationWorld(int xbody) const {
    return xbody < 0 ? quat::identity() : model_.bodies[size_t(engineOf(xbody))].orientation;
  }
  Vec3 engineWorldPoint(int xbody, const Vec3& pEngine) const {
    if (xbody < 0) return pEngine;
    const BodyDesc& d = model_.bodies[size_t(engineOf(xbody))];
    return d.position + quat::rotate(d.orientation, pEngine);
  }

  void makeEqualities() {
    std::set<std::string> used;
    for (const JointDesc& j : model_.joints) used.insert(j.name);
    struct Connect {
      const XMLElement* el;
      int b1, b2;
      Vec3 anchor;
      std::string name;
    };
    std::vector<Connect> connects;
    for (const XMLElement* eq = root_->FirstChildElement("equality"); eq; eq = eq->NextSiblingElement("equality")) {
      for (const XMLElement* e = eq->FirstChildElement(); e; e = e->NextSiblingElement()) {
        const std::string tag = e->Name();
        if (tag != "connect" && tag != "weld") {
          unsupportedElement(e, "MechStudio closes loops with connect and weld");
          continue;
        }
        checkAttributes(e);
        const std::string cls = classOf(e, "main");
        if (!boolean(e, "active", cls, true)) {
          warning(e, "active", "an inactive equality is left out");
          continue;
        }
        int b1 = -1, b2 = -1;
        if (!bodyRef(e, "body1", false, b1) || !bodyRef(e, "body2", true, b2)) continue;
        if (b1 < 0) {
          error(e, "body1", "body1 may not be the world");
          continue;
        }
        if (engineOf(b1) == engineOf(b2)) {
          error(e, "body1 and body2 are parts of one rigid body (welded by MJCF): the constraint does nothing");
          continue;
        }
        const std::string name = e->Attribute("name") ? e->Attribute("name") : "";
        if (tag == "connect") {
          Vec3 anchor = Vec3::Zero();
          if (!vec3(e, "anchor", cls, anchor)) {
            error(e, "a <connect> needs an anchor");
            continue;
          }
          connects.push_back({e, b1, b2, anchor, name});
          continue;
        }
        // weld: at the reference configuration, or at relpose (body2 in body1's frame).
        JointDesc j;
        j.name = uniqueJointName(used, name.empty() ? "weld" : name);
        j.type = JointType::Fixed;
        j.child = engineOf(b1);
        j.parent = engineOf(b2);
        Pose w1 = worldOf(b1), w2 = worldOf(b2);
        if (const char* rp = attr(e, "relpose", cls)) {
          Numbers n = numbers(e, "relpose", rp, 7);
          if (!n.ok) continue;
          const Vec4 q(n.v[3], n.v[4], n.v[5], n.v[6]);
          if (q.norm() > 0) w1 = compose(w2, inverse(Pose{Vec3(n.v[0], n.v[1], n.v[2]), q.normalized()}));
        }
        // The joint point: body1's frame origin.
        j.childAnchor = inEngine(b1, Vec3::Zero());
        const Pose w2e = b2 < 0 ? Pose() : compose(w2, inverse(engineFrame(b2)));
        const Pose w1e = compose(w1, inverse(engineFrame(b1)));
        j.parentAnchor = apply(inverse(w2e), apply(w1e, j.childAnchor));
        j.offset = canonical(quat::mul(quat::conj(w2e.q), w1e.q).normalized());
        model_.joints.push_back(std::move(j));
      }
    }
    // Connects: two between the same bodies make a revolute loop joint, one a spherical.
    std::vector<char> done(connects.size(), 0);
    for (size_t a = 0; a < connects.size(); ++a) {
      if (done[a]) continue;
      const Connect& c = connects[a];
      size_t partner = connects.size();
      for (size_t b = a + 1; b < connects.size() && partner == connects.size(); ++b)
        if (!done[b] && connects[b].b1 == c.b1 && connects[b].b2 == c.b2) partner = b;
      JointDesc j;
      j.name = uniqueJointName(used, c.name.empty() ? "connect" : c.name);
      j.type = JointType::Spherical;
      j.child = engineOf(c.b1);
      j.parent = engineOf(c.b2);
      j.childAnchor = inEngine(c.b1, c.anchor);
      const Pose w1e = compose(worldOf(c.b1), inverse(engineFrame(c.b1)));
      const Pose w2e = c.b2 < 0 ? Pose() : compose(worldOf(c.b2), inverse(engineFrame(c.b2)));
      j.parentAnchor = apply(inverse(w2e), apply(w1e, j.childAnchor));
      j.offset = canonical(quat::mul(quat::conj(w2e.q), w1e.q).normalized());
      if (partner < connects.size()) {
        const Vec3 d = connects[partner].anchor - c.anchor;
        if (d.norm() > 0) {
          // Two points held: a hinge along the line through them (in body1's frame = the joint frame
          // rotated by the offset's complement: q_b = q_a q_off at θ = 0, so the axis is d in body1's frame).
          j.type = JointType::Revolute;
          j.axis = quat::rotate(engineFrame(c.b1).q, d).normalized();
          done[partner] = 1;
        } else {
          warning(connects[partner].el, "this connect repeats the anchor of an earlier one between the same bodies; left out");
          done[partner] = 1;
        }
      }
      model_.joints.push_back(std::move(j));
    }
  }

  // A <general> actuator that is a PD servo (what <position kp kv> stands for): fixed gain kp, affine
  // bias 0 − kp q − kv q̇.
  bool generalIsPd(const XMLElement* e, const std::string& cls) {
    const char* gt = attr(e, "gaintype", cls);
    const char* bt = attr(e, "biastype", cls);
    const char* gp = attr(e, "gainprm", cls);
    const char* bp = attr(e, "biasprm", cls);
    if (!gt || !bt || !gp || !bp || std::string(gt) != "fixed" || std::string(bt) != "affine") return false;
    std::istringstream g(gp), b(bp);
    double kp = 0, b0 = 1, b1 = 0;
    if (!(g >> kp) || !(b >> b0 >> b1)) return false;
    return b0 == 0 && b1 == -kp;
  }

  void makeActuators() {
    for (const XMLElement* ac = root_->FirstChildElement("actuator"); ac; ac = ac->NextSiblingElement("actuator")) {
      for (const XMLElement* e = ac->FirstChildElement(); e; e = e->NextSiblingElement()) {
        const std::string tag = e->Name();
        if (tag != "motor" && tag != "position" && tag != "general") {
          unsupportedElement(e, "MechStudio has motors (efforts) and position (PD) actuators");
          continue;
        }
        const std::string cls = classOf(e, "main");
        if (tag == "general" && !generalIsPd(e, cls)) {
          unsupportedElement(e, "a <general> actuator is read only as a PD servo: gaintype fixed, biastype affine, "
                                "biasprm 0 -kp -kv");
          continue;
        }
        checkAttributes(e);
        const char* jn = attr(e, "joint", cls);
        if (!jn) {
          warnOnce("actuator-transmission", src_.element(e),
                   "actuators on tendons, sites or bodies are not supported (MechStudio's act on joints); left out");
          continue;
        }
        if (combinedJoints_.count(jn)) {
          error(e, "joint", std::string("joint '") + jn + "' is one of several joints of a body, combined into '" +
                                combinedJoints_[jn] + "': it cannot be actuated alone");
          continue;
        }
        auto it = jointByName_.find(jn);
        if (it == jointByName_.end()) {
          std::vector<std::string> names;
          for (const auto& kv : jointByName_) names.push_back(kv.first);
          error(e, "joint", std::string("unknown joint '") + jn + "'" + suggestion(jn, names) +
                                " (free joints cannot be actuated here)");
          continue;
        }
        const int joint = it->second;
        const JointType t = model_.joints[size_t(joint)].type;
        double gear = 1;
        if (const char* g = attr(e, "gear", cls)) {
          Numbers n = numbers(e, "gear", g, -6);
          if (n.ok) gear = n.v[0];
          if (n.ok && gear != 1)
            warning(e, "gear", "gear " + num(gear) + ": MechStudio's effort is the joint's force or torque itself");
        }
        if (attr(e, "ctrlrange", cls))
          warnOnce("ctrlrange", src_.attribute(e, "ctrlrange"), "ctrlrange is not used (efforts and set-points are not clamped)");
        const std::string name = e->Attribute("name") ? e->Attribute("name") : std::string(jn) + "_" + tag;
        if (tag == "motor") {
          if (attr(e, "forcerange", cls)) warnOnce("motor-forcerange", src_.attribute(e, "forcerange"), "forcerange of a motor is not used");
          ActuatorDesc a;
          a.joint = joint;
          a.effort = {0.0};
          if (t == JointType::Spherical) a.effort = {0.0, 0.0, 0.0};
          motorByName_[name] = int(model_.actuators.size());
          model_.actuators.push_back(std::move(a));
          continue;
        }
        if (t != JointType::Revolute && t != JointType::Prismatic) {
          error(e, "joint", "a position (PD) actuator needs a hinge or slide joint");
          continue;
        }
        ControllerDesc c;
        c.name = name;
        c.joint = joint;
        c.kp = 1;
        if (tag == "general") {
          const std::vector<double> gain = numbers(e, "gainprm", attr(e, "gainprm", cls), -10).v;
          const std::vector<double> bias = numbers(e, "biasprm", attr(e, "biasprm", cls), -10).v;
          c.kp = gain[0];
          c.kd = bias.size() > 2 ? -bias[2] : 0;
        } else {
          number(e, "kp", cls, c.kp);
          number(e, "kv", cls, c.kd);
        }
        c.kp *= gear, c.kd *= gear;
        if (const char* fr = attr(e, "forcerange", cls); fr && boolean(e, "forcelimited", cls, autolimits_)) {
          Numbers n = numbers(e, "forcerange", fr, 2);
          if (n.ok) {
            c.effortLimit = std::max(std::abs(n.v[0]), std::abs(n.v[1]));
            if (n.v[0] != -n.v[1])
              warning(e, "forcerange", "an asymmetric forcerange is applied as ±" + num(c.effortLimit));
          }
        }
        if (c.kp < 0 || c.kd < 0) error(e, "kp and kv must not be negative");
        controllerByName_[name] = int(model_.controllers.size());
        model_.controllers.push_back(std::move(c));
      }
    }
  }

  void makeContacts() {
    model_.collisions = CollisionMode::All;
    std::set<std::pair<int, int>> pairs;
    for (const XMLElement* ct = root_->FirstChildElement("contact"); ct; ct = ct->NextSiblingElement("contact")) {
      for (const XMLElement* e = ct->FirstChildElement(); e; e = e->NextSiblingElement()) {
        const std::string tag = e->Name();
        checkAttributes(e);
        if (tag == "exclude") {
          int b1 = -1, b2 = -1;
          if (!bodyRef(e, "body1", false, b1) || !bodyRef(e, "body2", false, b2)) continue;
          const int a = engineOf(b1), b = engineOf(b2);
          if (a < 0 || b < 0 || a == b) continue;  // the world or one body: nothing to exclude
          // Bodies joined by a joint never collide (the engine's rule, MuJoCo's for parent and child).
          bool joined = false;
          for (const JointDesc& j : model_.joints) joined = joined || (std::min(j.parent, j.child) == std::min(a, b) && std::max(j.parent, j.child) == std::max(a, b));
          if (joined) continue;
          model_.exclusions.push_back({std::min(a, b), std::max(a, b)});
        } else if (tag == "pair") {
          const char* g1 = e->Attribute("geom1");
          const char* g2 = e->Attribute("geom2");
          if (!g1 || !g2) {
            error(e, "a <pair> needs geom1 and geom2");
            continue;
          }
          auto f1 = geomByName_.find(g1), f2 = geomByName_.find(g2);
          if (f1 == geomByName_.end() || f2 == geomByName_.end()) {
            std::vector<std::string> names;
            for (const auto& kv : geomByName_) names.push_back(kv.first);
            const char* bad = f1 == geomByName_.end() ? g1 : g2;
            error(e, f1 == geomByName_.end() ? "geom1" : "geom2",
                  std::string("unknown geom '") + bad + "'" + suggestion(bad, names));
            continue;
          }
          double mu = -1;
          if (const char* f = attr(e, "friction", classOf(e, "main"))) {
            Numbers n = numbers(e, "friction", f, -5);
            if (n.ok) mu = n.v[0];
          }
          const auto [ba, ga] = f1->second;
          const auto [bb, gb] = f2->second;
          if (ga >= 0 || gb >= 0) {
            // A plane of the worldbody and a body: the ground's friction.
            if (ga >= 0 && gb >= 0) continue;
            GroundDesc& gd = model_.grounds[size_t(ga >= 0 ? ga : gb)];
            if (mu >= 0) {
              if (groundPairFriction_.count(&gd) && groundPairFriction_[&gd] != mu)
                warning(e, "friction", "pairs with ground '" + gd.name + "' give different frictions; the first is used");
              else gd.friction = mu, groundPairFriction_[&gd] = mu;
            }
            continue;
          }
          if (ba == bb) continue;
          if (pairs.insert({std::min(ba, bb), std::max(ba, bb)}).second) {
            ContactPairDesc cp;
            cp.name = e->Attribute("name") ? e->Attribute("name") : "";
            cp.bodyA = std::min(ba, bb);
            cp.bodyB = std::max(ba, bb);
            cp.friction = mu;
            model_.contactPairs.push_back(std::move(cp));
          }
        } else {
          unsupportedElement(e);
        }
      }
    }
  }

  // MechStudio's custom entries: collision mode and masks, controller set-points, efforts.
  void applyCustom() {
    for (const auto& [name, e] : custom_) {
      const char* data = e->Attribute("data");
      if (name == "mechstudio.collisions") {
        const std::string d = data ? data : "";
        if (d == "pairs") {
          model_.collisions = CollisionMode::Pairs;
          for (BodyDesc& b : model_.bodies) b.contype = 1, b.conaffinity = 1;
        } else if (d == "all-shifted") {
          for (BodyDesc& b : model_.bodies)
            if (!b.collisions.empty()) b.contype >>= 1, b.conaffinity >>= 1;
        } else {
          error(e, "data", "mechstudio.collisions must be 'pairs' or 'all-shifted'");
        }
        continue;
      }
      const std::string controller = "mechstudio.setpoint.", effort = "mechstudio.effort.";
      Numbers n = numbers(e, "data", data ? data : "", -6);
      if (!n.ok) continue;
      if (name.rfind(controller, 0) == 0) {
        auto it = controllerByName_.find(name.substr(controller.size()));
        if (it == controllerByName_.end() || n.v.size() != 4) {
          error(e, "name", "'" + name + "' names no position actuator, or its data is not offset amplitude frequency phase");
          continue;
        }
        ControllerDesc& c = model_.controllers[size_t(it->second)];
        c.offset = n.v[0], c.amplitude = n.v[1], c.frequency = n.v[2], c.phase = n.v[3];
      } else if (name.rfind(effort, 0) == 0) {
        auto it = motorByName_.find(name.substr(effort.size()));
        if (it == motorByName_.end()) {
          error(e, "name", "'" + name + "' names no motor");
          continue;
        }
        model_.actuators[size_t(it->second)].effort = n.v;
      } else {
        warning(e, "name", "unknown MechStudio entry '" + name + "'; ignored");
      }
    }
  }

  std::string file_, baseDir_;
  const std::string& text_;
  tinyxml2::XMLDocument doc_;
  SourceMap src_;
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
  std::vector<XGeom> planes_;
  std::set<std::string> pairedGeoms_;  // geoms named by <contact><pair>s
  std::map<std::string, std::pair<int, int>> geomByName_;  // engine body (or -1) and ground (or -1)
  std::map<std::string, int> jointByName_, motorByName_, controllerByName_;
  std::map<std::string, std::string> combinedJoints_;  // MJCF joint name → the engine joint it is part of
  std::map<const GroundDesc*, double> groundPairFriction_;

  Model model_;
};

}  // namespace

std::string xmlRootElementName(const std::string& xml) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS || !doc.RootElement()) return "";
  return doc.RootElement()->Name();
}

bool importMjcfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags) {
  Importer imp(fileNameForMessages, baseDir, xml);
  return imp.run(out, diags);
}

bool importMjcf(const std::string& path, Model& out, Diagnostics& diags) {
  std::string text;
  if (!readWholeFile(path, text, diags)) return false;
  std::string dir = fs::path(path).parent_path().string();
  return importMjcfString(text, path, dir, out, diags);
}

}  // namespace ms
