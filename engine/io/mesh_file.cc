// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh file reader (see mesh_file.h). Formats:
//   - Wavefront OBJ: `v x y z [more numbers]` and `f a b c …` with a, a/t, a/t/n or a//n per corner,
//     1-based indices or negative ones counting back from the last vertex defined; `#` starts a
//     comment; every other record (vn, vt, o, g, s, usemtl, mtllib, l, …) is ignored.
//   - STL, binary: an 80-byte header, a little-endian uint32 triangle count, 50 bytes per triangle
//     (normal, three corners as float32, a uint16 attribute). A file is binary when its size is exactly
//     84 + 50·count (binary files may start with "solid" too), or when it does not read as text.
//   - STL, ASCII: solid NAME (facet normal x y z outer loop (vertex x y z){3,} endloop endfacet)*
//     endsolid NAME, possibly several solids.
//   - COLLADA: mesh_collada.cc.
#include "io/mesh_file.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "io/reader_diagnostics.h"

namespace ms {

namespace fs = std::filesystem;

std::string MeshFileError::formatAt(const std::string& path) const { return path + (line > 0 ? ":" : ": ") + format(); }

std::string MeshFileError::format() const {
  if (line > 0) return lineColumn(line, column) + ": " + message;
  if (byteOffset >= 0) return "byte " + std::to_string(byteOffset) + ": " + message;
  return message;
}

namespace {

// A token of a text line with its 1-based column.
struct Token {
  std::string_view text;
  int column = 0;
};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// The whitespace-separated tokens of one line (a '#' ends the line when `hashComments`).
std::vector<Token> tokens(std::string_view line, bool hashComments) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isSpace(line[i])) ++i;
    if (i >= line.size() || (hashComments && line[i] == '#')) break;
    const size_t start = i;
    while (i < line.size() && !isSpace(line[i]) && !(hashComments && line[i] == '#')) ++i;
    out.push_back({line.substr(start, i - start), int(start) + 1});
  }
  return out;
}

// Shortened token for messages.
std::string shown(std::string_view t) {
  return t.size() > 40 ? std::string(t.substr(0, 37)) + "..." : std::string(t);
}

// Parses a whole token as a finite double; false with a message otherwise.
bool parseCoordinate(std::string_view t, double& v, std::string& why) {
  std::string_view s = t;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    why = "'" + shown(t) + "' is out of the range of a double";
    return false;
  }
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) {
    why = "'" + shown(t) + "' is not a number";
    return false;
  }
  if (!std::isfinite(v)) {
    why = "coordinate '" + shown(t) + "' is not finite";
    return false;
  }
  return true;
}

// Fails with `message` at line:column.
bool failAt(MeshFileError& err, int line, int column, const std::string& message) {
  err.message = message;
  err.line = line;
  err.column = column;
  err.byteOffset = -1;
  return false;
}

// Splits text into lines (without the '\n'); calls f(lineNumber, line) until it returns false.
template <class F>
bool forEachLine(const std::string& text, F&& f) {
  size_t start = 0;
  int number = 1;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (!f(number, std::string_view(text).substr(start, end - start))) return false;
    if (end == text.size()) break;
    start = end + 1;
    ++number;
  }
  return true;
}

bool readObj(const std::string& text, MeshData& out, MeshFileError& err) {
  const bool ok = forEachLine(text, [&](int lineNo, std::string_view line) {
    const std::vector<Token> t = tokens(line, true);
    if (t.empty()) return true;
    if (t[0].text == "v") {
      if (t.size() < 4)
        return failAt(err, lineNo, t[0].column,
                      "a vertex needs 3 coordinates (got " + std::to_string(t.size() - 1) + ")");
      Vec3 p;
      for (size_t k = 1; k < t.size(); ++k) {
        double x = 0;
        std::string why;
        // Coordinates 4… (w, or the r g b of some exporters) must be numbers but are not used.
        if (!parseCoordinate(t[k].text, x, why)) return failAt(err, lineNo, t[k].column, why);
        if (k <= 3) p(int(k) - 1) = x;
      }
      out.vertices.push_back(p);
      return true;
    }
    if (t[0].text == "f") {
      if (t.size() < 4)
        return failAt(err, lineNo, t[0].column,
                      "a face needs at least 3 corners (got " + std::to_string(t.size() - 1) + ")");
      std::vector<int> corners;
      for (size_t k = 1; k < t.size(); ++k) {
        const std::string_view whole = t[k].text;
        const std::string_view index = whole.substr(0, whole.find('/'));
        long i = 0;
        const auto r = std::from_chars(index.data(), index.data() + index.size(), i);
        if (r.ec != std::errc() || r.ptr != index.data() + index.size() || index.empty())
          return failAt(err, lineNo, t[k].column, "face corner '" + shown(whole) + "' does not start with a vertex index");
        const long n = long(out.vertices.size());
        if (i == 0) return failAt(err, lineNo, t[k].column, "face index 0 (OBJ indices start at 1)");
        if (i > n)
          return failAt(err, lineNo, t[k].column,
                        "face index " + std::to_string(i) + " refers to a vertex not defined before this line (" +
                            std::to_string(n) + (n == 1 ? " vertex" : " vertices") + " so far)");
        if (i < -n)
          return failAt(err, lineNo, t[k].column,
                        "face index " + std::to_string(i) + " counts back past the first vertex (" + std::to_string(n) +
                            (n == 1 ? " vertex" : " vertices") + " so far)");
        corners.push_back(int(i > 0 ? i - 1 : n + i));
      }
      for (size_t k = 1; k + 1 < corners.size(); ++k) out.triangles.push_back({corners[0], corners[k], corners[k + 1]});
      return true;
    }
    return true;  // any other record
  });
  if (!ok) return false;
  if (out.vertices.empty()) return failAt(err, 0, 0, "the file has no vertices ('v x y z' lines)");
  return true;
}

