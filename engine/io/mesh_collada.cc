// SPDX-License-Identifier: GPL-3.0-or-later
// COLLADA (.dae) geometry for collision meshes (mesh_file.h): the vertex positions and triangles of
// the geometries the file's scene places, in metres, z up — what ROS's mesh loaders (and
// OpenSceneGraph's dae plugin, which draws the same file) show.
//   - <asset><unit meter="s"/> scales every coordinate by s (default 1); <up_axis> Y_UP turns y into
//     z (a quarter turn about x: (x, y, z) → (x, −z, y)), X_UP turns x into z ((x, y, z) → (−z, y, x)).
//   - The scene: <scene><instance_visual_scene url="#id"/> (else the first <visual_scene>); its
//     <node>s, nested, each with its transform (<matrix> row-major, <translate>, <rotate x y z deg>,
//     <scale>, applied in the order written), <instance_geometry url="#id"> and <instance_node
//     url="#id"> (a node of <library_nodes>). A file without a visual scene: every geometry as is.
//   - A geometry's <mesh>: the <source> its <vertices> take as POSITION (a <float_array>, read with
//     its <accessor>'s stride and offset), and its <triangles>, <polylist> (with <vcount>) and
//     <polygons> (<p> per polygon), whose VERTEX input indexes the positions (polygons fanned from
//     their first corner). Lines and other primitives add no triangles. Only the positions the
//     triangles use count (exporters leave others in the array; what is drawn, and what ROS's
//     loaders collide, is the triangles); a mesh without triangles gives all of its positions.
// Errors (not XML, not COLLADA, a number that is not finite, an index out of range, a reference to
// nothing) carry the line of the element.
#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "io/mesh_file.h"

namespace ms {

namespace {

using tinyxml2::XMLElement;
using Mat4d = Eigen::Matrix4d;

struct Collada {
  std::map<std::string, const XMLElement*> byId;
  MeshData& out;
  MeshFileError& err;
  int depth = 0;

  bool fail(const XMLElement* e, const std::string& message) {
    err.message = message;
    err.line = e ? e->GetLineNum() : 0;
    err.column = e ? 1 : 0;
    return false;
  }

  // The element a "#id" url names.
  const XMLElement* target(const XMLElement* e, const char* attr) {
    const char* url = e->Attribute(attr);
    if (!url || url[0] != '#') return nullptr;
    auto it = byId.find(url + 1);
    return it == byId.end() ? nullptr : it->second;
  }

  // The finite numbers of an element's text; false (with an error) for anything else.
  bool numbersOf(const XMLElement* e, std::vector<double>& v) {
    v.clear();
    const char* t = e->GetText();
    if (!t) return true;
    std::istringstream in(t);
    std::string tok;
    while (in >> tok) {
      char* end = nullptr;
      const double x = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0' || !std::isfinite(x))
        return fail(e, "<" + std::string(e->Name()) + ">: '" + tok.substr(0, 40) + "' is not a finite number");
      v.push_back(x);
    }
    return true;
  }

  // The positions of a <source>: its float_array read through its accessor (stride, first 3 values).
  bool positions(const XMLElement* source, std::vector<Vec3>& pts) {
    const XMLElement* fa = source->FirstChildElement("float_array");
    if (!fa) return fail(source, "a position <source> without a <float_array>");
    std::vector<double> v;
    if (!numbersOf(fa, v)) return false;
    int stride = 3, count = int(v.size() / 3);
    if (const XMLElement* tc = source->FirstChildElement("technique_common"))
      if (const XMLElement* acc = tc->FirstChildElement("accessor")) {
        stride = acc->IntAttribute("stride", 3);
        count = acc->IntAttribute("count", count);
      }
    if (stride < 3 || count < 0 || (long long)count * stride > (long long)v.size())
      return fail(source, "the position accessor reads past its <float_array> (count " + std::to_string(count) +
                              ", stride " + std::to_string(stride) + ", " + std::to_string(v.size()) + " values)");
    pts.resize(size_t(count));
    for (int i = 0; i < count; ++i) pts[size_t(i)] = Vec3(v[size_t(i * stride)], v[size_t(i * stride + 1)], v[size_t(i * stride + 2)]);
    return true;
  }

