// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget: the widget's API and the dispatch of mouse and keys. The OSG scene it draws
// offscreen (viewport/offscreen_gl.h) and paints as an image is in viewport_scene.cpp; the orbit camera
// in CameraController (camera_controller.h); picking and the Ctrl+drag spring in picking.h.
#include "viewport/viewport_widget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include "viewport/collision_shapes.h"
#include "viewport/offscreen_gl.h"
#include "viewport/viewport_impl.h"

namespace ms::ui {

using namespace viewport;

namespace {

constexpr double kClickSlop = 4.0;        // press/release within this many pixels is a click

}  // namespace

// An opaque widget painted entirely by the frame image (no background painted beneath it).
ViewportWidget::ViewportWidget(QWidget* parent) : QWidget(parent), gl_(std::make_unique<viewport::OffscreenGl>()) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setAttribute(Qt::WA_NoSystemBackground);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);  // hovering highlights the handle under the mouse
  setMinimumSize(64, 64);
  d_ = std::make_unique<Impl>(this);
}

// GL objects are released with the widget's context current.
ViewportWidget::~ViewportWidget() {
  const bool current = gl_->makeCurrent();
  d_.reset();
  if (current) gl_->doneCurrent();
}

void ViewportWidget::setFitReach(bool reach) { d_->fitReach = reach; }

// Rebuilds the body transforms from the visual shapes (else collision shapes, else a COM sphere).
void ViewportWidget::setModel(std::shared_ptr<const CompiledSystem> system, const QString& modelDir, bool keepCamera) {
  Impl& d = *d_;
  if (d.grab.body >= 0) {
    d.grab = {};
    emit perturbationChanged(Perturbation{});
  }
  d.setHighlight(d.selected, false);
  d.bodiesGroup->removeChildren(0, d.bodiesGroup->getNumChildren());
  d.collisionWorld->removeChildren(0, d.collisionWorld->getNumChildren());
  d.groundSurfaces->removeChildren(0, d.groundSurfaces->getNumChildren());
  d.clearGhosts();
  d.lastCopies.clear();
  d.bodies.clear();
  d.meshes.clear();
  d.system = std::move(system);
  d.modelDir = modelDir;
  if (!keepCamera) d.camera.setFollow(-1, nullptr);
  d.camera.forgetFollowPosition();
  d.poses.clear();
  d.contacts.clear();
  d.generation = std::numeric_limits<long>::min();
  d.lastTrailTime = -std::numeric_limits<double>::infinity();

  d.buildBodies();

  if (!keepCamera || d.selected < 0 || size_t(d.selected) >= d.bodies.size()) d.selected = -1;
  d.setHighlight(d.selected, true);
  d.updateGrid();
  // A new model is framed from the iso direction now and again at its first snapshot.
  d.pendingFit = !keepCamera && d.system;
  d.cameraGiven = false;
  if (!keepCamera) {
    setViewPreset(ViewPreset::Iso);
    d.fit();
  }
  update();
}

// Poses, trails and overlays from the snapshot; nothing is allocated once arrays have their size.
void ViewportWidget::setSnapshot(const Snapshot& snapshot) {
  Impl& d = *d_;
  if (!d.system || snapshot.state.bodies.size() != d.bodies.size()) return;
  d.poses = snapshot.state.bodies;
  for (size_t i = 0; i < d.bodies.size(); ++i) d.bodies[i].xform->setMatrix(poseMatrix(d.poses[i].x, d.poses[i].q));
  // Follow: the camera moves with the followed body.
  if (const int f = d.camera.follow(); f >= 0 && f < int(d.poses.size()))
    if (d.camera.track(d.poses[size_t(f)].x)) d.applyCamera();
  d.growGridToBodies();

  // Trails restart on a new model generation or when time goes backwards (history scrubbing).
  const double t = snapshot.state.time;
  if (snapshot.generation != d.generation || t < d.lastTrailTime) {
    d.overlays.clearTrails();
    d.lastTrailTime = -std::numeric_limits<double>::infinity();
  }
  d.generation = snapshot.generation;
  if (d.overlays.enabled(OverlayLayers::Trails) && t != d.lastTrailTime) {
    d.overlays.recordTrails(d.poses);
    d.lastTrailTime = t;
  }
  if (d.overlays.enabled(OverlayLayers::ContactPoints) || d.overlays.enabled(OverlayLayers::ContactForces))
    d.contacts = snapshot.contacts;
  d.overlays.update(d.poses, d.contacts);
  if (d.grab.body >= 0) d.updateSpring();
  d.lastCopies = snapshot.copies;
  d.updateGhosts(d.lastCopies);

  if (d.pendingFit) {
    d.pendingFit = false;
    if (!d.cameraGiven) d.fit();
    d.cameraGiven = false;
    d.updateGrid();
  }
  update();
}

