// SPDX-License-Identifier: GPL-3.0-or-later
// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), for the tests that bound how much work
// an input may cost: unlike the wall time it is not stretched by other processes on a busy machine.
#pragma once

#include <ctime>

namespace ms::test {

inline double threadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

}  // namespace ms::test
