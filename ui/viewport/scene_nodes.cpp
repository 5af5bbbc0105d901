// SPDX-License-Identifier: GPL-3.0-or-later
// Builds the OSG nodes of the 3D view: body shapes with materials, mesh files through osgDB (with a
// placeholder and one warning when a file cannot be read), the fading ground grid, dynamic geometry
// for overlays and the overlay state.
#include "viewport/scene_nodes.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Geometry>
#include <QDir>
#include <QFileInfo>
#include <QtDebug>
#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/LineWidth>
#include <osg/FrontFace>
#include <osg/MatrixTransform>
#include <osg/Point>
#include <osg/PolygonOffset>
#include <osg/ShapeDrawable>
#include <osgDB/Options>
#include <osgDB/ReadFile>
#include <osgDB/Registry>

namespace ms::ui::viewport {

// Quaternion → rotation matrix through Eigen (normalised; a degenerate quaternion gives identity).
Mat3 rotationOf(const Vec4& q) {
  const Eigen::Quaterniond e(q(0), q(1), q(2), q(3));
  const double n = e.norm();
  if (!(n > 1e-12) || !std::isfinite(n)) return Mat3::Identity();
  return e.normalized().toRotationMatrix();
}

// Eigen isometry → OSG matrix: the column-major Eigen storage read row by row is the transpose.
osg::Matrixd poseMatrix(const Vec3& x, const Vec4& q) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.linear() = rotationOf(q);
  t.translation() = x;
  return osg::Matrixd(t.matrix().data());
}

// Returns the cached node, loads it, or warns once and remembers the failure.
osg::ref_ptr<osg::Node> MeshCache::load(const QString& path) {
  if (auto it = loaded_.find(path); it != loaded_.end()) return it->second;
  if (failed_.count(path)) return nullptr;
  osg::ref_ptr<osg::Node> node;
  // OSG's OBJ reader turns a file by +90° about x unless told not to (it takes OBJ files for y-up):
  // the engine reads a collision mesh's vertices as they are written, so the view must too.
  osg::ref_ptr<osgDB::Options> options;
  if (QFileInfo(path).suffix().compare("obj", Qt::CaseInsensitive) == 0) options = new osgDB::Options("noRotation");
  if (QFileInfo::exists(path)) node = osgDB::readRefNodeFile(QFile::encodeName(path).toStdString(), options.get());
  if (!node) {
    // A format without an OpenSceneGraph plugin (e.g. COLLADA .dae without osgdb_dae) is named as such.
    const QString ext = QFileInfo(path).suffix().toLower();
    if (QFileInfo::exists(path) && !osgDB::Registry::instance()->getReaderWriterForExtension(ext.toStdString()))
      qWarning().noquote() << "viewport: no OpenSceneGraph plugin reads ." + ext + " files (osgdb_" + ext +
                                  " is not installed): cannot draw"
                           << path << "- drawing a placeholder box";
    else
      qWarning().noquote() << "viewport: cannot load mesh file" << path << "- drawing a placeholder box";
    failed_.insert(path);
    return nullptr;
  }
  loaded_[path] = node;
  return node;
}

void MeshCache::clear() {
  loaded_.clear();
  failed_.clear();
}

// Material with the colour as diffuse and ambient, a soft specular highlight and no emission.
osg::ref_ptr<osg::Material> applySurface(osg::StateSet* ss, const osg::Vec4& color, bool overrideChildren) {
  osg::ref_ptr<osg::Material> m = new osg::Material;
  m->setColorMode(osg::Material::OFF);
  m->setDiffuse(osg::Material::FRONT_AND_BACK, color);
  m->setAmbient(osg::Material::FRONT_AND_BACK, osg::Vec4(color.r() * 0.8f, color.g() * 0.8f, color.b() * 0.8f, color.a()));
  m->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.3f, 0.3f, 0.3f, color.a()));
  m->setShininess(osg::Material::FRONT_AND_BACK, 48.0f);
  m->setEmission(osg::Material::FRONT_AND_BACK, osg::Vec4(0, 0, 0, color.a()));
  const osg::StateAttribute::GLModeValue value =
      osg::StateAttribute::ON | (overrideChildren ? osg::StateAttribute::GLModeValue(osg::StateAttribute::OVERRIDE) : 0u);
  ss->setAttributeAndModes(m, value);
  // Translucent colours: blend, draw after the opaque bodies, do not hide what is behind.
  if (color.a() < 0.999f) {
    ss->setMode(GL_BLEND, osg::StateAttribute::ON);
    ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
    ss->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
  }
  return m;
}