void ViewportWidget::setCompareLayout(CompareLayout layout) {
  Impl& d = *d_;
  const bool side = layout == CompareLayout::SideBySide;
  if (side == d.sideBySide) return;
  d.sideBySide = side;
  if (side) d.chooseSideOffset();
  d.updateGhosts(d.lastCopies);
  d.fit();
  update();
}

ViewportWidget::CompareLayout ViewportWidget::compareLayout() const {
  return d_->sideBySide ? CompareLayout::SideBySide : CompareLayout::Overlay;
}

Vec3 ViewportWidget::ghostOffset(int copy) const {
  if (copy < 1 || !d_->sideBySide) return Vec3::Zero();
  return d_->sideOffset * double(copy);
}

void ViewportWidget::setGhostsEnabled(bool on) {
  d_->ghostsOn = on;
  for (auto& g : d_->ghosts) g.group->setNodeMask(on ? ~0u : 0u);
  update();
}

bool ViewportWidget::ghostsEnabled() const { return d_->ghostsOn; }

int ViewportWidget::ghostCount() const { return int(d_->ghosts.size()); }

bool ViewportWidget::ghostVisible(int copy) const {
  if (copy < 1 || size_t(copy) > d_->ghosts.size()) return false;
  const auto& g = d_->ghosts[size_t(copy) - 1];
  return g.group->getNodeMask() != 0 && g.group->getNumParents() > 0;
}

namespace {
// The overlay layer behind a public overlay (Grid and CollisionShapes have none).
int layerOf(ViewportWidget::Overlay o) {
  switch (o) {
    case ViewportWidget::Overlay::JointFrames: return OverlayLayers::JointFrames;
    case ViewportWidget::Overlay::ContactPoints: return OverlayLayers::ContactPoints;
    case ViewportWidget::Overlay::ContactForces: return OverlayLayers::ContactForces;
    case ViewportWidget::Overlay::CentersOfMass: return OverlayLayers::CentersOfMass;
    case ViewportWidget::Overlay::Trails: return OverlayLayers::Trails;
    case ViewportWidget::Overlay::Links: return OverlayLayers::Links;
    case ViewportWidget::Overlay::Grid:
    case ViewportWidget::Overlay::CollisionShapes: break;
  }
  return -1;
}
}  // namespace

void ViewportWidget::setOverlay(Overlay overlay, bool on) {
  Impl& d = *d_;
  const int layer = layerOf(overlay);
  if (overlay == Overlay::CollisionShapes) {
    d.showCollision(on);
  } else if (layer < 0) {
    d.gridOn = on;
    d.gridGroup->setNodeMask(on ? kDrawOnlyMask : 0);
  } else if (d.overlays.enabled(OverlayLayers::Layer(layer)) != on) {
    d.overlays.setEnabled(OverlayLayers::Layer(layer), on);
    if (on) d.overlays.update(d.poses, d.contacts);
  }
  update();
}

bool ViewportWidget::overlay(Overlay overlay) const {
  if (overlay == Overlay::CollisionShapes) return d_->collisionOn;
  const int layer = layerOf(overlay);
  return layer < 0 ? d_->gridOn : d_->overlays.enabled(OverlayLayers::Layer(layer));
}

void ViewportWidget::clearTrails() {
  d_->overlays.clearTrails();
  d_->lastTrailTime = -std::numeric_limits<double>::infinity();
  update();
}

std::vector<ViewportWidget::DrawnContact> ViewportWidget::drawnContacts() const {
  std::vector<DrawnContact> out;
  for (const auto& [point, tip] : d_->overlays.drawnContacts()) out.push_back({point, tip});
  return out;
}

int ViewportWidget::collisionTriangles(int body) const {
  if (body < 0 || size_t(body) >= d_->bodies.size()) return 0;
  return countTriangles(d_->bodies[size_t(body)].collision.get());
}

