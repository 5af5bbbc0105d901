// SPDX-License-Identifier: GPL-3.0-or-later
// The sanitizer stage of scripts/test.sh sets MECHSTUDIO_SANITIZER_BUILD: there a test keeps every
// check but shortens what only repeats work the optimised build already measured (long physics
// runs, many stepped files), since code runs 5–20× slower under AddressSanitizer.
#pragma once

#include <QtGlobal>

namespace ms::test {

inline bool sanitizerBuild() { return qEnvironmentVariableIsSet("MECHSTUDIO_SANITIZER_BUILD"); }

}  // namespace ms::test
