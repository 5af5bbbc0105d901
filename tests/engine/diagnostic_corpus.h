// SPDX-License-Identifier: GPL-3.0-or-later
// Malformed-input corpora (tests/data/mech/bad, tests/data/mjcf/bad): each file's first line states
// the diagnostic its reader must report, "PREFIX LINE:COLUMN: SEVERITY: MESSAGE TERMINATOR"; the
// reader must report exactly that one (among possibly others) and fail when it is an error.
#pragma once

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/diagnostics.h"

namespace ms::test {

struct CorpusResult {
  int checked = 0;       // files whose expectation held
  std::string failures;  // one paragraph per file that did not
};

// `read(path, diags)` reads one file and returns whether it succeeded.
inline CorpusResult checkDiagnosticCorpus(const std::vector<std::string>& files, const std::string& prefix,
                                          const std::string& terminator,
                                          const std::function<bool(const std::string&, Diagnostics&)>& read) {
  CorpusResult r;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    const std::string text = os.str();
    if (text.compare(0, prefix.size(), prefix) != 0) {
      r.failures += path + ": no expectation line\n";
      continue;
    }
    const std::string expected = text.substr(prefix.size(), text.find(terminator) - prefix.size());
    Diagnostics d;
    const bool ok = read(path, d);
    // The diagnostic without its "path:" prefix.
    bool found = false;
    for (const Diagnostic& g : d.items()) {
      std::string f = g.format();
      if (f.compare(0, path.size() + 1, path + ":") == 0) f = f.substr(path.size() + 1);
      found = found || f == expected;
    }
    const bool isError = expected.find(": error: ") != std::string::npos;
    if (!found) r.failures += path + ":\n  expected " + expected + "\n  got\n" + d.format();
    else if (isError == ok) r.failures += path + ": the reader returned " + (ok ? "true" : "false") + "\n";
    else ++r.checked;
  }
  return r;
}

}  // namespace ms::test
