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
  d.showHandleSet(d.anchorShown, true);
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
  double best = kAnchorSnapPixels;
  bool found = false;
  const auto consider = [&](int b, const Vec3& local) {
    if (body >= 0 && b != body) return;
    const Vec3 p = b >= 0 && size_t(b) < poses.size() ? Vec3(poses[size_t(b)].x + rotationOf(poses[size_t(b)].q) * local) : local;
    QPointF at;
    if (!w->worldToWidget(p, at)) return;
    const double d = std::hypot(at.x() - pos.x(), at.y() - pos.y());
    if (d <= best) best = d, point = p, found = true;
  };
  for (const CompiledJoint& j : system->joints) {
    consider(j.geo.parent, j.geo.pa);
    consider(j.geo.child, j.geo.pb);
  }
  return found;
}

bool ViewportWidget::Impl::toolPick(const QPointF& pos, Hit& hit) {
  hit = pick(pos);
  // Snapping: an existing joint point near the click wins (a loop joined exactly where a joint is).
  if (snapOn && hit.body >= 0) {
    Vec3 anchor;
    if (nearestAnchor(pos, hit.body, anchor)) {
      hit.point = anchor;
      return true;
    }
  }
  if (hit.body >= 0) {
    // On a body, snapping puts the point on the grid of the body's frame (a box face's centre,
    // its edges' midpoints, … for a box whose sizes are multiples of it).
    if (snapOn && snapGrid > 0 && size_t(hit.body) < poses.size()) {
      const BodyState& b = poses[size_t(hit.body)];
      const Mat3 R = rotationOf(b.q);
      Vec3 local = R.transpose() * (hit.point - b.x);
      for (int i = 0; i < 3; ++i) local[i] = std::round(local[i] / snapGrid) * snapGrid;
      hit.point = b.x + R * local;
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
