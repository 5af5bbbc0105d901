// SPDX-License-Identifier: GPL-3.0-or-later
#include "system/energy.h"

#include "dynamics/joint_constraint.h"

namespace ms {

double kineticEnergy(const CompiledSystem& sys, const State& state) {
  double ke = 0;
  // Bodies.
  for (size_t i = 0; i < sys.bodies.size(); ++i) {
    const CompiledBody& cb = sys.bodies[i];
    const BodyState& b = state.bodies[i];
    ke += 0.5 * (cb.mass * b.v.squaredNorm() + b.w.dot(cb.inertia * b.w));
  }
  // Armature of the joints' coordinates.
  for (const CompiledJoint& j : sys.joints) {
    if (!j.hasArmature) continue;
    JointMinimalEval e;
    evalJointMinimal(j.geo, jointPoses(j.geo, state), e);
    const Vec6 rate = jointRate(j.geo, e, state);
    ke += 0.5 * j.armature.dot(rate.cwiseProduct(rate));
  }
  return ke;
}

}  // namespace ms
