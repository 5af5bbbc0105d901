// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's forces: (spring …), (tendon …), (actuator …), (pd-controller …) and (wrench …).
#include "io/mech_reader_internal.h"

#include <cmath>

namespace ms::mechread {

// (spring NAME BODY-A BODY-B (anchor-a …)? (anchor-b …)? (stiffness …) (rest-length …)? (damping …)?)
void Reader::readSpring(const Node& n, bool generated) {
  SpringDesc s;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, s.name, src.name, "a name and two bodies, e.g. (spring s a b (stiffness 100))")) return;
  std::string a, b;
  SourceRef aRef, bRef;
  if (!readName(n, i, a, aRef, "two bodies (either may be world)")) return;
  if (!readName(n, i, b, bRef, "a second body")) return;
  src.properties["body-a"].form = aRef;
  src.properties["body-b"].form = bRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"anchor-a", "anchor-b", "stiffness", "rest-length", "damping"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a spring property such as (stiffness ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown spring property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "spring '" + s.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "anchor-a" || h == "anchor-b") {
      Vec3 x;
      if (vec3(c, x, &ps)) (h == "anchor-a" ? s.anchorA : s.anchorB) = x;
      continue;
    }
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &ps)) continue;
    if (!(v[0] >= 0)) {
      error(c.children[1], h + " must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    (h == "stiffness" ? s.stiffness : h == "damping" ? s.damping : s.restLength) = v[0];
  }
  if (!seen.count("stiffness")) error(n.children[0], "spring '" + s.name + "' needs a (stiffness ...)");
  const int idx = int(model_.springs.size());
  define(springs_, "spring", s.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::SpringA, idx, a, aRef});
  fixups_.push_back({Fixup::Slot::SpringB, idx, b, bRef});
  model_.springs.push_back(s);
  map_.springs.push_back(std::move(src));
}

// (tendon NAME (joint JOINT COEF COORDINATE?)+ (stiffness …)? (rest-length …)? (damping …)?)
void Reader::readTendon(const Node& n, bool generated) {
  TendonDesc t;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, t.name, src.name, "a name and joint terms, e.g. (tendon t (joint a 0.5) (joint b 0.5) (stiffness 10))"))
    return;
  const int idx = int(model_.tendons.size());
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"joint", "stiffness", "rest-length", "damping"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a tendon property such as (joint NAME COEF), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown tendon property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (h == "joint") {
      // (joint NAME COEF COORDINATE?): the term coef · θ_COORDINATE of joint NAME.
      if (c.children.size() < 3 || c.children.size() > 4 || !(c.children[1].isSymbol() || c.children[1].isString())) {
        error(c, "(joint NAME COEF COORDINATE?) takes a joint name, a coefficient and optionally a coordinate");
        continue;
      }
      const Node& jn = c.children[1];
      TendonTerm term;
      PropertySource& ps = src.properties["joint"];
      ps.values.push_back(ref(jn));
      if (!eval(c.children[2], term.coef)) continue;
      if (c.children.size() == 4) {
        double coord = 0;
        if (!eval(c.children[3], coord)) continue;
        if (coord != std::floor(coord) || coord < 0 || coord > 5) {
          error(c.children[3], "the coordinate is a free-coordinate index from 0 to 5 (got " + num(coord) + ")");
          continue;
        }
        term.coordinate = int(coord);
      }
      fixups_.push_back({Fixup::Slot::TendonJoint, idx, jn.text, ref(jn), t.terms.size()});
      t.terms.push_back(term);
      continue;
    }
    if (duplicate(seen, h, c, "tendon '" + t.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    std::vector<double> v;
    if (!numbers(c, 1, 1, 1, v, &ps)) continue;
    if (h != "rest-length" && !(v[0] >= 0)) {
      error(c.children[1], h + " must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    (h == "stiffness" ? t.stiffness : h == "damping" ? t.damping : t.restLength) = v[0];
  }
  if (t.terms.empty()) error(n.children[0], "tendon '" + t.name + "' needs at least one (joint NAME COEF)");
  define(tendons_, "tendon", t.name, idx, src.name);
  model_.tendons.push_back(std::move(t));
  map_.tendons.push_back(std::move(src));
}

// (coupling NAME (joint JOINT COORDINATE?) (follows JOINT COORDINATE?)? (multiplier M)? (offset C)?):
// θ_JOINT = offset + multiplier · θ_follows (CouplingDesc); without (follows …), θ_JOINT = offset.
void Reader::readCoupling(const Node& n, bool generated) {
  CouplingDesc c;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, c.name, src.name, "a name and a joint, e.g. (coupling mimic (joint finger2) (follows finger1))"))
    return;
  const int idx = int(model_.couplings.size());
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"joint", "follows", "multiplier", "offset"};
  for (; i < n.children.size(); ++i) {
    const Node& e = n.children[i];
    if (!e.isList() || e.head().empty()) {
      error(e, "expected a coupling property such as (joint NAME), got " + sexpr::describeNode(e));
      continue;
    }
    const std::string& h = e.head();
    if (!contains(items, h)) {
      error(e.children[0], "unknown coupling property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, e, "coupling '" + c.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "joint" || h == "follows") {
      // (joint NAME COORDINATE?): coordinate COORDINATE (default 0) of joint NAME.
      if (e.children.size() < 2 || e.children.size() > 3 || !(e.children[1].isSymbol() || e.children[1].isString())) {
        error(e, "(" + h + " NAME COORDINATE?) takes a joint name and optionally a coordinate");
        continue;
      }
      const Node& jn = e.children[1];
      ps.values.push_back(ref(jn));
      double coord = 0;
      if (e.children.size() == 3) {
        if (!eval(e.children[2], coord)) continue;
        if (coord != std::floor(coord) || coord < 0 || coord > 5) {
          error(e.children[2], "the coordinate is a free-coordinate index from 0 to 5 (got " + num(coord) + ")");
          continue;
        }
      }
      const bool own = h == "joint";
      (own ? c.coordinate : c.referenceCoordinate) = int(coord);
      if (!own) c.reference = 0;  // resolved by name
      fixups_.push_back({own ? Fixup::Slot::CouplingJoint : Fixup::Slot::CouplingReference, idx, jn.text, ref(jn), size_t(coord)});
      continue;
    }
    std::vector<double> v;
    if (!numbers(e, 1, 1, 1, v, &ps)) continue;
    (h == "multiplier" ? c.multiplier : c.offset) = v[0];
  }
  if (!seen.count("joint")) error(n.children[0], "coupling '" + c.name + "' needs (joint NAME): the coordinate it drives");
  define(couplings_, "coupling", c.name, idx, src.name);
  model_.couplings.push_back(std::move(c));
  map_.couplings.push_back(std::move(src));
}

