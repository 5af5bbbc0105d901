// SPDX-License-Identifier: GPL-3.0-or-later
// The editable description of a mechanism (the "spec"): plain data, no derived state.
// compile() (system/compile.h) validates it and turns it into an immutable CompiledSystem.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/types.h"
#include "model/joint_kinds.h"

namespace ms {

// A geometric shape attached to a body, placed by a pose in the body frame.
struct ShapeDesc {
  enum class Kind { Box, Sphere, Capsule, Cylinder, Plane, Mesh };
  Kind kind = Kind::Box;
  // Box: full extents (x, y, z). Sphere: (radius, ·, ·). Capsule/cylinder: (radius, length, ·)
  // along the shape's z axis (capsule length between the hemisphere centres). Plane: normal = +z.
  Vec3 size = Vec3::Zero();
  std::string meshFile;            // Mesh: path as written in the model (relative: to the model file's directory)
  Vec3 meshScale = Vec3::Ones();
  std::vector<Vec3> meshVertices;  // collision meshes: the file's vertices times meshScale, in the shape frame (read by the reader)
  Vec3 position = Vec3::Zero();    // in the body frame
  Vec4 orientation = Vec4(1, 0, 0, 0);
  Vec4 color = Vec4(0.7, 0.7, 0.75, 1.0);  // RGBA in [0, 1]
  // A collision shape's own filter, on top of its body's (MJCF's per-geom contype/conaffinity):
  // shapes A and B of two bodies that may collide touch when (contype_A & conaffinity_B) |
  // (contype_B & conaffinity_A) is non-zero; a shape and a ground likewise with the ground's masks.
  // All bits (the default): the body's rule alone. Explicit contact pairs ignore it (as MJCF's <pair>).
  std::uint32_t contype = 0xffffffffu, conaffinity = 0xffffffffu;
};

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
  // Geometry: what viewers draw, and (from the contacts issue on) what collides.
  std::vector<ShapeDesc> visuals;
  std::vector<ShapeDesc> collisions;
  double friction = 0.5;  // Coulomb coefficient for this body's contacts
  // Automatic collisions (Model::collisions == All), as MuJoCo's contype/conaffinity: two bodies
  // collide when (contype_A & conaffinity_B) | (contype_B & conaffinity_A) is non-zero.
  std::uint32_t contype = 1, conaffinity = 1;
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
  std::vector<double> armature;      // rotor inertia reflected on the coordinate: kinetic energy ½ a θ̇²
  // Initial minimal coordinates and their rates (size = number of free coordinates, or empty = 0).
  std::vector<double> initialPosition;
  std::vector<double> initialVelocity;
  // Limits per free coordinate (empty = none): inequality constraints of the contact solver,
  // supported on revolute and prismatic joints (one free coordinate; compile rejects others).
  std::vector<double> lowerLimit, upperLimit;
};

// A linear spring–damper between points of two bodies (or a body and the world, body = -1):
// force along the line between the points, f = k (|d| − L) + c · d/dt|d|.
struct SpringDesc {
  std::string name;
  int bodyA = -1, bodyB = 0;
  Vec3 anchorA = Vec3::Zero(), anchorB = Vec3::Zero();  // in each body's frame (world for -1)
  double stiffness = 0, restLength = 0, damping = 0;
};

// A fixed tendon (MuJoCo's <tendon><fixed>): a length L = Σ coef · θ over joint coordinates (rad or
// m), with a spring about restLength and a damper: the effort −k (L − L₀) − c L̇ acts on each term's
// coordinate times its coef (the gradient of ½ k (L − L₀)², the damper's dissipation), as one joint
// spring would on L; actuators may act along it (ActuatorDesc::tendon).
struct TendonTerm {
  int joint = 0, coordinate = 0;
  double coef = 1;
};
struct TendonDesc {
  std::string name;
  std::vector<TendonTerm> terms;
  double stiffness = 0, restLength = 0, damping = 0;
};

