// SPDX-License-Identifier: GPL-3.0-or-later
// Screenshots and frame recording (see recorder.h).
#include "recorder.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QKeySequence>
#include <QMessageBox>
#include <QProcess>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QStandardPaths>

#include "status_bar.h"
#include "theme_icon.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

Recorder::Recorder(QWidget* window, ViewportWidget* view, StatusBar* status, std::function<void()> refresh, QObject* parent)
    : QObject(parent), window_(window), view_(view), status_(status), refresh_(std::move(refresh)) {
  screenshotAct_ = new QAction(themeIcon("camera-photo", QStyle::SP_DesktopIcon), "Save &screenshot…", this);
  screenshotAct_->setShortcut(QKeySequence("Ctrl+Shift+S"));
  connect(screenshotAct_, &QAction::triggered, this, [this] { chooseScreenshot(); });
  recordAct_ = new QAction(themeIcon("media-record", QStyle::SP_DialogYesButton), "&Record video", this);
  recordAct_->setCheckable(true);
  recordAct_->setShortcut(QKeySequence("Ctrl+Shift+R"));
  connect(recordAct_, &QAction::toggled, this, [this](bool on) { toggleRecording(on); });
}

bool Recorder::saveScreenshot(const QString& path, QString* error) {
  if (refresh_) refresh_();
  view_->update();
  const QImage img = window_->grab().toImage();
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
    if (error) *error = "cannot write " + path + ": " + f.errorString();
    return false;
  }
  return true;
}

void Recorder::chooseScreenshot() {
  const QString path = QFileDialog::getSaveFileName(window_, "Save screenshot", "mechstudio.png", "PNG image (*.png)");
  if (path.isEmpty()) return;
  QString err;
  if (!saveScreenshot(path, &err)) QMessageBox::warning(window_, "Screenshot failed", err);
  else status_->showMessage("Saved " + path, 4000);
}

void Recorder::toggleRecording(bool on) {
  if (!on) {
    if (recording()) status_->showMessage(stopRecording(), 10000);
    return;
  }
  const QString base = QStandardPaths::writableLocation(QStandardPaths::MoviesLocation);
  const QString dir = QFileDialog::getExistingDirectory(window_, "Record frames into…", base.isEmpty() ? QDir::homePath() : base);
  QString err;
  if (dir.isEmpty() || !startRecording(dir, &err)) {
    if (!err.isEmpty()) QMessageBox::warning(window_, "Recording", err);
    const QSignalBlocker b(recordAct_);
    recordAct_->setChecked(false);
    return;
  }
  status_->showMessage("Recording frames into " + recordDir_);
}

bool Recorder::startRecording(const QString& parentDir, QString* error) {
  const QString dir = parentDir + "/mechstudio-" + QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss");
  if (!QDir().mkpath(dir)) {
    if (error) *error = "cannot create " + dir;
    return false;
  }
  recordDir_ = dir;
  recordFrames_ = 0;
  recordError_.clear();
  const QSignalBlocker b(recordAct_);
  recordAct_->setChecked(true);
  return true;
}

void Recorder::recordFrame() {
  // One PNG per drawn frame; the first write error stops the recording and is reported.
  const QImage img = view_->renderToImage();
  const QString path = QString("%1/frame-%2.png").arg(recordDir_).arg(recordFrames_, 6, 10, QChar('0'));
  if (!img.save(path)) {
    recordError_ = "cannot write " + path;
    status_->showMessage(stopRecording(), 10000);
    return;
  }
  ++recordFrames_;
}

QString Recorder::stopRecording() {
  const QSignalBlocker b(recordAct_);
  recordAct_->setChecked(false);
  // Encode with ffmpeg when it is installed; the PNG sequence stays either way.
  const QString ffmpeg = QStandardPaths::findExecutable("ffmpeg");
  QString msg = QString("Recorded %1 frames into %2").arg(recordFrames_).arg(recordDir_);
  if (!recordError_.isEmpty()) msg += " (stopped: " + recordError_ + ")";
  if (!ffmpeg.isEmpty() && recordFrames_ > 0) {
    const QString out = recordDir_ + ".mp4";
    const int rc = QProcess::execute(ffmpeg, {"-y", "-loglevel", "error", "-framerate", "60", "-i", recordDir_ + "/frame-%06d.png",
                                              "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", out});
    msg += rc == 0 ? " and " + out : " (ffmpeg failed, exit " + QString::number(rc) + ")";
  } else if (ffmpeg.isEmpty()) {
    msg += " (install ffmpeg to get an MP4)";
  }
  recordDir_.clear();
  return msg;
}

}  // namespace ms::ui
