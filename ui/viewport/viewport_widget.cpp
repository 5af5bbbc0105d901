// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget: an osgViewer::Viewer (single-threaded, GraphicsWindowEmbedded) rendering into an
// offscreen framebuffer object (viewport/offscreen_gl.h) whose image the widget paints. Owns the scene (bodies, grid, lights, overlays), an orbit camera
// kept as eye/centre/up, picking through osgUtil::LineSegmentIntersector and the Ctrl+drag spring.
#include "viewport/viewport_widget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <osg/BlendFunc>
#include <osg/ComputeBoundsVisitor>
#include <osg/Geode>
#include <osg/LightModel>
#include <osg/Depth>
#include <osg/LineWidth>
#include <osg/PolygonOffset>
#include <osg/LightSource>
#include <osg/MatrixTransform>
#include <osg/ValueObject>
#include <osgUtil/LineSegmentIntersector>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include "viewport/collision_shapes.h"
#include "viewport/offscreen_gl.h"
#include "viewport/overlays.h"
#include "viewport/scene_nodes.h"

namespace ms::ui {

using namespace viewport;

namespace {

constexpr double kFovY = 40.0;            // vertical field of view, degrees
constexpr double kOrbitRadPerPixel = 0.008;
constexpr double kClickSlop = 4.0;        // press/release within this many pixels is a click
const osg::Vec4 kBackground(0.17f, 0.19f, 0.23f, 1.0f);
const osg::Vec4 kHighlight(0.32f, 0.17f, 0.0f, 1.0f);
const char* const kBodyKey = "ms_body";

// The farthest distance from c of the points within r1 of p1 and within r2 of p2: the farthest
// point of either ball if it lies in the other, or a point of the circle where the spheres meet.
// Infinite when the balls do not meet (no bound from this pair).
double lensReach(const Vec3& c, const Vec3& p1, double r1, const Vec3& p2, double r2) {
  const double gap = (p2 - p1).norm();
  if (gap < 1e-12 || gap > r1 + r2 + 1e-9) return std::numeric_limits<double>::infinity();
  double best = 0;
  // The farthest point of each ball from c (any, for a ball centred on c), if the other holds it.
  for (int k = 0; k < 2; ++k) {
    const Vec3& pa = k ? p2 : p1;
    const Vec3& pb = k ? p1 : p2;
    const double ra = k ? r2 : r1, rb = k ? r1 : r2;
    const Vec3 away = pa - c;
    const Vec3 far = pa + (away.norm() > 1e-12 ? Vec3(away.normalized()) : Vec3((pb - pa) / gap)) * ra;
    if ((far - pb).norm() <= rb + 1e-9) best = std::max(best, (far - c).norm());
  }
  // The circle where the spheres meet: centre o on the line p1p2, radius rho; its farthest point
  // from c lies off the line on c's far side.
  if (gap > std::abs(r1 - r2)) {
    const Vec3 e = (p2 - p1) / gap;
    const double a = (gap * gap + r1 * r1 - r2 * r2) / (2 * gap);
    const double rho = std::sqrt(std::max(r1 * r1 - a * a, 0.0));
    const Vec3 w = p1 + a * e - c;
    const double along = w.dot(e), across = (w - along * e).norm();
    best = std::max(best, std::hypot(along, across + rho));
  }
  return best;
}

}  // namespace

struct ViewportWidget::Impl {
  // One body: its pose transform (carries the body index for picking), the shapes that count for its
  // bounds (planes excluded) with their box in the body frame, and its materials (for the selection
  // highlight).
  struct Body {
    osg::ref_ptr<osg::MatrixTransform> xform;
    osg::ref_ptr<osg::Group> fit;
    osg::BoundingBox box;
    std::vector<osg::ref_ptr<osg::Material>> materials;
    osg::ref_ptr<osg::Node> collision;  // its collision shapes, a child of xform (null: none)
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
  // The grounds of the collision layer (the bodies' parts hang under their transforms).
  osg::ref_ptr<osg::Group> collisionWorld;
  bool collisionOn = false;
  // Grounds other than z = 0 (buildGroundSurfaces), drawn whatever the layers.
  osg::ref_ptr<osg::Group> groundSurfaces;
  void showCollision(bool on);
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
  bool cameraGiven = false;  // setCamera() while a fit was pending: that fit is skipped
  bool autoFit = false;  // the camera is as fit() left it: a resize frames the model again
  double gridHalf = 0, gridSpacing = 0, gridMinorHalf = 0;
  int selected = -1;
  int follow = -1;          // body the camera follows (-1: none)
  Vec3 followLast = Vec3::Zero();
  bool followKnown = false;  // followLast holds the followed body's last position
  Camera cam;
  long frames = 0;
  // Comparison ghosts: per copy 1…n a group (tinted translucent state) of body transforms sharing
  // the bodies' shape nodes, and its links as a line geometry.
  struct Ghost {
    osg::ref_ptr<osg::Group> group;
    std::vector<osg::ref_ptr<osg::MatrixTransform>> xforms;
    osg::ref_ptr<osg::Geometry> links;
    osg::ref_ptr<osg::Vec3Array> linkVerts;
    unsigned color = 0;
  };
  osg::ref_ptr<osg::Group> ghostsGroup;
  std::vector<Ghost> ghosts;
  bool ghostsOn = true;
  // Side by side: ghost k drawn translated by k·sideOffset (chosen when the layout is set).
  bool sideBySide = false;
  Vec3 sideOffset = Vec3::Zero();
  void chooseSideOffset();
  void clearGhosts();
  void updateGhosts(const std::vector<CopyStatus>& copies);
  std::vector<CopyStatus> lastCopies;  // of the last snapshot (a layout change redraws them)
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
  // The region a fit keeps in view: a ball, or for planar mechanisms points on a cylinder's rims.
  struct Framing {
    Vec3 center = Vec3::Zero();  // the camera turns about it
    double radius = 0;           // of the ball holding the region
    std::vector<Vec3> rim;
  };
  bool framing(Framing& out) const;
  bool framingOne(Framing& out) const;  // the reference copy alone
  bool modelBound(Vec3& center, double& radius) const;
  void fit();
  void updateGrid();
  void growGridToBodies();
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
  ghostsGroup = new osg::Group;
  ghostsGroup->setNodeMask(kDrawOnlyMask);
  ghostsGroup->setName("ghosts");
  root->addChild(bodiesGroup);
  root->addChild(ghostsGroup);
  root->addChild(gridGroup);
  collisionWorld = new osg::Group;
  collisionWorld->setNodeMask(0);
  root->addChild(collisionWorld);
  groundSurfaces = new osg::Group;
  groundSurfaces->setNodeMask(kDrawOnlyMask);  // drawn, never picked
  root->addChild(groundSurfaces);
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

// What a fit holds in view, around the centre of the pivots (joints on the ground) when there are
// some: a mechanism hinged to the world can swing anywhere within its reach of them, so the framed
// region holds every body over its motion, not just where it is now. Each point's reach is bounded
// along the joints (shortest paths through joint points to the pivots, then to the point); a
// mechanism whose joints to its bodies are all hinges about one direction n moves in planes ⊥ n, so
// its region is a flat cylinder about the pivots' axis instead of a ball (it frames ~1.4× larger).
// With copies side by side, the region holds every copy: the reference's region and its translates.
bool ViewportWidget::Impl::framing(Framing& out) const {
  if (!framingOne(out)) return false;
  if (!sideBySide || ghosts.empty()) return true;
  const size_t n = ghosts.size();
  const Vec3 last = sideOffset * double(n);
  out.center += 0.5 * last;
  out.radius += 0.5 * last.norm();
  const std::vector<Vec3> rim = out.rim;
  for (size_t k = 1; k <= n; ++k)
    for (const Vec3& p : rim) out.rim.push_back(p + sideOffset * double(k));
  return true;
}

bool ViewportWidget::Impl::framingOne(Framing& out) const {
  out = Framing{};
  const size_t nb = bodies.size();
  // Every body's box corners and joint points in world coordinates at the current poses.
  std::vector<std::vector<Vec3>> bodyPoints(nb);
  for (size_t i = 0; i < nb; ++i) {
    const Body& b = bodies[i];
    if (!b.box.valid()) continue;
    const osg::Matrixd m = b.xform->getMatrix();
    for (unsigned k = 0; k < 8; ++k) bodyPoints[i].push_back(fromOsg(osg::Vec3d(b.box.corner(k)) * m));
    // Bodies above a ground fall onto it: frame where they land too.
    if (system)
      for (const GroundDesc& g : system->model.grounds) {
        const Vec3 n = g.normal.normalized();
        for (unsigned k = 0; k < 8; ++k) {
          const Vec3 p = fromOsg(osg::Vec3d(b.box.corner(k)) * m);
          bodyPoints[i].push_back(p - n * n.dot(p - g.point));
        }
      }
  }
  const size_t nj = system ? system->joints.size() : 0;
  std::vector<Vec3> worldA(nj), worldB(nj);
  const auto onBody = [&](int body, const Vec3& p) -> Vec3 {
    if (body < 0 || size_t(body) >= poses.size()) return p;
    return poses[size_t(body)].x + rotationOf(poses[size_t(body)].q) * p;
  };
  // Pivots: joints between the ground (the world and bodies welded to it) and a moving body; the
  // ground-side point is fixed.
  const std::vector<char> grounded = system ? groundedBodies(*system) : std::vector<char>();
  const auto ground = [&](int body) { return body < 0 || (size_t(body) < grounded.size() && grounded[size_t(body)]); };
  std::vector<char> isPivot(nj, 0);
  Vec3 pivot = Vec3::Zero();
  int pivots = 0;
  std::vector<Vec3> all;
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    worldA[j] = onBody(g.parent, g.pa);
    worldB[j] = onBody(g.child, g.pb);
    if (g.parent >= 0 && size_t(g.parent) < nb) bodyPoints[size_t(g.parent)].push_back(worldA[j]);
    if (g.child >= 0 && size_t(g.child) < nb) bodyPoints[size_t(g.child)].push_back(worldB[j]);
    if (g.parent < 0) all.push_back(worldA[j]);
    isPivot[j] = ground(g.parent) != ground(g.child);
    if (isPivot[j]) {
      pivot += ground(g.parent) ? worldA[j] : worldB[j];
      ++pivots;
    }
  }
  for (const auto& pts : bodyPoints) all.insert(all.end(), pts.begin(), pts.end());
  if (all.empty()) return false;

