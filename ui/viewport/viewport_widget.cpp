// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget: an osgViewer::Viewer (single-threaded, GraphicsWindowEmbedded) rendering into the
// QOpenGLWidget's framebuffer. Owns the scene (bodies, grid, lights, overlays), an orbit camera
// kept as eye/centre/up, picking through osgUtil::LineSegmentIntersector and the Ctrl+drag spring.
#include "viewport/viewport_widget.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <osg/BlendFunc>
#include <osg/LightModel>
#include <osg/LightSource>
#include <osg/MatrixTransform>
#include <osg/ValueObject>
#include <osgUtil/LineSegmentIntersector>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include "viewport/overlays.h"
#include "viewport/scene_nodes.h"

namespace ms::ui {

using namespace viewport;

namespace {

constexpr double kFovY = 40.0;            // vertical field of view, degrees
constexpr double kOrbitRadPerPixel = 0.008;
constexpr double kClickSlop = 4.0;        // press/release within this many pixels is a click
constexpr double kPi = 3.14159265358979323846;
const osg::Vec4 kBackground(0.17f, 0.19f, 0.23f, 1.0f);
const osg::Vec4 kHighlight(0.32f, 0.17f, 0.0f, 1.0f);
const char* const kBodyKey = "ms_body";

}  // namespace

struct ViewportWidget::Impl {
  // One body: its pose transform (carries the body index for picking), the shapes that count for its
  // bounds (planes excluded) and its materials (for the selection highlight).
  struct Body {
    osg::ref_ptr<osg::MatrixTransform> xform;
    osg::ref_ptr<osg::Group> fit;
    std::vector<osg::ref_ptr<osg::Material>> materials;
  };
  // The mouse gesture between a press and the release of the same button.
  struct Gesture {
    bool active = false;
    Qt::MouseButton button = Qt::NoButton;
    QPointF start, last;
    bool dragging = false;  // moved beyond the click slop
    bool perturb = false;   // Ctrl+left: never moves the camera
    bool consumed = false;  // double-click: the release does nothing
  };
  // The body held by Ctrl+drag and where.
  struct Grab {
    int body = -1;
    Vec3 local = Vec3::Zero();
    Vec3 target = Vec3::Zero();
  };
  struct Hit {
    int body = -1;
    Vec3 point = Vec3::Zero();
  };

  explicit Impl(ViewportWidget* widget);

  ViewportWidget* w;
  osg::ref_ptr<osgViewer::Viewer> viewer;
  osg::ref_ptr<osgViewer::GraphicsWindowEmbedded> gw;
  osg::ref_ptr<osg::Group> root, bodiesGroup, gridGroup;
  OverlayLayers overlays;
  MeshCache meshes;
  std::vector<Body> bodies;
  std::shared_ptr<const CompiledSystem> system;
  QString modelDir;
  Poses poses;
  std::vector<ContactDraw> contacts;
  long generation = std::numeric_limits<long>::min();
  double lastTrailTime = -std::numeric_limits<double>::infinity();
  bool pendingFit = false, gridOn = true;
  double gridHalf = 0;
  int selected = -1;
  Camera cam;
  long frames = 0;
  Gesture gesture;
  Grab grab;

  double dpr() const { return w->devicePixelRatioF(); }
  int pixelWidth() const { return std::max(1, int(std::lround(w->width() * dpr()))); }
  int pixelHeight() const { return std::max(1, int(std::lround(w->height() * dpr()))); }
  osg::Vec2d toWindow(const QPointF& p) const { return {p.x() * dpr(), pixelHeight() - p.y() * dpr()}; }

