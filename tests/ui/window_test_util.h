// SPDX-License-Identifier: GPL-3.0-or-later
// A main window for the document tests: shown, its questions (save, discard, reload, recover …)
// answered by a script and recorded, a model file opened.
#pragma once

#include <QFile>
#include <QList>
#include <QString>
#include <QTest>
#include <memory>

#include "document_controller.h"
#include "main_window.h"

namespace ms::ui::test {

// Makes `w`: every question is appended to `asked` and answered with what `answer` holds when it
// is asked; opens `path`. A failure is a test failure (check QTest::currentTestFailed()).
inline void openAnsweredWindow(std::unique_ptr<MainWindow>& w, const QString& path,
                               QList<DocumentController::Question>& asked, const DocumentController::Answer& answer) {
  w = std::make_unique<MainWindow>();
  w->documents()->setAsker([&asked, &answer](DocumentController::Question q, const QString&) {
    asked.append(q);
    return answer;
  });
  w->resize(1280, 800);
  w->show();
  QVERIFY(QTest::qWaitForWindowExposed(w.get()));
  QString err;
  QVERIFY2(w->documents()->openModel(path, &err), qPrintable(err));
}

// Closes `w` without a prompt (unsaved edits discarded: `answer` becomes Reject) and removes the
// recovery file of `path`.
inline void closeAnsweredWindow(std::unique_ptr<MainWindow>& w, const QString& path, DocumentController::Answer& answer) {
  answer = DocumentController::Answer::Reject;
  if (w) w->close();
  w.reset();
  QFile::remove(DocumentController::recoveryPath(path));
}

}  // namespace ms::ui::test
