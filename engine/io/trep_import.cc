// SPDX-License-Identifier: GPL-3.0-or-later
// trep import (syntax and mapping summary: trep_import.h). The decisions, argued:
//
// Frames and bodies. trep describes a tree of frames, each one transform (TX…RZ) away from its
// parent, driven by a constant or by a configuration variable; masses sit at frame origins. Frames
// joined by constant transforms move rigidly together, so they are grouped into clusters (a new
// cluster starts at every variable transform). A cluster with mass is one rigid body: its masses
// are lumped (total mass, centre of mass, inertia by the parallel-axis theorem), which is exact for
// trep's kinetic energy, because trep adds the energies of masses that move rigidly together. The
// body frame is the centre-of-mass frame with the axes of the cluster's first massive frame.
//
// Joints. A variable between two massive clusters is a revolute (R) or prismatic (T) joint at the
// origin of the variable transform's parent frame, with the joint axis = the transform axis. The
// joint offset is the child's orientation relative to the parent at the trep zero pose, so that
// q_child = q_parent·q_off·rot(axis, θ) reproduces trep's g_child = g_parent·C₁·R(θ)·C₂ with θ equal
// to the trep variable. Several variables separated only by massless frames describe one relative
// motion with massless intermediate frames; massless frames carry no energy, so only the set of
// reachable relative poses matters. That set is a Table B.2 joint for: translations only
// (prismatic, planar, fixed-orientation); one rotation with 0–3 translations (revolute,
// cylindrical when the translation is along the rotation axis, planar-axis when the two
// translations span the plane normal to it, rotation-axis-free with three); three rotations about
// axes meeting in one point (spherical; cylindrical-free / planar-free when one / two translations
// come before them; floating with three translations). Other combinations (two rotations = a
// universal joint, rotations about axes that miss each other, …) have no joint in Table B.2 and are
// rejected with a message asking for a mass on the intermediate frame (rather than inventing a
// regularised massless body). A massless frame that branches into several variables, or a variable
// that moves no mass, would need a body without inertia and is rejected too.
//
// Point masses. A trep point mass has no rotational inertia about its own centre; a body whose
// lumped inertia is singular (a single point mass, or point masses on a line) would make the
// Newton matrix singular. Such bodies keep their true mass and centre of mass; the eigenvalues of
// the inertia below ε·m·ℓ² are raised to ε·m·ℓ² (ε = 1e-6 by default, ℓ = the model's size). The
// added kinetic energy is ½·ε·m·ℓ²·ω² against trep's ½·m·r²·ω² for a mass at distance r from the
// joint, a relative change of ε·(ℓ/r)² (1e-6·(ℓ/r)², far below the integrator's O(Δt²) error; the
// test measures it on a pendulum). A moment breaking the triangle inequality (e.g. (mass 1 0 I 0),
// where trep only reads Iyy) cannot belong to a rigid body; it is raised to the smallest valid value.
//
// Point constraints. trep's point constraint removes one component n̂·(p₁ − p₂) of the distance
// between two frames along a world-fixed direction n̂; the constraints between the same two frames
// together fix the components in span{n̂ᵢ}. The loop joint that constrains exactly that span: one
// direction → planar-free (axis n̂, 1 translational row), two → cylindrical-free (axis n̂₁×n̂₂, the
// free direction; 2 rows), three → spherical (3 rows); none constrains rotation. The joint's
// directions are fixed in its parent body; this equals trep's world-fixed directions when the parent
// is the world, when all three directions are constrained, or when every rotation between the world
// and the parent body is about the joint axis (then the axis never moves), as in planar mechanisms
// like Listing 1 (ry joints, constraints along x and z → cylindrical-free about y). The importer
// picks such a parent when one exists and warns otherwise.
#include "io/trep_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <Eigen/Eigenvalues>

#include "core/quaternion.h"
#include "io/reader_diagnostics.h"

