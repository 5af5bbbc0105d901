// SPDX-License-Identifier: GPL-3.0-or-later
// Which time stepper a Simulation uses, and how it treats contacts: the variational integrator
// (default) or a baseline — acceleration-level dynamics with explicit Euler, symplectic Euler,
// Heun or RK4, or the exponential integrator of Hammoud et al. 2021 for soft contacts.
#pragma once

#include <memory>
#include <string>

#include "integrator/integrator.h"

namespace ms {

enum class IntegratorKind {
  Variational,
  ExplicitEuler,
  SymplecticEuler,
  Heun,
  RK4,
  Exponential,
  MidpointGC,  // trep's midpoint VI in generalized coordinates (integrator/gc/midpoint_gc_step.h)
  RIQN,        // Lee et al. 2016: DRNEA residual + RIQN quasi-Newton (integrator/gc/riqn_step.h)
  MuJoCo       // a MuJoCo copy of the model (integrator/mujoco_copy.h; optional build dependency)
};
// Every kind, in the order menus list them.
constexpr IntegratorKind kIntegratorKinds[] = {
    IntegratorKind::Variational, IntegratorKind::ExplicitEuler, IntegratorKind::SymplecticEuler,
    IntegratorKind::Heun,        IntegratorKind::RK4,           IntegratorKind::Exponential,
    IntegratorKind::MidpointGC,  IntegratorKind::RIQN,          IntegratorKind::MuJoCo};
// "vi, euler, symplectic-euler, heun, rk4, exponential, midpoint-gc, riqn or mujoco" (help and errors).
std::string integratorChoices();
// What StepReport::iterations counts: "Newton iterations", "RIQN iterations", "KKT solves", …
const char* iterationUnit(IntegratorKind k);
// Empty when this build can make integrators of kind k, else why not (e.g. built without MuJoCo).
std::string unavailableReason(IntegratorKind k);
enum class ContactModel { Rigid, Soft };
// MuJoCo's own integrator in the MuJoCo copy (--mujoco-integrator): semi-implicit Euler (its default),
// RK4, implicit in velocity.
enum class MuJoCoScheme { Euler, RK4, Implicit };

struct IntegratorOptions {
  IntegratorKind kind = IntegratorKind::Variational;
  ContactModel contacts = ContactModel::Rigid;
  // Soft contacts: linear spring–damper per contact point and direction (Hammoud et al. 2021 (1)).
  double contactStiffness = 1e5;  // K [N/m]
  double contactDamping = 300;    // B [N·s/m]
  // Baumgarte stabilisation of the acceleration-level constraints (explicit integrators only):
  // G a = −Ġ v − 2 α G v − β² g. Zero gains: no stabilisation (the constraints drift).
  double baumgarteAlpha = 0;  // velocity gain α [1/s]
  double baumgarteBeta = 0;   // position gain β [1/s]
  MuJoCoScheme mujocoScheme = MuJoCoScheme::Euler;  // kind == MuJoCo only
  bool operator==(const IntegratorOptions& o) const {
    return kind == o.kind && contacts == o.contacts && contactStiffness == o.contactStiffness &&
           contactDamping == o.contactDamping && baumgarteAlpha == o.baumgarteAlpha && baumgarteBeta == o.baumgarteBeta &&
           mujocoScheme == o.mujocoScheme;
  }
  bool operator!=(const IntegratorOptions& o) const { return !(*this == o); }
};

// CLI names: vi, euler, symplectic-euler, heun, rk4, exponential, midpoint-gc, riqn, mujoco.
const char* toString(IntegratorKind k);
// Human-readable name for legends ("variational", "explicit Euler", …).
const char* displayName(IntegratorKind k);
// rigid, soft.
const char* toString(ContactModel c);
// Parse a CLI name; false if unknown.
bool parseIntegratorKind(const std::string& s, IntegratorKind& out);
bool parseContactModel(const std::string& s, ContactModel& out);
// euler, rk4, implicit.
const char* toString(MuJoCoScheme s);
bool parseMuJoCoScheme(const std::string& s, MuJoCoScheme& out);
// A one-line description of the options ("rk4", "exponential, soft K=1e5 B=300", "heun, Baumgarte α=5 β=5").
std::string describe(const IntegratorOptions& o);

// Throws UserError with the reason when the combination makes no sense, alone or for this system
// (e.g. the exponential integrator with rigid contacts, an explicit integrator on a model with rigid
// contacts or joint limits, a negative stiffness).
void validateIntegratorOptions(const IntegratorOptions& o, const CompiledSystem& sys);

// A new integrator for `sys` (options validated first; throws UserError).
std::unique_ptr<Integrator> makeIntegrator(const IntegratorOptions& o, std::shared_ptr<const CompiledSystem> sys);

}  // namespace ms
