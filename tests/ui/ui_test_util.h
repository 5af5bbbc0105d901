// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the GUI tests.
#pragma once

#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMouseEvent>
#include <QWidget>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QElapsedTimer>
#include <QThread>
#include <time.h>

namespace ms::ui::test {

// Runs the event loop for `ms` milliseconds (timers fire, views repaint).
inline void pump(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    QThread::msleep(1);
  }
}

// Applies every request queued to a main window's simulation thread, then lets the window pull the
// result (a template so that tests not linking the main window can include this header).
template <class Window>
void settle(Window& w) {
  w.sim().sync();
  w.pullFromSimulation();
  QCoreApplication::processEvents();
}

// n steps of the simulation thread (lockstep ticks in a comparison), then the window pulls them.
template <class Window>
void stepN(Window& w, int n) {
  for (int i = 0; i < n; ++i) w.sim().stepOnce();
  settle(w);
}

// A mouse event carrying the held buttons (QTest::mouseMove cannot).
inline void mouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons,
                  Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, mods);
  QApplication::sendEvent(w, &e);
}

// A left click (press and release) at `at`.
inline void click(QWidget* w, QPointF at, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  mouse(w, QEvent::MouseButtonPress, at, Qt::LeftButton, Qt::LeftButton, mods);
  mouse(w, QEvent::MouseButtonRelease, at, Qt::LeftButton, Qt::NoButton, mods);
}

// Press at `from`, move in `steps` to `to`, release.
inline void drag(QWidget* w, QPointF from, QPointF to, Qt::MouseButton button, Qt::KeyboardModifiers mods = Qt::NoModifier,
                 int steps = 6) {
  mouse(w, QEvent::MouseButtonPress, from, button, button, mods);
  for (int i = 1; i <= steps; ++i) mouse(w, QEvent::MouseMove, from + (to - from) * (double(i) / steps), Qt::NoButton, button, mods);
  mouse(w, QEvent::MouseButtonRelease, to, button, Qt::NoButton, mods);
}

// A file's bytes ("" when it cannot be read).
// Chooses the Build toolbar's joint type by its name ("free", "revolute", …).
template <class Window>
void chooseJoint(Window& w, const char* name) {
  auto* box = w.template findChild<QComboBox*>("tool-joint-type");
  QVERIFY(box);
  const int i = box->findText(name);
  QVERIFY2(i >= 0, name);
  box->setCurrentIndex(i);
}

inline QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The text of models/double-pendulum.mech with a third link hung from the second.
inline QString withThirdLink(const QString& text) {
  QString t = text;
  t.replace("(position 0)))))",
            "(position 0))\n      (body link3 (mass 1) (shape box 0.1 0.1 0.1)\n"
            "        (joint revolute joint3 (axis 1 0 0) (parent-anchor 0 0 0) (child-anchor 0 0 1) (position 0))))))");
  return t;
}

// Removes this process's settings file and its config, cache and data folders (test mode).
inline void removeTestFolders() {
  QStandardPaths::setTestModeEnabled(true);
  QFile::remove(QSettings().fileName());
  for (const auto location : {QStandardPaths::AppConfigLocation, QStandardPaths::CacheLocation,
                              QStandardPaths::AppDataLocation, QStandardPaths::AppLocalDataLocation})
    QDir(QStandardPaths::writableLocation(location)).removeRecursively();
}

// CPU time of this thread in ms: the cost of synchronous GUI work, which other processes sharing
// the cores do not inflate (a timed check on wall time fails on a busy machine).
inline double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Where a test writes what it produces (screenshots to look at): the test executable's own folder,
// in the build tree, whatever the working directory.
inline QString outputPath(const QString& name) { return QDir(QCoreApplication::applicationDirPath()).filePath(name); }

}  // namespace ms::ui::test

// main() of a GUI test: shared GL contexts (required before QApplication, see the design notes)
// and settings, caches and recovery files of its own in Qt's test locations (~/.qttest): the
// application name carries the process id,
// since tests of several checkouts run side by side on one machine and one test's saved settings
// (speed, docks) or gallery copies changed another's; they are removed at the end.
#define MECHSTUDIO_GUI_TEST_MAIN(TestClass)                                                                 \
  int main(int argc, char** argv) {                                                                         \
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);                                             \
    QApplication app(argc, argv);                                                                           \
    QCoreApplication::setOrganizationName("MechStudio");                                                    \
    QCoreApplication::setApplicationName(QStringLiteral("MechStudioTest-%1").arg(QCoreApplication::applicationPid())); \
    QStandardPaths::setTestModeEnabled(true);                                                               \
    int rc = 0;                                                                                             \
    {                                                                                                       \
      TestClass t;                                                                                          \
      rc = QTest::qExec(&t, argc, argv);                                                                    \
    }                                                                                                       \
    ms::ui::test::removeTestFolders();                                                                      \
    return rc;                                                                                              \
  }
