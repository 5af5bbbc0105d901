// SPDX-License-Identifier: GPL-3.0-or-later
// DART (Debian's libdart-dev 6.12) in the peer benchmark: one Skeleton in generalized coordinates
// (Featherstone's articulated-body dynamics) per scene. Each body node's frame is our centre-of-mass
// frame with our mass and inertia tensor; a tree joint (RevoluteJoint, BallJoint) has its joint
// frame at our anchor with the child's orientation, placed so that the initial pose is the joints'
// zero position; bodies without a tree joint get a FreeJoint. The loop-closing joint is a
// BallJointConstraint (DART's only joint constraint between two bodies or a body and the world; the
// planar tree already removes the rotations a hinge would). Contact scenes: our spheres and boxes
// as SphereShape/BoxShape with friction coefficient μ, the ground a fixed 40 × 40 × 1 m box whose
// top face is z = 0 (friction the same μ: DART combines two coefficients by their minimum), no
// self-collision (as in our engine, bodies touch only the ground). Everything else is DART's
// default: World::step (semi-implicit Euler), the boxed-LCP constraint solver (Dantzig, PGS as its
// fallback), FCL collision detection, constraint ERP and CFM as compiled in.
// Single headers: dart/dart.hpp pulls in IkFast.hpp, whose ikfast.h Debian does not ship.
#include <dart/collision/fcl/FCLCollisionDetector.hpp>
#include <dart/config.hpp>
#include <dart/constraint/BallJointConstraint.hpp>
#include <dart/constraint/BoxedLcpConstraintSolver.hpp>
#include <dart/constraint/BoxedLcpSolver.hpp>
#include <dart/dynamics/BallJoint.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/dynamics/WeldJoint.hpp>
#include <dart/simulation/World.hpp>

#include <cmath>
#include <string>

#include "core/quaternion.h"
#include "peer_runner.h"

