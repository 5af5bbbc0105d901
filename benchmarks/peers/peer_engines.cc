// SPDX-License-Identifier: GPL-3.0-or-later
// The engines of the peer benchmark built into this executable (PEERS_HAVE_*, CMakeLists.txt),
// selected by --engines.
#include <algorithm>

#include "peer_runner.h"

namespace peers {

std::vector<PeerEngine> peerEngines(bool everyIntegrator, const std::string& selection) {
  std::vector<PeerEngine> engines;
  if (everyIntegrator)
    for (const char* i : {"vi", "midpoint-gc", "riqn", "rk4", "rk4-baumgarte", "exponential"}) engines.push_back(oursEngine(i));
  else
    engines.push_back(oursEngine());
#ifdef PEERS_HAVE_MUJOCO
  if (everyIntegrator)
    for (const char* i : {"euler", "rk4", "implicit"}) engines.push_back(mujocoEngine(i));
  else
    engines.push_back(mujocoEngine());
#endif
#ifdef PEERS_HAVE_DART
  engines.push_back(dartEngine());
#endif
#ifdef PEERS_HAVE_ODE
  engines.push_back(odeEngine());
#endif
  if (selection.empty()) return engines;
  // An entry names an engine (every integrator of it) or engine:integrator.
  const std::string list = "," + selection + ",";
  engines.erase(std::remove_if(engines.begin(), engines.end(),
                               [&](const PeerEngine& e) {
                                 return list.find("," + e.name + ",") == std::string::npos &&
                                        list.find("," + e.name + ":" + e.integrator + ",") == std::string::npos;
                               }),
                engines.end());
  return engines;
}

}  // namespace peers
