// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget's scene (viewport_impl.h): the osgViewer::Viewer rendering offscreen, lights, the
// bodies built from a compiled mechanism's shapes, the ground grid, the collision layer, the selection
// highlight and the comparison ghosts; and the glue that applies the CameraController to the viewer,
// picks through it (picking.h) and frames the model (framing.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <osg/BlendFunc>
#include <osg/ComputeBoundsVisitor>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/LightModel>
#include <osg/LightSource>
#include <osg/LineWidth>
#include <osg/PolygonOffset>
#include <osg/ValueObject>

#include "viewport/collision_shapes.h"
#include "viewport/viewport_impl.h"

namespace ms::ui {

using namespace viewport;

namespace {

const osg::Vec4 kBackground(0.17f, 0.19f, 0.23f, 1.0f);
const osg::Vec4 kHighlight(0.32f, 0.17f, 0.0f, 1.0f);

}  // namespace

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
  root->addChild(handleLayer.root());
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
  const Camera& cam = camera.camera();
  viewer->getCamera()->setViewMatrixAsLookAt(toOsg(cam.eye), toOsg(cam.center), toOsg(camera.safeUp()));
}

// World ray through a widget position (unprojected with the current view, projection and viewport).
bool ViewportWidget::Impl::ray(const QPointF& pos, Vec3& origin, Vec3& dir) {
  ensureViewport();
  applyCamera();
  return windowRay(*viewer->getCamera(), toWindow(pos), origin, dir);
}

// Nearest body surface under a widget position (bodies only: grid and overlays are masked out).
ViewportWidget::Impl::Hit ViewportWidget::Impl::pick(const QPointF& pos) {
  ensureViewport();
  applyCamera();
  return pickBody(*viewer, toWindow(pos), bodies.size());
}

// The mouse ray meets the plane through the current grab point that faces the camera.
Vec3 ViewportWidget::Impl::dragTarget(const QPointF& pos) {
  Vec3 o, r;
  if (!ray(pos, o, r)) return grab.target;
  return grab.dragTarget(o, r, camera.viewDir(), poses);
}

// With copies side by side, the region holds every copy: the reference's region and its translates.
bool ViewportWidget::Impl::framing(Framing& out) const {
  if (!framingOne(out)) return false;
  if (!sideBySide || ghosts.empty()) return true;
  frameCopies(out, sideOffset, ghosts.size());
  return true;
}

// The reference copy's region: its bodies' boxes at their transforms, joints and pivots.
bool ViewportWidget::Impl::framingOne(Framing& out) const {
  std::vector<std::vector<Vec3>> corners(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    if (!b.box.valid()) continue;
    const osg::Matrixd m = b.xform->getMatrix();
    for (unsigned k = 0; k < 8; ++k) corners[i].push_back(fromOsg(osg::Vec3d(b.box.corner(k)) * m));
  }
  return frameMechanism(system.get(), poses, corners, out, fitReach);
}

bool ViewportWidget::Impl::modelBound(Vec3& center, double& radius) const {
  Framing f;
  if (!framing(f)) return false;
  center = f.center;
  radius = f.radius;
  return true;
}

// Frames the model from the current view direction (CameraController::fit).
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
  camera.fit(f, double(pixelWidth()) / pixelHeight());
  applyCamera();
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

