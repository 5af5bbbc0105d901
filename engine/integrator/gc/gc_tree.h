// SPDX-License-Identifier: GPL-3.0-or-later
// The tree of generalized coordinates shared by the generalized-coordinate integrators
// (midpoint_gc_step.h: trep's midpoint VI, Johnson & Murphey 2009 §III–IV; riqn_step.h:
// Lee et al. 2016). Built once from a CompiledSystem; the kinematics are evaluated on preallocated
// workspace.
//
// Coordinates. The compiler's spanning tree (CompiledSystem::treeJoints) places every body by one
// joint; each joint is written as a chain of elementary one-coordinate transforms, as trep's frames
// (seed 001 §III, Table I: tx, ty, tz, rx, ry, rz):
//   revolute   1 rotation about V3 through the joint point       (the joint's minimal coordinate)
//   prismatic  1 translation along V3                              (the joint's minimal coordinate)
//   spherical  3 rotations about the x, y′, z″ axes of a chart frame (Euler angles XYZ)
//   floating   3 translations along the joint frame's x, y, z, then 3 rotations as spherical
//   fixed      none (the child is carried rigidly)
// A body that no joint places (a root of the spanning tree) gets a floating joint to the world.
// Chart of the spherical and floating rotations: R_rel = C·Rx(α)Ry(β)Rz(γ) in the joint frame, with
// a chart centre C. Euler angles are singular at β = ±π/2 (the x and z axes align and the mass
// matrix loses rank); the integrators re-centre the chart (C ← C·Rx Ry Rz, angles ← 0, momenta
// transformed as covectors) whenever an angle leaves ±1 rad, so β never comes near ±π/2.
// Other joint types (planar, cylindrical, …) get no coordinates: the tree is then built from the
// supported types only, and those joints close loops as holonomic constraints (their rows of
// joint_constraint.h) — midpoint-gc integrates them so; riqn, which has no constraints, refuses them.
//
// Kinematics in the world frame (Murray, Li & Sastry's spatial twists ξ = (ω; v), a point x moving
// with ẋ = ω×x + v). Changing coordinate i moves everything downstream of it by exp(ξ_i δ), so
//     ∂ξ_j/∂q_i = ad_{ξ_i} ξ_j  (i upstream of j),   ad_ξ = [[ω×, 0], [v×, ω×]],
//     ∂c_b/∂q_i = ω_i × c_b + v_i,   ∂R_b/∂q_i = ω_i^× R_b     (i upstream of body b)
// which are trep's first and second frame derivatives (seed 001 eqs 2–3) in twist form.
// Body twist V_b = Σ_{i upstream} ξ_i q̇_i; spatial inertia at the world origin
//     G_b = [[I_w − m c^×c^×, m c^×], [−m c^×, m I]],  T_b = ½ V_bᵀ G_b V_b.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/types.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms::gc {

enum class AxisKind : unsigned char { Rotation, Translation };

struct Coordinate {
  int parent = -1;  // the coordinate upstream of this one (−1: the world)
  int joint = 0;    // index into GcTree::joints
  AxisKind kind = AxisKind::Rotation;
  int axis = 0;     // multi-coordinate joints: chart axis x/y/z (0, 1, 2); one-coordinate joints: V3
};

struct GcJoint {
  int joint = -1;   // CompiledSystem joint, −1: the floating joint of a root body
  JointType type = JointType::Floating;
  JointGeometry geo;  // anchors, offset, axes (the implicit floating joint: world origin, identity)
  int parentBody = -1, childBody = 0;
  int first = 0, count = 0;  // its coordinates [first, first + count)
  int parentCoord = -1;      // the last coordinate placing the parent body (−1: the world)
  int rotationFirst = -1;    // spherical/floating: first of the three chart rotations, else −1
  double stiffness = 0, rest = 0, damping = 0;  // one-coordinate joints: spring and damper (0: none)
};

