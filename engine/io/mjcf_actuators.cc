// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: <actuator>. <motor joint> → an actuator (effort), <position joint kp kv> and a
// <general> PD servo → a PD controller, on hinge and slide joints.
#include <algorithm>
#include <cmath>

#include "core/suggest.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

// A <general> actuator that is a PD servo (what <position kp kv> stands for): fixed gain kp, affine
// bias 0 − kp q − kv q̇.
bool Importer::generalIsPd(const XMLElement* e, const std::string& cls) {
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

void Importer::makeActuators() {
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

}  // namespace ms::mjcf_detail