  void ensureViewport();
  void applyCamera();
  Vec3 viewDir() const;
  Vec3 safeUp() const;
  bool ray(const QPointF& pos, Vec3& origin, Vec3& dir);
  Hit pick(const QPointF& pos);
  void orbit(double dx, double dy);
  void pan(double dx, double dy);
  void zoom(double steps, const QPointF& pos);
  bool modelBound(Vec3& center, double& radius) const;
  void fit();
  void updateGrid();
  void setHighlight(int body, bool on);
  Vec3 grabWorld() const;
  Vec3 dragTarget(const QPointF& pos);
  void updateSpring() { overlays.setSpring(grab.body >= 0, grabWorld(), grab.target); }
  Perturbation perturbation() const {
    Perturbation p;
    p.active = grab.body >= 0;
    p.body = grab.body;
    p.localPoint = grab.local;
    p.target = grab.target;
    return p;
  }
};

// Viewer, embedded graphics window, lights and the empty scene.
ViewportWidget::Impl::Impl(ViewportWidget* widget) : w(widget) {
  gw = new osgViewer::GraphicsWindowEmbedded(0, 0, pixelWidth(), pixelHeight());
  viewer = new osgViewer::Viewer;
  viewer->setThreadingModel(osgViewer::Viewer::SingleThreaded);
  viewer->setKeyEventSetsDone(0);
  viewer->setQuitEventSetsDone(false);
  osg::Camera* camera = viewer->getCamera();
  camera->setGraphicsContext(gw);
  camera->setClearColor(kBackground);
  ensureViewport();

  // Lights: the viewer's headlight plus a directional key light from above.
  viewer->setLightingMode(osg::View::HEADLIGHT);
  viewer->getLight()->setAmbient(osg::Vec4(0, 0, 0, 1));
  viewer->getLight()->setDiffuse(osg::Vec4(0.55f, 0.55f, 0.55f, 1));
  viewer->getLight()->setSpecular(osg::Vec4(0.35f, 0.35f, 0.35f, 1));
  root = new osg::Group;
  osg::StateSet* ss = root->getOrCreateStateSet();
  osg::ref_ptr<osg::LightSource> key = new osg::LightSource;
  key->getLight()->setLightNum(1);
  key->getLight()->setPosition(osg::Vec4(0.35f, -0.55f, 1.0f, 0.0f));
  key->getLight()->setAmbient(osg::Vec4(0, 0, 0, 1));
  key->getLight()->setDiffuse(osg::Vec4(0.45f, 0.45f, 0.43f, 1));
  key->getLight()->setSpecular(osg::Vec4(0.2f, 0.2f, 0.2f, 1));
  key->setStateSetModes(*ss, osg::StateAttribute::ON);
  root->addChild(key);
  osg::ref_ptr<osg::LightModel> lm = new osg::LightModel;
  lm->setAmbientIntensity(osg::Vec4(0.28f, 0.28f, 0.30f, 1));
  lm->setColorControl(osg::LightModel::SEPARATE_SPECULAR_COLOR);
  ss->setAttributeAndModes(lm);
  // Blending keeps destination alpha at 1 so Qt's composition shows no see-through fringes.
  ss->setAttribute(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA),
                   osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);

  // Scene: bodies (pickable), grid and overlays (drawn only).
  bodiesGroup = new osg::Group;
  gridGroup = new osg::Group;
  gridGroup->setNodeMask(kDrawOnlyMask);
  root->addChild(bodiesGroup);
  root->addChild(gridGroup);
  root->addChild(overlays.root());
  viewer->setSceneData(root);
  updateGrid();
  applyCamera();
}

// Keeps the OSG viewport and projection matching the widget's size in device pixels.
void ViewportWidget::Impl::ensureViewport() {
  osg::Camera* camera = viewer->getCamera();
  const int pw = pixelWidth(), ph = pixelHeight();
  const osg::Viewport* vp = camera->getViewport();
  if (vp && int(vp->width()) == pw && int(vp->height()) == ph) return;
  camera->setViewport(0, 0, pw, ph);
  camera->setProjectionMatrixAsPerspective(kFovY, double(pw) / ph, 0.01, 1000.0);
}

void ViewportWidget::Impl::applyCamera() {
  viewer->getCamera()->setViewMatrixAsLookAt(toOsg(cam.eye), toOsg(cam.center), toOsg(safeUp()));
}

Vec3 ViewportWidget::Impl::viewDir() const {
  const Vec3 d = cam.center - cam.eye;
  return d.norm() > 1e-12 ? Vec3(d.normalized()) : Vec3(0, 1, 0);
}