namespace {

// Tessellation shared by all analytic shapes (smooth enough for close-ups, cheap on llvmpipe).
osg::TessellationHints* hints() {
  static osg::ref_ptr<osg::TessellationHints> h = [] {
    osg::ref_ptr<osg::TessellationHints> t = new osg::TessellationHints;
    t->setDetailRatio(1.5f);
    return t;
  }();
  return h.get();
}

// An analytic shape as a drawable with its own material.
osg::ref_ptr<osg::Node> shapeDrawable(osg::Shape* shape, const osg::Vec4& color,
                                      std::vector<osg::ref_ptr<osg::Material>>& materials) {
  osg::ref_ptr<osg::ShapeDrawable> d = tessellated(shape);
  materials.push_back(applySurface(d->getOrCreateStateSet(), color, false));
  return d;
}

// A finite square of the plane z = 0 (normal +z), pushed back in depth so grid lines stay visible.
osg::ref_ptr<osg::Node> planeQuad(double half, const osg::Vec4& color,
                                  std::vector<osg::ref_ptr<osg::Material>>& materials) {
  osg::ref_ptr<osg::Geometry> g = planeSquare(half);
  osg::StateSet* ss = g->getOrCreateStateSet();
  materials.push_back(applySurface(ss, color, false));
  ss->setAttributeAndModes(new osg::PolygonOffset(1.0f, 1.0f));
  return g;
}

// Smooth step from 1 (r ≤ r0) to 0 (r ≥ r1).
float fade(double r, double r0, double r1) {
  const double t = std::clamp((r - r0) / std::max(r1 - r0, 1e-9), 0.0, 1.0);
  return float(1.0 - t * t * (3.0 - 2.0 * t));
}

}  // namespace

osg::ref_ptr<osg::Geometry> planeSquare(double half) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  const float h = float(half);
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  for (const osg::Vec3& corner : {osg::Vec3(-h, -h, 0), osg::Vec3(h, -h, 0), osg::Vec3(h, h, 0), osg::Vec3(-h, h, 0)})
    v->push_back(corner);
  osg::ref_ptr<osg::Vec3Array> n = new osg::Vec3Array(1);
  (*n)[0].set(0, 0, 1);
  g->setVertexArray(v);
  g->setNormalArray(n, osg::Array::BIND_OVERALL);
  g->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
  return g;
}

// Sizes are kept positive (a zero extent would give a degenerate drawable); a capsule's length may be 0.
osg::ref_ptr<osg::Shape> analyticShape(const ShapeDesc& shape) {
  const auto pos = [](double v) { return float(std::max(v, 1e-4)); };
  switch (shape.kind) {
    case ShapeDesc::Kind::Box: return new osg::Box(osg::Vec3(), pos(shape.size(0)), pos(shape.size(1)), pos(shape.size(2)));
    case ShapeDesc::Kind::Sphere: return new osg::Sphere(osg::Vec3(), pos(shape.size(0)));
    case ShapeDesc::Kind::Capsule: return new osg::Capsule(osg::Vec3(), pos(shape.size(0)), float(std::max(shape.size(1), 0.0)));
    case ShapeDesc::Kind::Cylinder: return new osg::Cylinder(osg::Vec3(), pos(shape.size(0)), pos(shape.size(1)));
    case ShapeDesc::Kind::Plane:
    case ShapeDesc::Kind::Mesh: break;
  }
  return nullptr;
}

osg::ref_ptr<osg::MatrixTransform> placedShape(const ShapeDesc& shape) {
  return new osg::MatrixTransform(poseMatrix(shape.position, shape.orientation));
}

osg::ref_ptr<osg::ShapeDrawable> tessellated(osg::Shape* shape) { return new osg::ShapeDrawable(shape, hints()); }