  // No pivots: the sphere about the centre of the points' box through the farthest point.
  if (pivots == 0) {
    Eigen::AlignedBox3d box;
    for (const Vec3& p : all) box.extend(p);
    out.center = box.center();
    for (const Vec3& p : all) out.radius = std::max(out.radius, (p - out.center).norm());
    out.radius = std::max(out.radius, 0.05);
    return out.center.allFinite() && std::isfinite(out.radius);
  }
  const Vec3 c = pivot / pivots;

  // Planar: every body is reached from the world through joints that keep motion in planes ⊥ n
  // (welds, hinges about n, slides ⊥ n); n is the axis of the first pivot's hinge (else any hinge's).
  const auto frameOf = [&](const JointGeometry& g) -> Mat3 {
    const bool posed = g.parent >= 0 && size_t(g.parent) < poses.size();
    return (posed ? rotationOf(poses[size_t(g.parent)].q) : Mat3::Identity()) * g.Ro;
  };
  Vec3 n = Vec3::Zero();
  for (int pass = 0; pass < 2 && n.isZero(); ++pass)
    for (size_t j = 0; j < nj && n.isZero(); ++j) {
      const JointGeometry& g = system->joints[j].geo;
      if (g.fR == 1 && (pass == 1 || isPivot[j])) n = (frameOf(g) * g.axes.col(2)).normalized();
    }
  std::vector<char> keepsPlane(nj, 0);
  for (size_t j = 0; j < nj && !n.isZero(); ++j) {
    const JointGeometry& g = system->joints[j].geo;
    const Mat3 f = frameOf(g);
    bool ok = g.fR == 0 || (g.fR == 1 && (f * g.axes.col(2)).normalized().cross(n).norm() < 1e-6);
    for (int r = 0; r < g.fT && r < 3; ++r) ok = ok && std::abs((f * g.CT.row(r).transpose()).normalized().dot(n)) < 1e-6;
    keepsPlane[j] = ok;
  }
  // Breadth first from the ground over the joints that keep the plane.
  std::vector<char> reached(nb, 0);
  std::vector<int> frontier;
  const auto visit = [&](int body) {
    if (body >= 0 && size_t(body) < nb && !reached[size_t(body)]) {
      reached[size_t(body)] = 1;
      frontier.push_back(body);
    }
  };
  for (size_t i = 0; i < nb; ++i)
    if (grounded[i]) visit(int(i));
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    if (keepsPlane[j] && (g.parent < 0 || g.child < 0)) visit(g.parent < 0 ? g.child : g.parent);
  }
  while (!frontier.empty()) {
    const int body = frontier.back();
    frontier.pop_back();
    if (size_t(body) >= system->bodyJoints.size()) continue;
    for (int k : system->bodyJoints[size_t(body)])
      if (k >= 0 && size_t(k) < nj && keepsPlane[size_t(k)])
        visit(system->joints[size_t(k)].geo.parent == body ? system->joints[size_t(k)].geo.child
                                                           : system->joints[size_t(k)].geo.parent);
  }
  const bool planar = nb > 0 && !n.isZero() && std::all_of(reached.begin(), reached.end(), [](char r) { return r != 0; });
  // Distances that stay bounded under the motion: in-plane for a planar mechanism, else in space.
  const auto metric = [&](const Vec3& v) { return planar ? (v - n * n.dot(v)).norm() : v.norm(); };
  // A path may cross joint j when its two points stay together (in the plane, for a planar mechanism).
  std::vector<char> holds(nj, 0);
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    holds[j] = g.fT == 0;
    if (g.fT == 0 || !planar) continue;
    const Mat3 f = frameOf(g);
    bool alongN = true;
    for (int r = 0; r < g.fT && r < 3; ++r) alongN = alongN && (f * g.CT.row(r).transpose()).normalized().cross(n).norm() < 1e-6;
    holds[j] = alongN;
  }

