// SPDX-License-Identifier: GPL-3.0-or-later
// Overlay geometry of the 3D view: fixed-size vertex arrays per model (joint triads and axes,
// centre-of-mass crosses), arrays resized in place for contacts (capacity is kept), ring-buffered
// trails and the perturbation spring. Vertices are written in world coordinates.
#include "viewport/overlays.h"

#include <algorithm>

#include <osg/ShapeDrawable>

#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

namespace {

// Overlay colours.
const osg::Vec4 kRed(0.95f, 0.25f, 0.25f, 1), kGreen(0.30f, 0.90f, 0.30f, 1), kBlue(0.30f, 0.50f, 1.0f, 1);
const osg::Vec4 kAxis(0.2f, 0.9f, 1.0f, 1), kCom(1.0f, 0.85f, 0.1f, 1);
const osg::Vec4 kContact(1.0f, 0.2f, 0.2f, 1), kForce(1.0f, 0.6f, 0.1f, 1), kSpring(1.0f, 1.0f, 1.0f, 1);
constexpr double kMetresPerNewton = 0.01, kMaxArrow = 0.5;

// Vertex i of a Vec3Array from an engine vector.
inline void put(osg::Vec3Array& v, size_t i, const Vec3& p) { v[i].set(float(p.x()), float(p.y()), float(p.z())); }

// Marks a geometry's vertices as changed (re-upload and new bounds for near/far and culling).
inline void touch(osg::Geometry* g, osg::Vec3Array* v) {
  v->dirty();
  g->dirtyBound();
}

// A geode holding `g`, masked out (off) until enabled.
osg::ref_ptr<osg::Geode> layerOf(osg::Geometry* g) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g);
  geode->setNodeMask(0);
  return geode;
}

}  // namespace

// The layers exist for the widget's lifetime; setModel only resizes their arrays.
OverlayLayers::OverlayLayers() {
  root_ = new osg::Group;
  root_->setNodeMask(kDrawOnlyMask);
  setOverlayState(root_->getOrCreateStateSet(), 2.0f, 8.0f);

  // Joint frames: per joint an RGB triad (6 vertices) and the joint axis (2 vertices).
  jointVerts_ = new osg::Vec3Array;
  jointGeom_ = makeDynamicGeometry(jointVerts_, new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
  jointGeom_->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 0));
  layers_[JointFrames] = layerOf(jointGeom_);

  // Centres of mass: per body a cross (6 vertices), then one point per body.
  comVerts_ = new osg::Vec3Array;
  comGeom_ = makeDynamicGeometry(comVerts_, singleColor(kCom), osg::Array::BIND_OVERALL);
  comLines_ = new osg::DrawArrays(GL_LINES, 0, 0);
  comPoints_ = new osg::DrawArrays(GL_POINTS, 0, 0);
  comGeom_->addPrimitiveSet(comLines_);
  comGeom_->addPrimitiveSet(comPoints_);
  layers_[CentersOfMass] = layerOf(comGeom_);

  // Contact points and force arrows (shaft + two head strokes), resized per snapshot.
  contactPointVerts_ = new osg::Vec3Array;
  contactPointGeom_ = makeDynamicGeometry(contactPointVerts_, singleColor(kContact), osg::Array::BIND_OVERALL);
  contactPointPrims_ = new osg::DrawArrays(GL_POINTS, 0, 0);
  contactPointGeom_->addPrimitiveSet(contactPointPrims_);
  layers_[ContactPoints] = layerOf(contactPointGeom_);
  contactForceVerts_ = new osg::Vec3Array;
  contactForceGeom_ = makeDynamicGeometry(contactForceVerts_, singleColor(kForce), osg::Array::BIND_OVERALL);
  contactForcePrims_ = new osg::DrawArrays(GL_LINES, 0, 0);
  contactForceGeom_->addPrimitiveSet(contactForcePrims_);
  layers_[ContactForces] = layerOf(contactForceGeom_);

  // Trails: depth-tested translucent strips (they are paths in space, not markers).
  trailGroup_ = new osg::Group;
  trailGroup_->setNodeMask(0);
  osg::StateSet* ts = trailGroup_->getOrCreateStateSet();
  ts->setMode(GL_DEPTH_TEST, osg::StateAttribute::ON);
  ts->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  layers_[Trails] = trailGroup_;

  // Spring: a line from the attachment point to the target and a lit sphere at the target.
  springVerts_ = new osg::Vec3Array(2);
  springGeom_ = makeDynamicGeometry(springVerts_, singleColor(kSpring), osg::Array::BIND_OVERALL);
  springGeom_->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 2));
  spring_ = layerOf(springGeom_);
  springTip_ = new osg::MatrixTransform;
  osg::ref_ptr<osg::ShapeDrawable> tip = new osg::ShapeDrawable(new osg::Sphere(osg::Vec3(), 1.0f));
  applySurface(tip->getOrCreateStateSet(), osg::Vec4(1.0f, 0.45f, 0.2f, 1), false);
  tip->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::ON);
  tip->getOrCreateStateSet()->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
  springTip_->addChild(tip);
  spring_->addChild(springTip_);

  for (const auto& layer : layers_) root_->addChild(layer);
  root_->addChild(spring_);
}

