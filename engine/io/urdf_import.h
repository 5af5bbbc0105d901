// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: a robot description (urdfdom parses the standard elements) turned into a Model.
//
// Mapping (details and the loop-closure extension are documented at the top of urdf_import.cc):
//  - A link with <inertial> becomes a body whose frame is its inertial (centre-of-mass) frame.
//  - The root link is the world when it has no <inertial> or is named "world"; otherwise it is a
//    free body. Massless links attached by fixed joints are lumped into their parent body.
//  - Joints: revolute/continuous → Revolute, prismatic → Prismatic, fixed → Fixed, floating →
//    Floating, planar → PlanarAxis (URDF planar: two translations in the plane ⊥ axis and the
//    rotation about it). All initial joint coordinates are 0 (the pose written in the file).
//  - <loop_joint> elements inside <robot> close kinematic loops (see urdf_import.cc).
//  - Mesh files: relative to the URDF's directory, file://, or package://NAME/PATH looked up in the
//    package roots (UrdfImportOptions::packagePaths, then ROS_PACKAGE_PATH; rule below and in
//    docs/import-export.md); a resolved package mesh gets its absolute path as ShapeDesc::meshFile.
// Every problem is reported to `diags` with the file name and, where known, the line. The
// functions never throw; they return false (leaving `out` untouched) when any error was reported.
#pragma once

#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "model/model.h"

namespace ms {

// How the importer finds what a URDF refers to.
struct UrdfImportOptions {
  // Package roots for package://NAME/PATH mesh URIs, searched in this order before ROS_PACKAGE_PATH
  // (relative roots: against the current directory).
  std::vector<std::string> packagePaths;
  // Also search the roots of the ROS_PACKAGE_PATH environment variable (colon-separated), after
  // packagePaths.
  bool useRosPackagePath = true;
};

// Reads the URDF file at `path`; mesh files are looked up relative to its directory.
bool importUrdf(const std::string& path, Model& out, Diagnostics& diags, const UrdfImportOptions& options = {});

// Imports URDF text. `fileNameForMessages` names the source in diagnostics; `baseDir` is the
// directory relative mesh file names are checked against (empty: the current directory).
bool importUrdfString(const std::string& xml, const std::string& fileNameForMessages, const std::string& baseDir,
                      Model& out, Diagnostics& diags, const UrdfImportOptions& options = {});

// ---- package://NAME/PATH --------------------------------------------------------------------------
// For each root R in order, the first of these that is a regular file:
//   1. R/NAME/PATH;
//   2. R/PATH when R itself is the package (its last component is NAME and it holds package.xml);
//   3. D/PATH for each directory D named NAME holding a package.xml found below R, breadth first
//      (names in sorted order) at most kPackageSearchDepth levels down, visiting at most
//      kPackageSearchDirectories directories per root, without entering hidden directories (".*")
//      or packages (directories holding a package.xml), as rospack does; symbolic links to
//      directories are followed, each directory once.
// (ROS finds a package by the <name> inside package.xml; the directory name is nearly always the same.)
constexpr int kPackageSearchDepth = 4;
constexpr int kPackageSearchDirectories = 10000;

// The package roots: options.packagePaths, then ROS_PACKAGE_PATH's entries (when useRosPackagePath),
// empty entries left out, each made absolute.
std::vector<std::string> urdfPackageRoots(const UrdfImportOptions& options);

// Where a package:// URI was looked for.
struct PackageLookup {
  bool wellFormed = false;         // package://NAME/PATH with a non-empty NAME and PATH
  std::string package, relative;   // NAME and PATH
  std::string path;                // the file found (absolute, normalised), or "" when none
  std::vector<std::string> tried;  // every candidate file checked, in order (the last one is `path` when found)
  std::vector<std::string> packageDirs;  // the directories taken for the package (R/NAME, R, or found below R)
};

// Resolves `uri` (package://NAME/PATH) against `roots` by the rule above.
PackageLookup resolvePackageUri(const std::string& uri, const std::vector<std::string>& roots);

}  // namespace ms