  // Per pivot, a bound on each joint point's distance from it: the shortest path crossing moving
  // bodies between two of their joint points and joints that hold their points together. With
  // many pivots, one pass bounds the distance from c instead (seeded with the pivots' distances).
  const double inf = std::numeric_limits<double>::infinity();
  const auto pointOn = [&](size_t j, int body) { return system->joints[j].geo.parent == body ? worldA[j] : worldB[j]; };
  const auto groundPoint = [&](size_t j) { return ground(system->joints[j].geo.parent) ? worldA[j] : worldB[j]; };
  std::vector<size_t> sources;
  for (size_t j = 0; j < nj; ++j)
    if (isPivot[j] && holds[j]) sources.push_back(j);
  const bool pairwise = sources.size() <= 8;
  std::vector<std::vector<double>> dist(pairwise ? sources.size() : 1, std::vector<double>(nj, inf));
  using Item = std::pair<double, size_t>;
  for (size_t s = 0; s < dist.size(); ++s) {
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
    std::vector<double>& d = dist[s];
    if (pairwise)
      queue.push({d[sources[s]] = 0.0, sources[s]});
    else
      for (size_t j : sources) queue.push({d[j] = metric(groundPoint(j) - c), j});
    while (!queue.empty()) {
      const auto [dj, j] = queue.top();
      queue.pop();
      if (dj > d[j]) continue;
      const JointGeometry& g = system->joints[j].geo;
      for (int body : {g.parent, g.child}) {
        if (ground(body) || size_t(body) >= system->bodyJoints.size()) continue;
        for (int k : system->bodyJoints[size_t(body)]) {
          if (k < 0 || size_t(k) >= nj || !holds[size_t(k)]) continue;
          const double dk = dj + metric(pointOn(size_t(k), body) - pointOn(j, body));
          if (dk < d[size_t(k)]) queue.push({d[size_t(k)] = dk, size_t(k)});
        }
      }
    }
  }
  // Reach: a point of a moving body is within r_s of pivot s (through the best of its body's
  // joints), so within |P_s − c| + r_s of c, and within the farthest point of any two such balls'
  // intersection (loops: a link held by two pivots cannot reach as far as either path alone
  // allows). Points of the ground, and of bodies without a bounded path, count where they are now.
  const auto flat = [&](const Vec3& v) -> Vec3 { return planar ? Vec3(v - n * n.dot(v - c)) : v; };
  std::vector<double> r(dist.size());
  double reach = 0;
  for (size_t i = 0; i < nb; ++i)
    for (const Vec3& p : bodyPoints[i]) {
      double best = inf;
      for (size_t s = 0; s < dist.size() && !grounded[i] && i < system->bodyJoints.size(); ++s) {
        r[s] = inf;
        for (int k : system->bodyJoints[i])
          if (k >= 0 && size_t(k) < nj && std::isfinite(dist[s][size_t(k)]))
            r[s] = std::min(r[s], dist[s][size_t(k)] + metric(p - pointOn(size_t(k), int(i))));
        if (!std::isfinite(r[s])) continue;
        best = std::min(best, (pairwise ? metric(groundPoint(sources[s]) - c) : 0.0) + r[s]);
        for (size_t t = 0; pairwise && t < s; ++t)
          if (std::isfinite(r[t]))
            best = std::min(best, lensReach(flat(c), flat(groundPoint(sources[s])), r[s], flat(groundPoint(sources[t])), r[t]));
      }
      reach = std::max(reach, std::isfinite(best) ? best : metric(p - c));
    }
  for (size_t j = 0; j < nj; ++j)
    if (system->joints[j].geo.parent < 0) reach = std::max(reach, metric(worldA[j] - c));
  for (size_t j = 0; j < nj; ++j)
    if (isPivot[j]) reach = std::max(reach, metric(groundPoint(j) - c));
  reach = std::max(reach, 0.05);
  out.center = c;
  out.radius = reach;
  if (!planar) return std::isfinite(reach);

