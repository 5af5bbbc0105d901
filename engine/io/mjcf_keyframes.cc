// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: <keyframe><key name qpos qvel> → keyframes (Model::keyframes, system/keyframe.h).
//
// MuJoCo's qpos and qvel list the joints in body order (the document's, depth first) and, within a
// body, in the order written:
//   free    7 qpos: the body frame's position and orientation (w x y z) in the world;
//           6 qvel: its linear velocity in the world, its angular velocity in the body frame;
//   ball    4 qpos: the body's rotation from its place in the parent (w x y z); 3 qvel: the angular
//           velocity in the body frame;
//   hinge, slide  1 and 1: the joint coordinate (MechStudio's is the same, ref included) and rate.
// A missing qpos is the model's (qpos0), a missing qvel zero. Each key becomes initial conditions of
// the model (system/keyframe.h InitialConditionsKeyframe: the joints' coordinates and rates, the
// free bodies' poses), which loadModel turns into a keyframe of the bodies' states (the importer
// describes; making a state is the compile step's). A ball's rate is turned into the rate of the
// engine's rotation-vector coordinate that reaches the same orientation one time step later (the
// knot of the discrete velocity).
// A key's ctrl is not kept (keyframes are states; set-points and inputs stay the model's): a warning.
#include <cmath>
#include <set>
#include <string>

#include "core/check.h"
#include "core/quaternion.h"
#include "io/mjcf_internal.h"

namespace ms::mjcf_detail {

namespace {

int qposSize(const std::string& type) { return type == "free" ? 7 : type == "ball" ? 4 : 1; }
int qvelSize(const std::string& type) { return type == "free" ? 6 : type == "ball" ? 3 : 1; }

// Unit quaternion from four numbers (w x y z); false for a zero or non-finite one.
bool unitQuaternion(const double* v, Vec4& q) {
  q = Vec4(v[0], v[1], v[2], v[3]);
  const double n = q.norm();
  if (!(n > 1e-12) || !std::isfinite(n)) return false;
  q /= n;
  return true;
}

}  // namespace

void Importer::makeKeyframes() {
  // The joints in qpos order, and the model's own qpos (qpos0).
  std::vector<std::pair<int, const XJoint*>> order;  // (XBody, joint)
  int nq = 0, nv = 0;
  for (size_t i = 0; i < bodies_.size(); ++i)
    for (const XJoint& x : bodies_[i].joints) {
      order.push_back({int(i), &x});
      nq += qposSize(x.type);
      nv += qvelSize(x.type);
    }
  std::set<std::string> names;
  int index = 0;
  for (const XMLElement* kf = root_->FirstChildElement("keyframe"); kf; kf = kf->NextSiblingElement("keyframe")) {
    checkAttributes(kf);
    for (const XMLElement* k = kf->FirstChildElement(); k; k = k->NextSiblingElement(), ++index) {
      if (std::string(k->Name()) != "key") {
        unsupportedElement(k);
        continue;
      }
      checkAttributes(k);
      if (k->Attribute("ctrl"))
        warnOnce("key-ctrl", src_.attribute(k, "ctrl"),
                 "a key's ctrl is not kept: keyframes are states; actuator inputs and set-points stay the model's");
      std::string name = k->Attribute("name") ? k->Attribute("name") : "key" + std::to_string(index);
      if (!names.insert(name).second) {
        error(k, "name", "keyframe '" + name + "' is defined twice");
        continue;
      }
      Numbers qpos, qvel;
      if (const char* t = k->Attribute("qpos")) {
        qpos = numbers(k, "qpos", t, nq);
        if (!qpos.ok) continue;
      }
      if (const char* t = k->Attribute("qvel")) {
        qvel = numbers(k, "qvel", t, nv);
        if (!qvel.ok) continue;
      }
      // The key as initial conditions of the model.
      InitialConditionsKeyframe key;
      key.name = name;
      const Loc at = src_.element(k);
      key.file = src_.fileName(at.file);
      key.line = at.line;
      key.column = at.column;
      const double dt = model_.solver.dt;
      bool ok = true;
      int a = 0, v = 0;
      for (const auto& [xb, x] : order) {
        const double* p = qpos.v.empty() ? nullptr : qpos.v.data() + a;
        const double* w = qvel.v.empty() ? nullptr : qvel.v.data() + v;
        a += qposSize(x->type);
        v += qvelSize(x->type);
        if (x->type == "free") {
          const XBody& b = bodies_[size_t(xb)];
          Vec4 q = b.world.q;
          Vec3 origin = b.world.t;
          if (p) {
            origin = Vec3(p[0], p[1], p[2]);
            if (!unitQuaternion(p + 3, q)) {
              error(k, "qpos", "keyframe '" + name + "': the orientation of the free joint of body '" + b.name + "' is zero");
              ok = false;
              break;
            }
          }
          // The engine body is the centre of mass, in the body frame's orientation.
          InitialConditionsKeyframe::Body body;
          body.body = b.engine;
          const Mat3 R = quat::rotation(q);
          body.position = origin + R * b.hostCom;
          body.orientation = canonical(q);
          if (w) {
            body.angularVelocity = Vec3(w[3], w[4], w[5]);
            body.linearVelocity = Vec3(w[0], w[1], w[2]) + R * body.angularVelocity.cross(b.hostCom);
          }
          key.bodies.push_back(body);
          continue;
        }
        auto it = engineJointOf_.find(x->el);
        if (it == engineJointOf_.end()) continue;  // not imported (reported where it was read)
        InitialConditionsKeyframe::Joint joint;
        joint.joint = it->second;
        if (x->type == "ball") {
          Vec4 q = quat::identity();
          if (p && !unitQuaternion(p, q)) {
            error(k, "qpos", "keyframe '" + name + "': the rotation of ball joint '" + x->name + "' is zero");
            ok = false;
            break;
          }
          const Vec3 r = quat::toRotationVector(q);
          joint.position = {r.x(), r.y(), r.z()};
          if (w) {
            // The rotation-vector rate that reaches q ⊗ exp(ω Δt) one step later.
            const Vec3 r1 = quat::toRotationVector(quat::mul(q, quat::fromRotationVector(Vec3(w[0], w[1], w[2]) * dt)));
            const Vec3 rate = (r1 - r) / dt;
            joint.velocity = {rate.x(), rate.y(), rate.z()};
          }
        } else {
          joint.position = {p ? p[0] : x->ref};
          joint.velocity = {w ? w[0] : 0.0};
        }
        key.joints.push_back(std::move(joint));
      }
      if (ok) keys_.push_back(std::move(key));
    }
  }
}

}  // namespace ms::mjcf_detail
