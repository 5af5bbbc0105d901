// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import (see mjcf_import.h). MuJoCo's XML reference (mujoco.readthedocs.io, "XML Reference")
// defines the elements; this file and the mjcf_*.cc files beside it map them onto the engine's Model.
//
// Reading. tinyxml2 parses the text; it knows lines but not columns, so SourceMap finds each element's
// "<tag" (in document order, from its line on) and each attribute's "name=" inside the start tag, and
// every diagnostic carries file:line:column. <include file> elements are replaced by the included
// file's <mujoco> children before anything is read (expandIncludes); the clones keep their file's
// places. Bytes that XML does not allow (control characters, NUL,
// invalid UTF-8: a binary file) are refused before parsing, at their position.
//
// Attributes. An attribute's value is the element's own, else the one its default class gives:
// `class` on the element, else the `childclass` of the nearest enclosing body, else "main"; a nested
// <default class="c"> inherits from its parent class. Angles (hinge range/ref/springref, euler,
// axisangle) are in <compiler angle> units, degrees unless angle="radian"; euler follows
// <compiler eulerseq> (lowercase: axes that move with the frame, uppercase: fixed axes).
// Every attribute and element not listed in knownAttributes() (mjcf_defaults.cc) is reported once per
// kind with a count.
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
//
// This file holds the public entry points and the driver: reading the text (source positions, binary
// bytes, tinyxml2's errors), the diagnostics, the two passes in order, and MechStudio's <custom>
// entries. The sections are read in mjcf_defaults.cc, mjcf_tree.cc, mjcf_geoms.cc,
// mjcf_constraints.cc and mjcf_actuators.cc (internal declarations: mjcf_internal.h).
#include "io/mjcf_import.h"

#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

// ---- source positions ---------------------------------------------------------------------------

