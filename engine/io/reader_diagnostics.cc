// SPDX-License-Identifier: GPL-3.0-or-later
// Message helpers shared by the text readers (see reader_diagnostics.h).
#include "io/reader_diagnostics.h"

#include <charconv>

namespace ms {

std::string countText(size_t lo, size_t hi) {
  auto noun = [](size_t n) { return n == 1 ? std::string(" number") : std::string(" numbers"); };
  if (lo == hi) return std::to_string(lo) + noun(lo);
  if (hi == size_t(-1)) return "at least " + std::to_string(lo) + noun(lo);
  if (hi == lo + 1) return std::to_string(lo) + " or " + std::to_string(hi) + " numbers";
  return std::to_string(lo) + " to " + std::to_string(hi) + " numbers";
}

std::string approx(double v) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

std::string lineColumn(int line, int column) { return std::to_string(line) + ":" + std::to_string(column); }

}  // namespace ms
