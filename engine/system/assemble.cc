// SPDX-License-Identifier: GPL-3.0-or-later
// Joint coordinates read back from projected poses (assemble.h): evalJointMinimal's θ (translations
// C_Tᵀg_T, then 2·atan2 angles in (−π, π] or rotation vectors with |θ| ≤ π, Appendix B) and
// jointRate's θ̇ = J [v; ω], unwrapped towards the model's given coordinates.
#include "system/assemble.h"

#include <cmath>

#include "dynamics/joint_constraint.h"
#include "model/joint_kinds.h"

namespace ms {

std::vector<JointCoordinates> jointCoordinates(const CompiledSystem& sys, const State& state) {
  std::vector<JointCoordinates> out(sys.joints.size());
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    const JointDesc& d = sys.model.joints[k];
    const JointKind& kind = jointKind(d.type);
    const int nT = kind.freeTranslational(), nR = kind.freeRotational(), n = nT + nR;
    JointMinimalEval e;
    evalJointMinimal(j.geo, jointPoses(j.geo, state), e);
    const Vec6 rate = jointRate(j.geo, e, state);
    JointCoordinates& c = out[k];
    c.position.assign(e.theta.data(), e.theta.data() + n);
    c.velocity.assign(rate.data(), rate.data() + n);
    // The given coordinates (one value for all, or one per coordinate; none: zero).
    const auto given = [&](int i) {
      if (d.initialPosition.empty()) return 0.0;
      return d.initialPosition.size() == 1 ? d.initialPosition[0] : d.initialPosition[size_t(i)];
    };
    // One angle: the one within π of the given angle (keeps its turns).
    if (nR == 1) {
      const double g = given(nT);
      c.position[size_t(nT)] = g + std::remainder(c.position[size_t(nT)] - g, 2 * M_PI);
    }
    // A rotation vector r (|r| ≤ π): r − 2π r/|r| turns the same way; keep the one nearer the given.
    if (nR == 3) {
      Vec3 r(c.position[size_t(nT)], c.position[size_t(nT) + 1], c.position[size_t(nT) + 2]);
      const Vec3 g(given(nT), given(nT + 1), given(nT + 2));
      const double len = r.norm();
      if (len > 0) {
        const Vec3 other = r - 2 * M_PI * r / len;
        if ((other - g).norm() < (r - g).norm()) r = other;
      }
      for (int i = 0; i < 3; ++i) c.position[size_t(nT + i)] = r[i];
    }
  }
  return out;
}

int worstJoint(const CompiledSystem& sys, const State& state, double& violation) {
  int worst = -1;
  violation = 0;
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    const double v = jointConstraintValue(j.hasDroppedRows ? j.full : j.geo, jointPoses(j.geo, state)).lpNorm<Eigen::Infinity>();
    if (worst < 0 || v > violation) worst = int(k), violation = v;
  }
  return worst;
}

}  // namespace ms
