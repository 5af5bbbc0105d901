// SPDX-License-Identifier: GPL-3.0-or-later
// Reader of mesh files for collision meshes: the vertices (and triangles) of a Wavefront OBJ, an
// STL file (binary or ASCII) or a COLLADA file (.dae: the geometry its scene places, in metres, z up;
// mesh_collada.cc). Only geometry is read; normals, texture coordinates, materials, groups
// and colours are ignored. Errors carry where in the file they are: line and column (OBJ, ASCII STL)
// or a byte offset (binary STL).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/types.h"

namespace ms {

// The geometry of a mesh file, in the file's units and frame.
struct MeshData {
  std::vector<Vec3> vertices;                   // OBJ: in file order; STL: bit-identical corners merged, first use first
  std::vector<std::array<int, 3>> triangles;    // 0-based vertex indices; polygons are fanned from their first vertex
};

// Where and why a mesh file could not be read.
struct MeshFileError {
  std::string message;     // a sentence for a user, e.g. "'1.0x' is not a number"
  int line = 0;            // 1-based line and column (bytes) for OBJ and ASCII STL; 0 = none
  int column = 0;
  long long byteOffset = -1;  // binary STL: the offset of the offending bytes; -1 = none
  // "3:7: message", "byte 184: message" or "message".
  std::string format() const;
  // `path` then the place and the message: "meshes/a.obj:2:5: …", "meshes/a.stl: …".
  std::string formatAt(const std::string& path) const;
};

enum class MeshFormat { Obj, Stl, Collada };

// Largest mesh file read (bytes); larger files are refused with a message.
constexpr long long kMaxMeshFileBytes = 512LL * 1024 * 1024;

// The format of a file name by its extension (.obj, .stl, .dae, any case); false for any other.
bool meshFormatOf(const std::string& path, MeshFormat& format);

// Reads the mesh file at `path` (the format from its extension). False with `err` set for: a file
// that cannot be opened or read (err.message names the path and the system's reason), an unknown
// extension, malformed content (a coordinate that is not a number, NaN or infinity, a face index
// out of range, a truncated binary STL, a misplaced ASCII STL keyword …) or a file without vertices.
bool readMeshFile(const std::string& path, MeshData& out, MeshFileError& err);
// The same for the bytes of a file already in memory.
bool readMeshBytes(const std::string& bytes, MeshFormat format, MeshData& out, MeshFileError& err);
// COLLADA bytes (mesh_collada.cc); errors carry the element's line.
bool readColladaBytes(const std::string& bytes, MeshData& out, MeshFileError& err);

}  // namespace ms