  // One <mesh>'s vertices (transformed by m) and triangles, appended to out.
  bool addMesh(const XMLElement* mesh, const Mat4d& m) {
    // The <vertices> element and the positions it takes.
    const XMLElement* verts = mesh->FirstChildElement("vertices");
    if (!verts) return fail(mesh, "a <mesh> without <vertices>");
    const XMLElement* posSource = nullptr;
    for (const XMLElement* in = verts->FirstChildElement("input"); in; in = in->NextSiblingElement("input"))
      if (const char* s = in->Attribute("semantic"); s && std::string(s) == "POSITION") posSource = target(in, "source");
    if (!posSource) return fail(verts, "<vertices> without a POSITION input that names a <source>");
    std::vector<Vec3> pts;
    if (!positions(posSource, pts)) return false;
    std::vector<std::array<int, 3>> tris;  // indices into pts
    // Triangles of every polygon primitive, fanned from the first corner.
    for (const XMLElement* prim = mesh->FirstChildElement(); prim; prim = prim->NextSiblingElement()) {
      const std::string kind = prim->Name();
      if (kind != "triangles" && kind != "polylist" && kind != "polygons") continue;
      int inputs = 0, vertexOffset = -1;
      for (const XMLElement* in = prim->FirstChildElement("input"); in; in = in->NextSiblingElement("input")) {
        const int off = std::clamp(in->IntAttribute("offset", 0), 0, 64);
        inputs = std::max(inputs, off + 1);
        if (const char* s = in->Attribute("semantic"); s && std::string(s) == "VERTEX") vertexOffset = off;
      }
      if (vertexOffset < 0) return fail(prim, "<" + kind + "> without a VERTEX input");
      std::vector<double> counts;
      if (kind == "polylist")
        if (const XMLElement* vc = prim->FirstChildElement("vcount"); vc && !numbersOf(vc, counts)) return false;
      std::vector<const XMLElement*> ps;
      for (const XMLElement* p = prim->FirstChildElement("p"); p; p = p->NextSiblingElement("p")) ps.push_back(p);
      for (const XMLElement* p : ps) {
        std::vector<double> idx;
        if (!numbersOf(p, idx)) return false;
        // The polygons of this <p>: all triangles, the <vcount> sizes, or one polygon (<polygons>).
        std::vector<int> sizes;
        const int corners = int(idx.size()) / inputs;
        if (kind == "triangles") sizes.assign(size_t(corners / 3), 3);
        else if (kind == "polylist")
          for (double c : counts) {
            if (!(c >= 0 && c <= double(corners)) || c != std::floor(c))
              return fail(p, "<vcount> of <polylist> lists a polygon of " + std::to_string(c) + " corners");
            sizes.push_back(int(c));
          }
        else sizes.push_back(corners);
        int corner = 0;
        for (int n : sizes) {
          if (n < 0 || corner + n > corners) return fail(p, "<" + kind + "> lists more corners than its <p> holds");
          const auto vertexAt = [&](int k, int& v) {
            const double x = idx[size_t((corner + k) * inputs + vertexOffset)];
            if (x < 0 || x >= double(pts.size()) || x != std::floor(x)) return false;
            v = int(x);
            return true;
          };
          int a = 0, b = 0, c = 0;
          for (int k = 1; k + 1 < n; ++k) {
            if (!vertexAt(0, a) || !vertexAt(k, b) || !vertexAt(k + 1, c))
              return fail(p, "a vertex index of <" + kind + "> is not one of its " + std::to_string(pts.size()) + " positions");
            tris.push_back({a, b, c});
          }
          corner += n;
        }
      }
    }
    // The positions the triangles use (exporters leave others in the array; what draws and what
    // ROS's loaders collide is the triangles), all of them for a mesh without triangles.
    std::vector<int> at(pts.size(), tris.empty() ? 0 : -1);
    for (const auto& t : tris)
      for (int v : t) at[size_t(v)] = 0;
    for (size_t i = 0; i < pts.size(); ++i)
      if (at[i] == 0) {
        at[i] = int(out.vertices.size());
        out.vertices.push_back((m * pts[i].homogeneous()).head<3>());
      }
    for (const auto& t : tris) out.triangles.push_back({at[size_t(t[0])], at[size_t(t[1])], at[size_t(t[2])]});
    return true;
  }

  // A node's own transform (its transform elements in order) applied after `parent`.
  bool nodeTransform(const XMLElement* node, const Mat4d& parent, Mat4d& m) {
    m = parent;
    std::vector<double> v;
    for (const XMLElement* t = node->FirstChildElement(); t; t = t->NextSiblingElement()) {
      const std::string k = t->Name();
      if (k != "matrix" && k != "translate" && k != "rotate" && k != "scale") continue;
      if (!numbersOf(t, v)) return false;
      const size_t need = k == "matrix" ? 16 : k == "rotate" ? 4 : 3;
      if (v.size() != need) return fail(t, "<" + k + "> needs " + std::to_string(need) + " numbers");
      Mat4d x = Mat4d::Identity();
      if (k == "matrix") {
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 4; ++c) x(r, c) = v[size_t(4 * r + c)];
      } else if (k == "translate") {
        x.block<3, 1>(0, 3) = Vec3(v[0], v[1], v[2]);
      } else if (k == "scale") {
        x.block<3, 3>(0, 0) = Vec3(v[0], v[1], v[2]).asDiagonal();
      } else {
        const Vec3 axis(v[0], v[1], v[2]);
        if (axis.norm() > 0) x.block<3, 3>(0, 0) = Eigen::AngleAxisd(v[3] * kPi / 180, axis.normalized()).toRotationMatrix();
      }
      m = m * x;
    }
    return true;
  }

