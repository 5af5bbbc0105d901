// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's bodies: (body …), its mass, inertia, pose, velocity, colour and friction, its
// shapes (and the collision meshes they load), and the mass properties derived from a shape
// (shapeVolume, shapeInertia: mech_reader.h).
#include "io/mech_reader_internal.h"

#include <cmath>
#include <cstdint>
#include <filesystem>

#include <Eigen/Eigenvalues>

#include "contact/convex_hull.h"
#include "core/quaternion.h"

namespace ms::mechread {

namespace {

namespace fs = std::filesystem;

// A collision mesh whose hull centroid lies farther than this fraction of the hull's size (half the
// diagonal of its bounding box) off the body origin gets a warning when the inertia is derived from it.
constexpr double kMeshCentroidTolerance = 1e-3;
const std::vector<std::string> kPlacements = {"at", "rotation", "orientation", "color", "scale"};
const std::vector<std::string> kShapeKinds = {"box", "sphere", "capsule", "cylinder", "plane", "mesh"};

}  // namespace

// ---- bodies ------------------------------------------------------------------------------------

// (body NAME body-item*) in `enclosing` (-1: top level). Returns the new body's index.
int Reader::readBody(const Node& n, int enclosing, bool generated) {
  size_t i = 1;
  std::string name;
  SourceRef nameRef;
  readName(n, i, name, nameRef, "a name");
  const int idx = int(model_.bodies.size());
  model_.bodies.emplace_back();
  model_.bodies.back().name = name;
  map_.bodies.emplace_back();
  map_.bodies.back().form = ref(n);
  map_.bodies.back().name = nameRef;
  map_.bodies.back().generated = generated;
  extra_.emplace_back();
  extra_.back().enclosing = enclosing;
  extra_.back().nameRef = nameRef.valid() ? nameRef : ref(n);
  // Name checks.
  if (name == "world") error(nameRef, "'world' is the fixed ground and cannot name a body");
  else define(bodies_, "body", name, idx, nameRef);
  // Items (nested bodies append after this one).
  for (; i < n.children.size() && !stopped_; ++i) item(n.children[i], Ctx{idx, generated});
  if (!stopped_) finishBody(idx);
  return idx;
}

// Mass, inertia, pose, velocity, colour, friction of a body.
void Reader::bodyProperty(const Node& n, int body) {
  BodyExtra& ex = extra_[body];
  const std::string& h = n.head();
  const std::string owner = "body '" + model_.bodies[body].name + "'";
  // rotation and orientation both set the orientation.
  const std::string key = h == "rotation" ? "orientation" : h;
  if (duplicate(ex.seen, key, n, owner)) return;
  PropertySource src;
  std::vector<double> v;
  BodyDesc& b = model_.bodies[body];
  if (h == "mass" || h == "density" || h == "friction") {
    const bool ok = numbers(n, 1, 1, 1, v, &src);
    map_.bodies[body].properties[h] = src;
    if (h == "mass") ex.hasMass = true;
    if (h == "density") {
      ex.hasDensity = true;
      ex.densityRef = ref(n);
    }
    if (!ok) return;
    if (h == "friction") {
      if (!(v[0] >= 0)) error(n.children[1], "friction must not be negative (got " + num(v[0]) + ")");
      else b.friction = v[0];
    } else if (!(v[0] > 0)) {
      error(n.children[1], h + " must be positive (got " + num(v[0]) + ")");
      ex.badMass = true;
      (h == "mass" ? ex.hasMass : ex.hasDensity) = false;
    } else if (h == "mass") {
      b.mass = v[0];
    } else {
      ex.density = v[0];
    }
    return;
  }
  if (h == "contype" || h == "conaffinity") {
    const bool ok = numbers(n, 1, 1, 1, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    if (!(v[0] >= 0 && v[0] <= 4294967295.0 && v[0] == std::floor(v[0]))) {
      error(n.children[1], h + " must be a whole number from 0 to 4294967295 (a bit mask; got " + num(v[0]) + ")");
      return;
    }
    (h == "contype" ? b.contype : b.conaffinity) = std::uint32_t(v[0]);
    return;
  }
  if (h == "inertia") {
    ex.hasInertia = true;
    const bool ok = numbers(n, 1, 3, 6, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    if (v.size() != 3 && v.size() != 6) {
      error(n, "(inertia ...) takes 3 numbers (principal moments) or 6 (ixx iyy izz ixy ixz iyz) (got " +
                   std::to_string(v.size()) + ")");
      return;
    }
    Mat3 I = Vec3(v[0], v[1], v[2]).asDiagonal();
    if (v.size() == 6) {
      I(0, 1) = I(1, 0) = v[3];
      I(0, 2) = I(2, 0) = v[4];
      I(1, 2) = I(2, 1) = v[5];
    }
    // Positive definite, and the triangle inequality of the principal moments.
    Eigen::SelfAdjointEigenSolver<Mat3> es(I, Eigen::EigenvaluesOnly);
    const Vec3 ev = es.eigenvalues();
    const std::string moments = approx(ev(0)) + ", " + approx(ev(1)) + ", " + approx(ev(2));
    if (!(ev.minCoeff() > 0)) {
      error(n, "the inertia is not positive definite (principal moments " + moments + ")");
      return;
    }
    if (ev(0) + ev(1) < ev(2) * (1 - 1e-9)) {
      error(n, "the principal moments of inertia " + moments +
                   " violate the triangle inequality (none may exceed the sum of the other two)");
      return;
    }
    b.inertia = I;
    return;
  }
  if (h == "color") {
    const bool ok = numbers(n, 1, 3, 4, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    for (size_t k = 0; k < v.size(); ++k)
      if (!(v[k] >= 0 && v[k] <= 1)) {
        error(n.children[k + 1], "colour components must be between 0 and 1 (got " + num(v[k]) + ")");
        return;
      }
    ex.hasColor = true;
    ex.color = Vec4(v[0], v[1], v[2], v.size() == 4 ? v[3] : 1.0);
    return;
  }
  if (h == "orientation") {
    ex.intent = true;
    const bool ok = numbers(n, 1, 4, 4, v, &src);
    map_.bodies[body].properties[h] = src;
    if (!ok) return;
    const Vec4 q(v[0], v[1], v[2], v[3]);
    if (!(q.norm() > 1e-9)) error(n, "the orientation quaternion (w x y z) must not be zero");
    else b.orientation = q;
    return;
  }
  // Three-vector properties: position, rotation, velocity, angular-velocity.
  ex.intent = true;
  Vec3 x;
  const bool ok = vec3(n, x, &src);
  map_.bodies[body].properties[h] = src;
  if (!ok) return;
  if (h == "position") b.position = x;
  else if (h == "rotation") b.orientation = quat::fromRotationVector(x);
  else if (h == "velocity") b.linearVelocity = x;
  else b.angularVelocity = x;
}

// Mass from density, derived inertia, shape colours, joint checks.
void Reader::finishBody(int body) {
  BodyExtra& ex = extra_[body];
  BodyDesc& b = model_.bodies[body];
  const std::string who = "body '" + b.name + "'";
  // The shape that mass and inertia are derived from: the first collision shape, else the first visual.
  const ShapeDesc* basis = !b.collisions.empty() ? &b.collisions[0] : !b.visuals.empty() ? &b.visuals[0] : nullptr;
  const SourceRef basisRef = !b.collisions.empty() ? ex.collisionForms[0] : !b.visuals.empty() ? ex.visualForms[0] : SourceRef();
  // What a basis without a volume is, for messages: a plane, or a mesh that is only drawn.
  const std::string noVolume = basis && basis->kind == ShapeDesc::Kind::Mesh
                                   ? "a visual mesh (only collision meshes are read: write (shape mesh ...) or (collision mesh ...))"
                                   : "a plane";
  bool massOk = ex.hasMass;
  bool derived = false;  // the inertia derived from the basis
  if (ex.hasMass && ex.hasDensity) {
    error(ex.densityRef, who + " has both (mass ...) and (density ...); give one");
    massOk = false;
  } else if (ex.hasDensity) {
    double volume = 0;
    if (!basis) {
      if (!ex.badShape) error(ex.densityRef, "(density ...) needs a box, sphere, capsule, cylinder or collision mesh shape to compute the mass of " + who);
    } else if (!shapeVolume(*basis, volume)) {
      error(basisRef, "cannot compute the volume of " + noVolume + ": give " + who + " a (mass ...)");
    } else if (!(volume > 0) || !std::isfinite(ex.density * volume)) {
      error(ex.densityRef, "the mass of " + who + " from its density is not positive");
    } else {
      b.mass = ex.density * volume;
      massOk = true;
    }
  } else if (!ex.hasMass && !ex.badMass) {
    error(ex.nameRef, who + " needs a (mass ...) or a (density ...)");
  }
  // Derived inertia.
  if (!ex.hasInertia && massOk) {
    if (!basis) {
      if (!ex.badShape) error(ex.nameRef, who + " needs an (inertia ...) or a shape to derive it from");
    } else if (!shapeInertia(*basis, b.mass, b.inertia)) {
      error(basisRef, "cannot derive the inertia of " + who + " from " + noVolume + ": give (inertia ...)");
    } else {
      derived = true;
    }
  }
  // A collision mesh's hull centroid is where its mass is centred, the body's centre of mass is its
  // frame origin: an off-centre mesh file (not compensated by the shape's (at ...)) is worth a word.
  if (derived && basis->kind == ShapeDesc::Kind::Mesh) {
    contact::ConvexHull hull;
    std::string why;
    if (contact::buildConvexHull(basis->meshVertices, hull, why)) {
      const Vec3 c = contact::hullMassProperties(hull).centroid;  // shape frame
      const Vec3 rc = quat::rotation(basis->orientation.normalized()) * c;
      const Vec3 inBody = basis->position + rc;
      Vec3 lo = hull.vertices[0], hi = hull.vertices[0];
      for (const Vec3& v : hull.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
      const double size = 0.5 * (hi - lo).norm(), tolerance = kMeshCentroidTolerance * size;
      if (c.norm() > tolerance && inBody.norm() > tolerance) {
        // Components at round-off level are written as 0.
        const auto text = [&](const Vec3& v) {
          std::string t;
          for (int k = 0; k < 3; ++k) t += (k ? " " : "") + approx(std::abs(v(k)) < 1e-9 * size ? 0.0 : v(k));
          return t;
        };
        warning(basisRef, "the hull of mesh '" + basis->meshFile + "' has its centroid at (" + text(inBody) +
                              ") in the frame of " + who +
                              ", whose centre of mass is its frame origin (the inertia is taken about the centroid): "
                              "place the mesh with (at " + text(basis->position - inBody) + ") or give (inertia ...)");
      }
    }
  }
  // The body colour applies to shapes without their own.
  if (ex.hasColor) {
    for (size_t k = 0; k < b.visuals.size(); ++k)
      if (!ex.visualColored[k]) b.visuals[k].color = ex.color;
    for (size_t k = 0; k < b.collisions.size(); ++k)
      if (!ex.collisionColored[k]) b.collisions[k].color = ex.color;
  }
  // A nested body must be connected to the body it is written in.
  if (!ex.hasJoint && ex.enclosing >= 0)
    error(ex.nameRef, who + " is inside '" + model_.bodies[ex.enclosing].name +
                          "' but has no (joint ...) connecting it (write e.g. (joint fixed) to weld it)");
}

// (shape|visual|collision KIND dims… placement*)
void Reader::readShape(const Node& n, int body, ShapeUse use, bool generated) {
  const std::string& h = n.head();
  if (n.children.size() < 2 || !n.children[1].isSymbol()) {
    error(n.children.size() < 2 ? n : n.children[1],
          "(" + h + " ...) needs a kind: box, sphere, capsule, cylinder, plane or mesh");
    return;
  }
  const Node& kindNode = n.children[1];
  const std::string& kind = kindNode.text;
  ShapeDesc s;
  ElementSource src;
  src.form = ref(n);
  src.generated = generated;
  src.properties["kind"].form = ref(kindNode);
  size_t dims = 0;
  if (kind == "box") s.kind = ShapeDesc::Kind::Box, dims = 3;
  else if (kind == "sphere") s.kind = ShapeDesc::Kind::Sphere, dims = 1;
  else if (kind == "capsule") s.kind = ShapeDesc::Kind::Capsule, dims = 2;
  else if (kind == "cylinder") s.kind = ShapeDesc::Kind::Cylinder, dims = 2;
  else if (kind == "plane") s.kind = ShapeDesc::Kind::Plane, dims = 0;
  else if (kind == "mesh") s.kind = ShapeDesc::Kind::Mesh, dims = 0;
  else {
    error(kindNode, "unknown shape '" + kind + "'" + suggestion(kind, kShapeKinds) +
                        " (shapes: box, sphere, capsule, cylinder, plane, mesh)");
    return;
  }
  size_t i = 2;
  // A mesh names its file (read below when it collides).
  SourceRef fileRef;
  if (s.kind == ShapeDesc::Kind::Mesh) {
    if (i >= n.children.size() || !n.children[i].isString()) {
      error(i < n.children.size() ? n.children[i] : n, "(" + h + " mesh ...) needs a file name in quotes");
      return;
    }
    s.meshFile = n.children[i].text;
    fileRef = ref(n.children[i]);
    src.properties["file"].form = ref(n.children[i]);
    src.properties["file"].values = {ref(n.children[i])};
    ++i;
  }
  // Dimensions: the arguments before the first placement.
  size_t end = i;
  while (end < n.children.size() && !(n.children[end].isList() && contains(kPlacements, n.children[end].head()))) ++end;
  std::vector<double> v;
  PropertySource& size = src.properties["size"];
  size.form = ref(n);
  bool ok = true;
  for (size_t k = i; k < end; ++k) {
    double x = 0;
    ok = eval(n.children[k], x) && ok;
    v.push_back(x);
    size.values.push_back(ref(n.children[k]));
  }
  static const char* what[] = {"x y z extents", "a radius", "a radius and a length", "a radius and a length",
                               "no dimensions", ""};
  if (v.size() != dims) {
    const SourceRef where = v.size() > dims ? ref(n.children[i + dims]) : ref(n);
    if (s.kind == ShapeDesc::Kind::Mesh)
      error(where, "(" + h + " mesh \"file\" ...) takes no dimensions; scale it with (scale x y z)");
    else
      error(where, "(" + h + " " + kind + " ...) takes " + what[int(s.kind)] + " (got " + std::to_string(v.size()) +
                       (v.size() == 1 ? " number)" : " numbers)"));
    return;
  }
  if (!ok) return;
  // Dimensions must be positive (a capsule's length may be zero).
  for (size_t k = 0; k < dims; ++k) {
    const bool lengthMayBeZero = s.kind == ShapeDesc::Kind::Capsule && k == 1;
    if (!(v[k] > 0) && !(lengthMayBeZero && v[k] == 0)) {
      error(n.children[i + k], std::string(s.kind == ShapeDesc::Kind::Box ? "box extents" : k == 0 ? "the radius" : "the length") +
                                   " must be positive (got " + num(v[k]) + ")");
      return;
    }
    s.size(int(k)) = v[k];
  }
  // Placements: position, orientation, colour, mesh scale.
  bool colored = false;
  std::map<std::string, SourceRef> seen;
  for (size_t k = end; k < n.children.size(); ++k) {
    const Node& p = n.children[k];
    if (!p.isList() || !contains(kPlacements, p.head())) {
      if (p.isList() && !p.head().empty())
        error(p.children[0], "unknown shape property '" + p.head() + "'" + suggestion(p.head(), kPlacements) +
                                 " (shape properties: at, rotation, orientation, color, scale)");
      else
        error(p, "expected a shape property (at ...), (rotation ...), (orientation ...), (color ...) or (scale ...), got " +
                     sexpr::describeNode(p));
      continue;
    }
    const std::string& ph = p.head();
    if (duplicate(seen, ph == "rotation" ? "orientation" : ph, p, "the shape")) continue;
    PropertySource& ps = src.properties[ph];
    if (ph == "at" || ph == "rotation" || ph == "scale") {
      Vec3 x;
      if (!vec3(p, x, &ps)) continue;
      if (ph == "at") s.position = x;
      else if (ph == "rotation") s.orientation = quat::fromRotationVector(x);
      else if (s.kind != ShapeDesc::Kind::Mesh) error(p.children[0], "(scale ...) applies to mesh shapes only");
      else s.meshScale = x;
    } else if (ph == "orientation") {
      std::vector<double> q;
      if (!numbers(p, 1, 4, 4, q, &ps)) continue;
      const Vec4 qq(q[0], q[1], q[2], q[3]);
      if (!(qq.norm() > 1e-9)) error(p, "the orientation quaternion (w x y z) must not be zero");
      else s.orientation = qq;
    } else {
      std::vector<double> c;
      if (!numbers(p, 1, 3, 4, c, &ps)) continue;
      bool inRange = true;
      for (size_t m = 0; m < c.size() && inRange; ++m)
        if (!(c[m] >= 0 && c[m] <= 1)) {
          error(p.children[m + 1], "colour components must be between 0 and 1 (got " + num(c[m]) + ")");
          inRange = false;
        }
      if (!inRange) continue;
      s.color = Vec4(c[0], c[1], c[2], c.size() == 4 ? c[3] : 1.0);
      colored = true;
    }
  }
  // A collision mesh: the file's vertices (its convex hull collides), checked here.
  ShapeDesc visual = s;
  if (s.kind == ShapeDesc::Kind::Mesh && use != ShapeUse::Visual) {
    const std::string path = resolveMeshPath(s.meshFile, fs::path(doc_.fileName()).parent_path().string());
    CollisionMeshReport report;
    const bool loaded = loadCollisionMesh(s, path, meshFiles_, report);
    for (const std::string& w : report.warnings) warning(fileRef, w);
    for (const std::string& n : report.notes) note(fileRef, n);
    if (!loaded) {
      error(fileRef, report.error);
      extra_[body].badShape = true;
      return;
    }
  }
  // Append to the body's visuals and/or collisions.
  BodyExtra& ex = extra_[body];
  BodyDesc& b = model_.bodies[body];
  if (use != ShapeUse::Collision) {
    b.visuals.push_back(visual);
    map_.bodies[body].visuals.push_back(src);
    ex.visualColored.push_back(colored);
    ex.visualForms.push_back(ref(n));
  }
  if (use != ShapeUse::Visual) {
    b.collisions.push_back(s);
    map_.bodies[body].collisions.push_back(src);
    ex.collisionColored.push_back(colored);
    ex.collisionForms.push_back(ref(n));
  }
}

}  // namespace ms::mechread

namespace ms {

// ---- shape geometry ----------------------------------------------------------------------------

namespace {
// Mass properties of a collision mesh's convex hull; false for a mesh without vertices (visual only).
bool meshHullProperties(const ShapeDesc& s, contact::HullMassProperties& mp) {
  if (s.meshVertices.empty()) return false;
  contact::ConvexHull hull;
  std::string why;
  if (!contact::buildConvexHull(s.meshVertices, hull, why)) return false;
  mp = contact::hullMassProperties(hull);
  return mp.volume > 0;
}
}  // namespace

bool shapeVolume(const ShapeDesc& s, double& volume) {
  const double r = s.size.x(), l = s.size.y();
  switch (s.kind) {
    case ShapeDesc::Kind::Box: volume = s.size.x() * s.size.y() * s.size.z(); return true;
    case ShapeDesc::Kind::Sphere: volume = 4.0 / 3.0 * kPi * r * r * r; return true;
    case ShapeDesc::Kind::Cylinder: volume = kPi * r * r * l; return true;
    case ShapeDesc::Kind::Capsule: volume = kPi * r * r * l + 4.0 / 3.0 * kPi * r * r * r; return true;
    case ShapeDesc::Kind::Mesh: {
      contact::HullMassProperties mp;
      if (!meshHullProperties(s, mp)) return false;
      volume = mp.volume;
      return true;
    }
    case ShapeDesc::Kind::Plane: return false;
  }
  return false;
}

bool shapeInertia(const ShapeDesc& s, double m, Mat3& inertia) {
  const double r = s.size.x(), l = s.size.y();
  Vec3 d = Vec3::Zero();
  switch (s.kind) {
    case ShapeDesc::Kind::Box: {
      const Vec3& e = s.size;
      d = Vec3(m * (e.y() * e.y() + e.z() * e.z()) / 12, m * (e.x() * e.x() + e.z() * e.z()) / 12,
               m * (e.x() * e.x() + e.y() * e.y()) / 12);
      break;
    }
    case ShapeDesc::Kind::Sphere: d = Vec3::Constant(0.4 * m * r * r); break;
    case ShapeDesc::Kind::Cylinder: {
      const double t = m * (3 * r * r + l * l) / 12.0;
      d = Vec3(t, t, 0.5 * m * r * r);
      break;
    }
    case ShapeDesc::Kind::Capsule: {
      // Cylinder plus two hemispheres, mass shared by volume (hemisphere centroid 3r/8 from its base).
      const double vc = kPi * r * r * l, vs = 4.0 / 3.0 * kPi * r * r * r;
      const double mc = m * vc / (vc + vs), ms = m * vs / (vc + vs);
      const double t = mc * (3 * r * r + l * l) / 12.0 + ms * (0.4 * r * r + l * l / 4 + 3 * l * r / 8);
      d = Vec3(t, t, 0.5 * mc * r * r + 0.4 * ms * r * r);
      break;
    }
    case ShapeDesc::Kind::Mesh: {
      // The hull as a uniform solid of mass m, about its centroid (its offset ignored, like `at`).
      contact::HullMassProperties mp;
      if (!meshHullProperties(s, mp)) return false;
      inertia = mp.inertiaPerDensity * (m / mp.volume);
      if (s.orientation != Vec4(1, 0, 0, 0) && s.orientation.norm() > 0) {
        const Mat3 R = quat::rotation(s.orientation.normalized());
        inertia = R * inertia * R.transpose();
      }
      inertia = 0.5 * (inertia + inertia.transpose()).eval();
      return true;
    }
    case ShapeDesc::Kind::Plane: return false;
  }
  inertia = d.asDiagonal();
  // Rotate into the body frame when the shape is rotated.
  if (s.orientation != Vec4(1, 0, 0, 0) && s.orientation.norm() > 0) {
    const Mat3 R = quat::rotation(s.orientation.normalized());
    inertia = R * inertia * R.transpose();
    inertia = 0.5 * (inertia + inertia.transpose()).eval();
  }
  return true;
}

}  // namespace ms
