// SPDX-License-Identifier: GPL-3.0-or-later
// MJCF import: geoms and assets. <asset> meshes and materials; each <geom> as a shape with its
// collision and drawing roles and its mass properties (a mesh's from its convex hull); the
// worldbody's planes as grounds.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <Eigen/Geometry>

#include "contact/convex_hull.h"
#include "core/suggest.h"
#include "io/mech_reader.h"
#include "io/mjcf_internal.h"

namespace fs = std::filesystem;

namespace ms::mjcf_detail {

void Importer::readAssets(const XMLElement* a) {
  for (const XMLElement* e = a->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "mesh") {
      checkAttributes(e);
      const std::string cls = classOf(e, "main");
      const char* file = attr(e, "file", cls);
      const char* vertex = attr(e, "vertex", cls);
      if (!file && !vertex) {
        error(e, "a <mesh> needs a file or vertex attribute");
        continue;
      }
      if (!e->Attribute("name") && !file) {
        error(e, "a <mesh> given by its vertices needs a name");
        continue;
      }
      std::string name = e->Attribute("name") ? e->Attribute("name") : fs::path(file).stem().string();
      MeshAsset m;
      if (file) m.file = file;
      m.el = e;
      if (vertex && !file) {
        Numbers n = numbers(e, "vertex", vertex, -3 * 100000);
        if (!n.ok) continue;
        if (n.v.size() % 3 != 0 || n.v.size() < 12) {
          error(e, "vertex", "vertex needs at least 4 points of 3 coordinates each (got " + std::to_string(n.v.size()) + " numbers)");
          continue;
        }
        for (size_t k = 0; k + 2 < n.v.size(); k += 3) m.vertices.emplace_back(n.v[k], n.v[k + 1], n.v[k + 2]);
      }
      if (const char* s = attr(e, "scale", cls)) {
        Numbers n = numbers(e, "scale", s, 3);
        if (n.ok) m.scale = Vec3(n.v[0], n.v[1], n.v[2]);
      }
      if (!meshes_.emplace(name, m).second) error(e, "name", "mesh '" + name + "' is defined twice");
    } else if (tag == "material") {
      checkAttributes(e);
      const char* name = e->Attribute("name");
      if (!name) {
        error(e, "a <material> needs a name");
        continue;
      }
      Vec4 rgba(1, 1, 1, 1);
      if (const char* t = attr(e, "rgba", classOf(e, "main"))) {
        Numbers n = numbers(e, "rgba", t, 4);
        if (n.ok) rgba = Vec4(n.v[0], n.v[1], n.v[2], n.v[3]);
      }
      materials_[name] = rgba;
    } else {
      unsupportedElement(e, tag == "texture" || tag == "hfield" || tag == "skin" ? "not drawn or simulated here" : "");
    }
  }
}

