// SPDX-License-Identifier: GPL-3.0-or-later
// Writer of the MechStudio model language (see mech_writer.h).
#include "io/mech_writer.h"

#include "model/joint_tree.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace ms {

namespace {

using sexpr::formatNumber;

const Vec4 kIdentity(1, 0, 0, 0);
const Vec4 kDefaultColor = ShapeDesc().color;

// A name as a symbol when it reads back as that symbol, else as a quoted string.
std::string nameText(const std::string& s) {
  bool plain = !s.empty();
  for (unsigned char c : s)
    if (c <= ' ' || c == 0x7f || c == '(' || c == ')' || c == '"' || c == ';' || c == '{' || c == '}') plain = false;
  if (plain) {
    Diagnostics scratch;
    const sexpr::Document d = sexpr::Document::parse(s, "", scratch);
    plain = !scratch.hasErrors() && d.root().children.size() == 1 && d.root().children[0].isSymbol() &&
            d.root().children[0].text == s;
  }
  return plain ? s : sexpr::quote(s);
}

// "(key a b c)" for a list of numbers.
std::string form(const std::string& key, std::initializer_list<double> values) {
  std::string s = "(" + key;
  for (double v : values) s += " " + formatNumber(v);
  return s + ")";
}
std::string form(const std::string& key, const std::vector<double>& values) {
  std::string s = "(" + key;
  for (double v : values) s += " " + formatNumber(v);
  return s + ")";
}
std::string form3(const std::string& key, const Vec3& v) { return form(key, {v.x(), v.y(), v.z()}); }
std::string form4(const std::string& key, const Vec4& v) { return form(key, {v(0), v(1), v(2), v(3)}); }
// RGB when opaque, else RGBA.
std::string colorForm(const Vec4& c) {
  return c(3) == 1.0 ? form("color", {c(0), c(1), c(2)}) : form4("color", c);
}

// Exact equality of two shapes (every field the reader sets).
bool sameShape(const ShapeDesc& a, const ShapeDesc& b) {
  return a.kind == b.kind && a.size == b.size && a.meshFile == b.meshFile && a.meshScale == b.meshScale &&
         a.position == b.position && a.orientation == b.orientation && a.color == b.color;
}

class Writer {
 public:
  explicit Writer(const Model& m) : m_(m) {}
  std::string run();

 private:
  void buildTree();
  void writeBody(int b, int depth);
  std::string shapeText(const std::string& head, const ShapeDesc& s, bool writeColor) const;
  std::vector<std::string> jointItems(const JointDesc& j) const;
  std::string bodyName(int b) const { return b < 0 ? std::string("world") : nameText(m_.bodies[b].name); }
  std::string jointName(int j) const { return nameText(m_.joints[j].name); }
  bool validJoint(const JointDesc& j) const {
    const int nb = int(m_.bodies.size());
    return j.child >= 0 && j.child < nb && j.parent >= -1 && j.parent < nb && j.parent != j.child;
  }
  // Appends `items` after `head` on one line when short, else one per line.
  void emit(const std::string& indent, const std::string& head, const std::vector<std::string>& items,
            const std::string& close = ")");

