// SPDX-License-Identifier: GPL-3.0-or-later
// Picking: window rays, the body under a window position, and the Ctrl+drag grab (picking.h).
#include "viewport/picking.h"

#include <cmath>

#include <osg/Matrixd>
#include <osg/ValueObject>
#include <osgUtil/LineSegmentIntersector>

#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

bool windowRay(const osg::Camera& c, const osg::Vec2d& p, Vec3& origin, Vec3& dir) {
  osg::Matrixd inv;
  if (!inv.invert(c.getViewMatrix() * c.getProjectionMatrix() * c.getViewport()->computeWindowMatrix())) return false;
  const Vec3 a = fromOsg(osg::Vec3d(p.x(), p.y(), 0.0) * inv), b = fromOsg(osg::Vec3d(p.x(), p.y(), 1.0) * inv);
  origin = a;
  dir = (b - a).normalized();
  return origin.allFinite() && dir.allFinite();
}

Hit pickBody(osgViewer::View& view, const osg::Vec2d& p, size_t bodyCount) {
  osgUtil::LineSegmentIntersector::Intersections hits;
  if (!view.computeIntersections(view.getCamera(), osgUtil::Intersector::WINDOW, float(p.x()), float(p.y()), hits,
                                 kPickMask))
    return {};
  for (const auto& hit : hits) {
    for (auto it = hit.nodePath.rbegin(); it != hit.nodePath.rend(); ++it) {
      int body = -1;
      if ((*it)->getUserValue(kBodyKey, body) && body >= 0 && size_t(body) < bodyCount)
        return {body, fromOsg(hit.getWorldIntersectPoint()), fromOsg(hit.getWorldIntersectNormal()).normalized()};
    }
  }
  return {};
}

void Grab::start(const Hit& h, const BodyState& b) {
  body = h.body;
  local = rotationOf(b.q).transpose() * (h.point - b.x);
  target = h.point;
}

Vec3 Grab::world(const Poses& poses) const {
  if (body < 0 || size_t(body) >= poses.size()) return target;
  const BodyState& b = poses[size_t(body)];
  return b.x + rotationOf(b.q) * local;
}

Vec3 Grab::dragTarget(const Vec3& o, const Vec3& r, const Vec3& n, const Poses& poses) const {
  const Vec3 p0 = world(poses);
  const double den = n.dot(r);
  if (std::abs(den) < 1e-9) return target;
  const Vec3 t = o + r * (n.dot(p0 - o) / den);
  return t.allFinite() ? t : target;
}

Perturbation Grab::perturbation() const {
  Perturbation p;
  p.active = body >= 0;
  p.body = body;
  p.localPoint = local;
  p.target = target;
  return p;
}

}  // namespace ms::ui::viewport