// Placed shape: a static transform for the shape's pose in the body frame holding its drawable.
ShapeNode buildShape(const ShapeDesc& shape, const QString& modelDir, MeshCache& meshes, double planeHalfSize,
                     std::vector<osg::ref_ptr<osg::Material>>& materials) {
  const osg::Vec4 color = toOsgColor(shape.color);
  osg::ref_ptr<osg::MatrixTransform> placed = placedShape(shape);
  ShapeNode out;
  out.node = placed;
  if (osg::ref_ptr<osg::Shape> analytic = analyticShape(shape)) {
    placed->addChild(shapeDrawable(analytic, color, materials));
    return out;
  }
  if (shape.kind == ShapeDesc::Kind::Plane) {
    placed->addChild(planeQuad(planeHalfSize, color, materials));
    out.isPlane = true;
    return out;
  }
  // A mesh file, resolved against the model's directory; a failure draws a 5 cm box.
  const QString file = QString::fromStdString(shape.meshFile);
  const QString path = QFileInfo(file).isAbsolute() ? file : QDir(modelDir).filePath(file);
  osg::ref_ptr<osg::Node> mesh = meshes.load(path);
  if (!mesh) {
    placed->addChild(shapeDrawable(new osg::Box(osg::Vec3(), 0.05f), color, materials));
    return out;
  }
  // Scaled instance with our material overriding whatever the file carries.
  osg::ref_ptr<osg::MatrixTransform> scaled =
      new osg::MatrixTransform(osg::Matrixd::scale(shape.meshScale.x(), shape.meshScale.y(), shape.meshScale.z()));
  scaled->addChild(mesh);
  osg::StateSet* ss = scaled->getOrCreateStateSet();
  ss->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
  // A mirrored mesh (an odd number of negative factors) turns its triangles' winding around.
  if (shape.meshScale.prod() < 0) ss->setAttributeAndModes(new osg::FrontFace(osg::FrontFace::CLOCKWISE), osg::StateAttribute::ON);
  materials.push_back(applySurface(ss, color, true));
  placed->addChild(scaled);
  return out;
}

osg::ref_ptr<osg::Node> buildMarkerSphere(double radius, const osg::Vec4& color,
                                          std::vector<osg::ref_ptr<osg::Material>>& materials) {
  return shapeDrawable(new osg::Sphere(osg::Vec3(), float(radius)), color, materials);
}

