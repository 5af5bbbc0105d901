// SPDX-License-Identifier: GPL-3.0-or-later
// Our engine in the peer benchmark: the variational integrator through Simulation::step(), as in
// mechstudio-bench (so the per-step metrics — energies, constraint violation — are included), at
// Δt = the scene's and Newton tolerance 1e-10 on the residual ∞-norm; every other setting is the
// model's default (engine/model/model.h SolverSettings).
#include <memory>

#include "peer_runner.h"
#include "simulation.h"

namespace peers {
namespace {

constexpr double kTolerance = 1e-10;

class OursInstance : public PeerInstance {
 public:
  explicit OursInstance(const PeerScene& s) : sim_(s.sys) {
    sim_.settings().dt = s.dt;
    sim_.settings().tolerance = kTolerance;
    sim_.reset();
  }
  bool step() override { return sim_.step(); }
  void pose(int body, Vec3& x, Vec4& q) const override {
    x = sim_.state().bodies[size_t(body)].x;
    q = sim_.state().bodies[size_t(body)].q;
  }
  std::string failure() const override { return sim_.metrics().message; }

 private:
  ms::Simulation sim_;
};

}  // namespace

PeerEngine oursEngine() { return makePeerEngine<OursInstance>("ours", "MechStudio VI", "Simulation::step() (variational integrator + per-step metrics), tolerance 1e-10"); }

}  // namespace peers
