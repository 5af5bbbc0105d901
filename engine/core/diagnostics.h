// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnostics with file:line:column, collected in a list that the caller shows or turns into an
// error (readers never throw on bad input; they report every problem they can find).
#pragma once

#include <string>
#include <vector>

namespace ms {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  int line = 0;    // 1-based; 0 = no location
  int column = 0;  // 1-based, in bytes
  std::string message;
  // "file:line:column: error: message" (location parts omitted when unknown).
  std::string format() const;
};

class Diagnostics {
 public:
  void add(Severity s, std::string file, int line, int column, std::string message);
  void error(std::string file, int line, int column, std::string message) {
    add(Severity::Error, std::move(file), line, column, std::move(message));
  }
  void warning(std::string file, int line, int column, std::string message) {
    add(Severity::Warning, std::move(file), line, column, std::move(message));
  }
  bool hasErrors() const;
  int errorCount() const;
  const std::vector<Diagnostic>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }
  // All diagnostics, one per line.
  std::string format() const;

 private:
  std::vector<Diagnostic> items_;
};

// The whole file at `path` into `text` (bytes as they are); false with "cannot open the file" or
// "cannot read the file" reported at path:0:0.
bool readWholeFile(const std::string& path, std::string& text, Diagnostics& diags);

}  // namespace ms