// Allocates the per-model arrays once; colours are fixed here, positions written by update().
void OverlayLayers::setModel(const CompiledSystem* system, const std::vector<osg::Vec4>& bodyColors, double scale) {
  system_ = system;
  scale_ = scale;
  bodyColors_ = bodyColors;
  const size_t nj = system ? system->joints.size() : 0, nb = system ? system->bodies.size() : 0;

  // Joint triads (x red, y green, z blue) and axis (cyan).
  jointVerts_->assign(8 * nj, osg::Vec3());
  auto* jc = static_cast<osg::Vec4Array*>(jointGeom_->getColorArray());
  jc->clear();
  for (size_t j = 0; j < nj; ++j)
    for (const osg::Vec4& c : {kRed, kRed, kGreen, kGreen, kBlue, kBlue, kAxis, kAxis}) jc->push_back(c);
  jc->dirty();
  static_cast<osg::DrawArrays*>(jointGeom_->getPrimitiveSet(0))->setCount(GLsizei(8 * nj));
  touch(jointGeom_, jointVerts_);

  // Centre-of-mass crosses and points.
  comVerts_->assign(7 * nb, osg::Vec3());
  comLines_->setCount(GLsizei(6 * nb));
  comPoints_->setFirst(GLint(6 * nb));
  comPoints_->setCount(GLsizei(nb));
  touch(comGeom_, comVerts_);

  // Contacts start empty.
  contactPointVerts_->clear();
  contactPointPrims_->setCount(0);
  contactForceVerts_->clear();
  contactForcePrims_->setCount(0);

  // Trails are (re)allocated lazily when the layer is on.
  trailGroup_->removeChildren(0, trailGroup_->getNumChildren());
  trails_.clear();
  if (on_[Trails]) clearTrails();
  setSpring(false, Vec3::Zero(), Vec3::Zero());
  springTip_->setMatrix(osg::Matrixd::scale(0.15 * scale, 0.15 * scale, 0.15 * scale));
}

void OverlayLayers::setEnabled(Layer layer, bool on) {
  on_[layer] = on;
  layers_[layer]->setNodeMask(on ? kDrawOnlyMask : 0);
  if (layer == Trails && on) clearTrails();
}

void OverlayLayers::update(const Poses& poses, const std::vector<ContactDraw>& contacts) {
  if (!system_) return;
  if (on_[JointFrames]) updateJointFrames(poses);
  if (on_[CentersOfMass]) updateCenters(poses);
  if (on_[ContactPoints] || on_[ContactForces]) updateContacts(contacts);
}

// Triad at the joint's point on the child body (child orientation) and its axis when it has one.
void OverlayLayers::updateJointFrames(const Poses& poses) {
  osg::Vec3Array& v = *jointVerts_;
  const double len = scale_;
  for (size_t j = 0; j < system_->joints.size(); ++j) {
    const JointGeometry& g = system_->joints[j].geo;
    if (g.child < 0 || size_t(g.child) >= poses.size()) continue;
    const BodyState& b = poses[size_t(g.child)];
    const Mat3 r = rotationOf(b.q);
    const Vec3 p = b.x + r * g.pb;
    for (int a = 0; a < 3; ++a) {
      put(v, 8 * j + 2 * a, p);
      put(v, 8 * j + 2 * a + 1, p + len * r.col(a));
    }
    // Revolute, prismatic, cylindrical and planar joints have a distinguished axis V3.
    const bool hasAxis = g.fR == 1 || g.fT == 1 || g.fT == 2;
    const Vec3 axis = hasAxis ? Vec3(1.6 * len * (r * g.axes.col(2)).normalized()) : Vec3::Zero();
    put(v, 8 * j + 6, p - axis);
    put(v, 8 * j + 7, p + axis);
  }
  touch(jointGeom_, jointVerts_);
}