// The stored up vector, or a sensible one when it is (nearly) parallel to the view direction.
Vec3 ViewportWidget::Impl::safeUp() const {
  const Vec3 d = viewDir();
  if (cam.up.norm() > 1e-12 && d.cross(cam.up.normalized()).norm() > 1e-6) return cam.up;
  return std::abs(d.z()) < 0.9 ? Vec3::UnitZ() : Vec3::UnitY();
}

// World ray through a widget position (unprojected with the current view, projection and viewport).
bool ViewportWidget::Impl::ray(const QPointF& pos, Vec3& origin, Vec3& dir) {
  ensureViewport();
  applyCamera();
  const osg::Camera* c = viewer->getCamera();
  osg::Matrixd inv;
  if (!inv.invert(c->getViewMatrix() * c->getProjectionMatrix() * c->getViewport()->computeWindowMatrix())) return false;
  const osg::Vec2d p = toWindow(pos);
  const Vec3 a = fromOsg(osg::Vec3d(p.x(), p.y(), 0.0) * inv), b = fromOsg(osg::Vec3d(p.x(), p.y(), 1.0) * inv);
  origin = a;
  dir = (b - a).normalized();
  return origin.allFinite() && dir.allFinite();
}

// Nearest body surface under a widget position (bodies only: grid and overlays are masked out).
ViewportWidget::Impl::Hit ViewportWidget::Impl::pick(const QPointF& pos) {
  ensureViewport();
  applyCamera();
  const osg::Vec2d p = toWindow(pos);
  osgUtil::LineSegmentIntersector::Intersections hits;
  if (!viewer->computeIntersections(viewer->getCamera(), osgUtil::Intersector::WINDOW, float(p.x()), float(p.y()), hits,
                                    kPickMask))
    return {};
  for (const auto& hit : hits) {
    for (auto it = hit.nodePath.rbegin(); it != hit.nodePath.rend(); ++it) {
      int body = -1;
      if ((*it)->getUserValue(kBodyKey, body) && body >= 0 && size_t(body) < bodies.size())
        return {body, fromOsg(hit.getWorldIntersectPoint())};
    }
  }
  return {};
}

// Turntable orbit about the centre: yaw about world z, pitch about the camera's right axis with the
// elevation clamped to ±90° (up returns to +z away from the poles, so the horizon stays level).
void ViewportWidget::Impl::orbit(double dx, double dy) {
  Vec3 off = cam.eye - cam.center;
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
  cam.eye = cam.center + off;
  cam.up = std::abs(newElev) < kPi / 2 - 1e-3 ? Vec3(Vec3::UnitZ()) : up;
}

// Moves eye and centre so the point at the centre's depth follows the mouse.
void ViewportWidget::Impl::pan(double dx, double dy) {
  const Vec3 dir = viewDir();
  const Vec3 right = dir.cross(safeUp()).normalized(), upc = right.cross(dir);
  const double s = 2.0 * (cam.center - cam.eye).norm() * std::tan(kFovY * kPi / 360.0) / std::max(1, w->height());
  const Vec3 delta = (-dx * right + dy * upc) * s;
  cam.eye += delta;
  cam.center += delta;
}

// Scales eye and centre about the point under the cursor (a body surface, else the point on the
// plane through the centre facing the camera): wheel forward moves in.
void ViewportWidget::Impl::zoom(double steps, const QPointF& pos) {
  const double f = std::pow(0.85, steps);
  Vec3 p = cam.center;
  if (const Hit h = pick(pos); h.body >= 0) {
    p = h.point;
  } else if (Vec3 o, r; ray(pos, o, r)) {
    const double den = viewDir().dot(r);
    if (std::abs(den) > 1e-9) p = o + r * (viewDir().dot(cam.center - o) / den);
  }
  const Vec3 eye = p + (cam.eye - p) * f, center = p + (cam.center - p) * f;
  const double dist = (center - eye).norm();
  if (!(dist > 1e-3 && dist < 1e5) || !eye.allFinite() || !center.allFinite()) return;
  cam.eye = eye;
  cam.center = center;
}

