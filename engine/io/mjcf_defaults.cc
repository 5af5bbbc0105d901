// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: attribute values and where they come from — the element itself or its <default>
// class (class, childclass, "main"; nested classes inherit) — numbers, orientations and poses in
// <compiler> units, the list of attributes read, and the <compiler>, <option> and <default> sections.
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <Eigen/Geometry>

#include "core/suggest.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

// Attributes read per element (anything else gets a "not supported" warning). Attributes that only
// name or group things in MuJoCo and mean nothing here ("user") are listed as well.
const std::map<std::string, std::set<std::string>>& knownAttributes() {
  // One "element: attributes" string per element, split once (a nested braced initializer of the
  // map cost the compiler 13 s of overload resolution).
  static const char* const kTable[] = {
      "mujoco: model",
      "compiler: angle eulerseq meshdir assetdir texturedir inertiafromgeom autolimits coordinate "
      "inertiagrouprange",
      "option: timestep gravity",
      "body: name childclass pos quat axisangle euler xyaxes zaxis",
      "inertial: pos quat axisangle euler xyaxes zaxis mass diaginertia fullinertia",
      "joint: name class type pos axis ref range limited stiffness springref damping armature",
      "freejoint: name",
      "geom: name class type size fromto pos quat axisangle euler xyaxes zaxis rgba material mass density "
      "friction contype conaffinity group mesh condim",
      "mesh: name class file scale vertex",
      "material: name class rgba",
      "site: name class type size fromto pos quat axisangle euler xyaxes zaxis rgba material group user",
      "connect: name class body1 body2 anchor site1 site2 active",
      "weld: name class body1 body2 relpose site1 site2 active",
      "motor: name class joint tendon gear ctrlrange ctrllimited forcerange forcelimited",
      "position: name class joint tendon kp kv gear ctrlrange ctrllimited forcerange forcelimited",
      "general: name class joint tendon gaintype gainprm biastype biasprm gear ctrlrange ctrllimited forcerange "
      "forcelimited dyntype",
      "tendon: class stiffness damping springlength limited range",
      "fixed: name class stiffness damping springlength limited range",
      "exclude: name body1 body2",
      "pair: name class geom1 geom2 friction condim",
      "default: class",
      "numeric: name data size",
      "text: name data",
      "keyframe:",
      "key: name time qpos qvel ctrl",
  };
  static const std::map<std::string, std::set<std::string>> k = [] {
    std::map<std::string, std::set<std::string>> m;
    for (const char* row : kTable) {
      std::istringstream in(row);
      std::string element, name;
      in >> element;
      element.pop_back();  // the ':'
      std::set<std::string>& names = m[element];
      while (in >> name) names.insert(name);
    }
    return m;
  }();
  return k;
}

// The class an element's defaults come from.
std::string Importer::classOf(const XMLElement* e, const std::string& inherited) {
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
const char* Importer::attr(const XMLElement* e, const char* name, const std::string& cls) const {
  if (const char* v = e->Attribute(name)) return v;
  auto c = classes_.find(cls);
  if (c == classes_.end()) return nullptr;
  auto t = c->second.find(e->Name());
  if (t == c->second.end()) return nullptr;
  auto a = t->second.find(name);
  return a == t->second.end() ? nullptr : a->second.c_str();
}

// Numbers of an attribute: exactly `count` of them (count < 0: 1…-count). Errors at the attribute.
Numbers Importer::numbers(const XMLElement* e, const char* name, const char* text, int count) {
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

bool Importer::number(const XMLElement* e, const char* name, const std::string& cls, double& out) {
  const char* t = attr(e, name, cls);
  if (!t) return false;
  Numbers n = numbers(e, name, t, 1);
  if (n.ok) out = n.v[0];
  return n.ok;
}

bool Importer::vec3(const XMLElement* e, const char* name, const std::string& cls, Vec3& out) {
  const char* t = attr(e, name, cls);
  if (!t) return false;
  Numbers n = numbers(e, name, t, 3);
  if (n.ok) out = Vec3(n.v[0], n.v[1], n.v[2]);
  return n.ok;
}

bool Importer::boolean(const XMLElement* e, const char* name, const std::string& cls, bool fallback) {
  const char* t = attr(e, name, cls);
  if (!t) return fallback;
  const std::string s = t;
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "auto") return fallback;
  error(e, name, std::string("attribute '") + name + "' must be true, false or auto, not '" + s + "'");
  return fallback;
}

std::uint32_t Importer::mask(const XMLElement* e, const char* name, const std::string& cls, std::uint32_t fallback) {
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
void Importer::checkAttributes(const XMLElement* e) {
  const auto& k = knownAttributes();
  auto it = k.find(e->Name());
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    if (it != k.end() && it->second.count(a->Name())) continue;
    warnOnce(std::string(e->Name()) + "/" + a->Name(), src_.attribute(e, a->Name()),
             std::string("attribute '") + a->Name() + "' of <" + e->Name() + "> is not supported; ignored");
  }
}

void Importer::unsupportedElement(const XMLElement* e, const std::string& why) {
  warnOnce(std::string("<") + e->Name() + ">", src_.element(e),
           std::string("element <") + e->Name() + "> is not supported" + (why.empty() ? "" : " (" + why + ")") +
               "; ignored");
}

// The orientation given by quat, axisangle, euler, xyaxes or zaxis (at most one), identity if none.
Vec4 Importer::orientation(const XMLElement* e, const std::string& cls) {
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

Pose Importer::pose(const XMLElement* e, const std::string& cls) {
  Pose p;
  vec3(e, "pos", cls, p.t);
  p.q = orientation(e, cls);
  return p;
}

void Importer::readCompiler(const XMLElement* e) {
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

void Importer::readOption(const XMLElement* e) {
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
void Importer::readDefault(const XMLElement* e, const std::string& parent) {
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

}  // namespace ms::mjcf_detail
