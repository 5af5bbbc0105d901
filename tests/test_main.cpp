// SPDX-License-Identifier: GPL-3.0-or-later
// The main of a test executable that holds several Qt Test files (engine_tests, ui_tests; see
// mechstudio_test_executable in tests/CMakeLists.txt): each file keeps its QTEST_MAIN, compiled in
// namespace <file>_ns with main renamed to <file>_main, and `<executable> tst_x [Qt Test
// arguments]` runs tst_x's, e.g.
// `engine_tests tst_capsule_chain longFoldingChainsConverge`. test_list.h (generated) lists the
// files as MS_TEST(tst_x); MS_TEST_EXECUTABLE names the executable.
#include <cstdio>
#include <cstring>

#define MS_TEST(name) \
  namespace name##_ns {   \
  int name##_main(int argc, char* argv[]); \
  }
#include "test_list.h"
#undef MS_TEST

namespace {

struct TestFile {
  const char* name;
  int (*run)(int argc, char* argv[]);
};

#define MS_TEST(name) {#name, name##_ns::name##_main},
const TestFile kTestFiles[] = {
#include "test_list.h"
};
#undef MS_TEST

}  // namespace

int main(int argc, char* argv[]) {
  if (argc >= 2) {
    for (const TestFile& test : kTestFiles) {
      // The test sees its own name as argv[0], then the Qt Test arguments.
      if (std::strcmp(argv[1], test.name) == 0) return test.run(argc - 1, argv + 1);
    }
    std::fprintf(stderr, "%s: no test '%s'\n", MS_TEST_EXECUTABLE, argv[1]);
  }
  std::fprintf(stderr, "usage: %s TEST [Qt Test arguments]; TEST is one of:\n", MS_TEST_EXECUTABLE);
  for (const TestFile& test : kTestFiles) std::fprintf(stderr, "  %s\n", test.name);
  return 2;
}