// Bounding sphere of every body's shapes (planes excluded) at the current poses, and of the
// joints' anchors on the world (so a pendulum's pivot is in view).
bool ViewportWidget::Impl::modelBound(Vec3& center, double& radius) const {
  osg::BoundingSphere all;
  for (const Body& b : bodies) {
    const osg::BoundingSphere& bs = b.fit->getBound();
    if (!bs.valid()) continue;
    all.expandBy(osg::BoundingSphere(bs.center() * b.xform->getMatrix(), bs.radius()));
  }
  if (!all.valid()) return false;
  // A mechanism hinged to the world can swing anywhere within its reach of the pivots: frame the
  // sphere around their centroid that holds every body, so the motion stays in view.
  osg::Vec3d pivot(0, 0, 0);
  int pivots = 0;
  if (system)
    for (const CompiledJoint& j : system->joints)
      if (j.geo.parent < 0) {
        pivot += toOsg(j.geo.pa);
        ++pivots;
      }
  if (pivots > 0) {
    pivot /= pivots;
    double reach = 0;
    for (const Body& b : bodies) {
      const osg::BoundingSphere& bs = b.fit->getBound();
      if (bs.valid()) reach = std::max(reach, double((bs.center() * b.xform->getMatrix() - pivot).length() + bs.radius()));
    }
    all = osg::BoundingSphere(pivot, reach);
  }
  center = fromOsg(all.center());
  radius = std::max(double(all.radius()), 0.05);
  return true;
}

// Frames the model's bounding sphere along the current view direction.
void ViewportWidget::Impl::fit() {
  Vec3 c = Vec3::Zero();
  double r = 1.0;
  modelBound(c, r);
  const double aspect = double(pixelWidth()) / pixelHeight();
  const double halfY = kFovY * kPi / 360.0, halfX = std::atan(std::tan(halfY) * aspect);
  const double dist = 1.05 * r / std::sin(std::min(halfX, halfY));
  const Vec3 dir = viewDir();
  cam.center = c;
  cam.eye = c - dir * dist;
  applyCamera();
  fprintf(stderr,"DBG fit %dx%d r=%g c=%g,%g,%g dist=%g\n",pixelWidth(),pixelHeight(),r,c.x(),c.y(),c.z(),dist);
}

// Grid extent follows the model: at least ±5 m, enough to reach past the model's footprint.
void ViewportWidget::Impl::updateGrid() {
  Vec3 c = Vec3::Zero();
  double r = 1.0;
  modelBound(c, r);
  const double half = std::clamp(std::ceil(std::max(std::abs(c.x()), std::abs(c.y())) + 2.0 * r), 5.0, 100.0);
  if (half == gridHalf) return;
  gridHalf = half;
  gridGroup->removeChildren(0, gridGroup->getNumChildren());
  gridGroup->addChild(buildGrid(half, std::min(half, 3.0)));
}

void ViewportWidget::Impl::setHighlight(int body, bool on) {
  if (body < 0 || size_t(body) >= bodies.size()) return;
  for (auto& m : bodies[size_t(body)].materials) m->setEmission(osg::Material::FRONT_AND_BACK, on ? kHighlight : osg::Vec4(0, 0, 0, 1));
}

// The Ctrl+drag attachment point in world coordinates at the current pose.
Vec3 ViewportWidget::Impl::grabWorld() const {
  if (grab.body < 0 || size_t(grab.body) >= poses.size()) return grab.target;
  const BodyState& b = poses[size_t(grab.body)];
  return b.x + rotationOf(b.q) * grab.local;
}

// The mouse ray meets the plane through the current grab point that faces the camera.
Vec3 ViewportWidget::Impl::dragTarget(const QPointF& pos) {
  Vec3 o, r;
  if (!ray(pos, o, r)) return grab.target;
  const Vec3 n = viewDir(), p0 = grabWorld();
  const double den = n.dot(r);
  if (std::abs(den) < 1e-9) return grab.target;
  const Vec3 t = o + r * (n.dot(p0 - o) / den);
  return t.allFinite() ? t : grab.target;
}

