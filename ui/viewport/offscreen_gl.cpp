// SPDX-License-Identifier: GPL-3.0-or-later
// OffscreenGl: context + offscreen surface + framebuffer objects, and the read-back of a frame.
#include "viewport/offscreen_gl.h"

#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <QtDebug>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace ms::ui::viewport {

OffscreenGl::OffscreenGl() = default;

// The framebuffers are GL objects: released with the context current.
OffscreenGl::~OffscreenGl() {
  if (context_ && surface_ && context_->makeCurrent(surface_.get())) {
    draw_.reset();
    resolve_.reset();
    context_->doneCurrent();
  }
}

// The default format (a compatibility context on Mesa, which Debian's fixed-function OSG needs).
bool OffscreenGl::makeCurrent() {
  if (failed_) return false;
  if (!context_) {
    context_ = std::make_unique<QOpenGLContext>();
    context_->setFormat(QSurfaceFormat::defaultFormat());
    surface_ = std::make_unique<QOffscreenSurface>();
    if (!context_->create()) {
      qWarning("viewport: cannot create an OpenGL context; the 3D view stays empty");
      failed_ = true;
      return false;
    }
    surface_->setFormat(context_->format());
    surface_->create();
    if (!context_->makeCurrent(surface_.get())) {
      qWarning("viewport: cannot make the OpenGL context current; the 3D view stays empty");
      failed_ = true;
      return false;
    }
    const QByteArray renderer(reinterpret_cast<const char*>(context_->functions()->glGetString(GL_RENDERER)));
    software_ = renderer.contains("llvmpipe") || renderer.contains("softpipe") || renderer.contains("swrast") ||
                renderer.contains("Software");
    return true;
  }
  return context_->makeCurrent(surface_.get());
}

void OffscreenGl::doneCurrent() {
  if (context_) context_->doneCurrent();
}

int OffscreenGl::samples() const {
  bool set = false;
  const int forced = qEnvironmentVariableIntValue("MECHSTUDIO_VIEWPORT_SAMPLES", &set);
  if (set) return std::clamp(forced, 0, 16);
  return software_ ? 0 : 4;
}

// (Re)creates the framebuffers when the size changes, then binds the one drawn into.
unsigned OffscreenGl::beginFrame(const QSize& pixels) {
  if (!makeCurrent()) return 0;
  const QSize size = pixels.expandedTo(QSize(1, 1));
  if (!draw_ || draw_->size() != size) {
    draw_.reset();
    resolve_.reset();
    QOpenGLFramebufferObjectFormat fmt;
    fmt.setAttachment(QOpenGLFramebufferObject::CombinedDepthStencil);
    fmt.setSamples(samples());
    draw_ = std::make_unique<QOpenGLFramebufferObject>(size, fmt);
    if (draw_->format().samples() > 0) resolve_ = std::make_unique<QOpenGLFramebufferObject>(size);
  }
  draw_->bind();
  return draw_->handle();
}

// Multisampled frames are resolved first; rows come bottom-up from GL and are swapped in place.
void OffscreenGl::readFrame(QImage& out) {
  if (!draw_ || !context_ || QOpenGLContext::currentContext() != context_.get()) return;
  const QSize size = draw_->size();
  if (resolve_) QOpenGLFramebufferObject::blitFramebuffer(resolve_.get(), draw_.get());
  QOpenGLFramebufferObject* source = resolve_ ? resolve_.get() : draw_.get();
  source->bind();
  if (out.size() != size || out.format() != QImage::Format_RGB32) out = QImage(size, QImage::Format_RGB32);
  QOpenGLFunctions* f = context_->functions();
  f->glPixelStorei(GL_PACK_ALIGNMENT, 4);
  // RGBA bytes, the framebuffer's own layout (Mesa copies it as it is; BGRA took a per-pixel
  // conversion, a fifth of the GUI thread's time).
  f->glReadPixels(0, 0, size.width(), size.height(), GL_RGBA, GL_UNSIGNED_BYTE, out.bits());
  source->release();
  // Top row first, RGBA bytes as QImage's opaque 0xffRRGGBB words.
  const int w = size.width(), h = size.height();
  const auto toRgb32 = [](std::uint32_t p) {
#if Q_BYTE_ORDER == Q_LITTLE_ENDIAN
    return 0xff000000u | ((p & 0xffu) << 16) | (p & 0xff00u) | ((p >> 16) & 0xffu);  // bytes R G B A
#else
    return 0xff000000u | (p >> 8);  // bytes R G B A as the word 0xRRGGBBAA
#endif
  };
  const auto swapRows = [&](std::uint32_t* a, std::uint32_t* b) {
    for (int x = 0; x < w; ++x) {
      const std::uint32_t t = toRgb32(a[x]);
      a[x] = toRgb32(b[x]);
      b[x] = t;
    }
  };
  for (int y = 0; y < h / 2; ++y)
    swapRows(reinterpret_cast<std::uint32_t*>(out.scanLine(y)), reinterpret_cast<std::uint32_t*>(out.scanLine(h - 1 - y)));
  // The middle row of an odd height stays in place.
  if (h % 2 == 1) {
    auto* row = reinterpret_cast<std::uint32_t*>(out.scanLine(h / 2));
    for (int x = 0; x < w; ++x) row[x] = toRgb32(row[x]);
  }
}

}  // namespace ms::ui::viewport
