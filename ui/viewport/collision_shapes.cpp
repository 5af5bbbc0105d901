// SPDX-License-Identifier: GPL-3.0-or-later
// Collision layer geometry: per shape a translucent lit fill (the visual shapes' analytic solids and
// plane square, or the triangles of a collision mesh's convex hull with flat normals) and unlit edge
// lines (box and hull edges without the diagonals of planar faces, outline circles and lines of round
// shapes, the square's border), under the shape's placement transform. One state for the whole layer.
#include "viewport/collision_shapes.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Geometry>
#include <osg/CullFace>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/LineWidth>
#include <osg/Material>
#include <osg/PolygonOffset>
#include <osg/TriangleFunctor>

#include "contact/convex_hull.h"
#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

const osg::Vec4 kCollisionColor(0.25f, 0.95f, 0.45f, 1.0f);

namespace {

constexpr float kFillAlpha = 0.28f, kPlaneFillAlpha = 0.12f, kEdgeAlpha = 0.95f, kEdgeWidth = 1.5f;
// Tilted grounds in the ordinary view (buildGroundSurfaces): a light grey, faint surface.
const osg::Vec4 kGroundColor(0.75f, 0.75f, 0.78f, 1.0f);
constexpr float kGroundFillAlpha = 0.22f;
constexpr int kCircleSegments = 48;
constexpr double kEdgeDepthShift = 1e-5;
// Render bin of the layer: after the opaque bodies, the link rods (5) and the translucent grid (10),
// before the joint markers (90, 91) and the overlays (100), which stay readable on top of it.
constexpr int kCollisionBin = 20;

// Segment a→b appended to a GL_LINES array.
void addLine(osg::Vec3Array& v, const osg::Vec3& a, const osg::Vec3& b) {
  v.push_back(a);
  v.push_back(b);
}

// The arc c + r (cos t · u + sin t · w), t from t0 to t1, as line segments.
void addArc(osg::Vec3Array& v, const osg::Vec3& c, const osg::Vec3& u, const osg::Vec3& w, float r, double t0, double t1) {
  const int n = std::max(2, int(std::ceil(kCircleSegments * std::abs(t1 - t0) / (2 * kPi))));
  const auto at = [&](int i) {
    const double t = t0 + (t1 - t0) * i / n;
    return c + (u * float(std::cos(t)) + w * float(std::sin(t))) * r;
  };
  for (int i = 0; i < n; ++i) addLine(v, at(i), at(i + 1));
}

// Edges of an analytic shape or a plane square in its shape frame (axis along z): a box's 12 edges; a
// sphere's three great circles; a cylinder's rims and four lines along its side; a capsule's the same
// with half circles over its caps; a square's border.
void analyticEdges(const ShapeDesc& s, double planeHalfSize, osg::Vec3Array& v) {
  const osg::Vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1), o;
  const float r = float(std::max(s.size(0), 1e-4));
  switch (s.kind) {
    case ShapeDesc::Kind::Box: {
      const osg::Vec3 h(float(std::max(s.size(0), 1e-4) / 2), float(std::max(s.size(1), 1e-4) / 2),
                        float(std::max(s.size(2), 1e-4) / 2));
      const auto corner = [&](int i) {
        return osg::Vec3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z());
      };
      for (int i = 0; i < 8; ++i)
        for (int bit : {1, 2, 4})
          if (!(i & bit)) addLine(v, corner(i), corner(i | bit));
      break;
    }
    case ShapeDesc::Kind::Sphere:
      addArc(v, o, x, y, r, 0, 2 * kPi);
      addArc(v, o, x, z, r, 0, 2 * kPi);
      addArc(v, o, y, z, r, 0, 2 * kPi);
      break;
    case ShapeDesc::Kind::Capsule:
    case ShapeDesc::Kind::Cylinder: {
      const bool capsule = s.kind == ShapeDesc::Kind::Capsule;
      const float half = float((capsule ? std::max(s.size(1), 0.0) : std::max(s.size(1), 1e-4)) / 2);
      for (float e : {-half, half}) addArc(v, z * e, x, y, r, 0, 2 * kPi);
      for (const osg::Vec3& side : {x, y, -x, -y}) addLine(v, side * r - z * half, side * r + z * half);
      if (capsule)
        for (const osg::Vec3& u : {x, y}) {
          addArc(v, z * half, u, z, r, 0, kPi);
          addArc(v, -z * half, u, z, r, kPi, 2 * kPi);
        }
      break;
    }
    case ShapeDesc::Kind::Plane: {
      const float h = float(planeHalfSize);
      const osg::Vec3 c[4] = {{-h, -h, 0}, {h, -h, 0}, {h, h, 0}, {-h, h, 0}};
      for (int i = 0; i < 4; ++i) addLine(v, c[i], c[(i + 1) % 4]);
      break;
    }
    case ShapeDesc::Kind::Mesh: break;
  }
}

