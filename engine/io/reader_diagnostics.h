// SPDX-License-Identifier: GPL-3.0-or-later
// Message helpers shared by the readers (.mech, trep, mesh files): number counts, computed
// quantities and line:column places in diagnostics. "Did you mean …?" suggestions are in core/suggest.h.
#pragma once

#include <cstddef>
#include <string>

namespace ms {

// "3 numbers", "3 or 4 numbers", "1 to 6 numbers", "at least 1 number" (hi = size_t(-1): no upper bound).
std::string countText(size_t lo, size_t hi);

// A computed quantity for a message, to 6 significant digits (locale-independent).
std::string approx(double v);

// "12:5": a place named in a message that points at another place ("first defined at 12:5").
std::string lineColumn(int line, int column);

}  // namespace ms
