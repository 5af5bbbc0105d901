// SPDX-License-Identifier: GPL-3.0-or-later
// The 3D view's camera, apart from drawing: an orbit camera kept as eye/centre/up, turned by the
// mouse (turntable orbit, pan, zoom toward a point), set from presets (iso/front/side/top), framed
// around a region (framing.h), following a body, and projecting world points to pixels. No Qt, no
// scene graph: ViewportWidget applies the camera to its OSG viewer and feeds it the mouse.
#pragma once

#include <Eigen/Core>

#include "core/types.h"

namespace ms::ui::viewport {

struct Framing;  // framing.h: the region a fit keeps in view

inline constexpr double kFovY = 40.0;  // vertical field of view, degrees
inline constexpr double kOrbitRadPerPixel = 0.008;

struct Camera {
  Vec3 eye = Vec3(3, -3, 2), center = Vec3::Zero(), up = Vec3::UnitZ();
};

enum class ViewPreset { Iso, Front, Side, Top };

class CameraController {
 public:
  const Camera& camera() const { return cam_; }
  void setCamera(const Camera& camera);

  // Unit vector from the eye to the centre.
  Vec3 viewDir() const;
  // The stored up vector, or a sensible one when it is (nearly) parallel to the view direction.
  Vec3 safeUp() const;

  // Moves by hand (each leaves the automatic framing: autoFit() is false after it).
  // Turntable orbit by a mouse motion in pixels; pan so the point at the centre's depth follows a
  // mouse motion in a view `viewHeight` logical pixels high; zoom by wheel steps about a point.
  void orbit(double dx, double dy);
  void pan(double dx, double dy, int viewHeight);
  void zoomAbout(double steps, const Vec3& point);
  // Eye and centre moved together (a double-click turns the view around a body's centre of mass).
  void translate(const Vec3& delta);
  // Presets keep the centre and distance.
  void setPreset(ViewPreset preset);
  // Where a ray meets the plane through the centre that faces the camera (the centre when the ray
  // runs along that plane): the point a zoom scales about when no body is under the cursor.
  Vec3 focalPoint(const Vec3& origin, const Vec3& dir) const;

  // Frames the region from the current view direction in a view of the given aspect ratio (width /
  // height); autoFit() is true until the camera is moved otherwise.
  void fit(const Framing& region, double aspect);
  bool autoFit() const { return autoFit_; }

  // The followed body (-1: none), at `position` now (null: not known yet). track(x): the followed
  // body is at x, the camera moves by its motion since the last known position; true if it moved.
  void setFollow(int body, const Vec3* position);
  int follow() const { return follow_; }
  void forgetFollowPosition() { followKnown_ = false; }
  bool track(const Vec3& x);

  // Where a world point appears in a view of pw × ph device pixels (origin top left); false if it is
  // behind the camera.
  bool toPixels(const Vec3& point, int pw, int ph, Eigen::Vector2d& pixel) const;

 private:
  Camera cam_;
  bool autoFit_ = false;  // the camera is as fit() left it: a resize frames the model again
  int follow_ = -1;       // body the camera follows (-1: none)
  Vec3 followLast_ = Vec3::Zero();
  bool followKnown_ = false;  // followLast_ holds the followed body's last position
};

}  // namespace ms::ui::viewport
