// SPDX-License-Identifier: GPL-3.0-or-later
// Allocation counter for the "no heap allocation inside a step" checks: counts operator new and
// (with glibc, without ASan) malloc calls while g_countAllocations is set. Eigen allocates with
// malloc, so interposing malloc is what catches dynamic Eigen temporaries. The replacement
// allocation functions are defined once, in allocation_counter.cpp (linked into engine_tests);
// MS_TEST_COUNTS_MALLOC is defined when malloc is counted.
#pragma once

#include <atomic>

extern std::atomic<bool> g_countAllocations;
extern std::atomic<long> g_allocations;
// operator new (and new[]) calls alone while g_countAllocations is set (malloc not counted).
extern std::atomic<long> g_operatorNews;

#if defined(__SANITIZE_ADDRESS__)
#define MS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MS_TEST_ASAN 1
#endif
#endif
#if defined(__GLIBC__) && !defined(MS_TEST_ASAN)
#define MS_TEST_COUNTS_MALLOC 1
#endif
