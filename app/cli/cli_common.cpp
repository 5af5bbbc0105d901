// SPDX-License-Identifier: GPL-3.0-or-later
// mechstudio-cli: the helpers every command shares (declared in cli/cli_common.h): one-line errors,
// strict number parsing, --package-path and --set, model loading with diagnostics, CSV fields and the
// interrupt flag.
#include "cli/cli_common.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io/model_file.h"

namespace cli {

// One line: newlines in engine messages (e.g. compile() listing several problems) become "; ".
void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw InputError{"cannot write '" + path + "': " + std::strerror(errno)};
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(tmp, ec);
    throw InputError{"cannot write '" + path + "'"};
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError{"cannot write '" + path + "': " + ec.message()};
  }
}

std::string oneLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\n')
      out += "; ";
    else if (c != '\r')
      out += c;
  }
  return out;
}

// ---- strict number parsing ---------------------------------------------------------------------

// The whole string must be a finite number (no leading/trailing space, no hex, no inf/nan).
std::optional<double> parseDouble(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The whole string must be a decimal integer.
std::optional<long long> parseInteger(const std::string& s) {
  if (s.empty()) return std::nullopt;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

double positiveDouble(const std::string& opt, const std::string& value) {
  const auto v = parseDouble(value);
  if (!v) throw InputError{opt + " expects a number, got '" + value + "'"};
  if (*v < 0) throw InputError{opt + " must be positive, got negative value " + value};
  if (*v == 0) throw InputError{opt + " must be positive, got " + value};
  return *v;
}

double nonNegativeDouble(const std::string& opt, const std::string& value) {
  const auto v = parseDouble(value);
  if (!v || !std::isfinite(*v)) throw InputError{opt + " expects a number, got '" + value + "'"};
  if (*v < 0) throw InputError{opt + " must be 0 or more, got negative value " + value};
  return *v;
}

long long positiveInteger(const std::string& opt, const std::string& value, long long max) {
  const auto v = parseInteger(value);
  if (!v) throw InputError{opt + " expects a whole number, got '" + value + "'"};
  if (*v < 0) throw InputError{opt + " must be positive, got negative value " + value};
  if (*v == 0) throw InputError{opt + " must be positive, got " + value};
  if (*v > max) throw InputError{opt + " is too large (at most " + std::to_string(max) + "), got " + value};
  return *v;
}

// ---- --package-path DIR, --no-ground, --self-collision on|off (every command that loads a model) -----

// A root for URDF package://NAME/PATH meshes: an existing directory.
std::string packageRoot(const std::string& dir) {
  if (dir.empty()) throw InputError{"option --package-path needs a directory"};
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw InputError{"--package-path '" + dir + "' is not a directory"};
  return dir;
}

bool takeLoadOption(const std::vector<std::string>& args, size_t& i, ms::ModelLoadOptions& load) {
  // The option's name and value ("--opt value" or "--opt=value").
  const std::string& a = args[i];
  const size_t eq = a.find('=');
  const std::string name = a.substr(0, eq);
  if (name != "--package-path" && name != "--no-ground" && name != "--self-collision") return false;
  if (name == "--no-ground") {
    if (eq != std::string::npos) throw InputError{"option --no-ground takes no value"};
    load.groundUnderFloatingBase = false;
    return true;
  }
  std::string value;
  if (eq != std::string::npos) {
    value = a.substr(eq + 1);
  } else {
    if (i + 1 >= args.size())
      throw InputError{"option " + name + (name == "--package-path" ? " needs a directory" : " needs 'on' or 'off'")};
    value = args[++i];
  }
  if (name == "--package-path") {
    load.packagePaths.push_back(packageRoot(value));
  } else {
    if (value != "on" && value != "off") throw InputError{"--self-collision takes 'on' or 'off', got '" + value + "'"};
    load.selfCollision = value == "on" ? ms::ModelLoadOptions::SelfCollision::On : ms::ModelLoadOptions::SelfCollision::Off;
  }
  return true;
}

bool takeSetOption(const std::vector<std::string>& args, size_t& i, std::map<std::string, std::string>& params) {
  if (args[i] != "--set") return false;
  if (i + 1 >= args.size()) throw InputError{"option --set needs a value"};
  const std::string v = args[++i];
  const size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError{"--set expects key=value, got '" + v + "'"};
  if (!params.emplace(v.substr(0, eq), v.substr(eq + 1)).second) throw InputError{"--set " + v.substr(0, eq) + " given more than once"};
  return true;
}

// ---- model loading -----------------------------------------------------------------------------

// Prints diagnostics (one per line, file:line:column) to stderr.
void printDiagnostics(const ms::Diagnostics& diags) {
  for (const ms::Diagnostic& d : diags.items()) std::fprintf(stderr, "%s\n", d.format().c_str());
}

// ms::loadModel, with a problem that has no source location (unknown scene, missing file, wrong
// type) turned into one InputError line; located diagnostics stay in `diags` for the caller.
bool readModel(const std::string& source, const std::map<std::string, std::string>& params, ms::Model& model,
               ms::Diagnostics& diags, const ms::ModelLoadOptions& load) {
  const bool ok = ms::loadModel(source, params, model, diags, load);
  if (!ok && diags.items().size() == 1 && diags.items()[0].line == 0)
    throw InputError{"'" + source + "': " + diags.items()[0].message};
  return ok;
}

// The description to simulate: a built-in scene ("scene:NAME") or a model file.
ms::Model loadModel(const SimulateOptions& o) {
  ms::Model model;
  ms::Diagnostics diags;
  const bool ok = readModel(o.model, o.params, model, diags, o.load);
  // Warnings are shown unless --quiet; errors always, then one summary line.
  if (!ok || !o.quiet) printDiagnostics(diags);
  if (!ok) throw InputError{"'" + o.model + "' has " + std::to_string(diags.errorCount()) + " error(s)"};
  return model;
}

// A CSV field: quoted when it contains a comma, a quote or a line break.
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

volatile std::sig_atomic_t gInterrupted = 0;
extern "C" void onSignal(int) { gInterrupted = 1; }

}  // namespace cli
