// SPDX-License-Identifier: GPL-3.0-or-later
// The scenes of the peer benchmark (mechstudio-peers, issue 14) in a form every engine can build
// from: bodies with mass, inertia about the centre of mass and their initial world poses (as our
// engine places them), joints with world anchors and world axes at that pose, the spanning tree and
// the joints that close loops, the contact shapes and the ground. All of it is taken from our own
// scene (engine/scenes/scenes.cc) and our initial state, so every runner starts from the same
// numbers; peers convert them to their own conventions (generalized or maximal coordinates).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/StdVector>

#include "core/types.h"
#include "model/model.h"
#include "system/compiled_system.h"

namespace peers {

using ms::Mat3;
using ms::Vec3;
using ms::Vec4;

struct PeerShape {
  enum class Kind { Sphere, Box };
  Kind kind = Kind::Sphere;
  Vec3 size = Vec3::Zero();  // sphere: (radius, ·, ·); box: full edge lengths
  Vec3 position = Vec3::Zero();        // in the body (centre-of-mass) frame
  Vec4 orientation = Vec4(1, 0, 0, 0); // [w, x, y, z], in the body frame
  EIGEN_MAKE_ALIGNED_OPERATOR_NEW
};

struct PeerBody {
  std::string name;
  double mass = 1;
  Mat3 inertia = Mat3::Identity();     // about the centre of mass, body frame
  Vec3 x = Vec3::Zero();               // initial centre of mass (world)
  Vec4 q = Vec4(1, 0, 0, 0);           // initial orientation, body → world, [w, x, y, z]
  double friction = 0.5;               // Coulomb coefficient against the ground
  std::vector<PeerShape, Eigen::aligned_allocator<PeerShape>> shapes;  // contact shapes (contact scenes only)
  EIGEN_MAKE_ALIGNED_OPERATOR_NEW
};

struct PeerJoint {
  enum class Type { Revolute, Spherical };
  std::string name;
  Type type = Type::Revolute;
  int parent = -1;                     // body index, -1 = the world
  int child = 0;
  Vec3 anchor = Vec3::Zero();          // joint point at the initial pose (world)
  Vec3 axis = Vec3::UnitX();           // revolute: unit axis at the initial pose (world)
  bool loop = false;                   // closes a loop (not in the spanning tree)
  EIGEN_MAKE_ALIGNED_OPERATOR_NEW
};

struct PeerScene {
  std::string caseName;                // e.g. "chain/revolute/n=10"
  std::string sceneName;               // our scene (engine/scenes/scenes.cc)
  std::map<std::string, std::string> params;
  double dt = 0.01;
  Vec3 gravity = Vec3(0, 0, -9.81);
  std::vector<PeerBody, Eigen::aligned_allocator<PeerBody>> bodies;
  // Tree joints first, in breadth-first order from the world (a parent is placed before its
  // children), then the loop joints. Bodies without a tree joint are free (six degrees of freedom).
  std::vector<PeerJoint, Eigen::aligned_allocator<PeerJoint>> joints;
  std::vector<int> treeParentJoint;    // per body: index into `joints` of the joint placing it, -1 free
  bool ground = false;                 // a ground plane z = 0 (normal +z) that every shape touches
  std::shared_ptr<const ms::CompiledSystem> sys;  // our compiled scene (ours and the MJCF writer)
};

// Builds our scene and extracts the description (throws ms::UserError for scenes with things the
// peers are not given here: initial velocities, joint types other than revolute and spherical,
// force elements, limits, shapes other than spheres and boxes in contact scenes).
PeerScene makePeerScene(const std::string& caseName, const std::string& scene,
                        const std::map<std::string, std::string>& params, double dt);

}  // namespace peers
