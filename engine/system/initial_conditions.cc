// SPDX-License-Identifier: GPL-3.0-or-later
// Initial conditions (see initial_conditions.h). Runs at reset, not per step: it may allocate.
#include "system/initial_conditions.h"

#include "system/assemble.h"

#include <algorithm>

#include <cmath>
#include <limits>
#include <sstream>

#include <Eigen/QR>

#include "core/check.h"
#include "core/quaternion.h"

namespace ms {
namespace {

Vec6 coordinates(const std::vector<double>& v, int n) {
  Vec6 out = Vec6::Zero();
  if (v.size() == 1) out.head(n).setConstant(v[0]);
  for (int i = 0; i < n && i < int(v.size()) && v.size() > 1; ++i) out(i) = v[i];
  return out;
}

// Place every tree joint's child from its parent and coordinates θ + rate·h.
void forwardKinematics(const CompiledSystem& sys, const Model& initial, double h, State& s) {
  for (int k : sys.treeJoints) {
    const JointGeometry& g = sys.joints[k].geo;
    const JointDesc& d = initial.joints[k];
    const int n = g.freeCoordinates();
    const Vec6 theta = coordinates(d.initialPosition, n) + h * coordinates(d.initialVelocity, n);
    const Vec3 xa = g.parent >= 0 ? s.bodies[g.parent].x : Vec3::Zero();
    const Vec4 qa = g.parent >= 0 ? s.bodies[g.parent].q : Vec4(1, 0, 0, 0);
    jointForwardKinematics(g, xa, qa, theta, s.bodies[g.child].x, s.bodies[g.child].q);
  }
}

// The coupled coordinates of `m` where their couplings put them (and at their rates): offset +
// multiplier · the reference's, in the order of the references (a chain takes one pass per link).
void followCouplings(Model& m) {
  for (size_t pass = 0; pass < m.couplings.size(); ++pass) {
    bool changed = false;
    for (const CouplingDesc& c : m.couplings) {
      JointDesc& j = m.joints[size_t(c.joint)];
      const int nf = jointKind(j.type).freeCoordinates();
      Vec6 pos = coordinates(j.initialPosition, nf), vel = coordinates(j.initialVelocity, nf);
      double p = c.offset, v = 0;
      if (c.reference >= 0) {
        const JointDesc& r = m.joints[size_t(c.reference)];
        const int nr = jointKind(r.type).freeCoordinates();
        p += c.multiplier * coordinates(r.initialPosition, nr)[c.referenceCoordinate];
        v = c.multiplier * coordinates(r.initialVelocity, nr)[c.referenceCoordinate];
      }
      if (pos[c.coordinate] == p && vel[c.coordinate] == v) continue;
      pos[c.coordinate] = p;
      vel[c.coordinate] = v;
      j.initialPosition.assign(pos.data(), pos.data() + nf);
      j.initialVelocity.assign(vel.data(), vel.data() + nf);
      changed = true;
    }
    if (!changed) break;
  }
}

}  // namespace

bool couplingWraps(const CompiledSystem& sys, const CouplingDesc& c) {
  const auto isAngle = [&](int k, int i) {
    const JointGeometry& g = sys.joints[size_t(k)].geo;
    return g.fR == 1 && i == g.fT;
  };
  return c.reference >= 0 && std::abs(c.multiplier) == 1 && isAngle(c.joint, c.coordinate) &&
         isAngle(c.reference, c.referenceCoordinate);
}

double couplingResidual(const CompiledSystem& sys, const CouplingDesc& c, const State& s, CouplingGradient* grad) {
  JointMinimalEval e;
  const auto term = [&](int k, int i, double coef, int side) {
    const JointGeometry& g = sys.joints[size_t(k)].geo;
    evalJointMinimal(g, jointPoses(g, s), e);
    if (grad) {
      grad->joint[side] = k;
      grad->dxa[side] = coef * e.dxa.row(i).transpose();
      grad->dtha[side] = coef * e.dtha.row(i).transpose();
      grad->dxb[side] = coef * e.dxb.row(i).transpose();
      grad->dthb[side] = coef * e.dthb.row(i).transpose();
    }
    return coef * e.theta[i];
  };
  if (grad) grad->joint[1] = -1;
  double v = term(c.joint, c.coordinate, 1.0, 0) - c.offset;
  if (c.reference >= 0) v += term(c.reference, c.referenceCoordinate, -c.multiplier, 1);
  return couplingWraps(sys, c) ? std::remainder(v, 2 * M_PI) : v;
}

double constraintViolation(const CompiledSystem& sys, const State& s) {
  double v = 0;
  for (const CompiledJoint& j : sys.joints)
    v = std::max(v, jointConstraintValue(j.hasDroppedRows ? j.full : j.geo, jointPoses(j.geo, s)).lpNorm<Eigen::Infinity>());
  for (const CouplingDesc& c : sys.model.couplings) v = std::max(v, std::abs(couplingResidual(sys, c, s)));
  return v;
}

double constraintRoundoff(const State& s) {
  // 1e-13 per metre of the largest position coordinate (at least 1 m).
  double scale = 1.0;
  for (const BodyState& b : s.bodies) scale = std::max(scale, 1.0 + b.x.cwiseAbs().maxCoeff());
  return 1e-13 * scale;
}

double projectOntoConstraints(const CompiledSystem& sys, State& s, int maxIterations, const std::vector<int>& held) {
  const int nb = int(sys.bodies.size());
  int m = int(sys.model.couplings.size());
  for (const CompiledJoint& j : sys.joints) m += j.geo.constrained();
  double viol = constraintViolation(sys, s);
  if (m == 0) return viol;
  MatX G(m, 6 * nb);
  VecX g(m);
  JointConstraintEval e;
  constexpr int kMaxHalvings = 30;
  std::vector<std::pair<Vec3, Vec4>> start(static_cast<size_t>(nb));  // the poses before a step
  // Poses placed by forward kinematics (trees) are already at the rounding level: no projection
  // (its dense decomposition costs O(n³): minutes for a 1000-link chain).
  if (viol <= constraintRoundoff(s)) return viol;
  for (int it = 0; it < maxIterations && viol > 1e-13; ++it) {
    // Stack g and its Jacobian with respect to (x, θ) of every body.
    G.setZero();
    int row = 0;
    for (const CompiledJoint& j : sys.joints) {
      if (j.geo.constrained() == 0) continue;
      evalJointConstraint(j.geo, jointPoses(j.geo, s), e);
      const int c = j.geo.constrained();
      g.segment(row, c) = e.g.head(c);
      if (j.geo.parent >= 0) {
        G.block(row, 6 * j.geo.parent, c, 3) = e.dxa.topRows(c);
        G.block(row, 6 * j.geo.parent + 3, c, 3) = e.dtha.topRows(c);
      }
      G.block(row, 6 * j.geo.child, c, 3) = e.dxb.topRows(c);
      G.block(row, 6 * j.geo.child + 3, c, 3) = e.dthb.topRows(c);
      row += c;
    }
    // Couplings: one row each, the gradient of θ_a − m θ_b over the joints' bodies.
    CouplingGradient cg;
    for (const CouplingDesc& c : sys.model.couplings) {
      g[row] = couplingResidual(sys, c, s, &cg);
      for (int side = 0; side < 2 && cg.joint[side] >= 0; ++side) {
        const JointGeometry& jg = sys.joints[size_t(cg.joint[side])].geo;
        if (jg.parent >= 0) {
          G.block<1, 3>(row, 6 * jg.parent) += cg.dxa[side].transpose();
          G.block<1, 3>(row, 6 * jg.parent + 3) += cg.dtha[side].transpose();
        }
        G.block<1, 3>(row, 6 * jg.child) += cg.dxb[side].transpose();
        G.block<1, 3>(row, 6 * jg.child + 3) += cg.dthb[side].transpose();
      }
      ++row;
    }
    // Held bodies: no column, so the step leaves them where they are.
    for (int b : held) {
      MS_ASSERT(b >= 0 && b < nb, "a held body out of range");
      G.middleCols<6>(6 * b).setZero();
    }
    // Minimum-norm Gauss–Newton step (pseudo-inverse; redundant constraints allowed; directions
    // with a pivot below 1e-9 of the largest count as redundant), halved until the violation
    // decreases. MuJoCo Menagerie's Cassie 'home' key (its four rod loops 1.5 mm open, as soft
    // equalities leave them) sent the plain step to a violation of 3e6; so it projects to 1e-11.
    Eigen::CompleteOrthogonalDecomposition<MatX> cod(G);
    cod.setThreshold(1e-9);
    const VecX dz = -cod.solve(g);
    for (int i = 0; i < nb; ++i) start[size_t(i)] = {s.bodies[i].x, s.bodies[i].q};
    double step = 1;
    for (int halvings = 0; halvings <= kMaxHalvings; ++halvings, step *= 0.5) {
      for (int i = 0; i < nb; ++i) {
        s.bodies[i].x = start[size_t(i)].first + step * dz.segment<3>(6 * i);
        s.bodies[i].q = quat::mul(start[size_t(i)].second, quat::fromRotationVector(step * dz.segment<3>(6 * i + 3))).normalized();
      }
      const double next = constraintViolation(sys, s);
      if (next < viol || halvings == kMaxHalvings) {
        viol = next;
        break;
      }
    }
  }
  return viol;
}

State zeroState(const CompiledSystem& sys) {
  State s0;
  s0.bodies.resize(sys.bodies.size());
  s0.lambda.assign(sys.joints.size(), Vec6::Zero());
  s0.contactImpulse.assign(sys.contacts.size(), Vec6::Zero());
  s0.contactGap.assign(sys.contacts.size(), 0.0);
  s0.softAnchor.assign(sys.contacts.size(), Vec3::Zero());
  s0.softActive.assign(sys.contacts.size(), 0);
  if (sys.frictionDirections > kFrictionDirections) s0.contactFriction.assign(sys.contacts.size(), Vec6::Zero());
  s0.limitImpulse.assign(sys.limits.size(), Eigen::Vector2d::Zero());
  // (Not known yet: the first step takes each limit's coordinate in the turn centred on its range.)
  s0.limitPosition.assign(sys.limits.size(), std::numeric_limits<double>::quiet_NaN());
  return s0;
}

State makeInitialState(const CompiledSystem& sys, const Model& given, const std::vector<int>& held) {
  const int nb = int(sys.bodies.size());
  State s0 = zeroState(sys);
  // Coupled coordinates follow their references (a copy of the model only when there are couplings).
  Model coupled;
  if (!sys.model.couplings.empty()) {
    coupled = given;
    coupled.couplings = sys.model.couplings;
    followCouplings(coupled);
  }
  const Model& initial = sys.model.couplings.empty() ? given : coupled;
  // Poses: the bodies' own, then forward kinematics of the tree joints from their coordinates.
  for (int i = 0; i < nb; ++i) {
    s0.bodies[i].x = initial.bodies[i].position;
    s0.bodies[i].q = initial.bodies[i].orientation.normalized();
  }
  forwardKinematics(sys, initial, 0.0, s0);
  const State written = s0;
  double viol = projectOntoConstraints(sys, s0, 50, held);
  // A loop that cannot close from the written pose because that pose is a singular configuration
  // (a straight arm whose tip must come nearer its base: to first order it cannot move along the
  // arm, so the least-squares step stalls there) closes from a pose turned slightly off it: each
  // body not held turned by kUnstick rad about an axis of its own (x, y, z by turns), then projected.
  // The velocity probes below start from the same turned poses.
  int unstick = 0;
  const auto turn = [&](State& s, int attempt) {
    constexpr double kUnstick = 0.02;
    for (int i = 0; i < nb && attempt > 0; ++i) {
      if (std::find(held.begin(), held.end(), i) != held.end()) continue;
      Vec3 axis = Vec3::Zero();
      axis[(i + attempt) % 3] = (i % 2 == 0 ? 1.0 : -1.0) * (attempt == 1 ? 1.0 : -1.0);
      s.bodies[i].q = quat::mul(s.bodies[i].q, quat::fromRotationVector(kUnstick * axis)).normalized();
    }
  };
  for (int attempt = 1; attempt <= 2 && !(viol <= kProjectionTolerance * constraintRoundoff(s0)); ++attempt) {
    State turned = written;
    turn(turned, attempt);
    // Kept only if it closes: a loop that cannot close is reported from the written pose.
    const double v = projectOntoConstraints(sys, turned, 50, held);
    if (v <= kProjectionTolerance * constraintRoundoff(turned)) {
      s0 = turned;
      viol = v;
      unstick = attempt;
    }
  }
  if (!(viol <= kProjectionTolerance * constraintRoundoff(s0))) {
    // Name the joint that stays furthest from closing (the projection is a least-squares fit: it
    // spreads what it cannot close over the loop, the worst joint is where to look first).
    double worst = 0;
    const int k = worstJoint(sys, s0, worst);
    std::ostringstream os;
    os << "the initial pose cannot be made to satisfy the joints";
    if (k >= 0) os << ": joint '" << sys.joints[size_t(k)].name << "' stays " << worst << " (m or rad) from closing";
    os << " (remaining violation " << viol << "): check anchors, axes and initial joint positions";
    throw UserError(os.str());
  }
  // The velocities at the knot: central differences of the poses a short time ε before and after
  // (free bodies move with their own velocity, tree joints advance by rate·(±ε), each pose projected
  // onto the constraints): O(ε²) from the continuous ones, and no limit on the rates (a chord over
  // Δt was O(Δt) off and wrapped for turns beyond π per step).
  State after = s0, before = s0;
  for (auto [s, h] : {std::pair{&after, kVelocityProbe}, std::pair{&before, -kVelocityProbe}}) {
    // Held bodies keep their probe pose too (their velocity kept) — unless their own motion at
    // their joints' rates is not one the mechanism can make to second order (a rod of a slider-crank
    // translating on its crank's circle while its other end must stay on the guide): then they move
    // with the others at the probes, and only their pose at t = 0 is held.
    for (const std::vector<int>* hold : {&held, static_cast<const std::vector<int>*>(nullptr)}) {
      if (!hold && held.empty()) break;
      for (int i = 0; i < nb; ++i) {
        s->bodies[i].x = s0.bodies[i].x + initial.bodies[i].linearVelocity * h;
        s->bodies[i].q = quat::mul(s0.bodies[i].q, quat::fromRotationVector(initial.bodies[i].angularVelocity * h));
      }
      forwardKinematics(sys, initial, h, *s);
      turn(*s, unstick);
      viol = projectOntoConstraints(sys, *s, 50, hold ? *hold : std::vector<int>());
      if (viol <= kProjectionTolerance * constraintRoundoff(*s)) break;
    }
    if (!(viol <= kProjectionTolerance * constraintRoundoff(*s))) throw UserError("the initial velocities cannot be made consistent with the joints");
  }
  for (int i = 0; i < nb; ++i) {
    BodyState& b = s0.bodies[i];
    b.v = (after.bodies[i].x - before.bodies[i].x) / (2 * kVelocityProbe);
    b.w = quat::toRotationVector(quat::mul(quat::conj(before.bodies[i].q), after.bodies[i].q)) / (2 * kVelocityProbe);
  }
  // Constraint-consistent velocities at the knot (the variational integrator's first step turns
  // them into the first interval's).
  s0.interval = kVelocitiesAtKnot;
  return s0;
}

}  // namespace ms