// One geom: its shape in the body frame, its collision and drawing roles, its mass properties.
bool Importer::readGeom(const XMLElement* e, const std::string& inherited, XGeom& g) {
  checkAttributes(e);
  g.el = e;
  const std::string cls = classOf(e, inherited);
  g.name = e->Attribute("name") ? e->Attribute("name") : "";
  const char* typeAttr = attr(e, "type", cls);
  const std::string type = typeAttr ? typeAttr : "sphere";
  static const std::vector<std::string> kinds = {"sphere", "capsule", "box", "cylinder", "plane", "mesh",
                                                 "ellipsoid", "hfield", "sdf"};
  if (std::find(kinds.begin(), kinds.end(), type) == kinds.end()) {
    error(e, "type", "unknown geom type '" + type + "'" + suggestion(type, kinds));
    return false;
  }
  if (type == "hfield" || type == "sdf") {
    warnOnce("geom-" + type, src_.attribute(e, "type"), "geom type '" + type + "' is not supported; the geom is left out");
    return false;
  }
  ShapeDesc& s = g.shape;
  Pose p = pose(e, cls);
  // Size: up to 3 numbers (their meaning depends on the type); fromto for the elongated types.
  std::vector<double> size = {0, 0, 0};
  if (const char* t = attr(e, "size", cls)) {
    Numbers n = numbers(e, "size", t, -3);
    if (!n.ok) return false;
    for (size_t k = 0; k < n.v.size(); ++k) size[k] = n.v[k];
  }
  if (const char* ft = attr(e, "fromto", cls)) {
    if (type != "capsule" && type != "cylinder" && type != "box" && type != "ellipsoid") {
      error(e, "fromto", "fromto applies to capsules, cylinders, boxes and ellipsoids, not to a " + type);
      return false;
    }
    Numbers n = numbers(e, "fromto", ft, 6);
    if (!n.ok) return false;
    const Vec3 a(n.v[0], n.v[1], n.v[2]), b(n.v[3], n.v[4], n.v[5]);
    const Vec3 d = b - a;
    if (d.norm() == 0) {
      error(e, "fromto", "the two ends of fromto coincide");
      return false;
    }
    p.t = 0.5 * (a + b);
    const Eigen::Quaterniond q = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), d.normalized());
    p.q = canonical(Vec4(q.w(), q.x(), q.y(), q.z()).normalized());
    if (type == "box" || type == "ellipsoid") size[1] = size[0];
    size[type == "box" || type == "ellipsoid" ? 2 : 1] = 0.5 * d.norm();
  }
  s.position = p.t;
  s.orientation = p.q;
  auto positive = [&](int count) {
    for (int k = 0; k < count; ++k)
      if (!(size[size_t(k)] > 0)) {
        error(e, "size", "a " + type + " needs " + std::to_string(count) + " positive size value" +
                             (count > 1 ? "s" : "") + " (got " + num(size[size_t(k)]) + ")");
        return false;
      }
    return true;
  };
  if (type == "sphere") {
    if (!positive(1)) return false;
    s.kind = ShapeDesc::Kind::Sphere, s.size = Vec3(size[0], 0, 0);
  } else if (type == "capsule" || type == "cylinder") {
    if (!positive(2)) return false;
    s.kind = type == "capsule" ? ShapeDesc::Kind::Capsule : ShapeDesc::Kind::Cylinder;
    s.size = Vec3(size[0], 2 * size[1], 0);
  } else if (type == "box") {
    if (!positive(3)) return false;
    s.kind = ShapeDesc::Kind::Box, s.size = 2 * Vec3(size[0], size[1], size[2]);
  } else if (type == "ellipsoid") {
    if (!positive(3)) return false;
    g.ellipsoid = true;
    g.usable = false;
    warnOnce("geom-ellipsoid", src_.attribute(e, "type"),
             "ellipsoid geoms are not supported: they count for mass and inertia but are neither drawn nor collide");
  } else if (type == "plane") {
    s.kind = ShapeDesc::Kind::Plane;
    s.size = Vec3(2 * size[0], 2 * size[1], 0);
    g.plane = true;
  } else {  // mesh
    const char* mesh = attr(e, "mesh", cls);
    if (!mesh) {
      error(e, "a mesh geom needs a mesh attribute");
      return false;
    }
    auto it = meshes_.find(mesh);
    if (it == meshes_.end()) {
      std::vector<std::string> names;
      for (const auto& kv : meshes_) names.push_back(kv.first);
      error(e, "mesh", std::string("unknown mesh '") + mesh + "'" + suggestion(mesh, names));
      return false;
    }
    if (!readMeshGeom(e, it->second, g)) return false;
  }
  // Colour: rgba, else the material's, else MuJoCo's grey.
  s.color = Vec4(0.5, 0.5, 0.5, 1);
  if (const char* m = attr(e, "material", cls)) {
    auto it = materials_.find(m);
    if (it != materials_.end()) s.color = it->second;
    else warning(e, "material", std::string("unknown material '") + m + "'; the default colour is used");
  }
  if (const char* t = attr(e, "rgba", cls)) {
    Numbers n = numbers(e, "rgba", t, 4);
    if (n.ok) s.color = Vec4(n.v[0], n.v[1], n.v[2], n.v[3]);
  }
  // Roles.
  g.contype = mask(e, "contype", cls, 1);
  g.conaffinity = mask(e, "conaffinity", cls, 1);
  g.collides = (g.contype | g.conaffinity) != 0;
  double group = 0;
  number(e, "group", cls, group);
  g.visible = group < 3;
  if (const char* f = attr(e, "friction", cls)) {
    Numbers n = numbers(e, "friction", f, -3);
    if (n.ok) g.friction = n.v[0];
    if (n.ok && g.friction < 0) error(e, "friction", "the friction coefficient is negative");
  }
  double condim = 3;
  if (number(e, "condim", cls, condim) && condim != 3) {
    if (condim == 1) g.friction = 0;
    warnOnce("condim", src_.attribute(e, "condim"),
             "condim " + num(condim) + " is not supported: contacts have Coulomb friction (condim 3)" +
                 (condim == 1 ? "; this geom's friction is set to 0" : ""));
  }
  // Mass properties (planes have none).
  if (g.plane) return true;
  double volume = 0;
  Mat3 unitInertia = Mat3::Zero();  // per unit mass, about the centroid, in the body frame
  if (g.ellipsoid) {
    const double a = size[0], b = size[1], c = size[2];
    volume = 4.0 / 3.0 * kPi * a * b * c;
    const Mat3 R = quat::rotation(p.q);
    unitInertia = R * Vec3((b * b + c * c) / 5, (a * a + c * c) / 5, (a * a + b * b) / 5).asDiagonal() * R.transpose();
    g.com = p.t;
  } else if (s.kind == ShapeDesc::Kind::Mesh) {
    volume = g.meshVolume;
    const Mat3 R = quat::rotation(s.orientation);
    unitInertia = R * g.meshUnitInertia * R.transpose();
    g.com = p.t;  // a mesh is centred at its centroid, like MuJoCo
  } else {
    if (!shapeVolume(s, volume) || !shapeInertia(s, 1.0, unitInertia)) volume = 0;
    g.com = p.t;
  }
  double density = 1000;
  number(e, "density", cls, density);
  if (number(e, "mass", cls, g.mass)) {
    if (g.mass < 0) error(e, "mass", "the mass is negative");
  } else {
    if (density < 0) error(e, "density", "the density is negative");
    g.mass = density * volume;
  }
  g.inertia = g.mass * unitInertia;
  g.hasMass = volume > 0 || g.mass > 0;
  return true;
}

