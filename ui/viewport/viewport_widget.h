// SPDX-License-Identifier: GPL-3.0-or-later
// The 3D view: OpenSceneGraph (GraphicsWindowEmbedded, single-threaded viewer) drawn offscreen into
// a framebuffer object of the widget's own GL context, read back and painted as an image, so the
// window stays a raster window (viewport/offscreen_gl.h says why). Draws the bodies of a compiled mechanism from their visual shapes at the poses
// of the latest snapshot, a ground grid, the mechanism's links and optional overlays, and turns
// mouse input into camera motion, body selection and Ctrl+drag perturbation springs. The parts:
// viewport_widget.cpp (this API, mouse and keys), viewport_scene.cpp (the OSG scene), camera_controller.h
// (orbit, pan, zoom, fit, presets, follow), picking.h (ray picking, the Ctrl+drag target), framing.h
// (the region a fit keeps in view).
#pragma once

#include <memory>
#include <vector>

#include <QImage>
#include <QPointF>
#include <QWidget>
#include <QString>

#include "io/mech_drag.h"
#include "sim/sim_types.h"
#include "viewport/camera_controller.h"

namespace ms::ui {

namespace viewport {
class OffscreenGl;
}  // namespace viewport

class ViewportWidget : public QWidget {
  Q_OBJECT
 public:
  // Links (on by default): segments from each joint to the centres of mass of its two bodies and a
  // dot per joint (dark in a ring for pivots on the world), so massless rods are seen.
  // Contact points and forces: every loaded contact, with the ground and between bodies; a force
  // arrow (0.01 m/N, at most 0.5 m) starts at the contact point on the body it acts on (body B of a
  // contact pair, whose reaction on A is not drawn). CollisionShapes (off by default): every body's
  // collision shapes and the grounds, translucent green with their edges, over the visual shapes.
  // New overlays are appended: the View menu keeps their on/off state under their number.
  enum class Overlay { JointFrames, ContactPoints, ContactForces, CentersOfMass, Trails, Grid, Links, CollisionShapes };
  // The orbit camera (eye/centre/up) and its presets: viewport/camera_controller.h.
  using ViewPreset = viewport::ViewPreset;
  using Camera = viewport::Camera;

  explicit ViewportWidget(QWidget* parent = nullptr);
  ~ViewportWidget() override;

  // Builds the scene graph for `system` (null clears it). Mesh file names are resolved against
  // `modelDir`. With keepCamera the camera stays where it is (reload); otherwise fit-to-model.
  void setModel(std::shared_ptr<const CompiledSystem> system, const QString& modelDir, bool keepCamera);
  // What a fit frames from the next setModel on: the reach of a mechanism about its pivots (its
  // whole motion; the default, for mechanisms built here) or, with reach false, the model where it
  // is (imported robots, as MuJoCo frames them; framing.h).
  void setFitReach(bool reach);
  // Moves the bodies to the snapshot's poses, updates overlays and trails, schedules a repaint.
  // In a comparison (snapshot.copies) every copy but the reference is drawn as a ghost: the same
  // shapes at that copy's poses, translucent and tinted with its colour (blending, no depth
  // writes, transparent bin), with its links as tinted rods; a copy that stopped is hidden.
  void setSnapshot(const Snapshot& snapshot);
  // Overlay: the ghosts where their copies are. Side by side: copy k drawn k offsets over along the
  // world axis (x or y) nearest the camera's right, the view framed to hold them all.
  enum class CompareLayout { Overlay, SideBySide };
  void setCompareLayout(CompareLayout layout);
  CompareLayout compareLayout() const;
  Vec3 ghostOffset(int copy) const;  // world translation of copy k's drawing (zero when overlaid)
  // Ghosts on/off (View ▸ Ghosts); on by default.
  void setGhostsEnabled(bool on);
  bool ghostsEnabled() const;
  // Ghost sets built for the last snapshot (copies − 1) and whether copy k's (k ≥ 1) is drawn.
  int ghostCount() const;
  bool ghostVisible(int copy) const;

  void setOverlay(Overlay overlay, bool on);
  bool overlay(Overlay overlay) const;
  void clearTrails();
  // The contacts the overlay draws (Contact points or Contact forces on): each point and the tip of
  // its force arrow, as written into its geometry at the last snapshot.
  struct DrawnContact {
    Vec3 point = Vec3::Zero(), tip = Vec3::Zero();
  };
  std::vector<DrawnContact> drawnContacts() const;
  // Triangles of a body's collision shapes in the collision layer (built with the model, drawn while
  // the CollisionShapes overlay is on); 0 for a body without collision shapes.
  int collisionTriangles(int body) const;
  // Triangles of the grounds drawn in the ordinary view (those the grid does not show: a ramp, a
  // wall; buildGroundSurfaces), and whether that layer is drawn.
  int groundSurfaceTriangles() const;

  void setViewPreset(ViewPreset preset);
  // Frames the model from the current view direction. Until the camera is moved otherwise, the view
  // is framed again whenever the widget is resized.
  void fitToModel();
  Camera camera() const;
  // Also replaces the fit a newly set model gets with its first poses.
  void setCamera(const Camera& camera);
  // Where a world point appears in the widget (logical pixels, origin top left); false if it is
  // behind the camera.
  bool worldToWidget(const Vec3& point, QPointF& widgetPos) const;

