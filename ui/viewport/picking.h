// SPDX-License-Identifier: GPL-3.0-or-later
// Picking in the 3D view, apart from drawing: the world ray through a window position, the body
// under it (osgUtil::LineSegmentIntersector through the viewer, bodies only), and the Ctrl+drag grab
// whose target follows the mouse on the plane through the grab point facing the camera.
#pragma once

#include <cstddef>

#include <osg/Camera>
#include <osg/Vec2d>
#include <osgViewer/View>

#include "sim/sim_types.h"
#include "viewport/overlays.h"

namespace ms::ui::viewport {

// The user value on a body's transform holding its index (what a pick looks for on the node path).
inline constexpr const char* kBodyKey = "ms_body";

struct Hit {
  int body = -1;
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();  // the surface's outward normal there (world)
};

// World ray through a window position (device pixels, origin bottom left), unprojected with the
// camera's current view, projection and viewport.
bool windowRay(const osg::Camera& camera, const osg::Vec2d& window, Vec3& origin, Vec3& dir);

// Nearest body surface at a window position of the view's camera: the first hit below a transform
// tagged with kBodyKey (an index below bodyCount). Only nodes in kPickMask are hit (not the grid,
// ghosts or overlays). body = -1: nothing.
Hit pickBody(osgViewer::View& view, const osg::Vec2d& window, size_t bodyCount);

// The body held by Ctrl+drag and where.
struct Grab {
  int body = -1;
  Vec3 local = Vec3::Zero();   // the grab point in the body's frame
  Vec3 target = Vec3::Zero();  // where the spring pulls it (world)

  // Takes hold of the hit body (at pose b) at the hit point.
  void start(const Hit& hit, const BodyState& b);
  // The attachment point in world coordinates at the current pose.
  Vec3 world(const Poses& poses) const;
  // The mouse ray (origin, dir) meets the plane through the current grab point that faces the camera
  // (normal viewDir); the present target when it does not.
  Vec3 dragTarget(const Vec3& origin, const Vec3& dir, const Vec3& viewDir, const Poses& poses) const;
  Perturbation perturbation() const;
};

}  // namespace ms::ui::viewport