  const Model& m_;
  std::string out_;
  std::vector<int> treeJoint_;               // per body: the joint placing it (written inside it), or -1
  std::vector<std::vector<int>> children_;   // per body: bodies written inside it
  std::vector<int> roots_;                   // bodies written at the top level
  std::vector<bool> isTree_;                 // per joint
  std::deque<int> deferred_;                 // bodies too deep, restarted at the top level
  std::vector<int> bodyOrder_, jointOrder_;  // order of appearance in the text (= reader's numbering)
};

// Bodies nest along the model's joint tree (buildJointTree: the tree as written, loop closures
// last); bodies no joint reaches are written at the top level without a joint.
void Writer::buildTree() {
  const int nb = int(m_.bodies.size()), nj = int(m_.joints.size());
  children_.assign(nb, {});
  isTree_.assign(nj, false);
  const JointTree tree = buildJointTree(m_, [this](int k) { return validJoint(m_.joints[k]); });
  treeJoint_ = tree.parentJoint;
  for (int k : tree.treeJoints) isTree_[k] = true;
  for (int b = 0; b < nb; ++b) {
    const int k = treeJoint_[b];
    if (k >= 0 && m_.joints[k].parent >= 0) children_[m_.joints[k].parent].push_back(b);
    else roots_.push_back(b);
  }
}

void Writer::emit(const std::string& indent, const std::string& head, const std::vector<std::string>& items,
                  const std::string& close) {
  size_t length = indent.size() + head.size() + close.size();
  for (const std::string& s : items) length += 1 + s.size();
  if (length <= 100) {
    out_ += indent + head;
    for (const std::string& s : items) out_ += " " + s;
    out_ += close;
    return;
  }
  out_ += indent + head;
  for (const std::string& s : items) out_ += "\n" + indent + "  " + s;
  out_ += close;
}

// A shape form: kind, dimensions, placement.
std::string Writer::shapeText(const std::string& head, const ShapeDesc& s, bool writeColor) const {
  std::string t = "(" + head + " ";
  switch (s.kind) {
    case ShapeDesc::Kind::Box:
      t += "box " + formatNumber(s.size.x()) + " " + formatNumber(s.size.y()) + " " + formatNumber(s.size.z());
      break;
    case ShapeDesc::Kind::Sphere: t += "sphere " + formatNumber(s.size.x()); break;
    case ShapeDesc::Kind::Capsule: t += "capsule " + formatNumber(s.size.x()) + " " + formatNumber(s.size.y()); break;
    case ShapeDesc::Kind::Cylinder: t += "cylinder " + formatNumber(s.size.x()) + " " + formatNumber(s.size.y()); break;
    case ShapeDesc::Kind::Plane: t += "plane"; break;
    case ShapeDesc::Kind::Mesh: t += "mesh " + sexpr::quote(s.meshFile); break;
  }
  if (s.position != Vec3::Zero()) t += " " + form3("at", s.position);
  if (s.orientation != kIdentity) t += " " + form4("orientation", s.orientation);
  if (s.kind == ShapeDesc::Kind::Mesh && s.meshScale != Vec3::Ones()) t += " " + form3("scale", s.meshScale);
  if (writeColor && s.color != kDefaultColor) t += " " + colorForm(s.color);
  return t + ")";
}

// The properties of a joint that differ from the defaults.
std::vector<std::string> Writer::jointItems(const JointDesc& j) const {
  std::vector<std::string> items;
  if (j.parentAnchor != Vec3::Zero()) items.push_back(form3("parent-anchor", j.parentAnchor));
  if (j.childAnchor != Vec3::Zero()) items.push_back(form3("child-anchor", j.childAnchor));
  if (j.axis != Vec3::UnitZ()) items.push_back(form3("axis", j.axis));
  if (j.offset != kIdentity) items.push_back(form4("offset", j.offset));
  const std::pair<const char*, const std::vector<double>*> lists[] = {
      {"position", &j.initialPosition}, {"velocity", &j.initialVelocity}, {"stiffness", &j.stiffness},
      {"rest", &j.restPosition},        {"damping", &j.damping},          {"armature", &j.armature},
      {"lower", &j.lowerLimit},         {"upper", &j.upperLimit}};
  for (const auto& [key, values] : lists)
    if (!values->empty()) items.push_back(form(key, *values));
  return items;
}

// A body with its properties, its joint and, nested, the bodies hanging from it.
void Writer::writeBody(int b, int depth) {
  const BodyDesc& body = m_.bodies[b];
  const std::string indent(2 * (depth + 1), ' ');
  const std::string inner = indent + "  ";
  bodyOrder_.push_back(b);
  out_ += indent + "(body " + nameText(body.name);
  // Mass and, unless it follows from the first shape, the inertia.
  out_ += "\n" + inner + form("mass", {body.mass});
  const ShapeDesc* basis = !body.collisions.empty() ? &body.collisions[0] : !body.visuals.empty() ? &body.visuals[0] : nullptr;
  Mat3 derived;
  const bool derivable = basis && shapeInertia(*basis, body.mass, derived) && derived == body.inertia;
  if (!derivable) {
    const Mat3& I = body.inertia;
    if (I(0, 1) == 0 && I(0, 2) == 0 && I(1, 2) == 0 && I(1, 0) == 0 && I(2, 0) == 0 && I(2, 1) == 0)
      out_ += "\n" + inner + form("inertia", {I(0, 0), I(1, 1), I(2, 2)});
    else
      out_ += "\n" + inner + form("inertia", {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)});
  }
  // Initial pose and velocity (used when no joint sets them), friction.
  if (body.position != Vec3::Zero()) out_ += "\n" + inner + form3("position", body.position);
  if (body.orientation != kIdentity) out_ += "\n" + inner + form4("orientation", body.orientation);
  if (body.linearVelocity != Vec3::Zero()) out_ += "\n" + inner + form3("velocity", body.linearVelocity);
  if (body.angularVelocity != Vec3::Zero()) out_ += "\n" + inner + form3("angular-velocity", body.angularVelocity);
  if (body.friction != BodyDesc().friction) out_ += "\n" + inner + form("friction", {body.friction});
  if (body.contype != BodyDesc().contype) out_ += "\n" + inner + form("contype", {double(body.contype)});
  if (body.conaffinity != BodyDesc().conaffinity) out_ += "\n" + inner + form("conaffinity", {double(body.conaffinity)});
  // Shapes: one colour for all of them is written once for the body.
  std::vector<const ShapeDesc*> all;
  for (const ShapeDesc& s : body.visuals) all.push_back(&s);
  for (const ShapeDesc& s : body.collisions) all.push_back(&s);
  bool common = !all.empty() && all[0]->color != kDefaultColor;
  for (const ShapeDesc* s : all) common = common && s->color == all[0]->color;
  if (common) out_ += "\n" + inner + colorForm(all[0]->color);
  size_t vi = 0, ci = 0;
  while (vi < body.visuals.size() || ci < body.collisions.size()) {
    if (vi < body.visuals.size() && ci < body.collisions.size() && sameShape(body.visuals[vi], body.collisions[ci])) {
      out_ += "\n" + inner + shapeText("shape", body.visuals[vi], !common);
      ++vi, ++ci;
    } else if (vi < body.visuals.size()) {
      out_ += "\n" + inner + shapeText("visual", body.visuals[vi++], !common);
    } else {
      out_ += "\n" + inner + shapeText("collision", body.collisions[ci++], !common);
    }
  }
  // The joint to the enclosing body (or the world).
  const int k = treeJoint_[b];
  if (k >= 0 && isTree_[k]) {
    const JointDesc& j = m_.joints[k];
    jointOrder_.push_back(k);
    std::string head = "(joint " + std::string(jointKind(j.type).name);
    if (j.name != body.name) head += " " + jointName(k);
    out_ += "\n";
    emit(inner, head, jointItems(j));
  }
  // Children, nested (or restarted at the top level when too deep).
  for (int c : children_[b]) {
    if (depth + 1 >= kMaxWrittenNesting) {
      isTree_[treeJoint_[c]] = false;
      deferred_.push_back(c);
      continue;
    }
    out_ += "\n";
    writeBody(c, depth + 1);
  }
  out_ += ")";
}

