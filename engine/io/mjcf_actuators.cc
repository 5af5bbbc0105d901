// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: <actuator>. <motor joint> → an actuator (input ctrl, with gear, ctrlrange and
// forcerange), <position joint kp kv> and a <general> PD servo → a PD controller, on hinge and slide
// joints.
#include <algorithm>
#include <cmath>

#include "core/suggest.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

// What a <general> actuator is, with MuJoCo's defaults (gaintype fixed, gainprm 1, biastype none,
// biasprm 0): a motor (fixed gain, no bias: force = gain · ctrl) or a PD servo (what <position kp
// kv> stands for: fixed gain kp, affine bias 0 − kp q − kv q̇); gain and kv set. Other.
Importer::GeneralKind Importer::generalKind(const XMLElement* e, const std::string& cls, double& gain, double& kv) {
  const char* gt = attr(e, "gaintype", cls);
  const char* bt = attr(e, "biastype", cls);
  const char* gp = attr(e, "gainprm", cls);
  const char* bp = attr(e, "biasprm", cls);
  if (gt && std::string(gt) != "fixed") return GeneralKind::Other;
  std::istringstream g(gp ? gp : "1"), b(bp ? bp : "0 0 0");
  gain = 1;
  double b0 = 0, b1 = 0, b2 = 0;
  if (!(g >> gain)) return GeneralKind::Other;
  b >> b0 >> b1 >> b2;
  const std::string bias = bt ? bt : "none";
  if (bias == "none") return GeneralKind::Motor;
  kv = -b2;
  return bias == "affine" && b0 == 0 && b1 == -gain && kv >= 0 ? GeneralKind::Pd : GeneralKind::Other;
}