namespace ms {
namespace {

using sexpr::Node;

constexpr double kTol = 1e-9;

// ASCII lower case (trep is case-insensitive).
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "12:5" for messages that point at another place.
std::string where(const Node* n) { return n ? lineColumn(n->line, n->column) : "?"; }

// One transform of the expanded frame tree (a form with several type/param pairs is a chain).
struct Frame {
  bool rotation = false;
  int axis = 0;  // 0 = x, 1 = y, 2 = z
  bool variable = false;
  double value = 0;  // constant parameter
  std::string var;   // configuration variable
  int parent = -1;   // frame index, -1 = world
  std::string name;
  double mass = 0;
  Vec3 moments = Vec3::Zero();
  const Node* at = nullptr;      // the transform's type symbol
  const Node* paramAt = nullptr;
  const Node* nameAt = nullptr;
  const Node* massAt = nullptr;
  // Derived: cluster and world pose at the zero configuration.
  int cluster = 0;
  Vec3 x = Vec3::Zero();
  Vec4 q = Vec4(1, 0, 0, 0);
};

// Frames moving rigidly together; cluster 0 is the world.
struct Cluster {
  int parent = -1;    // cluster index
  int varFrame = -1;  // the variable transform that starts it (-1 for the world)
  std::vector<int> frames, children;
  double mass = 0;
  int body = -1;  // body index; -1 = world; -2 = massless (inside a compound joint)
};

struct PointConstraint {
  const Node* form = nullptr;
  const Node* aAt = nullptr;
  const Node* bAt = nullptr;
  const Node* dirAt = nullptr;
  std::string a, b, name;
  Vec3 dir = Vec3::Zero();
};

// One variable of a joint chain at the zero pose: kind, world axis, world point on the axis.
struct Motion {
  bool rot = false;
  Vec3 a = Vec3::Zero();
  Vec3 p = Vec3::Zero();
};

// Adds the directions of `v` to the orthonormal `basis` (Gram–Schmidt); returns how many were new.
int extendBasis(std::vector<Vec3>& basis, const std::vector<Vec3>& v) {
  int added = 0;
  for (Vec3 d : v) {
    d.normalize();
    for (const Vec3& b : basis) d -= d.dot(b) * b;
    if (d.norm() > 1e-6) {
      basis.push_back(d.normalized());
      ++added;
    }
  }
  return added;
}

bool parallel(const Vec3& a, const Vec3& b) { return a.normalized().cross(b.normalized()).norm() < 1e-9; }

// The Table B.2 joint whose motion is the chain `m` of variables separated by massless frames.
// On success sets type, axis (world) and a world point for the anchors; otherwise explains in `why`.
bool classifyChain(const std::vector<Motion>& m, JointType& type, Vec3& axis, Vec3& point, std::string& why) {
  std::vector<Vec3> T, R, Rp;
  bool translationAfterRotation = false;
  // Split into translations and rotations (with a point on each rotation axis).
  for (const Motion& x : m) {
    if (x.rot) {
      R.push_back(x.a);
      Rp.push_back(x.p);
    } else {
      T.push_back(x.a);
      if (!R.empty()) translationAfterRotation = true;
    }
  }
  const int nT = int(T.size()), nR = int(R.size());
  std::vector<Vec3> bt, br;
  if (nT > 3 || extendBasis(bt, T) < nT) {
    why = "their translation directions are not independent";
    return false;
  }
  if (nR > 3 || extendBasis(br, R) < nR) {
    why = "their rotation axes are not independent";
    return false;
  }
  point = m.front().p;
  axis = Vec3::UnitZ();
  // Translations only.
  if (nR == 0) {
    if (nT == 1) type = JointType::Prismatic, axis = T[0];
    if (nT == 2) type = JointType::Planar, axis = T[0].cross(T[1]);
    if (nT == 3) type = JointType::FixedOrientation;
    return true;
  }
  // One rotation, with translations that keep its axis.
  if (nR == 1) {
    axis = R[0];
    point = Rp[0];
    if (nT == 0) type = JointType::Revolute;
    if (nT == 3) type = JointType::RotationAxisFree;
    if (nT == 1) {
      if (!parallel(T[0], R[0])) {
        why = "a rotation and a translation not along its axis";
        return false;
      }
      type = JointType::Cylindrical;
    }
    if (nT == 2) {
      if (!parallel(T[0].cross(T[1]), R[0])) {
        why = "two translations and a rotation about an axis not normal to their plane";
        return false;
      }
      type = JointType::PlanarAxis;
    }
    return true;
  }
  if (nR == 2) {
    why = "two rotations (a universal joint)";
    return false;
  }
  // Three rotations: free orientation.
  if (nT == 3) {
    type = JointType::Floating;
    return true;
  }
  for (int i = 1; i < 3; ++i)
    if ((Rp[i] - Rp[0]).cross(R[i].normalized()).norm() > kTol * (1 + (Rp[i] - Rp[0]).norm())) {
      why = "three rotations whose axes do not meet in one point";
      return false;
    }
  point = Rp[0];
  if (nT == 0) {
    type = JointType::Spherical;
    return true;
  }
  if (translationAfterRotation) {
    why = "translations along directions that the rotations before them turn";
    return false;
  }
  if (nT == 1) type = JointType::CylindricalFree, axis = T[0];
  if (nT == 2) type = JointType::PlanarFree, axis = T[0].cross(T[1]);
  return true;
}

class Importer {
 public:
  Importer(const sexpr::Document& doc, Diagnostics& diags, const TrepImportOptions& opt)
      : doc_(doc), diags_(diags), opt_(opt) {}

