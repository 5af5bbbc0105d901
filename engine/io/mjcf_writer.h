// SPDX-License-Identifier: GPL-3.0-or-later
// A model written as MuJoCo's MJCF (XML), for the MuJoCo comparison copy (integrator/mujoco_copy.h)
// and for exporting. MuJoCo works in generalized coordinates: the bodies are nested along the
// joints' spanning tree (model/joint_tree.h) and the joints that close loops become equality
// constraints. The conversion, joint by joint (conventions of dynamics/joint_constraint.h):
//   - body frames are our centre-of-mass frames, with an explicit <inertial> (mass, fullinertia);
//   - a tree joint places its child at the coordinates θ₀ it has in the reference state: child pose
//     in the parent frame = jointForwardKinematics(θ₀) (orientation q_off·exp(a θ₀)), the MuJoCo
//     joint at the child anchor p_b with the axis a (the axis is the same vector in the joint frame
//     and in the child frame, which rotates about it), and `ref` = θ₀, so that MuJoCo's qpos is our
//     minimal coordinate: revolute → hinge, prismatic → slide, spherical → ball (qpos = p₀⁻¹ p with
//     p = q_off⁻¹ q_a⁻¹ q_b, p₀ its reference value: MuJoCo's ball has no `ref`), fixed → the child
//     nested without a joint; floating joints and bodies without a joint → top-level bodies with a
//     free joint (MuJoCo allows free joints only there; a floating joint constrains nothing);
//   - loop joints: spherical → <connect> at the child anchor; revolute → two <connect>s on the axis
//     (at p_b and p_b + span·a: a single connect leaves the two rotations about axes ⊥ a free where
//     the tree does not remove them) or, on request, one; fixed → <weld>; floating → nothing. MuJoCo
//     derives the second body's anchor and the weld's relative pose from the reference configuration
//     (qpos0), which is why the bodies are written at a state that closes the loops;
//   - joint stiffness / rest position / damping of hinge and slide tree joints → stiffness /
//     springref / damping; limits → range; actuators and controllers → <motor> (gear 1, ctrl = the
//     effort); springs between bodies → spatial tendons between two sites;
//   - collision shapes → geoms (sphere, capsule, box, cylinder; meshes are visual only and planes on
//     bodies do not collide with the ground here either; MjcfWriteOptions::complete adds the visuals
//     and meshes), grounds → plane geoms. Contacts as in the
//     engine: every body shape against every ground (conaffinity bit 0 on every body geom, contype 1 /
//     conaffinity 0 on grounds); bodies collide with each other only with automatic collisions
//     (Model::collisions == All: the bodies' contype/conaffinity shifted by one bit, the pairs the
//     engine leaves out as <exclude>s; MuJoCo's friction of such a pair is the larger of the two
//     bodies', the engine's their mean), friction = the body's (the
//     ground geom's friction is 0 and MuJoCo takes the larger one) or explicit <pair>s for a ground
//     with its own friction; contact-pairs → <pair>s for the shape pairs the engine has a distance
//     function for (sphere–sphere, sphere–capsule, capsule–capsule, sphere–box);
//   - <option> timestep = the model's Δt, gravity; every other MuJoCo setting is its default
//     (solver, cone, solref/solimp, margins).
// What MJCF cannot carry (spherical-joint springs and dampers, force elements of loop and floating
// joints) is listed in MjcfInfo::forcesInMjcf for the caller to apply; joint types without a MuJoCo
// counterpart (planar, cylindrical, …), prismatic loop joints and limits on loop joints are refused.
#pragma once

#include <string>
#include <vector>

#include <Eigen/StdVector>

#include "model/model.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