// (actuator JOINT-OR-TENDON (effort NUM+) (gear NUM)? (control-range LO HI)? (force-range LO HI)?)
void Reader::readActuator(const Node& n, bool generated) {
  ActuatorDesc a;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  std::string joint;
  SourceRef jointRef;
  if (!readName(n, i, joint, jointRef, "a joint name and an (effort ...)")) return;
  src.name = jointRef;
  src.properties["joint"].form = jointRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"effort", "gear", "control-range", "force-range"};
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected (effort ...), got " + sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    if (!contains(items, h)) {
      error(c.children[0], "unknown actuator property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, c, "the actuator")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "effort") {
      numbers(c, 1, 1, size_t(-1), a.effort, &ps);
      continue;
    }
    std::vector<double> v;
    if (h == "gear") {
      if (!numbers(c, 1, 1, 1, v, &ps)) continue;
      if (!(v[0] != 0)) error(c.children[1], "gear must not be zero");
      else a.gear = v[0];
      continue;
    }
    // A range: lower ≤ upper (inf and -inf allowed).
    if (!numbers(c, 1, 2, 2, v, &ps)) continue;
    if (!(v[0] <= v[1])) {
      error(c, "(" + h + " LOWER UPPER) needs lower <= upper (got " + num(v[0]) + " " + num(v[1]) + ")");
      continue;
    }
    (h == "control-range" ? a.controlLower : a.forceLower) = v[0];
    (h == "control-range" ? a.controlUpper : a.forceUpper) = v[1];
  }
  if (!seen.count("effort")) {
    error(n.children[0], "(actuator ...) needs an (effort ...)");
    return;
  }
  const int idx = int(model_.actuators.size());
  fixups_.push_back({Fixup::Slot::ActuatorJoint, idx, joint, jointRef, a.effort.size()});
  model_.actuators.push_back(a);
  map_.actuators.push_back(std::move(src));
}

