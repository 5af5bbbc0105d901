// SPDX-License-Identifier: GPL-3.0-or-later
// Overlay geometry of the 3D view: fixed-size vertex arrays per model (joint triads and axes,
// centre-of-mass crosses, link segments and joint markers), arrays resized in place for contacts
// (capacity is kept), ring-buffered trails and the perturbation spring. Vertices are written in
// world coordinates.
#include "viewport/overlays.h"

#include <algorithm>

#include <osg/Depth>
#include <osg/LineWidth>
#include <osg/Point>
#include <osg/ShapeDrawable>

#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

namespace {

// Overlay colours.
const osg::Vec4 kRed(0.95f, 0.25f, 0.25f, 1), kGreen(0.30f, 0.90f, 0.30f, 1), kBlue(0.30f, 0.50f, 1.0f, 1);
const osg::Vec4 kAxis(0.2f, 0.9f, 1.0f, 1), kCom(1.0f, 0.85f, 0.1f, 1);
const osg::Vec4 kContact(1.0f, 0.2f, 0.2f, 1), kForce(1.0f, 0.6f, 0.1f, 1), kSpring(1.0f, 1.0f, 1.0f, 1);
constexpr double kMetresPerNewton = OverlayLayers::kMetresPerNewton, kMaxArrow = OverlayLayers::kMaxArrow;
// Links: light grey-beige rods, joint dots a shade lighter, pivots dark inside a beige ring.
const osg::Vec4 kLink(0.78f, 0.74f, 0.64f, 1), kJointDot(0.93f, 0.89f, 0.80f, 1), kPivotDot(0.20f, 0.18f, 0.16f, 1);
constexpr float kLinkWidth = 3.0f, kJointDotSize = 6.0f, kPivotRingSize = 12.0f;

// Which link segments a joint has; fixed by its geometry, so the vertex count is fixed per model.
struct LinkSegments {
  bool fromParent, slide, toChild;
};
LinkSegments linkSegmentsOf(const JointGeometry& g) {
  // A joint point at a body's centre of mass needs no segment; a sliding joint shows its travel.
  return {g.parent >= 0 && g.pa.norm() > 1e-9, g.fT > 0, g.child >= 0 && g.pb.norm() > 1e-9};
}

// A body-frame point in world coordinates (the world's frame for body -1).
inline Vec3 pointOn(const Poses& poses, int body, const Vec3& p) {
  if (body < 0 || size_t(body) >= poses.size()) return p;
  const BodyState& b = poses[size_t(body)];
  return b.x + rotationOf(b.q) * p;
}

// A body's centre of mass (the point itself for the world or a missing pose).
inline Vec3 centerOf(const Poses& poses, int body, const Vec3& fallback) {
  return body >= 0 && size_t(body) < poses.size() ? poses[size_t(body)].x : fallback;
}

// State of the links' drawables in stage-level bin `bin`. Rods are depth-tested and drawn right
// after the opaque bodies (before the translucent grid), so bodies hide the rods inside them; joint
// markers are drawn over the bodies and the grid (a pivot at a rod's end would otherwise be half
// hidden) but under the other overlays (bin 100), which the user asked for.
void setLinkState(osg::StateSet* ss, int bin, bool depthTested) {
  if (depthTested) {
    ss->setMode(GL_DEPTH_TEST, osg::StateAttribute::ON);
    ss->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, true));
  }
  ss->setRenderBinDetails(bin, "RenderBin");
  ss->setNestRenderBins(false);
}

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

// How much of a contact's colour shows where a body hides it.
constexpr float kHiddenAlpha = 0.15f;

// A layer drawing `g` depth-tested (a contact on a body's surface biased towards the camera, so the
// surface it lies on does not hide it) after a faint copy of it (the same vertices and primitives)
// drawn over everything: the parts a body hides stay visible, dimmed.
osg::ref_ptr<osg::Geode> withHidden(osg::Geometry* g, osg::Vec3Array* verts, osg::DrawArrays* prims, const osg::Vec4& color) {
  osg::ref_ptr<osg::Geode> geode = layerOf(g);
  osg::ref_ptr<osg::Geometry> faint =
      makeDynamicGeometry(verts, singleColor(osg::Vec4(color.r(), color.g(), color.b(), kHiddenAlpha)), osg::Array::BIND_OVERALL);
  faint->addPrimitiveSet(prims);
  geode->addDrawable(faint);
  osg::StateSet* ss = g->getOrCreateStateSet();
  ss->setMode(GL_DEPTH_TEST, osg::StateAttribute::ON);
  ss->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 0.99996, false));  // ~3 cm nearer at 3 m
  ss->setRenderBinDetails(101, "RenderBin");
  faint->getOrCreateStateSet()->setRenderBinDetails(100, "RenderBin");
  return geode;
}

}  // namespace

