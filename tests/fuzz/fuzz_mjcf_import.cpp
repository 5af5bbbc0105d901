// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the MJCF importer never crashes, leaks or hangs on any input, and what it
// imports can be written as .mech text and read back. Inputs are read with a directory of files to
// <include> (mjcf.dict names them): a body, a default class, a file that includes itself, one that
// includes another, one that is not MJCF and one that is not XML.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "io/mjcf_import.h"

namespace {

// The directory of files to include, written once.
const std::string& includeDir() {
  static const std::string dir = [] {
    char pattern[] = "/tmp/mechstudio-fuzz-mjcf-XXXXXX";
    const char* d = mkdtemp(pattern);
    const std::string path = d ? d : ".";
    auto write = [&](const char* name, const char* text) { std::ofstream(path + "/" + name) << text; };
    write("body.xml", "<mujoco><body name=\"inc\" pos=\"0 0 1\"><joint/><geom size=\"0.1\"/></body></mujoco>");
    write("default.xml", "<mujoco><default><geom density=\"500\"/><joint damping=\"0.1\"/></default></mujoco>");
    write("self.xml", "<mujoco><include file=\"self.xml\"/></mujoco>");
    write("nested.xml", "<mujoco><include file=\"body.xml\"/><geom size=\"0.2\"/></mujoco>");
    write("notmjcf.xml", "<robot name=\"r\"/>");
    write("binary.xml", "<mujoco>\x01\x02</mujoco>");
    return path;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ms::Model m;
  ms::Diagnostics d;
  if (!ms::importMjcfString(text, "fuzz.xml", includeDir(), m, d)) return 0;
  const std::string written = ms::writeMech(m);
  ms::MechParseResult back;
  ms::readMechText(written, "written.mech", {}, back, d, 20000);
  return 0;
}