  bool run(Model& out, TrepImportInfo* info) {
    if (!(opt_.pointInertia > 0) || !std::isfinite(opt_.pointInertia)) {
      error(nullptr, "the point-mass inertia factor must be positive and finite");
      return false;
    }
    parseSystem();
    if (errors_ > 0) return false;
    computePoses();
    if (errors_ > 0) return false;
    buildClusters();
    Model m;
    m.name = modelName();
    m.gravity = gravity_;
    m.collisions = CollisionMode::Pairs;  // trep has no contacts: its mechanisms' links pass through each other
    TrepImportInfo inf;
    buildBodies(m, inf);
    buildTreeJoints(m, inf);
    buildLoopJoints(m);
    if (errors_ > 0) return false;
    if (m.bodies.empty()) {
      error(system_, "the system has no mass: nothing would move (add (mass ...) to a frame moved by a variable)");
      return false;
    }
    fillFrameInfo(m, inf);
    out = std::move(m);
    if (info) *info = std::move(inf);
    return true;
  }

 private:
  // Diagnostics at a node (or at 1:1 when there is none).
  void report(Severity s, const Node* n, const std::string& msg) {
    diags_.add(s, doc_.fileName(), n ? n->line : 1, n ? n->column : 1, msg);
    if (s == Severity::Error) ++errors_;
  }
  void error(const Node* n, const std::string& msg) { report(Severity::Error, n, msg); }
  void warning(const Node* n, const std::string& msg) { report(Severity::Warning, n, msg); }

  std::string modelName() const {
    std::string f = doc_.fileName();
    const size_t slash = f.find_last_of("/\\");
    if (slash != std::string::npos) f = f.substr(slash + 1);
    const size_t dot = f.rfind('.');
    if (dot != std::string::npos && dot > 0) f = f.substr(0, dot);
    return f.empty() ? "trep" : f;
  }

  static bool isTransform(const std::string& h) {
    return h.size() == 2 && (h[0] == 't' || h[0] == 'r') && (h[1] == 'x' || h[1] == 'y' || h[1] == 'z');
  }

  // Finds the single (mechanical-system ...) form and reads its components.
  void parseSystem() {
    const Node& root = doc_.root();
    for (const Node& c : root.children) {
      const std::string h = lower(c.head());
      if (c.isList() && (h == "mechanical-system" || h == "system")) {
        if (system_) error(&c, "a second (mechanical-system ...) form (the first is at " + where(system_) + ")");
        else system_ = &c;
      } else {
        error(&c, "expected (mechanical-system ...) at the top level");
      }
    }
    if (!system_) {
      if (root.children.empty()) error(nullptr, "no (mechanical-system ...) form in the file");
      return;
    }
    for (size_t i = 1; i < system_->children.size(); ++i) parseComponent(system_->children[i]);
  }

  // gravity, a frame or a point constraint.
  void parseComponent(const Node& c) {
    if (!c.isList()) {
      error(&c, "expected a system component ((gravity ...), a frame such as (ry \"q\" ...) or (point-constraint ...))");
      return;
    }
    const std::string h = lower(c.head());
    if (h == "gravity") {
      // (gravity gx gy gz): the acceleration of gravity.
      if (gravityAt_) error(&c, "gravity is already given at " + where(gravityAt_));
      gravityAt_ = &c;
      if (c.children.size() != 4) {
        error(&c, "expected (gravity gx gy gz) with three numbers");
        return;
      }
      for (int k = 0; k < 3; ++k) number(c.children[k + 1], gravity_(k), "gravity component");
    } else if (isTransform(h)) {
      parseFrame(c, -1);
    } else if (h == "point-constraint" || h == "point-constaint") {
      if (h == "point-constaint")
        warning(&c.children[0], "'point-constaint' is a misspelling of 'point-constraint' (as printed in the trep paper's "
                                "Listing 1); read as point-constraint");
      parsePointConstraint(c);
    } else if (h.empty()) {
      error(&c, "expected a component name (gravity, tx ty tz rx ry rz or point-constraint) after '('");
    } else {
      error(&c.children[0], "unknown system component '" + c.head() +
                                "' (supported: gravity, frames tx ty tz rx ry rz, point-constraint)");
    }
  }

  // A number, or an error naming `what`.
  bool number(const Node& n, double& v, const std::string& what) {
    if (!n.isNumber()) {
      error(&n, what + " must be a number");
      return false;
    }
    v = n.number;
    return true;
  }