int SourceMap::addFile(const std::string& name, const std::string& text) {
  File f;
  f.name = name;
  f.text = &text;
  f.lineStart.assign(1, 0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') f.lineStart.push_back(i + 1);
  files_.push_back(std::move(f));
  return int(files_.size()) - 1;
}

void SourceMap::build(int file, const tinyxml2::XMLDocument& doc) {
  size_t cursor = 0;
  for (const XMLElement* e = doc.FirstChildElement(); e; e = e->NextSiblingElement()) visit(file, e, cursor);
}

void SourceMap::alias(const XMLElement* clone, const XMLElement* original) {
  auto it = offset_.find(original);
  if (it != offset_.end()) offset_[clone] = it->second;
  const XMLElement* c = clone->FirstChildElement();
  for (const XMLElement* o = original->FirstChildElement(); c && o; c = c->NextSiblingElement(), o = o->NextSiblingElement())
    alias(c, o);
}

Loc SourceMap::element(const XMLElement* e) const {
  auto it = offset_.find(e);
  if (it == offset_.end()) return {e ? e->GetLineNum() : 0, 0, 0};
  return lineCol(it->second.first, it->second.second);
}

// The attribute's "name=" in the element's start tag; the element's position when not found.
Loc SourceMap::attribute(const XMLElement* e, const char* name) const {
  auto it = offset_.find(e);
  if (it == offset_.end()) return element(e);
  const int file = it->second.first;
  const std::string& s = *files_[size_t(file)].text;
  size_t i = it->second.second + 1 + std::strlen(e->Name());
  const size_t n = std::strlen(name);
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size() || s[i] == '>' || s[i] == '/') break;
    const size_t start = i;
    while (i < s.size() && s[i] != '=' && s[i] != '>' && s[i] != '/' && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const bool match = i - start == n && s.compare(start, n, name) == 0;
    if (match) return lineCol(file, start);
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

Loc SourceMap::lineCol(int file, size_t off) const {
  const std::vector<size_t>& ls = files_[size_t(file)].lineStart;
  const size_t line = size_t(std::upper_bound(ls.begin(), ls.end(), off) - ls.begin());
  return {int(line), int(off - ls[line - 1] + 1), file};
}

// Elements start in document order: the next "<tag" (followed by a delimiter) from the later of the
// previous element's start and the element's line.
void SourceMap::visit(int file, const XMLElement* e, size_t& cursor) {
  const File& f = files_[size_t(file)];
  const std::string& s = *f.text;
  const int line = e->GetLineNum();
  size_t from = cursor;
  if (line >= 1 && size_t(line) <= f.lineStart.size()) from = std::max(from, f.lineStart[size_t(line) - 1]);
  const std::string tag = std::string("<") + e->Name();
  for (size_t p = s.find(tag, from); p != std::string::npos; p = s.find(tag, p + 1)) {
    const size_t after = p + tag.size();
    if (after >= s.size() || std::isspace(static_cast<unsigned char>(s[after])) || s[after] == '>' || s[after] == '/') {
      offset_[e] = {file, p};
      cursor = p + 1;
      break;
    }
  }
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) visit(file, c, cursor);
}

namespace {

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

}  // namespace

// ---- the importer ------------------------------------------------------------------------------

bool Importer::run(Model& out, Diagnostics& diags, std::vector<InitialConditionsKeyframe>* keys) {
  if (parse()) convert();
  finish(diags);
  if (errors_ > 0) return false;
  out = std::move(model_);
  if (keys) *keys = std::move(keys_);
  return true;
}

// A diagnostic reported once per key; later occurrences are counted into it.
void Importer::reportOnce(Severity severity, const std::string& key, Loc at, const std::string& msg) {
  auto it = once_.find(key);
  if (it != once_.end()) {
    ++it->second.second;
    return;
  }
  once_[key] = {items_.size(), 1};
  report(severity, at, msg);
}

void Importer::finish(Diagnostics& diags) {
  for (const auto& [key, v] : once_)
    if (v.second > 1) items_[v.first].message += " (" + std::to_string(v.second) + " times; the first is here)";
  // The model file's diagnostics first, then each included file's, each in line order.
  std::stable_sort(items_.begin(), items_.end(), [this](const Diagnostic& a, const Diagnostic& b) {
    return std::make_tuple(a.file != file_, a.file, a.line, a.column) < std::make_tuple(b.file != file_, b.file, b.line, b.column);
  });
  for (const Diagnostic& d : items_) diags.add(d.severity, d.file, d.line, d.column, d.message);
}

// ---- pass 1: parse -----------------------------------------------------------------------------

// Parses `text` (source file `file`) into `doc`: binary bytes and tinyxml2's errors are reported at
// their place; false when it does not parse.
bool Importer::parseText(const std::string& text, int file, tinyxml2::XMLDocument& doc) {
  const size_t bad = firstBinaryByte(text);
  if (bad != std::string::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    report(Severity::Error, src_.lineCol(file, bad), std::string("byte ") + hex + " is not text: this is not an MJCF (XML) file");
    return false;
  }
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
    // tinyxml2's message is "Error=NAME ErrorID=N (0xN) Line number=L: detail"; say what NAME means.
    std::string detail = doc.ErrorStr() ? doc.ErrorStr() : "";
    const size_t colon = detail.rfind(": ");
    detail = colon != std::string::npos && colon + 2 < detail.size() ? detail.substr(colon + 2) : "";
    std::string what;
    switch (doc.ErrorID()) {
      case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT: what = "an element is not closed, or is closed by another element's end tag"; break;
      case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: what = "a malformed attribute (write name=\"value\")"; break;
      case tinyxml2::XML_ERROR_PARSING_ELEMENT: what = "a malformed element"; break;
      case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: what = "the file has no element"; break;
      case tinyxml2::XML_ERROR_PARSING_COMMENT: what = "a comment is not closed (-->)"; break;
      case tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED:
        what = "elements nest deeper than the XML reader's limit (" + std::to_string(TINYXML2_MAX_ELEMENT_DEPTH) +
               " levels; MuJoCo's reader has the same limit): a chain of that many bodies nested in each other";
        break;
      default: what = doc.ErrorName(); break;
    }
    report(Severity::Error, Loc{doc.ErrorLineNum(), 1, file}, "malformed XML: " + what + (detail.empty() ? "" : " (" + detail + ")"));
    return false;
  }
  src_.build(file, doc);
  return true;
}

// Replaces every <include file="F"/> below e (in `owner`'s tree) by the children of F's <mujoco>
// root, F's own includes expanded first. F is looked for relative to `dir` (the including file's
// directory), then to the model file's (MuJoCo's rule); `stack` holds the files being included
// (a file that includes itself, directly or not, is an error at the <include>).
void Importer::expandIncludes(XMLElement* e, tinyxml2::XMLDocument& owner, const std::string& dir,
                              std::vector<std::string>& stack) {
  namespace fs = std::filesystem;
  constexpr size_t kMaxIncludes = 256;
  for (XMLElement* c = e->FirstChildElement(); c;) {
    if (std::string(c->Name()) != "include") {
      expandIncludes(c, owner, dir, stack);
      c = c->NextSiblingElement();
      continue;
    }
    XMLElement* include = c;
    XMLNode* last = include;
    const char* f = include->Attribute("file");
    fs::path path;
    if (!f || !*f) {
      error(include, "<include> needs a file");
    } else if (includedDocs_.size() >= kMaxIncludes) {
      error(include, "file", "more than " + std::to_string(kMaxIncludes) + " <include>s in one model");
    } else {
      path = fs::path(f).is_absolute() ? fs::path(f) : fs::path(dir) / f;
      std::error_code ec;
      if (!fs::exists(path, ec) && !fs::path(f).is_absolute() && dir != baseDir_) path = fs::path(baseDir_) / f;
      path = path.lexically_normal();
      const std::string key = fs::weakly_canonical(path, ec).string();
      std::string text;
      std::ifstream in(path, std::ios::binary);
      if (std::find(stack.begin(), stack.end(), key) != stack.end()) {
        error(include, "file", "'" + std::string(f) + "' includes itself (through " + std::to_string(stack.size()) +
                                   " file" + (stack.size() == 1 ? "" : "s") + "): MJCF includes may not form a cycle");
      } else if (!in || fs::is_directory(path, ec)) {
        error(include, "file", "cannot read the included file '" + std::string(f) + "' (" +
                                   (fs::exists(path, ec) ? std::string("not a readable file") :
                                    dir == baseDir_ ? std::string("no such file next to the model file")
                                                    : std::string("no such file next to the including file or the model file")) + ")");
      } else {
        std::ostringstream os;
        os << in.rdbuf();
        includedTexts_.push_back(os.str());
        const int file = src_.addFile(path.string(), includedTexts_.back());
        includedDocs_.emplace_back();
        tinyxml2::XMLDocument& doc = includedDocs_.back();
        if (parseText(includedTexts_.back(), file, doc)) {
          XMLElement* root = doc.RootElement();
          if (!root || std::string(root->Name()) != "mujoco") {
            error(root, std::string("the included file's root element is <") + (root ? root->Name() : "") +
                            ">, not <mujoco>");
          } else {
            stack.push_back(key);
            expandIncludes(root, doc, path.parent_path().string(), stack);
            stack.pop_back();
            // Its root's children take the <include>'s place.
            for (const XMLElement* k = root->FirstChildElement(); k; k = k->NextSiblingElement()) {
              XMLNode* clone = k->DeepClone(&owner);
              e->InsertAfterChild(last, clone);
              src_.alias(clone->ToElement(), k);
              last = clone;
            }
          }
        }
      }
    }
    c = last->NextSiblingElement();
    e->DeleteChild(include);
  }
}