  // Planar: the rims of the cylinder about the axis through c, as far along n as the model goes
  // (each point keeps its coordinate along n).
  double lo = 0, hi = 0;
  for (const Vec3& p : all) {
    lo = std::min(lo, n.dot(p - c));
    hi = std::max(hi, n.dot(p - c));
  }
  const Vec3 u = n.unitOrthogonal(), v = n.cross(u);
  constexpr int kRim = 64;
  for (double along : {lo, hi})
    for (int k = 0; k < kRim; ++k) {
      const double t = 2 * kPi * k / kRim;
      out.rim.push_back(c + n * along + reach * (std::cos(t) * u + std::sin(t) * v));
    }
  out.radius = std::sqrt(reach * reach + std::max(lo * lo, hi * hi));
  return std::isfinite(out.radius);
}

bool ViewportWidget::Impl::modelBound(Vec3& center, double& radius) const {
  Framing f;
  if (!framing(f)) return false;
  center = f.center;
  radius = f.radius;
  return true;
}

// Frames the model from the current view direction: a ball by its tangent cone, a planar
// mechanism's cylinder by moving the centre to the middle of its outline and backing off until
// every rim point is inside the view (5 % margin).
void ViewportWidget::Impl::fit() {
  Framing f;
  if (!framing(f)) {
    f.center = Vec3::Zero();
    f.radius = 1.0;
  }
  // On a ground, show some of the ground around the model: at least 2.5× its largest body.
  if (system && !system->model.grounds.empty() && f.rim.empty()) {
    double largest = 0;
    for (const Body& b : bodies)
      if (b.box.valid()) largest = std::max(largest, double(b.box.radius()));
    f.radius = std::max(f.radius, 2.5 * largest);
  }
  const double aspect = double(pixelWidth()) / pixelHeight();
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
  cam.center = center;
  cam.eye = center - dir * dist;
  applyCamera();
  autoFit = true;
}