  // A node and its children: the geometries they place.
  bool addNode(const XMLElement* node, const Mat4d& parent) {
    if (++depth > 64) return fail(node, "nodes nested deeper than 64 (or instancing themselves)");
    Mat4d m;
    bool ok = nodeTransform(node, parent, m);
    for (const XMLElement* c = node->FirstChildElement(); ok && c; c = c->NextSiblingElement()) {
      const std::string k = c->Name();
      if (k == "node") {
        ok = addNode(c, m);
      } else if (k == "instance_geometry") {
        const XMLElement* g = target(c, "url");
        if (!g) ok = fail(c, "<instance_geometry> names no <geometry>");
        else if (const XMLElement* mesh = g->FirstChildElement("mesh")) ok = addMesh(mesh, m);
      } else if (k == "instance_node") {
        const XMLElement* n = target(c, "url");
        if (!n) ok = fail(c, "<instance_node> names no <node>");
        else ok = addNode(n, m);
      }
    }
    --depth;
    return ok;
  }
};

// Every element with an id, by id.
void indexIds(const XMLElement* e, std::map<std::string, const XMLElement*>& byId) {
  for (; e; e = e->NextSiblingElement()) {
    if (const char* id = e->Attribute("id")) byId.emplace(id, e);
    indexIds(e->FirstChildElement(), byId);
  }
}

}  // namespace

bool readColladaBytes(const std::string& bytes, MeshData& out, MeshFileError& err) {
  out = MeshData();
  err = MeshFileError();
  tinyxml2::XMLDocument doc;
  if (doc.Parse(bytes.data(), bytes.size()) != tinyxml2::XML_SUCCESS) {
    err.message = std::string("not an XML file: ") + (doc.ErrorStr() ? doc.ErrorStr() : "malformed");
    err.line = doc.ErrorLineNum();
    err.column = err.line > 0 ? 1 : 0;
    return false;
  }
  const XMLElement* root = doc.RootElement();
  if (!root || std::string(root->Name()) != "COLLADA") {
    err.message = std::string("the root element is <") + (root ? root->Name() : "") + ">, not <COLLADA>";
    err.line = root ? root->GetLineNum() : 0;
    err.column = err.line > 0 ? 1 : 0;
    return false;
  }
  Collada c{{}, out, err};
  indexIds(root->FirstChildElement(), c.byId);
  // Units and up axis: the file's frame to metres, z up.
  Mat4d m = Mat4d::Identity();
  if (const XMLElement* asset = root->FirstChildElement("asset")) {
    if (const XMLElement* unit = asset->FirstChildElement("unit")) {
      const double s = unit->DoubleAttribute("meter", 1.0);
      if (!(s > 0) || !std::isfinite(s)) return c.fail(unit, "<unit meter> must be a positive number");
      m.block<3, 3>(0, 0) *= s;
    }
    if (const XMLElement* up = asset->FirstChildElement("up_axis"); up && up->GetText()) {
      const std::string axis = up->GetText();
      Mat4d r = Mat4d::Identity();
      if (axis == "Y_UP") r.block<3, 3>(0, 0) << 1, 0, 0, 0, 0, -1, 0, 1, 0;
      else if (axis == "X_UP") r.block<3, 3>(0, 0) << 0, 0, -1, 0, 1, 0, 1, 0, 0;
      m = r * m;
    }
  }
  // The scene's nodes, or every geometry when there is no scene.
  const XMLElement* scene = nullptr;
  if (const XMLElement* s = root->FirstChildElement("scene"))
    if (const XMLElement* ivs = s->FirstChildElement("instance_visual_scene")) scene = c.target(ivs, "url");
  if (!scene)
    if (const XMLElement* lib = root->FirstChildElement("library_visual_scenes")) scene = lib->FirstChildElement("visual_scene");
  if (scene) {
    for (const XMLElement* n = scene->FirstChildElement("node"); n; n = n->NextSiblingElement("node"))
      if (!c.addNode(n, m)) return out = MeshData(), false;
  } else {
    for (const XMLElement* lib = root->FirstChildElement("library_geometries"); lib; lib = lib->NextSiblingElement("library_geometries"))
      for (const XMLElement* g = lib->FirstChildElement("geometry"); g; g = g->NextSiblingElement("geometry"))
        if (const XMLElement* mesh = g->FirstChildElement("mesh"); mesh && !c.addMesh(mesh, m)) return out = MeshData(), false;
  }
  if (out.vertices.empty()) {
    err.message = "the COLLADA file places no mesh vertices";
    return false;
  }
  return true;
}

}  // namespace ms