// A mesh geom: the file (meshdir, then the model's directory) and its vertices' convex hull (for
// the centroid, the mass properties and, for a colliding geom, collisions (with a simplified hull when
// the full one has more than contact::kMaxHullVertices vertices)), placed so that its centroid is at the geom's position, as MuJoCo does.
bool Importer::readMeshGeom(const XMLElement* e, const MeshAsset& m, XGeom& g) {
  ShapeDesc& s = g.shape;
  s.kind = ShapeDesc::Kind::Mesh;
  s.meshScale = m.scale;
  std::string rel = m.file;
  if (!rel.empty() && !fs::path(rel).is_absolute() && !meshdir_.empty()) rel = (fs::path(meshdir_) / rel).lexically_normal().string();
  s.meshFile = rel;
  const std::string path = rel.empty() ? std::string() : resolveMeshPath(rel, baseDir_);
  const MeshData* data = nullptr;
  const MeshFileError* err = nullptr;
  contact::ConvexHull hull;
  std::string why;
  std::vector<Vec3> pts;
  if (path.empty()) {
    for (const Vec3& v : m.vertices) pts.push_back(v.cwiseProduct(m.scale));
  } else if (meshFiles_.read(path, data, err)) {
    for (const Vec3& v : data->vertices) pts.push_back(v.cwiseProduct(m.scale));
  }
  if (pts.empty() || !contact::buildConvexHull(pts, hull, why)) {
    warnOnce("mesh-file:" + m.file, src_.attribute(m.el, "file"),
             "mesh '" + m.file + "': " + (err ? err->format() : why) +
                 " (drawn if the viewer reads it; it neither collides nor has mass)");
    g.collides = false;
    return true;
  }
  const contact::HullMassProperties mp = contact::hullMassProperties(hull);
  s.position = s.position - quat::rotate(s.orientation, mp.centroid);
  g.meshVolume = mp.volume;
  g.meshUnitInertia = mp.volume > 0 ? Mat3(mp.inertiaPerDensity / mp.volume) : Mat3::Zero();
  const Mat3& J = mp.inertiaPerDensity;
  const double off = std::max({std::abs(J(0, 1)), std::abs(J(0, 2)), std::abs(J(1, 2))});
  if (off > 1e-6 * J.diagonal().maxCoeff())
    warnOnce("mesh-axes:" + m.file, src_.element(e),
             "mesh '" + m.file + "': MuJoCo would also turn it to its principal axes; MechStudio keeps the file's orientation");
  if (path.empty()) {
    // Given by its vertices: MechStudio's meshes are files, so it only counts for mass and inertia.
    warnOnce("mesh-vertex", src_.attribute(m.el, "vertex"),
             "a mesh given by its vertices counts for mass and inertia but is neither drawn nor collides "
             "(MechStudio's meshes are files)");
    g.visible = g.collides = false;
    return true;
  }
  if (!g.collides) return true;
  CollisionMeshReport rep;
  ShapeDesc probe = s;
  if (!loadCollisionMesh(probe, path, meshFiles_, rep)) {
    warnOnce("mesh-collide:" + m.file, src_.element(e), "mesh '" + m.file + "': " + rep.error + "; it is drawn but does not collide");
    g.collides = false;
    return true;
  }
  for (const std::string& w : rep.warnings) warnOnce("mesh-warn:" + m.file + w, src_.element(e), w);
  for (const std::string& n : rep.notes) reportOnce(Severity::Note, "mesh-note:" + m.file + n, src_.element(e), n);
  s.meshVertices = std::move(probe.meshVertices);
  return true;
}

