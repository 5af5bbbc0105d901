// SPDX-License-Identifier: GPL-3.0-or-later
#include "integrator/integrator_options.h"

#include <cmath>
#include <cstdio>

#include "core/check.h"
#include "integrator/explicit_rk.h"
#include "integrator/gc/midpoint_gc_step.h"
#include "integrator/gc/riqn_step.h"
#include "integrator/exponential_step.h"
#ifdef MECHSTUDIO_HAVE_MUJOCO
#include "integrator/mujoco_copy.h"
#endif
#include "integrator/variational_step.h"

namespace ms {

const char* toString(IntegratorKind k) {
  switch (k) {
    case IntegratorKind::Variational: return "vi";
    case IntegratorKind::ExplicitEuler: return "euler";
    case IntegratorKind::SymplecticEuler: return "symplectic-euler";
    case IntegratorKind::Heun: return "heun";
    case IntegratorKind::RK4: return "rk4";
    case IntegratorKind::Exponential: return "exponential";
    case IntegratorKind::MidpointGC: return "midpoint-gc";
    case IntegratorKind::RIQN: return "riqn";
    case IntegratorKind::MuJoCo: return "mujoco";
  }
  return "?";
}

const char* displayName(IntegratorKind k) {
  switch (k) {
    case IntegratorKind::Variational: return "variational";
    case IntegratorKind::ExplicitEuler: return "explicit Euler";
    case IntegratorKind::SymplecticEuler: return "symplectic Euler";
    case IntegratorKind::Heun: return "Heun (RK2)";
    case IntegratorKind::RK4: return "RK4";
    case IntegratorKind::Exponential: return "exponential";
    case IntegratorKind::MidpointGC: return "midpoint VI (generalized coord.)";
    case IntegratorKind::RIQN: return "RIQN (generalized coord.)";
    case IntegratorKind::MuJoCo: return "MuJoCo";
  }
  return "?";
}

std::string integratorChoices() {
  std::string s;
  const int n = int(sizeof kIntegratorKinds / sizeof kIntegratorKinds[0]);
  for (int i = 0; i < n; ++i) s += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + toString(kIntegratorKinds[i]);
  return s;
}

const char* iterationUnit(IntegratorKind k) {
  switch (k) {
    case IntegratorKind::Variational:
    case IntegratorKind::MidpointGC: return "Newton iterations";
    case IntegratorKind::RIQN: return "RIQN iterations";
    case IntegratorKind::MuJoCo: return "MuJoCo solver iterations";
    default: return "KKT solves";
  }
}

std::string unavailableReason(IntegratorKind k) {
#ifndef MECHSTUDIO_HAVE_MUJOCO
  if (k == IntegratorKind::MuJoCo)
    return "this build has no MuJoCo (install Debian's libmujoco-dev and configure again)";
#endif
  (void)k;
  return {};
}

const char* toString(ContactModel c) { return c == ContactModel::Rigid ? "rigid" : "soft"; }

bool parseIntegratorKind(const std::string& s, IntegratorKind& out) {
  for (IntegratorKind k : kIntegratorKinds)
    if (s == toString(k)) {
      out = k;
      return true;
    }
  return false;
}

bool parseContactModel(const std::string& s, ContactModel& out) {
  if (s == "rigid") out = ContactModel::Rigid;
  else if (s == "soft") out = ContactModel::Soft;
  else return false;
  return true;
}

const char* toString(MuJoCoScheme s) {
  return s == MuJoCoScheme::RK4 ? "rk4" : s == MuJoCoScheme::Implicit ? "implicit" : "euler";
}

bool parseMuJoCoScheme(const std::string& s, MuJoCoScheme& out) {
  for (MuJoCoScheme m : {MuJoCoScheme::Euler, MuJoCoScheme::RK4, MuJoCoScheme::Implicit})
    if (s == toString(m)) {
      out = m;
      return true;
    }
  return false;
}

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

std::string describe(const IntegratorOptions& o) {
  std::string s = toString(o.kind);
  if (o.contacts == ContactModel::Soft)
    s += ", soft contacts K=" + num(o.contactStiffness) + " B=" + num(o.contactDamping);
  if (o.baumgarteAlpha != 0 || o.baumgarteBeta != 0)
    s += ", Baumgarte alpha=" + num(o.baumgarteAlpha) + " beta=" + num(o.baumgarteBeta);
  if (o.kind == IntegratorKind::MuJoCo) s += std::string(" (") + toString(o.mujocoScheme) + ")";
  return s;
}

void validateIntegratorOptions(const IntegratorOptions& o, const CompiledSystem& sys) {
  const bool vi = o.kind == IntegratorKind::Variational;
  const bool hasContacts = !sys.contacts.empty();
  // Gains and contact parameters first: they are wrong whatever the integrator.
  if (!(std::isfinite(o.contactStiffness) && o.contactStiffness > 0))
    throw UserError("contact stiffness must be a positive number of N/m, got " + num(o.contactStiffness));
  if (!(std::isfinite(o.contactDamping) && o.contactDamping >= 0))
    throw UserError("contact damping must be zero or a positive number of N s/m, got " + num(o.contactDamping));
  if (!(std::isfinite(o.baumgarteAlpha) && o.baumgarteAlpha >= 0) || !(std::isfinite(o.baumgarteBeta) && o.baumgarteBeta >= 0))
    throw UserError("Baumgarte gains must be zero or positive numbers of 1/s");
  if (o.kind != IntegratorKind::MuJoCo && o.mujocoScheme != MuJoCoScheme::Euler)
    throw UserError(std::string("MuJoCo's integrator (") + toString(o.mujocoScheme) + ") applies to the mujoco copy, not to " +
                    toString(o.kind));
  const bool gc = o.kind == IntegratorKind::MidpointGC || o.kind == IntegratorKind::RIQN;
  if (!unavailableReason(o.kind).empty())
    throw UserError(std::string("integrator '") + toString(o.kind) + "' is not available: " + unavailableReason(o.kind));
  // Armature (reflected rotor inertia on a joint coordinate): the variational integrator's.
  if (!vi)
    for (const CompiledJoint& j : sys.joints)
      if (j.hasArmature)
        throw UserError("joint '" + j.name + "' has an armature (rotor inertia on its coordinate), which only the variational "
                        "integrator applies; " + std::string(toString(o.kind)) + " cannot simulate it");
  // Joint couplings (mimic joints, joint equalities): constraints of the variational integrator.
  if (!vi && !sys.couplings.empty())
    throw UserError("coupling '" + sys.model.couplings[0].name + "' ties two joint coordinates together, which only the "
                    "variational integrator enforces; " + std::string(toString(o.kind)) + " cannot simulate it");
  if (gc || o.kind == IntegratorKind::MuJoCo) {
    const std::string name = toString(o.kind);
    if (o.baumgarteAlpha != 0 || o.baumgarteBeta != 0)
      throw UserError("Baumgarte gains apply to euler, symplectic-euler, heun and rk4, not to " + name);
    if (o.contacts == ContactModel::Soft)
      throw UserError("soft contacts are for euler, symplectic-euler, heun, rk4 and exponential, not for " + name);
  }
  if (gc) {
    const std::string name = toString(o.kind);
    if (!sys.model.tendons.empty())
      throw UserError("the model has tendons; " + name +
                      " integrates each joint's own coordinate efforts; use the variational integrator or an explicit one");
    if (hasContacts)
      throw UserError("the model has contacts; " + name +
                      " integrates the joint coordinates of a tree without contact constraints (as in its paper); "
                      "use the variational integrator");
    if (!sys.limits.empty())
      throw UserError("the model has joint limits; " + name +
                      " has no inequality constraints (as in its paper); use the variational integrator");
    // The joint types and, for riqn, the absence of loops: checked by the coordinate tree (gc_tree.cc).
    validateGeneralizedCoordinates(sys, o.kind == IntegratorKind::RIQN);
    return;
  }
  if (o.kind == IntegratorKind::MuJoCo) {
#ifdef MECHSTUDIO_HAVE_MUJOCO
    validateMuJoCoCopy(sys);  // joint types and loops MuJoCo cannot copy (mujoco_copy.cc)
#endif
    return;
  }
  if (vi && (o.baumgarteAlpha != 0 || o.baumgarteBeta != 0))
    throw UserError("the variational integrator keeps the constraints exactly and takes no Baumgarte gains; "
                    "they apply to euler, symplectic-euler, heun and rk4");
  if (vi && o.contacts == ContactModel::Soft)
    throw UserError("the variational integrator treats contacts as rigid constraints (--contacts rigid); "
                    "soft contacts are for euler, symplectic-euler, heun, rk4 and exponential");
  if (o.kind == IntegratorKind::Exponential && o.contacts != ContactModel::Soft)
    throw UserError("the exponential integrator integrates soft contacts (--contacts soft); "
                    "with rigid contacts use the variational integrator");
  if (o.kind == IntegratorKind::Exponential && (o.baumgarteAlpha != 0 || o.baumgarteBeta != 0))
    throw UserError("Baumgarte gains apply to euler, symplectic-euler, heun and rk4, not to the exponential integrator");
  if (!vi && o.contacts == ContactModel::Rigid && hasContacts)
    throw UserError(std::string("the model has contacts and ") + toString(o.kind) +
                    " has no rigid contact model; use --contacts soft, or the variational integrator");
  if (!vi && !sys.limits.empty())
    throw UserError(std::string("the model has joint limits, which only the variational integrator enforces; ") +
                    toString(o.kind) + " cannot simulate it");
}

std::unique_ptr<Integrator> makeIntegrator(const IntegratorOptions& o, std::shared_ptr<const CompiledSystem> sys) {
  validateIntegratorOptions(o, *sys);
  switch (o.kind) {
    case IntegratorKind::Variational: return std::make_unique<VariationalIntegrator>(std::move(sys));
    case IntegratorKind::ExplicitEuler:
    case IntegratorKind::SymplecticEuler:
    case IntegratorKind::Heun:
    case IntegratorKind::RK4: return std::make_unique<ExplicitIntegrator>(o.kind, o, std::move(sys));
    case IntegratorKind::Exponential: return std::make_unique<ExponentialIntegrator>(std::move(sys), o);
    case IntegratorKind::MidpointGC: return std::make_unique<MidpointGCIntegrator>(std::move(sys));
    case IntegratorKind::RIQN: return std::make_unique<RiqnIntegrator>(std::move(sys));
#ifdef MECHSTUDIO_HAVE_MUJOCO
    case IntegratorKind::MuJoCo: return std::make_unique<MuJoCoIntegrator>(std::move(sys), o.mujocoScheme);
#endif
    default: break;
  }
  throw UserError(std::string("integrator '") + toString(o.kind) + "' is not available in this build");
}

}  // namespace ms
