// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson's explanation panel (a dock opened by the Lessons menu): its title, what the model
// and the integrators do, the claim to watch for, what to try next, the lesson's figure if it has
// one, and buttons to run/pause and to start the lesson again.
#pragma once

#include <QPixmap>
#include <QWidget>

class QLabel;
class QPushButton;

namespace ms {
struct Lesson;
}

namespace ms::ui {

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(QWidget* parent = nullptr);
  void setLesson(const Lesson& lesson);
  int lessonNumber() const { return number_; }
  QString titleText() const;
  QString explanationText() const;
  QString claimText() const;
  QString followUpText() const;
  // The lesson's figure as shown (null: the lesson has none, or it was not found: figureText()).
  QPixmap figure() const;
  QString figureText() const;
  // The Run button's text follows the simulation ("Run" / "Pause").
  void setRunning(bool running);

 Q_SIGNALS:
  void runToggled();
  void restartRequested();

 protected:
  // The figure follows the panel's width.
  void resizeEvent(QResizeEvent* event) override;

 private:
  void scaleFigure();
  QPixmap figureImage_;  // the lesson's figure at full size (null: none)
  int number_ = 0;
  QLabel *title_, *explanation_, *claim_, *followUp_, *variants_, *figure_;
  QPushButton *run_, *restart_;
};

}  // namespace ms::ui