  // ({type param}+ option* frame*) with parent frame `parent` (-1 = world).
  void parseFrame(const Node& form, int parent) {
    const auto& ch = form.children;
    size_t i = 0;
    int last = parent;
    // Transform pairs: each one a frame, the next one its child.
    while (i < ch.size() && ch[i].isSymbol() && isTransform(lower(ch[i].text))) {
      const std::string t = lower(ch[i].text);
      Frame f;
      f.rotation = t[0] == 'r';
      f.axis = t[1] - 'x';
      f.parent = last;
      f.at = &ch[i];
      if (i + 1 >= ch.size()) {
        error(&ch[i], "transform '" + ch[i].text + "' needs a parameter: a number or a variable name in quotes");
        return;
      }
      const Node& p = ch[i + 1];
      f.paramAt = &p;
      if (p.isNumber()) {
        f.value = p.number;
      } else if (p.isString()) {
        f.variable = true;
        f.var = p.text;
      } else if (p.isList() && lower(p.head()) == "d" && p.children.size() == 2 && p.children[1].isString()) {
        f.variable = true;
        f.var = p.children[1].text;
      } else {
        error(&p, "the parameter of '" + ch[i].text + "' must be a number, a variable name in quotes or (d \"name\")");
        return;
      }
      // Variables: non-empty and driving one transform each (trep's requirement R2).
      if (f.variable) {
        if (f.var.empty()) {
          error(&p, "a configuration variable needs a non-empty name");
          return;
        }
        auto it = variables_.find(f.var);
        if (it != variables_.end()) {
          error(&p, "configuration variable '" + f.var + "' already drives the transform at " +
                        where(frames_[it->second].at) + " (trep allows one transform per variable)");
          return;
        }
        variables_[f.var] = int(frames_.size());
      }
      frames_.push_back(f);
      last = int(frames_.size()) - 1;
      i += 2;
    }
    // Options of the last frame, then child frames.
    for (; i < ch.size(); ++i) {
      const Node& c = ch[i];
      if (!c.isList()) {
        if (c.isSymbol() && isTransform(lower(c.text))) {
          // A transform pair after options: report once and skip its parameter.
          error(&c, "transform '" + c.text + "' after the frame's options or child frames: transform pairs come first");
          ++i;
          continue;
        }
        error(&c, "unexpected '" + c.text + "' in a frame: expected (name ...), (mass ...) or a child frame (transform pairs come first)");
        continue;
      }
      const std::string h = lower(c.head());
      if (h == "name") {
        parseName(c, last);
      } else if (h == "mass") {
        parseMass(c, last);
      } else if (isTransform(h)) {
        parseFrame(c, last);
      } else if (h.empty()) {
        error(&c, "expected a frame option (name, mass) or a child frame after '('");
      } else {
        error(&c.children[0], "unknown frame option '" + c.head() + "' (expected name, mass or a child frame)");
      }
    }
  }

  // (name "N"): unique frame names.
  void parseName(const Node& c, int f) {
    if (c.children.size() != 2 || !c.children[1].isString()) {
      error(&c, "expected (name \"text\")");
      return;
    }
    const std::string& n = c.children[1].text;
    if (!frames_[f].name.empty()) {
      error(&c, "this frame is already named '" + frames_[f].name + "'");
      return;
    }
    auto it = frameNames_.find(n);
    if (it != frameNames_.end()) {
      error(&c.children[1], "duplicate frame name '" + n + "' (first at " + where(frames_[it->second].nameAt) + ")");
      return;
    }
    frames_[f].name = n;
    frames_[f].nameAt = &c.children[1];
    frameNames_[n] = f;
  }

  // (mass m) or (mass m Ixx Iyy Izz).
  void parseMass(const Node& c, int f) {
    if (c.children.size() != 2 && c.children.size() != 5) {
      error(&c, "expected (mass m) or (mass m Ixx Iyy Izz)");
      return;
    }
    if (frames_[f].massAt) {
      error(&c, "this frame already has a mass (at " + where(frames_[f].massAt) + ")");
      return;
    }
    double m = 0;
    Vec3 I = Vec3::Zero();
    bool ok = number(c.children[1], m, "mass");
    for (size_t k = 2; k < c.children.size(); ++k) ok = number(c.children[k], I(k - 2), "rotational inertia") && ok;
    if (!ok) return;
    if (!(m > 0)) {
      error(&c.children[1], "mass must be positive (got " + c.children[1].text + ")");
      return;
    }
    for (int k = 0; k < 3 && c.children.size() == 5; ++k)
      if (I(k) < 0) {
        error(&c.children[k + 2], "rotational inertia must not be negative (got " + c.children[k + 2].text + ")");
        return;
      }
    frames_[f].mass = m;
    frames_[f].moments = I;
    frames_[f].massAt = &c;
  }

