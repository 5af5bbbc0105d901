// SPDX-License-Identifier: GPL-3.0-or-later
// Two tiers of checks:
//  - MS_ASSERT: internal invariants (a bug in the engine if it fires); aborts with a message.
//  - ms::UserError: validated, explained errors about user input; thrown, caught at the API edge.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ms {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] inline void assertFailed(const char* expr, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "mechstudio internal error: %s:%d: assertion '%s' failed%s%s\n", file, line, expr,
               msg ? ": " : "", msg ? msg : "");
  std::abort();
}

}  // namespace ms

#define MS_ASSERT(expr, msg)                                      \
  do {                                                            \
    if (!(expr)) ::ms::assertFailed(#expr, __FILE__, __LINE__, msg); \
  } while (0)