// A linear coupling of two joint coordinates, held as a constraint (URDF's <mimic>, MJCF's
// <equality><joint> with a linear polycoef, a gear pair):
//   θ_joint[coordinate] = offset + multiplier · θ_reference[referenceCoordinate]
// (rad or m). Its multiplier λ is an effort on both coordinates (λ on the joint's, −multiplier·λ on
// the reference's), so the coupling does no work. reference = −1: θ = offset (the coordinate held).
// Revolute angles are compared in (−π, π] (see docs/model-language.md, `coupling`).
struct CouplingDesc {
  std::string name;
  int joint = 0, coordinate = 0;
  int reference = -1, referenceCoordinate = 0;
  double multiplier = 1, offset = 0;
};

// A named coordinate of a joint that is not one of the joint's own: the MJCF importer's name for
// each hinge and slide it combined into one engine joint (rootx of a planar root). A translation
// Δ·direction, Δ the joint's translation in its joint frame (m), or (angular) a rotation about the
// joint's axis, direction the hinge's axis in the joint frame (rad). Read as the signals
// NAME.position or NAME.angle and their rates; not written to .mech.
struct CoordinateAlias {
  std::string name;
  int joint = 0;
  bool angular = false;
  Vec3 direction = Vec3::UnitX();
};

// A joint's actuator with a constant input u per minimal coordinate (one value broadcast to all).
// The joint gets the effort gear · clamp(clamp(u, control range), force range) (N or N·m;
// actuatorOutput): MuJoCo's <motor> (gear, ctrlrange, forcerange, the force range applying before
// the gear). With the defaults (gear 1, no ranges) u is the joint effort itself. The GUI's actuator
// sliders change u at run time, over the control range when it is finite.
// On a tendon (tendon ≥ 0; joint is then unused): one input, its output acting on every term's
// coordinate times the term's coef.
struct ActuatorDesc {
  int joint = 0;
  int tendon = -1;
  std::vector<double> effort;
  double gear = 1;
  double controlLower = -kInf, controlUpper = kInf;
  double forceLower = -kInf, forceUpper = kInf;
};
// The joint effort of actuator a for input u.
double actuatorOutput(const ActuatorDesc& a, double u);

// A PD controller on one minimal coordinate of a joint (through its actuator):
//   u = kp (θ*(t) − θ) + kd (θ̇*(t) − θ̇),  θ*(t) = offset + amplitude · sin(2π frequency t + phase),
// clamped to ±effortLimit when effortLimit > 0 (the paper's Algorithms 6 and 8 use sinusoids).
struct ControllerDesc {
  std::string name;
  int joint = 0;
  int coordinate = 0;
  double kp = 0, kd = 0;
  double offset = 0, amplitude = 0, frequency = 0, phase = 0;
  double effortLimit = 0;
};

// An external wrench applied to a body for the whole simulation (force in the world frame at the
// centre of mass, torque in the world frame). Time-varying wrenches are set through the Simulation.
struct WrenchDesc {
  int body = 0;
  Vec3 force = Vec3::Zero();
  Vec3 torque = Vec3::Zero();
};

// A fixed plane of the environment (the ground, an incline): every collision shape of every body
// may touch it. Contacts use the body's friction coefficient unless the ground gives one (≥ 0).
struct GroundDesc {
  std::string name;
  Vec3 point = Vec3::Zero();   // a point on the plane (world)
  Vec3 normal = Vec3::UnitZ(); // pointing out of the solid side (world; normalised by compile)
  double friction = -1;        // < 0: the body's
  // Filter against collision shapes (ShapeDesc::contype/conaffinity); all bits: every shape.
  std::uint32_t contype = 0xffffffffu, conaffinity = 0xffffffffu;
};

// Contacts between two bodies: every collision shape of A against every collision shape of B (every
// pair of kinds but two planes; contact::pairCandidates).
// The friction coefficient is the pair's, or the mean of the two bodies' (friction < 0).
struct ContactPairDesc {
  std::string name;
  int bodyA = 0, bodyB = 0;
  double friction = -1;
};