namespace {
// 4× multisampling on GPUs; none on software rasterisers, where it made a 800×600 frame cost
// 17 ms instead of 3 ms (llvmpipe). MECHSTUDIO_VIEWPORT_SAMPLES overrides the choice.
int multisamples() {
  bool set = false;
  const int forced = qEnvironmentVariableIntValue("MECHSTUDIO_VIEWPORT_SAMPLES", &set);
  if (set) return std::clamp(forced, 0, 16);
  static const int samples = [] {
    QOpenGLContext ctx;
    QOffscreenSurface surface;
    if (!ctx.create()) return 0;
    surface.setFormat(ctx.format());
    surface.create();
    if (!ctx.makeCurrent(&surface)) return 0;
    const QByteArray renderer(reinterpret_cast<const char*>(ctx.functions()->glGetString(GL_RENDERER)));
    ctx.doneCurrent();
    const bool software = renderer.contains("llvmpipe") || renderer.contains("softpipe") || renderer.contains("swrast") ||
                          renderer.contains("Software");
    return software ? 0 : 4;
  }();
  return samples;
}
}  // namespace

// Multisampling when cheap (Qt falls back silently when unavailable); compatibility profile kept.
ViewportWidget::ViewportWidget(QWidget* parent) : QOpenGLWidget(parent) {
  QSurfaceFormat fmt = format();
  fmt.setSamples(multisamples());
  setFormat(fmt);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(64, 64);
  d_ = std::make_unique<Impl>(this);
}

// GL objects are released with the widget's context current.
ViewportWidget::~ViewportWidget() {
  makeCurrent();
  d_.reset();
  doneCurrent();
}

// Rebuilds the body transforms from the visual shapes (else collision shapes, else a COM sphere).
void ViewportWidget::setModel(std::shared_ptr<const CompiledSystem> system, const QString& modelDir, bool keepCamera) {
  Impl& d = *d_;
  if (d.grab.body >= 0) {
    d.grab = {};
    emit perturbationChanged(Perturbation{});
  }
  d.setHighlight(d.selected, false);
  d.bodiesGroup->removeChildren(0, d.bodiesGroup->getNumChildren());
  d.bodies.clear();
  d.meshes.clear();
  d.system = std::move(system);
  d.modelDir = modelDir;
  d.poses.clear();
  d.contacts.clear();
  d.generation = std::numeric_limits<long>::min();
  d.lastTrailTime = -std::numeric_limits<double>::infinity();

  std::vector<osg::Vec4> colors;
  std::vector<double> radii;
  if (d.system) {
    const Model& model = d.system->model;
    const size_t nb = d.system->bodies.size();
    d.bodies.resize(nb);
    d.poses.resize(nb);
    for (size_t i = 0; i < nb; ++i) {
      Impl::Body& b = d.bodies[i];
      const BodyDesc* desc = i < model.bodies.size() ? &model.bodies[i] : nullptr;
      b.xform = new osg::MatrixTransform;
      b.xform->setDataVariance(osg::Object::DYNAMIC);
      b.xform->setUserValue(kBodyKey, int(i));
      b.xform->setName(d.system->bodies[i].name);
      b.fit = new osg::Group;
      b.xform->addChild(b.fit);
      const std::vector<ShapeDesc>* shapes = nullptr;
      if (desc) shapes = !desc->visuals.empty() ? &desc->visuals : &desc->collisions;
      osg::Vec4 color(0.7f, 0.7f, 0.75f, 1.0f);
      if (shapes && !shapes->empty()) {
        color = toOsgColor(shapes->front().color);
        for (const ShapeDesc& s : *shapes) {
          ShapeNode n = buildShape(s, modelDir, d.meshes, std::max(20.0, 2.0 * d.gridHalf), b.materials);
          (n.isPlane ? static_cast<osg::Group*>(b.xform.get()) : b.fit.get())->addChild(n.node);
        }
      } else {
        // Radius of a solid sphere with the body's mean inertia, kept between 3 and 5 cm.
        const CompiledBody& cb = d.system->bodies[i];
        const double r = std::sqrt(2.5 * std::max(cb.inertia.trace() / 3.0, 0.0) / std::max(cb.mass, 1e-12));
        b.fit->addChild(buildMarkerSphere(std::isfinite(r) ? std::clamp(r, 0.03, 0.05) : 0.04, color, b.materials));
      }
      colors.push_back(color);
      if (b.fit->getBound().valid()) radii.push_back(b.fit->getBound().radius());
      // Until the first snapshot, bodies stand at their described initial poses.
      if (desc) {
        d.poses[i].x = desc->position;
        d.poses[i].q = desc->orientation;
      }
      b.xform->setMatrix(poseMatrix(d.poses[i].x, d.poses[i].q));
      d.bodiesGroup->addChild(b.xform);
    }
  }
  // Overlay size from the median body size.
  double scale = 0.1;
  if (!radii.empty()) {
    std::nth_element(radii.begin(), radii.begin() + radii.size() / 2, radii.end());
    scale = std::clamp(1.2 * radii[radii.size() / 2], 0.05, 0.3);
  }
  d.overlays.setModel(d.system.get(), colors, scale);
  d.overlays.update(d.poses, d.contacts);

  if (!keepCamera || d.selected < 0 || size_t(d.selected) >= d.bodies.size()) d.selected = -1;
  d.setHighlight(d.selected, true);
  d.updateGrid();
  // A new model is framed from the iso direction now and again at its first snapshot.
  d.pendingFit = !keepCamera && d.system;
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

  if (d.pendingFit) {
    d.pendingFit = false;
    d.fit();
    d.updateGrid();
  }
  update();
}

