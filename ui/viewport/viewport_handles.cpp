// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget's move and rotate handles (issue 34): the API, the handle under the mouse, the
// preview of a drag (the moving bodies and the overlays drawn moved, nothing edited until the
// release) and the readout of its amount. The mouse dispatch is in viewport_widget.cpp; what the
// handles are and what a drag writes, in io/mech_drag.h; their drawing in handles.h.
#include <algorithm>
#include <cmath>

#include <QPainter>

#include "core/quaternion.h"
#include "viewport/viewport_impl.h"

namespace ms::ui {

using namespace viewport;

namespace {

// The rigid motion of handle h by `amount`: a translation along an arrow, a turn about a ring's axis
// through its origin.
void motionOf(const DragHandle& h, double amount, Vec3& translation, Vec4& turn) {
  translation = h.rotate ? Vec3::Zero() : Vec3(amount * h.direction);
  turn = h.rotate ? quat::fromAxisAngle(h.direction, amount) : quat::identity();
}

}  // namespace

void ViewportWidget::setHandles(const DragHandleSets& sets) {
  Impl& d = *d_;
  if (d.gesture.handle) d.endPreview(), d.gesture.consumed = true;
  d.handleSets = sets;
  d.hotHandle = -1;
  d.showHandleSet(d.shownMode, true);
  update();
}

void ViewportWidget::clearHandles() { setHandles({}); }

const DragHandles& ViewportWidget::handles(DragMode mode) const { return d_->handleSets.of(mode); }

bool ViewportWidget::handlePoint(DragMode mode, int handle, double t, QPointF& widgetPos, Vec3* world) {
  Impl& d = *d_;
  if (mode != DragMode::Resize) d.showHandleSet(mode);
  d.ensureViewport();
  d.refreshHandles();
  const std::vector<DragHandle>& hs = d.handleLayer.handles();
  if (handle < 0 || size_t(handle) >= hs.size()) return false;
  const std::vector<Vec3>& line = d.handleLayer.outline(handle);
  if (line.size() < 2) return false;
  const double at = std::clamp(t, 0.0, 1.0) * double(line.size() - 1);
  const size_t k = std::min(line.size() - 2, size_t(at));
  const Vec3 p = line[k] + (at - double(k)) * (line[k + 1] - line[k]);
  if (world) *world = p;
  return worldToWidget(p, widgetPos);
}

void ViewportWidget::setAngleDegrees(bool on) {
  d_->angleDegrees = on;
  update();
}

void ViewportWidget::setSnapping(bool on, double gridStep, double angleStep) {
  Impl& d = *d_;
  d.snapOn = on;
  if (gridStep > 0) d.snapGrid = gridStep;
  if (angleStep > 0) d.snapAngle = angleStep;
  update();
}

bool ViewportWidget::snapping() const { return d_->snapOn; }

double ViewportWidget::Impl::snap(const DragHandle& h, double raw) const {
  const double step = h.rotate ? snapAngle : snapGrid;
  if (!snapOn || !(step > 0)) return raw;
  if (!std::isfinite(h.value)) return std::round(raw / step) * step;
  return std::round((h.value + raw) / step) * step - h.value;
}

void ViewportWidget::Impl::showHandleSet(DragMode mode, bool force) {
  // Handles belong to the Select tool (the Resize tool: size handles, the Axis tool: the axis's
  // rings; the others click through).
  const bool drawn = tool == Tool::Select || tool == Tool::Resize || tool == Tool::Axis;
  const size_t count = !drawn ? 0 : handleSets.of(toolMode(mode)).handles.size();
  if (!force && mode == shownMode && handleLayer.handles().size() == count) return;
  shownMode = mode;
  handleLayer.set(drawn ? shownHandles().handles : std::vector<DragHandle>());
  hotHandle = -1;
  refreshHandles();  // the drawing too (frames skip the layer while it has no handles)
  w->update();
}

double ViewportWidget::Impl::worldPerPixel(const Vec3& p) const {
  const Camera& cam = camera.camera();
  const double depth = std::max(1e-6, (p - cam.eye).dot(camera.viewDir()));
  return 2.0 * depth * std::tan(0.5 * kFovY * M_PI / 180.0) / std::max(1, w->height());
}

void ViewportWidget::Impl::refreshHandles() {
  const Camera& cam = camera.camera();
  const int hot = gesture.handle ? handleDrag.handle : hotHandle;
  // What the drawing depends on (no allocation once the vector has its size).
  handlesBuiltFor.clear();
  for (const Vec3* v : {&cam.eye, &cam.center, &cam.up}) handlesBuiltFor.insert(handlesBuiltFor.end(), v->data(), v->data() + 3);
  handlesBuiltFor.push_back(double(w->width()));
  handlesBuiltFor.push_back(double(w->height()));
  handlesBuiltFor.push_back(double(hot));
  handlesBuiltFor.push_back(gesture.handle ? handleDrag.amount : 0.0);
  handlesBuiltFor.push_back(double(handleLayer.generation()));
  if (handlesBuiltFor == handlesDrawnFor) return;
  handlesDrawnFor = handlesBuiltFor;
  handleLayer.update([this](const Vec3& p) { return worldPerPixel(p); }, hot);
}

int ViewportWidget::Impl::pickHandle(const QPointF& pos) {
  if (handleLayer.handles().empty()) return -1;
  refreshHandles();
  return handleLayer.pick([this](const Vec3& p, QPointF& out) { return w->worldToWidget(p, out); }, pos);
}

bool ViewportWidget::Impl::handleParameter(const QPointF& pos, double& value) {
  Vec3 o, r;
  const std::vector<DragHandle>& hs = handleLayer.handles();
  if (handleDrag.handle < 0 || size_t(handleDrag.handle) >= hs.size() || !ray(pos, o, r)) return false;
  return dragParameter(hs[size_t(handleDrag.handle)], handleDrag.reference, o, r, value);
}

void ViewportWidget::Impl::previewDrag() {
  const DragHandles& set = shownHandles();
  if (handleDrag.handle < 0 || size_t(handleDrag.handle) >= set.handles.size()) return;
  const DragHandle& h = set.handles[size_t(handleDrag.handle)];
  // Resize: the handle moves with the face (amount / gain), the first shape is drawn stretched to
  // its new size about its centre.
  if (set.mode == DragMode::Resize) {
    handleLayer.setPreviewOffset(handleDrag.amount / h.gain * h.direction, Mat3::Identity(), h.origin);
    previewResize(set.body, h, handleDrag.amount);
    return;
  }
  Vec3 t;
  Vec4 r;
  motionOf(h, handleDrag.amount / h.gain, t, r);  // the written number changes by gain × the distance
  Poses moved = poses;
  for (int b : set.moving) {
    if (b < 0 || size_t(b) >= moved.size()) continue;
    BodyState& s = moved[size_t(b)];
    s.x = h.origin + quat::rotate(r, s.x - h.origin) + t;
    s.q = quat::mul(r, s.q);
    bodies[size_t(b)].xform->setMatrix(poseMatrix(s.x, s.q));
  }
  overlays.update(moved, contacts);
  handleLayer.setPreviewOffset(t, quat::rotation(r), h.origin);
}

void ViewportWidget::Impl::previewResize(int body, const DragHandle& h, double amount) {
  if (!system || body < 0 || size_t(body) >= bodies.size() || !bodies[size_t(body)].firstShape) return;
  const BodyDesc& desc = system->model.bodies[size_t(body)];
  const std::vector<ShapeDesc>& shapes = !desc.visuals.empty() ? desc.visuals : desc.collisions;
  if (shapes.empty() || !(h.value > 0)) return;
  const ShapeDesc& s = shapes.front();
  // The scale in the shape's frame: the sized axis (a box side, a length) or the radius's axes.
  const double f = std::max(1e-3, (h.value + amount) / h.value);
  osg::Vec3d scale(1, 1, 1);
  if (s.kind == ShapeDesc::Kind::Box) scale[h.size] = f;
  else if (s.kind == ShapeDesc::Kind::Sphere) scale = osg::Vec3d(f, f, f);
  else if (h.size == 0) scale = osg::Vec3d(f, f, 1);  // a cylinder's or capsule's radius
  else if (s.kind == ShapeDesc::Kind::Capsule) scale.z() = (0.5 * (h.value + amount) + s.size.x()) / (0.5 * h.value + s.size.x());
  else scale.z() = f;
  // About the shape's centre, in its frame (OSG: row vectors, left to right).
  const osg::Vec3d c(s.position.x(), s.position.y(), s.position.z());
  const osg::Quat q(s.orientation(1), s.orientation(2), s.orientation(3), s.orientation(0));
  bodies[size_t(body)].firstShape->setMatrix(osg::Matrixd::translate(-c) * osg::Matrixd::rotate(q.inverse()) * osg::Matrixd::scale(scale) *
                                             osg::Matrixd::rotate(q) * osg::Matrixd::translate(c));
}

void ViewportWidget::Impl::endPreview() {
  for (Body& b : bodies)
    if (b.firstShape) b.firstShape->setMatrix(osg::Matrixd::identity());
  for (size_t i = 0; i < bodies.size() && i < poses.size(); ++i) bodies[i].xform->setMatrix(poseMatrix(poses[i].x, poses[i].q));
  overlays.update(poses, contacts);
  handleLayer.setPreviewOffset(Vec3::Zero(), Mat3::Identity(), Vec3::Zero());
  gesture.handle = false;
  handleDrag = {};
  w->update();
}

// The amount of a handle drag beside the mouse: what it changes and by how much.
void ViewportWidget::paintHandleReadout(QPainter& p) {
  const Impl& d = *d_;
  if (!d.gesture.handle || d.handleDrag.handle < 0) return;
  const DragHandle& h = d.shownHandles().handles[size_t(d.handleDrag.handle)];
  // A length or angle in the unit setting, with its sign when it is a change.
  const auto format = [&](double v, bool change) {
    const char* sign = change ? "%+.4g" : "%.4g";
    if (!h.rotate) return QString::asprintf(sign, v) + " m";
    return d.angleDegrees ? QString::asprintf(sign, v * 180.0 / M_PI) + "°" : QString::asprintf(sign, v) + " rad";
  };
  const double a = d.handleDrag.amount;
  QString text = QString::fromStdString(h.label) + "  ";
  text += std::isfinite(h.value) ? QString("%1 (%2)").arg(format(h.value + a, false), format(a, true)) : format(a, true);
  if (d.snapOn) text += "  · snap";
  const QFontMetrics fm(p.font());
  QRect box = fm.boundingRect(text).adjusted(-6, -3, 6, 3);
  box.moveTopLeft((d.gesture.last + QPointF(16, 12)).toPoint());
  if (box.right() > width()) box.moveRight(width() - 2);
  if (box.bottom() > height()) box.moveBottom(height() - 2);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(20, 20, 24, 215));
  p.drawRoundedRect(box, 4, 4);
  p.setPen(QColor(255, 220, 90));
  p.drawText(box, Qt::AlignCenter, text);
}

}  // namespace ms::ui