int ViewportWidget::groundSurfaceTriangles() const {
  return d_->groundSurfaces->getNodeMask() == 0 ? 0 : countTriangles(d_->groundSurfaces.get());
}

void ViewportWidget::setViewPreset(ViewPreset preset) {
  d_->camera.setPreset(preset);
  d_->applyCamera();
  update();
}

void ViewportWidget::fitToModel() {
  d_->fit();
  update();
}

ViewportWidget::Camera ViewportWidget::camera() const { return d_->camera.camera(); }

void ViewportWidget::setFollowBody(int body) {
  Impl& d = *d_;
  const int follow = body >= 0 && body < int(d.bodies.size()) ? body : -1;
  d.camera.setFollow(follow, follow >= 0 && follow < int(d.poses.size()) ? &d.poses[size_t(follow)].x : nullptr);
}

int ViewportWidget::followBody() const { return d_->camera.follow(); }

double ViewportWidget::gridHalfExtent() const { return d_->gridHalf; }

void ViewportWidget::setCamera(const Camera& camera) {
  d_->camera.setCamera(camera);
  d_->applyCamera();
  // A camera given after a new model replaces the fit that model would get with its first poses
  // (the grid is still sized then).
  d_->cameraGiven = d_->pendingFit;
  update();
}

// Projected as the viewer does (CameraController::toPixels), in logical pixels.
bool ViewportWidget::worldToWidget(const Vec3& point, QPointF& widgetPos) const {
  const Impl& d = *d_;
  Eigen::Vector2d px;
  if (!d.camera.toPixels(point, d.pixelWidth(), d.pixelHeight(), px)) return false;
  widgetPos = QPointF(px.x(), px.y()) / d.dpr();
  return true;
}

int ViewportWidget::selectedBody() const { return d_->selected; }

void ViewportWidget::setSelectedBody(int body) {
  Impl& d = *d_;
  if (body < 0 || size_t(body) >= d.bodies.size()) body = -1;
  if (body == d.selected) return;
  d.setHighlight(d.selected, false);
  d.selected = body;
  d.setHighlight(d.selected, true);
  update();
}

QImage ViewportWidget::renderToImage() {
  renderFrame();
  return frame_;
}

long ViewportWidget::framesRendered() const { return d_->frames; }

// Follows the widget's size in device pixels: the embedded window, the camera's viewport and
// projection, and a view still framed automatically is framed again for the new aspect ratio.
void ViewportWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  const int pw = d_->pixelWidth(), ph = d_->pixelHeight();
  d_->gw->resized(0, 0, pw, ph);
  d_->gw->getEventQueue()->windowResize(0, 0, pw, ph);
  // resized() rescales the projection by itself; set ours explicitly.
  d_->viewer->getCamera()->setViewport(0, 0, pw, ph);
  d_->viewer->getCamera()->setProjectionMatrixAsPerspective(kFovY, double(pw) / ph, 0.01, 1000.0);
  if (d_->camera.autoFit()) d_->fit();
}

// One OSG frame into the offscreen framebuffer (realizing the viewer the first time), read back.
void ViewportWidget::renderFrame() {
  const unsigned fbo = gl_->beginFrame(QSize(d_->pixelWidth(), d_->pixelHeight()));
  if (fbo == 0) return;
  if (!d_->viewer->isRealized()) d_->viewer->realize();
  d_->ensureViewport();
  d_->gw->setDefaultFboId(fbo);
  d_->applyCamera();
  if (!d_->handleLayer.handles().empty()) d_->refreshHandles();
  d_->viewer->frame();
  gl_->readFrame(frame_);
  gl_->doneCurrent();
  frame_.setDevicePixelRatio(devicePixelRatioF());
  ++d_->frames;
}

// Every repaint draws a new frame (the scene changed, or the widget was resized or exposed).
void ViewportWidget::paintEvent(QPaintEvent*) {
  renderFrame();
  QPainter p(this);
  if (frame_.isNull()) p.fillRect(rect(), palette().color(QPalette::Window));
  else p.drawImage(QPoint(0, 0), frame_);
  paintHandleReadout(p);
  paintToolMarker(p);
}

