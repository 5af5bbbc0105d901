// SPDX-License-Identifier: GPL-3.0-or-later
// The counting allocation functions of allocation_counter.h: they replace the global operator
// new/delete (and, with glibc and without ASan, malloc) of the whole engine_tests executable and
// count only while g_countAllocations is set.
#include "allocation_counter.h"

#include <cstddef>
#include <cstdlib>
#include <new>

std::atomic<bool> g_countAllocations{false};
std::atomic<long> g_allocations{0};
std::atomic<long> g_operatorNews{0};

namespace {
inline void countAllocation() {
  if (g_countAllocations.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#ifdef MS_TEST_COUNTS_MALLOC
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
  if (g_countAllocations.load(std::memory_order_relaxed)) g_operatorNews.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too (std::stable_sort's buffer): all of them must come from malloc, since the
// deletes below free (AddressSanitizer reports an operator new/free mismatch otherwise).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return operator new(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return operator new(size, std::nothrow); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