// Grid extent follows the model: at least ±5 m, enough to reach past the model's footprint. Lines
// are 1 m apart, 10 m for very large models; the finer lines (a tenth) are drawn only while the
// model is small enough for them not to blur into a bright patch when the model is framed.
void ViewportWidget::Impl::updateGrid() {
  Vec3 c = Vec3::Zero();
  double r = 1.0;
  modelBound(c, r);
  const double spacing = r > 12.0 ? 10.0 : 1.0;
  const double reach = std::max(std::abs(c.x()), std::abs(c.y())) + 2.0 * r;
  const double half = std::clamp(spacing * std::ceil(reach / spacing), 5.0, 100.0);
  if (half == gridHalf && spacing == gridSpacing) return;
  gridHalf = half;
  gridSpacing = spacing;
  gridMinorHalf = r <= 3.0 * spacing ? std::min(half, 3.0 * spacing) : 0.0;
  gridGroup->removeChildren(0, gridGroup->getNumChildren());
  gridGroup->addChild(buildGrid(half, spacing, gridMinorHalf));
}

// The grid grows (in steps of 5 lines, up to ±100 m) to stay under bodies that move past its
// edge, e.g. a walking robot the camera follows; it does not shrink during a run.
void ViewportWidget::Impl::growGridToBodies() {
  if (gridSpacing <= 0 || gridHalf >= 100.0) return;
  double reach = 0;
  for (const auto& p : poses) reach = std::max({reach, std::abs(p.x.x()), std::abs(p.x.y())});
  if (!(reach + 2.0 * gridSpacing > gridHalf)) return;
  gridHalf = std::min(100.0, gridSpacing * (std::ceil(reach / gridSpacing) + 5.0));
  gridGroup->removeChildren(0, gridGroup->getNumChildren());
  gridGroup->addChild(buildGrid(gridHalf, gridSpacing, gridMinorHalf));
}

// The collision layer is drawn, never picked; masked out while off.
void ViewportWidget::Impl::showCollision(bool on) {
  collisionOn = on;
  const osg::Node::NodeMask mask = on ? kDrawOnlyMask : 0;
  collisionWorld->setNodeMask(mask);
  for (Body& b : bodies)
    if (b.collision) b.collision->setNodeMask(mask);
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

// An opaque widget painted entirely by the frame image (no background painted beneath it).
ViewportWidget::ViewportWidget(QWidget* parent) : QWidget(parent), gl_(std::make_unique<viewport::OffscreenGl>()) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setAttribute(Qt::WA_NoSystemBackground);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(64, 64);
  d_ = std::make_unique<Impl>(this);
}