  int selectedBody() const;
  void setSelectedBody(int body);  // -1: none; highlights it
  // The camera follows a body (keeps its offset from it as it moves; orbit and zoom still work);
  // -1: fixed camera. Cleared when another model is loaded.
  void setFollowBody(int body);
  int followBody() const;
  // Half the side of the ground grid (m): it reaches past the model and grows as bodies move away.
  double gridHalfExtent() const;

  // Move and rotate handles of the selected body (issue 34; io/mech_drag.h, viewport/handles.h):
  // the set along its joint drawn, the anchor's instead while Shift is held, the body's on its joint
  // while Ctrl is (the Resize tool: the size handles); a set without handles draws nothing. A left
  // drag on one previews the motion (its `moving` bodies move rigidly, the amount is written beside
  // the mouse; Esc cancels) and on release emits handleDragged. clearHandles() removes them (the
  // model or the selection changed, or the view does not show the model's initial state).
  void setHandles(const DragHandleSets& sets);
  void clearHandles();
  const DragHandles& handles(DragMode mode) const;
  // Where the fraction t ∈ [0, 1] along handle i's drawing (of the set of `mode`, shown as its
  // modifier would) appears in the widget (and in the world: `world`); false when it is not drawn or
  // behind the camera.
  bool handlePoint(DragMode mode, int handle, double t, QPointF& widgetPos, Vec3* world = nullptr);
  // Building tools (issue 34): Select (clicks select, the default); Resize (clicks select; the
  // selected body's first shape shows size handles instead of the move handles); Axis (clicks select;
  // the selected body's joint shows two rings that tilt its axis); Add (a click on a body or the
  // ground asks for a new body there: addRequested); Connect (a click on one body or the ground,
  // then on another body, asks for a joint between the points: connectRequested; Esc starts over).
  // Tools act only while handles may be shown (setBuildingAllowed).
  enum class Tool { Select, Resize, Axis, Add, Connect };
  void setTool(Tool tool);
  Tool tool() const;
  // Whether the view holds an editable model's initial state (the tools edit it); off, a click with
  // a tool says why (buildingRefused).
  void setBuildingAllowed(bool allowed, const QString& why = QString());
  // The first point of a Connect gesture (body −1: the ground), if one is picked.
  bool connectFirst(int& body, Vec3& point) const;

  // Angles of the drag readout in degrees (default radians), as the unit setting says.
  void setAngleDegrees(bool on);
  // Snapping of handle drags (on by default; the S key toggles it and emits snappingToggled): the
  // written value lands on a multiple of `gridStep` (m, arrows) or `angleStep` (rad, rings); a drag
  // that changes several numbers at once (a rotation vector) moves by multiples of the step.
  void setSnapping(bool on, double gridStep, double angleStep);
  bool snapping() const;

  // The current frame as an image (renders first).
  QImage renderToImage();
  // Frames drawn since construction (for measuring the frame rate).
  long framesRendered() const;

 signals:
  void bodySelected(int body);  // click on a body (-1: clicked empty space)
  // Right click without drag on a body (-1: empty space), at a global screen position.
  void bodyContextMenuRequested(int body, const QPoint& globalPos);
  // Ctrl+drag on a body: active while the button is held, target follows the mouse on the plane
  // through the grab point facing the camera; inactive when released.
  void perturbationChanged(const ms::ui::Perturbation& perturbation);
  // A handle drag ended: handle `handle` of `handles` moved by `amount` (m along an arrow, rad about
  // a ring). The receiver edits the text (io/mech_drag.h dragEdit); the preview is undone.
  void handleDragged(const ms::DragHandles& handles, int handle, double amount);
  // The S key turned snapping on or off.
  void snappingToggled(bool on);
  // Add: a new body at world point `point` with outward normal `normal`, on body `body` (−1: the ground).
  void addRequested(int body, const ms::Vec3& point, const ms::Vec3& normal);
  // Connect: a joint between body `a` (−1: the ground) at `pointA`, whose surface normal there is
  // `normalA` (the joint's axis), and body `b` at `pointB`.
  void connectRequested(int a, const ms::Vec3& pointA, const ms::Vec3& normalA, int b, const ms::Vec3& pointB);
  // What a tool's click did or why it did nothing (a status line).
  void buildingMessage(const QString& text);
  // Delete (the Delete key) or Ctrl+D on the selected body.
  void deleteRequested(int body);
  void duplicateRequested(int body);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void keyReleaseEvent(QKeyEvent* e) override;

 private:
  // Draws one OSG frame offscreen into frame_ (the GL context made current first).
  void renderFrame();
  // The amount of a handle drag, written beside the mouse over the frame (viewport_handles.cpp).
  void paintHandleReadout(class QPainter& p);
  // The first point of a Connect gesture, marked over the frame (viewport_tools.cpp).
  void paintToolMarker(class QPainter& p);

  struct Impl;
  std::unique_ptr<viewport::OffscreenGl> gl_;  // declared first: outlives the scene's GL objects
  std::unique_ptr<Impl> d_;
  QImage frame_;  // the last frame drawn (device pixels)
};

}  // namespace ms::ui
