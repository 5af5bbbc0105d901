// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the .mech reader and writer never crash, leak or hang on any input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/mech_reader.h"
#include "io/mech_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Read the bytes as a file (with a small expansion bound so repeat bombs stay fast).
  const std::string text(reinterpret_cast<const char*>(data), size);
  ms::MechParseResult r;
  ms::Diagnostics d;
  ms::readMechText(text, "fuzz.mech", {}, r, d, 20000);
  // Whatever was read must be writable, and the written text readable.
  const std::string written = ms::writeMech(r.model);
  ms::MechParseResult back;
  ms::readMechText(written, "written.mech", {}, back, d, 20000);
  return 0;
}
