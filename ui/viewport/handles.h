// SPDX-License-Identifier: GPL-3.0-or-later
// The move and rotate handles of the selected body in the 3D view (issue 34): what io/mech_drag.h
// says a drag may change, drawn over the scene — an arrow per translation, a ring per rotation,
// coloured by the world axis they are nearest (x red, y green, z blue), the one under the mouse or
// being dragged yellow — at a constant size on screen, with a joint's range (written stops) as an
// orange arc inside its ring or a segment beside its arrow. Apart from drawing: which handle a widget
// position is on (screen distance to its drawn polyline) and how far a mouse ray has dragged it.
#pragma once

#include <functional>
#include <vector>

#include <QPointF>
#include <osg/Geometry>
#include <osg/Group>

#include "io/mech_drag.h"

namespace ms::ui::viewport {

// World position → widget position (logical pixels); false when behind the camera.
using Projector = std::function<bool(const Vec3&, QPointF&)>;

// The drag parameter of handle `h` for the mouse ray (o, r): along an arrow, the distance along its
// direction of the ray's closest approach to its line; about a ring, the angle (right-handed about
// its direction) of the point where the ray meets the ring's plane, from `reference` (a unit vector
// in that plane). False when the ray is (nearly) parallel to the arrow or to the ring's plane.
bool dragParameter(const DragHandle& h, const Vec3& reference, const Vec3& o, const Vec3& r, double& value);
// A unit vector in the plane of a ring (perpendicular to its direction) to measure angles from.
Vec3 ringReference(const DragHandle& h);

class HandleLayer {
 public:
  static constexpr double kArrowPixels = 90;   // arrow length on screen
  static constexpr double kRingPixels = 70;    // ring radius on screen
  static constexpr double kPickPixels = 8;     // how near the mouse must be to a handle

  HandleLayer();
  osg::Node* root() const { return root_.get(); }

  // The handles drawn (empty: none).
  void set(const std::vector<DragHandle>& handles);
  const std::vector<DragHandle>& handles() const { return handles_; }
  // Counts set() and setPreviewOffset() calls (a drawing built before is out of date).
  long generation() const { return generation_; }
  // Moves the handles by a rigid motion while a drag previews it (origin offset, rotation about the
  // dragged ring), or back (identity).
  void setPreviewOffset(const Vec3& translation, const Mat3& rotation, const Vec3& pivot);
  // Rebuilds the drawing for the current camera: `worldPerPixel` at a handle's origin gives its
  // size; `hot` is drawn highlighted (-1: none).
  void update(const std::function<double(const Vec3&)>& worldPerPixel, int hot);
  // The handle whose drawing passes within kPickPixels of `pos` (-1: none), nearest first.
  int pick(const Projector& project, const QPointF& pos) const;
  // The world points of handle i's drawing as last built (a polyline; an arrow's shaft and tip).
  const std::vector<Vec3>& outline(int i) const { return outlines_[size_t(i)]; }

 private:
  osg::ref_ptr<osg::Group> root_;
  osg::ref_ptr<osg::Geometry> lines_, tips_;
  osg::ref_ptr<osg::Vec3Array> lineVerts_, tipVerts_;
  osg::ref_ptr<osg::Vec4Array> lineColors_, tipColors_;
  std::vector<DragHandle> handles_;
  std::vector<std::vector<Vec3>> outlines_;
  Vec3 offset_ = Vec3::Zero(), pivot_ = Vec3::Zero();
  Mat3 turn_ = Mat3::Identity();
  long generation_ = 0;
};

}  // namespace ms::ui::viewport
