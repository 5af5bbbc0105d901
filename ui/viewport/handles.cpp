// SPDX-License-Identifier: GPL-3.0-or-later
// HandleLayer (handles.h): arrows and rings rebuilt each frame at a constant screen size, picked by
// their screen distance to the mouse; dragParameter, the closest approach of the mouse ray.
#include "viewport/handles.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <osg/Geode>

#include "viewport/scene_nodes.h"

namespace ms::ui::viewport {

namespace {

const osg::Vec4 kAxisColors[] = {{0.95f, 0.25f, 0.25f, 1}, {0.30f, 0.85f, 0.30f, 1}, {0.30f, 0.50f, 1.0f, 1}};
const osg::Vec4 kHot(1.0f, 0.85f, 0.1f, 1);
const osg::Vec4 kRange(1.0f, 0.55f, 0.15f, 1);  // a joint's range: an arc or a segment
constexpr double kRangeRing = 0.8;               // the arc's radius, of the ring's
constexpr double kRangeOffset = 6;               // a segment beside its arrow [px]
constexpr int kRingSegments = 64;
constexpr int kTipSegments = 10;
constexpr double kTipLength = 0.22, kTipRadius = 0.07;  // of the arrow's length
constexpr float kHandleWidth = 3.0f;

inline osg::Vec3 v3(const Vec3& p) { return osg::Vec3(float(p.x()), float(p.y()), float(p.z())); }

// Two unit vectors completing unit `d` to a right-handed frame.
void perpendiculars(const Vec3& d, Vec3& u, Vec3& w) {
  u = (std::abs(d.z()) < 0.9 ? d.cross(Vec3::UnitZ()) : d.cross(Vec3::UnitX())).normalized();
  w = d.cross(u);
}

// Screen distance from p to segment ab.
double segmentDistance(const QPointF& p, const QPointF& a, const QPointF& b) {
  const double dx = b.x() - a.x(), dy = b.y() - a.y(), len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((p.x() - a.x()) * dx + (p.y() - a.y()) * dy) / len2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(p.x() - (a.x() + t * dx), p.y() - (a.y() + t * dy));
}

}  // namespace

Vec3 ringReference(const DragHandle& h) {
  Vec3 u, w;
  perpendiculars(h.direction, u, w);
  return u;
}

bool dragParameter(const DragHandle& h, const Vec3& reference, const Vec3& o, const Vec3& r, double& value) {
  const Vec3& d = h.direction;
  if (!h.rotate) {
    // Closest approach of the lines h.origin + s·d and o + t·r (|d| = 1).
    const Vec3 w0 = h.origin - o;
    const double b = d.dot(r), c = r.dot(r), dd = d.dot(w0), e = r.dot(w0);
    const double denom = c - b * b;
    if (!(denom > 1e-6 * c)) return false;
    value = (b * e - c * dd) / denom;
    return std::isfinite(value);
  }
  // Where the ray meets the ring's plane, as an angle about d from the reference.
  const double along = r.dot(d);
  if (!(std::abs(along) > 1e-3 * r.norm())) return false;
  const double t = (h.origin - o).dot(d) / along;
  if (!(t > 0)) return false;
  Vec3 p = o + t * r - h.origin;
  p -= p.dot(d) * d;
  if (!(p.norm() > 0)) return false;
  value = std::atan2(d.dot(reference.cross(p)), reference.dot(p));
  return std::isfinite(value);
}

HandleLayer::HandleLayer() {
  root_ = new osg::Group;
  root_->setNodeMask(kDrawOnlyMask);
  setOverlayState(root_->getOrCreateStateSet(), kHandleWidth, 1.0f);
  // After every other overlay (bin 100): the handles are drawn on top of everything.
  root_->getOrCreateStateSet()->setRenderBinDetails(120, "RenderBin");
  root_->getOrCreateStateSet()->setMode(GL_LINE_SMOOTH, osg::StateAttribute::OFF);
  lineVerts_ = new osg::Vec3Array;
  lineColors_ = new osg::Vec4Array;
  lines_ = makeDynamicGeometry(lineVerts_, lineColors_, osg::Array::BIND_PER_VERTEX);
  lines_->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 0));
  tipVerts_ = new osg::Vec3Array;
  tipColors_ = new osg::Vec4Array;
  tips_ = makeDynamicGeometry(tipVerts_, tipColors_, osg::Array::BIND_PER_VERTEX);
  tips_->addPrimitiveSet(new osg::DrawArrays(GL_TRIANGLES, 0, 0));
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(lines_);
  geode->addDrawable(tips_);
  root_->addChild(geode);
}

void HandleLayer::set(const std::vector<DragHandle>& handles) {
  handles_ = handles;
  ++generation_;
  outlines_.assign(handles_.size(), {});
  offset_.setZero();
  pivot_.setZero();
  turn_.setIdentity();
}

void HandleLayer::setPreviewOffset(const Vec3& translation, const Mat3& rotation, const Vec3& pivot) {
  offset_ = translation;
  turn_ = rotation;
  pivot_ = pivot;
  ++generation_;
}