bool Importer::parse() {
  src_.addFile(file_, text_);
  if (!parseText(text_, 0, doc_)) return false;
  root_ = doc_.RootElement();
  if (root_ && std::string(root_->Name()) == "mujoco") {
    std::vector<std::string> stack;
    std::error_code ec;
    if (!baseDir_.empty() || !file_.empty()) stack.push_back(std::filesystem::weakly_canonical(file_, ec).string());
    expandIncludes(doc_.RootElement(), doc_, baseDir_, stack);
  }
  if (!root_ || std::string(root_->Name()) != "mujoco") {
    error(root_, std::string("the root element is <") + (root_ ? root_->Name() : "") +
                     ">, not <mujoco>: this is not an MJCF model");
    return false;
  }
  checkAttributes(root_);
  if (const char* m = root_->Attribute("model")) model_.name = m;
  // Compiler first (angle units and directories apply to everything), then the default classes
  // (MuJoCo reads them before anything that uses them, wherever they are written).
  for (const XMLElement* e = root_->FirstChildElement("compiler"); e; e = e->NextSiblingElement("compiler")) readCompiler(e);
  classes_["main"];
  for (const XMLElement* e = root_->FirstChildElement("default"); e; e = e->NextSiblingElement("default")) readDefault(e, "");
  // MuJoCo's time step when <option> gives none.
  model_.solver.dt = 0.002;
  for (const XMLElement* e = root_->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string n = e->Name();
    if (n == "compiler" || n == "default") continue;
    if (n == "option") readOption(e);
    else if (n == "asset") readAssets(e);
    else if (n == "custom") readCustom(e);
    else if (n == "size") continue;  // sizes of MuJoCo's buffers: nothing to model
    else if (n == "keyframe") keyframes_ = keyframes_ || e->FirstChildElement("key");
    else if (n != "worldbody" && n != "equality" && n != "actuator" && n != "contact" && n != "tendon")
      unsupportedElement(e);
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

// MechStudio's own entries (written by its MJCF export); other custom data is reported.
void Importer::readCustom(const XMLElement* c) {
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

// ---- pass 2: the model -------------------------------------------------------------------------

void Importer::convert() {
  assignHosts();
  makeBodies();
  makeGrounds();
  makeJoints();
  if (errors_ > 0) return;
  makeEqualities();
  makeTendons();
  makeActuators();
  makeContacts();
  applyCustom();
  if (errors_ == 0) makeKeyframes();
}

// MechStudio's custom entries: collision mode and masks, controller set-points, efforts.
void Importer::applyCustom() {
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

}  // namespace ms::mjcf_detail

namespace ms {

using mjcf_detail::Importer;
namespace fs = std::filesystem;

std::string xmlRootElementName(const std::string& xml) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS || !doc.RootElement()) return "";
  return doc.RootElement()->Name();
}

bool importMjcfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags, std::vector<InitialConditionsKeyframe>* keys) {
  Importer imp(fileNameForMessages, baseDir, xml);
  return imp.run(out, diags, keys);
}

bool importMjcf(const std::string& path, Model& out, Diagnostics& diags, std::vector<InitialConditionsKeyframe>* keys) {
  std::string text;
  if (!readWholeFile(path, text, diags)) return false;
  std::string dir = fs::path(path).parent_path().string();
  return importMjcfString(text, path, dir, out, diags, keys);
}

}  // namespace ms