void Importer::makeGrounds() {
  for (const XMLElement* ct = root_->FirstChildElement("contact"); ct; ct = ct->NextSiblingElement("contact"))
    for (const XMLElement* e = ct->FirstChildElement("pair"); e; e = e->NextSiblingElement("pair"))
      for (const char* a : {"geom1", "geom2"})
        if (const char* n = e->Attribute(a)) pairedGeoms_.insert(n);
  for (size_t k = 0; k < planes_.size(); ++k) {
    const XGeom& g = planes_[k];
    // A plane that collides with nothing (and is not in a <pair>) is only a picture: left out.
    if (!g.collides && !pairedGeoms_.count(g.name)) {
      note(g.el, "this plane collides with nothing (contype and conaffinity 0); MechStudio leaves it out");
      continue;
    }
    GroundDesc gd;
    gd.name = g.name.empty() ? "ground" + (model_.grounds.empty() ? std::string() : std::to_string(model_.grounds.size())) : g.name;
    gd.point = g.shape.position;
    gd.normal = quat::rotate(g.shape.orientation, Vec3::UnitZ());
    gd.friction = g.friction > 0 ? g.friction : -1;
    // Its masks filter the shapes it touches; a plane named in a <pair> touches every shape (the
    // pair sets the ground's friction; MechStudio's grounds are not paired with single geoms).
    if (!pairedGeoms_.count(g.name)) {
      gd.contype = g.contype;
      gd.conaffinity = g.conaffinity;
    }
    for (const BodyDesc& b : model_.bodies)
      if (gd.friction >= 0 && !b.collisions.empty() && b.friction > gd.friction) {
        note(g.el, "body '" + b.name + "' has a larger friction (" + num(b.friction) + ") than this plane (" +
                       num(gd.friction) + "): MuJoCo would use the larger one, MechStudio uses the plane's");
        break;
      }
    if (!g.name.empty()) geomByName_[g.name] = {-1, int(model_.grounds.size())};
    model_.grounds.push_back(std::move(gd));
  }
}

}  // namespace ms::mjcf_detail