namespace {
// The overlay layer behind a public overlay (Grid has none).
int layerOf(ViewportWidget::Overlay o) {
  switch (o) {
    case ViewportWidget::Overlay::JointFrames: return OverlayLayers::JointFrames;
    case ViewportWidget::Overlay::ContactPoints: return OverlayLayers::ContactPoints;
    case ViewportWidget::Overlay::ContactForces: return OverlayLayers::ContactForces;
    case ViewportWidget::Overlay::CentersOfMass: return OverlayLayers::CentersOfMass;
    case ViewportWidget::Overlay::Trails: return OverlayLayers::Trails;
    case ViewportWidget::Overlay::Grid: break;
  }
  return -1;
}
}  // namespace

void ViewportWidget::setOverlay(Overlay overlay, bool on) {
  Impl& d = *d_;
  const int layer = layerOf(overlay);
  if (layer < 0) {
    d.gridOn = on;
    d.gridGroup->setNodeMask(on ? kDrawOnlyMask : 0);
  } else if (d.overlays.enabled(OverlayLayers::Layer(layer)) != on) {
    d.overlays.setEnabled(OverlayLayers::Layer(layer), on);
    if (on) d.overlays.update(d.poses, d.contacts);
  }
  update();
}

bool ViewportWidget::overlay(Overlay overlay) const {
  const int layer = layerOf(overlay);
  return layer < 0 ? d_->gridOn : d_->overlays.enabled(OverlayLayers::Layer(layer));
}

void ViewportWidget::clearTrails() {
  d_->overlays.clearTrails();
  d_->lastTrailTime = -std::numeric_limits<double>::infinity();
  update();
}

// Presets keep the centre and distance; z is up, Front looks along +y, Side along −x, Top down −z.
void ViewportWidget::setViewPreset(ViewPreset preset) {
  Camera& c = d_->cam;
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
  d_->applyCamera();
  update();
}

void ViewportWidget::fitToModel() {
  d_->fit();
  update();
}

ViewportWidget::Camera ViewportWidget::camera() const { return d_->cam; }

