// SPDX-License-Identifier: GPL-3.0-or-later
// The .mech reader's mechanism-wide settings: (gravity …) and (solver …).
#include "io/mech_reader_internal.h"

#include <cmath>

namespace ms::mechread {

// (gravity x y z)
void Reader::readGravity(const Node& n) {
  if (hasGravity_) {
    error(n.children[0], "duplicate (gravity ...) (already set at " + at(gravityRef_) + ")");
    return;
  }
  hasGravity_ = true;
  gravityRef_ = ref(n);
  PropertySource src;
  Vec3 g;
  if (vec3(n, g, &src)) model_.gravity = g;
  map_.mechanism.properties["gravity"] = src;
}

// (solver (dt …) (tolerance …) (complementarity-tolerance …) (max-iterations …) (line-search …)
//         (friction-directions …) (sleep …))
void Reader::readSolver(const Node& n) {
  if (hasSolver_) {
    error(n.children[0], "duplicate (solver ...) (already set at " + at(solverRef_) + ")");
    return;
  }
  hasSolver_ = true;
  solverRef_ = ref(n);
  std::map<std::string, SourceRef> seen;
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = n.children[i];
    if (!c.isList() || c.head().empty()) {
      error(c, "expected a solver setting (dt ...), (tolerance ...), (complementarity-tolerance ...), "
               "(max-iterations ...), (line-search ...), (friction-directions ...) or (sleep ...), got " +
                   sexpr::describeNode(c));
      continue;
    }
    const std::string& h = c.head();
    static const std::vector<std::string> settings = {"dt", "tolerance", "complementarity-tolerance",
                                                             "max-iterations", "line-search", "friction-directions",
                                                             "sleep"};
    if (!contains(settings, h)) {
      error(c.children[0], "unknown solver setting '" + h + "'" + suggestion(h, settings));
      continue;
    }
    if (duplicate(seen, h, c, "(solver ...)")) continue;
    PropertySource src;
    std::vector<double> v;
    const bool ok = numbers(c, 1, 1, 1, v, &src);
    map_.mechanism.properties[h] = src;
    if (!ok) continue;
    const Node& val = c.children[1];
    if (h == "dt" || h == "tolerance" || h == "complementarity-tolerance") {
      if (!(v[0] > 0)) {
        error(val, std::string(h == "dt" ? "the time step" : "the " + h) + " must be positive (got " + num(v[0]) + ")");
        continue;
      }
      (h == "dt" ? model_.solver.dt : h == "tolerance" ? model_.solver.tolerance : model_.solver.complementarityTolerance) = v[0];
    } else if (h == "sleep") {
      if (!(v[0] >= 0) || !std::isfinite(v[0])) {
        error(val, "(sleep ...) is the time [s] an island must rest before it sleeps, 0 for never (got " + num(v[0]) + ")");
        continue;
      }
      model_.solver.sleepTime = v[0];
    } else if (h == "friction-directions") {
      if (v[0] != std::floor(v[0]) || v[0] < 4 || v[0] > kMaxSolverFrictionDirections || int(v[0]) % 2 != 0) {
        error(val, "(friction-directions ...) must be an even whole number from 4 to " +
                       std::to_string(kMaxSolverFrictionDirections) + " (got " + num(v[0]) + ")");
        continue;
      }
      model_.solver.frictionDirections = int(v[0]);
    } else {
      const long lo = h == "max-iterations" ? 1 : 0;
      if (v[0] != std::floor(v[0]) || v[0] < lo || v[0] > 1e6) {
        error(val, "(" + h + " ...) must be a whole number from " + std::to_string(lo) + " to 1000000 (got " + num(v[0]) + ")");
        continue;
      }
      (h == "max-iterations" ? model_.solver.maxIterations : model_.solver.maxLineSearch) = int(v[0]);
    }
  }
}

}  // namespace ms::mechread