namespace peers {
namespace {

using namespace dart;

Eigen::Isometry3d isometry(const Vec3& x, const Vec4& q) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = ms::quat::rotation(q);
  T.translation() = x;
  return T;
}

constexpr double kGroundHalfWidth = 20, kGroundThickness = 1;

class DartInstance : public PeerInstance {
 public:
  explicit DartInstance(const PeerScene& s) {
    world_ = simulation::World::create("peers");
    world_->setGravity(s.gravity);
    world_->setTimeStep(s.dt);
    auto skel = dynamics::Skeleton::create("mechanism");
    nodes_.assign(s.bodies.size(), nullptr);
    // The body closing a loop (the loop joint's child): its revolute tree joint becomes a ball joint
    // (see the top of this file).
    std::vector<char> ballInstead(s.bodies.size(), 0);
    for (const PeerJoint& j : s.joints)
      if (j.loop && s.treeParentJoint[size_t(j.child)] >= 0) ballInstead[size_t(j.child)] = 1;
    // Bodies in the order of the tree (parents first), free bodies first.
    auto addBody = [&](int i, const PeerJoint* j) {
      const PeerBody& b = s.bodies[size_t(i)];
      const Eigen::Isometry3d T_WC = isometry(b.x, b.q);
      dynamics::BodyNode::Properties bp;
      bp.mName = b.name;
      bp.mInertia = dynamics::Inertia(b.mass, Eigen::Vector3d::Zero(), b.inertia);
      dynamics::BodyNode* parentNode = j && j->parent >= 0 ? nodes_[size_t(j->parent)] : nullptr;
      dynamics::BodyNode* node = nullptr;
      if (!j) {
        dynamics::FreeJoint::Properties jp;
        jp.mName = b.name + "_free";
        auto pair = skel->createJointAndBodyNodePair<dynamics::FreeJoint>(parentNode, jp, bp);
        node = pair.second;
        pair.first->setPositions(dynamics::FreeJoint::convertToPositions(T_WC));
      } else {
        // Joint frame at the anchor, oriented as the child: zero joint position = the initial pose.
        Eigen::Isometry3d T_CJ = Eigen::Isometry3d::Identity();
        T_CJ.translation() = T_WC.linear().transpose() * (j->anchor - b.x);
        const Eigen::Isometry3d T_WP =
            j->parent >= 0 ? isometry(s.bodies[size_t(j->parent)].x, s.bodies[size_t(j->parent)].q) : Eigen::Isometry3d::Identity();
        const Eigen::Isometry3d T_PJ = T_WP.inverse() * T_WC * T_CJ;
        if (j->type == PeerJoint::Type::Revolute && !ballInstead[size_t(i)]) {
          dynamics::RevoluteJoint::Properties jp;
          jp.mName = j->name;
          jp.mT_ParentBodyToJoint = T_PJ;
          jp.mT_ChildBodyToJoint = T_CJ;
          jp.mAxis = T_WC.linear().transpose() * j->axis;
          node = skel->createJointAndBodyNodePair<dynamics::RevoluteJoint>(parentNode, jp, bp).second;
        } else {
          dynamics::BallJoint::Properties jp;
          jp.mName = j->name;
          jp.mT_ParentBodyToJoint = T_PJ;
          jp.mT_ChildBodyToJoint = T_CJ;
          node = skel->createJointAndBodyNodePair<dynamics::BallJoint>(parentNode, jp, bp).second;
        }
      }
      for (const PeerShape& sh : b.shapes) {
        dynamics::ShapePtr shape;
        if (sh.kind == PeerShape::Kind::Sphere) shape = std::make_shared<dynamics::SphereShape>(sh.size.x());
        else shape = std::make_shared<dynamics::BoxShape>(sh.size);
        auto* sn = node->createShapeNodeWith<dynamics::CollisionAspect, dynamics::DynamicsAspect>(shape);
        sn->setRelativeTransform(isometry(sh.position, sh.orientation));
        sn->getDynamicsAspect()->setFrictionCoeff(b.friction);
      }
      nodes_[size_t(i)] = node;
    };
    for (size_t i = 0; i < s.bodies.size(); ++i)
      if (s.treeParentJoint[i] < 0) addBody(int(i), nullptr);
    for (const PeerJoint& j : s.joints)
      if (!j.loop) addBody(j.child, &j);
    world_->addSkeleton(skel);

    if (s.ground) {
      auto ground = dynamics::Skeleton::create("ground");
      auto* node = ground->createJointAndBodyNodePair<dynamics::WeldJoint>().second;
      auto shape = std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(2 * kGroundHalfWidth, 2 * kGroundHalfWidth, kGroundThickness));
      auto* sn = node->createShapeNodeWith<dynamics::CollisionAspect, dynamics::DynamicsAspect>(shape);
      sn->setRelativeTransform(isometry(Vec3(0, 0, -0.5 * kGroundThickness), ms::quat::identity()));
      double mu = 0;
      for (const PeerBody& b : s.bodies) mu = std::max(mu, b.friction);
      sn->getDynamicsAspect()->setFrictionCoeff(mu);  // DART takes the smaller of the two
      ground->setMobile(false);
      world_->addSkeleton(ground);
    }
    for (const PeerJoint& j : s.joints) {
      if (!j.loop) continue;
      std::shared_ptr<constraint::BallJointConstraint> c =
          j.parent >= 0 ? std::make_shared<constraint::BallJointConstraint>(nodes_[size_t(j.child)], nodes_[size_t(j.parent)], j.anchor)
                        : std::make_shared<constraint::BallJointConstraint>(nodes_[size_t(j.child)], j.anchor);
      world_->getConstraintSolver()->addConstraint(c);
    }
  }
  bool step() override {
    world_->step();
    return true;
  }
  void pose(int body, Vec3& x, Vec4& q) const override {
    const Eigen::Isometry3d& T = nodes_[size_t(body)]->getWorldTransform();
    x = T.translation();
    const Eigen::Quaterniond r(T.linear());
    q = Vec4(r.w(), r.x(), r.y(), r.z());
  }
  void velocity(int body, Vec3& v, Vec3& w) const override {
    v = nodes_[size_t(body)]->getCOMLinearVelocity();
    w = nodes_[size_t(body)]->getAngularVelocity();
  }

 private:
  simulation::WorldPtr world_;
  std::vector<dynamics::BodyNode*> nodes_;
};

std::string describeDefaults() {
  auto world = simulation::World::create();
  std::string d = "World::step (semi-implicit Euler)";
  auto* solver = world->getConstraintSolver();
  if (auto* lcp = dynamic_cast<constraint::BoxedLcpConstraintSolver*>(solver)) {
    d += ", BoxedLcpConstraintSolver: " + (lcp->getBoxedLcpSolver() ? lcp->getBoxedLcpSolver()->getType() : std::string("none"));
    d += " (secondary " + (lcp->getSecondaryBoxedLcpSolver() ? lcp->getSecondaryBoxedLcpSolver()->getType() : std::string("none")) + ")";
  }
  auto cd = solver->getCollisionDetector();
  d += ", collision " + cd->getType();
  if (auto fcl = std::dynamic_pointer_cast<collision::FCLCollisionDetector>(cd))
    d += fcl->getPrimitiveShapeType() == collision::FCLCollisionDetector::MESH ? " (primitives as meshes)" : " (analytic primitives)";
  return d;
}

}  // namespace

PeerEngine dartEngine() { return makePeerEngine<DartInstance>("dart", "DART " DART_VERSION, "semi-implicit euler", describeDefaults()); }

}  // namespace peers
