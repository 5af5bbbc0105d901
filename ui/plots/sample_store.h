// SPDX-License-Identifier: GPL-3.0-or-later
// Every StepSample the plots received, kept as a struct of arrays (one compact column per field)
// for export and for display decimation. Each value column also keeps a min/max summary per block
// of kBlock samples, so the min/max of any index range costs O(range / kBlock + kBlock): drawing
// the whole history of millions of samples stays cheap.
//
// Memory is bounded: at most capacity() samples (default 2 000 000, ~92 bytes each, ~185 MB) are
// kept; when an append would exceed it, the oldest samples are dropped in chunks of at least
// capacity/16 (so the front erase is amortised). Times are kept non-decreasing: a sample older
// than the newest stored one first drops every stored sample at or after its time (an implicit
// rewind), so binary search by time is always valid.
#pragma once

#include <QString>
#include <QtGlobal>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/sim_types.h"

namespace ms::ui {

class SampleStore {
 public:
  // The plotted quantities (the columns besides step and time), in CSV order.
  enum class Field : int {
    Kinetic, Potential, Energy, EnergyError, Violation, Penetration, LimitViolation, Iterations, Residual,
    StepMicroseconds, AngularMomentum, Count
  };
  static constexpr int kFieldCount = static_cast<int>(Field::Count);
  static constexpr std::size_t kDefaultCapacity = 2'000'000;
  static constexpr std::size_t kBlock = 64;
  // Signal columns (StepSample::signalValues, in the order of the watch list) follow the fixed fields:
  // signal k is Field(kFieldCount + k). Rows from before a signal was watched hold NaN.
  static Field signalField(int k) { return static_cast<Field>(kFieldCount + k); }
  static bool isSignal(Field f) { return static_cast<int>(f) >= kFieldCount; }

  // The finite minimum and maximum of a range and where they are (absolute indices).
  struct Extremes {
    bool valid = false;  // false: no finite value in the range
    double min = 0, max = 0;
    std::size_t argMin = 0, argMax = 0;
  };

  SampleStore();

  // Appends samples in step order (cheap: no allocation unless the columns must grow).
  void append(const std::vector<StepSample>& samples);
  // Drops the samples with time > `time`.
  void rewind(double time);
  // Drops everything.
  void clear();
  // Maximum number of samples kept (>= kBlock); dropping the oldest if the store is over it.
  void setCapacity(std::size_t samples);
  std::size_t capacity() const { return capacity_; }

  std::size_t size() const { return time_.size(); }
  bool empty() const { return time_.empty(); }
  // Samples kept plus those dropped by the capacity limit since the last clear() (rewound ones
  // are not counted): one per step of the current timeline.
  long receivedCount() const { return static_cast<long>(time_.size()) + static_cast<long>(dropped_); }
  // Increments on every change; rewinds and clears also increment resetRevision().
  quint64 revision() const { return revision_; }
  quint64 resetRevision() const { return resetRevision_; }

  // Element access (i < size()).
  long step(std::size_t i) const { return static_cast<long>(step_[i]); }
  double time(std::size_t i) const { return time_[i]; }
  double value(Field f, std::size_t i) const;
  const std::vector<double>& times() const { return time_; }
  // First index whose time is >= t (lowerBound) or > t (upperBound), searching [from, size()).
  std::size_t lowerBound(double t, std::size_t from = 0) const;
  std::size_t upperBound(double t, std::size_t from = 0) const;
  // The sample nearest in time to t (size() must be > 0).
  std::size_t nearest(double t) const;
  // Finite min/max of field f over indices [begin, end), using the block summaries.
  Extremes extremes(Field f, std::size_t begin, std::size_t end) const;

  // Signal columns so far, and their CSV headers ("crank.angle [rad]"; default "signal_k").
  int signalCount() const { return static_cast<int>(signals_.size()); }
  void setSignalHeaders(const std::vector<QString>& headers) { signalHeaders_ = headers; }

  // Writes every stored sample as CSV (header + one row per sample, exact round-trip doubles;
  // the signal columns last), atomically through QSaveFile. Returns false with a reason.
  bool writeCsv(const QString& path, QString* error) const;
  static const char* csvHeader();

 private:
  // One column of values with a min/max summary per block of kBlock samples.
  template <typename T>
  struct Column {
    struct Block {
      double min, max;
      std::uint8_t argMin, argMax;  // offsets inside the block
    };
    std::vector<T> data;
    std::vector<Block> blocks;
    void push(T v);
    void truncate(std::size_t n);
    void dropFront(std::size_t n);  // n is a multiple of kBlock
    void reserve(std::size_t n);
    void clear();
    Extremes extremes(std::size_t begin, std::size_t end) const;
    void summarise(std::size_t block);  // recomputes one block from data
  };

  void dropOldest(std::size_t n);
  void truncate(std::size_t n);
  void reserveFor(std::size_t extra);

  std::size_t capacity_ = kDefaultCapacity;
  std::size_t dropped_ = 0;
  quint64 revision_ = 0, resetRevision_ = 0;
  std::vector<std::int64_t> step_;
  std::vector<double> time_;
  std::array<Column<double>, kFieldCount - 1> real_;  // every field except Iterations
  Column<std::int32_t> iterations_;
  std::vector<Column<double>> signals_;
  std::vector<QString> signalHeaders_;
};

}  // namespace ms::ui