// Breadth first from the world over joints without free coordinates.
std::vector<char> groundedBodies(const CompiledSystem& system) {
  const size_t nb = system.bodies.size();
  std::vector<char> grounded(nb, 0);
  std::vector<int> frontier;
  const auto weld = [](const JointGeometry& g) { return g.fT == 0 && g.fR == 0; };
  const auto visit = [&](int body) {
    if (body >= 0 && size_t(body) < nb && !grounded[size_t(body)]) {
      grounded[size_t(body)] = 1;
      frontier.push_back(body);
    }
  };
  for (const CompiledJoint& j : system.joints)
    if (weld(j.geo) && (j.geo.parent < 0 || j.geo.child < 0)) visit(j.geo.parent < 0 ? j.geo.child : j.geo.parent);
  while (!frontier.empty()) {
    const int body = frontier.back();
    frontier.pop_back();
    if (size_t(body) >= system.bodyJoints.size()) continue;
    for (int k : system.bodyJoints[size_t(body)]) {
      if (k < 0 || size_t(k) >= system.joints.size() || !weld(system.joints[size_t(k)].geo)) continue;
      const JointGeometry& g = system.joints[size_t(k)].geo;
      visit(g.parent == body ? g.child : g.parent);
    }
  }
  return grounded;
}

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

  // Contact points and force arrows (shaft + two head strokes), resized per snapshot. Each is drawn
  // twice from the same vertices (withHidden): depth-tested in its colour, and faint over
  // everything, so what a body hides is dimmed, not drawn over it.
  contactPointVerts_ = new osg::Vec3Array;
  contactPointGeom_ = makeDynamicGeometry(contactPointVerts_, singleColor(kContact), osg::Array::BIND_OVERALL);
  contactPointPrims_ = new osg::DrawArrays(GL_POINTS, 0, 0);
  contactPointGeom_->addPrimitiveSet(contactPointPrims_);
  layers_[ContactPoints] = withHidden(contactPointGeom_, contactPointVerts_, contactPointPrims_, kContact);
  contactForceVerts_ = new osg::Vec3Array;
  contactForceGeom_ = makeDynamicGeometry(contactForceVerts_, singleColor(kForce), osg::Array::BIND_OVERALL);
  contactForcePrims_ = new osg::DrawArrays(GL_LINES, 0, 0);
  contactForceGeom_->addPrimitiveSet(contactForcePrims_);
  layers_[ContactForces] = withHidden(contactForceGeom_, contactForceVerts_, contactForcePrims_, kForce);

  // Links: rods as wide lines, then the pivot rings, then the joint dots on top of them.
  linkVerts_ = new osg::Vec3Array;
  linkGeom_ = makeDynamicGeometry(linkVerts_, singleColor(kLink), osg::Array::BIND_OVERALL);
  linkLines_ = new osg::DrawArrays(GL_LINES, 0, 0);
  linkGeom_->addPrimitiveSet(linkLines_);
  setLinkState(linkGeom_->getOrCreateStateSet(), 5, true);
  linkGeom_->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(kLinkWidth));
  markerVerts_ = new osg::Vec3Array;
  pivotHaloGeom_ = makeDynamicGeometry(markerVerts_, singleColor(kLink), osg::Array::BIND_OVERALL);
  pivotHaloPoints_ = new osg::DrawArrays(GL_POINTS, 0, 0);
  pivotHaloGeom_->addPrimitiveSet(pivotHaloPoints_);
  setLinkState(pivotHaloGeom_->getOrCreateStateSet(), 90, false);
  pivotHaloGeom_->getOrCreateStateSet()->setAttributeAndModes(new osg::Point(kPivotRingSize));
  markerGeom_ = makeDynamicGeometry(markerVerts_, new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
  markerPoints_ = new osg::DrawArrays(GL_POINTS, 0, 0);
  markerGeom_->addPrimitiveSet(markerPoints_);
  setLinkState(markerGeom_->getOrCreateStateSet(), 91, false);
  markerGeom_->getOrCreateStateSet()->setAttributeAndModes(new osg::Point(kJointDotSize));
  osg::ref_ptr<osg::Geode> links = layerOf(linkGeom_);
  links->addDrawable(pivotHaloGeom_);
  links->addDrawable(markerGeom_);
  layers_[Links] = links;

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
  // The links are the only layer on by default: without them massless rods are invisible.
  setEnabled(Links, true);
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

  // Links: the segment count is fixed by the joints' geometry; markers of pivots (joints on the
  // world or on a body welded to it) come first.
  size_t nLinkVerts = 0, nPivots = 0;
  markerSlot_.assign(nj, 0);
  std::vector<char> pivot(nj, 0);
  const std::vector<char> grounded = system ? groundedBodies(*system) : std::vector<char>();
  const auto ground = [&](int body) { return body < 0 || (size_t(body) < grounded.size() && grounded[size_t(body)]); };
  for (size_t j = 0; j < nj; ++j) {
    const JointGeometry& g = system->joints[j].geo;
    const LinkSegments seg = linkSegmentsOf(g);
    nLinkVerts += 2 * (size_t(seg.fromParent) + size_t(seg.slide) + size_t(seg.toChild));
    pivot[j] = ground(g.parent) || ground(g.child);
    if (pivot[j]) markerSlot_[j] = int(nPivots++);
  }
  auto* mc = static_cast<osg::Vec4Array*>(markerGeom_->getColorArray());
  mc->assign(nj, kJointDot);
  for (size_t j = 0, next = nPivots; j < nj; ++j) {
    if (pivot[j])
      (*mc)[size_t(markerSlot_[j])] = kPivotDot;
    else
      markerSlot_[j] = int(next++);
  }
  mc->dirty();
  linkVerts_->assign(nLinkVerts, osg::Vec3());
  linkLines_->setCount(GLsizei(nLinkVerts));
  markerVerts_->assign(nj, osg::Vec3());
  markerPoints_->setCount(GLsizei(nj));
  pivotHaloPoints_->setCount(GLsizei(nPivots));
  touch(linkGeom_, linkVerts_);
  touch(markerGeom_, markerVerts_);
  pivotHaloGeom_->dirtyBound();

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
  if (on_[Links]) updateLinks(poses);
}

