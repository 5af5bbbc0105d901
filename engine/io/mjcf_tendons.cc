// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: <tendon><fixed> → fixed tendons (model.h TendonDesc). A fixed tendon's length is
// Σ coef · qpos over its <joint joint coef> terms (hinge and slide joints; each keeps its own engine
// joint, since a tendon names them), with MuJoCo's stiffness and damping and its springlength (when
// not given, or negative, MuJoCo's length at qpos_spring: Σ coef · springref). Actuators may act on it
// (mjcf_actuators.cc). Spatial tendons (through sites), a tendon's range (limits), frictionloss and
// margin are not represented (warnings at their line:column).
#include "core/suggest.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

void Importer::makeTendons() {
  int index = 0;
  for (const XMLElement* tendons = root_->FirstChildElement("tendon"); tendons; tendons = tendons->NextSiblingElement("tendon")) {
    checkAttributes(tendons);
    for (const XMLElement* e = tendons->FirstChildElement(); e; e = e->NextSiblingElement(), ++index) {
      const std::string tag = e->Name();
      if (tag == "spatial") {
        unsupportedElement(e, "spatial tendons run through sites; MechStudio's fixed tendons and springs between bodies are what it has");
        continue;
      }
      if (tag != "fixed") {
        unsupportedElement(e);
        continue;
      }
      checkAttributes(e);
      const std::string cls = classOf(e, "main");
      // An attribute of the <fixed>, else of its class's <tendon> defaults.
      const auto value = [&](const char* name) -> const char* {
        if (const char* v = e->Attribute(name)) return v;
        auto c = classes_.find(cls);
        if (c == classes_.end()) return nullptr;
        auto t = c->second.find("tendon");
        if (t == c->second.end()) return nullptr;
        auto a = t->second.find(name);
        return a == t->second.end() ? nullptr : a->second.c_str();
      };
      const auto scalar = [&](const char* name, double& out) {
        if (const char* t = value(name)) {
          Numbers n = numbers(e, name, t, 1);
          if (n.ok) out = n.v[0];
        }
      };
      TendonDesc t;
      t.name = e->Attribute("name") ? e->Attribute("name") : "tendon" + std::to_string(index);
      if (tendonByName_.count(t.name)) {
        error(e, "name", "tendon '" + t.name + "' is defined twice");
        continue;
      }
      scalar("stiffness", t.stiffness);
      scalar("damping", t.damping);
      if (t.stiffness < 0 || t.damping < 0) error(e, "a tendon's stiffness and damping must not be negative");
      double springLength = -1;
      scalar("springlength", springLength);
      if (value("range") && boolean(e, "limited", cls, autolimits_))
        warnOnce("tendon-range", src_.attribute(e, e->Attribute("range") ? "range" : "limited"),
                 "tendon limits (range) are not supported: the tendon's length is not limited");
      // The terms, and the length at qpos0.
      double length0 = 0;  // at qpos_spring
      bool ok = true;
      for (const XMLElement* j = e->FirstChildElement(); j; j = j->NextSiblingElement()) {
        if (std::string(j->Name()) != "joint") {
          unsupportedElement(j, "a fixed tendon lists <joint>s");
          continue;
        }
        // (Not the body joint's attributes: a tendon's <joint> has joint and coef.)
        for (const tinyxml2::XMLAttribute* a = j->FirstAttribute(); a; a = a->Next())
          if (std::string(a->Name()) != "joint" && std::string(a->Name()) != "coef")
            warnOnce(std::string("tendon-joint/") + a->Name(), src_.attribute(j, a->Name()),
                     std::string("attribute '") + a->Name() + "' of a tendon's <joint> is not supported; ignored");
        const char* jn = j->Attribute("joint");
        const char* coef = j->Attribute("coef");
        if (!jn || !coef) {
          error(j, "a tendon's <joint> needs joint and coef");
          ok = false;
          continue;
        }
        auto it = jointByName_.find(jn);
        if (it == jointByName_.end()) {
          std::vector<std::string> names;
          for (const auto& kv : jointByName_) names.push_back(kv.first);
          error(j, "joint", std::string("unknown joint '") + jn + "'" + suggestion(jn, names));
          ok = false;
          continue;
        }
        const JointDesc& d = model_.joints[size_t(it->second)];
        if (d.type != JointType::Revolute && d.type != JointType::Prismatic) {
          error(j, "joint", std::string("joint '") + jn + "' is not a hinge or slide: a fixed tendon sums hinge angles and slide travels");
          ok = false;
          continue;
        }
        Numbers n = numbers(j, "coef", coef, 1);
        if (!n.ok) {
          ok = false;
          continue;
        }
        t.terms.push_back({it->second, 0, n.v[0]});
        // MuJoCo's qpos_spring: the joint's springref.
        double springref = 0;
        for (const XBody& b : bodies_)
          for (const XJoint& x : b.joints)
            if (x.name == jn) springref = x.springref;
        length0 += n.v[0] * springref;
      }
      if (!ok) continue;
      if (t.terms.empty()) {
        error(e, "tendon '" + t.name + "' lists no <joint>");
        continue;
      }
      t.restLength = springLength >= 0 ? springLength : length0;
      tendonByName_[t.name] = int(model_.tendons.size());
      model_.tendons.push_back(std::move(t));
    }
  }
}

}  // namespace ms::mjcf_detail
