// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons, experiment files and comparison copies in the main window: the Lessons menu (built-in
// lessons and the user's experiment files), opening a lesson or an experiment (its model, copies,
// plots, camera and panel), File ▸ Save Experiment As…, Simulation ▸ Compare from here / Stop
// comparing and the Comparison dock's requests.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "sim/sim_types.h"

class QAction;
class QMenu;

namespace ms {
struct Lesson;
}

namespace ms::ui {

class MainWindow;

class ExperimentController : public QObject {
  Q_OBJECT
 public:
  // Connects to the window's Comparison and Lesson panels (after MainWindow::buildDocks).
  explicit ExperimentController(MainWindow& window);

  // Comparison mode (the "Comparison" dock): copies[0] is the reference; all start from the state
  // shown. Also Simulation ▸ Compare from here (the dock's rows, or VI vs RK4 when it has none).
  void startComparison(const std::vector<CopySpec>& copies, bool equalCost);
  void compareFromHere();
  // Lessons ▸ N: opens the lesson's scene, runs its variants as a comparison (the first the
  // reference), brings its focus plot to the front (log scale if the lesson says so) and shows
  // its explanation panel. `numberOrId`: "1"…"6" or an id ("drift"). False with *error if unknown.
  // Also takes the path of an experiment file (one ending in .experiment, or an existing file).
  bool openLesson(const QString& numberOrId, QString* error = nullptr);
  // Opens an experiment as openLesson does: its model (scene, model file with its parameters, or
  // its inline model, written to the cache folder and opened from there), its copies, its focus
  // plot, signal plots, phase portrait and camera, and its panel.
  bool openExperiment(const Lesson& lesson, QString* error = nullptr);
  // Reads an experiment file (errors with file:line:column) and opens it (File ▸ Open, drops,
  // the Lessons menu's user experiments).
  bool openExperimentFile(const QString& path, QString* error = nullptr);
  // File ▸ Save Experiment As…: what is on screen as an experiment file (atomically) that
  // openExperimentFile reopens as it was: the model (its scene or file, relative to the experiment,
  // with its parameters; a model edited and applied but not saved, or opened from an experiment's
  // inline model, inline), the initial keyframe, the copies compared (or the one simulation), the
  // signal plots, the first phase portrait, the camera, the plot window as duration, and an open
  // lesson's texts, focus and log scale. False with *error.
  bool saveExperiment(const QString& path, QString* error = nullptr);
  // Asks for the file of Save Experiment As (a QFileDialog by default; tests replace it).
  std::function<QString()> experimentPathChooser;
  // The user's experiment gallery, listed in the Lessons menu below the built-in lessons:
  // $MECHSTUDIO_EXPERIMENTS if set, else the "experiments" folder in the application data
  // location (~/.local/share/MechStudio/mechstudio/experiments on Linux).
  static QString userExperimentDir();
  // A new model: no lesson or experiment is open any more.
  void modelLoaded();

  QMenu* lessonsMenu() const { return lessonsMenu_; }
  QAction* saveExperimentAction() const { return saveExperimentAct_; }
  QAction* compareHereAction() const { return compareHereAct_; }
  QAction* stopComparingAction() const { return stopCompareAct_; }

 private:
  void rebuildUserLessons();

  MainWindow& w_;
  QMenu* lessonsMenu_ = nullptr;
  QAction *saveExperimentAct_ = nullptr, *compareHereAct_ = nullptr, *stopCompareAct_ = nullptr;
  int lessonNumber_ = 0;
  QString lessonFile_;  // the experiment file open as a lesson ("Start again" reopens it)
  std::shared_ptr<const Lesson> experiment_;  // the lesson or experiment open (null: a plain model)
  QList<QAction*> userLessonActions_;  // the Lessons menu's entries for the user's experiment files
};

}  // namespace ms::ui