// Per joint: parent centre of mass → joint point on the parent, its travel to the point on the
// child (sliding joints), → child centre of mass; the marker sits on the world anchor of a pivot,
// else on the child's point.
void OverlayLayers::updateLinks(const Poses& poses) {
  osg::Vec3Array& v = *linkVerts_;
  size_t k = 0;
  for (size_t j = 0; j < system_->joints.size(); ++j) {
    const JointGeometry& g = system_->joints[j].geo;
    const LinkSegments seg = linkSegmentsOf(g);
    const Vec3 a = pointOn(poses, g.parent, g.pa), b = pointOn(poses, g.child, g.pb);
    if (seg.fromParent) {
      put(v, k++, centerOf(poses, g.parent, a));
      put(v, k++, a);
    }
    if (seg.slide) {
      put(v, k++, a);
      put(v, k++, b);
    }
    if (seg.toChild) {
      put(v, k++, b);
      put(v, k++, centerOf(poses, g.child, b));
    }
    put(*markerVerts_, size_t(markerSlot_[j]), g.parent < 0 ? a : b);
  }
  touch(linkGeom_, linkVerts_);
  touch(markerGeom_, markerVerts_);
  pivotHaloGeom_->dirtyBound();
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
  // The faint copies (withHidden) share the vertices; their bounds follow.
  for (Layer l : {ContactPoints, ContactForces})
    if (osg::Geode* geode = layers_[l]->asGeode(); geode && geode->getNumDrawables() > 1) geode->getDrawable(1)->dirtyBound();
}

std::vector<std::pair<Vec3, Vec3>> OverlayLayers::drawnContacts() const {
  std::vector<std::pair<Vec3, Vec3>> out;
  const auto vec = [](const osg::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); };
  const size_t n = std::min(size_t(contactPointPrims_->getCount()), contactPointVerts_->size());
  for (size_t i = 0; i < n && 6 * i + 1 < contactForceVerts_->size(); ++i)
    out.emplace_back(vec((*contactPointVerts_)[i]), vec((*contactForceVerts_)[6 * i + 1]));
  return out;
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