std::string Writer::run() {
  buildTree();
  // Header.
  out_ += "; " + (m_.name.empty() ? std::string("Mechanism") : "Mechanism '" + m_.name + "'") +
          ", written by MechStudio. Format: docs/model-language.md.\n";
  out_ += "; Units: SI (m, kg, s, N, N m); angles in radians; quaternions are w x y z.\n";
  out_ += "(mechanism";
  if (!m_.name.empty()) out_ += " " + sexpr::quote(m_.name);
  out_ += "\n  ; Gravity [m/s^2]; solver: time step [s], residual tolerance, Newton iterations, line-search halvings.\n";
  out_ += "  " + form3("gravity", m_.gravity) + "\n";
  out_ += "  (solver " + form("dt", {m_.solver.dt}) + " " + form("tolerance", {m_.solver.tolerance}) + " " +
          form("max-iterations", {double(m_.solver.maxIterations)}) + " " +
          form("line-search", {double(m_.solver.maxLineSearch)});
  if (m_.solver.complementarityTolerance != SolverSettings().complementarityTolerance)
    out_ += " " + form("complementarity-tolerance", {m_.solver.complementarityTolerance});
  if (m_.solver.frictionDirections != SolverSettings().frictionDirections)
    out_ += " " + form("friction-directions", {double(m_.solver.frictionDirections)});
  if (m_.solver.sleepTime != SolverSettings().sleepTime) out_ += " " + form("sleep", {m_.solver.sleepTime});
  out_ += ")";
  // Bodies, nested along the joint tree.
  if (!m_.bodies.empty())
    out_ += "\n\n  ; Bodies. A body's (joint ...) connects it to the body it is written in (the world at the top\n"
            "  ; level); mass [kg], inertia [kg m^2] about the centre of mass (omitted: derived from the first shape).";
  for (int r : roots_) {
    out_ += "\n";
    writeBody(r, 0);
    while (!deferred_.empty()) {
      const int d = deferred_.front();
      deferred_.pop_front();
      out_ += "\n";
      writeBody(d, 0);
    }
  }
  // Loop-closing joints.
  std::vector<int> loops;
  for (size_t k = 0; k < m_.joints.size(); ++k)
    if (!isTree_[k]) loops.push_back(int(k));
  if (!loops.empty()) out_ += "\n\n  ; Loop-closing joints: NAME TYPE PARENT CHILD.";
  for (int k : loops) {
    const JointDesc& j = m_.joints[k];
    out_ += "\n";
    if (!validJoint(j)) {
      out_ += "  ; joint " + nameText(j.name) + " is not written: it does not connect two different bodies";
      continue;
    }
    jointOrder_.push_back(k);
    emit("  ", "(loop-joint " + jointName(k) + " " + jointKind(j.type).name + " " + bodyName(j.parent) + " " + bodyName(j.child),
         jointItems(j));
  }
  // Springs between bodies.
  const int nb = int(m_.bodies.size()), nj = int(m_.joints.size());
  auto validBody = [&](int b, bool worldOk) { return (worldOk && b == -1) || (b >= 0 && b < nb); };
  if (!m_.springs.empty()) out_ += "\n\n  ; Springs between two bodies: stiffness [N/m], rest length [m], damping [N s/m].";
  for (const SpringDesc& s : m_.springs) {
    out_ += "\n";
    if (!validBody(s.bodyA, true) || !validBody(s.bodyB, true)) {
      out_ += "  ; spring " + nameText(s.name) + " is not written: invalid body";
      continue;
    }
    std::vector<std::string> items;
    if (s.anchorA != Vec3::Zero()) items.push_back(form3("anchor-a", s.anchorA));
    if (s.anchorB != Vec3::Zero()) items.push_back(form3("anchor-b", s.anchorB));
    items.push_back(form("stiffness", {s.stiffness}));
    if (s.restLength != 0) items.push_back(form("rest-length", {s.restLength}));
    if (s.damping != 0) items.push_back(form("damping", {s.damping}));
    emit("  ", "(spring " + nameText(s.name) + " " + bodyName(s.bodyA) + " " + bodyName(s.bodyB), items);
  }
  // Tendons.
  if (!m_.tendons.empty())
    out_ += "\n\n  ; Fixed tendons: length = sum of coef * joint coordinate; stiffness [N/m or N m/rad], rest length, damping.";
  for (const TendonDesc& t : m_.tendons) {
    out_ += "\n";
    bool valid = !t.terms.empty();
    for (const TendonTerm& term : t.terms) valid = valid && term.joint >= 0 && term.joint < nj;
    if (!valid) {
      out_ += "  ; tendon " + nameText(t.name) + " is not written: invalid joint";
      continue;
    }
    std::vector<std::string> items;
    for (const TendonTerm& term : t.terms)
      items.push_back("(joint " + jointName(term.joint) + " " + formatNumber(term.coef) +
                      (term.coordinate != 0 ? " " + std::to_string(term.coordinate) : std::string()) + ")");
    if (t.stiffness != 0) items.push_back(form("stiffness", {t.stiffness}));
    if (t.restLength != 0) items.push_back(form("rest-length", {t.restLength}));
    if (t.damping != 0) items.push_back(form("damping", {t.damping}));
    emit("  ", "(tendon " + nameText(t.name), items);
  }
  // Joint couplings.
  if (!m_.couplings.empty())
    out_ += "\n\n  ; Couplings: the joint's coordinate = offset + multiplier * the coordinate it follows (a constraint).";
  for (const CouplingDesc& c : m_.couplings) {
    out_ += "\n";
    if (c.joint < 0 || c.joint >= nj || c.reference < -1 || c.reference >= nj) {
      out_ += "  ; coupling " + nameText(c.name) + " is not written: invalid joint";
      continue;
    }
    const auto coordinateRef = [&](const char* head, int joint, int coordinate) {
      return std::string("(") + head + " " + jointName(joint) + (coordinate != 0 ? " " + std::to_string(coordinate) : std::string()) + ")";
    };
    std::vector<std::string> items = {coordinateRef("joint", c.joint, c.coordinate)};
    if (c.reference >= 0) items.push_back(coordinateRef("follows", c.reference, c.referenceCoordinate));
    if (c.multiplier != 1) items.push_back(form("multiplier", {c.multiplier}));
    if (c.offset != 0) items.push_back(form("offset", {c.offset}));
    emit("  ", "(coupling " + nameText(c.name), items);
  }
  // Constant actuator efforts.
  if (!m_.actuators.empty()) out_ += "\n\n  ; Actuators: constant inputs on joints; the joint effort [N m or N per free coordinate] is gear * the input clamped to the control range, then to the force range.";
  for (const ActuatorDesc& a : m_.actuators) {
    out_ += "\n";
    const bool onTendon = a.tendon >= 0 && a.tendon < int(m_.tendons.size());
    if (!onTendon && (a.tendon >= 0 || a.joint < 0 || a.joint >= nj)) {
      out_ += "  ; actuator is not written: invalid joint";
      continue;
    }
    std::vector<std::string> items = {form("effort", a.effort)};
    // The transmission (gear, ranges) when it is not the identity; an open end as the largest double.
    const auto bound = [](double v) { return std::clamp(v, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max()); };
    if (a.gear != 1) items.push_back(form("gear", {a.gear}));
    if (a.controlLower > -kInf || a.controlUpper < kInf)
      items.push_back(form("control-range", {bound(a.controlLower), bound(a.controlUpper)}));
    if (a.forceLower > -kInf || a.forceUpper < kInf)
      items.push_back(form("force-range", {bound(a.forceLower), bound(a.forceUpper)}));
    emit("  ", "(actuator " + (onTendon ? nameText(m_.tendons[size_t(a.tendon)].name) : jointName(a.joint)), items);
  }
  // PD controllers.
  if (!m_.controllers.empty())
    out_ += "\n\n  ; PD controllers: target = offset + amplitude sin(2 pi frequency t + phase).";
  for (const ControllerDesc& c : m_.controllers) {
    out_ += "\n";
    if (c.joint < 0 || c.joint >= nj) {
      out_ += "  ; controller " + nameText(c.name) + " is not written: invalid joint";
      continue;
    }
    std::vector<std::string> items = {form("kp", {c.kp}), form("kd", {c.kd})};
    if (c.coordinate != 0) items.push_back(form("coordinate", {double(c.coordinate)}));
    if (c.amplitude != 0 || c.frequency != 0 || c.phase != 0)
      items.push_back("(target " + formatNumber(c.offset) + " " + form("sin", {c.amplitude, c.frequency, c.phase}) + ")");
    else if (c.offset != 0)
      items.push_back(form("target", {c.offset}));
    if (c.effortLimit != 0) items.push_back(form("effort-limit", {c.effortLimit}));
    emit("  ", "(pd-controller " + nameText(c.name) + " " + jointName(c.joint), items);
  }
  // Constant external wrenches.
  if (!m_.wrenches.empty()) out_ += "\n\n  ; Constant external wrenches (world frame): force [N] at the centre of mass, torque [N m].";
  for (const WrenchDesc& w : m_.wrenches) {
    out_ += "\n";
    if (!validBody(w.body, false)) {
      out_ += "  ; wrench is not written: invalid body";
      continue;
    }
    std::vector<std::string> items;
    if (w.force != Vec3::Zero()) items.push_back(form3("force", w.force));
    if (w.torque != Vec3::Zero()) items.push_back(form3("torque", w.torque));
    emit("  ", "(wrench " + bodyName(w.body), items);
  }
  // Ground planes.
  if (!m_.grounds.empty()) out_ += "\n\n  ; Ground planes: a point [m], the outward normal, friction (else each body's).";
  for (const GroundDesc& g : m_.grounds) {
    out_ += "\n";
    std::vector<std::string> items;
    if (g.point != Vec3::Zero()) items.push_back(form3("at", g.point));
    if (g.normal != Vec3::UnitZ()) items.push_back(form3("normal", g.normal));
    if (g.friction >= 0) items.push_back(form("friction", {g.friction}));
    emit("  ", "(ground " + nameText(g.name.empty() ? std::string("ground") : g.name), items);
  }
  // Contacts between bodies.
  if (!m_.contactPairs.empty())
    out_ += "\n\n  ; Contacts between the collision shapes of two bodies, friction (else the mean of the bodies').";
  for (size_t k = 0; k < m_.contactPairs.size(); ++k) {
    const ContactPairDesc& pr = m_.contactPairs[k];
    out_ += "\n";
    const int nb = int(m_.bodies.size());
    if (pr.bodyA < 0 || pr.bodyA >= nb || pr.bodyB < 0 || pr.bodyB >= nb) {
      out_ += "  ; contact-pair is not written: invalid body";
      continue;
    }
    std::vector<std::string> items;
    if (pr.friction >= 0) items.push_back(form("friction", {pr.friction}));
    emit("  ", "(contact-pair " + nameText(pr.name.empty() ? "pair" + std::to_string(k + 1) : pr.name) + " " +
                   bodyName(pr.bodyA) + " " + bodyName(pr.bodyB), items);
  }
  // Which bodies collide: only the contact-pairs, or every two but the excluded pairs.
  if (m_.collisions == CollisionMode::Pairs)
    out_ += "\n\n  ; Bodies collide only as contact-pairs name them.\n  (collisions pairs)";
  if (m_.collisions == CollisionMode::NoSelf)
    out_ += "\n\n  ; Bodies of one mechanism do not collide with each other.\n  (collisions no-self)";
  if (!m_.exclusions.empty()) out_ += "\n\n  ; Pairs of bodies that do not collide with each other.";
  for (const ExclusionDesc& e : m_.exclusions) {
    const int nb = int(m_.bodies.size());
    if (e.bodyA < 0 || e.bodyA >= nb || e.bodyB < 0 || e.bodyB >= nb) {
      out_ += "\n  ; exclude is not written: invalid body";
      continue;
    }
    out_ += "\n  (exclude " + bodyName(e.bodyA) + " " + bodyName(e.bodyB) + ")";
  }
  // Numbering, when reading the nesting alone would number bodies or joints differently.
  bool bodiesInOrder = true, jointsInOrder = int(jointOrder_.size()) == nj;
  for (size_t k = 0; k < bodyOrder_.size(); ++k) bodiesInOrder = bodiesInOrder && bodyOrder_[k] == int(k);
  for (size_t k = 0; k < jointOrder_.size(); ++k) jointsInOrder = jointsInOrder && jointOrder_[k] == int(k);
  if (!bodiesInOrder || !jointsInOrder) {
    out_ += "\n\n  ; Index order of bodies and joints (as in the model this file was written from).\n  (order";
    auto list = [&](const char* head, const std::vector<std::string>& names) {
      std::string line = "\n    (" + std::string(head);
      for (const std::string& n : names) {
        if (line.size() + n.size() + 1 > 100) {
          out_ += line;
          line = "\n     ";
        }
        line += " " + n;
      }
      out_ += line + ")";
    };
    if (!bodiesInOrder) {
      std::vector<std::string> names;
      for (int b = 0; b < nb; ++b) names.push_back(bodyName(b));
      list("bodies", names);
    }
    if (!jointsInOrder) {
      std::vector<std::string> names;
      for (int k = 0; k < nj; ++k)
        if (validJoint(m_.joints[k])) names.push_back(jointName(k));
      list("joints", names);
    }
    out_ += ")";
  }
  // Keyframes: saved states, one entry per body.
  if (!m_.keyframes.empty())
    out_ += "\n\n  ; Keyframes: per body the centre of mass [m], orientation (w x y z), velocity [m/s] and angular\n"
            "  ; velocity [rad/s], all in the world frame.";
  for (const KeyframeDesc& k : m_.keyframes) {
    out_ += "\n  ";
    for (char c : keyframeText(k)) out_ += c == '\n' ? std::string("\n  ") : std::string(1, c);
  }
  out_ += ")\n";
  return out_;
}

}  // namespace