// Adds a corner to an STL mesh, merging it with an identical one (STL repeats shared corners).
int stlVertex(const Vec3& p, MeshData& out, std::map<std::array<double, 3>, int>& index) {
  const auto [it, added] = index.emplace(std::array<double, 3>{p.x(), p.y(), p.z()}, int(out.vertices.size()));
  if (added) out.vertices.push_back(p);
  return it->second;
}

uint32_t le32(const unsigned char* b) {
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

bool readBinaryStl(const std::string& bytes, MeshData& out, MeshFileError& err) {
  const auto failAtByte = [&](long long offset, const std::string& message) {
    err.message = message;
    err.line = err.column = 0;
    err.byteOffset = offset;
    return false;
  };
  const long long size = (long long)bytes.size();
  if (size < 84)
    return failAtByte(size, "not an STL file: " + std::to_string(size) +
                                " bytes is shorter than the 84-byte header of a binary STL, and it does not read as an ASCII STL");
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  const long long count = le32(b + 80);
  const long long expected = 84 + 50 * count;
  if (size < expected) {
    const long long complete = (size - 84) / 50;
    return failAtByte(84 + 50 * complete, "truncated binary STL: the header announces " + std::to_string(count) +
                                              " triangles (" + std::to_string(expected) + " bytes) but the file has " +
                                              std::to_string(size) + " bytes (triangle " + std::to_string(complete + 1) +
                                              " is incomplete)");
  }
  if (size > expected)
    return failAtByte(expected, "binary STL with " + std::to_string(size - expected) +
                                    " bytes after its last triangle (the header announces " + std::to_string(count) +
                                    " triangles)");
  std::map<std::array<double, 3>, int> index;
  for (long long t = 0; t < count; ++t) {
    const long long base = 84 + 50 * t;
    std::array<int, 3> tri{};
    for (int c = 0; c < 3; ++c) {
      Vec3 p;
      for (int d = 0; d < 3; ++d) {
        const long long at = base + 12 + 12 * c + 4 * d;
        const uint32_t u = le32(b + at);
        float f;
        std::memcpy(&f, &u, sizeof f);
        if (!std::isfinite(f))
          return failAtByte(at, "coordinate " + std::string(1, char('x' + d)) + " of corner " + std::to_string(c + 1) +
                                    " of triangle " + std::to_string(t + 1) + " is not finite");
        p(d) = double(f);
      }
      tri[c] = stlVertex(p, out, index);
    }
    out.triangles.push_back(tri);
  }
  if (out.vertices.empty()) return failAtByte(80, "the binary STL has no triangles");
  return true;
}

bool readAsciiStl(const std::string& text, MeshData& out, MeshFileError& err) {
  // Every token with its line and column, then a small state machine over them.
  struct At {
    std::string_view text;
    int line, column;
  };
  std::vector<At> all;
  forEachLine(text, [&](int lineNo, std::string_view line) {
    for (const Token& t : tokens(line, false)) all.push_back({t.text, lineNo, t.column});
    return true;
  });
  // End of file: just after the last token.
  const int lastLine = all.empty() ? 1 : all.back().line;
  const int lastColumn = all.empty() ? 1 : all.back().column + int(all.back().text.size());
  size_t i = 0;
  const auto endOfFile = [&](const std::string& expected) {
    return failAt(err, lastLine, lastColumn, "unexpected end of file: expected " + expected);
  };
  // Expects the keyword `k` next.
  const auto keyword = [&](const char* k) {
    if (i >= all.size()) return endOfFile(std::string("'") + k + "'");
    if (all[i].text != k)
      return failAt(err, all[i].line, all[i].column, std::string("expected '") + k + "', got '" + shown(all[i].text) + "'");
    ++i;
    return true;
  };
  // Three numbers; finite ones when `finite` (a normal may be written as nan by some exporters).
  const auto three = [&](Vec3& p, bool finite) {
    for (int d = 0; d < 3; ++d) {
      if (i >= all.size()) return endOfFile("a number");
      std::string why;
      double x = 0;
      if (!parseCoordinate(all[i].text, x, why)) {
        const bool nonFinite = why.find("not finite") != std::string::npos;
        if (finite || !nonFinite) return failAt(err, all[i].line, all[i].column, why);
      }
      p(d) = x;
      ++i;
    }
    return true;
  };
  std::map<std::array<double, 3>, int> index;
  bool anySolid = false;
  while (i < all.size()) {
    // solid NAME (the rest of its line)
    if (!keyword("solid")) return false;
    anySolid = true;
    const int solidLine = all[i - 1].line;
    while (i < all.size() && all[i].line == solidLine) ++i;
    for (;;) {
      if (i >= all.size()) return endOfFile("'facet' or 'endsolid'");
      if (all[i].text == "endsolid") {
        const int endLine = all[i].line;
        ++i;
        while (i < all.size() && all[i].line == endLine) ++i;  // its name
        break;
      }
      Vec3 normal;
      if (!keyword("facet") || !keyword("normal") || !three(normal, false) || !keyword("outer") || !keyword("loop"))
        return false;
      std::vector<int> corners;
      while (i < all.size() && all[i].text == "vertex") {
        ++i;
        Vec3 p;
        if (!three(p, true)) return false;
        corners.push_back(stlVertex(p, out, index));
      }
      if (corners.size() < 3) {
        if (i >= all.size()) return endOfFile("'vertex'");
        return failAt(err, all[i].line, all[i].column,
                      corners.empty() ? "expected 'vertex', got '" + shown(all[i].text) + "'"
                                      : "a facet needs at least 3 vertices (got " + std::to_string(corners.size()) + ")");
      }
      if (!keyword("endloop") || !keyword("endfacet")) return false;
      for (size_t k = 1; k + 1 < corners.size(); ++k) out.triangles.push_back({corners[0], corners[k], corners[k + 1]});
    }
  }
  if (!anySolid) return failAt(err, 1, 1, "the file is empty");
  if (out.vertices.empty()) return failAt(err, 0, 0, "the STL file has no facets");
  return true;
}

// True when the bytes look like an ASCII STL: "solid" first and no bytes that text does not have.
bool looksLikeAsciiStl(const std::string& bytes) {
  size_t i = 0;
  while (i < bytes.size() && (isSpace(bytes[i]) || bytes[i] == '\n')) ++i;
  if (bytes.compare(i, 5, "solid") != 0) return false;
  for (unsigned char c : bytes)
    if (c == 0 || (c < 0x20 && !isSpace(char(c)) && c != '\n') || c == 0x7f) return false;
  return true;
}

bool readStl(const std::string& bytes, MeshData& out, MeshFileError& err) {
  // Binary when the size matches the header's triangle count (binary files may start with "solid").
  if (bytes.size() >= 84) {
    const long long count = le32(reinterpret_cast<const unsigned char*>(bytes.data()) + 80);
    if ((long long)bytes.size() == 84 + 50 * count) return readBinaryStl(bytes, out, err);
  }
  if (looksLikeAsciiStl(bytes)) return readAsciiStl(bytes, out, err);
  return readBinaryStl(bytes, out, err);
}

}  // namespace