// GL objects are released with the widget's context current.
ViewportWidget::~ViewportWidget() {
  const bool current = gl_->makeCurrent();
  d_.reset();
  if (current) gl_->doneCurrent();
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
  d.collisionWorld->removeChildren(0, d.collisionWorld->getNumChildren());
  d.groundSurfaces->removeChildren(0, d.groundSurfaces->getNumChildren());
  d.clearGhosts();
  d.lastCopies.clear();
  d.bodies.clear();
  d.meshes.clear();
  d.system = std::move(system);
  d.modelDir = modelDir;
  if (!keepCamera) d.follow = -1;
  d.followKnown = false;
  d.poses.clear();
  d.contacts.clear();
  d.generation = std::numeric_limits<long>::min();
  d.lastTrailTime = -std::numeric_limits<double>::infinity();

  std::vector<osg::Vec4> colors;
  std::vector<double> radii;
  if (d.system) {
    const Model& model = d.system->model;
    const size_t nb = d.system->bodies.size();
    // Bodies without shapes (point masses on massless rods) get a marker sphere sized from the
    // median distance between such a body's centre of mass and its joint points.
    std::vector<double> arms;
    const auto shapeless = [&](int body) {
      if (body < 0 || size_t(body) >= nb) return false;
      return size_t(body) >= model.bodies.size() ||
             (model.bodies[size_t(body)].visuals.empty() && model.bodies[size_t(body)].collisions.empty());
    };
    for (const CompiledJoint& j : d.system->joints) {
      if (shapeless(j.geo.parent) && j.geo.pa.norm() > 1e-9) arms.push_back(j.geo.pa.norm());
      if (shapeless(j.geo.child) && j.geo.pb.norm() > 1e-9) arms.push_back(j.geo.pb.norm());
    }
    double armMarker = 0;
    if (!arms.empty()) {
      std::nth_element(arms.begin(), arms.begin() + arms.size() / 2, arms.end());
      armMarker = std::min(0.15 * arms[arms.size() / 2], 0.15);
    }
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
        // Radius of a solid sphere with the body's mean inertia, kept between 3 and 5 cm, or larger
        // on long rods (at most 15 % of their median length, 15 cm).
        const CompiledBody& cb = d.system->bodies[i];
        const double r = std::sqrt(2.5 * std::max(cb.inertia.trace() / 3.0, 0.0) / std::max(cb.mass, 1e-12));
        const double radius = std::max(std::isfinite(r) ? std::clamp(r, 0.03, 0.05) : 0.04, armMarker);
        b.fit->addChild(buildMarkerSphere(radius, color, b.materials));
      }
      colors.push_back(color);
      if (b.fit->getBound().valid()) radii.push_back(b.fit->getBound().radius());
      // The shapes' box in the body frame, for framing.
      osg::ComputeBoundsVisitor bounds;
      b.fit->accept(bounds);
      b.box = bounds.getBoundingBox();
      // Until the first snapshot, bodies stand at their described initial poses.
      if (desc) {
        d.poses[i].x = desc->position;
        d.poses[i].q = desc->orientation;
      }
      b.xform->setMatrix(poseMatrix(d.poses[i].x, d.poses[i].q));
      d.bodiesGroup->addChild(b.xform);
    }
  }
  // Overlay size from the median body size, and at least 8 % of the model's reach (small bodies
  // on long massless rods would otherwise get triads too small to read in the fitted view).
  double scale = 0.1;
  if (!radii.empty()) {
    std::nth_element(radii.begin(), radii.begin() + radii.size() / 2, radii.end());
    scale = 1.2 * radii[radii.size() / 2];
  }
  Vec3 modelCenter = Vec3::Zero();
  double modelRadius = 0;
  const bool bounded = d.modelBound(modelCenter, modelRadius);
  if (!radii.empty() && bounded) scale = std::max(scale, 0.08 * modelRadius);
  scale = std::clamp(scale, 0.05, 0.3);

  // Collision shapes, built once per model: a body's under its transform (they move with it), the
  // grounds in the world. Planes are squares reaching three model radii from their centre (0.5 to 20 m).
  if (d.system) {
    const Model& model = d.system->model;
    const double planeHalf = std::clamp(3.0 * modelRadius, 0.5, 20.0);
    for (size_t i = 0; i < d.bodies.size() && i < model.bodies.size(); ++i) {
      Impl::Body& b = d.bodies[i];
      b.collision = buildCollisionShapes(model.bodies[i].collisions, planeHalf);
      if (b.collision) b.xform->addChild(b.collision);
    }
    if (osg::ref_ptr<osg::Node> grounds = buildGroundPlanes(model.grounds, modelCenter, planeHalf))
      d.collisionWorld->addChild(grounds);
    // Tilted grounds, always drawn (the grid shows only the plane z = 0).
    if (osg::ref_ptr<osg::Node> tilted = buildGroundSurfaces(model.grounds, modelCenter, planeHalf))
      d.groundSurfaces->addChild(tilted);
  }
  d.showCollision(d.collisionOn);
  d.overlays.setModel(d.system.get(), colors, scale);
  d.overlays.update(d.poses, d.contacts);

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
  if (d.follow >= 0 && d.follow < int(d.poses.size())) {
    const Vec3 x = d.poses[d.follow].x;
    if (d.followKnown) {
      d.cam.eye += x - d.followLast;
      d.cam.center += x - d.followLast;
      d.applyCamera();
    }
    d.followLast = x;
    d.followKnown = true;
  }
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

