// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget's building tools (issue 34): Add (a click drops a new body on a body or on the
// ground) and Connect (two clicks join two bodies, or a body and the ground, by a joint). The view
// only picks the points and asks (addRequested, connectRequested); the text edits are the engine's
// (mech_edit.h addBodyAt, connectBodies), made by the document controller.
#include <cmath>

#include <QPainter>

#include "viewport/viewport_impl.h"

namespace ms::ui {

using namespace viewport;

void ViewportWidget::setTool(Tool tool) {
  Impl& d = *d_;
  d.tool = tool;
  d.connectBody = -2;
  d.showHandleSet(d.shownMode, true);
  setCursor(tool == Tool::Select ? Qt::ArrowCursor : Qt::CrossCursor);
  update();
}

ViewportWidget::Tool ViewportWidget::tool() const { return d_->tool; }

void ViewportWidget::setBuildingAllowed(bool allowed, const QString& why) {
  d_->buildingAllowed = allowed;
  d_->buildingWhy = why;
  if (!allowed) d_->connectBody = -2;
}

bool ViewportWidget::connectFirst(int& body, Vec3& point) const {
  if (d_->connectBody < -1) return false;
  body = d_->connectBody;
  point = d_->connectPoint;
  return true;
}

// The joint point (either side: the parent's anchor, the child's) nearest `pos` on screen within
// kAnchorSnapPixels, on body `body` (−1: any body or the ground); false when none is that near.
bool ViewportWidget::Impl::nearestAnchor(const QPointF& pos, int body, Vec3& point) const {
  if (!system) return false;
  std::vector<std::pair<int, Vec3>> points;
  for (const CompiledJoint& j : system->joints) {
    if (body < 0 || j.geo.parent == body) points.emplace_back(j.geo.parent, j.geo.pa);
    if (body < 0 || j.geo.child == body) points.emplace_back(j.geo.child, j.geo.pb);
  }
  return nearestOnScreen(pos, points, point);
}

// The corners of the clicked body's shapes nearest `pos` on screen within kAnchorSnapPixels that lie
// in the plane of the surface clicked (not a corner behind it): a box's vertices, edge midpoints and
// face centres, a cylinder's end centres, a capsule's end centres and tips.
bool ViewportWidget::Impl::nearestShapePoint(const QPointF& pos, const Hit& hit, Vec3& point) const {
  const int body = hit.body;
  if (!system || body < 0 || size_t(body) >= system->model.bodies.size() || size_t(body) >= poses.size()) return false;
  const BodyDesc& b = system->model.bodies[size_t(body)];
  const BodyState& pose = poses[size_t(body)];
  std::vector<std::pair<int, Vec3>> points;
  for (const std::vector<ShapeDesc>* shapes : {&b.visuals, &b.collisions})
    for (const ShapeDesc& s : *shapes) {
      const auto add = [&](const Vec3& local) {
        const Vec3 inBody = s.position + rotationOf(s.orientation) * local;
        const Vec3 world = pose.x + rotationOf(pose.q) * inBody;
        if (std::abs((world - hit.point).dot(hit.normal)) <= kOnSurface) points.emplace_back(body, inBody);
      };
      if (s.kind == ShapeDesc::Kind::Box) {
        for (int i = -1; i <= 1; ++i)
          for (int j = -1; j <= 1; ++j)
            for (int k = -1; k <= 1; ++k)
              if (i || j || k) add(0.5 * Vec3(i * s.size.x(), j * s.size.y(), k * s.size.z()));
      } else if (s.kind == ShapeDesc::Kind::Cylinder || s.kind == ShapeDesc::Kind::Capsule) {
        for (int e : {-1, 1}) {
          add(Vec3(0, 0, 0.5 * e * s.size.y()));
          if (s.kind == ShapeDesc::Kind::Capsule) add(Vec3(0, 0, e * (0.5 * s.size.y() + s.size.x())));
        }
      }
    }
  return nearestOnScreen(pos, points, point);
}

// The nearest point of an edge of a box of the clicked body — an edge of the clicked face, drawn less
// than `within` pixels from `pos` — to the mouse ray, moved along the edge to a multiple of the grid step
// from its middle (kept on the edge).
bool ViewportWidget::Impl::nearestShapeEdge(const QPointF& pos, const Hit& hit, double within, Vec3& point) {
  const int body = hit.body;
  if (!system || body < 0 || size_t(body) >= system->model.bodies.size() || size_t(body) >= poses.size()) return false;
  Vec3 o, r;
  if (!ray(pos, o, r)) return false;
  r.normalize();
  const BodyState& pose = poses[size_t(body)];
  const Mat3 R = rotationOf(pose.q);
  const BodyDesc& b = system->model.bodies[size_t(body)];
  double best = within;
  bool found = false;
  for (const std::vector<ShapeDesc>* shapes : {&b.visuals, &b.collisions})
    for (const ShapeDesc& s : *shapes) {
      if (s.kind != ShapeDesc::Kind::Box) continue;
      const Mat3 Rs = R * rotationOf(s.orientation);
      const Vec3 centre = pose.x + R * s.position, half = 0.5 * s.size;
      for (int k = 0; k < 3; ++k)
        for (int corner = 0; corner < 4; ++corner) {
          // The edge along axis k at the other two axes' ± half sizes: its middle and direction.
          const int a = (k + 1) % 3, c = (k + 2) % 3;
          const Vec3 mid = centre + Rs.col(a) * ((corner & 1) ? half[a] : -half[a]) + Rs.col(c) * ((corner & 2) ? half[c] : -half[c]);
          const Vec3 d = Rs.col(k);
          if (std::abs((mid - hit.point).dot(hit.normal)) > kOnSurface || std::abs(d.dot(hit.normal)) > 1e-9) continue;
          // Its point nearest the ray (lines mid + t·d and o + u·r), on the edge.
          const Vec3 wo = mid - o;
          const double bd = d.dot(r), denom = 1 - bd * bd;
          if (!(denom > 1e-9)) continue;
          const double t = std::clamp((bd * r.dot(wo) - d.dot(wo)) / denom, -half[k], half[k]);
          QPointF at;
          if (!w->worldToWidget(Vec3(mid + t * d), at)) continue;
          const double dist = std::hypot(at.x() - pos.x(), at.y() - pos.y());
          if (!(dist < best)) continue;
          best = dist;
          const double onGrid = snapGrid > 0 ? std::clamp(std::round(t / snapGrid) * snapGrid, -half[k], half[k]) : t;
          point = mid + onGrid * d;
          found = true;
        }
    }
  return found;
}

// A point `local` (body `body`'s frame) on the round side of one of its rods — a cylinder or capsule
// longer than it is wide — moved onto that rod's centre line; false (unchanged) when on none.
bool ViewportWidget::Impl::onRodAxis(int body, Vec3& local) const {
  if (!system || body < 0 || size_t(body) >= system->model.bodies.size()) return false;
  const BodyDesc& b = system->model.bodies[size_t(body)];
  for (const std::vector<ShapeDesc>* shapes : {&b.visuals, &b.collisions})
    for (const ShapeDesc& s : *shapes) {
      if (s.kind != ShapeDesc::Kind::Cylinder && s.kind != ShapeDesc::Kind::Capsule) continue;
      const double r = s.size.x(), half = 0.5 * s.size.y();
      if (!(r < half)) continue;
      const Mat3 Rs = rotationOf(s.orientation);
      const Vec3 p = Rs.transpose() * (local - s.position);
      if (std::abs(std::hypot(p.x(), p.y()) - r) <= 0.02 * r && std::abs(p.z()) <= half) {
        local = s.position + Rs * Vec3(0, 0, p.z());
        return true;
      }
    }
  return false;
}

// Of `points` (a body, −1 the world, and a point in its frame), the one whose world point is drawn
// nearest `pos` within kAnchorSnapPixels.
bool ViewportWidget::Impl::nearestOnScreen(const QPointF& pos, const std::vector<std::pair<int, Vec3>>& points, Vec3& point) const {
  double best = kAnchorSnapPixels;
  bool found = false;
  for (const auto& [b, local] : points) {
    const Vec3 p = b >= 0 && size_t(b) < poses.size() ? Vec3(poses[size_t(b)].x + rotationOf(poses[size_t(b)].q) * local) : local;
    QPointF at;
    if (!w->worldToWidget(p, at)) continue;
    const double d = std::hypot(at.x() - pos.x(), at.y() - pos.y());
    if (d <= best) best = d, point = p, found = true;
  }
  return found;
}

bool ViewportWidget::Impl::toolPick(const QPointF& pos, Hit& hit) {
  hit = pick(pos);
  // Snapping of the normal (the axis of a joint made there): onto the nearest axis of the body's frame
  // or of one of its shapes' — a flat face's normal is one already; a round side's (a rod picked a
  // little off its middle) turns onto the axis across the rod.
  if (snapOn && hit.body >= 0 && size_t(hit.body) < poses.size() && system && size_t(hit.body) < system->model.bodies.size()) {
    const Mat3 R = rotationOf(poses[size_t(hit.body)].q);
    const Vec3 n = hit.normal.normalized();
    Vec3 best = n;
    double bestDot = -1;
    const auto consider = [&](const Mat3& axes) {
      for (int k = 0; k < 3; ++k)
        if (const double d = std::abs(axes.col(k).dot(n)); d > bestDot) bestDot = d, best = axes.col(k) * (axes.col(k).dot(n) > 0 ? 1.0 : -1.0);
    };
    consider(R);
    const BodyDesc& b = system->model.bodies[size_t(hit.body)];
    for (const std::vector<ShapeDesc>* shapes : {&b.visuals, &b.collisions})
      for (const ShapeDesc& sh : *shapes) consider(R * rotationOf(sh.orientation));
    hit.normal = best;
  }
  // Snapping: an existing joint point near the click wins (a loop joined exactly where a joint is),
  // then a corner of the body's shapes (a vertex, an edge's midpoint, a face's or an end's centre).
  if (snapOn && hit.body >= 0) {
    Vec3 snapped;
    if (nearestAnchor(pos, hit.body, snapped) || nearestShapePoint(pos, hit, snapped)) {
      hit.point = snapped;
      return true;
    }
  }
  if (hit.body >= 0) {
    // On a body, snapping puts the point on the grid of the body's frame (a box face's centre,
    // its edges' midpoints, … for a box whose sizes are multiples of it); on a rod's round side, on
    // its centre line first (a pin goes through the middle of a rod) — or on an edge of the clicked
    // face when that is drawn nearer the mouse than the grid's point (on a thin bar, its middle line
    // stays nearer than its edges).
    if (snapOn && snapGrid > 0 && size_t(hit.body) < poses.size()) {
      const BodyState& b = poses[size_t(hit.body)];
      const Mat3 R = rotationOf(b.q);
      Vec3 local = R.transpose() * (hit.point - b.x);
      onRodAxis(hit.body, local);
      for (int i = 0; i < 3; ++i) local[i] = std::round(local[i] / snapGrid) * snapGrid;
      const Vec3 onGrid = b.x + R * local;
      QPointF at;
      const double gridPixels = w->worldToWidget(onGrid, at) ? std::hypot(at.x() - pos.x(), at.y() - pos.y()) : kAnchorSnapPixels;
      Vec3 edge;
      hit.point = nearestShapeEdge(pos, hit, std::min(gridPixels, double(kAnchorSnapPixels)), edge) ? edge : onGrid;
    }
    return true;
  }
  // The ground plane z = 0, seen from above.
  Vec3 o, r;
  if (!ray(pos, o, r) || !(r.z() < -1e-6) || !(o.z() > 0)) return false;
  hit.body = -1;
  hit.point = o - (o.z() / r.z()) * r;
  hit.normal = Vec3::UnitZ();
  // On the ground, snapping puts the point on the grid.
  if (snapOn && snapGrid > 0)
    for (int i = 0; i < 2; ++i) hit.point[i] = std::round(hit.point[i] / snapGrid) * snapGrid;
  return true;
}

void ViewportWidget::Impl::toolClick(const QPointF& pos) {
  if (!buildingAllowed) {
    emit w->buildingMessage(buildingWhy.isEmpty() ? QString("The tools edit the model's initial state: reset to t = 0.") : buildingWhy);
    return;
  }
  Hit hit;
  if (!toolPick(pos, hit)) {
    emit w->buildingMessage("Nothing there: click a body or the ground.");
    return;
  }
  if (tool == Tool::Add) {
    emit w->addRequested(hit.body, hit.point, hit.normal);
    return;
  }
  // Connect: the first point, then the second (a body: the ground cannot be the second end).
  if (connectBody < -1) {
    connectBody = hit.body;
    connectPoint = hit.point;
    connectNormal = hit.normal;
    emit w->buildingMessage(hit.body < 0 ? "Connect: the ground picked; now click the body to join to it (Esc: start over)."
                                         : "Connect: first point picked; now click the other body (Esc: start over).");
    w->update();
    return;
  }
  int a = connectBody, b = hit.body;
  Vec3 pa = connectPoint, pb = hit.point, axis = connectNormal;
  if (b < 0) {
    if (a < 0) {
      emit w->buildingMessage("Connect: the ground cannot be jointed to itself; click a body.");
      return;
    }
    std::swap(a, b);
    std::swap(pa, pb);
    axis = hit.normal;
  }
  connectBody = -2;
  w->update();
  if (a == b) {
    emit w->buildingMessage("Connect: a body cannot be jointed to itself; pick two different bodies.");
    return;
  }
  emit w->connectRequested(a, pa, axis, b, pb);
}

// The first point of a Connect gesture: a ring where it was picked.
void ViewportWidget::paintToolMarker(QPainter& p) {
  const Impl& d = *d_;
  QPointF at;
  if (d.tool != Tool::Connect || d.connectBody < -1 || !worldToWidget(d.connectPoint, at)) return;
  p.setRenderHint(QPainter::Antialiasing);
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(255, 220, 90), 2.5));
  p.drawEllipse(at, 7, 7);
  p.drawLine(at + QPointF(-11, 0), at + QPointF(-4, 0));
  p.drawLine(at + QPointF(4, 0), at + QPointF(11, 0));
}

}  // namespace ms::ui
