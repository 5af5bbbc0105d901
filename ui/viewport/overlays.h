// SPDX-License-Identifier: GPL-3.0-or-later
// The viewport's optional overlays as OSG geometry whose vertex arrays are rewritten in place:
// joint frames and axes, centres of mass, contact points and force arrows, centre-of-mass trails,
// the mechanism's links (skeleton through the joints) and the Ctrl+drag perturbation spring.
// A layer that is off is masked out and never updated.
#pragma once

#include <utility>
#include <vector>

#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Group>
#include <osg/MatrixTransform>

#include "sim/sim_types.h"
#include "system/compiled_system.h"
#include "system/state.h"

namespace ms::ui::viewport {

using Poses = std::vector<BodyState, Eigen::aligned_allocator<BodyState>>;

// Bodies welded to the world (fixed joints, directly or through other welded bodies): they never
// move, so the view treats them as ground and their joints to moving bodies as pivots.
std::vector<char> groundedBodies(const CompiledSystem& system);

class OverlayLayers {
 public:
  enum Layer { JointFrames, ContactPoints, ContactForces, CentersOfMass, Trails, Links, NumLayers };
  static constexpr int kTrailLength = 1000;  // centre-of-mass positions kept per body
  // Force arrows: 0.01 m per newton, at most 0.5 m.
  static constexpr double kMetresPerNewton = 0.01, kMaxArrow = 0.5;

  OverlayLayers();
  osg::Group* root() const { return root_.get(); }

  // Sizes the geometry for `system` (null: none); `scale` is the length of a joint triad (m).
  void setModel(const CompiledSystem* system, const std::vector<osg::Vec4>& bodyColors, double scale);
  void setEnabled(Layer layer, bool on);
  bool enabled(Layer layer) const { return on_[layer]; }

  // Rewrites the vertices of the enabled layers (trails excepted) for the given poses and contacts.
  void update(const Poses& poses, const std::vector<ContactDraw>& contacts);
  // Appends every body's centre of mass to its trail (only while Trails is enabled).
  void recordTrails(const Poses& poses);
  void clearTrails();
  // The contacts as last written (Contact points or forces on): each point and the tip of its force
  // arrow, read back from the vertex arrays (world).
  std::vector<std::pair<Vec3, Vec3>> drawnContacts() const;
  // Shows the perturbation spring from `from` (attachment point) to `to` (target), or hides it.
  void setSpring(bool active, const Vec3& from, const Vec3& to);

 private:
  // One body's trail: positions stored twice (i and i + kTrailLength) so the newest kTrailLength
  // form one contiguous LINE_STRIP range whatever the ring position.
  struct Trail {
    osg::ref_ptr<osg::Geometry> geometry;
    osg::ref_ptr<osg::Vec3Array> vertices;
    osg::ref_ptr<osg::DrawArrays> strip;
    int head = -1, count = 0;
  };

  void updateJointFrames(const Poses& poses);
  void updateCenters(const Poses& poses);
  void updateContacts(const std::vector<ContactDraw>& contacts);
  void updateLinks(const Poses& poses);

  osg::ref_ptr<osg::Group> root_;
  osg::ref_ptr<osg::Node> layers_[NumLayers];
  bool on_[NumLayers] = {};
  const CompiledSystem* system_ = nullptr;
  double scale_ = 0.1;

  osg::ref_ptr<osg::Geometry> jointGeom_, comGeom_, contactPointGeom_, contactForceGeom_;
  osg::ref_ptr<osg::Vec3Array> jointVerts_, comVerts_, contactPointVerts_, contactForceVerts_;
  osg::ref_ptr<osg::DrawArrays> comLines_, comPoints_, contactPointPrims_, contactForcePrims_;
  // Links: segments (centre of mass → joint point, anchor → slider point, joint point → centre of
  // mass) and one marker per joint, pivots (joints on the ground) first so a ring can mark them.
  osg::ref_ptr<osg::Geometry> linkGeom_, markerGeom_, pivotHaloGeom_;
  osg::ref_ptr<osg::Vec3Array> linkVerts_, markerVerts_;
  osg::ref_ptr<osg::DrawArrays> linkLines_, markerPoints_, pivotHaloPoints_;
  std::vector<int> markerSlot_;  // marker index of each joint
  osg::ref_ptr<osg::Group> trailGroup_;
  std::vector<Trail> trails_;
  std::vector<osg::Vec4> bodyColors_;

  osg::ref_ptr<osg::Geode> spring_;
  osg::ref_ptr<osg::Vec3Array> springVerts_;
  osg::ref_ptr<osg::Geometry> springGeom_;
  osg::ref_ptr<osg::MatrixTransform> springTip_;
};

}  // namespace ms::ui::viewport