// Left: a handle's drag (Shift: the anchor's handles, Ctrl: the body's on its joint), else orbit or
// select; Ctrl+left off the handles: grab a body; Shift+left off the handles, right, middle: pan.
void ViewportWidget::mousePressEvent(QMouseEvent* e) {
  Impl& d = *d_;
  e->accept();
  if (d.gesture.active) return;  // a second button during a gesture is ignored
  d.gesture = {};
  d.gesture.active = true;
  d.gesture.button = e->button();
  d.gesture.start = d.gesture.last = e->position();
  // Left on a move/rotate handle (Shift: the anchor's, Ctrl: the body's): the handle drag, previewed
  // until release.
  if (e->button() == Qt::LeftButton) {
    d.showHandleSet(Impl::modeFor(e->modifiers()));
    if (const int h = d.pickHandle(e->position()); h >= 0) {
      d.handleDrag = {};
      d.handleDrag.handle = h;
      const DragHandle& handle = d.handleLayer.handles()[size_t(h)];
      if (handle.rotate) d.handleDrag.reference = ringReference(handle);
      double v = 0;
      if (d.handleParameter(e->position(), v)) {
        d.gesture.handle = true;
        d.handleDrag.start = d.handleDrag.last = v;
        update();
        return;
      }
      d.handleDrag = {};
    }
  }
  if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier)) {
    d.gesture.perturb = true;
    const Impl::Hit h = d.pick(e->position());
    if (h.body >= 0) {
      d.grab.start(h, d.poses[size_t(h.body)]);
      d.updateSpring();
      emit perturbationChanged(d.grab.perturbation());
      update();
    }
  }
}

void ViewportWidget::mouseMoveEvent(QMouseEvent* e) {
  Impl& d = *d_;
  Impl::Gesture& g = d.gesture;
  e->accept();
  const QPointF pos = e->position();
  // Hovering: the handle set of the modifiers held, the handle under the mouse highlighted.
  if (!g.active) {
    d.showHandleSet(Impl::modeFor(e->modifiers()));
    if (const int hot = d.pickHandle(pos); hot != d.hotHandle) {
      d.hotHandle = hot;
      update();
    }
    return;
  }
  if (g.consumed) return;
  // A handle drag: the amount from the mouse ray (a ring's turns accumulate), previewed.
  if (g.handle) {
    double v = 0;
    if (d.handleParameter(pos, v)) {
      Impl::HandleDrag& h = d.handleDrag;
      const DragHandle& handle = d.handleLayer.handles()[size_t(h.handle)];
      if (handle.rotate) {
        h.raw += std::remainder(v - h.last, 2 * M_PI);
        h.last = v;
      } else {
        h.raw = v - h.start;
      }
      h.amount = d.snap(handle, handle.gain * h.raw);
      d.previewDrag();
    }
    g.last = pos;
    update();
    return;
  }
  // Ctrl+drag: the target follows the mouse; the camera stays put.
  if (g.perturb) {
    if (d.grab.body >= 0) {
      d.grab.target = d.dragTarget(pos);
      d.updateSpring();
      emit perturbationChanged(d.grab.perturbation());
      update();
    }
    return;
  }
  if (!g.dragging && std::hypot(pos.x() - g.start.x(), pos.y() - g.start.y()) > kClickSlop) g.dragging = true;
  if (g.dragging) {
    const double dx = pos.x() - g.last.x(), dy = pos.y() - g.last.y();
    if (g.button == Qt::LeftButton && !(e->modifiers() & Qt::ShiftModifier))
      d.camera.orbit(dx, dy);
    else
      d.camera.pan(dx, dy, height());
    d.applyCamera();
    update();
  }
  g.last = pos;
}

void ViewportWidget::mouseReleaseEvent(QMouseEvent* e) {
  Impl& d = *d_;
  Impl::Gesture& g = d.gesture;
  e->accept();
  if (!g.active || e->button() != g.button) return;
  g.active = false;
  if (g.handle) {
    const DragHandles set = d.shownHandles();
    const int handle = d.handleDrag.handle;
    const double amount = d.handleDrag.amount;
    d.endPreview();
    if (amount != 0) emit handleDragged(set, handle, amount);
    return;
  }
  if (g.perturb) {
    if (d.grab.body >= 0) {
      d.grab = {};
      d.updateSpring();
      emit perturbationChanged(Perturbation{});
      update();
    }
    return;
  }
  // A left click without drag selects the body under the cursor (or nothing); a right click asks
  // for its context menu.
  if (g.button == Qt::LeftButton && !g.dragging && !g.consumed && (d.tool == Tool::Add || d.tool == Tool::Connect)) {
    d.toolClick(e->position());
    return;
  }
  if (g.button == Qt::LeftButton && !g.dragging && !g.consumed) {
    const int body = d.pick(e->position()).body;
    setSelectedBody(body);
    emit bodySelected(body);
  }
  if (g.button == Qt::RightButton && !g.dragging && !g.consumed)
    emit bodyContextMenuRequested(d.pick(e->position()).body, e->globalPosition().toPoint());
}

