// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons, experiment files and comparison copies (see experiment_controller.h).
#include "experiment_controller.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <cctype>

#include "comparison_panel.h"
#include "core/check.h"
#include "document_controller.h"
#include "io/experiment_file.h"
#include "keyframe_actions.h"
#include "lesson_panel.h"
#include "main_window.h"
#include "plot_actions.h"
#include "plots/phase_dock.h"
#include "plots/plot_dock.h"
#include "plots/plot_manager.h"
#include "scenes/lessons.h"
#include "settings_panel.h"
#include "status_bar.h"
#include "system/compiled_system.h"
#include "transport.h"
#include "viewport/viewport_widget.h"

namespace ms::ui {

ExperimentController::ExperimentController(MainWindow& window) : QObject(&window), w_(window) {
  saveExperimentAct_ = new QAction("Save E&xperiment As…", this);
  saveExperimentAct_->setObjectName("save-experiment-action");
  connect(saveExperimentAct_, &QAction::triggered, this, [this] {
    const QString path = experimentPathChooser ? experimentPathChooser()
                                               : QFileDialog::getSaveFileName(&w_, "Save experiment", userExperimentDir(),
                                                                              "Experiments (*.experiment)");
    if (path.isEmpty()) return;
    QString why;
    if (!saveExperiment(path.endsWith(".experiment") ? path : path + ".experiment", &why))
      QMessageBox::warning(&w_, "Save experiment", why);
  });
  compareHereAct_ = new QAction("&Compare from here", this);
  compareHereAct_->setObjectName("compare-from-here");
  compareHereAct_->setShortcut(QKeySequence("Ctrl+K"));
  compareHereAct_->setStatusTip("Run copies of the model with other integrators side by side, from the state shown");
  connect(compareHereAct_, &QAction::triggered, this, [this] { compareFromHere(); });
  stopCompareAct_ = new QAction("Stop comparing", this);
  connect(stopCompareAct_, &QAction::triggered, this, [this] { w_.sim().stopComparison(); });

  // Lessons: the teaching presets of scenes/lessons.h.
  lessonsMenu_ = new QMenu("&Lessons", &w_);
  for (const Lesson& l : lessons()) {
    QAction* a = lessonsMenu_->addAction(QString("&%1  %2").arg(l.number).arg(QString::fromStdString(l.title)));
    a->setObjectName(QString("lesson-%1").arg(l.number));
    a->setStatusTip(QString::fromStdString(l.claim));
    const int n = l.number;
    connect(a, &QAction::triggered, this, [this, n] {
      if (!w_.documents()->resolveUnsaved()) return;
      QString err;
      if (!openLesson(QString::number(n), &err)) w_.status()->showBanner(err, true);
    });
  }
  // The user's experiment files below them (listed again each time the menu opens).
  rebuildUserLessons();
  connect(lessonsMenu_, &QMenu::aboutToShow, this, [this] { rebuildUserLessons(); });

  connect(w_.comparisonPanel(), &ComparisonPanel::startRequested, this,
          [this](const std::vector<CopySpec>& c, bool equalCost) { startComparison(c, equalCost); });
  connect(w_.comparisonPanel(), &ComparisonPanel::stopRequested, this, [this] { w_.sim().stopComparison(); });
  connect(w_.lessonPanel(), &LessonPanel::runToggled, this, [this] { w_.transport()->runAction()->trigger(); });
  connect(w_.lessonPanel(), &LessonPanel::restartRequested, this, [this] {
    if (lessonNumber_ > 0) openLesson(QString::number(lessonNumber_));
    else if (!lessonFile_.isEmpty()) openExperimentFile(lessonFile_);
  });
}

void ExperimentController::modelLoaded() {
  lessonNumber_ = 0;
  lessonFile_.clear();
  experiment_.reset();
}

void ExperimentController::startComparison(const std::vector<CopySpec>& copies, bool equalCost) {
  if (copies.size() < 2 || !w_.loadedSystem()) return;
  w_.comparisonPanel()->setCopies(copies);
  w_.comparisonPanel()->setEqualCost(equalCost);
  w_.transport()->runAction()->setChecked(false);
  w_.sim().startComparison(copies, equalCost);
  w_.comparisonDock()->show();
}

void ExperimentController::compareFromHere() {
  if (!w_.loadedSystem()) return;
  std::vector<CopySpec> copies = w_.comparisonPanel()->copies();
  if (copies.size() < 2) {
    // Default: the reference as it is, and RK4 at the same step.
    const double dt = w_.sim().stepSettings().dt;
    CopySpec ref;
    ref.options = w_.sim().integratorOptions();
    ref.label = ref.options.kind == IntegratorKind::Variational ? "VI" : displayName(ref.options.kind);
    ref.dt = dt;
    ref.color = ComparisonPanel::defaultColor(0);
    CopySpec rk4;
    rk4.options.kind = IntegratorKind::RK4;
    rk4.label = "RK4";
    rk4.dt = dt;
    rk4.color = ComparisonPanel::defaultColor(1);
    w_.comparisonPanel()->setCopies({ref, rk4});
  }
  w_.comparisonDock()->show();
  w_.comparisonDock()->raise();
  w_.comparisonPanel()->start();
}

bool ExperimentController::openLesson(const QString& numberOrId, QString* error) {
  const std::string key = numberOrId.trimmed().toStdString();
  const Lesson* lesson = nullptr;
  for (const Lesson& l : lessons())
    if (l.id == key || std::to_string(l.number) == key) lesson = &l;
  if (!lesson && (isExperimentFile(key) || QFileInfo(numberOrId).isFile())) return openExperimentFile(numberOrId, error);
  try {
    lesson = &findLesson(key);
  } catch (const UserError& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  return openExperiment(*lesson, error);
}

bool ExperimentController::openExperimentFile(const QString& path, QString* error) {
  Lesson lesson;
  try {
    lesson = loadExperiment(QFileInfo(path).absoluteFilePath().toStdString());
  } catch (const UserError& e) {
    const QString text = QString("Could not open %1:\n%2").arg(path, QString::fromUtf8(e.what()));
    w_.status()->showBanner(text, true);
    if (error) *error = text;
    return false;
  }
  if (!openExperiment(lesson, error)) return false;
  lessonFile_ = QFileInfo(path).absoluteFilePath();
  return true;
}

QString ExperimentController::userExperimentDir() {
  const QString env = qEnvironmentVariable("MECHSTUDIO_EXPERIMENTS");
  if (!env.isEmpty()) return env;
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/experiments";
}

void ExperimentController::rebuildUserLessons() {
  for (QAction* a : userLessonActions_) {
    lessonsMenu_->removeAction(a);
    a->deleteLater();
  }
  userLessonActions_.clear();
  const QDir dir(userExperimentDir());
  const QFileInfoList files = dir.entryInfoList({"*.experiment"}, QDir::Files | QDir::Readable, QDir::Name);
  if (files.isEmpty()) return;
  userLessonActions_ << lessonsMenu_->addSeparator();
  for (const QFileInfo& f : files) {
    // The title when the file reads; otherwise its name (opening it shows the errors).
    Lesson l;
    Diagnostics diags;
    const bool ok = readExperimentFile(f.absoluteFilePath().toStdString(), l, diags);
    const QString text = ok && !l.title.empty() ? QString::fromStdString(l.title) : f.fileName();
    QAction* a = lessonsMenu_->addAction(ok ? text : text + "  (has errors)");
    a->setObjectName("experiment-" + f.completeBaseName());
    a->setToolTip(f.absoluteFilePath());
    a->setStatusTip(ok ? QString::fromStdString(l.claim) : f.absoluteFilePath());
    const QString path = f.absoluteFilePath();
    connect(a, &QAction::triggered, this, [this, path] {
      if (!w_.documents()->resolveUnsaved()) return;
      openExperimentFile(path);
    });
    userLessonActions_ << a;
  }
}

bool ExperimentController::openExperiment(const Lesson& lessonIn, QString* error) {
  // Copied: opening the model resets the window's lesson state (and may reload a menu's lesson).
  const Lesson l = lessonIn;
  const Lesson* lesson = &l;
  QString source = QString::fromStdString(lessonModelSource(l));
  if (!l.modelText.empty()) {
    // An inline model: written to the cache folder as a .mech file and opened from there.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/experiments";
    source = dir + "/" + QString::fromStdString(l.id).replace(QRegularExpression("[^A-Za-z0-9_.-]"), "_") + ".mech";
    QSaveFile out(source);
    const QByteArray text = QByteArray("; The inline model of the experiment ") + l.sourceFile.c_str() + "\n" +
                            QByteArray::fromStdString(l.modelText) + "\n";
    if (!QDir().mkpath(dir) || !out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit()) {
      const QString why = "cannot write the experiment's inline model to " + source;
      w_.status()->showBanner(why, true);
      if (error) *error = why;
      return false;
    }
  }
  if (!w_.documents()->openModel(source, error, lesson->params)) return false;
  // The experiment's keyframe as the initial state (queued before the comparison, which starts from it).
  if (!lesson->keyframe.empty() && !w_.keyframes()->loadKeyframe(QString::fromStdString(lesson->keyframe), true, error)) return false;
  std::vector<CopySpec> copies;
  for (size_t k = 0; k < lesson->variants.size(); ++k) {
    const LessonVariant& v = lesson->variants[k];
    CopySpec c;
    c.label = v.label;
    c.options = v.options;
    c.dt = v.dt;
    c.tolerance = v.tolerance;
    c.color = ComparisonPanel::defaultColor(int(k));
    copies.push_back(c);
  }
  if (copies.size() == 1) {
    // One copy: a plain run with its integrator, Δt and tolerance (nothing to compare with).
    if (!w_.setIntegrator(copies[0].options, error)) return false;
    StepSettings st = w_.sim().stepSettings();
    st.dt = copies[0].dt;
    if (copies[0].tolerance > 0) st.tolerance = copies[0].tolerance;
    w_.sim().setStepSettings(st);
    w_.settingsPanel()->setStepSettings(st);
  } else {
    startComparison(copies, false);
  }
  lessonNumber_ = lesson->number;
  // The lesson's plot in front (its log scale as the lesson says).
  PlotManager::Figure focus = PlotManager::Figure::Energy;
  switch (lesson->focus) {
    case LessonFocus::ConstraintViolation: focus = PlotManager::Figure::Violation; break;
    case LessonFocus::Energy: focus = PlotManager::Figure::EnergyError; break;
    case LessonFocus::Penetration: focus = PlotManager::Figure::Penetration; break;
    case LessonFocus::AngularMomentum: focus = PlotManager::Figure::Momentum; break;
    case LessonFocus::Iterations: focus = PlotManager::Figure::Solver; break;
  }
  if (auto* dock = qobject_cast<PlotDock*>(w_.plots()->dock(focus))) {
    dock->show();
    dock->raise();
    if (lesson->logScale) dock->setLogScale(true);
  }
  // The experiment's signal plots, one per (plot …).
  for (const std::vector<std::string>& group : lesson->plots) {
    QStringList names;
    for (const std::string& n : group) names << QString::fromStdString(n);
    QString why;
    if (!w_.plotActions()->plotSignals(names, &why)) w_.status()->showBanner("Plot: " + why, true);
  }
  // The lesson's phase portraits (the copies overlaid).
  for (const auto& [x, y] : lesson->phases) {
    QString why;
    if (!w_.plotActions()->plotPhasePortrait({QString::fromStdString(x)}, {QString::fromStdString(y)}, &why))
      w_.status()->showBanner("Phase portrait: " + why, true);
  }
  if (lesson->camera) {
    ViewportWidget::Camera cam;
    cam.eye = Vec3(lesson->camera->eye[0], lesson->camera->eye[1], lesson->camera->eye[2]);
    cam.center = Vec3(lesson->camera->center[0], lesson->camera->center[1], lesson->camera->center[2]);
    cam.up = Vec3(lesson->camera->up[0], lesson->camera->up[1], lesson->camera->up[2]);
    w_.viewport()->setCamera(cam);
  }
  // The body the view follows.
  if (!lesson->follow.empty() && !w_.followBody(QString::fromStdString(lesson->follow)))
    w_.status()->showBanner(QString("Follow: the model has no body '%1'").arg(QString::fromStdString(lesson->follow)), true);
  // The plots span the lesson's suggested duration (the Settings dock's plot window shows it).
  w_.plots()->setTimeWindow(lesson->duration);
  w_.settingsPanel()->setPlotWindow(lesson->duration);
  w_.lessonPanel()->setLesson(*lesson);
  w_.lessonDock()->show();
  w_.lessonDock()->raise();
  if (copies.size() > 1) {
    w_.comparisonDock()->show();
    w_.comparisonDock()->raise();
  }
  experiment_ = std::make_shared<const Lesson>(l);
  if (lesson->number > 0)
    w_.setWindowTitle(QString("Lesson %1: %2 — MechStudio").arg(lesson->number).arg(QString::fromStdString(lesson->title)));
  else
    w_.setWindowTitle(QString("Experiment: %1 — MechStudio")
                       .arg(QString::fromStdString(lesson->title.empty() ? lesson->id : lesson->title)));
  return true;
}
bool ExperimentController::saveExperiment(const QString& path, QString* error) {
  const auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!w_.loadedSystem()) return fail("no model is open");
  // An open lesson's texts, focus and log scale are kept; the rest is what is on screen.
  Lesson e = experiment_ ? *experiment_ : Lesson();
  e.number = 0;
  e.id = QFileInfo(path).completeBaseName().toStdString();
  if (e.title.empty()) e.title = w_.loadedSystem()->model.name.empty() ? e.id : w_.loadedSystem()->model.name;
  e.scene.clear();
  e.modelFile.clear();
  e.modelText.clear();
  e.params = w_.documents()->params();
  // The model: a scene, the file (relative to the experiment), or inline when the simulated text is
  // not the file's (edited and applied, not saved) or the file is an experiment's cached inline model.
  const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
  const QString expDir = QFileInfo(path).absolutePath();
  if (w_.documents()->source().startsWith("scene:")) {
    e.scene = w_.documents()->source().mid(6).toStdString();
  } else {
    QFile file(w_.documents()->source());
    const bool readable = file.open(QIODevice::ReadOnly);
    const std::string onDisk = readable ? file.readAll().toStdString() : std::string();
    const bool inline_ = !readable || QFileInfo(w_.documents()->source()).absoluteFilePath().startsWith(cache) ||
                         (!w_.documents()->appliedText().empty() && w_.documents()->appliedText() != onDisk);
    if (inline_) {
      const std::string& text = w_.documents()->appliedText().empty() ? onDisk : w_.documents()->appliedText();
      const size_t at = text.find("(mechanism");
      if (at == std::string::npos) return fail("the model open is not a .mech model: save it as a file first");
      e.modelText = text.substr(at);
      while (!e.modelText.empty() && std::isspace(static_cast<unsigned char>(e.modelText.back()))) e.modelText.pop_back();
    } else {
      // Relative when it sits beside the experiment or below a common parent (they move together),
      // absolute when the way there climbs further up.
      const QString abs = QFileInfo(w_.documents()->source()).absoluteFilePath(), rel = QDir(expDir).relativeFilePath(abs);
      e.modelFile = (rel.startsWith("../../") ? abs : rel).toStdString();
    }
  }
  e.keyframe = w_.keyframes()->initialKeyframe().toStdString();
  // The copies compared, or the one simulation.
  const Snapshot s = w_.sim().snapshot();
  e.variants.clear();
  if (s.copies.size() >= 2) {
    for (const CopyStatus& c : s.copies) e.variants.push_back({c.spec.label, c.spec.options, c.spec.dt, c.spec.tolerance});
  } else {
    const IntegratorOptions o = w_.sim().integratorOptions();
    e.variants.push_back({o.kind == IntegratorKind::Variational ? "VI" : displayName(o.kind), o, w_.sim().stepSettings().dt, 0});
  }
  if (w_.plots()->timeWindow() > 0) e.duration = w_.plots()->timeWindow();
  e.plots.clear();
  for (PlotDock* d : w_.plots()->signalDocks()) {
    std::vector<std::string> names;
    for (const QString& n : d->signalNames()) names.push_back(n.toStdString());
    if (!names.empty()) e.plots.push_back(names);
  }
  // Every phase portrait open, in order.
  e.phases.clear();
  for (PhaseDock* d : w_.plots()->phaseDocks()) e.phases.emplace_back(d->xAxis().name.toStdString(), d->yAxis().name.toStdString());
  const ViewportWidget::Camera cam = w_.viewport()->camera();
  e.camera = LessonCamera{{{cam.eye.x(), cam.eye.y(), cam.eye.z()}},
                          {{cam.center.x(), cam.center.y(), cam.center.z()}},
                          {{cam.up.x(), cam.up.y(), cam.up.z()}}};
  // Written atomically, after checking that it reads back as the same experiment.
  const std::string text = writeExperiment(e);
  Lesson back;
  Diagnostics diags;
  if (!readExperimentText(text, path.toStdString(), back, diags) || back != e)
    return fail("internal error: the experiment does not read back as written:\n" + QString::fromStdString(errorSummary(diags)));
  QSaveFile out(path);
  const QByteArray bytes = QByteArray::fromStdString(text);
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
    return fail(QString("cannot write %1: %2").arg(path, out.errorString()));
  w_.status()->showMessage(QString("Saved the experiment %1").arg(QFileInfo(path).fileName()), 6000);
  return true;
}

}  // namespace ms::ui
