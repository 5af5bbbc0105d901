// SPDX-License-Identifier: GPL-3.0-or-later
// The banner and the status bar's labels (see status_bar.h).
#include "status_bar.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "sim/sim_types.h"

namespace ms::ui {

StatusBar::StatusBar(QMainWindow* window) : QObject(window), window_(window) {
  // The failure/diagnostics banner (the window puts it above the 3D view).
  banner_ = new QWidget;
  banner_->setObjectName("banner");
  auto* bl = new QHBoxLayout(banner_);
  bannerLabel_ = new QLabel;
  bannerLabel_->setWordWrap(true);
  bannerLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bl->addWidget(bannerLabel_, 1);
  bannerDetails_ = new QPushButton("Details…");
  connect(bannerDetails_, &QPushButton::clicked, this, [this] {
    QMessageBox box(QMessageBox::Information, "Diagnostics", bannerFull_.section('\n', 0, 0), QMessageBox::Close, window_);
    box.setDetailedText(bannerFull_);
    box.exec();
  });
  bl->addWidget(bannerDetails_);
  auto* close = new QPushButton("Dismiss");
  connect(close, &QPushButton::clicked, this, [this] { hideBanner(); });
  bl->addWidget(close);
  banner_->hide();

  QStatusBar* bar = window_->statusBar();
  auto mk = [bar](const QString& name, const QString& tip) {
    auto* l = new QLabel;
    l->setObjectName(name);
    l->setToolTip(tip);
    l->setMinimumWidth(90);
    bar->addPermanentWidget(l);
    return l;
  };
  statusModel_ = new QLabel;
  statusModel_->setObjectName("status-model");
  bar->addWidget(statusModel_, 1);
  // A temporary message (showMessage) takes the model's place: QStatusBar draws it over the label
  // otherwise (both texts overlapped in the screenshots).
  QObject::connect(bar, &QStatusBar::messageChanged, statusModel_, [this](const QString& m) { statusModel_->setVisible(m.isEmpty()); });
  statusTime_ = mk("status-time", "Simulation time");
  statusStep_ = mk("status-step", "Wall time of the last step");
  statusIter_ = mk("status-iterations",
                   "Newton iterations of the last step; with (solver (sleep S)), the bodies asleep in it (at rest, "
                   "not solved until touched or pushed; docs/engine.md, \"Sleeping\")");
  statusRtf_ = mk("status-rtf", "Achieved / desired real-time factor");
  statusContacts_ = mk("status-contacts", "Active contacts");
  statusSolver_ = mk("status-solver",
                     "Steps since load/reset that the solver accepted at the attainable accuracy of the problem "
                     "(the residual at round-off level, above the tolerance) and steps it solved in several "
                     "sub-intervals after a failed Newton solve, and steps where a closed loop met a singular "
                     "configuration; \"sub-steps of h s\": the time step was too long for the motion (no solution over "
                     "it), and the steps are solved in sub-intervals of h from then on until reset (docs/engine.md)");
  statusSolver_->hide();
}

void StatusBar::update(const Snapshot& s) {
  statusTime_->setText(QString("t = %1 s").arg(s.copies.empty() ? s.state.time : s.clock, 0, 'f', 3));
  statusStep_->setText(QString("%1 µs/step").arg(s.metrics.stepMicroseconds, 0, 'f', 0));
  QString iterations = QString("%1 it").arg(s.metrics.iterations);
  if (s.metrics.sleeping > 0) iterations += QString(" · %1 asleep").arg(s.metrics.sleeping);
  statusIter_->setText(iterations);
  if (s.running)
    statusRtf_->setText(QString("RTF %1 / %2").arg(s.achievedRealTimeFactor, 0, 'f', 2).arg(s.speed > 0 ? QString::number(s.speed) : "max"));
  else
    statusRtf_->setText("paused");
  statusContacts_->setText(QString("%1 contacts").arg(s.contacts.size()));
  // Shown once the solver needed either remedy.
  statusSolver_->setVisible(s.stalledSteps > 0 || s.subdividedSteps > 0 || s.singularSteps > 0);
  QString solver = QString("%1 stalled · %2 subdivided").arg(s.stalledSteps).arg(s.subdividedSteps);
  if (s.singularSteps > 0) solver += QString(" · %1 singular").arg(s.singularSteps);
  // The refinement: Δt was too long for the motion, the steps are solved in sub-intervals from then on.
  if (s.refinedInterval > 0)
    solver += QString(" · sub-steps of %1 s since t = %2 s").arg(s.refinedInterval).arg(s.refinedAt, 0, 'f', 2);
  statusSolver_->setText(solver);
}

void StatusBar::setModelText(const QString& text) { statusModel_->setText(text); }

void StatusBar::showMessage(const QString& text, int timeoutMs) { window_->statusBar()->showMessage(text, timeoutMs); }

// ---- banner -------------------------------------------------------------------------------------

void StatusBar::showBanner(const QString& text, bool error, int shownLines) {
  // Long diagnostics lists: the first lines here, all of them behind Details….
  bannerFull_ = text;
  const QStringList lines = text.split('\n');
  const int kShown = std::max(1, shownLines);
  QString shown = lines.mid(0, kShown).join('\n');
  if (lines.size() > kShown) shown += QString("\n… and %1 more line(s)").arg(lines.size() - kShown);
  bannerDetails_->setVisible(lines.size() > kShown);
  bannerLabel_->setText(shown);
  bannerLabel_->setToolTip(text);
  banner_->setStyleSheet(error ? "#banner { background: #fdecea; } QLabel { color: #a93226; }"
                               : "#banner { background: #fef9e7; } QLabel { color: #7d6608; }");
  banner_->show();
}

void StatusBar::hideBanner() {
  banner_->hide();
  bannerLabel_->clear();
  bannerFull_.clear();
}

QString StatusBar::bannerText() const { return banner_->isVisible() ? bannerFull_ : QString(); }

}  // namespace ms::ui