// The hull's triangles with flat (face) normals.
osg::ref_ptr<osg::Geometry> hullFill(const contact::ConvexHull& hull) {
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array, n = new osg::Vec3Array;
  for (const contact::ConvexHull::Face& f : hull.faces)
    for (int k : f.v) {
      v->push_back(toOsg(hull.vertices[size_t(k)]));
      n->push_back(toOsg(f.normal));
    }
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setVertexArray(v);
  g->setNormalArray(n, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_TRIANGLES, 0, GLsizei(v->size())));
  return g;
}

// The fill's lit material: the layer's colour (or `c`) at opacity `alpha`, lit a little from within.
osg::ref_ptr<osg::Material> collisionMaterial(float alpha, const osg::Vec4& c = kCollisionColor) {
  osg::ref_ptr<osg::Material> m = new osg::Material;
  m->setColorMode(osg::Material::OFF);
  m->setDiffuse(osg::Material::FRONT_AND_BACK, osg::Vec4(c.r(), c.g(), c.b(), alpha));
  m->setAmbient(osg::Material::FRONT_AND_BACK, osg::Vec4(c.r() * 0.8f, c.g() * 0.8f, c.b() * 0.8f, alpha));
  m->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.2f, 0.2f, 0.2f, alpha));
  m->setShininess(osg::Material::FRONT_AND_BACK, 32.0f);
  m->setEmission(osg::Material::FRONT_AND_BACK, osg::Vec4(c.r() * 0.25f, c.g() * 0.25f, c.b() * 0.25f, alpha));
  return m;
}

// Unlit lines in the layer's colour (or `color`).
osg::ref_ptr<osg::Geometry> edgeGeometry(osg::Vec3Array* v, const osg::Vec4& color = kCollisionColor) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setVertexArray(v);
  g->setColorArray(singleColor(osg::Vec4(color.r(), color.g(), color.b(), kEdgeAlpha)), osg::Array::BIND_OVERALL);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, GLsizei(v->size())));
  osg::StateSet* ss = g->getOrCreateStateSet();
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::OVERRIDE);
  ss->setMode(GL_LINE_SMOOTH, osg::StateAttribute::ON);
  ss->setAttributeAndModes(new osg::LineWidth(kEdgeWidth));
  // Lines on a coincident visual surface: their depths a hair nearer (a depth range ending short of
  // 1), so they are not half hidden by the surface they lie on.
  ss->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0 - kEdgeDepthShift, false));
  return g;
}

// One shape: fill and edges under its placement; null for a mesh that does not collide.
osg::ref_ptr<osg::Node> collisionShape(const ShapeDesc& s, double planeHalfSize) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  osg::ref_ptr<osg::Vec3Array> edges = new osg::Vec3Array;
  if (osg::ref_ptr<osg::Shape> analytic = analyticShape(s)) {
    geode->addDrawable(tessellated(analytic));
    analyticEdges(s, planeHalfSize, *edges);
  } else if (s.kind == ShapeDesc::Kind::Plane) {
    // Seen from both sides, and fainter than the solids (a square is large and covers much of the view).
    osg::ref_ptr<osg::Geometry> square = planeSquare(planeHalfSize);
    osg::StateSet* ss = square->getOrCreateStateSet();
    ss->setMode(GL_CULL_FACE, osg::StateAttribute::OFF);
    ss->setAttributeAndModes(collisionMaterial(kPlaneFillAlpha), osg::StateAttribute::ON | osg::StateAttribute::PROTECTED);
    geode->addDrawable(square);
    analyticEdges(s, planeHalfSize, *edges);
  } else {
    contact::ConvexHull hull;
    std::string why;
    if (s.meshVertices.empty() || !contact::buildConvexHull(s.meshVertices, hull, why)) return nullptr;
    geode->addDrawable(hullFill(hull));
    for (const auto& e : hull.edges)
      addLine(*edges, toOsg(hull.vertices[size_t(e[0])]), toOsg(hull.vertices[size_t(e[1])]));
  }
  geode->addDrawable(edgeGeometry(edges));
  osg::ref_ptr<osg::MatrixTransform> placed = placedShape(s);
  placed->addChild(geode);
  return placed;
}

