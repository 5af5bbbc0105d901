// SPDX-License-Identifier: GPL-3.0-or-later
// An OpenGL context of its own, current on an offscreen surface, rendering into a framebuffer
// object whose pixels are read back into a QImage. The 3D view draws into it and paints the image
// like any raster widget, so the main window stays a raster window: on a software rasteriser
// (Mesa llvmpipe) a QOpenGLWidget made Qt compose the whole window through GL on every frame,
// ~20 ms of rasteriser time per frame at 1280×800 (docs/benchmarks.md, "GUI responsiveness").
#pragma once

#include <QImage>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QSize>
#include <QString>
#include <memory>

namespace ms::ui::viewport {

class OffscreenGl {
 public:
  OffscreenGl();
  ~OffscreenGl();

  // Creates the context on first use and makes it current; false when no context can be created.
  bool makeCurrent();
  void doneCurrent();
  // Whether the renderer is a software rasteriser (llvmpipe, softpipe, swrast); valid once current.
  bool software() const { return software_; }

  // Makes the context current and binds a framebuffer of `pixels` (depth and stencil; multisampled
  // on GPUs, see samples()) for drawing; returns its id (0 when there is no context).
  unsigned beginFrame(const QSize& pixels);
  // Reads the frame drawn since beginFrame into `out` (top row first, opaque, Format_RGB32, reusing
  // its storage when the size is unchanged).
  void readFrame(QImage& out);

 private:
  // Samples per pixel of the drawing framebuffer: 4 on GPUs, none on software rasterisers (there a
  // 800×600 frame cost 17 ms with 4 instead of 3 ms); MECHSTUDIO_VIEWPORT_SAMPLES overrides it.
  int samples() const;

  std::unique_ptr<QOpenGLContext> context_;
  std::unique_ptr<QOffscreenSurface> surface_;
  std::unique_ptr<QOpenGLFramebufferObject> draw_, resolve_;  // resolve_: only when multisampled
  bool failed_ = false, software_ = false;
};

}  // namespace ms::ui::viewport
