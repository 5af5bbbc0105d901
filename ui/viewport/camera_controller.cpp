// SPDX-License-Identifier: GPL-3.0-or-later
// CameraController: the orbit camera's motions (turntable orbit, pan, zoom about a point), presets,
// the fit of a framed region from the current view direction, following a body, and the projection
// of world points to pixels.
#include "viewport/camera_controller.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Geometry>
#include <osg/Matrixd>

#include "viewport/framing.h"
#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

void CameraController::setCamera(const Camera& camera) {
  cam_ = camera;
  autoFit_ = false;
}

Vec3 CameraController::viewDir() const {
  const Vec3 d = cam_.center - cam_.eye;
  return d.norm() > 1e-12 ? Vec3(d.normalized()) : Vec3(0, 1, 0);
}

// The stored up vector, or a sensible one when it is (nearly) parallel to the view direction.
Vec3 CameraController::safeUp() const {
  const Vec3 d = viewDir();
  if (cam_.up.norm() > 1e-12 && d.cross(cam_.up.normalized()).norm() > 1e-6) return cam_.up;
  return std::abs(d.z()) < 0.9 ? Vec3::UnitZ() : Vec3::UnitY();
}

// Turntable orbit about the centre: yaw about world z, pitch about the camera's right axis with the
// elevation clamped to ±90° (up returns to +z away from the poles, so the horizon stays level).
void CameraController::orbit(double dx, double dy) {
  autoFit_ = false;
  Vec3 off = cam_.eye - cam_.center;
  const double d = off.norm();
  if (d < 1e-12) return;
  const Eigen::AngleAxisd yaw(-dx * kOrbitRadPerPixel, Vec3::UnitZ());
  off = yaw * off;
  Vec3 up = yaw * safeUp();
  const double elev = std::asin(std::clamp(off.z() / d, -1.0, 1.0));
  const double newElev = std::clamp(elev + dy * kOrbitRadPerPixel, -kPi / 2, kPi / 2);
  const Vec3 right = (-off).cross(up).normalized();
  if (right.allFinite()) {
    const Eigen::AngleAxisd pitch(-(newElev - elev), right);
    off = pitch * off;
    up = pitch * up;
  }
  cam_.eye = cam_.center + off;
  cam_.up = std::abs(newElev) < kPi / 2 - 1e-3 ? Vec3(Vec3::UnitZ()) : up;
}

// Moves eye and centre so the point at the centre's depth follows the mouse.
void CameraController::pan(double dx, double dy, int viewHeight) {
  autoFit_ = false;
  const Vec3 dir = viewDir();
  const Vec3 right = dir.cross(safeUp()).normalized(), upc = right.cross(dir);
  const double s = 2.0 * (cam_.center - cam_.eye).norm() * std::tan(kFovY * kPi / 360.0) / std::max(1, viewHeight);
  const Vec3 delta = (-dx * right + dy * upc) * s;
  cam_.eye += delta;
  cam_.center += delta;
}

// Scales eye and centre about the point (under the cursor): wheel forward moves in.
void CameraController::zoomAbout(double steps, const Vec3& p) {
  autoFit_ = false;
  const double f = std::pow(0.85, steps);
  const Vec3 eye = p + (cam_.eye - p) * f, center = p + (cam_.center - p) * f;
  const double dist = (center - eye).norm();
  if (!(dist > 1e-3 && dist < 1e5) || !eye.allFinite() || !center.allFinite()) return;
  cam_.eye = eye;
  cam_.center = center;
}

Vec3 CameraController::focalPoint(const Vec3& o, const Vec3& r) const {
  const double den = viewDir().dot(r);
  if (std::abs(den) > 1e-9) return o + r * (viewDir().dot(cam_.center - o) / den);
  return cam_.center;
}

void CameraController::translate(const Vec3& delta) {
  autoFit_ = false;
  cam_.eye += delta;
  cam_.center += delta;
}

