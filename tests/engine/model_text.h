// SPDX-License-Identifier: GPL-3.0-or-later
// A model written in the model language inside a test (fails the test run if it does not read).
#pragma once

#include <QtGlobal>
#include <string>

#include "core/diagnostics.h"
#include "io/mech_reader.h"
#include "io/sexpr.h"
#include "model/model.h"

namespace ms::test {

inline Model parseMech(const std::string& text) {
  MechParseResult r;
  Diagnostics d;
  if (!readMechText(text, "test.mech", {}, r, d)) qFatal("test model does not read: %s", d.format().c_str());
  return r.model;
}

// A text parsed and read, with its document (for the text edits of io/mech_edit.h and
// io/mech_assemble.h); fails the test run on any error.
struct ParsedMech {
  sexpr::Document doc;
  MechParseResult result;
};
inline ParsedMech parseMechDocument(const std::string& text) {
  ParsedMech p;
  Diagnostics d;
  p.doc = sexpr::Document::parse(text, "test.mech", d);
  if (d.hasErrors() || !readMech(p.doc, {}, p.result, d)) qFatal("does not read: %s", d.format().c_str());
  return p;
}

}  // namespace ms::test