// Double-click on a body: the view turns around its centre of mass from the same distance.
void ViewportWidget::mouseDoubleClickEvent(QMouseEvent* e) {
  Impl& d = *d_;
  e->accept();
  d.gesture = {};
  d.gesture.active = true;
  d.gesture.consumed = true;
  d.gesture.button = e->button();
  if (e->button() != Qt::LeftButton) return;
  const Impl::Hit h = d.pick(e->position());
  if (h.body < 0) return;
  d.camera.translate(d.poses[size_t(h.body)].x - d.camera.camera().center);
  d.applyCamera();
  update();
}

// Wheel zooms towards the cursor (not while a body is held).
void ViewportWidget::wheelEvent(QWheelEvent* e) {
  e->accept();
  if (d_->grab.body >= 0) return;
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  // About the point under the cursor: a body surface, else the point on the plane through the
  // centre facing the camera.
  Impl& d = *d_;
  Vec3 p = d.camera.camera().center;
  if (const Hit h = d.pick(e->position()); h.body >= 0) {
    p = h.point;
  } else if (Vec3 o, r; d.ray(e->position(), o, r)) {
    p = d.camera.focalPoint(o, r);
  }
  d.camera.zoomAbout(steps, p);
  d.applyCamera();
  update();
}

// Keys: F/Home fit, 1 front, 3 side, 7 top, 5 iso (numeric-keypad convention), Esc deselects (or
// cancels a handle drag), S toggles the snapping of handle drags, Shift shows the anchor's handles,
// Delete and Ctrl+D delete and duplicate the selected body.
void ViewportWidget::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_F:
    case Qt::Key_Home: fitToModel(); break;
    case Qt::Key_1: setViewPreset(ViewPreset::Front); break;
    case Qt::Key_3: setViewPreset(ViewPreset::Side); break;
    case Qt::Key_7: setViewPreset(ViewPreset::Top); break;
    case Qt::Key_5: setViewPreset(ViewPreset::Iso); break;
    case Qt::Key_Delete:
      if (d_->selected < 0) return QWidget::keyPressEvent(e);
      emit deleteRequested(d_->selected);
      break;
    case Qt::Key_D:
      if (!(e->modifiers() & Qt::ControlModifier) || d_->selected < 0) return QWidget::keyPressEvent(e);
      emit duplicateRequested(d_->selected);
      break;
    case Qt::Key_S:
      // Snapping on/off (a drag in progress follows at its next move).
      d_->snapOn = !d_->snapOn;
      emit snappingToggled(d_->snapOn);
      update();
      break;
    case Qt::Key_Shift:
    case Qt::Key_Control:
      // The anchor's handles while Shift is held, the body's while Ctrl is (not during a drag).
      if (!d_->gesture.active) d_->showHandleSet(Impl::modeFor(e->modifiers()));
      return QWidget::keyPressEvent(e);
    case Qt::Key_Escape:
      // Esc during a handle drag cancels it (nothing is edited).
      if (d_->gesture.handle) {
        d_->endPreview();
        d_->gesture.consumed = true;
        break;
      }
      // Esc with a Connect gesture begun: start it over.
      if (d_->connectBody >= -1) {
        d_->connectBody = -2;
        update();
        break;
      }
      if (d_->selected < 0) return QWidget::keyPressEvent(e);
      setSelectedBody(-1);
      emit bodySelected(-1);
      break;
    default: return QWidget::keyPressEvent(e);
  }
  e->accept();
}

void ViewportWidget::keyReleaseEvent(QKeyEvent* e) {
  if ((e->key() == Qt::Key_Shift || e->key() == Qt::Key_Control) && !d_->gesture.active) d_->showHandleSet(Impl::modeFor(e->modifiers()));
  QWidget::keyReleaseEvent(e);
}

}  // namespace ms::ui