// Rebuilds the body transforms from the visual shapes (else collision shapes, else a COM sphere),
// the collision layer and the overlays for `system`; bodies stand at their initial poses.
void ViewportWidget::Impl::buildBodies() {
  std::vector<osg::Vec4> colors;
  std::vector<double> radii;
  if (system) {
    const Model& model = system->model;
    const size_t nb = system->bodies.size();
    // Bodies without shapes (point masses on massless rods) get a marker sphere sized from the
    // median distance between such a body's centre of mass and its joint points.
    std::vector<double> arms;
    const auto shapeless = [&](int body) {
      if (body < 0 || size_t(body) >= nb) return false;
      return size_t(body) >= model.bodies.size() ||
             (model.bodies[size_t(body)].visuals.empty() && model.bodies[size_t(body)].collisions.empty());
    };
    for (const CompiledJoint& j : system->joints) {
      if (shapeless(j.geo.parent) && j.geo.pa.norm() > 1e-9) arms.push_back(j.geo.pa.norm());
      if (shapeless(j.geo.child) && j.geo.pb.norm() > 1e-9) arms.push_back(j.geo.pb.norm());
    }
    double armMarker = 0;
    if (!arms.empty()) {
      std::nth_element(arms.begin(), arms.begin() + arms.size() / 2, arms.end());
      armMarker = std::min(0.15 * arms[arms.size() / 2], 0.15);
    }
    bodies.resize(nb);
    poses.resize(nb);
    for (size_t i = 0; i < nb; ++i) {
      Body& b = bodies[i];
      const BodyDesc* desc = i < model.bodies.size() ? &model.bodies[i] : nullptr;
      b.xform = new osg::MatrixTransform;
      b.xform->setDataVariance(osg::Object::DYNAMIC);
      b.xform->setUserValue(kBodyKey, int(i));
      b.xform->setName(system->bodies[i].name);
      b.fit = new osg::Group;
      b.xform->addChild(b.fit);
      const std::vector<ShapeDesc>* shapes = nullptr;
      if (desc) shapes = !desc->visuals.empty() ? &desc->visuals : &desc->collisions;
      osg::Vec4 color(0.7f, 0.7f, 0.75f, 1.0f);
      if (shapes && !shapes->empty()) {
        color = toOsgColor(shapes->front().color);
        for (const ShapeDesc& s : *shapes) {
          ShapeNode n = buildShape(s, modelDir, meshes, std::max(20.0, 2.0 * gridHalf), b.materials);
          // The first shape under a transform of its own: a Resize drag previews its new size with it.
          if (&s == &shapes->front() && !n.isPlane) {
            b.firstShape = new osg::MatrixTransform;
            b.firstShape->setDataVariance(osg::Object::DYNAMIC);
            b.firstShape->addChild(n.node);
            n.node = b.firstShape;
          }
          (n.isPlane ? static_cast<osg::Group*>(b.xform.get()) : b.fit.get())->addChild(n.node);
        }
      } else {
        // Radius of a solid sphere with the body's mean inertia, kept between 3 and 5 cm, or larger
        // on long rods (at most 15 % of their median length, 15 cm).
        const CompiledBody& cb = system->bodies[i];
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
        poses[i].x = desc->position;
        poses[i].q = desc->orientation;
      }
      b.xform->setMatrix(poseMatrix(poses[i].x, poses[i].q));
      bodiesGroup->addChild(b.xform);
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
  const bool bounded = modelBound(modelCenter, modelRadius);
  if (!radii.empty() && bounded) scale = std::max(scale, 0.08 * modelRadius);
  scale = std::clamp(scale, 0.05, 0.3);

  // Collision shapes, built once per model: a body's under its transform (they move with it), the
  // grounds in the world. Planes are squares reaching three model radii from their centre (0.5 to 20 m).
  if (system) {
    const Model& model = system->model;
    const double planeHalf = std::clamp(3.0 * modelRadius, 0.5, 20.0);
    for (size_t i = 0; i < bodies.size() && i < model.bodies.size(); ++i) {
      Body& b = bodies[i];
      b.collision = buildCollisionShapes(model.bodies[i].collisions, planeHalf);
      if (b.collision) b.xform->addChild(b.collision);
    }
    if (osg::ref_ptr<osg::Node> grounds = buildGroundPlanes(model.grounds, modelCenter, planeHalf))
      collisionWorld->addChild(grounds);
    // Tilted grounds, always drawn (the grid shows only the plane z = 0).
    if (osg::ref_ptr<osg::Node> tilted = buildGroundSurfaces(model.grounds, modelCenter, planeHalf))
      groundSurfaces->addChild(tilted);
  }
  showCollision(collisionOn);
  overlays.setModel(system.get(), colors, scale);
  overlays.update(poses, contacts);
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
  const Vec3 right = camera.viewDir().cross(camera.safeUp());
  const Vec3 axis = std::abs(right.x()) >= std::abs(right.y()) ? Vec3(right.x() >= 0 ? 1 : -1, 0, 0)
                                                                : Vec3(0, right.y() >= 0 ? 1 : -1, 0);
  sideOffset = axis * std::max(2.6 * r, 0.5);
}

}  // namespace ms::ui
