// SPDX-License-Identifier: GPL-3.0-or-later
// Whether an integrator refuses a simulation's model with the expected reason (engine tests of what
// only some integrators apply: armature, tendons).
#pragma once

#include <QtGlobal>

#include <string>

#include "core/check.h"
#include "integrator/integrator_options.h"
#include "simulation.h"

namespace ms::test {

// Setting integrator `kind` on `sim` throws a UserError whose message contains `reason`.
inline bool refusesIntegrator(Simulation& sim, IntegratorKind kind, const std::string& reason) {
  IntegratorOptions o;
  o.kind = kind;
  try {
    sim.setIntegrator(o);
  } catch (const UserError& e) {
    qInfo("%s", e.what());
    return std::string(e.what()).find(reason) != std::string::npos;
  }
  return false;
}

}  // namespace ms::test
