// SPDX-License-Identifier: GPL-3.0-or-later
// Our scene → the engine-neutral description of peer_scene.h: poses from our initial state
// (system/initial_conditions.h), the spanning tree from model/joint_tree.h (the same tree the MJCF
// writer nests the bodies along), world anchors and axes of the joints at the initial pose.
#include "peer_scene.h"

#include <cmath>
#include <functional>

#include "core/check.h"
#include "core/quaternion.h"
#include "model/joint_tree.h"
#include "scenes/scenes.h"
#include "system/initial_conditions.h"

namespace peers {
namespace {

// A tilted ground (box-incline): the whole scene turned so that the ground is z = 0 with normal +z,
// gravity turned with it — the same physics in the frame of the peers' ground planes (and of the
// sweep's height measures). Joints hanging from the world would need their world anchors and offsets
// turned too: such scenes are refused instead.
void levelGround(ms::Model& model, const std::function<void(const std::string&)>& refuse) {
  ms::GroundDesc& g = model.grounds[0];
  const Vec3 n = g.normal.normalized();
  if (g.point.norm() == 0 && (n - Vec3::UnitZ()).norm() <= 1e-15) return;
  for (const ms::JointDesc& j : model.joints)
    if (j.parent < 0) {
      refuse("a tilted ground with joints to the world");
      return;
    }
  // The rotation taking n to +z (about n × z by the angle between them).
  const Vec3 axis = n.cross(Vec3::UnitZ());
  const double angle = std::atan2(axis.norm(), n.z());
  const Vec4 turn = axis.norm() > 0 ? ms::quat::fromRotationVector(axis.normalized() * angle) : ms::quat::identity();
  const Vec3 origin = g.point;
  for (ms::BodyDesc& b : model.bodies) {
    b.position = ms::quat::rotate(turn, b.position - origin);
    b.orientation = ms::quat::mul(turn, b.orientation.normalized());
  }
  model.gravity = ms::quat::rotate(turn, model.gravity);
  g.point = Vec3::Zero();
  g.normal = Vec3::UnitZ();
}

}  // namespace

PeerScene makePeerScene(const std::string& caseName, const std::string& scene,
                        const std::map<std::string, std::string>& params, double dt) {
  ms::Model model = ms::buildScene(scene, params);
  model.solver.dt = dt;
  std::string why;
  auto refuse = [&](const std::string& r) { why += (why.empty() ? "" : "; ") + r; };
  if (model.grounds.size() == 1) levelGround(model, refuse);
  PeerScene s;
  s.caseName = caseName;
  s.sceneName = scene;
  s.params = params;
  s.dt = dt;
  s.gravity = model.gravity;
  s.sys = ms::compile(model);
  const ms::State st = ms::makeInitialState(*s.sys, s.sys->model);

  if (!model.springs.empty() || !model.actuators.empty() || !model.controllers.empty() || !model.wrenches.empty() ||
      !model.contactPairs.empty())
    refuse("force elements or contact pairs");
  if (model.grounds.size() > 1) refuse("more than one ground");
  if (model.grounds.size() == 1) {
    const ms::GroundDesc& g = model.grounds[0];
    // The ground's own friction only where every body has that friction (box-incline).
    bool sameFriction = true;
    for (const ms::BodyDesc& b : model.bodies) sameFriction = sameFriction && b.friction == g.friction;
    if (g.point.norm() != 0 || (g.normal.normalized() - Vec3::UnitZ()).norm() > 1e-15 || (g.friction >= 0 && !sameFriction))
      refuse("a ground other than a plane with the bodies' friction");
    s.ground = true;
  }

  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const ms::BodyDesc& b = model.bodies[i];
    const ms::BodyState& bs = st.bodies[i];
    if (bs.v.norm() != 0 || bs.w.norm() != 0) refuse("body '" + b.name + "' starts moving");
    PeerBody pb;
    pb.name = b.name;
    pb.mass = b.mass;
    pb.inertia = b.inertia;
    pb.x = bs.x;
    pb.q = bs.q.normalized();
    pb.friction = b.friction;
    if (s.ground) {
      for (const ms::ShapeDesc& c : b.collisions) {
        PeerShape sh;
        if (c.kind == ms::ShapeDesc::Kind::Sphere) sh.kind = PeerShape::Kind::Sphere;
        else if (c.kind == ms::ShapeDesc::Kind::Box) sh.kind = PeerShape::Kind::Box;
        else {
          refuse("body '" + b.name + "' has a contact shape other than a sphere or a box");
          continue;
        }
        sh.size = c.size;
        sh.position = c.position;
        sh.orientation = c.orientation.normalized();
        pb.shapes.push_back(sh);
      }
    }
    s.bodies.push_back(pb);
  }

  const ms::JointTree tree = ms::buildJointTree(model);
  std::vector<int> order = tree.treeJoints;
  order.insert(order.end(), tree.loopJoints.begin(), tree.loopJoints.end());
  s.treeParentJoint.assign(model.bodies.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) {
    const ms::JointDesc& j = model.joints[size_t(order[k])];
    if (j.type != ms::JointType::Revolute && j.type != ms::JointType::Spherical) {
      refuse("joint '" + j.name + "' is neither revolute nor spherical");
      continue;
    }
    if (!j.stiffness.empty() || !j.damping.empty() || !j.lowerLimit.empty() || !j.upperLimit.empty())
      refuse("joint '" + j.name + "' has springs, dampers or limits");
    PeerJoint pj;
    pj.name = j.name;
    pj.type = j.type == ms::JointType::Revolute ? PeerJoint::Type::Revolute : PeerJoint::Type::Spherical;
    pj.parent = j.parent;
    pj.child = j.child;
    pj.loop = k >= tree.treeJoints.size();
    // Anchor: the child's point p_b at the initial pose (the parent's p_a coincides to the
    // projection's accuracy). Axis: V3 in the joint frame = parent frame rotated by q_off.
    const ms::BodyState& c = st.bodies[size_t(j.child)];
    pj.anchor = c.x + ms::quat::rotate(c.q, j.childAnchor);
    const Vec4 qParent = j.parent >= 0 ? Vec4(st.bodies[size_t(j.parent)].q) : ms::quat::identity();
    pj.axis = ms::quat::rotate(ms::quat::mul(qParent, j.offset.normalized()), j.axis.normalized());
    if (!pj.loop) s.treeParentJoint[size_t(j.child)] = int(s.joints.size());
    s.joints.push_back(pj);
  }
  if (!why.empty()) throw ms::UserError("scene '" + scene + "' cannot be given to the peers: " + why);
  return s;
}

}  // namespace peers
