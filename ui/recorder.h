// SPDX-License-Identifier: GPL-3.0-or-later
// Screenshots and video of the main window: File ▸ Save screenshot… (the whole window as PNG) and
// File ▸ Record video (every frame the 3D view draws as a PNG, encoded to MP4 with ffmpeg when it
// is installed).
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QAction;
class QWidget;

namespace ms::ui {

class StatusBar;
class ViewportWidget;

class Recorder : public QObject {
  Q_OBJECT
 public:
  // `window` is grabbed for screenshots (after `refresh`, which brings the newest snapshot in);
  // `view` renders the recorded frames.
  Recorder(QWidget* window, ViewportWidget* view, StatusBar* status, std::function<void()> refresh, QObject* parent = nullptr);

  QAction* screenshotAction() const { return screenshotAct_; }
  QAction* recordAction() const { return recordAct_; }

  // Screenshot of the whole window to PNG (atomically); false with *error on failure.
  bool saveScreenshot(const QString& path, QString* error = nullptr);

  // Recording: every frame the view draws becomes parentDir/mechstudio-DATE/frame-NNNNNN.png;
  // stopping encodes an MP4 with ffmpeg when it is installed and returns what was written.
  bool startRecording(const QString& parentDir, QString* error = nullptr);
  QString stopRecording();
  bool recording() const { return !recordDir_.isEmpty(); }
  int recordedFrames() const { return recordFrames_; }
  QString recordDir() const { return recordDir_; }
  // One frame of the view into the recording (the window calls it for each new frame shown).
  void recordFrame();

 private:
  void chooseScreenshot();
  void toggleRecording(bool on);

  QWidget* window_;
  ViewportWidget* view_;
  StatusBar* status_;
  std::function<void()> refresh_;
  QAction *screenshotAct_, *recordAct_;
  // Recording: frames written as PNG into recordDir_, encoded with ffmpeg when it exists.
  QString recordDir_;
  int recordFrames_ = 0;
  QString recordError_;
};

}  // namespace ms::ui
