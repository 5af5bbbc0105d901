// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: <equality> and <contact>. connect and weld become loop joints; exclude becomes a
// collision exclusion, pair a contact pair (or, with a worldbody plane, that ground's friction).
#include <algorithm>

#include "core/suggest.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

void Importer::makeEqualities() {
  std::set<std::string> used;
  for (const JointDesc& j : model_.joints) used.insert(j.name);
  struct Connect {
    const XMLElement* el;
    int b1, b2;
    Vec3 anchor;  // in body1's frame
    std::string name;
    const XSite* site2 = nullptr;  // site-based (MuJoCo 3): the point on body2, else where the anchor is at the start
  };
  std::vector<Connect> connects;
  for (const XMLElement* eq = root_->FirstChildElement("equality"); eq; eq = eq->NextSiblingElement("equality")) {
    for (const XMLElement* e = eq->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "joint") {
        jointEquality(e);
        continue;
      }
      if (tag != "connect" && tag != "weld") {
        unsupportedElement(e, "MechStudio has connect, weld and joint equalities");
        continue;
      }
      checkAttributes(e);
      const std::string cls = classOf(e, "main");
      if (!boolean(e, "active", cls, true)) {
        warning(e, "active", "an inactive equality is left out");
        continue;
      }
      int b1 = -1, b2 = -1;
      // MuJoCo's two ways: site1 and site2 (MuJoCo 3: the sites' points, or frames for a weld, are
      // brought together wherever they start), or body1 and body2 (an anchor or relpose at the start).
      const XSite *site1 = nullptr, *site2 = nullptr;
      if (e->Attribute("site1") || e->Attribute("site2")) {
        if (e->Attribute("body1") || e->Attribute("body2") || e->Attribute("anchor") || e->Attribute("relpose")) {
          error(e, e->Attribute("body1") ? "body1" : e->Attribute("body2") ? "body2" : e->Attribute("anchor") ? "anchor" : "relpose",
                "give either site1 and site2, or body1 and body2 with an anchor or relpose, not both");
          continue;
        }
        site1 = siteRef(e, "site1");
        site2 = siteRef(e, "site2");
        if (!site1 || !site2) continue;
        // The joint's child is a body: a site on the world is the parent's side.
        if (site1->body < 0) std::swap(site1, site2);
        if (site1->body < 0) {
          error(e, "site1 and site2 are both on the world: the constraint does nothing");
          continue;
        }
        b1 = site1->body;
        b2 = site2->body;
      } else {
        if (!bodyRef(e, "body1", false, b1) || !bodyRef(e, "body2", true, b2)) continue;
        if (b1 < 0) {
          error(e, "body1", "body1 may not be the world");
          continue;
        }
      }
      if (engineOf(b1) == engineOf(b2)) {
        error(e, std::string(site1 ? "the bodies of site1 and site2" : "body1 and body2") +
                     " are parts of one rigid body (welded by MJCF): the constraint does nothing");
        continue;
      }
      const std::string name = e->Attribute("name") ? e->Attribute("name") : "";
      if (tag == "connect") {
        Vec3 anchor = Vec3::Zero();
        if (site1) anchor = site1->rel.t;
        else if (!vec3(e, "anchor", cls, anchor)) {
          error(e, "a <connect> needs an anchor (or site1 and site2)");
          continue;
        }
        connects.push_back({e, b1, b2, anchor, name, site2});
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
      if (site1) {
        // The sites' frames held together: q_b1 s1 = q_b2 s2 (engine frames), so q_b2⁻¹ q_b1 = s2 s1⁻¹.
        const Pose f1 = siteInEngine(*site1), f2 = siteInEngine(*site2);
        j.childAnchor = f1.t;
        j.parentAnchor = f2.t;
        j.offset = canonical(quat::mul(f2.q, quat::conj(f1.q)).normalized());
        model_.joints.push_back(std::move(j));
        continue;
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
    // Site-based: site2's point; else the point of body2 where the anchor is at the start.
    j.parentAnchor = c.site2 ? inEngine(c.site2->body, c.site2->rel.t) : apply(inverse(w2e), apply(w1e, j.childAnchor));
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

// <equality><joint joint1 joint2 polycoef>: MuJoCo's y − y0 = a0 + a1 (x − x0) + a2 (x − x0)² + …
// with y, x the qpos of joint1 and joint2 and y0, x0 their qpos0 (the joints' ref; an engine joint's
// coordinate is its MJCF qpos, see engineJoint) → the coupling θ1 = (y0 + a0 − a1 x0) + a1 θ2, or
// θ1 = y0 + a0 without joint2. Held exactly (MuJoCo's is soft: solref/solimp are not represented).
void Importer::jointEquality(const XMLElement* e) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    const std::string n = a->Name();
    if (n != "name" && n != "class" && n != "joint1" && n != "joint2" && n != "polycoef" && n != "active")
      warnOnce("equality-joint/" + n, src_.attribute(e, a->Name()),
               "attribute '" + n + "' of an equality <joint> is not supported; ignored (the coupling is held exactly)");
  }
  const std::string cls = classOf(e, "main");
  if (!boolean(e, "active", cls, true)) {
    warning(e, "active", "an inactive equality is left out");
    return;
  }
  // An engine joint with one coordinate (hinge or slide) named by attribute a; its ref in ref.
  const auto joint = [&](const char* a, int& index, double& ref) {
    const char* n = e->Attribute(a);
    auto it = jointByName_.find(n);
    if (it == jointByName_.end()) {
      std::vector<std::string> names;
      for (const auto& kv : jointByName_) names.push_back(kv.first);
      error(e, a, std::string("unknown joint '") + n + "'" + suggestion(n, names));
      return false;
    }
    const JointDesc& d = model_.joints[size_t(it->second)];
    if (d.type != JointType::Revolute && d.type != JointType::Prismatic) {
      error(e, a, std::string("joint '") + n + "' is not a hinge or slide: a joint equality couples hinge angles and slide travels");
      return false;
    }
    index = it->second;
    for (const XBody& b : bodies_)
      for (const XJoint& x : b.joints)
        if (x.name == n) ref = x.ref;
    return true;
  };
  if (!e->Attribute("joint1")) {
    error(e, "an equality <joint> needs joint1");
    return;
  }
  CouplingDesc c;
  double y0 = 0, x0 = 0;
  if (!joint("joint1", c.joint, y0)) return;
  if (e->Attribute("joint2") && !joint("joint2", c.reference, x0)) return;
  double a[5] = {0, 1, 0, 0, 0};
  if (const char* p = e->Attribute("polycoef")) {
    Numbers n = numbers(e, "polycoef", p, 5);
    if (!n.ok) return;
    for (int k = 0; k < 5; ++k) a[k] = n.v[size_t(k)];
  }
  if (c.reference >= 0 && (a[2] != 0 || a[3] != 0 || a[4] != 0))
    warning(e, "polycoef", "only the linear part a0 + a1 (x − x0) of the polynomial is held (couplings are linear)");
  if (c.reference == c.joint) {
    error(e, "joint2", "joint1 and joint2 are the same joint");
    return;
  }
  c.multiplier = c.reference >= 0 ? a[1] : 1;
  c.offset = y0 + a[0] - (c.reference >= 0 ? a[1] * x0 : 0);
  c.name = e->Attribute("name") ? e->Attribute("name") : model_.joints[size_t(c.joint)].name + "_equality";
  for (const CouplingDesc& o : model_.couplings)
    if (o.joint == c.joint) {
      error(e, "joint1", "joint '" + model_.joints[size_t(c.joint)].name + "' is already coupled by equality '" + o.name +
                             "': MechStudio holds one coupling per joint");
      return;
    }
  model_.couplings.push_back(std::move(c));
}

void Importer::makeContacts() {
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

}  // namespace ms::mjcf_detail
