// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson's explanation panel (a dock opened by the Lessons menu): its title, what the model
// and the integrators do, the claim to watch for, what to try next, and buttons to run/pause and
// to start the lesson again.
#pragma once

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
  // The Run button's text follows the simulation ("Run" / "Pause").
  void setRunning(bool running);

 Q_SIGNALS:
  void runToggled();
  void restartRequested();

 private:
  int number_ = 0;
  QLabel *title_, *explanation_, *claim_, *followUp_, *variants_;
  QPushButton *run_, *restart_;
};

}  // namespace ms::ui
