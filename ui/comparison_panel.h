// SPDX-License-Identifier: GPL-3.0-or-later
// The "Comparison" dock: the copies of the loaded model to run side by side in lockstep, one row
// each (label, colour, integrator, contacts, Δt, soft-contact K and B, Baumgarte α and β, and a
// status column: steps, µs per step, Δt chosen by equal cost, or "stopped at t = … : reason").
// The first row is the reference (drawn solid, the others as tinted ghosts). Rows are validated
// against the loaded model with the engine's own reasons before a comparison starts; nothing here
// touches a Simulation.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "sim/sim_types.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace ms::ui {

class ComparisonPanel : public QWidget {
  Q_OBJECT
 public:
  enum Column { Label, Color, Integrator, Dt, Status, Contacts, Stiffness, Damping, Alpha, Beta, ColumnCount };

  explicit ComparisonPanel(QWidget* parent = nullptr);

  // The loaded model (rows are validated against it; the default Δt is its).
  void setSystem(std::shared_ptr<const CompiledSystem> system, double dt);
  // Replaces the rows.
  void setCopies(const std::vector<CopySpec>& copies);
  // The rows as typed (unparsable numbers become NaN).
  std::vector<CopySpec> copies() const;
  // "" when every row makes sense for the model (then *out holds them), else the first reason.
  QString validate(std::vector<CopySpec>* out) const;
  bool equalCost() const;
  void setEqualCost(bool on);
  // Status column and legend notes from the latest snapshot (slow tick).
  void updateStatus(const Snapshot& s);
  QString statusText(int row) const;
  QString problem() const;
  QTableWidget* table() const { return table_; }

  // The colour of the k-th copy (0 = reference) when none is chosen.
  static unsigned defaultColor(int k);
  // "stopped at t = 1.234 s" (the legend note of a stopped copy).
  static QString stoppedNote(const CopyStatus& c);

 public Q_SLOTS:
  void addCopy();
  void removeCopy();
  // Validates, then emits startRequested (or shows why not).
  void start();

 Q_SIGNALS:
  void startRequested(const std::vector<ms::ui::CopySpec>& copies, bool equalCost);
  void stopRequested();

 private:
  void addRow(const CopySpec& c);
  void chooseColor(int row);
  std::shared_ptr<const CompiledSystem> system_;
  double dt_ = 0.01;
  QTableWidget* table_;
  QCheckBox* equalCost_;
  QPushButton *start_, *stop_;
  QLabel* problem_;
};

}  // namespace ms::ui
