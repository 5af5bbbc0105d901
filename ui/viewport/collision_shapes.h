// SPDX-License-Identifier: GPL-3.0-or-later
// The collision layer of the 3D view (View ▸ Collision shapes): what collides, drawn over the visual
// shapes in one colour of its own — a translucent fill and the shape's edges. Built once per model;
// each body's part hangs under that body's pose transform, so per frame only the transforms change,
// as for the visual shapes.
#pragma once

#include <vector>

#include <osg/Node>
#include <osg/Vec4>

#include "core/types.h"
#include "model/model.h"

namespace ms::ui::viewport {

// The layer's colour: a green that none of the bodies' default colours or the overlays use.
extern const osg::Vec4 kCollisionColor;

// A body's collision shapes, each placed in the body frame as its visual shapes are (ShapeDesc
// position and orientation): box, sphere, capsule and cylinder as their analytic solids (tessellated
// like the visual shapes), a plane as the square [-planeHalfSize, planeHalfSize]² with normal +z, a
// collision mesh as the convex hull of its vertices (ShapeDesc::meshVertices: the hull, not the mesh,
// collides; a mesh without vertices or without a solid hull does not collide and is left out).
// Null when nothing is left. The node carries the layer's state (translucent, drawn after the bodies).
osg::ref_ptr<osg::Node> buildCollisionShapes(const std::vector<ShapeDesc>& shapes, double planeHalfSize);

// The grounds (planes fixed in the world) in the same style: squares of half size `half` centred at
// the foot of `center` on each plane. Null without grounds.
osg::ref_ptr<osg::Node> buildGroundPlanes(const std::vector<GroundDesc>& grounds, const Vec3& center, double half);

// The grounds the grid does not show (any but the plane z = 0 with normal +z: an incline, a ramp, a
// wall) as faint grey squares for the ordinary view, so that a body on a ramp is not seen floating
// above the grid. Null when there is none.
osg::ref_ptr<osg::Node> buildGroundSurfaces(const std::vector<GroundDesc>& grounds, const Vec3& center, double half);

// Number of triangles a node's drawables draw (triangles, strips, fans and quads; lines and points
// are not counted), masked-out children included.
int countTriangles(osg::Node* node);

}  // namespace ms::ui::viewport
