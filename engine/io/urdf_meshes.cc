// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import: geometry. Each link's <visual>s (with their material colour) and <collision>s as
// shapes in its body's centre-of-mass frame; mesh files checked, package:// URIs resolved (the
// lookup is in urdf_packages.cc), collision meshes read for their convex hull.
#include <filesystem>

#include "io/urdf_internal.h"

namespace fs = std::filesystem;

namespace ms::urdf_detail {

namespace {

// Texts joined with ", " (for lists of paths in messages).
std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The line of the <geometry><mesh> element of a <visual> or <collision> (`fallback` without one).
int meshLine(const XMLElement* shape, int fallback) {
  const XMLElement* g = shape ? shape->FirstChildElement("geometry") : nullptr;
  return lineOf(g ? g->FirstChildElement("mesh") : nullptr, fallback);
}

}  // namespace

// Copies a link's visuals and collisions onto its body, in the body's centre-of-mass frame.
void Importer::addGeometry(Model& model, const LinkInfo& info) {
  const urdf::Link& link = *info.link;
  if (info.body == kInvalidBody) return;
  const XMLElement* linkElem = linkElement(link.name);
  // Links fixed to the world: the model has no world geometry.
  if (info.body < 0) {
    if (!link.visual_array.empty() || !link.collision_array.empty())
      warning(linkLine(link.name), "link '" + link.name +
                                       "' is fixed to the world; its visual and collision geometry is not imported");
    return;
  }
  BodyDesc& body = model.bodies[info.body];
  // Visuals, with their material colour.
  for (size_t i = 0; i < link.visual_array.size(); ++i) {
    const urdf::VisualSharedPtr& v = link.visual_array[i];
    if (!v) continue;
    const XMLElement* elem = nthChild(linkElem, "visual", i);
    ShapeDesc s;
    const std::string where = "link '" + link.name + "', visual " + std::to_string(i + 1);
    const int line = lineOf(elem, linkLine(link.name));
    if (!makeShape(v->geometry.get(), info.inBody * toFrame(v->origin), where, line, meshLine(elem, line), s))
      continue;
    if (v->material && colourGiven(elem, *v->material)) {
      const urdf::Color& c = v->material->color;
      s.color = Vec4(c.r, c.g, c.b, c.a);
    }
    body.visuals.push_back(std::move(s));
  }
  // Collisions.
  for (size_t i = 0; i < link.collision_array.size(); ++i) {
    const urdf::CollisionSharedPtr& c = link.collision_array[i];
    if (!c) continue;
    const XMLElement* elem = nthChild(linkElem, "collision", i);
    ShapeDesc s;
    const std::string where = "link '" + link.name + "', collision " + std::to_string(i + 1);
    const int line = lineOf(elem, linkLine(link.name));
    if (makeShape(c->geometry.get(), info.inBody * toFrame(c->origin), where, line, meshLine(elem, line), s, true))
      body.collisions.push_back(std::move(s));
  }
}

// True when the visual's material states a colour (inline, or in the named robot-level material);
// a texture-only material keeps the default colour.
bool Importer::colourGiven(const XMLElement* visual, const urdf::Material& material) const {
  const XMLElement* m = visual ? visual->FirstChildElement("material") : nullptr;
  if (!m) return material.texture_filename.empty();
  if (m->FirstChildElement("color")) return true;
  const char* name = m->Attribute("name");
  if (!name) return false;
  auto it = xml_.materials.find(name);
  return it != xml_.materials.end() && it->second->FirstChildElement("color") != nullptr;
}

// Converts one urdfdom geometry placed at `pose` (body frame); false (with a warning) when unusable.
// A collision mesh also gets its vertices (loadCollisionMesh). Mesh warnings are given at `meshAt`.
bool Importer::makeShape(const urdf::Geometry* g, const Frame& pose, const std::string& where, int line, int meshAt,
               ShapeDesc& s, bool collision) {
  if (!g) return false;
  if (!finite(pose)) {
    warning(line, where + ": origin is not finite; the shape is skipped");
    return false;
  }
  s.position = pose.p;
  s.orientation = toQuat(pose.R);
  switch (g->type) {
    case urdf::Geometry::SPHERE: {
      const double r = static_cast<const urdf::Sphere*>(g)->radius;
      s.kind = ShapeDesc::Kind::Sphere;
      s.size = Vec3(r, 0, 0);
      break;
    }
    case urdf::Geometry::BOX: {
      s.kind = ShapeDesc::Kind::Box;
      s.size = toVec(static_cast<const urdf::Box*>(g)->dim);
      break;
    }
    case urdf::Geometry::CYLINDER: {
      const auto* c = static_cast<const urdf::Cylinder*>(g);
      s.kind = ShapeDesc::Kind::Cylinder;
      s.size = Vec3(c->radius, c->length, 0);
      break;
    }
    case urdf::Geometry::MESH: {
      const auto* m = static_cast<const urdf::Mesh*>(g);
      s.kind = ShapeDesc::Kind::Mesh;
      s.meshFile = m->filename;
      s.meshScale = toVec(m->scale);
      s.size = Vec3::Zero();
      // A negative factor mirrors the mesh (left and right links share one file): kept. Zero flattens it.
      if (!s.meshScale.allFinite() || s.meshScale.cwiseAbs().minCoeff() <= 0) {
        warning(meshAt, where + ": mesh scale must be finite and not zero; the shape is skipped");
        return false;
      }
      // package://: the file found replaces the URI; an unresolved one is kept as written (warned).
      if (!resolvePackage(s, where, meshAt, collision)) return true;
      if (collision) loadCollision(s, where, meshAt);
      else checkMeshFile(s.meshFile, where, meshAt);
      return !s.meshFile.empty();
    }
    default:
      warning(line, where + ": unknown geometry; the shape is skipped");
      return false;
  }
  // Primitive sizes: positive and finite.
  const int used = s.kind == ShapeDesc::Kind::Box ? 3 : s.kind == ShapeDesc::Kind::Sphere ? 1 : 2;
  if (!s.size.head(used).allFinite() || s.size.head(used).minCoeff() <= 0) {
    warning(line, where + ": shape dimensions must be positive; the shape is skipped");
    return false;
  }
  return true;
}

// A package://NAME/PATH mesh: s.meshFile becomes the absolute path of the file found (true). When
// there is none (or the URI is malformed), a warning names the package, the URI and every path
// tried, and the URI is kept as written (false). Other names are left alone (true).
bool Importer::resolvePackage(ShapeDesc& s, const std::string& where, int line, bool collision) {
  if (s.meshFile.rfind("package://", 0) != 0) return true;
  const PackageLookup found = packages_.resolve(s.meshFile);
  const std::string kept = collision ? " (the URI is kept as written; the mesh does not collide)"
                                     : " (the URI is kept as written; the 3D view draws a small box)";
  // Malformed: package://NAME without a path.
  if (!found.wellFormed) {
    warning(line, where + ": mesh '" + s.meshFile + "' is not a package URI of the form package://NAME/PATH" + kept);
    return false;
  }
  if (!found.path.empty()) {
    s.meshFile = found.path;
    return true;
  }
  // Not found: what was tried, and how to add a root.
  const std::string how = "; give the directory that holds the package '" + found.package +
                          "' with --package-path DIR, the ROS_PACKAGE_PATH environment variable or the Settings "
                          "field 'Package paths'";
  std::string what;
  if (packages_.roots().empty()) {
    what = "package '" + found.package + "' not found: no package paths are set (nothing was tried)";
  } else {
    what = found.packageDirs.empty() ? "package '" + found.package + "' not found"
                                     : "package '" + found.package + "' (" + joined(found.packageDirs) +
                                           ") has no file '" + found.relative + "'";
    what += "; tried " + joined(found.tried) + " (and searched " + joined(packages_.roots()) +
            " for a directory '" + found.package + "' holding a package.xml, up to " +
            std::to_string(kPackageSearchDepth) + " levels down)";
  }
  warning(line, where + ": mesh '" + s.meshFile + "': " + what + how + kept);
  return false;
}

// Warns about a mesh file that cannot be found (the name is kept as written either way).
void Importer::checkMeshFile(const std::string& name, const std::string& where, int line) {
  if (name.empty()) {
    warning(line, where + ": mesh without a file name; the shape is skipped");
    return;
  }
  std::string path = name;
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  else if (path.find("://") != std::string::npos) {
    warning(line, where + ": mesh '" + name + "' uses a URI that cannot be resolved here (kept as written)");
    return;
  }
  std::error_code ec;
  fs::path p(path);
  if (p.is_relative() && !baseDir_.empty()) p = fs::path(baseDir_) / p;
  if (!fs::exists(p, ec)) warning(line, where + ": mesh file '" + name + "' not found (looked for " + p.string() + ")");
}

// Reads a collision mesh's vertices. A mesh that cannot be used (a URI other than file:// (package://
// URIs are resolved before, by resolvePackage), a file that cannot be read, a degenerate hull, too
// many hull vertices) is kept as written, without vertices, with a warning that it does not collide.
void Importer::loadCollision(ShapeDesc& s, const std::string& where, int line) {
  if (s.meshFile.empty()) {
    warning(line, where + ": mesh without a file name; the shape is skipped");
    return;
  }
  std::string path = s.meshFile;
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  else if (path.find("://") != std::string::npos) {
    warning(line, where + ": mesh '" + s.meshFile +
                      "' uses a URI that cannot be resolved here (kept as written); it does not collide");
    return;
  }
  CollisionMeshReport report;
  const bool loaded = loadCollisionMesh(s, resolveMeshPath(path, baseDir_), meshFiles_, report);
  for (const std::string& w : report.warnings) warning(line, where + ": " + w);
  for (const std::string& n : report.notes) note(line, where + ": " + n);
  if (!loaded) warning(line, where + ": " + report.error + " (kept as written; it does not collide)");
}

}  // namespace ms::urdf_detail
