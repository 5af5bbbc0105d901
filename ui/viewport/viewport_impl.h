// SPDX-License-Identifier: GPL-3.0-or-later
// ViewportWidget's private state (its Impl), shared by viewport_widget.cpp (the widget's API and the
// dispatch of mouse and keys) and viewport_scene.cpp (the OSG viewer and scene: bodies, grid,
// collision layer, ghosts). The camera is a CameraController (camera_controller.h), picking and the
// Ctrl+drag grab are in picking.h, the region a fit keeps in view in framing.h.
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include <QPointF>
#include <QString>
#include <osg/BoundingBox>
#include <osg/Group>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include "viewport/camera_controller.h"
#include "viewport/framing.h"
#include "viewport/handles.h"
#include "viewport/overlays.h"
#include "viewport/picking.h"
#include "viewport/scene_nodes.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

struct ViewportWidget::Impl {
  using Camera = viewport::Camera;
  using CameraController = viewport::CameraController;
  using Framing = viewport::Framing;
  using Grab = viewport::Grab;
  using Hit = viewport::Hit;
  using Poses = viewport::Poses;
  using OverlayLayers = viewport::OverlayLayers;
  using MeshCache = viewport::MeshCache;

  // One body: its pose transform (carries the body index for picking), the shapes that count for its
  // bounds (planes excluded) with their box in the body frame, and its materials (for the selection
  // highlight).
  struct Body {
    osg::ref_ptr<osg::MatrixTransform> xform;
    osg::ref_ptr<osg::Group> fit;
    osg::BoundingBox box;
    std::vector<osg::ref_ptr<osg::Material>> materials;
    osg::ref_ptr<osg::Node> collision;  // its collision shapes, a child of xform (null: none)
    osg::ref_ptr<osg::MatrixTransform> firstShape;  // its first shape's drawing (a Resize drag scales it)
  };
  // The mouse gesture between a press and the release of the same button.
  struct Gesture {
    bool active = false;
    Qt::MouseButton button = Qt::NoButton;
    QPointF start, last;
    bool dragging = false;  // moved beyond the click slop
    bool perturb = false;   // Ctrl+left: never moves the camera
    bool consumed = false;  // double-click: the release does nothing
    bool handle = false;    // a drag of a move/rotate handle (handleDrag)
  };
  // A drag of handle `handle` of the shown set: its parameter at the press and last (dragParameter),
  // the angle reference of a ring, and the amount so far (m or rad; a ring's turns accumulate).
  struct HandleDrag {
    int handle = -1;
    Vec3 reference = Vec3::UnitX();
    double start = 0, last = 0, raw = 0, amount = 0;  // amount: raw, snapped (snap())
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
  double gridHalf = 0, gridSpacing = 0, gridMinorHalf = 0;
  int selected = -1;
  CameraController camera;  // eye/centre/up, its motions, fit and follow
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
  bool fitReach = true;  // setFitReach
  Vec3 sideOffset = Vec3::Zero();
  void chooseSideOffset();
  void clearGhosts();
  void updateGhosts(const std::vector<CopyStatus>& copies);
  std::vector<CopyStatus> lastCopies;  // of the last snapshot (a layout change redraws them)
  Gesture gesture;
  Grab grab;  // the body held by Ctrl+drag
  // Move and rotate handles (setHandles): both sets, which one is shown (the anchor set while Shift
  // is held), the layer drawing it, the handle under the mouse and the drag.
  DragHandleSets handleSets;
  DragMode shownMode = DragMode::Joint;  // Joint, Anchor (Shift) or Body (Ctrl)
  bool angleDegrees = false;
  viewport::HandleLayer handleLayer;
  int hotHandle = -1;
  HandleDrag handleDrag;
  // Building tools (setTool): the tool, whether it may act (and why not), the Connect gesture's
  // first point (connectBody −2: none yet; −1: the ground).
  Tool tool = Tool::Select;
  bool buildingAllowed = false;
  QString buildingWhy;
  int connectBody = -2;
  Vec3 connectPoint = Vec3::Zero(), connectNormal = Vec3::UnitZ();
  // What a click at `pos` hits for the tools: a body, else the ground plane z = 0 (body −1); false
  // when the ray meets neither.
  bool toolPick(const QPointF& pos, Hit& hit);
  static constexpr double kAnchorSnapPixels = 10;
  bool nearestAnchor(const QPointF& pos, int body, Vec3& point) const;
  bool nearestShapePoint(const QPointF& pos, const Hit& hit, Vec3& point) const;
  static constexpr double kOnSurface = 1e-4;  // m: a corner within this of the clicked surface's plane
  bool onRodAxis(int body, Vec3& local) const;
  bool nearestShapeEdge(const QPointF& pos, const Hit& hit, double within, Vec3& point);
  bool nearestOnScreen(const QPointF& pos, const std::vector<std::pair<int, Vec3>>& points, Vec3& point) const;
  // A left click (no drag) with a building tool.
  void toolClick(const QPointF& pos);
  // Snapping of handle drags (setSnapping; S toggles it): the written value lands on a multiple of
  // the grid step (arrows) or the angle step (rings); without a single written value, the amount.
  bool snapOn = true;
  double snapGrid = 0.01, snapAngle = 5.0 * M_PI / 180.0;
  double snap(const DragHandle& h, double raw) const;
  // The set a tool shows: its own (Resize, Axis), or the modifiers' (Select).
  DragMode toolMode(DragMode modifiers) const {
    return tool == Tool::Resize ? DragMode::Resize : tool == Tool::Axis ? DragMode::Axis : modifiers;
  }
  const DragHandles& shownHandles() const { return handleSets.of(toolMode(shownMode)); }
  // The set for the modifiers (and the tool) into the layer; `force`: also when it looks the same
  // (new sets, another tool).
  void showHandleSet(DragMode mode, bool force = false);
  // A Resize drag's preview: body `body`'s first shape drawn at its size changed by `amount`.
  void previewResize(int body, const DragHandle& h, double amount);
  // The set the modifiers held ask for: Shift the anchor's, Ctrl the body's on its joint.
  static DragMode modeFor(Qt::KeyboardModifiers modifiers) {
    return modifiers & Qt::ShiftModifier ? DragMode::Anchor : modifiers & Qt::ControlModifier ? DragMode::Body : DragMode::Joint;
  }
  // The layer rebuilt for the current camera (before each frame) when the camera, the widget's
  // size, the handles, the highlighted one or the preview changed since the last build.
  void refreshHandles();
  std::vector<double> handlesBuiltFor, handlesDrawnFor;
  // World length of one logical pixel at depth of point p.
  double worldPerPixel(const Vec3& p) const;
  // The handle under a widget position (-1: none).
  int pickHandle(const QPointF& pos);
  // The drag's parameter for the mouse at `pos` (false: the ray does not give one).
  bool handleParameter(const QPointF& pos, double& value);
  // The moving bodies (and the overlays) drawn moved by the drag so far, or back where they are.
  void previewDrag();
  void endPreview();

