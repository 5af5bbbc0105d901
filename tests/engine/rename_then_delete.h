// SPDX-License-Identifier: GPL-3.0-or-later
// The Model tree's two reference-following edits in sequence (engine tests of the elements that name
// joints: tendons, couplings): joint 0 renamed to `name`, then body `body` deleted, each edit read
// back. Fills the text after the rename and the model read after the deletion.
#pragma once

#include <string>

#include "io/mech_edit.h"
#include "io/mech_reader.h"

namespace ms::test {

// False (with the reason in `why`) when an edit is refused or its result does not read.
inline bool renameJointThenDeleteBody(const std::string& text, const std::string& name, int body, std::string& renamedText,
                                      MechParseResult& after, std::string& why) {
  Diagnostics d;
  const sexpr::Document doc = sexpr::Document::parse(text, "t.mech", d);
  MechParseResult r;
  if (!readMech(doc, {}, r, d)) return why = d.format(), false;
  const MechEdit renamed = renameJoint(doc, r, 0, name);
  if (!renamed.ok) return why = renamed.error, false;
  renamedText = renamed.doc.text();
  MechParseResult r2;
  if (!readMech(renamed.doc, {}, r2, d)) return why = d.format() + renamedText, false;
  const MechEdit deleted = deleteBody(renamed.doc, r2, body);
  if (!deleted.ok) return why = deleted.error, false;
  if (!readMech(deleted.doc, {}, after, d)) return why = d.format() + deleted.doc.text(), false;
  return true;
}

}  // namespace ms::test