// Grid lines cut where they fade out completely (beyond `edge` from the origin), one segment where
// they are fully opaque (within 0.6·edge) and short segments between, so the per-vertex alpha follows
// the fade. On a software rasteriser each smoothed-line segment costs a set-up and invisible
// stretches cost fragments: the 20-link chain's grid had 1,736 segments, ~30 % of their length
// faded out, now 1,026.
osg::ref_ptr<osg::Node> buildGrid(double halfExtent, double spacing, double minorHalfExtent) {
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  spacing = std::max(spacing, 1e-3);
  // Adds the line a→b (in the z = 0 plane) faded out between 0.6·edge and edge.
  const auto addLine = [&](const osg::Vec3d& a, const osg::Vec3d& b, const osg::Vec4& color, double edge) {
    const double length = (b - a).length();
    if (!(length > 0) || !(edge > 0)) return;
    const osg::Vec3d dir = (b - a) / length;
    // Where the line is within radius r of the origin: s ∈ [lo, hi] along it (false: nowhere).
    const auto within = [&](double r, double& lo, double& hi) {
      const double mid = -(a * dir), d2 = (a + dir * mid).length2(), h2 = r * r - d2;
      if (h2 <= 0) return false;
      lo = std::max(0.0, mid - std::sqrt(h2));
      hi = std::min(length, mid + std::sqrt(h2));
      return lo < hi;
    };
    double s0 = 0, s1 = 0, u0 = 0, u1 = 0;
    if (!within(edge, s0, s1)) return;
    // Break points: the fading stretches in steps of at most half a spacing or 5 % of the edge.
    const double step = std::max(0.5 * spacing, 0.05 * edge);
    std::vector<double> cuts;
    const auto fadingStretch = [&](double from, double to) {
      const int n = std::max(1, int(std::ceil((to - from) / step)));
      for (int i = 0; i < n; ++i) cuts.push_back(from + (to - from) * double(i) / n);
    };
    if (within(0.6 * edge, u0, u1)) {
      if (u0 > s0) fadingStretch(s0, u0);
      cuts.push_back(u0);
      if (s1 > u1) fadingStretch(u1, s1);
      else cuts.push_back(u1);
    } else {
      fadingStretch(s0, s1);
    }
    cuts.push_back(s1);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      if (!(cuts[i + 1] > cuts[i])) continue;
      for (const double s : {cuts[i], cuts[i + 1]}) {
        const osg::Vec3d e = a + dir * s;
        osg::Vec4 col = color;
        col.a() *= fade(std::hypot(e.x(), e.y()), 0.6 * edge, edge);
        v->push_back(e);
        c->push_back(col);
      }
    }
  };
  const osg::Vec4 major(0.62f, 0.66f, 0.72f, 0.55f), minor(0.55f, 0.58f, 0.64f, 0.22f);
  const osg::Vec4 xAxis(0.90f, 0.30f, 0.30f, 0.9f), yAxis(0.35f, 0.80f, 0.35f, 0.9f);
  // Major lines over the whole grid; the lines through the origin show the x (red) and y (green) axes.
  const int nMajor = int(std::floor(halfExtent / spacing + 1e-9));
  for (int i = -nMajor; i <= nMajor; ++i) {
    const double t = i * spacing;
    addLine({t, -halfExtent, 0}, {t, halfExtent, 0}, i == 0 ? yAxis : major, halfExtent);
    addLine({-halfExtent, t, 0}, {halfExtent, t, 0}, i == 0 ? xAxis : major, halfExtent);
  }
  // Minor lines near the origin only (they would alias into noise further away).
  const int nMinor = int(std::floor(minorHalfExtent * 10 / spacing + 1e-9));
  for (int k = -nMinor; k <= nMinor; ++k) {
    if (k % 10 == 0) continue;
    const double t = k * 0.1 * spacing;
    addLine({t, -minorHalfExtent, 0}, {t, minorHalfExtent, 0}, minor, minorHalfExtent);
    addLine({-minorHalfExtent, t, 0}, {minorHalfExtent, t, 0}, minor, minorHalfExtent);
  }
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setVertexArray(v);
  g->setColorArray(c, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, GLsizei(v->size())));
  // Unlit translucent lines, drawn after the opaque bodies and depth-tested against them.
  osg::StateSet* ss = g->getOrCreateStateSet();
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
  ss->setMode(GL_BLEND, osg::StateAttribute::ON);
  ss->setMode(GL_LINE_SMOOTH, osg::StateAttribute::ON);
  ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  ss->setAttributeAndModes(new osg::LineWidth(1.0f));
  ss->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
  return g;
}

osg::ref_ptr<osg::Vec4Array> singleColor(const osg::Vec4& color) {
  osg::ref_ptr<osg::Vec4Array> a = new osg::Vec4Array(1);
  (*a)[0] = color;
  return a;
}

osg::ref_ptr<osg::Geometry> makeDynamicGeometry(osg::Vec3Array* vertices, osg::Vec4Array* colors,
                                                osg::Array::Binding colorBinding) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setDataVariance(osg::Object::DYNAMIC);
  g->setUseDisplayList(false);
  g->setUseVertexBufferObjects(true);
  g->setVertexArray(vertices);
  g->setColorArray(colors, colorBinding);
  return g;
}

void setOverlayState(osg::StateSet* ss, float lineWidth, float pointSize) {
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
  ss->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
  ss->setMode(GL_BLEND, osg::StateAttribute::ON);
  ss->setMode(GL_LINE_SMOOTH, osg::StateAttribute::ON);
  ss->setMode(GL_POINT_SMOOTH, osg::StateAttribute::ON);
  ss->setAttributeAndModes(new osg::LineWidth(lineWidth));
  ss->setAttributeAndModes(new osg::Point(pointSize));
  ss->setRenderBinDetails(100, "RenderBin");
}

}  // namespace ms::ui::viewport
