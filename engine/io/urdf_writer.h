// SPDX-License-Identifier: GPL-3.0-or-later
// A model written as URDF (ROS's robot description), for `mechstudio-cli convert MODEL -o OUT.urdf`.
// URDF describes a tree of links joined by joints, each joint placing its child link frame in its
// parent link frame; it has no loops, no initial state and no force elements. The conversion:
//   - trees only: a model whose joints close a loop is refused (the loop joints are named), as is a
//     body that is the child of two joints; nothing is written then;
//   - joint types: revolute → revolute with <limit> (continuous without limits), prismatic →
//     prismatic, fixed → fixed, floating → floating, planar-axis → planar (URDF's planar joint moves
//     in the plane ⊥ axis and turns about it). Spherical, cylindrical, planar with fixed orientation,
//     universal-like and the other joint types have no URDF counterpart: refused with their names;
//   - links: a "world" link (no <inertial>) is the root; every body is a link whose <inertial> holds
//     its mass and its inertia about the centre of mass in the body frame (rpy 0). The link frame is
//     the body frame moved to the body's joint point (the child anchor p_b of the joint that places
//     it; the centre of mass for a root body), because URDF turns a child link about its own origin:
//     <inertial><origin xyz = −p_b>. Bodies that no joint places (free bodies, and the roots of
//     trees not attached to the world) hang from "world" by a floating joint at their initial pose
//     (always, also for a single free body: a URDF root link would sit at the world origin);
//   - joint origins reproduce the model's initial pose: the child's pose in its parent at the
//     coordinates θ₀ it has in the compiled initial state (system/joint_placement.h, as the MJCF
//     writer nests bodies), so the URDF's zero configuration IS the initial pose. A joint that
//     starts at θ₀ ≠ 0 gets a note, and its limits are written shifted by −θ₀;
//   - <axis> = the joint axis (the same vector in the joint frame and the child frame); damping →
//     <dynamics damping> (one value; per-coordinate values that differ are left out with a note);
//     limits → <limit lower upper effort="0" velocity="0"> (MechStudio has no effort or velocity
//     limits; URDF requires the attributes). A prismatic joint without limits gets ±1e9 m (URDF
//     needs limits on a prismatic joint);
//   - shapes → <visual> and <collision>: box, sphere, cylinder (along z in both), mesh (filename,
//     scale); a capsule becomes a cylinder and two spheres (URDF has no capsule; their union is the
//     capsule), a plane on a body is left out. Visual colours → <material name><color rgba>.
//     Relative mesh names are rewritten relative to the URDF's directory (UrdfWriteOptions);
//   - what URDF cannot hold is left out, each with a note: initial velocities, joint springs,
//     springs, actuators, controllers, wrenches, grounds, contact pairs, exclusions, the collision
//     mode and filters, friction, keyframes, gravity and solver settings other than the defaults.
// The notes are returned to the caller and written as comments at the top of the file.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

struct UrdfWriteOptions {
  // The directory relative mesh file names of the model are relative to (the model file's; empty:
  // the current directory) ...
  std::string meshBaseDir;
  // ... and the directory of the URDF: relative names are rewritten relative to it (empty: they are
  // written as absolute paths). Absolute names and URIs (package://, file://) are written as they are.
  std::string outputDir;
};

// Throws UserError (every reason, one per line) if the model is not a tree of joints URDF has.
void checkUrdfConvertible(const Model& model);

// The URDF of `sys` with its zero configuration at `reference` (a state satisfying the joints, e.g.
// makeInitialState). Throws UserError as checkUrdfConvertible. `notes` (if given) receives one
// sentence per thing the URDF leaves out or changes.
std::string writeUrdf(const CompiledSystem& sys, const State& reference, const UrdfWriteOptions& options = {},
                      std::vector<std::string>* notes = nullptr);
// The same for a model, compiled and placed at its initial state.
std::string writeUrdf(const Model& model, const UrdfWriteOptions& options = {},
                      std::vector<std::string>* notes = nullptr);

}  // namespace ms
