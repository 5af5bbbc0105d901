// SPDX-License-Identifier: GPL-3.0-or-later
// A model written in the model language inside a test (fails the test run if it does not read).
#pragma once

#include <QtGlobal>
#include <string>

#include "core/diagnostics.h"
#include "io/mech_reader.h"
#include "model/model.h"

namespace ms::test {

inline Model parseMech(const std::string& text) {
  MechParseResult r;
  Diagnostics d;
  if (!readMechText(text, "test.mech", {}, r, d)) qFatal("test model does not read: %s", d.format().c_str());
  return r.model;
}

}  // namespace ms::test