std::string writeMech(const Model& model) { return Writer(model).run(); }

std::string keyframeBodyText(const KeyframeBody& b) {
  return "(body " + nameText(b.body) + "\n  " + form3("position", b.position) + " " + form4("orientation", b.orientation) +
         "\n  " + form3("velocity", b.velocity) + " " + form3("angular-velocity", b.angularVelocity) + ")";
}

std::string keyframeText(const KeyframeDesc& k) {
  std::string t = "(keyframe " + nameText(k.name);
  for (const KeyframeBody& b : k.bodies) {
    t += "\n  ";
    for (char c : keyframeBodyText(b)) t += c == '\n' ? std::string("\n  ") : std::string(1, c);
  }
  return t + ")";
}

sexpr::Document setValue(const sexpr::Document& doc, const SourceRef& token, double value, Diagnostics& diags) {
  const sexpr::Node* n = token.valid() ? doc.nodeAt(token.begin) : nullptr;
  if (!token.literal || !n || !n->isNumber() || n->begin != token.begin || n->end != token.end) {
    diags.error(doc.fileName(), token.line, token.column,
                "this value is not a single number in the text (it comes from an expression or a parameter); "
                "edit the expression or the parameter instead");
    return doc;
  }
  return setValue(doc, *n, value, diags);
}

sexpr::Document setValue(const sexpr::Document& doc, const sexpr::Node& atom, double value, Diagnostics& diags) {
  if (!atom.isNumber() || atom.end > doc.text().size()) {
    diags.error(doc.fileName(), atom.line, atom.column, "only a number token can be set to a number");
    return doc;
  }
  if (!std::isfinite(value)) {
    diags.error(doc.fileName(), atom.line, atom.column, "the new value must be a finite number");
    return doc;
  }
  return doc.replaced(atom.begin, atom.end, formatNumber(value), diags);
}

}  // namespace ms