void HandleLayer::update(const std::function<double(const Vec3&)>& worldPerPixel, int hot) {
  lineVerts_->clear();
  lineColors_->clear();
  tipVerts_->clear();
  tipColors_->clear();
  for (size_t i = 0; i < handles_.size(); ++i) {
    // The handle where the preview has moved it.
    const Vec3 o = pivot_ + turn_ * (handles_[i].origin - pivot_) + offset_;
    const Vec3 d = (turn_ * handles_[i].direction).normalized();
    int axis = 0;
    d.cwiseAbs().maxCoeff(&axis);
    const osg::Vec4 color = int(i) == hot ? kHot : kAxisColors[axis];
    const double s = worldPerPixel(o);
    Vec3 u, w;
    perpendiculars(d, u, w);
    std::vector<Vec3>& outline = outlines_[i];
    outline.clear();
    if (handles_[i].rotate) {
      const double radius = kRingPixels * s;
      for (int k = 0; k <= kRingSegments; ++k) {
        const double a = 2 * M_PI * k / kRingSegments;
        outline.push_back(o + radius * (std::cos(a) * u + std::sin(a) * w));
      }
      for (int k = 0; k < kRingSegments; ++k) {
        lineVerts_->push_back(v3(outline[size_t(k)]));
        lineVerts_->push_back(v3(outline[size_t(k) + 1]));
      }
      lineColors_->resize(lineVerts_->size(), color);
      continue;
    }
    // An arrow: the shaft, then a cone at its end.
    const double length = kArrowPixels * s;
    const Vec3 tip = o + length * d, base = o + (1 - kTipLength) * length * d;
    outline = {o, tip};
    lineVerts_->push_back(v3(o));
    lineVerts_->push_back(v3(base));
    lineColors_->resize(lineVerts_->size(), color);
    const double radius = kTipRadius * length;
    for (int k = 0; k < kTipSegments; ++k) {
      const double a0 = 2 * M_PI * k / kTipSegments, a1 = 2 * M_PI * (k + 1) / kTipSegments;
      tipVerts_->push_back(v3(tip));
      tipVerts_->push_back(v3(base + radius * (std::cos(a0) * u + std::sin(a0) * w)));
      tipVerts_->push_back(v3(base + radius * (std::cos(a1) * u + std::sin(a1) * w)));
    }
    tipColors_->resize(tipVerts_->size(), color);
  }
  // The joints' ranges (fixed to the parent: drawn where the drag started), ends marked by ticks.
  for (const DragHandle& h : handles_) {
    if (!std::isfinite(h.lower) || !std::isfinite(h.upper) || !std::isfinite(h.value)) continue;
    const double s = worldPerPixel(h.origin);
    if (h.rotate && h.reference.norm() > 0) {
      const Vec3 u = h.reference, w = h.direction.cross(u);
      const double radius = kRangeRing * kRingPixels * s, a0 = h.lower - h.value, a1 = h.upper - h.value;
      const int n = std::clamp(int(std::abs(a1 - a0) / (2 * M_PI) * kRingSegments) + 1, 1, 4 * kRingSegments);
      const auto at = [&](double a, double r) { return h.origin + r * (std::cos(a) * u + std::sin(a) * w); };
      for (int k = 0; k < n; ++k) {
        lineVerts_->push_back(v3(at(a0 + (a1 - a0) * k / n, radius)));
        lineVerts_->push_back(v3(at(a0 + (a1 - a0) * (k + 1) / n, radius)));
      }
      for (double a : {a0, a1}) {
        lineVerts_->push_back(v3(at(a, 0.85 * radius)));
        lineVerts_->push_back(v3(at(a, 1.15 * radius)));
      }
    } else if (!h.rotate) {
      Vec3 u, w;
      perpendiculars(h.direction, u, w);
      const Vec3 beside = h.origin + kRangeOffset * s * u;
      const Vec3 lo = beside + (h.lower - h.value) * h.direction, hi = beside + (h.upper - h.value) * h.direction;
      lineVerts_->push_back(v3(lo));
      lineVerts_->push_back(v3(hi));
      for (const Vec3& e : {lo, hi}) {
        lineVerts_->push_back(v3(e - 3 * s * u));
        lineVerts_->push_back(v3(e + 3 * s * u));
      }
    }
    lineColors_->resize(lineVerts_->size(), kRange);
  }
  static_cast<osg::DrawArrays*>(lines_->getPrimitiveSet(0))->setCount(GLsizei(lineVerts_->size()));
  static_cast<osg::DrawArrays*>(tips_->getPrimitiveSet(0))->setCount(GLsizei(tipVerts_->size()));
  for (osg::Array* a : {static_cast<osg::Array*>(lineVerts_.get()), static_cast<osg::Array*>(lineColors_.get()),
                        static_cast<osg::Array*>(tipVerts_.get()), static_cast<osg::Array*>(tipColors_.get())})
    a->dirty();
  lines_->dirtyBound();
  tips_->dirtyBound();
}

int HandleLayer::pick(const Projector& project, const QPointF& pos) const {
  int best = -1;
  double nearest = kPickPixels;
  for (size_t i = 0; i < outlines_.size(); ++i) {
    if (i < handles_.size() && handles_[i].shown) continue;  // drawn only
    const std::vector<Vec3>& line = outlines_[i];
    QPointF a, b;
    for (size_t k = 0; k + 1 < line.size(); ++k) {
      if (!project(line[k], a) || !project(line[k + 1], b)) continue;
      const double dist = segmentDistance(pos, a, b);
      if (dist <= nearest) nearest = dist, best = int(i);
    }
  }
  return best;
}

}  // namespace ms::ui::viewport