  // (point-constraint "A" "B" (nx ny nz) name?) or (point-constraint "A" "B" nx ny nz name?).
  void parsePointConstraint(const Node& c) {
    const auto& ch = c.children;
    PointConstraint pc;
    pc.form = &c;
    if (ch.size() < 4 || !ch[1].isString() || !ch[2].isString()) {
      error(ch.size() >= 2 && !ch[1].isString() ? &ch[1] : ch.size() >= 3 && !ch[2].isString() ? &ch[2] : &c,
            "expected (point-constraint \"frame1\" \"frame2\" (nx ny nz) name?)");
      return;
    }
    pc.a = ch[1].text;
    pc.aAt = &ch[1];
    pc.b = ch[2].text;
    pc.bAt = &ch[2];
    size_t i = 3;
    // The direction, as a list or as three numbers.
    if (ch[3].isList()) {
      pc.dirAt = &ch[3];
      if (ch[3].children.size() != 3) {
        error(&ch[3], "the direction must be three numbers (nx ny nz)");
        return;
      }
      for (int k = 0; k < 3; ++k)
        if (!number(ch[3].children[k], pc.dir(k), "direction component")) return;
      i = 4;
    } else {
      pc.dirAt = &ch[3];
      if (ch.size() < 6) {
        error(&c, "expected (point-constraint \"frame1\" \"frame2\" (nx ny nz) name?)");
        return;
      }
      for (int k = 0; k < 3; ++k)
        if (!number(ch[3 + k], pc.dir(k), "direction component")) return;
      i = 6;
    }
    // Optional name.
    if (i < ch.size()) {
      const Node& n = ch[i];
      if (n.isString()) pc.name = n.text;
      else if (n.isList() && lower(n.head()) == "name" && n.children.size() == 2 && n.children[1].isString())
        pc.name = n.children[1].text;
      else {
        error(&n, "expected an optional constraint name (\"text\" or (name \"text\"))");
        return;
      }
      ++i;
    }
    if (i < ch.size()) {
      error(&ch[i], "unexpected extra argument to point-constraint");
      return;
    }
    if (pc.dir.norm() < 1e-12) {
      error(pc.dirAt, "the constraint direction has zero length");
      return;
    }
    constraints_.push_back(pc);
  }

  // World poses of all frames at the zero configuration, and the model size ℓ.
  void computePoses() {
    Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
    for (Frame& f : frames_) {
      const Vec3 xp = f.parent >= 0 ? frames_[f.parent].x : Vec3::Zero();
      const Vec4 qp = f.parent >= 0 ? frames_[f.parent].q : quat::identity();
      const double v = f.variable ? 0.0 : f.value;
      const Vec3 e = Vec3::Unit(f.axis);
      if (f.rotation) {
        f.x = xp;
        f.q = quat::mul(qp, quat::fromAxisAngle(e, v)).normalized();
      } else {
        f.x = xp + quat::rotate(qp, e * v);
        f.q = qp;
      }
      // Huge constants can overflow.
      if (!f.x.allFinite() || !f.q.allFinite()) {
        error(f.paramAt, "this transform places the frame at a non-finite position");
        return;
      }
      lo = lo.cwiseMin(f.x);
      hi = hi.cwiseMax(f.x);
    }
    length_ = (hi - lo).norm();
    if (!(length_ > 1e-9) || !std::isfinite(length_)) length_ = 1;
  }

  // Clusters: frames joined by constant transforms; each variable starts one.
  void buildClusters() {
    clusters_.assign(1, Cluster{});
    for (int i = 0; i < int(frames_.size()); ++i) {
      Frame& f = frames_[i];
      const int pc = f.parent >= 0 ? frames_[f.parent].cluster : 0;
      if (f.variable) {
        Cluster c;
        c.parent = pc;
        c.varFrame = i;
        clusters_.push_back(c);
        f.cluster = int(clusters_.size()) - 1;
        clusters_[pc].children.push_back(f.cluster);
      } else {
        f.cluster = pc;
      }
      clusters_[f.cluster].frames.push_back(i);
      clusters_[f.cluster].mass += f.mass;
    }
    // Unknown names in the initial values.
    for (const auto& [name, value] : opt_.initialValues)
      if (!variables_.count(name)) error(system_, "initial value given for '" + name + "', which is not a configuration variable");
  }

