// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the GUI tests.
#pragma once

#include <QApplication>
#include <QCoreApplication>
#include <QTest>
#include <QElapsedTimer>
#include <QThread>

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

}  // namespace ms::ui::test

// main() of a GUI test: shared GL contexts (required before QApplication, see the design notes)
// and the test application's own settings name.
#define MECHSTUDIO_GUI_TEST_MAIN(TestClass)                        \
  int main(int argc, char** argv) {                                \
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);    \
    QApplication app(argc, argv);                                  \
    QCoreApplication::setOrganizationName("MechStudio");           \
    QCoreApplication::setApplicationName("MechStudioTest");        \
    TestClass t;                                                   \
    return QTest::qExec(&t, argc, argv);                           \
  }