void ViewportWidget::Impl::clearGhosts() {
  ghostsGroup->removeChildren(0, ghostsGroup->getNumChildren());
  ghosts.clear();
}

// Builds a ghost set per copy beyond the reference (rebuilt when their number or colour changes),
// then poses each at its copy's state.
void ViewportWidget::Impl::updateGhosts(const std::vector<CopyStatus>& copies) {
  const size_t wanted = copies.size() > 1 ? copies.size() - 1 : 0;
  bool rebuild = wanted != ghosts.size();
  for (size_t k = 0; k < ghosts.size() && !rebuild; ++k) rebuild = ghosts[k].color != copies[k + 1].spec.color;
  if (rebuild) {
    clearGhosts();
    for (size_t k = 0; k < wanted; ++k) {
      const unsigned rgb = copies[k + 1].spec.color;
      const osg::Vec4 tint(float((rgb >> 16) & 0xff) / 255.f, float((rgb >> 8) & 0xff) / 255.f, float(rgb & 0xff) / 255.f, 0.42f);
      Ghost g;
      g.color = rgb;
      g.group = new osg::Group;
      g.group->setName("ghost-" + std::to_string(k + 1));
      // Translucent tint over every shape of the body (the shapes' own materials are overridden).
      osg::StateSet* ss = g.group->getOrCreateStateSet();
      osg::ref_ptr<osg::Material> m = applySurface(ss, tint, true);
      // Drawn over a coincident reference (a copy that agrees with it) without depth fighting:
      // pulled slightly towards the camera, and equal depths pass.
      ss->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, false),
                               osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
      ss->setAttributeAndModes(new osg::PolygonOffset(-1.0f, -2.0f), osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
      m->setEmission(osg::Material::FRONT_AND_BACK, osg::Vec4(tint.r() * 0.35f, tint.g() * 0.35f, tint.b() * 0.35f, tint.a()));
      for (const Body& b : bodies) {
        osg::ref_ptr<osg::MatrixTransform> x = new osg::MatrixTransform;
        x->setDataVariance(osg::Object::DYNAMIC);
        for (unsigned c = 0; c < b.fit->getNumChildren(); ++c) x->addChild(b.fit->getChild(c));
        g.group->addChild(x);
        g.xforms.push_back(x);
      }
      // Links: parent centre of mass → joint point → child centre of mass, per joint.
      const size_t nj = system ? system->joints.size() : 0;
      g.linkVerts = new osg::Vec3Array(GLsizei(4 * nj));
      osg::ref_ptr<osg::Vec4Array> col = singleColor(osg::Vec4(tint.r(), tint.g(), tint.b(), 0.75f));
      g.links = makeDynamicGeometry(g.linkVerts.get(), col.get(), osg::Array::BIND_OVERALL);
      g.links->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, GLsizei(4 * nj)));
      osg::StateSet* ls = g.links->getOrCreateStateSet();
      ls->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::OVERRIDE);
      ls->setAttributeAndModes(new osg::LineWidth(3.0f));
      osg::ref_ptr<osg::Geode> geode = new osg::Geode;
      geode->addDrawable(g.links);
      g.group->addChild(geode);
      ghostsGroup->addChild(g.group);
      ghosts.push_back(std::move(g));
    }
  }
  for (size_t k = 0; k < ghosts.size(); ++k) {
    Ghost& g = ghosts[k];
    const CopyStatus& c = copies[k + 1];
    const bool shown = ghostsOn && !c.failed && c.state.bodies.size() == g.xforms.size();
    g.group->setNodeMask(shown ? ~0u : 0u);
    if (!shown) continue;
    // Side by side: the whole copy moved over by k offsets (bodies and links alike).
    const Vec3 shift = sideBySide ? Vec3(sideOffset * double(k + 1)) : Vec3::Zero();
    for (size_t i = 0; i < g.xforms.size(); ++i)
      g.xforms[i]->setMatrix(poseMatrix(c.state.bodies[i].x + shift, c.state.bodies[i].q));
    if (system) {
      osg::Vec3Array& v = *g.linkVerts;
      const auto com = [&](int body) { return body < 0 ? Vec3::Zero() : c.state.bodies[size_t(body)].x; };
      const auto point = [&](int body, const Vec3& local) {
        if (body < 0) return local;
        const BodyState& b = c.state.bodies[size_t(body)];
        return Vec3(b.x + rotationOf(b.q) * local);
      };
      for (size_t j = 0; j < system->joints.size() && 4 * j + 3 < v.size(); ++j) {
        const JointGeometry& geo = system->joints[j].geo;
        const Vec3 pj = point(geo.parent, geo.pa), cj = point(geo.child, geo.pb);
        v[4 * j] = toOsg((geo.parent < 0 ? pj : com(geo.parent)) + shift);
        v[4 * j + 1] = toOsg(pj + shift);
        v[4 * j + 2] = toOsg(cj + shift);
        v[4 * j + 3] = toOsg(com(geo.child) + shift);
      }
      g.linkVerts->dirty();
      g.links->dirtyBound();
    }
  }
}

