// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnostics: collection and "file:line:column: severity: message" formatting.
#include "core/diagnostics.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

namespace ms {

namespace {

// The word printed for a severity.
const char* severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

}  // namespace

// "file:line:column: error: message"; the file, line and column are each left out when unknown
// (empty file, line or column 0; a column is only shown with a line).
std::string Diagnostic::format() const {
  std::string out;
  // Location prefix, as far as it is known.
  if (!file.empty()) out += file;
  if (line > 0) {
    if (!out.empty()) out += ':';
    out += std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  if (!out.empty()) out += ": ";
  // Severity and message.
  out += severityName(severity);
  out += ": ";
  out += message;
  return out;
}

// Appends one diagnostic.
void Diagnostics::add(Severity s, std::string file, int line, int column, std::string message) {
  Diagnostic d;
  d.severity = s;
  d.file = std::move(file);
  d.line = line;
  d.column = column;
  d.message = std::move(message);
  items_.push_back(std::move(d));
}

// True if any diagnostic is an error.
bool Diagnostics::hasErrors() const { return errorCount() > 0; }

// Number of diagnostics with Severity::Error.
int Diagnostics::errorCount() const {
  return static_cast<int>(
      std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

// Every diagnostic on its own line, each terminated by '\n' ("" when empty).
std::string Diagnostics::format() const {
  std::string out;
  for (const Diagnostic& d : items_) {
    out += d.format();
    out += '\n';
  }
  return out;
}

bool readWholeFile(const std::string& path, std::string& text, Diagnostics& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(path, 0, 0, "cannot open the file");
    return false;
  }
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) {
    diags.error(path, 0, 0, "cannot read the file");
    return false;
  }
  text = os.str();
  return true;
}

}  // namespace ms
