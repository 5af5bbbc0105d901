// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's status display: the failure/diagnostics banner above the 3D view and the
// status bar's labels (model, simulation time, µs per step, Newton iterations, real-time factor,
// contacts, solver remedies), filled from a simulation snapshot.
#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QMainWindow;
class QPushButton;
class QWidget;

namespace ms::ui {

struct Snapshot;

class StatusBar : public QObject {
  Q_OBJECT
 public:
  // Adds the labels to `window`'s status bar; the banner is for the window to lay out (banner()).
  explicit StatusBar(QMainWindow* window);

  QWidget* banner() const { return banner_; }
  // Long diagnostics lists: the first lines shown, all of them behind Details….
  void showBanner(const QString& text, bool error, int shownLines = 2);
  void hideBanner();
  // The text of the failure/diagnostics banner ("" when hidden).
  QString bannerText() const;
  // The model label at the left ("four-bar: 4 bodies, 4 joints").
  void setModelText(const QString& text);
  // A temporary message in the status bar.
  void showMessage(const QString& text, int timeoutMs = 0);
  // The figures of a snapshot into the labels.
  void update(const Snapshot& s);

 private:
  QMainWindow* window_;
  QWidget* banner_ = nullptr;
  QLabel* bannerLabel_ = nullptr;
  QPushButton* bannerDetails_ = nullptr;
  QString bannerFull_;  // the whole text (the label shows the first lines)
  QLabel *statusTime_, *statusStep_, *statusIter_, *statusRtf_, *statusContacts_, *statusModel_, *statusSolver_;
};

}  // namespace ms::ui
