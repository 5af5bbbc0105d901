// SPDX-License-Identifier: GPL-3.0-or-later
// The plots' struct-of-arrays sample store: appending, rewinding, capacity trimming, block
// min/max summaries for fast decimation, and atomic CSV export.
#include "plots/sample_store.h"

#include <QSaveFile>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace ms::ui {

namespace {

// Index of a field in the double columns (every field except Iterations).
int realIndex(SampleStore::Field f) {
  const int i = static_cast<int>(f);
  return i < static_cast<int>(SampleStore::Field::Iterations) ? i : i - 1;
}

// A sample's value of one field (Iterations excluded).
double sampleValue(const StepSample& s, SampleStore::Field f) {
  switch (f) {
    case SampleStore::Field::Kinetic: return s.kinetic;
    case SampleStore::Field::Potential: return s.potential;
    case SampleStore::Field::Energy: return s.energy;
    case SampleStore::Field::EnergyError: return s.energyError;
    case SampleStore::Field::Violation: return s.violation;
    case SampleStore::Field::Penetration: return s.penetration;
    case SampleStore::Field::LimitViolation: return s.limitViolation;
    case SampleStore::Field::Iterations: return s.iterations;
    case SampleStore::Field::Residual: return s.residual;
    case SampleStore::Field::StepMicroseconds: return s.stepMicroseconds;
    case SampleStore::Field::AngularMomentum: return s.angularMomentum;
    case SampleStore::Field::Count: break;
  }
  return 0;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

// ---- Column -------------------------------------------------------------------------------

// Appends one value and updates (or starts) the last block's summary.
template <typename T>
void SampleStore::Column<T>::push(T v) {
  const std::size_t i = data.size();
  data.push_back(v);
  const auto offset = static_cast<std::uint8_t>(i % kBlock);
  if (offset == 0) blocks.push_back({kInf, -kInf, 0, 0});
  Block& b = blocks.back();
  const double x = static_cast<double>(v);
  if (!std::isfinite(x)) return;
  if (x < b.min) { b.min = x; b.argMin = offset; }
  if (x > b.max) { b.max = x; b.argMax = offset; }
}

// Recomputes one block's summary from its values.
template <typename T>
void SampleStore::Column<T>::summarise(std::size_t block) {
  Block b{kInf, -kInf, 0, 0};
  const std::size_t begin = block * kBlock, end = std::min(data.size(), begin + kBlock);
  for (std::size_t i = begin; i < end; ++i) {
    const double x = static_cast<double>(data[i]);
    if (!std::isfinite(x)) continue;
    if (x < b.min) { b.min = x; b.argMin = static_cast<std::uint8_t>(i - begin); }
    if (x > b.max) { b.max = x; b.argMax = static_cast<std::uint8_t>(i - begin); }
  }
  blocks[block] = b;
}

// Keeps the first n values; the last (now partial) block is summarised again.
template <typename T>
void SampleStore::Column<T>::truncate(std::size_t n) {
  if (n >= data.size()) return;
  data.resize(n);
  blocks.resize((n + kBlock - 1) / kBlock);
  if (n % kBlock != 0) summarise(blocks.size() - 1);
}

// Drops the first n values (a whole number of blocks, so the other summaries stay valid).
template <typename T>
void SampleStore::Column<T>::dropFront(std::size_t n) {
  data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
  blocks.erase(blocks.begin(), blocks.begin() + static_cast<std::ptrdiff_t>(n / kBlock));
}

// Reserves room for n values.
template <typename T>
void SampleStore::Column<T>::reserve(std::size_t n) {
  data.reserve(n);
  blocks.reserve(n / kBlock + 1);
}

// Drops everything and frees the memory.
template <typename T>
void SampleStore::Column<T>::clear() {
  std::vector<T>().swap(data);
  std::vector<Block>().swap(blocks);
}

// Finite min/max over [begin, end): partial blocks value by value, whole blocks by summary.
template <typename T>
SampleStore::Extremes SampleStore::Column<T>::extremes(std::size_t begin, std::size_t end) const {
  double mn = kInf, mx = -kInf;
  std::size_t argMin = 0, argMax = 0;
  auto visit = [&](double x, std::size_t i) {
    if (!std::isfinite(x)) return;
    if (x < mn) { mn = x; argMin = i; }
    if (x > mx) { mx = x; argMax = i; }
  };
  std::size_t i = begin;
  // Head: up to the first block boundary.
  for (; i < end && i % kBlock != 0; ++i) visit(static_cast<double>(data[i]), i);
  // Whole blocks.
  for (; i + kBlock <= end; i += kBlock) {
    const Block& b = blocks[i / kBlock];
    if (b.min < mn) { mn = b.min; argMin = i + b.argMin; }
    if (b.max > mx) { mx = b.max; argMax = i + b.argMax; }
  }
  // Tail.
  for (; i < end; ++i) visit(static_cast<double>(data[i]), i);
  Extremes e;
  e.valid = mn <= mx;
  e.min = mn;
  e.max = mx;
  e.argMin = argMin;
  e.argMax = argMax;
  return e;
}

// ---- SampleStore -----------------------------------------------------------------------------

SampleStore::SampleStore() = default;

// Appends a batch: keeps times sorted, makes room within the capacity, then fills every column.
void SampleStore::append(const std::vector<StepSample>& samples) {
  if (samples.empty()) return;
  // A sample older than the newest stored one means the timeline went back: drop the newer ones.
  if (!time_.empty() && samples.front().time < time_.back()) {
    truncate(lowerBound(samples.front().time));
    ++resetRevision_;
  }
  std::size_t first = 0;
  if (samples.size() > capacity_) {  // more than we keep: only the newest capacity_ of the batch
    dropped_ += time_.size() + (samples.size() - capacity_);
    truncate(0);
    first = samples.size() - capacity_;
  } else if (time_.size() + samples.size() > capacity_) {
    // Drop the oldest in whole blocks, at least capacity/16 at a time (amortises the erase).
    const std::size_t need = time_.size() + samples.size() - capacity_;
    std::size_t drop = std::max(need, capacity_ / 16);
    drop = std::min(time_.size(), (drop + kBlock - 1) / kBlock * kBlock);
    dropOldest(drop);
    if (time_.size() + samples.size() > capacity_) {  // only possible when size < kBlock
      dropped_ += time_.size();
      truncate(0);
    }
  }
  reserveFor(samples.size() - first);
  for (std::size_t k = first; k < samples.size(); ++k) {
    const StepSample& s = samples[k];
    // A signal watched from now on: its column, NaN for the rows before.
    while (signals_.size() < s.signalValues.size()) {
      signals_.emplace_back();
      signals_.back().reserve(time_.capacity());
      for (std::size_t i = 0; i < time_.size(); ++i) signals_.back().push(std::numeric_limits<double>::quiet_NaN());
    }
    // Within one batch the time must not go back either (defensive; keeps binary search valid).
    if (!time_.empty() && s.time < time_.back()) {
      truncate(lowerBound(s.time));
      ++resetRevision_;
    }
    step_.push_back(s.step);
    time_.push_back(s.time);
    for (int f = 0; f < kFieldCount; ++f) {
      const auto field = static_cast<Field>(f);
      if (field == Field::Iterations) continue;
      real_[static_cast<std::size_t>(realIndex(field))].push(sampleValue(s, field));
    }
    iterations_.push(static_cast<std::int32_t>(s.iterations));
    for (std::size_t c = 0; c < signals_.size(); ++c)
      signals_[c].push(c < s.signalValues.size() ? s.signalValues[c] : std::numeric_limits<double>::quiet_NaN());
  }
  ++revision_;
}

// Drops the samples after `time`.
void SampleStore::rewind(double time) {
  const std::size_t n = upperBound(time);
  if (n == time_.size()) return;
  truncate(n);
  ++revision_;
  ++resetRevision_;
}

// Drops everything and releases the memory.
void SampleStore::clear() {
  step_ = {};
  time_ = {};
  for (auto& c : real_) c.clear();
  iterations_.clear();
  signals_.clear();
  dropped_ = 0;
  ++revision_;
  ++resetRevision_;
}

// Changes the capacity, trimming the oldest samples (in whole blocks) if needed.
void SampleStore::setCapacity(std::size_t samples) {
  capacity_ = std::max(samples, kBlock);
  if (time_.size() > capacity_) {
    const std::size_t drop = std::min(time_.size(), (time_.size() - capacity_ + kBlock - 1) / kBlock * kBlock);
    dropOldest(drop);
    ++revision_;
    ++resetRevision_;
  }
}

// One value of one field.
double SampleStore::value(Field f, std::size_t i) const {
  if (f == Field::Iterations) return iterations_.data[i];
  if (isSignal(f)) {
    const std::size_t k = static_cast<std::size_t>(f) - kFieldCount;
    return k < signals_.size() ? signals_[k].data[i] : std::numeric_limits<double>::quiet_NaN();
  }
  return real_[static_cast<std::size_t>(realIndex(f))].data[i];
}

// Binary searches on the (non-decreasing) times.
std::size_t SampleStore::lowerBound(double t, std::size_t from) const {
  from = std::min(from, time_.size());
  return static_cast<std::size_t>(std::lower_bound(time_.begin() + static_cast<std::ptrdiff_t>(from), time_.end(), t) - time_.begin());
}

std::size_t SampleStore::upperBound(double t, std::size_t from) const {
  from = std::min(from, time_.size());
  return static_cast<std::size_t>(std::upper_bound(time_.begin() + static_cast<std::ptrdiff_t>(from), time_.end(), t) - time_.begin());
}

std::size_t SampleStore::nearest(double t) const {
  const std::size_t i = lowerBound(t);
  if (i == 0) return 0;
  if (i >= time_.size()) return time_.size() - 1;
  return (t - time_[i - 1] <= time_[i] - t) ? i - 1 : i;
}

// Min/max of a field over an index range.
SampleStore::Extremes SampleStore::extremes(Field f, std::size_t begin, std::size_t end) const {
  end = std::min(end, time_.size());
  if (begin >= end) return {};
  if (f == Field::Iterations) return iterations_.extremes(begin, end);
  if (isSignal(f)) {
    const std::size_t k = static_cast<std::size_t>(f) - kFieldCount;
    return k < signals_.size() ? signals_[k].extremes(begin, end) : Extremes{};
  }
  return real_[static_cast<std::size_t>(realIndex(f))].extremes(begin, end);
}

// Drops the n oldest samples (n is a multiple of kBlock or everything).
void SampleStore::dropOldest(std::size_t n) {
  if (n == 0) return;
  if (n >= time_.size()) {
    dropped_ += time_.size();
    truncate(0);
    return;
  }
  step_.erase(step_.begin(), step_.begin() + static_cast<std::ptrdiff_t>(n));
  time_.erase(time_.begin(), time_.begin() + static_cast<std::ptrdiff_t>(n));
  for (auto& c : real_) c.dropFront(n);
  iterations_.dropFront(n);
  for (auto& c : signals_) c.dropFront(n);
  dropped_ += n;
}

// Keeps the first n samples.
void SampleStore::truncate(std::size_t n) {
  if (n >= time_.size()) return;
  step_.resize(n);
  time_.resize(n);
  for (auto& c : real_) c.truncate(n);
  iterations_.truncate(n);
  for (auto& c : signals_) c.truncate(n);
}

// Grows every column geometrically (never beyond the capacity) to fit `extra` more samples.
void SampleStore::reserveFor(std::size_t extra) {
  const std::size_t need = time_.size() + extra;
  if (need <= time_.capacity()) return;
  const std::size_t target = std::min(std::max(need, 2 * time_.capacity()), std::max(need, capacity_));
  step_.reserve(target);
  time_.reserve(target);
  for (auto& c : real_) c.reserve(target);
  iterations_.reserve(target);
  for (auto& c : signals_) c.reserve(target);
}

const char* SampleStore::csvHeader() {
  return "step,time,kinetic,potential,energy,energy_error,violation,penetration,limit_violation,iterations,residual,"
         "step_us,angular_momentum\n";
}

// CSV export: shortest round-trip formatting (std::to_chars, locale independent), written in
// ~1 MB chunks to a QSaveFile that replaces the target only when everything was written.
bool SampleStore::writeCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  std::string buf;
  buf.reserve(1 << 20);
  buf += csvHeader();
  // The signal columns after the fixed ones (the header's line break moved behind them).
  if (!signals_.empty()) {
    buf.pop_back();
    for (std::size_t k = 0; k < signals_.size(); ++k) {
      const QString h = k < signalHeaders_.size() ? signalHeaders_[k] : QStringLiteral("signal_%1").arg(k);
      std::string field = h.toStdString();
      if (field.find_first_of(",\"\n") != std::string::npos) {
        std::string q = "\"";
        for (char c : field) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        field = q + "\"";
      }
      buf += ',' + field;
    }
    buf += '\n';
  }
  char num[64];
  // Appends one number and a separator.
  auto put = [&](auto v, char sep) {
    const auto r = std::to_chars(num, num + sizeof num, v);
    buf.append(num, r.ptr);
    buf += sep;
  };
  static constexpr Field kOrder[] = {Field::Kinetic, Field::Potential, Field::Energy, Field::EnergyError,
                                     Field::Violation, Field::Penetration, Field::LimitViolation};
  for (std::size_t i = 0; i < time_.size(); ++i) {
    put(step_[i], ',');
    put(time_[i], ',');
    for (Field f : kOrder) put(real_[static_cast<std::size_t>(realIndex(f))].data[i], ',');
    put(iterations_.data[i], ',');
    put(real_[static_cast<std::size_t>(realIndex(Field::Residual))].data[i], ',');
    put(real_[static_cast<std::size_t>(realIndex(Field::StepMicroseconds))].data[i], ',');
    put(real_[static_cast<std::size_t>(realIndex(Field::AngularMomentum))].data[i], signals_.empty() ? '\n' : ',');
    for (std::size_t k = 0; k < signals_.size(); ++k) {
      const double v = signals_[k].data[i];
      if (std::isfinite(v)) {
        put(v, k + 1 < signals_.size() ? ',' : '\n');
      } else {
        buf += k + 1 < signals_.size() ? ',' : '\n';  // not watched yet: empty field
      }
    }
    // Flush a full chunk.
    if (buf.size() > (1u << 20) - 512) {
      if (file.write(buf.data(), static_cast<qint64>(buf.size())) != static_cast<qint64>(buf.size())) break;
      buf.clear();
    }
  }
  file.write(buf.data(), static_cast<qint64>(buf.size()));
  if (file.error() != QFileDevice::NoError || !file.commit()) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    file.cancelWriting();
    return false;
  }
  return true;
}

}  // namespace ms::ui