// Which pairs of bodies collide. All: every two bodies with collision shapes, except bodies joined by
// a joint, pairs excluded (ExclusionDesc) or filtered by contype/conaffinity, and pairs that overlap
// at the initial configuration (compile notes them); found during the run by a broad phase
// (system/collision_pairs.h), each the same contacts as a `contact-pair` with the bodies' mean
// friction. NoSelf: as All, but bodies of one mechanism (connected to each other through joints
// between bodies) do not collide with each other; URDF's default, as Gazebo and PyBullet read it.
// Pairs: only the model's contact-pairs (and the grounds).
enum class CollisionMode { All, NoSelf, Pairs };
struct ExclusionDesc {
  int bodyA = 0, bodyB = 0;
};

// A saved state of the mechanism (issue 15, "keyframes"): per body, by name, the world position of
// its centre of mass, its orientation (unit quaternion w x y z, body → world), its linear velocity
// (world) and its angular velocity (WORLD frame; the simulation state keeps it in the body frame).
// Written as (keyframe NAME (body B (position …) (orientation …) (velocity …) (angular-velocity …))…).
struct KeyframeBody {
  std::string body;
  Vec3 position = Vec3::Zero();
  Vec4 orientation = Vec4(1, 0, 0, 0);
  Vec3 velocity = Vec3::Zero();
  Vec3 angularVelocity = Vec3::Zero();  // world frame
};
struct KeyframeDesc {
  std::string name;
  std::vector<KeyframeBody> bodies;  // read from a .mech file: one per body, in the model's body order
};

struct SolverSettings {
  double dt = 0.01;
  double tolerance = 1e-10;    // on the ∞-norm of the residual
  double complementarityTolerance = 1e-8;  // contacts and limits: max s∘γ at convergence
  int maxIterations = 100;     // Newton iterations per step
  int maxLineSearch = 12;      // step halvings per iteration
  // n_f: directions of the linearised friction cone of every contact (even, 4…10; the contact node
  // holds 4 of them, a second node the rest — engine/integrator/variational_step.cc).
  int frictionDirections = 4;
  // Sleeping (variational integrator, contacts): an island of bodies at rest for this long [s]
  // stops being solved until something touches, pushes or sets it (engine/integrator/vi_sleep.cc);
  // 0: never.
  double sleepTime = 0;
};
constexpr int kMaxSolverFrictionDirections = 10;

struct Model {
  std::string name;
  std::vector<BodyDesc> bodies;
  std::vector<JointDesc> joints;
  std::vector<WrenchDesc> wrenches;
  std::vector<SpringDesc> springs;
  std::vector<TendonDesc> tendons;
  std::vector<CouplingDesc> couplings;
  std::vector<CoordinateAlias> aliases;
  std::vector<ActuatorDesc> actuators;
  std::vector<ControllerDesc> controllers;
  std::vector<GroundDesc> grounds;
  std::vector<ContactPairDesc> contactPairs;
  CollisionMode collisions = CollisionMode::All;
  std::vector<ExclusionDesc> exclusions;
  std::vector<KeyframeDesc> keyframes;
  Vec3 gravity = Vec3(0, 0, -9.81);
  SolverSettings solver;

  int bodyIndex(const std::string& name) const;  // -1 when absent
  int jointIndex(const std::string& name) const;
  int tendonIndex(const std::string& name) const;  // -1 when absent
  const KeyframeDesc* keyframe(const std::string& name) const;  // null when absent
};

// The mechanism of each body: connected components of the bodies under the joints between two
// bodies (tree and loop joints; the world does not connect), numbered by their first body.
std::vector<int> mechanismsOf(const Model& m);
// True when self-collision changes anything: two bodies of one mechanism, both with collision
// shapes and not joined to each other by a joint.
bool selfCollisionMatters(const Model& m);

}  // namespace ms