  // One body per massive cluster (lumped masses, regularised inertia).
  void buildBodies(Model& m, TrepImportInfo& inf) {
    std::set<std::string> used;
    std::vector<int> regularised;
    const Node* firstRegularised = nullptr;
    inf.lengthScale = length_;
    // Masses on frames fixed to the world do nothing.
    for (int i : clusters_[0].frames)
      if (frames_[i].massAt)
        warning(frames_[i].massAt, "a mass on a frame fixed to the world never moves; ignored");
    clusters_[0].body = -1;
    for (size_t c = 1; c < clusters_.size(); ++c) {
      Cluster& cl = clusters_[c];
      if (!(cl.mass > 0)) {
        cl.body = -2;
        continue;
      }
      // Total mass, centre of mass and the axes of the first massive frame.
      BodyDesc b;
      double M = 0;
      Vec3 com = Vec3::Zero();
      int first = -1;
      for (int i : cl.frames)
        if (frames_[i].mass > 0) {
          M += frames_[i].mass;
          com += frames_[i].mass * frames_[i].x;
          if (first < 0) first = i;
        }
      com /= M;
      const Vec4 qb = frames_[first].q;
      const Mat3 Rb = quat::rotation(qb);
      // Inertia about the centre of mass in the body frame (parallel-axis theorem).
      Mat3 J = Mat3::Zero();
      for (int i : cl.frames) {
        const Frame& f = frames_[i];
        if (!(f.mass > 0)) continue;
        const Mat3 Rrel = Rb.transpose() * quat::rotation(f.q);
        const Vec3 r = Rb.transpose() * (f.x - com);
        J += Rrel * f.moments.asDiagonal() * Rrel.transpose();
        J += f.mass * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
      }
      J = 0.5 * (J + J.transpose());
      // Point masses: raise eigenvalues below ε·m·ℓ²; then the triangle inequality.
      const double floor = opt_.pointInertia * M * length_ * length_;
      Eigen::SelfAdjointEigenSolver<Mat3> es(J);
      Vec3 ev = es.eigenvalues();  // ascending
      bool raised = false;
      for (int k = 0; k < 3; ++k)
        if (ev(k) < floor) ev(k) = floor, raised = true;
      if (ev(0) + ev(1) < ev(2)) {
        ev(1) = ev(2) - ev(0);
        warning(frames_[first].massAt, "the rotational inertias of this body break the triangle inequality of a rigid "
                                       "body; the middle principal moment is raised to " + std::to_string(ev(1)));
      }
      if (raised || ev != es.eigenvalues()) {
        J = es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose();
        J = 0.5 * (J + J.transpose());
      }
      if (!std::isfinite(M) || !com.allFinite() || !J.allFinite()) {
        error(frames_[first].massAt, "the mass or inertia of this body overflows");
        cl.body = -2;
        continue;
      }
      // Name: the first named massive frame, else after the variable.
      std::string name;
      for (int i : cl.frames)
        if (frames_[i].mass > 0 && !frames_[i].name.empty()) {
          name = frames_[i].name;
          break;
        }
      if (name.empty()) name = "body-" + frames_[cl.varFrame].var;
      const std::string base = name;
      for (int k = 2; used.count(name); ++k) name = base + "#" + std::to_string(k);
      used.insert(name);
      b.name = name;
      b.mass = M;
      b.inertia = J;
      b.position = com;
      b.orientation = qb;
      cl.body = int(m.bodies.size());
      bodyCluster_.push_back(int(c));
      if (raised) {
        regularised.push_back(cl.body);
        inf.regularisedBodies.push_back(cl.body);
        inf.inertiaFloor.push_back(floor);
        if (!firstRegularised) firstRegularised = frames_[first].massAt;
      }
      m.bodies.push_back(b);
    }
    // One note for all point-mass bodies.
    if (!regularised.empty()) {
      std::ostringstream os;
      os << regularised.size() << " bod" << (regularised.size() == 1 ? "y has" : "ies have")
         << " (nearly) no rotational inertia (trep point masses): principal moments below eps*m*l^2 raised to it, eps = "
         << opt_.pointInertia << ", l = " << length_ << " m (model size)";
      report(Severity::Note, firstRegularised, os.str());
    }
  }

  // Joints between massive clusters (through massless clusters), with the checks that need bodies.
  void buildTreeJoints(Model& m, TrepImportInfo& inf) {
    // Massless clusters must lead to exactly one further variable.
    for (size_t c = 1; c < clusters_.size(); ++c) {
      const Cluster& cl = clusters_[c];
      if (cl.mass > 0) continue;
      const Frame& v = frames_[cl.varFrame];
      if (cl.children.empty()) {
        error(v.paramAt, "configuration variable '" + v.var + "' moves no mass (no (mass ...) on the frames it carries): "
                         "it would be a coordinate without inertia");
      } else if (cl.children.size() > 1) {
        std::string list;
        for (int k : cl.children) list += (list.empty() ? "'" : ", '") + frames_[clusters_[k].varFrame].var + "'";
        error(v.paramAt, "the frames moved by variable '" + v.var + "' have no mass but carry " +
                             std::to_string(cl.children.size()) + " further variables (" + list +
                             "); MechStudio needs a body there: give one of these frames a (mass ...)");
      }
    }
    if (errors_ > 0) return;
    std::set<std::string> names;
    for (size_t c = 1; c < clusters_.size(); ++c) {
      const Cluster& cl = clusters_[c];
      if (cl.body < 0) continue;
      // Variables from the nearest massive ancestor (or the world) down to this body.
      std::vector<int> vars{cl.varFrame};
      int p = cl.parent;
      while (p != 0 && clusters_[p].body == -2) {
        vars.insert(vars.begin(), clusters_[p].varFrame);
        p = clusters_[p].parent;
      }
      const int parent = p == 0 ? -1 : clusters_[p].body;
      std::vector<Motion> motions;
      std::string name, list;
      for (int vf : vars) {
        const Frame& f = frames_[vf];
        const Vec4 qp = f.parent >= 0 ? frames_[f.parent].q : quat::identity();
        const Vec3 xp = f.parent >= 0 ? frames_[f.parent].x : Vec3::Zero();
        motions.push_back({f.rotation, quat::rotate(qp, Vec3::Unit(f.axis)), xp});
        name += (name.empty() ? "" : "+") + f.var;
        list += (list.empty() ? "'" : ", '") + f.var + "'";
      }
      JointType type = JointType::Revolute;
      Vec3 axis = Vec3::UnitZ(), point = Vec3::Zero();
      std::string why;
      const Frame& head = frames_[vars.front()];
      if (!classifyChain(motions, type, axis, point, why)) {
        error(head.paramAt, "variables " + list + " are separated only by massless frames and together (" + why +
                                ") form no joint of Table B.2; give an intermediate frame a (mass ...)");
        continue;
      }
      // Anchors, offset and axis from the zero-pose poses of both bodies.
      const BodyDesc& child = m.bodies[cl.body];
      const Vec3 xa = parent >= 0 ? m.bodies[parent].position : Vec3::Zero();
      const Vec4 qa = parent >= 0 ? m.bodies[parent].orientation : quat::identity();
      const Mat3 Ra = quat::rotation(qa), Rb = quat::rotation(child.orientation);
      JointDesc j;
      j.name = name;
      j.type = type;
      j.parent = parent;
      j.child = cl.body;
      j.parentAnchor = Ra.transpose() * (point - xa);
      j.childAnchor = Rb.transpose() * (point - child.position);
      j.offset = quat::mul(quat::conj(qa), child.orientation).normalized();
      j.axis = (Rb.transpose() * axis).normalized();
      // Initial values: only for single-variable joints (their coordinate is the variable).
      for (int vf : vars) {
        auto it = opt_.initialValues.find(frames_[vf].var);
        if (it == opt_.initialValues.end()) continue;
        if (vars.size() == 1) j.initialPosition = {it->second};
        else if (it->second != 0)
          error(frames_[vf].paramAt, "an initial value for '" + frames_[vf].var + "' cannot be set: it is one of the "
                                     "variables of the compound " + jointKind(type).name + " joint '" + name + "'");
      }
      for (int vf : vars) inf.variableJoint[frames_[vf].var] = int(m.joints.size());
      names.insert(name);
      m.joints.push_back(j);
    }
    jointNames_ = names;
  }

