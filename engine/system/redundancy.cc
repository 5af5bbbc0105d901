// SPDX-License-Identifier: GPL-3.0-or-later
// Redundant loop-closure rows (see redundancy.h). Runs once at compile time; may allocate.
//
// J = ∂g_loop/∂θ_tree: the loop rows' sensitivity to every coordinate the spanning tree leaves free
// (tree joint coordinates, and the six rigid motions of trees not attached to the world), by central
// differences of exact rigid subtree motions. Rows of J that are linearly dependent on earlier rows
// (modified Gram–Schmidt, in joint order) are redundant.
#include "system/redundancy.h"

#include <cmath>

#include "core/quaternion.h"

namespace ms {
namespace {

// Move `bodies` rigidly: rotation r about point c, then translation t (world frame).
void rigidMove(State& s, const std::vector<int>& bodies, const Vec4& r, const Vec3& c, const Vec3& t) {
  const Mat3 R = quat::rotation(r);
  for (int i : bodies) {
    s.bodies[i].x = c + R * (s.bodies[i].x - c) + t;
    s.bodies[i].q = quat::mul(r, s.bodies[i].q);
  }
}

}  // namespace

std::vector<std::string> removeRedundantRows(CompiledSystem& sys, const State& pose) {
  std::vector<std::string> notes;
  if (sys.loopJoints.empty()) return notes;
  const int nb = int(sys.bodies.size());

  // Subtree of every body along the spanning tree (bodies moved by a tree joint's coordinates).
  std::vector<std::vector<int>> treeChildren(nb);
  std::vector<char> hasTreeParent(nb, 0);
  for (int k : sys.treeJoints) {
    const JointGeometry& g = sys.joints[k].geo;
    if (g.parent >= 0) treeChildren[g.parent].push_back(g.child);
    hasTreeParent[g.child] = 1;
  }
  auto subtree = [&](int root) {
    std::vector<int> out{root};
    for (size_t i = 0; i < out.size(); ++i)
      for (int c : treeChildren[out[i]]) out.push_back(c);
    return out;
  };

  // Loop rows, stacked.
  int rows = 0;
  for (int k : sys.loopJoints) rows += sys.joints[k].geo.constrained();
  auto loopValues = [&](const State& s) {
    VecX g(rows);
    int r = 0;
    for (int k : sys.loopJoints) {
      const JointGeometry& geo = sys.joints[k].geo;
      g.segment(r, geo.constrained()) = jointConstraintValue(geo, jointPoses(geo, s)).head(geo.constrained());
      r += geo.constrained();
    }
    return g;
  };

  // Columns of J by central differences of rigid subtree motions.
  const double h = 1e-6;
  std::vector<VecX> cols;
  for (int k : sys.treeJoints) {
    const JointGeometry& g = sys.joints[k].geo;
    const std::vector<int> moved = subtree(g.child);
    JointMinimalEval me;
    evalJointMinimal(g, jointPoses(g, pose), me);
    const Vec3 xa = g.parent >= 0 ? pose.bodies[g.parent].x : Vec3::Zero();
    const Vec4 qa = g.parent >= 0 ? pose.bodies[g.parent].q : Vec4(1, 0, 0, 0);
    for (int c = 0; c < g.freeCoordinates(); ++c) {
      VecX diff[2];
      for (int sgn = 0; sgn < 2; ++sgn) {
        Vec6 th = me.theta;
        th(c) += sgn == 0 ? h : -h;
        Vec3 xb;
        Vec4 qb;
        jointForwardKinematics(g, xa, qa, th, xb, qb);
        // The rigid motion taking the child from its current pose to (xb, qb).
        const Vec4 r = quat::mul(qb, quat::conj(pose.bodies[g.child].q));
        State s = pose;
        rigidMove(s, moved, r, pose.bodies[g.child].x, xb - pose.bodies[g.child].x);
        diff[sgn] = loopValues(s);
      }
      cols.push_back((diff[0] - diff[1]) / (2 * h));
    }
  }
  for (int b = 0; b < nb; ++b) {
    if (hasTreeParent[b]) continue;
    // A tree root not attached to the world: its six rigid motions.
    const std::vector<int> moved = subtree(b);
    for (int c = 0; c < 6; ++c) {
      VecX diff[2];
      for (int sgn = 0; sgn < 2; ++sgn) {
        Vec3 d = Vec3::Zero();
        d(c % 3) = sgn == 0 ? h : -h;
        State s = pose;
        if (c < 3) rigidMove(s, moved, Vec4(1, 0, 0, 0), Vec3::Zero(), d);
        else rigidMove(s, moved, quat::fromRotationVector(d), pose.bodies[b].x, Vec3::Zero());
        diff[sgn] = loopValues(s);
      }
      cols.push_back((diff[0] - diff[1]) / (2 * h));
    }
  }
  MatX J(rows, cols.size());
  for (size_t c = 0; c < cols.size(); ++c) J.col(c) = cols[c];

  // Greedy independence test of the rows in order (modified Gram–Schmidt, twice).
  std::vector<VecX> basis;
  std::vector<char> keep(rows, 0);
  for (int r = 0; r < rows; ++r) {
    VecX v = J.row(r).transpose();
    const double n0 = v.norm();
    for (int pass = 0; pass < 2; ++pass)
      for (const VecX& b : basis) v -= b.dot(v) * b;
    if (n0 > 1e-9 && v.norm() > 1e-6 * n0) {
      keep[r] = 1;
      basis.push_back(v / v.norm());
    }
  }

  // Drop the dependent rows from their joints.
  int r0 = 0;
  for (int k : sys.loopJoints) {
    CompiledJoint& j = sys.joints[k];
    const int c = j.geo.constrained();
    bool mask[6] = {true, true, true, true, true, true};
    int dropped = 0;
    for (int r = 0; r < c; ++r)
      if (!keep[r0 + r]) {
        mask[r] = false;
        ++dropped;
      }
    r0 += c;
    if (dropped == 0) continue;
    j.full = j.geo;
    j.hasDroppedRows = true;
    restrictConstraintRows(j.geo, mask);
    notes.push_back("joint '" + j.name + "': " + std::to_string(dropped) + " of " + std::to_string(c) +
                    " constraint rows are redundant with the rest of the loop and are implied, not solved for");
  }
  return notes;
}

}  // namespace ms
