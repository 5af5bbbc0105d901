// SPDX-License-Identifier: GPL-3.0-or-later
// trep import: the s-expression system syntax of Johnson & Murphey 2009 (§V-B, Table II, Listing 1)
// turned into a Model (bodies in maximal coordinates, joints of Table B.2).
//
// Accepted syntax (heads and transform names are case-insensitive):
//   (mechanical-system component*)        also (system ...), Table II's spelling
//   component  = (gravity gx gy gz)       gravity acceleration; absent: no gravity (trep's default)
//              | frame
//              | (point-constraint "A" "B" (nx ny nz) name?)   also "A" "B" nx ny nz (Table II);
//                the misspelling point-constaint of Listing 1 is accepted with a warning;
//                name = "text" or (name "text")
//   frame      = ({type param}+ option* frame*)   type = tx ty tz rx ry rz;
//                param = number (constant) | "var" | (d "var") (configuration variable);
//                several type/param pairs are a chain of frames, options and children go to the last
//   option     = (name "N") | (mass m) | (mass m Ixx Iyy Izz)   (inertia in the frame's axes)
//
// Mapping (each decision is argued at the top of trep_import.cc):
//  - Frames connected by constant transforms form one rigid cluster; every configuration variable
//    starts a new cluster. A cluster with mass becomes one body: all its masses are lumped rigidly
//    (total mass, centre of mass, parallel-axis inertia); the body frame sits at the centre of mass
//    with the axes of the cluster's first massive frame. Masses on frames fixed to the world are
//    ignored with a warning.
//  - The variable between two massive clusters becomes a revolute (rx/ry/rz) or prismatic (tx/ty/tz)
//    joint whose coordinate equals the trep variable (same sign, zero at the trep zero pose).
//    Several variables separated only by massless frames (e.g. (tx "x" tz "z" ry "q" ...)) become
//    one joint when their motion is a joint of Table B.2 (planar, fixed-orientation, cylindrical,
//    planar-axis, spherical, rotation-axis-free, cylindrical-free, planar-free, floating); any other
//    combination (e.g. a universal joint rx+ry) is rejected with a message asking for a mass on
//    the intermediate frame. A massless frame that branches, or a variable that moves no mass, is
//    an error.
//  - Point masses: a body whose inertia has an eigenvalue below ε·m·ℓ² (ε = options.pointInertia,
//    default 1e-6; m the body's mass; ℓ the diagonal of the bounding box of all frame origins at the
//    zero pose) gets those eigenvalues raised to ε·m·ℓ² (one note is reported). A moment that
//    breaks the triangle inequality is raised to the smallest valid value (warning).
//  - Point constraints between the same two frames are grouped: their directions span a subspace
//    of dimension 1, 2 or 3 and become one loop joint: planar-free (axis = the direction),
//    cylindrical-free (axis = the normal of the two directions) or spherical. trep fixes the
//    directions in the world; the loop joint fixes them in its parent body, which is chosen so that
//    the two agree exactly (the world, or a body that only rotates about the joint axis); when no
//    such body exists a warning says so. A repeated direction is ignored with a warning.
//  - Initial configuration: every variable 0 (trep's default) unless options.initialValues sets it;
//    loop closures are then satisfied by the engine's projection of the initial pose.
// Every problem is reported with file:line:column. Nothing throws; on any error the functions return
// false and leave `out` untouched.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "core/types.h"
#include "io/sexpr.h"
#include "model/model.h"

namespace ms {

struct TrepImportOptions {
  // Relative floor ε of the rotational inertia of bodies made of point masses (see above).
  double pointInertia = 1e-6;
  // Initial values of configuration variables (by name); the others start at 0.
  std::map<std::string, double> initialValues;
};

// How the trep description was mapped (for tests, the CLI and converters).
struct TrepImportInfo {
  // A named trep frame: the body it is fixed to (-1 = the world, -2 = a massless intermediate frame
  // of a compound joint) and its pose in that body's frame at every configuration.
  struct Frame {
    std::string name;
    int body = -1;
    Vec3 position = Vec3::Zero();
    Vec4 orientation = Vec4(1, 0, 0, 0);
  };
  std::vector<Frame> frames;
  // Configuration variable → joint index; the joint's first coordinate equals the variable when the
  // joint has a single variable.
  std::map<std::string, int> variableJoint;
  // Bodies whose inertia was raised (point masses) and the floor ε·m·ℓ² used for each.
  std::vector<int> regularisedBodies;
  std::vector<double> inertiaFloor;
  double lengthScale = 1;  // ℓ
};

// Imports a parsed trep document (syntax errors are the parser's: pass a document whose parse
// reported none, or the same Diagnostics).
bool importTrep(const sexpr::Document& doc, Model& out, Diagnostics& diags, const TrepImportOptions& options = {},
                TrepImportInfo* info = nullptr);
// Reads and imports a trep file (parse errors included in `diags`).
bool importTrepFile(const std::string& path, Model& out, Diagnostics& diags, const TrepImportOptions& options = {},
                    TrepImportInfo* info = nullptr);
// Imports trep text; `fileName` names the source in diagnostics.
bool importTrepString(const std::string& text, const std::string& fileName, Model& out, Diagnostics& diags,
                      const TrepImportOptions& options = {}, TrepImportInfo* info = nullptr);

}  // namespace ms
