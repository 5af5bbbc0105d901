// SPDX-License-Identifier: GPL-3.0-or-later
// The editable description of a mechanism (the "spec"): plain data, no derived state.
// compile() (system/compile.h) validates it and turns it into an immutable CompiledSystem.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/types.h"
#include "model/joint_kinds.h"

namespace ms {

// A rigid body: mass and inertia about its centre of mass, in the body frame.
struct BodyDesc {
  std::string name;
  double mass = 1.0;
  Mat3 inertia = Mat3::Identity();
  // Initial pose (world frame). Bodies reached through joints from the world get their pose from the
  // joints' initial minimal coordinates; this pose is used for bodies not positioned by any joint
  // and as the starting guess of the projection onto the constraints.
  Vec3 position = Vec3::Zero();
  Vec4 orientation = Vec4(1, 0, 0, 0);  // [w, x, y, z]
  // Initial velocities: linear in the world frame, angular in the body frame. Used for bodies whose
  // velocity is not set by a joint (free bodies, floating joints).
  Vec3 linearVelocity = Vec3::Zero();
  Vec3 angularVelocity = Vec3::Zero();
  // Shape hint for viewers and default geometry (not used by the dynamics).
  std::string shape;   // "box", "sphere", "cylinder", "capsule" or empty
  Vec3 shapeSize = Vec3::Zero();  // box: full extents; sphere: (r,·,·); cylinder/capsule: (r, length, ·) along body z
};

// A joint between a parent body (or the world, parent = -1) and a child body (Appendix B).
struct JointDesc {
  std::string name;
  JointType type = JointType::Revolute;
  int parent = -1;  // body index, -1 = world
  int child = 0;    // body index
  Vec3 parentAnchor = Vec3::Zero();  // p_a: joint point in the parent's frame (world frame for the world)
  Vec3 childAnchor = Vec3::Zero();   // p_b: joint point in the child's frame
  Vec3 axis = Vec3::UnitZ();         // V3, in the joint frame (= parent frame rotated by `offset`)
  Vec4 offset = Vec4(1, 0, 0, 0);    // q_off: child orientation relative to parent at zero coordinates
  // Force elements acting in the joint's free directions (minimal coordinates), one value per
  // free coordinate or a single value broadcast to all of them.
  std::vector<double> stiffness;     // spring: τ = −k (θ − θ_rest)
  std::vector<double> restPosition;  // θ_rest
  std::vector<double> damping;       // damper: τ = −c θ̇
  // Initial minimal coordinates and their rates (size = number of free coordinates, or empty = 0).
  std::vector<double> initialPosition;
  std::vector<double> initialVelocity;
};

// An external wrench applied to a body for the whole simulation (force in the world frame at the
// centre of mass, torque in the world frame). Time-varying wrenches are set through the Simulation.
struct WrenchDesc {
  int body = 0;
  Vec3 force = Vec3::Zero();
  Vec3 torque = Vec3::Zero();
};

struct SolverSettings {
  double dt = 0.01;
  double tolerance = 1e-10;    // on the ∞-norm of the residual
  int maxIterations = 100;     // Newton iterations per step
  int maxLineSearch = 12;      // step halvings per iteration
};

struct Model {
  std::string name;
  std::vector<BodyDesc> bodies;
  std::vector<JointDesc> joints;
  std::vector<WrenchDesc> wrenches;
  Vec3 gravity = Vec3(0, 0, -9.81);
  SolverSettings solver;

  int bodyIndex(const std::string& name) const;  // -1 when absent
  int jointIndex(const std::string& name) const;
};

}  // namespace ms