  double dpr() const { return w->devicePixelRatioF(); }
  int pixelWidth() const { return std::max(1, int(std::lround(w->width() * dpr()))); }
  int pixelHeight() const { return std::max(1, int(std::lround(w->height() * dpr()))); }
  osg::Vec2d toWindow(const QPointF& p) const { return {p.x() * dpr(), pixelHeight() - p.y() * dpr()}; }

  void ensureViewport();
  void applyCamera();
  // World ray through a widget position, and the body surface under it (picking.h).
  bool ray(const QPointF& pos, Vec3& origin, Vec3& dir);
  Hit pick(const QPointF& pos);
  // The region a fit keeps in view (framing.h): every copy's (framing), the reference copy's alone
  // (framingOne), and its centre and radius (modelBound).
  bool framing(Framing& out) const;
  bool framingOne(Framing& out) const;
  bool modelBound(Vec3& center, double& radius) const;
  void fit();
  // The body transforms, their shapes, collision layer and overlays of `system` (setModel).
  void buildBodies();
  void updateGrid();
  void growGridToBodies();
  void setHighlight(int body, bool on);
  Vec3 dragTarget(const QPointF& pos);
  void updateSpring() { overlays.setSpring(grab.body >= 0, grab.world(poses), grab.target); }
};

}  // namespace ms::ui