// Presets keep the centre and distance; z is up, Front looks along +y, Side along −x, Top down −z.
void CameraController::setPreset(ViewPreset preset) {
  Camera& c = cam_;
  double dist = (c.eye - c.center).norm();
  if (!(dist > 1e-6)) dist = 5.0;
  Vec3 off = Vec3(3, -3, 2).normalized();
  Vec3 up = Vec3::UnitZ();
  switch (preset) {
    case ViewPreset::Iso: break;
    case ViewPreset::Front: off = Vec3(0, -1, 0); break;
    case ViewPreset::Side: off = Vec3(1, 0, 0); break;
    case ViewPreset::Top:
      off = Vec3(0, 0, 1);
      up = Vec3::UnitY();
      break;
  }
  c.eye = c.center + off * dist;
  c.up = up;
  autoFit_ = false;
}

// Frames the region from the current view direction: a ball by its tangent cone, a planar
// mechanism's cylinder by moving the centre to the middle of its outline and backing off until
// every rim point is inside the view (5 % margin).
void CameraController::fit(const Framing& f, double aspect) {
  const double halfY = kFovY * kPi / 360.0, halfX = std::atan(std::tan(halfY) * aspect);
  const Vec3 dir = viewDir();
  double dist = 1.05 * f.radius / std::sin(std::min(halfX, halfY));
  Vec3 center = f.center;
  if (!f.rim.empty()) {
    const Vec3 right = dir.cross(safeUp()).normalized(), up = right.cross(dir);
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const Vec3& p : f.rim) {
      x0 = std::min(x0, right.dot(p - center));
      x1 = std::max(x1, right.dot(p - center));
      y0 = std::min(y0, up.dot(p - center));
      y1 = std::max(y1, up.dot(p - center));
    }
    center += right * (0.5 * (x0 + x1)) + up * (0.5 * (y0 + y1));
    const double tx = std::tan(halfX) / 1.05, ty = std::tan(halfY) / 1.05;
    double need = 0, front = 0;
    for (const Vec3& p : f.rim) {
      const Vec3 q = p - center;
      need = std::max(need, std::max(std::abs(right.dot(q)) / tx, std::abs(up.dot(q)) / ty) - dir.dot(q));
      front = std::max(front, -dir.dot(q));
    }
    // Never closer than the nearest rim point plus a little (it would be behind the near plane).
    if (std::isfinite(need)) dist = std::max(need, front + 0.1 * f.radius);
  }
  cam_.center = center;
  cam_.eye = center - dir * dist;
  autoFit_ = true;
}

void CameraController::setFollow(int body, const Vec3* position) {
  follow_ = body;
  followKnown_ = position != nullptr;
  if (followKnown_) followLast_ = *position;
  autoFit_ = false;
}

// Follow: the camera moves with the followed body.
bool CameraController::track(const Vec3& x) {
  const bool moved = followKnown_;
  if (followKnown_) {
    cam_.eye += x - followLast_;
    cam_.center += x - followLast_;
  }
  followLast_ = x;
  followKnown_ = true;
  return moved;
}

// The camera's view and projection (as the widget sets them) and the window mapping, applied by hand.
bool CameraController::toPixels(const Vec3& point, int pw, int ph, Eigen::Vector2d& pixel) const {
  osg::Matrixd view, proj;
  view.makeLookAt(toOsg(cam_.eye), toOsg(cam_.center), toOsg(safeUp()));
  proj.makePerspective(kFovY, double(pw) / ph, 0.01, 1000.0);
  const osg::Vec4d clip = osg::Vec4d(toOsg(point), 1.0) * view * proj;
  if (!(clip.w() > 1e-12)) return false;
  pixel = Eigen::Vector2d(0.5 * (clip.x() / clip.w() + 1.0) * pw, 0.5 * (1.0 - clip.y() / clip.w()) * ph);
  return true;
}

}  // namespace ms::ui::viewport
