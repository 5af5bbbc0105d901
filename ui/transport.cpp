// SPDX-License-Identifier: GPL-3.0-or-later
// Run, step, step back, reset, speed and history (see transport.h).
#include "transport.h"

#include <QAction>
#include <QComboBox>
#include <QKeySequence>
#include <QLabel>
#include <QSettings>
#include <QSlider>
#include <QToolBar>
#include <algorithm>
#include <cmath>

#include "sim/sim_controller.h"
#include "status_bar.h"
#include "theme_icon.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

namespace {
// Speed choices: real-time factors; 0 = as fast as possible.
const double kSpeeds[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 0.0};
QString speedLabel(double s) {
  if (s <= 0) return "as fast as possible";
  if (s < 1) return QString("1/%1×").arg(std::lround(1 / s));
  return QString("%1×").arg(s);
}
}  // namespace

Transport::Transport(SimController& sim, StatusBar* status, ViewportWidget* view, QObject* parent)
    : QObject(parent), sim_(sim) {
  runAct_ = new QAction(themeIcon("media-playback-start", QStyle::SP_MediaPlay), "&Run", this);
  runAct_->setCheckable(true);
  runAct_->setShortcut(QKeySequence(Qt::Key_Space));
  runAct_->setToolTip("Run / pause (Space)");
  connect(runAct_, &QAction::triggered, this, [this](bool on) { sim_.setRunning(on); });
  stepAct_ = new QAction(themeIcon("media-seek-forward", QStyle::SP_MediaSeekForward), "&Step", this);
  stepAct_->setShortcut(QKeySequence(Qt::Key_Right));
  stepAct_->setToolTip("One step (→)");
  connect(stepAct_, &QAction::triggered, this, [this] { sim_.stepOnce(); });
  stepBackAct_ = new QAction(themeIcon("media-seek-backward", QStyle::SP_MediaSeekBackward), "Step &back", this);
  stepBackAct_->setShortcut(QKeySequence(Qt::Key_Left));
  stepBackAct_->setToolTip("One step back in the history (←)");
  connect(stepBackAct_, &QAction::triggered, this, [this] { sim_.stepBack(); });
  resetAct_ = new QAction(themeIcon("media-skip-backward", QStyle::SP_MediaSkipBackward), "R&eset", this);
  resetAct_->setShortcut(QKeySequence(Qt::Key_Backspace));
  resetAct_->setToolTip("Back to t = 0 (Backspace)");
  connect(resetAct_, &QAction::triggered, this, [this, status, view] {
    status->hideBanner();
    sim_.reset();
    view->clearTrails();
  });
  // The transport keys work wherever the focus is, except in text fields.
  for (QAction* a : {runAct_, stepAct_, stepBackAct_, resetAct_}) a->setShortcutContext(Qt::WindowShortcut);

  speed_ = new QComboBox;
  speed_->setObjectName("speed");
  for (double s : kSpeeds) speed_->addItem(speedLabel(s), s);
  speed_->setCurrentIndex(6);  // 1×
  speed_->setToolTip("Desired real-time factor");
  connect(speed_, qOverload<int>(&QComboBox::activated), this, [this](int i) { sim_.setSpeed(speed_->itemData(i).toDouble()); });
  history_ = new QSlider(Qt::Horizontal);
  history_->setObjectName("history");
  history_->setMinimumWidth(200);
  history_->setToolTip("Scrub through the kept states; run or step to continue from the one shown");
  connect(history_, &QSlider::sliderMoved, this, [this](int v) { sim_.seek(v); });
  connect(history_, &QSlider::actionTriggered, this, [this](int action) {
    if (action != QAbstractSlider::SliderMove) sim_.seek(history_->sliderPosition());
  });
}

Transport::~Transport() {
  if (speed_ && !speed_->parent()) delete speed_;
  if (history_ && !history_->parent()) delete history_;
}

void Transport::addTo(QToolBar* tb) {
  tb->addAction(resetAct_);
  tb->addAction(stepBackAct_);
  tb->addAction(runAct_);
  tb->addAction(stepAct_);
  tb->addSeparator();
  tb->addWidget(new QLabel(" Speed "));
  tb->addWidget(speed_);
  tb->addSeparator();
  tb->addWidget(new QLabel(" History "));
  tb->addWidget(history_);
}

void Transport::readSettings(const QSettings& s) {
  const int speedIndex = s.value("speedIndex", 6).toInt();
  if (speedIndex >= 0 && speedIndex < speed_->count()) {
    speed_->setCurrentIndex(speedIndex);
    sim_.setSpeed(speed_->itemData(speedIndex).toDouble());
  }
}

void Transport::writeSettings(QSettings& s) const { s.setValue("speedIndex", speed_->currentIndex()); }

void Transport::update(const Snapshot& s, bool slowTick) {
  if (runAct_->isChecked() != s.running) runAct_->setChecked(s.running);
  // Text and icon on a change only: each new icon re-lays out and repaints the toolbar.
  if (runButtonPauses_ != s.running) {
    runButtonPauses_ = s.running;
    runAct_->setText(s.running ? "&Pause" : "&Run");
    runAct_->setIcon(s.running ? themeIcon("media-playback-pause", QStyle::SP_MediaPause) : themeIcon("media-playback-start", QStyle::SP_MediaPlay));
  }
  stepBackAct_->setEnabled(s.historyCursor > 0);
  if (!history_->isSliderDown() && slowTick) {
    history_->setRange(0, std::max(0, s.historyCount - 1));
    history_->setValue(s.historyCursor);
  }
}

}  // namespace ms::ui