struct MjcfWriteOptions {
  // Revolute loop joints: two connects along the axis (default), or one at the joint point.
  enum class RevoluteLoop { TwoConnects, OneConnect };
  RevoluteLoop revoluteLoop = RevoluteLoop::TwoConnects;
  double revoluteLoopSpan = 0.1;  // distance of the second connect from the joint point along the axis [m]
  // Export (`mechstudio-cli convert -o OUT.xml`): everything MJCF can carry, for another simulator and
  // for reading back (io/mjcf_import.h): visual geoms (contype 0, conaffinity 0) and collision-only
  // geoms (group 3), mesh geoms with their <asset><mesh>es (placed so that MuJoCo's centring of a mesh
  // at its centroid puts it back where it was), colours, PD controllers as <position> actuators (kp,
  // forcerange; with kd ≠ 0 the equivalent <general> with an affine bias) and MechStudio's <custom> entries: the collision mode ("mechstudio.collisions"),
  // controller set-points ("mechstudio.setpoint.NAME": offset amplitude frequency phase) and
  // constant efforts ("mechstudio.effort.MOTOR"). false: what the MuJoCo comparison copy needs.
  bool complete = false;
  // With `complete`: the directory the model's relative mesh file names are relative to (to read a
  // mesh's centroid), and the directory the MJCF will be written to (mesh file names are written
  // relative to it). Empty: the current directory / names as in the model.
  std::string meshBaseDir, outputDir;
};

// How the model's parts were named and placed in the MJCF (indices are the model's).
struct MjcfInfo {
  std::vector<std::string> body;        // per body: its MJCF body name
  std::vector<std::string> freeJoint;   // per body: the name of its free joint, or "" (nested)
  std::vector<std::string> joint;       // per joint: its MJCF hinge/slide/ball, or "" (fixed, floating, loop)
  std::vector<std::string> motor;       // per joint: its <motor>, or ""
  // Per joint: the reference value p₀ of a spherical tree joint (MuJoCo's qpos = p₀⁻¹ p), else identity.
  std::vector<Vec4, Eigen::aligned_allocator<Vec4>> ballReference;
  // Per joint: 1 if its springs and dampers are in the MJCF (or it has none), 0 if the caller must apply them.
  std::vector<char> forcesInMjcf;
  int loopConstraints = 0;              // <connect>/<weld> elements written
};

// Throws UserError (every reason, one per line) if the model has what MJCF cannot express here.
void checkMjcfConvertible(const Model& model);
// How deep the bodies nest in the MJCF (1: every body a child of the world).
int mjcfBodyNesting(const Model& model);

// One file of an MJCF model cut into several (splitMjcfByNesting).
struct MjcfFile {
  std::string name, text;
};
// Bodies per file of splitMjcfByNesting: tinyxml2 (MuJoCo 2.2's XML reader, Debian 12's build)
// refuses elements nested deeper than 100; a file holds <mujoco>, <worldbody> and a body's own
// elements beside its nested bodies.
constexpr int kMjcfBodiesPerFile = 90;
// `xml` (writeMjcf's output) as files MuJoCo's reader accepts: every body that would be nested
// deeper than `bodiesPerFile` bodies goes, with its subtree, into a file of its own ("STEM-partK.xml",
// cut the same way in turn) and an <include> of that file takes its place. The first file is the
// main one, named `mainName` (STEM is its name without the extension); a model whose bodies nest
// less deeply is that file alone.
std::vector<MjcfFile> splitMjcfByNesting(const std::string& xml, const std::string& mainName,
                                         int bodiesPerFile = kMjcfBodiesPerFile);

// The MJCF of `sys` with the bodies placed at the poses of `reference` (it must satisfy the joints,
// loops included: e.g. makeInitialState). Throws UserError as checkMjcfConvertible.
std::string writeMjcf(const CompiledSystem& sys, const State& reference, const MjcfWriteOptions& options = {},
                      MjcfInfo* info = nullptr);
// The same for a model, compiled and placed at its initial state.
std::string writeMjcf(const Model& model, const MjcfWriteOptions& options = {}, MjcfInfo* info = nullptr);

}  // namespace ms
