// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the MJCF importer never crashes, leaks or hangs on any input, and what it
// imports can be written as .mech text and read back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "io/mjcf_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ms::Model m;
  ms::Diagnostics d;
  if (!ms::importMjcfString(text, "fuzz.xml", "", m, d)) return 0;
  const std::string written = ms::writeMech(m);
  ms::MechParseResult back;
  ms::readMechText(written, "written.mech", {}, back, d, 20000);
  return 0;
}