struct GcTree {
  std::shared_ptr<const CompiledSystem> sys;
  std::vector<GcJoint> joints;       // parents before children
  std::vector<Coordinate> coords;    // parents before children
  std::vector<int> bodyJoint;        // per body: the GcJoint placing it
  std::vector<int> bodyCoord;        // per body: the last coordinate upstream (−1: carried by the world)
  std::vector<int> loopJoints;       // CompiledSystem joints closing loops (with constraint rows)
  std::vector<int> loopRow;          // per loop joint: its first row in h(q)
  int numLoopRows = 0;
  // Joints whose efforts (spring, damper, actuator) are applied through the bodies (loop joints and
  // multi-coordinate joints, as addForceElements does); one-coordinate tree joints act on their
  // coordinate directly. Indexed by CompiledSystem joint.
  std::vector<char> effortOnCoordinate;
  int size() const { return int(coords.size()); }
};

// Builds the tree; with refuseLoops (riqn) throws UserError naming the first loop-closing joint
// (or joint of a type without coordinates).
GcTree buildGcTree(std::shared_ptr<const CompiledSystem> sys, bool refuseLoops);

// Chart centres of the multi-coordinate joints (quaternions, joint frame), part of the state.
using Charts = std::vector<Vec4, Eigen::aligned_allocator<Vec4>>;

// Positions, twists and inertias of one configuration (and velocities, when set).
struct Kinematics {
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> xi;  // per coordinate: world twist of its axis
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> V;   // per coordinate: Σ_{k ≤ i upstream} ξ_k q̇_k
  std::vector<Vec3, Eigen::aligned_allocator<Vec3>> x;   // per body: centre of mass (world)
  std::vector<Mat3, Eigen::aligned_allocator<Mat3>> R;   // per body: rotation body → world
  std::vector<Mat6, Eigen::aligned_allocator<Mat6>> G;   // per body: spatial inertia at the origin
  void resize(const GcTree& t);
};

// Forward kinematics at coordinates q: body poses, axis twists and spatial inertias.
void forwardKinematics(const GcTree& t, const Charts& charts, const VecX& q, Kinematics& k);
// Coordinate twists V from rates qd (after forwardKinematics).
void velocities(const GcTree& t, const VecX& qd, Kinematics& k);
// Twist of body b (world, at the origin) after velocities(); zero for a body carried by the world.
inline Vec6 bodyTwist(const GcTree& t, const Kinematics& k, int b) {
  return t.bodyCoord[b] >= 0 ? k.V[t.bodyCoord[b]] : Vec6::Zero();
}
// Writes the poses (and, after velocities(), the COM velocities and body-frame angular velocities)
// of every body into s.
void writeBodies(const GcTree& t, const Kinematics& k, State& s, bool withVelocities);

// Coordinates and a chart that reproduce the poses of s (charts centred on the current rotations:
// the chart angles are zero). Tree joints are read through their own minimal coordinates.
void coordinatesFromState(const GcTree& t, const State& s, VecX& q, Charts& charts);

// ad_ξ y and ad_ξᵀ P (Lie bracket of twists and its dual on momenta/wrenches).
inline Vec6 ad(const Vec6& xi, const Vec6& y) {
  const Vec3 w = xi.head<3>(), v = xi.tail<3>(), yw = y.head<3>(), yv = y.tail<3>();
  Vec6 r;
  r << w.cross(yw), v.cross(yw) + w.cross(yv);
  return r;
}
inline Vec6 adT(const Vec6& xi, const Vec6& P) {
  const Vec3 w = xi.head<3>(), v = xi.tail<3>(), Pw = P.head<3>(), Pv = P.tail<3>();
  Vec6 r;
  r << -w.cross(Pw) - v.cross(Pv), -w.cross(Pv);
  return r;
}

}  // namespace ms::gc

namespace ms {
// For validateIntegratorOptions: throws UserError when the model cannot be written in generalized
// coordinates (unsupported joint types; loops with riqn).
void validateGeneralizedCoordinates(const CompiledSystem& sys, bool riqn);
}  // namespace ms
