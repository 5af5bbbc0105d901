// SPDX-License-Identifier: GPL-3.0-or-later
// Allocation counter for the "no heap allocation inside a step" checks: counts operator new and
// (with glibc, without ASan) malloc calls while g_countAllocations is set. Eigen allocates with
// malloc, so interposing malloc is what catches dynamic Eigen temporaries. Include it in exactly
// one translation unit of a test executable (it replaces the global allocation functions);
// MS_TEST_COUNTS_MALLOC is defined when malloc is counted.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_countAllocations{false};
std::atomic<long> g_allocations{0};
inline void countAllocation() {
  if (g_countAllocations.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
#define MS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MS_TEST_ASAN 1
#endif
#endif
#if defined(__GLIBC__) && !defined(MS_TEST_ASAN)
#define MS_TEST_COUNTS_MALLOC 1
// glibc's own allocator entry point; our malloc forwards to it (free/realloc stay glibc's).
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) noexcept {
  countAllocation();
  return __libc_malloc(size);
}
#endif

// Replaceable global operator new/delete (counted as well).
void* operator new(std::size_t size) {
  countAllocation();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