  // True if every rotation between the world and body `b` is about `n` (so n never moves).
  bool keepsDirection(int b, const Vec3& n) const {
    if (b < 0) return true;
    for (int c = bodyCluster_[b]; c != 0; c = clusters_[c].parent) {
      const Frame& f = frames_[clusters_[c].varFrame];
      if (!f.rotation) continue;
      const Vec4 qp = f.parent >= 0 ? frames_[f.parent].q : quat::identity();
      if (!parallel(quat::rotate(qp, Vec3::Unit(f.axis)), n)) return false;
    }
    return true;
  }

  // Loop joints: point constraints grouped by frame pair.
  void buildLoopJoints(Model& m) {
    struct Group {
      int fa, fb;
      std::vector<const PointConstraint*> pcs;
      std::vector<Vec3> basis;
    };
    std::vector<Group> groups;
    for (const PointConstraint& pc : constraints_) {
      // Both frames known and on bodies (or the world).
      auto fa = frameNames_.find(pc.a), fb = frameNames_.find(pc.b);
      bool ok = true;
      if (fa == frameNames_.end()) error(pc.aAt, "unknown frame '" + pc.a + "'"), ok = false;
      if (fb == frameNames_.end()) error(pc.bAt, "unknown frame '" + pc.b + "'"), ok = false;
      if (!ok) continue;
      const int ba = clusters_[frames_[fa->second].cluster].body, bb = clusters_[frames_[fb->second].cluster].body;
      for (auto [b, at, nm] : {std::tuple(ba, pc.aAt, pc.a), std::tuple(bb, pc.bAt, pc.b)})
        if (b == -2) {
          error(at, "frame '" + nm + "' lies on a massless frame between the variables of a compound joint; a point "
                    "constraint needs a frame on a body or on the world (give that frame a (mass ...))");
          ok = false;
        }
      if (!ok) continue;
      if (ba == bb) {
        error(pc.form, "frames '" + pc.a + "' and '" + pc.b + "' are fixed to the same " +
                           (ba < 0 ? std::string("world") : "body '" + m.bodies[ba].name + "'") +
                           "; a point constraint between them cannot act");
        continue;
      }
      // Group by unordered frame pair; a repeated direction adds nothing.
      Group* g = nullptr;
      for (Group& x : groups)
        if ((x.fa == fa->second && x.fb == fb->second) || (x.fa == fb->second && x.fb == fa->second)) g = &x;
      if (!g) {
        groups.push_back({fa->second, fb->second, {}, {}});
        g = &groups.back();
      }
      if (extendBasis(g->basis, {pc.dir}) == 0) {
        warning(pc.dirAt, "this direction is already constrained between '" + pc.a + "' and '" + pc.b + "'; ignored");
        continue;
      }
      g->pcs.push_back(&pc);
    }
    if (errors_ > 0) return;
    for (const Group& g : groups) {
      const int k = int(g.basis.size());
      const Frame &A = frames_[g.fa], &B = frames_[g.fb];
      int ba = clusters_[A.cluster].body, bb = clusters_[B.cluster].body;
      // Joint type and axis from the span of the directions.
      JointType type = JointType::Spherical;
      Vec3 n = Vec3::UnitZ();
      if (k == 1) type = JointType::PlanarFree, n = g.basis[0];
      if (k == 2) type = JointType::CylindricalFree, n = g.basis[0].cross(g.basis[1]).normalized();
      // Parent: the world, or a body that keeps the directions fixed as trep does.
      bool swap = false;
      if (bb == -1) swap = true;
      else if (ba != -1 && k < 3) {
        if (!keepsDirection(ba, n)) {
          if (keepsDirection(bb, n)) swap = true;
          else
            warning(g.pcs.front()->form,
                    "trep keeps point-constraint directions fixed in the world; here they are fixed in body '" +
                        m.bodies[ba].name + "', which also rotates about other axes, so the two differ once it does");
        }
      }
      const Frame& P = swap ? B : A;
      const Frame& C = swap ? A : B;
      if (swap) std::swap(ba, bb);
      const Vec3 xa = ba >= 0 ? m.bodies[ba].position : Vec3::Zero();
      const Vec4 qa = ba >= 0 ? m.bodies[ba].orientation : quat::identity();
      const BodyDesc& child = m.bodies[bb];
      const Mat3 Ra = quat::rotation(qa), Rb = quat::rotation(child.orientation);
      JointDesc j;
      j.type = type;
      j.parent = ba;
      j.child = bb;
      j.parentAnchor = Ra.transpose() * (P.x - xa);
      j.childAnchor = Rb.transpose() * (C.x - child.position);
      j.offset = quat::mul(quat::conj(qa), child.orientation).normalized();
      j.axis = (Rb.transpose() * n).normalized();
      // Name: the first given constraint name, else "A-B".
      std::string name;
      for (const PointConstraint* pc : g.pcs)
        if (!pc->name.empty()) {
          name = pc->name;
          break;
        }
      if (name.empty()) name = A.name + "-" + B.name;
      const std::string base = name;
      for (int s = 2; jointNames_.count(name); ++s) name = base + "#" + std::to_string(s);
      jointNames_.insert(name);
      j.name = name;
      m.joints.push_back(j);
    }
  }

