// SPDX-License-Identifier: GPL-3.0-or-later
// Our engine in the peer benchmark: through Simulation::step(), as in mechstudio-bench (so the
// per-step metrics — energies, constraint violation — are included), at Δt = the scene's and Newton
// tolerance 1e-10 on the residual ∞-norm; every other setting is the model's default
// (engine/model/model.h SolverSettings). The default time stepper is the variational integrator;
// the work-precision mode (work_precision.cc) also runs the others of ours.
#include <memory>
#include <stdexcept>

#include "core/quaternion.h"
#include "integrator/integrator_options.h"
#include "peer_runner.h"
#include "simulation.h"

namespace peers {
namespace {

constexpr double kTolerance = 1e-10;
// Baumgarte gains of the "rk4-baumgarte" variant, α = β [1/s] (G a = −Ġv − 2αGv − β²g).
constexpr double kBaumgarteGain = 10;

class OursInstance : public PeerInstance {
 public:
  OursInstance(const PeerScene& s, const ms::IntegratorOptions& options) : sim_(s.sys) {
    sim_.settings().dt = s.dt;
    sim_.settings().tolerance = kTolerance;
    // A combination that cannot simulate the scene refuses it here, with the reason (ms::UserError).
    if (options != ms::IntegratorOptions{}) sim_.setIntegrator(options);
    sim_.reset();
  }
  bool step() override { return sim_.step(); }
  void pose(int body, Vec3& x, Vec4& q) const override {
    x = sim_.state().bodies[size_t(body)].x;
    q = sim_.state().bodies[size_t(body)].q;
  }
  // The variational integrator's state holds the velocities of the interval after the knot; the
  // velocities at the knot are State::knotVelocity (the energy the engine reports uses those).
  void velocity(int body, Vec3& v, Vec3& w) const override {
    const ms::State& st = sim_.state();
    const ms::BodyState& b = st.bodies[size_t(body)];
    Vec3 wb = b.w;
    v = b.v;
    if (sim_.integratorOptions().kind == ms::IntegratorKind::Variational && st.interval >= 0 &&
        st.knotVelocity.size() == st.bodies.size()) {
      v = st.knotVelocity[size_t(body)].head<3>();
      wb = st.knotVelocity[size_t(body)].tail<3>();
    }
    w = ms::quat::rotation(b.q) * wb;
  }
  std::string failure() const override { return sim_.metrics().message; }

 private:
  ms::Simulation sim_;
};

ms::IntegratorOptions optionsFor(const std::string& integrator) {
  ms::IntegratorOptions o;
  if (integrator == "vi") return o;
  if (integrator == "rk4-baumgarte") {
    o.kind = ms::IntegratorKind::RK4;
    o.baumgarteAlpha = o.baumgarteBeta = kBaumgarteGain;
    return o;
  }
  if (!ms::parseIntegratorKind(integrator, o.kind)) throw std::invalid_argument("unknown integrator of ours: " + integrator);
  if (o.kind == ms::IntegratorKind::Exponential) o.contacts = ms::ContactModel::Soft;
  return o;
}

}  // namespace

PeerEngine oursEngine() { return oursEngine("vi"); }

PeerEngine oursEngine(const std::string& integrator) {
  const ms::IntegratorOptions o = optionsFor(integrator);
  std::string description = integrator == "vi" ? "Simulation::step() (variational integrator + per-step metrics), tolerance 1e-10"
                                               : "Simulation::step() with " + ms::describe(o);
  return {"ours", "MechStudio", integrator, description,
          [o](const PeerScene& s) -> std::unique_ptr<PeerInstance> { return std::make_unique<OursInstance>(s, o); }};
}

}  // namespace peers