// A cross along the body axes and a point at each centre of mass.
void OverlayLayers::updateCenters(const Poses& poses) {
  osg::Vec3Array& v = *comVerts_;
  const size_t nb = std::min(poses.size(), system_->bodies.size());
  const double half = 0.5 * scale_;
  for (size_t i = 0; i < nb; ++i) {
    const Mat3 r = rotationOf(poses[i].q);
    for (int a = 0; a < 3; ++a) {
      put(v, 6 * i + 2 * a, poses[i].x - half * r.col(a));
      put(v, 6 * i + 2 * a + 1, poses[i].x + half * r.col(a));
    }
    put(v, 6 * system_->bodies.size() + i, poses[i].x);
  }
  touch(comGeom_, comVerts_);
}

// Contact points, and arrows of 0.01 m/N clamped to 0.5 m with a head of two strokes.
void OverlayLayers::updateContacts(const std::vector<ContactDraw>& contacts) {
  const size_t n = contacts.size();
  contactPointVerts_->resize(n);
  contactForceVerts_->resize(6 * n);
  for (size_t i = 0; i < n; ++i) {
    const ContactDraw& c = contacts[i];
    put(*contactPointVerts_, i, c.point);
    const double f = c.force.norm();
    const Vec3 dir = f > 1e-12 ? Vec3(c.force / f) : Vec3::UnitZ();
    const Vec3 tip = c.point + std::min(f * kMetresPerNewton, kMaxArrow) * dir;
    const Vec3 side = dir.unitOrthogonal();
    const double head = 0.25 * std::min(f * kMetresPerNewton, kMaxArrow);
    const Vec3 back = tip - head * dir;
    const Vec3 ends[6] = {c.point, tip, tip, back + 0.5 * head * side, tip, back - 0.5 * head * side};
    for (int k = 0; k < 6; ++k) put(*contactForceVerts_, 6 * i + k, ends[k]);
  }
  contactPointPrims_->setCount(GLsizei(n));
  contactForcePrims_->setCount(GLsizei(6 * n));
  touch(contactPointGeom_, contactPointVerts_);
  touch(contactForceGeom_, contactForceVerts_);
}

// Ring buffer write: slot `head` and its mirror, then the strip covers the newest `count` points.
void OverlayLayers::recordTrails(const Poses& poses) {
  if (!on_[Trails] || !system_) return;
  const size_t nb = std::min(poses.size(), trails_.size());
  for (size_t i = 0; i < nb; ++i) {
    Trail& t = trails_[i];
    t.head = (t.head + 1) % kTrailLength;
    put(*t.vertices, size_t(t.head), poses[i].x);
    put(*t.vertices, size_t(t.head + kTrailLength), poses[i].x);
    t.count = std::min(t.count + 1, kTrailLength);
    t.strip->setFirst((t.head - t.count + 1 + kTrailLength) % kTrailLength);
    t.strip->setCount(t.count);
    touch(t.geometry, t.vertices);
  }
}

// Empties every trail, allocating the per-body strips the first time the layer is on.
void OverlayLayers::clearTrails() {
  const size_t nb = system_ ? system_->bodies.size() : 0;
  if (on_[Trails] && trails_.size() != nb) {
    trailGroup_->removeChildren(0, trailGroup_->getNumChildren());
    trails_.assign(nb, Trail());
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    for (size_t i = 0; i < nb; ++i) {
      Trail& t = trails_[i];
      t.vertices = new osg::Vec3Array(2 * kTrailLength);
      osg::Vec4 c = i < bodyColors_.size() ? bodyColors_[i] : osg::Vec4(0.8f, 0.8f, 0.8f, 1);
      c.a() = 0.75f;
      t.geometry = makeDynamicGeometry(t.vertices, singleColor(c), osg::Array::BIND_OVERALL);
      t.strip = new osg::DrawArrays(GL_LINE_STRIP, 0, 0);
      t.geometry->addPrimitiveSet(t.strip);
      geode->addDrawable(t.geometry);
    }
    trailGroup_->addChild(geode);
  }
  for (Trail& t : trails_) {
    t.head = -1;
    t.count = 0;
    t.strip->setCount(0);
  }
}

void OverlayLayers::setSpring(bool active, const Vec3& from, const Vec3& to) {
  spring_->setNodeMask(active ? kDrawOnlyMask : 0);
  if (!active) return;
  put(*springVerts_, 0, from);
  put(*springVerts_, 1, to);
  touch(springGeom_, springVerts_);
  const double r = 0.15 * scale_;
  springTip_->setMatrix(osg::Matrixd::scale(r, r, r) * osg::Matrixd::translate(toOsg(to)));
}

}  // namespace ms::ui::viewport