  // Named frames: body and pose in the body frame.
  void fillFrameInfo(const Model& m, TrepImportInfo& inf) const {
    for (const Frame& f : frames_) {
      if (f.name.empty()) continue;
      TrepImportInfo::Frame fi;
      fi.name = f.name;
      fi.body = clusters_[f.cluster].body;
      if (fi.body >= 0) {
        const BodyDesc& b = m.bodies[fi.body];
        fi.position = quat::rotation(b.orientation).transpose() * (f.x - b.position);
        fi.orientation = quat::mul(quat::conj(b.orientation), f.q).normalized();
      } else {
        fi.position = f.x;
        fi.orientation = f.q;
      }
      inf.frames.push_back(fi);
    }
  }

  const sexpr::Document& doc_;
  Diagnostics& diags_;
  const TrepImportOptions& opt_;
  int errors_ = 0;
  const Node* system_ = nullptr;
  const Node* gravityAt_ = nullptr;
  Vec3 gravity_ = Vec3::Zero();
  std::vector<Frame> frames_;
  std::vector<Cluster> clusters_;
  std::vector<PointConstraint> constraints_;
  std::map<std::string, int> variables_, frameNames_;
  std::vector<int> bodyCluster_;
  std::set<std::string> jointNames_;
  double length_ = 1;
};

}  // namespace

bool importTrep(const sexpr::Document& doc, Model& out, Diagnostics& diags, const TrepImportOptions& options,
                TrepImportInfo* info) {
  Importer imp(doc, diags, options);
  return imp.run(out, info);
}

bool importTrepString(const std::string& text, const std::string& fileName, Model& out, Diagnostics& diags,
                      const TrepImportOptions& options, TrepImportInfo* info) {
  // Syntax first: the import runs on the recovered tree too, to report every problem.
  const int before = diags.errorCount();
  const sexpr::Document doc = sexpr::Document::parse(text, fileName, diags);
  const bool syntaxOk = diags.errorCount() == before;
  Model m;
  TrepImportInfo inf;
  const bool ok = importTrep(doc, m, diags, options, &inf);
  if (!ok || !syntaxOk) return false;
  out = std::move(m);
  if (info) *info = std::move(inf);
  return true;
}

bool importTrepFile(const std::string& path, Model& out, Diagnostics& diags, const TrepImportOptions& options,
                    TrepImportInfo* info) {
  std::string text;
  if (!readWholeFile(path, text, diags)) return false;
  return importTrepString(text, path, out, diags, options, info);
}

}  // namespace ms