void ViewportWidget::setCamera(const Camera& camera) {
  d_->cam = camera;
  d_->applyCamera();
  update();
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

QImage ViewportWidget::renderToImage() { return grabFramebuffer(); }

long ViewportWidget::framesRendered() const { return d_->frames; }

void ViewportWidget::initializeGL() { d_->viewer->realize(); }

void ViewportWidget::resizeGL(int, int) {
  fprintf(stderr,"DBG resize %dx%d\n",d_->pixelWidth(),d_->pixelHeight());
  const int pw = d_->pixelWidth(), ph = d_->pixelHeight();
  d_->gw->resized(0, 0, pw, ph);
  d_->gw->getEventQueue()->windowResize(0, 0, pw, ph);
  // resized() rescales the projection by itself; set ours explicitly.
  d_->viewer->getCamera()->setViewport(0, 0, pw, ph);
  d_->viewer->getCamera()->setProjectionMatrixAsPerspective(kFovY, double(pw) / ph, 0.01, 1000.0);
}

// One OSG frame into Qt's framebuffer object (Qt recreates it on resize, so its id is set each time).
void ViewportWidget::paintGL() {
  d_->ensureViewport();
  d_->gw->setDefaultFboId(defaultFramebufferObject());
  d_->applyCamera();
  d_->viewer->frame();
  ++d_->frames;
}

// Left: orbit or select; Ctrl+left: grab a body; Shift+left, right, middle: pan.
void ViewportWidget::mousePressEvent(QMouseEvent* e) {
  Impl& d = *d_;
  e->accept();
  if (d.gesture.active) return;  // a second button during a gesture is ignored
  d.gesture = {};
  d.gesture.active = true;
  d.gesture.button = e->button();
  d.gesture.start = d.gesture.last = e->position();
  if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier)) {
    d.gesture.perturb = true;
    const Impl::Hit h = d.pick(e->position());
    if (h.body >= 0) {
      const BodyState& b = d.poses[size_t(h.body)];
      d.grab.body = h.body;
      d.grab.local = rotationOf(b.q).transpose() * (h.point - b.x);
      d.grab.target = h.point;
      d.updateSpring();
      emit perturbationChanged(d.perturbation());
      update();
    }
  }
}

void ViewportWidget::mouseMoveEvent(QMouseEvent* e) {
  Impl& d = *d_;
  Impl::Gesture& g = d.gesture;
  e->accept();
  if (!g.active || g.consumed) return;
  const QPointF pos = e->position();
  // Ctrl+drag: the target follows the mouse; the camera stays put.
  if (g.perturb) {
    if (d.grab.body >= 0) {
      d.grab.target = d.dragTarget(pos);
      d.updateSpring();
      emit perturbationChanged(d.perturbation());
      update();
    }
    return;
  }
  if (!g.dragging && std::hypot(pos.x() - g.start.x(), pos.y() - g.start.y()) > kClickSlop) g.dragging = true;
  if (g.dragging) {
    const double dx = pos.x() - g.last.x(), dy = pos.y() - g.last.y();
    if (g.button == Qt::LeftButton && !(e->modifiers() & Qt::ShiftModifier))
      d.orbit(dx, dy);
    else
      d.pan(dx, dy);
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
  if (g.perturb) {
    if (d.grab.body >= 0) {
      d.grab = {};
      d.updateSpring();
      emit perturbationChanged(Perturbation{});
      update();
    }
    return;
  }
  // A left click without drag selects the body under the cursor (or nothing).
  if (g.button == Qt::LeftButton && !g.dragging && !g.consumed) {
    const int body = d.pick(e->position()).body;
    setSelectedBody(body);
    emit bodySelected(body);
  }
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
  const Vec3 delta = d.poses[size_t(h.body)].x - d.cam.center;
  d.cam.eye += delta;
  d.cam.center += delta;
  d.applyCamera();
  update();
}

// Wheel zooms towards the cursor (not while a body is held).
void ViewportWidget::wheelEvent(QWheelEvent* e) {
  e->accept();
  if (d_->grab.body >= 0) return;
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  d_->zoom(steps, e->position());
  d_->applyCamera();
  update();
}

// Keys: F/Home fit, 1 front, 3 side, 7 top, 5 iso (numeric-keypad convention), Esc deselects.
void ViewportWidget::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_F:
    case Qt::Key_Home: fitToModel(); break;
    case Qt::Key_1: setViewPreset(ViewPreset::Front); break;
    case Qt::Key_3: setViewPreset(ViewPreset::Side); break;
    case Qt::Key_7: setViewPreset(ViewPreset::Top); break;
    case Qt::Key_5: setViewPreset(ViewPreset::Iso); break;
    case Qt::Key_Escape:
      if (d_->selected < 0) return QOpenGLWidget::keyPressEvent(e);
      setSelectedBody(-1);
      emit bodySelected(-1);
      break;
    default: return QOpenGLWidget::keyPressEvent(e);
  }
  e->accept();
}

void ViewportWidget::keyReleaseEvent(QKeyEvent* e) { QOpenGLWidget::keyReleaseEvent(e); }

}  // namespace ms::ui
