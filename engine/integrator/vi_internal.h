// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the variational integrator (variational_step.cc and the vi_*.cc stage files): the
// per-step workspace VariationalIntegrator::Impl, the constants more than one stage uses, the
// small helpers called per joint or per contact group (inline: there is no LTO), and the stage
// functions that are not members (namespace ms::vi). Not for use outside engine/integrator/.
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "contact/contact_geometry.h"
#include "integrator/variational_step.h"
#include "solver/interior_point.h"

namespace ms {
namespace vi {

// Solutions kept for the extrapolated warm start of the equality path (orders 0–4).
constexpr int kStartHistory = 6;
// Gap [m] beyond the motion 2|φ̇₀|Δt within which a contact is a candidate of the step (see
// contactCandidate; the 1 mm of a pair's add distance, collision_pairs.h).
constexpr double kContactMargin = 1e-3;
// GMRES of inaccurate contact-step solves: directions per cycle (vi_contact_step.cc).
constexpr int kKrylov = 10;
using Vec3Vector = std::vector<Vec3, Eigen::aligned_allocator<Vec3>>;
using Vec4Vector = std::vector<Vec4, Eigen::aligned_allocator<Vec4>>;
using Mat3Vector = std::vector<Mat3, Eigen::aligned_allocator<Mat3>>;

// A number for messages, with 3 significant digits (std::to_string prints 0.000000 for 1e-7).
inline std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The islands of a contact step (vi_islands.cc): the bodies joined by joints or by candidate
// contacts between two bodies, with what belongs to them, as flat lists (entries of island k at
// [start[k], start[k + 1])). Sized once: building them allocates nothing.
struct Islands {
  int count = 0;
  std::vector<int> bodies, bodyStart;
  std::vector<int> joints, jointStart;      // every joint, by its child's island
  std::vector<int> groups, groupStart;      // contact groups with a candidate (groupOn)
  std::vector<int> contacts, contactStart;  // candidate contacts
  std::vector<int> limits, limitStart;      // candidate limits
  std::vector<int> couplings, couplingStart;  // joint couplings
  std::vector<int> nodes, nodeStart;        // every node of the island, in leafFirst's elimination order
  std::vector<int> pairStart;               // its interior-point pairs [pairStart[k], pairStart[k + 1])
  std::vector<int> bodyIsland, find;        // per body: its island; union–find parents (work)
  std::vector<int> fill;                    // per island: entries written so far (work)
};

// The indices a stage loops over: 0..count−1 (list null: all of them), or list[begin..end).
struct IndexRange {
  const int* list;
  int begin, end;
  int operator[](int r) const { return list ? list[r] : r; }
};
// Island k's part of one of Islands' lists, or (k < 0) every index below `all`.
inline IndexRange islandRange(const std::vector<int>& list, const std::vector<int>& start, int k, int all) {
  if (k < 0) return {nullptr, 0, all};
  return {list.data(), start[k], start[k + 1]};
}

}  // namespace vi

struct VariationalIntegrator::Impl {
  // Knot z1 and the previous velocities, per body.
  vi::Vec3Vector x1, v0, force, torque, momentum0;
  vi::Vec4Vector q1;
  // Trial knot z2 and Φ(ω) per body.
  vi::Vec3Vector x2;
  vi::Vec4Vector q2;
  vi::Mat3Vector phi;
  // Joint quantities at z1: constraint Jacobians G(z1), minimal-coordinate Jacobians.
  std::vector<JointConstraintEval, Eigen::aligned_allocator<JointConstraintEval>> g1;
  std::vector<JointMinimalEval, Eigen::aligned_allocator<JointMinimalEval>> m1;
  std::vector<char> needsMinimal;
  // Per joint: this step's damping coefficients (the joint's dampers plus Inputs::damping) and
  // whether any is non-zero; the damper rows' weight (the body rows' force scale).
  std::vector<Vec6, Eigen::aligned_allocator<Vec6>> damping;
  std::vector<char> damped;
  double damperWeight = 1;
  JointConstraintEval g2;
  // Newton iterates (body velocities 6 per body; multipliers 6 per joint node; contact impulses 6
  // per contact node; node-major, contact nodes last).
  VecX cur, trial, delta, residual, trialResidual;
  // Length of this solve's interval (the unknown velocities') and of the state's velocities'.
  double dt = 0, h0 = 0;
  // Body-row weight of the convergence test, 1/max(1 N, Σ m|g|), and the per-row round-off level
  // of the attainable-accuracy test (equality path).
  double bodyWeight = 1;
  VecX roundoff;
  // Contacts: candidate sets per group at z1 (impulse directions N(z1), friction rows B(z1)) and
  // at the trial z2 (gaps φ(z2) and their gradients); slacks of the current/trial iterate and step.
  std::vector<contact::ContactSet> set1, set2;
  // Face manifolds of polytope pairs, chosen at the knot z1 and kept for the iterates z2 (PairFeatures).
  std::vector<contact::PairFeatures> features;
  // Times the step was solved again with pair features chosen at its previous solution (pairsHold).
  int pairsRechosen = 0;
  std::vector<contact::FrictionRows> fr;
  // Orientation of the friction polygons about their normals in this solve (0, or π/n_f when the
  // interior point failed with the first; stepWithContacts).
  double frictionTwist = 0;
  std::vector<contact::FrictionRows> frPlain;  // the untwisted rows, to store a twisted step's impulses
  VecX sCur, sTrial, ds;
  // Extrapolated warm start (equality path): the start iterates (the solutions of the previous
  // steps: velocities and multipliers) of the last consecutive full-interval solves, newest at
  // startHistory[historyHead], historyCount of them valid; the extrapolation order in use; the step
  // the last solve started from and its interval.
  std::array<VecX, vi::kStartHistory> startHistory;
  int historyHead = 0, historyCount = 0, extrapolationOrder = 1;
  long prevStartStep = -2;
  double prevStartH = 0;
  // Joint limits: θ(z2) and its Jacobians per limit (evaluated with the residual). The interior-
  // point pairs are the contact rows and rows 0–1 of each limit node: pairRow[p] is the row of pair
  // p in the node-major vectors; yCur, yTrial, dy hold the duals of the iterates and of the step
  // gathered from those rows (s is sCur, sTrial, ds, one entry per pair).
  std::vector<JointMinimalEval, Eigen::aligned_allocator<JointMinimalEval>> lim2;
  // Joint couplings: each joint's θ(z2) and its Jacobians (the joint's at 2k, the reference's at 2k + 1).
  std::vector<JointMinimalEval, Eigen::aligned_allocator<JointMinimalEval>> cpl2;
  int numPairs = 0;
  std::vector<int> pairRow;
  std::vector<char> limitOn;  // per limit: a candidate (pair rows) in this step
  // Per limit: its coordinate at z1, continued from the previous step's (State::limitPosition), so
  // that a revolute angle crossing ±π stays continuous (CompiledLimit::coordinate for the rest).
  std::vector<double> limitRef;
  // Per contact: a candidate of this step (pair rows; else equality rows y = 0, see
  // contactCandidate), and the index of its first pair (−1 if not a candidate).
  std::vector<char> contactOn;
  // Per contact: its rows of *excludedMatrix hold excludedContactRows' identity rows and zero
  // blocks (written once while it stays out of the step; nothing else writes a non-candidate's rows,
  // and factor() leaves a trivial node's blocks as they are).
  std::vector<char> excludedClean;
  const GraphLDU* excludedMatrix = nullptr;
  std::vector<int> contactPair;
  // Per contact group: whether any of its contacts is a candidate (selectPairs); and whether
  // evaluate computes the gaps φ(z2) of every group (true) or of those groups only (false: inside
  // the contact step's iterations, where the other groups' rows are y = 0 and their gaps unused;
  // the final evaluation of a step computes them all for excludedContactsHold and finish).
  std::vector<char> groupOn;
  bool allGroups = true;
  // The contact step's islands (vi_islands.cc) and the one evaluate works on (−1: all).
  vi::Islands islands;
  int island = -1;
  VecX yCur, yTrial, dy;
  // The contact step's factorisation: the Newton matrix (assembled in matrix_, which stays
  // unfactored for the iterative refinement: its pivots span many decades) copied into an order in
  // which every contact node is eliminated before its body (leafFirst; see leafFirstOrder), block
  // by block through leafBlocks = (block of leafFirst, block of matrix_ or −1 for a zero fill-in
  // block); and the refinement's work vectors.
  GraphLDU leafFirst;
  std::vector<std::pair<int, int>> leafBlocks;
  // Node i's blocks (i, c) and (c, i), two per child c in the order of leafFirst.order().children[i]:
  // leafBlocks[leafBlockStart[i], leafBlockStart[i + 1]).
  std::vector<int> leafBlockStart;
  VecX rhs, refine;
  // The contact step's starting iterate (for the retry with the monotone barrier rule).
  VecX start;
  // Row weights of the contact step's residual norms: body rows (forces, N) divided by the total
  // weight Σm|g| (≥ 1 N), constraint and contact rows (m, m/s, N·…) as they are. The tolerance then
  // means the same for a 1 kg box and a 200-sphere chain; the Newton direction is unchanged.
  VecX rowWeight;
  InteriorPointSolver ip;
  // Companion nodes (n_f > 4): per contact, the swaps of the current factorisation (≤ 4 each).
  std::vector<int> swapC, swapE, numSwaps;
  // The polish of a stalled interior point (ContactStepProblem::polish): per pair, whether it is
  // active (its row c = 0, its impulse free) or not (impulse 0, c free); the iterate being polished.
  std::vector<char> pairActive;
  VecX polished;
  // Sleeping (vi_sleep.cc): per body, a force or torque applied or a spring attached in this step;
  // per island of the step (one entry with fewer than two islands), asleep.
  std::vector<char> pushed, islandAsleep;
  // Per island of the contact step (one entry with fewer than two islands): its warm start predicts
  // a pair violated beyond kStartViolation, so it starts shifted (vi_contact_step.cc).
  std::vector<char> startShifted;
  // GMRES of inaccurate contact-step solves (solveFactored): Krylov basis and two work vectors.
  MatX krylov;
  VecX work1, work2;
};

namespace vi {

// Poses of the two bodies of a joint (world: origin, identity).
inline JointPoses posesOf(const JointGeometry& j, const Vec3Vector& x, const Vec4Vector& q) {
  JointPoses z;
  if (j.parent >= 0) {
    z.xa = x[j.parent];
    z.qa = q[j.parent];
  } else {
    z.xa.setZero();
    z.qa = Vec4(1, 0, 0, 0);
  }
  z.xb = x[j.child];
  z.qb = q[j.child];
  return z;
}

// The candidates of a contact group at the poses (x, q): a shape against a ground plane, or a pair
// of two bodies' shapes; a polytope pair's face manifold is chosen (`choose`, at the knot z1) or kept.
inline void contactCandidates(const CompiledContactGroup& grp, const Vec3Vector& x, const Vec4Vector& q, contact::ContactSet& out,
                       contact::PairFeatures& features, bool choose) {
  contact::BodyPose zb, za;
  zb.x = x[grp.body];
  zb.q = q[grp.body];
  if (grp.bodyA >= 0) {
    za.x = x[grp.bodyA];
    za.q = q[grp.bodyA];
  }
  contact::groupCandidates(grp.plane, grp.shapeA, grp.bodyA >= 0 ? &za : nullptr, grp.shape, zb, out, &features, choose);
}

// Whether candidate k of a contact group enters the step's complementarity problem: its gap at the
// knot z1 is within kContactMargin + 2|φ̇₀|Δt, φ̇₀ the gap's rate at the state's velocities (the
// limits' rule). The others are equality rows y = 0 (selectPairs, evaluate).
inline bool contactCandidate(const CompiledContactGroup& grp, const contact::Contact& c, const State& state, double dt) {
  const BodyState& b = state.bodies[grp.body];
  double rate = c.dxB.dot(b.v) + c.dthB.dot(b.w);
  if (grp.bodyA >= 0) rate += c.dxA.dot(state.bodies[grp.bodyA].v) + c.dthA.dot(state.bodies[grp.bodyA].w);
  return !(c.phi > kContactMargin + 2.0 * std::abs(rate) * dt);
}

// Stages that are not members, in run order (variational_step.h lists them all).
// vi_assembly.cc: the knot z1, forces, G(z1) and contact candidates at z1 for a solve over st.dt
// from velocities of an interval h0 (false if |ω₀| ≥ 2/h0); the residual of (20a)–(20b), the
// contact and limit rows, and (F non-null) the Newton matrix at iterate x (false if |ω| ≥ 2/Δt);
// friction rows B(z1) of every contact candidate, polygons turned by `twist`.
bool prepare(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const StepSettings& st, const Inputs& in,
             const State& state, double h0);
bool evaluate(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const VecX& x, VecX& r, GraphLDU* F);
void frictionRowsAtKnot(const CompiledSystem& sys, const VariationalIntegrator::Impl& m,
                        std::vector<contact::FrictionRows>& out, double twist);
// vi_candidates.cc: which limits and contacts enter the step's complementarity problem (returns
// whether any limit does; one contact's rule is contactCandidate above), and the interior-point
// pairs of those candidates.
bool selectCandidates(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const State& state, double dt);
void selectPairs(const CompiledSystem& sys, VariationalIntegrator::Impl& m);
// vi_islands.cc: the islands of the candidates in m (contactOn, limitOn, groupOn), and, with two or
// more, the pairs numbered island by island; the matrix rows of the contacts and limits that are not
// candidates (identity, no coupling, trivial in F) written once for a step solved by islands.
void sizeIslands(const CompiledSystem& sys, VariationalIntegrator::Impl& m);
void selectIslands(const CompiledSystem& sys, VariationalIntegrator::Impl& m);
void excludedRows(const CompiledSystem& sys, VariationalIntegrator::Impl& m, GraphLDU& F);
void excludedContactRows(const CompiledContact& cc, GraphLDU& F);
void excludedLimitRows(const CompiledLimit& l, GraphLDU& F);
// vi_sleep.cc: the bodies a step pushes (markPushed, before it), their rest times (updateRestTimes,
// after it), the islands asleep in a contact step (selectSleeping, after selectIslands; returns the
// bodies asleep) and island k's (k < 0: all) solution when it sleeps (freezeIsland, into m.cur).
void markPushed(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const Inputs& in);
void updateRestTimes(const CompiledSystem& sys, const VariationalIntegrator::Impl& m, const StepSettings& st,
                     State& state);
int selectSleeping(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const StepSettings& st,
                   const State& state);
void freezeIsland(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const State& state, int k);
// vi_contact_step.cc: the contact step's elimination order (every contact node before its body).
EliminationOrder leafFirstOrder(const CompiledSystem& sys);

}  // namespace vi
}  // namespace ms
