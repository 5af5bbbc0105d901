// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio: the desktop application. Opens the model given on the command line, or a bundled
// example (paused). With --screenshot it renders the window after --steps steps, saves a PNG and
// exits (for docs and tests).
//   mechstudio [MODEL | FILE.experiment | --lesson N|ID|FILE] [--set k=v]... [--integrator NAME [--contacts rigid|soft]]
//              [--keyframe NAME] [--plot SIGNAL]... [--follow BODY] [--select BODY] [--screenshot OUT.png [--steps N] [--size WxH]]
//              [--package-path DIR]...
// Exit status (as mechstudio-cli): 0 ok, 1 bad input (arguments or a model that does not open),
// 2 a step failed (screenshot mode).
#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSurfaceFormat>
#include <QThread>
#include <cstdio>
#include <map>
#include <string>

#include "document_controller.h"
#include "gallery.h"
#include "editor/model_tree.h"
#include "integrator/integrator_options.h"
#include "main_window.h"

namespace {
int fail(int code, const QString& message) {
  std::fprintf(stderr, "mechstudio: error: %s\n", qPrintable(message));
  return code;
}
// Lets the event loop run for `ms` milliseconds (so the view renders).
void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
}
}  // namespace

int main(int argc, char** argv) {
  // --help and --version print text only: they must work without a display (help2man, a terminal
  // over ssh), so Qt's offscreen platform is used for them unless one is chosen.
  bool textOnly = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    textOnly = textOnly || a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version";
  }
  if (textOnly && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // Required before QApplication so that docks holding GL views can float (see design notes).
  QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("MechStudio");
  QCoreApplication::setApplicationName("MechStudio");
  QCoreApplication::setApplicationVersion(MECHSTUDIO_VERSION);
  // The installed theme icon (packaging/), else the copy compiled in; the desktop file name ties the
  // windows to io.mechstudio.MechStudio.desktop (Wayland app id, icon and name in docks and task bars).
  QApplication::setWindowIcon(QIcon::fromTheme("io.mechstudio.MechStudio", QIcon(":/icons/io.mechstudio.MechStudio.svg")));
  QGuiApplication::setDesktopFileName("io.mechstudio.MechStudio");

  QCommandLineParser cli;
  cli.setApplicationDescription("MechStudio: build mechanisms and watch them move correctly.");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addPositionalArgument("model", "Model file (.mech, .trep, .urdf, MJCF .xml/.mjcf) or scene:NAME; default: a bundled example.", "[MODEL]");
  QCommandLineOption shot("screenshot", "Render the window after --steps steps, save it as PNG and exit.", "OUT.png");
  QCommandLineOption steps("steps", "Steps to simulate before --screenshot (default 0).", "N", "0");
  QCommandLineOption size("size", "Window size for --screenshot (default 1280x800).", "WxH", "1280x800");
  QCommandLineOption follow("follow", "The 3D view follows the body of that name.", "BODY");
  QCommandLineOption select("select", "Select the body of that name (model tree, text and 3D view).", "BODY");
  QCommandLineOption set("set", "Override a parameter of a .mech file or scene (repeatable).", "key=value");
  QCommandLineOption integrator("integrator", "Integrator of the model: vi (default), euler, symplectic-euler, heun, rk4, exponential, midpoint-gc, riqn, mujoco.", "NAME");
  QCommandLineOption contacts("contacts", "Contact model with --integrator: rigid (default) or soft.", "MODEL");
  QCommandLineOption lesson("lesson", "Open a lesson (1-11 or its id, e.g. drift, or an experiment file): its model, its integrators compared, its explanation.", "N|ID|FILE");
  QCommandLineOption assemble("assemble", "Assemble the model once it is open (Edit > Assemble: close every loop and write "
                              "the joints' coordinates into the editor's text).");
  QCommandLineOption sideBySide("side-by-side", "Draw compared copies (--lesson) beside the reference instead of as ghosts over it.");
  QCommandLineOption plot("plot", "Plot the model's signals matching a name or glob, e.g. 'crank.*' (repeatable: one plot each; 'mechstudio-cli signals MODEL' lists them).", "SIGNAL");
  QCommandLineOption keyframe("keyframe", "Start paused at the model's (keyframe NAME ...) instead of its initial conditions.", "NAME");
  QCommandLineOption packagePath("package-path", "A directory holding ROS packages, for URDF meshes package://NAME/... (repeatable; for this session, before Settings > Package paths and ROS_PACKAGE_PATH).", "DIR");
  QCommandLineOption noGround("no-ground", "No ground under a floating-base URDF robot for this session (Settings > Imported robots adds one by default).");
  QCommandLineOption selfCollision("self-collision", "Bodies of one mechanism collide with each other (on) or not (off), for this session (default: as the model says; a URDF's is off).", "on|off");
  cli.addOptions({shot, steps, size, set, follow, select, integrator, contacts, lesson, sideBySide, plot, keyframe, packagePath, noGround, selfCollision, assemble});
  if (!cli.parse(app.arguments())) return fail(1, cli.errorText());
  if (cli.isSet("help")) cli.showHelp(0);
  if (cli.isSet("version")) cli.showVersion();
  const QStringList args = cli.positionalArguments();
  if (args.size() > 1) return fail(1, "give at most one model file");
  bool okSteps = false;
  const long nSteps = cli.value(steps).toLong(&okSteps);
  if (!okSteps || nSteps < 0 || nSteps > 100000000) return fail(1, "--steps expects a whole number ≥ 0, got '" + cli.value(steps) + "'");
  if (cli.isSet(steps) && !cli.isSet(shot)) return fail(1, "--steps is used with --screenshot");
  const QStringList wh = cli.value(size).split('x');
  bool okW = false, okH = false;
  const int w = wh.size() == 2 ? wh[0].toInt(&okW) : 0, h = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
  if (!okW || !okH || w < 320 || h < 240 || w > 8192 || h > 8192) return fail(1, "--size expects WxH (320x240 … 8192x8192), got '" + cli.value(size) + "'");

  std::map<std::string, std::string> params;
  for (const QString& kv : cli.values(set)) {
    const int eq = kv.indexOf('=');
    if (eq <= 0) return fail(1, "--set expects key=value, got '" + kv + "'");
    if (!params.emplace(kv.left(eq).toStdString(), kv.mid(eq + 1).toStdString()).second)
      return fail(1, "--set " + kv.left(eq) + " given more than once");
  }
  if (cli.isSet(lesson) && (!args.isEmpty() || !params.empty())) return fail(1, "--lesson opens its own scene: give no model or --set");
  if (!params.empty() && args.isEmpty()) return fail(1, "--set needs a model file or scene");
  const bool experiment = !args.isEmpty() && args[0].endsWith(".experiment", Qt::CaseInsensitive);
  if (experiment && !params.empty()) return fail(1, "--set does not apply to an experiment file: its (model ...) sets the parameters");
  ms::IntegratorOptions integratorOptions;
  if (cli.isSet(integrator) && !ms::parseIntegratorKind(cli.value(integrator).toStdString(), integratorOptions.kind))
    return fail(1, "--integrator expects vi, euler, symplectic-euler, heun, rk4 or exponential, got '" + cli.value(integrator) + "'");
  if (cli.isSet(contacts) && !ms::parseContactModel(cli.value(contacts).toStdString(), integratorOptions.contacts))
    return fail(1, "--contacts expects rigid or soft, got '" + cli.value(contacts) + "'");
  if (cli.isSet(lesson) && (cli.isSet(integrator) || cli.isSet(contacts))) return fail(1, "--lesson chooses its own integrators");
  if (cli.isSet(lesson) && cli.isSet(keyframe)) return fail(1, "--lesson starts from its own state: give no --keyframe");

  // URDF package roots for the session: existing directories.
  QStringList packageRoots;
  for (const QString& dir : cli.values(packagePath)) {
    if (!QFileInfo(dir).isDir()) return fail(1, "--package-path '" + dir + "' is not a directory");
    packageRoots << QFileInfo(dir).absoluteFilePath();
  }

  if (cli.isSet(selfCollision) && cli.value(selfCollision) != "on" && cli.value(selfCollision) != "off")
    return fail(1, "--self-collision takes 'on' or 'off', got '" + cli.value(selfCollision) + "'");

  ms::ui::MainWindow window;
  window.addSessionPackagePaths(packageRoots);
  window.documents()->setSessionLoadOverrides(cli.isSet(noGround) ? std::optional<bool>(false) : std::nullopt,
                                              !cli.isSet(selfCollision) ? 0 : cli.value(selfCollision) == "on" ? 1 : 2);
  QString error;
  bool opened = false;
  if (cli.isSet(lesson)) {
    opened = window.openLesson(cli.value(lesson), &error);
    if (!opened) return fail(1, error);
  } else {
    if (args.isEmpty())
      opened = window.openExample(ms::ui::defaultGalleryResource(), &error);
    else if (experiment)
      opened = window.openExperimentFile(args[0], &error);  // an experiment file opens as a lesson
    else
      opened = window.openModel(args[0], &error, params);
  }
  if (opened && cli.isSet(assemble) && !window.documents()->assembleEditor(&error)) return fail(1, "--assemble: " + error);
  if (opened && (cli.isSet(integrator) || cli.isSet(contacts)) && !window.setIntegrator(integratorOptions, &error))
    return fail(1, "--integrator: " + error);
  // The keyframe after the integrator (a baseline then starts from it as from initial conditions).
  if (opened && cli.isSet(keyframe) && !window.loadKeyframe(cli.value(keyframe), true, &error)) return fail(1, "--keyframe: " + error);
  if (cli.isSet(sideBySide))
    if (QAction* a = window.findChild<QAction*>("view-side-by-side")) a->setChecked(true);
  if (opened && cli.isSet(follow) && !window.followBody(cli.value(follow)))
    return fail(1, "--follow: the model has no body '" + cli.value(follow) + "'");
  if (opened)
    for (const QString& pattern : cli.values(plot))
      if (!window.plotSignals({pattern}, &error)) return fail(1, "--plot: " + error);

  // --select once the window is shown (so the editor scrolls to the body's text).
  auto selectBody = [&] {
    return !opened || !cli.isSet(select) || window.modelTree()->selectBody(cli.value(select));
  };
  if (!cli.isSet(shot)) {
    window.show();
    if (!selectBody()) return fail(1, "--select: the model tree has no body '" + cli.value(select) + "'");
    // Edits left unsaved by a session that did not end normally are offered back.
    QTimer::singleShot(0, &window, [&window] { window.recoverAtStart(); });
    return app.exec();
  }

  // Screenshot mode: fixed size, N steps, render, save, exit.
  if (!opened) return fail(1, error);
  window.resize(w, h);
  window.show();
  settle(300);
  if (!selectBody()) return fail(1, "--select: the model tree has no body '" + cli.value(select) + "'");
  auto& sim = window.sim();
  for (long i = 0; i < nSteps; ++i) {
    sim.stepOnce();
    if (i % 1000 == 999) sim.sync();
  }
  sim.sync();
  settle(400);
  window.pullFromSimulation();
  settle(200);
  const ms::ui::Snapshot s = sim.snapshot();
  if (!window.saveScreenshot(cli.value(shot), &error)) return fail(1, error);
  std::fprintf(stderr, "mechstudio: saved %s after %ld steps (t = %.3f s)\n", qPrintable(cli.value(shot)), s.state.step, s.state.time);
  if (s.failed) return fail(2, QString::fromStdString(s.failure));
  return 0;
}
