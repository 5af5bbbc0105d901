// SPDX-License-Identifier: GPL-3.0-or-later
// OpenSceneGraph building blocks of the 3D view: conversions between the engine's Eigen types and
// OSG, body shapes (box, sphere, capsule, cylinder, plane, mesh file) with their materials, the
// ground grid, dynamic line/point geometry and the state shared by the overlays.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <QString>
#include <osg/Geometry>
#include <osg/Material>
#include <osg/Matrixd>
#include <osg/MatrixTransform>
#include <osg/Node>
#include <osg/ShapeDrawable>

#include "core/types.h"
#include "model/model.h"

namespace ms::ui::viewport {

// Node masks: bodies are drawn and picked; the grid and the overlays are drawn but never picked.
constexpr osg::Node::NodeMask kPickMask = 0x1;
constexpr osg::Node::NodeMask kDrawOnlyMask = 0x2;

// Conversions between engine vectors and OSG vectors/colours.
inline osg::Vec3d toOsg(const Vec3& v) { return osg::Vec3d(v.x(), v.y(), v.z()); }
inline Vec3 fromOsg(const osg::Vec3d& v) { return Vec3(v.x(), v.y(), v.z()); }
inline osg::Vec4 toOsgColor(const Vec4& c) {
  return osg::Vec4(float(c(0)), float(c(1)), float(c(2)), float(c(3)));
}

// Rotation matrix of a [w, x, y, z] quaternion (normalised first; identity for a zero quaternion).
Mat3 rotationOf(const Vec4& q);
// The OSG matrix of the rigid transform (x, q): maps body-frame points to the world frame
// (OSG multiplies row vectors, so this is the transpose of the Eigen matrix, same memory layout).
osg::Matrixd poseMatrix(const Vec3& x, const Vec4& q);

// Loads each mesh file once; a missing or unreadable file gives null and exactly one qWarning.
class MeshCache {
 public:
  osg::ref_ptr<osg::Node> load(const QString& path);
  void clear();

 private:
  std::map<QString, osg::ref_ptr<osg::Node>> loaded_;
  std::set<QString> failed_;
};

// A lit surface material for `color` (alpha < 1: the state set also gets blending and the
// transparent bin). The material is returned so the selection highlight can change its emission.
osg::ref_ptr<osg::Material> applySurface(osg::StateSet* ss, const osg::Vec4& color, bool overrideChildren);

// The pieces a shape is drawn from, shared by the visual shapes (buildShape) and the collision
// layer (collision_shapes.h):
// the analytic solid of a box, sphere, capsule or cylinder in its shape frame (null for planes and
// meshes), with sizes as ShapeDesc::size gives them (full box extents; radius, length along z) ...
osg::ref_ptr<osg::Shape> analyticShape(const ShapeDesc& shape);
// ... tessellated as every analytic shape of the view is ...
osg::ref_ptr<osg::ShapeDrawable> tessellated(osg::Shape* shape);
// ... the square [-half, half]² of the plane z = 0 (normal +z, one quad, no state) ...
osg::ref_ptr<osg::Geometry> planeSquare(double half);
// ... and the static transform of the shape's placement (position, orientation) in the body frame.
osg::ref_ptr<osg::MatrixTransform> placedShape(const ShapeDesc& shape);

// One shape placed in its body frame. Its materials are appended to `materials`.
struct ShapeNode {
  osg::ref_ptr<osg::Node> node;
  bool isPlane = false;  // planes are left out of the body's bounds (they would dwarf the model)
};
ShapeNode buildShape(const ShapeDesc& shape, const QString& modelDir, MeshCache& meshes, double planeHalfSize,
                     std::vector<osg::ref_ptr<osg::Material>>& materials);

// A small sphere at the centre of mass for bodies without any shape.
osg::ref_ptr<osg::Node> buildMarkerSphere(double radius, const osg::Vec4& color,
                                          std::vector<osg::ref_ptr<osg::Material>>& materials);

// The ground grid at z = 0 over [-halfExtent, halfExtent]²: lines `spacing` apart, lines a tenth of
// that apart within minorHalfExtent of the origin (none for 0), both fading out towards their edge;
// the x axis is red, the y axis green.
osg::ref_ptr<osg::Node> buildGrid(double halfExtent, double spacing, double minorHalfExtent);

// A one-element colour array (for BIND_OVERALL).
osg::ref_ptr<osg::Vec4Array> singleColor(const osg::Vec4& color);

// Geometry whose vertices are rewritten between frames (VBOs, no display list), with one colour
// array (per vertex or overall) and the given primitive sets added by the caller.
osg::ref_ptr<osg::Geometry> makeDynamicGeometry(osg::Vec3Array* vertices, osg::Vec4Array* colors,
                                                osg::Array::Binding colorBinding);

// Overlay state: unlit, drawn over the bodies (no depth test) in a late render bin.
void setOverlayState(osg::StateSet* ss, float lineWidth, float pointSize);

}  // namespace ms::ui::viewport