// (pd-controller NAME JOINT (kp …) (kd …) (coordinate …)? (target NUM (sin A F P?)?)? (effort-limit …)?)
void Reader::readController(const Node& n, bool generated) {
  ControllerDesc c;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  if (!readName(n, i, c.name, src.name, "a name and a joint, e.g. (pd-controller hold elbow (kp 10) (kd 1))")) return;
  std::string joint;
  SourceRef jointRef;
  if (!readName(n, i, joint, jointRef, "a joint after its name")) return;
  src.properties["joint"].form = jointRef;
  std::map<std::string, SourceRef> seen;
  static const std::vector<std::string> items = {"kp", "kd", "coordinate", "target", "effort-limit"};
  for (; i < n.children.size(); ++i) {
    const Node& p = n.children[i];
    if (!p.isList() || p.head().empty()) {
      error(p, "expected a controller property such as (kp ...), got " + sexpr::describeNode(p));
      continue;
    }
    const std::string& h = p.head();
    if (!contains(items, h)) {
      error(p.children[0], "unknown controller property '" + h + "'" + suggestion(h, items));
      continue;
    }
    if (duplicate(seen, h, p, "controller '" + c.name + "'")) continue;
    PropertySource& ps = src.properties[h];
    if (h == "target") {
      // (target OFFSET (sin AMPLITUDE FREQUENCY PHASE?)?)
      ps.form = ref(p);
      if (p.children.size() < 2 || p.children.size() > 3) {
        error(p, "(target ...) takes an offset and optionally (sin amplitude frequency phase?)");
        continue;
      }
      ps.values.push_back(ref(p.children[1]));
      if (!eval(p.children[1], c.offset)) continue;
      if (p.children.size() == 3) {
        const Node& s = p.children[2];
        if (!s.isList() || s.head() != "sin") {
          error(s, "expected (sin amplitude frequency phase?) after the target offset, got " + sexpr::describeNode(s));
          continue;
        }
        std::vector<double> v;
        PropertySource sinSrc;
        if (!numbers(s, 1, 2, 3, v, &sinSrc)) continue;
        for (const SourceRef& r : sinSrc.values) ps.values.push_back(r);
        c.amplitude = v[0];
        c.frequency = v[1];
        c.phase = v.size() == 3 ? v[2] : 0.0;
      }
      continue;
    }
    std::vector<double> v;
    if (!numbers(p, 1, 1, 1, v, &ps)) continue;
    if (h == "coordinate") {
      if (v[0] != std::floor(v[0]) || v[0] < 0 || v[0] > 5) {
        error(p.children[1], "(coordinate ...) is a free-coordinate index from 0 to 5 (got " + num(v[0]) + ")");
        continue;
      }
      c.coordinate = int(v[0]);
      continue;
    }
    if (!(v[0] >= 0)) {
      error(p.children[1], h + " must not be negative (got " + num(v[0]) + ")");
      continue;
    }
    (h == "kp" ? c.kp : h == "kd" ? c.kd : c.effortLimit) = v[0];
  }
  if (!seen.count("kp")) error(n.children[0], "controller '" + c.name + "' needs a (kp ...)");
  if (!seen.count("kd")) error(n.children[0], "controller '" + c.name + "' needs a (kd ...)");
  const int idx = int(model_.controllers.size());
  define(controllers_, "controller", c.name, idx, src.name);
  fixups_.push_back({Fixup::Slot::ControllerJoint, idx, joint, jointRef});
  model_.controllers.push_back(c);
  map_.controllers.push_back(std::move(src));
}

// (wrench BODY (force …)? (torque …)?)
void Reader::readWrench(const Node& n, bool generated) {
  WrenchDesc w;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  size_t i = 1;
  std::string body;
  SourceRef bodyRef;
  if (!readName(n, i, body, bodyRef, "a body, e.g. (wrench box (force 0 0 1))")) return;
  src.name = bodyRef;
  src.properties["body"].form = bodyRef;
  std::map<std::string, SourceRef> seen;
  for (; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || (c.head() != "force" && c.head() != "torque")) {
      if (c.isList() && !c.head().empty())
        error(c.children[0], "unknown wrench property '" + c.head() + "'" + suggestion(c.head(), {"force", "torque"}));
      else
        error(c, "expected (force ...) or (torque ...), got " + sexpr::describeNode(c));
      continue;
    }
    if (duplicate(seen, c.head(), c, "the wrench")) continue;
    Vec3 x;
    if (vec3(c, x, &src.properties[c.head()])) (c.head() == "force" ? w.force : w.torque) = x;
  }
  const int idx = int(model_.wrenches.size());
  fixups_.push_back({Fixup::Slot::WrenchBody, idx, body, bodyRef});
  model_.wrenches.push_back(w);
  map_.wrenches.push_back(std::move(src));
}

}  // namespace ms::mechread
