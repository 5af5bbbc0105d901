// SPDX-License-Identifier: GPL-3.0-or-later
// Kinetic energy of a state: the bodies' ½ m v² + ½ ωᵀJω and the joints' armature ½ a θ̇² (θ̇ the
// joint's minimal-coordinate rate at the state's pose and velocities). One place for every reader
// (the Simulation's metrics and signals, the variational integrator's singular-passage test).
#pragma once

#include "system/compiled_system.h"
#include "system/state.h"

namespace ms {

double kineticEnergy(const CompiledSystem& sys, const State& state);

}  // namespace ms