// The layer's state on a body's group: a lit translucent material overriding the drawables', front
// faces only (one layer of tint over a convex shape), depth-tested against the bodies with equal
// depths passing and pulled towards the camera, so a shape that coincides with its visual shape is
// drawn over it; no depth writes.
void setCollisionState(osg::StateSet* ss) {
  const auto on = osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE;
  ss->setAttributeAndModes(collisionMaterial(kFillAlpha), on);
  ss->setMode(GL_BLEND, on);
  ss->setAttributeAndModes(new osg::CullFace(osg::CullFace::BACK), osg::StateAttribute::ON);
  ss->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, false));
  ss->setAttributeAndModes(new osg::PolygonOffset(-1.0f, -2.0f));
  ss->setRenderBinDetails(kCollisionBin, "DepthSortedBin");
  ss->setNestRenderBins(false);
}

// Counts the triangles a TriangleFunctor is given.
struct TriangleCounter {
  int count = 0;
  void operator()(const osg::Vec3&, const osg::Vec3&, const osg::Vec3&) { ++count; }
};

class TriangleCountVisitor : public osg::NodeVisitor {
 public:
  TriangleCountVisitor() : osg::NodeVisitor(osg::NodeVisitor::TRAVERSE_ALL_CHILDREN) { setNodeMaskOverride(~0u); }
  void apply(osg::Drawable& d) override { d.accept(triangles); }
  osg::TriangleFunctor<TriangleCounter> triangles;
};

}  // namespace

osg::ref_ptr<osg::Node> buildCollisionShapes(const std::vector<ShapeDesc>& shapes, double planeHalfSize) {
  osg::ref_ptr<osg::Group> group = new osg::Group;
  for (const ShapeDesc& s : shapes)
    if (osg::ref_ptr<osg::Node> n = collisionShape(s, planeHalfSize)) group->addChild(n);
  if (group->getNumChildren() == 0) return nullptr;
  group->setName("collision-shapes");
  setCollisionState(group->getOrCreateStateSet());
  return group;
}

// Each ground as a plane shape placed at the foot of `center`, its +z turned onto the normal; with
// `tiltedOnly`, only the grounds other than the plane z = 0 with normal +z (which the grid shows).
std::vector<ShapeDesc> groundShapes(const std::vector<GroundDesc>& grounds, const Vec3& center, bool tiltedOnly) {
  std::vector<ShapeDesc> planes;
  for (const GroundDesc& g : grounds) {
    if (!(g.normal.norm() > 1e-12) || !g.normal.allFinite() || !g.point.allFinite()) continue;
    const Vec3 n = g.normal.normalized();
    if (tiltedOnly && (n - Vec3::UnitZ()).norm() < 1e-9 && std::abs(g.point.z()) < 1e-9) continue;
    ShapeDesc s;
    s.kind = ShapeDesc::Kind::Plane;
    s.position = center - n * n.dot(center - g.point);
    const Eigen::Quaterniond q = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), n);
    s.orientation = Vec4(q.w(), q.x(), q.y(), q.z());
    planes.push_back(s);
  }
  return planes;
}

osg::ref_ptr<osg::Node> buildGroundPlanes(const std::vector<GroundDesc>& grounds, const Vec3& center, double half) {
  return buildCollisionShapes(groundShapes(grounds, center, false), half);
}

osg::ref_ptr<osg::Node> buildGroundSurfaces(const std::vector<GroundDesc>& grounds, const Vec3& center, double half) {
  const std::vector<ShapeDesc> planes = groundShapes(grounds, center, true);
  if (planes.empty()) return nullptr;
  osg::ref_ptr<osg::Group> group = new osg::Group;
  group->setName("ground-surfaces");
  for (const ShapeDesc& s : planes) {
    // A translucent grey square seen from both sides, with its border.
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    osg::ref_ptr<osg::Geometry> square = planeSquare(half);
    osg::StateSet* ss = square->getOrCreateStateSet();
    ss->setMode(GL_CULL_FACE, osg::StateAttribute::OFF);
    ss->setAttributeAndModes(collisionMaterial(kGroundFillAlpha, kGroundColor));
    geode->addDrawable(square);
    osg::ref_ptr<osg::Vec3Array> edges = new osg::Vec3Array;
    analyticEdges(s, half, *edges);
    geode->addDrawable(edgeGeometry(edges, kGroundColor));
    osg::ref_ptr<osg::MatrixTransform> placed = placedShape(s);
    placed->addChild(geode);
    group->addChild(placed);
  }
  osg::StateSet* ss = group->getOrCreateStateSet();
  ss->setMode(GL_BLEND, osg::StateAttribute::ON);
  ss->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, false));
  ss->setRenderBinDetails(kCollisionBin - 1, "DepthSortedBin");
  ss->setNestRenderBins(false);
  return group;
}

int countTriangles(osg::Node* node) {
  if (!node) return 0;
  TriangleCountVisitor v;
  node->accept(v);
  return v.triangles.count;
}

}  // namespace ms::ui::viewport