// The copies line up along the world axis (x or y) closest to the camera's right, 1.3 model
// diameters apart (at least 0.5 m).
void ViewportWidget::Impl::chooseSideOffset() {
  Framing f;
  const double r = framingOne(f) ? f.radius : 1.0;
  const Vec3 right = viewDir().cross(safeUp());
  const Vec3 axis = std::abs(right.x()) >= std::abs(right.y()) ? Vec3(right.x() >= 0 ? 1 : -1, 0, 0)
                                                                : Vec3(0, right.y() >= 0 ? 1 : -1, 0);
  sideOffset = axis * std::max(2.6 * r, 0.5);
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
  d_->autoFit = false;
  update();
}

void ViewportWidget::fitToModel() {
  d_->fit();
  update();
}

ViewportWidget::Camera ViewportWidget::camera() const { return d_->cam; }

void ViewportWidget::setFollowBody(int body) {
  Impl& d = *d_;
  d.follow = body >= 0 && body < int(d.bodies.size()) ? body : -1;
  d.followKnown = d.follow >= 0 && d.follow < int(d.poses.size());
  if (d.followKnown) d.followLast = d.poses[d.follow].x;
  d.autoFit = false;
}

int ViewportWidget::followBody() const { return d_->follow; }

double ViewportWidget::gridHalfExtent() const { return d_->gridHalf; }

void ViewportWidget::setCamera(const Camera& camera) {
  d_->cam = camera;
  d_->applyCamera();
  d_->autoFit = false;
  // A camera given after a new model replaces the fit that model would get with its first poses
  // (the grid is still sized then).
  d_->cameraGiven = d_->pendingFit;
  update();
}

// The camera's view and projection (as set in ensureViewport) and the window mapping, applied by hand.
bool ViewportWidget::worldToWidget(const Vec3& point, QPointF& widgetPos) const {
  const Impl& d = *d_;
  const int pw = d.pixelWidth(), ph = d.pixelHeight();
  osg::Matrixd view, proj;
  view.makeLookAt(toOsg(d.cam.eye), toOsg(d.cam.center), toOsg(d.safeUp()));
  proj.makePerspective(kFovY, double(pw) / ph, 0.01, 1000.0);
  const osg::Vec4d clip = osg::Vec4d(toOsg(point), 1.0) * view * proj;
  if (!(clip.w() > 1e-12)) return false;
  const double x = 0.5 * (clip.x() / clip.w() + 1.0) * pw, y = 0.5 * (1.0 - clip.y() / clip.w()) * ph;
  widgetPos = QPointF(x, y) / d.dpr();
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
  if (d_->autoFit) d_->fit();
}

// One OSG frame into the offscreen framebuffer (realizing the viewer the first time), read back.
void ViewportWidget::renderFrame() {
  const unsigned fbo = gl_->beginFrame(QSize(d_->pixelWidth(), d_->pixelHeight()));
  if (fbo == 0) return;
  if (!d_->viewer->isRealized()) d_->viewer->realize();
  d_->ensureViewport();
  d_->gw->setDefaultFboId(fbo);
  d_->applyCamera();
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
    d.autoFit = false;
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
  // A left click without drag selects the body under the cursor (or nothing); a right click asks
  // for its context menu.
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
  const Vec3 delta = d.poses[size_t(h.body)].x - d.cam.center;
  d.cam.eye += delta;
  d.cam.center += delta;
  d.applyCamera();
  d.autoFit = false;
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
  d_->autoFit = false;
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
      if (d_->selected < 0) return QWidget::keyPressEvent(e);
      setSelectedBody(-1);
      emit bodySelected(-1);
      break;
    default: return QWidget::keyPressEvent(e);
  }
  e->accept();
}

void ViewportWidget::keyReleaseEvent(QKeyEvent* e) { QWidget::keyReleaseEvent(e); }

}  // namespace ms::ui