bool meshFormatOf(const std::string& path, MeshFormat& format) {
  std::string e = fs::path(path).extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (e == ".obj") format = MeshFormat::Obj;
  else if (e == ".stl") format = MeshFormat::Stl;
  else if (e == ".dae") format = MeshFormat::Collada;
  else return false;
  return true;
}

bool readMeshBytes(const std::string& bytes, MeshFormat format, MeshData& out, MeshFileError& err) {
  out = MeshData();
  err = MeshFileError();
  if (format == MeshFormat::Collada) return readColladaBytes(bytes, out, err);
  const bool ok = format == MeshFormat::Obj ? readObj(bytes, out, err) : readStl(bytes, out, err);
  if (!ok) out = MeshData();
  return ok;
}

bool readMeshFile(const std::string& path, MeshData& out, MeshFileError& err) {
  out = MeshData();
  err = MeshFileError();
  MeshFormat format;
  if (!meshFormatOf(path, format)) {
    const std::string e = fs::path(path).extension().string();
    err.message = (e.empty() ? std::string("a mesh file name needs an extension")
                             : "unknown mesh file type '" + e + "'") +
                  " (meshes are read from .obj, .stl and .dae files)";
    return false;
  }
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    err.message = "cannot open '" + path + "': " + (ec ? ec.message() : std::string(std::strerror(ENOENT)));
    return false;
  }
  if (!fs::is_regular_file(st)) {
    err.message = "cannot read '" + path + "': " + (fs::is_directory(st) ? "it is a directory" : "it is not a regular file");
    return false;
  }
  const auto size = fs::file_size(path, ec);
  if (!ec && (long long)size > kMaxMeshFileBytes) {
    err.message = "'" + path + "' has " + std::to_string(size) + " bytes; mesh files may have at most " +
                  std::to_string(kMaxMeshFileBytes) + " bytes";
    return false;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err.message = "cannot open '" + path + "': " + std::strerror(errno ? errno : EACCES);
    return false;
  }
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) {
    err.message = "cannot read '" + path + "': " + std::strerror(errno ? errno : EIO);
    return false;
  }
  return readMeshBytes(os.str(), format, out, err);
}

}  // namespace ms
