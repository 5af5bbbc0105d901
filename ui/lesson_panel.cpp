// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson_panel.h"

#include <algorithm>

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "scenes/lessons.h"

namespace ms::ui {

namespace {
QLabel* wrapped(const QString& objectName) {
  auto* l = new QLabel;
  l->setObjectName(objectName);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  return l;
}
}  // namespace

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* body = new QWidget;
  auto* v = new QVBoxLayout(body);
  title_ = wrapped("lesson-title");
  QFont f = title_->font();
  f.setBold(true);
  f.setPointSizeF(f.pointSizeF() * 1.15);
  title_->setFont(f);
  explanation_ = wrapped("lesson-explanation");
  variants_ = wrapped("lesson-variants");
  claim_ = wrapped("lesson-claim");
  followUp_ = wrapped("lesson-follow-up");
  figure_ = wrapped("lesson-figure");
  figure_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
  figure_->hide();
  v->addWidget(title_);
  v->addWidget(explanation_);
  v->addWidget(variants_);
  v->addWidget(claim_);
  v->addWidget(followUp_);
  v->addWidget(figure_);
  v->addStretch(1);
  scroll->setWidget(body);
  outer->addWidget(scroll, 1);
  auto* buttons = new QHBoxLayout;
  buttons->setContentsMargins(6, 0, 6, 6);
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName("lesson-run");
  restart_ = new QPushButton(tr("Start again"));
  connect(run_, &QPushButton::clicked, this, [this] { Q_EMIT runToggled(); });
  connect(restart_, &QPushButton::clicked, this, [this] { Q_EMIT restartRequested(); });
  buttons->addWidget(run_);
  buttons->addWidget(restart_);
  buttons->addStretch(1);
  outer->addLayout(buttons);
  title_->setText(tr("No lesson open: choose one from the Lessons menu."));
}

void LessonPanel::setLesson(const Lesson& l) {
  number_ = l.number;
  const QString title = QString::fromStdString(l.title.empty() ? l.id : l.title);
  title_->setText(l.number > 0 ? QString("%1. %2").arg(l.number).arg(title) : title);
  explanation_->setText(QString::fromStdString(l.explanation));
  QStringList rows;
  for (size_t k = 0; k < l.variants.size(); ++k)
    rows << QString("%1%2 (Δt = %3 s)")
                .arg(QString::fromStdString(l.variants[k].label))
                .arg(k == 0 ? tr(", reference, solid") : tr(", ghost"))
                .arg(l.variants[k].dt);
  variants_->setText(tr("<b>Copies:</b> ") + rows.join("; ").toHtmlEscaped().replace("&lt;b&gt;", "<b>"));
  claim_->setText(tr("<b>Watch for:</b> ") + QString::fromStdString(l.claim).toHtmlEscaped());
  followUp_->setText(tr("<b>Then try:</b> ") + QString::fromStdString(l.followUp).toHtmlEscaped());
  // The figure: built in (:/figures, docs/images), or a file next to the experiment file.
  figure_->clear();
  figureImage_ = QPixmap();
  figure_->setVisible(!l.figure.empty());
  if (l.figure.empty()) return;
  const QString name = QString::fromStdString(l.figure);
  figureImage_.load(":/figures/" + name);
  if (figureImage_.isNull() && !l.sourceFile.empty())
    figureImage_.load(QFileInfo(QString::fromStdString(l.sourceFile)).dir().filePath(name));
  if (figureImage_.isNull()) {
    figure_->setText(tr("(figure %1 not found)").arg(name));
    return;
  }
  figure_->setToolTip(name);
  scaleFigure();
}

// The figure at the panel's width (less the margins and a scroll bar), never above its own size:
// a wider label would widen the panel's text column beyond the dock.
void LessonPanel::scaleFigure() {
  if (figureImage_.isNull()) return;
  const int w = std::clamp(width() - 40, 80, figureImage_.width());
  if (figure_->pixmap().width() != w) figure_->setPixmap(figureImage_.scaledToWidth(w, Qt::SmoothTransformation));
}

void LessonPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  scaleFigure();
}

QPixmap LessonPanel::figure() const { return figure_->pixmap(); }
QString LessonPanel::figureText() const { return figure_->text(); }

QString LessonPanel::titleText() const { return title_->text(); }
QString LessonPanel::explanationText() const { return explanation_->text(); }
QString LessonPanel::claimText() const { return claim_->text(); }
QString LessonPanel::followUpText() const { return followUp_->text(); }

void LessonPanel::setRunning(bool running) {
  const QString t = running ? tr("Pause") : tr("Run");
  if (run_->text() != t) run_->setText(t);
}

}  // namespace ms::ui