void Importer::makeActuators() {
  for (const XMLElement* ac = root_->FirstChildElement("actuator"); ac; ac = ac->NextSiblingElement("actuator")) {
    for (const XMLElement* e = ac->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag != "motor" && tag != "position" && tag != "general") {
        unsupportedElement(e, "MechStudio has motors (efforts) and position (PD) actuators");
        continue;
      }
      const std::string cls = classOf(e, "main");
      double generalGain = 1, generalKv = 0;
      const GeneralKind general = tag == "general" ? generalKind(e, cls, generalGain, generalKv) : GeneralKind::Other;
      if (tag == "general" && general == GeneralKind::Other) {
        unsupportedElement(e, "a <general> actuator is read as a motor (gaintype fixed, biastype none) or a PD "
                              "servo (gaintype fixed, biastype affine, biasprm 0 -kp -kv)");
        continue;
      }
      if (const char* d = attr(e, "dyntype", cls); d && std::string(d) != "none")
        warnOnce("actuator-dyntype", src_.attribute(e, "dyntype"),
                 std::string("dyntype '") + d + "' (actuator activation dynamics) is not supported: the control acts at once");
      checkAttributes(e);
      const char* jn = attr(e, "joint", cls);
      const char* tn = jn ? nullptr : attr(e, "tendon", cls);
      if (!jn && !tn) {
        warnOnce("actuator-transmission", src_.element(e),
                 "actuators on sites or bodies are not supported (MechStudio's act on joints and fixed tendons); left out");
        continue;
      }
      int tendon = -1;
      if (tn) {
        auto t = tendonByName_.find(tn);
        if (t == tendonByName_.end()) {
          warning(e, "tendon", std::string("tendon '") + tn + "' is not imported (unknown, or not a fixed tendon): the actuator is left out");
          continue;
        }
        tendon = t->second;
        if (tag == "position" || general == GeneralKind::Pd) {
          warnOnce("tendon-servo", src_.element(e), "position servos on tendons are not supported (motors are); left out");
          continue;
        }
      }
      if (jn && combinedJoints_.count(jn)) {
        error(e, "joint", std::string("joint '") + jn + "' is one of several joints of a body, combined into '" +
                              combinedJoints_[jn] + "': it cannot be actuated alone");
        continue;
      }
      auto it = jn ? jointByName_.find(jn) : jointByName_.end();
      if (jn && it == jointByName_.end()) {
        std::vector<std::string> names;
        for (const auto& kv : jointByName_) names.push_back(kv.first);
        error(e, "joint", std::string("unknown joint '") + jn + "'" + suggestion(jn, names) +
                              " (free joints cannot be actuated here)");
        continue;
      }
      const int joint = jn ? it->second : 0;
      const JointType t = jn ? model_.joints[size_t(joint)].type : JointType::Prismatic;
      double gear = 1;
      if (const char* g = attr(e, "gear", cls)) {
        Numbers n = numbers(e, "gear", g, -6);
        if (n.ok) gear = n.v[0];
        for (size_t k = 1; n.ok && k < n.v.size(); ++k)
          if (n.v[k] != 0) warning(e, "gear", "gear components after the first act on a joint's other directions: not used");
        if (n.ok && gear == 0) {
          warning(e, "gear", "gear 0: the actuator has no effect; left out");
          continue;
        }
      }
      // ctrlrange and forcerange, when limited (ctrllimited/forcelimited, auto: when given).
      const auto range = [&](const char* name, const char* limited, double& lo, double& hi) {
        const char* r = attr(e, name, cls);
        if (!r || !boolean(e, limited, cls, autolimits_)) return;
        Numbers n = numbers(e, name, r, 2);
        if (!n.ok) return;
        if (!(n.v[0] <= n.v[1])) {
          error(e, name, std::string(name) + " must be lower <= upper (got " + num(n.v[0]) + " " + num(n.v[1]) + ")");
          return;
        }
        lo = n.v[0], hi = n.v[1];
      };
      double ctrlLo = -kInf, ctrlHi = kInf, forceLo = -kInf, forceHi = kInf;
      range("ctrlrange", "ctrllimited", ctrlLo, ctrlHi);
      range("forcerange", "forcelimited", forceLo, forceHi);
      const std::string name = e->Attribute("name") ? e->Attribute("name") : std::string(jn ? jn : tn) + "_" + tag;
      if (tag == "motor" || general == GeneralKind::Motor) {
        // MuJoCo: joint effort = gear · clamp(gain · clamp(ctrl, ctrlrange), forcerange) (gain 1 for a
        // motor) = gear·gain · clamp(clamp(ctrl, ctrlrange), forcerange / gain) for gain > 0.
        if (!(generalGain > 0)) {
          warning(e, "gainprm", "a motor gain that is not positive: the actuator is left out");
          continue;
        }
        ActuatorDesc a;
        a.joint = joint;
        a.tendon = tendon;
        a.effort = {0.0};
        if (t == JointType::Spherical) a.effort = {0.0, 0.0, 0.0};
        a.gear = gear * generalGain;
        a.controlLower = ctrlLo, a.controlUpper = ctrlHi;
        a.forceLower = forceLo / generalGain, a.forceUpper = forceHi / generalGain;
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
        c.kp = generalGain;
        c.kd = generalKv;
      } else {
        number(e, "kp", cls, c.kp);
        number(e, "kv", cls, c.kd);
      }
      // MuJoCo's servo: force kp (ctrl − gear q) − kv gear q̇ on the actuator, gear × it on the joint:
      // a PD controller with gains gear² kp, gear² kv about the set-point ctrl / gear (ctrl 0, clamped
      // to ctrlrange), its effort limited by |gear| × forcerange.
      c.kp *= gear * gear, c.kd *= gear * gear;
      c.offset = std::clamp(0.0, ctrlLo, ctrlHi) / gear;
      if (forceLo > -kInf || forceHi < kInf) {
        c.effortLimit = std::abs(gear) * std::max(std::abs(forceLo), std::abs(forceHi));
        if (forceLo != -forceHi)
          warning(e, "forcerange", "an asymmetric forcerange is applied as ±" + num(c.effortLimit / std::abs(gear)));
      }
      if (c.kp < 0 || c.kd < 0) error(e, "kp and kv must not be negative");
      controllerByName_[name] = int(model_.controllers.size());
      model_.controllers.push_back(std::move(c));
    }
  }
}

}  // namespace ms::mjcf_detail
