// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the GUI tests.
#pragma once

#include <QCoreApplication>
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

}  // namespace ms::ui::test
