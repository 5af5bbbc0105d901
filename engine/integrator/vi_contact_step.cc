// SPDX-License-Identifier: GPL-3.0-or-later
// First-order variational integrator, Brüdigam et al. 2023 §3.1–3.2 and Appendix D.
//
// State (z_k, ż_k). A step computes z1 = z_k ⊕ ż_k Δt by (11) and (17), then solves for ż1 = (v, ω)
// of every body and λ of every joint:
//   translational (10):  m (v − v₀)/Δt − m g − f − Σ G_x(z1)ᵀ λ                         = 0
//   rotational (16):     J ω s(ω) + ω×Jω − (J ω₀ s(ω₀) − ω₀×Jω₀) − 2τ − Σ 2 G_θ(z1)ᵀ λ = 0
//   constraints (20b):   g(z2(ż1)) = 0,   z2 = (x1 + vΔt, q1·[s(ω), ω]Δt/2),  s(ω) = √(4/Δt² − ωᵀω)
// G_θ = ∂g/∂θ (body-frame rotation), so 2 G_θ is the rotational Jacobian of (A.8) and τ the
// body-frame torque (f world frame). Joint efforts u (springs at z1, actuators, dampers) act through
// the minimal-coordinate Jacobian: f = (∂θ/∂x)ᵀ u, τ = (∂θ/∂θ_body)ᵀ u.
// Dampers use the unknown velocity (implicit): u = −c θ̇, θ̇ = J_min(z1) ż1 (the joint's dampers and
// the D terms of PD controllers, Inputs::damping). Their efforts u are unknowns of the joint node,
// in the rows after its n_c constraint rows: w (u + c θ̇) = 0, the bodies feel −J_minᵀ u as they
// feel −Gᵀλ, so the parent–child coupling runs through the node and Newton is exact for any c
// (with only the bodies' diagonal blocks, a stiff damper between two bodies made Newton diverge).
// Newton matrix (unsymmetric, hence LDU): body rows [∂d/∂ż, −Gᵀ(z1)], joint rows
// [∂g(z2)/∂ż = (G_x Δt, G_θ(z2)·Φ(ω)), 0] with Φ(ω) = ∂θ₂/∂ω (quaternion.h). Joint nodes are
// padded to 6 rows with identity rows.
// Contacts (§3.3–3.5, (29a)–(29f), Appendix D): each contact node holds y = [γ, ψ, β₁..β₄]
// (impulses in N: normal, friction-cone multiplier, friction along 4 tangent directions d_k) with
// slacks s = c(ż, y) = [φ(z2), μγ − Σβ, Bż + ψ] ≥ 0 and s∘y = 0. The bodies feel −N(z1)ᵀγ −
// B(z1)ᵀβ (rotational rows doubled as for joints). The step is then solved by the primal-dual
// interior-point driver (solver/interior_point.h): Δs is eliminated per contact, so the contact
// node's diagonal block is ∂c/∂y + diag(s/y) and the node is a leaf on its body in the graph LDU.
// More friction directions (n_f = 6, 8, 10; d_k at angles 2πk/n_f, d_{k+n_f/2} = −d_k): the
// contact node keeps [γ, ψ, β₁..β₄]; a companion node E holds y_E = [β₅..β_{n_f}, 0…] with rows
//   η_k = b_k ż + ψ + ε_f β_k − s_k  (k = 5..n_f, pairs),   y_E,q = 0 (q ≥ n_f − 4, padding),
// the cone row becomes μγ − Σ_{k=1..n_f} β_k + ε_fψ, and the bodies feel −B_Eᵀ β_E too. Blocks:
// (E, body) = [B_E; 0], (body, E) = −B_Eᵀ (rotational rows doubled), (contact row 1, E's β) = −1,
// (E's η rows, ψ) = +1, diag(E) = diag(ε_f…, 1…). E is eliminated directly after its contact node.
// Which directions the contact node holds in the linear solve is chosen per factorisation: the 4 of
// smallest s_k/β_k (the active ones) are swapped into its slots 2–5 (companionSwaps; rows and
// columns of F, the right-hand side and the step are permuted alike; x and r keep the fixed layout).
// The (ψ, active β) saddle then sits inside one 6×6 pivot, as with 4 directions: with the fixed
// split a box sliding against a companion direction made the contact pivot's ψ entry ε_f + s/ψ
// (~1e-8) and the companion's pivot a cancellation of 1/ε_f terms — "singular" on the 30° incline
// tilted about y; with the fixed split reversed (companion first) a sticking contact's companion
// pivot diag(s/β + ε_f) + rank-2 body term is the singular one.
// Joint limits (revolute angle, prismatic travel; the inequalities of (22)–(24) with the joint's
// minimal coordinate θ of (B.7b) as the constraint function, solved with (29a)–(29f) by the same
// interior-point step, Appendix D): one node per limited joint, y = [γ_lo, γ_hi, 0, 0, 0, 0], slacks
//   s_lo = θ(z2) − lower + ε_l γ_lo,   s_hi = upper − θ(z2) + ε_l γ_hi,   s∘y = 0,
// evaluated at the next knot z2(ż1) like φ(z2) of a contact; the bodies feel the effort
// u = γ_lo − γ_hi through the minimal-coordinate Jacobian at z1 like an actuator: f = (∂θ/∂x)ᵀu,
// rotational rows 2(∂θ/∂θ_body)ᵀu. ∂θ(z2)/∂ż = [∂θ/∂x Δt, ∂θ/∂θ_body Φ(ω)] at z2, as the joint rows.
// Rows 2–5 are equality padding rows y = 0 (identity diagonal, no coupling): they are not
// complementarity pairs, so the barrier, the fraction to the boundary and the convergence test see
// only the two real pairs. ε_l = kLimitCompliance·Δt² is in the residual and the matrix.
// Candidates: a limit enters a step's complementarity problem only if it is near (distance at z1 ≤
// kLimitMargin + 2|θ̇₀|Δt); the others are equality rows y = 0 (no effort). An interior-point dual
// of a far limit would be ~μ/s instead of 0 — a spurious effort of ~1e-9 N·m. A step whose
// solution brings an excluded limit to its bound (s ≤ 0) is solved again with every limit; a step
// without contacts and without candidates takes the plain Newton path.
// Contact candidates, by the same rule: a contact enters a step's complementarity problem only if
// its gap at z1 is within kContactMargin + 2|φ̇₀|Δt (φ̇₀ = ∂φ/∂ż(z1)·ż₀, the rate at the state's
// velocities); the others are equality rows y = 0 (identity diagonal, no coupling, no impulse), so
// every step keeps the same graph. A contact in the problem whose bodies are far apart is an
// unloaded contact (γ → 0) with a sliding friction subproblem (ψ at the sliding speed, cone slack
// → 0) whose central path keeps ψ ≈ 5φ/μ, far from that: on a folding 10-capsule chain the
// friction rows of contacts 8 cm apart set the step lengths of stalled iterations, and leaving
// them out took its mean interior-point iterations per step from 73.7 to 35.2 (docs/engine.md,
// "Capsule pairs"). A step whose solution closes an excluded contact (φ(z2) ≤ 0) is solved again
// with that contact a candidate (excludedContactsHold); one that stays open (φ(z2) > 0) carries no
// impulse in the full problem either (γ = 0, and the cone μγ − Σβ ≥ 0 leaves no friction).
// Linear solves of the contact step: the graph LDU factorises without pivoting across nodes, in an
// order where a contact is eliminated before its body. A closed contact's pivot has ε_n + s/γ in
// its gap row, so the body's pivot gains the Schur term −(−Nᵀ − μBᵀ)(ε_n + s/γ)⁻¹(N Δt) ≈
// (n + μb)nᵀΔt/(ε_n + s/γ) (a sliding contact: γ, ψ and one β active, the cone row tying β = μγ):
// rank one, ~1e9, and unsymmetric. Near a solution with a sliding μ = 1 contact on a thin link the
// body's pivot is then nearly singular although the whole matrix is not (a dense LU with pivoting
// solves it to 1e-20), and the solve was wrong by up to 1e-4 of its right-hand side, which one step
// of iterative refinement did not correct (on the active-set matrix of such a step, further steps
// of refinement diverged). The interior point then stalled at
// weighted residuals of 1e-9–4e-8 and was accepted at kContactAttainable. Such a solve is now
// corrected by GMRES on W F L⁻¹ W⁻¹ (solveFactored): the error lies in the span of the few bad
// pivots, and 1–3 Krylov directions bring the residual to round-off.
// A step that still stalls (degenerate pairs, a slow barrier path) and would be accepted at
// kContactAttainable is polished (ContactStepProblem::polish): the active set A read from the
// iterate (y_p ≥ s_p), Newton on G_A(x) = [F(x); c_p(x), p ∈ A; y_p, p ∉ A] = 0, whose Jacobian is the
// step's matrix without S·Y⁻¹ and with unit rows for p ∉ A, with the primal–dual active-set update
// (p leaves A when y_p + Δy_p < −tol, enters when c_p(x + Δx) < −tol, the direction then solved
// again at the same x). Its solution, if the signs hold, solves the complementarity problem
// exactly (s_p = 0 on A, y_p = 0 off A): the step then counts as converged.
#include "integrator/variational_step.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "contact/contact_geometry.h"
#include "core/check.h"
#include "core/denormals.h"
#include "core/quaternion.h"
#include "dynamics/spring_force.h"
#include "solver/graph.h"
#include "solver/interior_point.h"

namespace ms {

const char* toString(StepStatus s) {
  switch (s) {
    case StepStatus::Ok: return "ok";
    case StepStatus::NotConverged: return "Newton did not converge";
    case StepStatus::NonFinite: return "non-finite value";
    case StepStatus::AngularVelocityLimit: return "angular velocity |w| >= 2/dt (eq. 13)";
    case StepStatus::SingularMatrix: return "singular Newton matrix";
  }
  return "?";
}

namespace {
// A number for messages, with 3 significant digits (std::to_string prints 0.000000 for 1e-7).
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
// Relative regularisation of the constraint pivots (Schur complements scale with Δt²/m).
constexpr double kRegularization = 1e-10;
// A Newton step that shrinks the residual ∞-norm below this fraction lets the next iteration reuse
// the factorisation (simplified Newton); measured on chains: ~0.9 factorisations per step instead of 2.15.
constexpr double kReuseContraction = 1e-2;
// Contact compliance: the gap row is φ(z₂) + ε_n·γ − s = 0 with ε_n = kNormalCompliance·Δt²
// (1e-11 m per N at Δt = 0.01: a 1 kg box resting on 4 corners sinks 2.5e-11 m), the cone and
// friction rows gain ε_f·ψ and ε_f·β_k with ε_f = kFrictionCompliance·Δt (a 1 kg box sticking on
// a 20° incline moves 2.1e-7 m in 2 s). The compliance is part of the residual, not only of the
// matrix: the Newton matrix is then the exact Jacobian. A diagonal ε in the matrix alone (1e-3·Δt²
// before) stalled at residuals of ~1e-7 on statically indeterminate contact sets — a chain of 100
// spheres lying on the ground, the corners of a face — because each iteration moved the impulses
// along the indeterminate directions by residual/ε; it also needed ε large enough to let a 30-sphere
// chain sink 2.4e-4 m under an exact-looking residual. With ε in the residual the impulses are
// unique (the minimum-compliance-energy split) and the 200-sphere chain converges at every step.
constexpr double kNormalCompliance = 1e-7;
constexpr double kFrictionCompliance = 1e-6;
// Joint-limit compliance: ε_l = kLimitCompliance·Δt² (rad per N·m or m per N), as the contact gap
// row: a limit holding 10 N·m at Δt = 0.01 gives way by 1e-10 rad. In the residual and the matrix.
constexpr double kLimitCompliance = 1e-7;
// Distance (rad or m) beyond the motion 2|θ̇₀|Δt within which a limit is a candidate of the step.
constexpr double kLimitMargin = 0.05;
// Gap [m] beyond the motion 2|φ̇₀|Δt within which a contact is a candidate of the step (see
// contactCandidate; the 1 mm of a pair's add distance, collision_pairs.h).
constexpr double kContactMargin = 1e-3;
// Weighted residual below which a stalled interior-point line search counts as converged.
constexpr double kContactAttainable = 1e-7;
// Factorisations of the polish of such a stalled step (ContactStepProblem::polish).
constexpr int kPolishFactorisations = 8;
// Accuracy of the contact step's linear solves: a solve (with its kRefinements corrections) whose
// weighted residual ‖W(rhs − Fδ)‖∞ is above kSolveAccuracy·‖W rhs‖∞ and above its round-off level
// kSolveRoundoff·‖W(|F||δ| + |rhs|)‖∞ is corrected by GMRES with the factorisation as
// preconditioner (ContactStepProblem::solveFactored), kKrylov directions per cycle, at most
// kKrylovCycles cycles, to max(kKrylovTarget·‖W rhs‖∞, the round-off level).
constexpr double kSolveAccuracy = 1e-12;
constexpr double kSolveRoundoff = 1e-14;
constexpr double kKrylovTarget = 1e-15;
constexpr int kKrylov = 10;
constexpr int kKrylovCycles = 3;
// Warm start of the contact step: impulses start at the previous step's, shifted into the interior
// by kWarmShift (N), slacks at max(c, kWarmShift). Measured against the neutral start (impulses 1 N,
// slacks max(c, 1)): mean interior-point iterations per step — quadruped standing 17.8 → 5.0, box
// drop 5.8 → 3.9, sphere chains n = 30/100/200: 13.6/14.8/19.2 → 9.6/10.9/13.8; and the trotting
// quadruped's HL foot no longer alternates between 30 N and lift-off every step (the neutral start
// converged to a different split of the load each step there). A shift of 0.01 (issue 14, tried
// together with an unrefined predictor direction) cut the iterations per step (box drop 3.96 →
// 2.99, sphere chain n = 20/100 5.26/10.96 → 4.50/10.57, contact-pairs.mech 6.00 → 4.17; quadruped
// trot 6.89 → 7.18) but stopped at another point within the complementarity tolerance: the sticking
// n_f = 8 box of tst_friction_cone (loadedContactsIncludeAllDirections) then carried its weight
// with an error above 1e-6 N. Kept at 0.1.
constexpr double kWarmShift = 0.1;
// Solutions kept for the extrapolated warm start of the equality path (orders 0–4).
constexpr int kStartHistory = 6;
// Overlap [m] of two polytopes at a step's solution beyond which their face manifold is chosen again
// at that solution and the step solved again (pairsHold; resting contacts overlap by ~1e-10 m).
constexpr double kPairOverlap = 1e-6;
// At most this many such solves again per step.
constexpr int kPairResolves = 3;
// Iterative-refinement corrections per contact Newton solve (predictor and corrector alike: the
// predictor solved without refinement left the iteration counts of the benchmark cases unchanged but
// moved the same test's converged point, tangential force error 1.5e-6 N).
constexpr int kRefinements = 1;
using Vec3Vector = std::vector<Vec3, Eigen::aligned_allocator<Vec3>>;
using Vec4Vector = std::vector<Vec4, Eigen::aligned_allocator<Vec4>>;
using Mat3Vector = std::vector<Mat3, Eigen::aligned_allocator<Mat3>>;
}  // namespace

struct VariationalIntegrator::Impl {
  // Knot z1 and the previous velocities, per body.
  Vec3Vector x1, v0, force, torque, momentum0;
  Vec4Vector q1;
  // Trial knot z2 and Φ(ω) per body.
  Vec3Vector x2;
  Vec4Vector q2;
  Mat3Vector phi;
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
  std::array<VecX, kStartHistory> startHistory;
  int historyHead = 0, historyCount = 0, extrapolationOrder = 1;
  long prevStartStep = -2;
  double prevStartH = 0;
  // Joint limits: θ(z2) and its Jacobians per limit (evaluated with the residual). The interior-
  // point pairs are the contact rows and rows 0–1 of each limit node: pairRow[p] is the row of pair
  // p in the node-major vectors; yCur, yTrial, dy hold the duals of the iterates and of the step
  // gathered from those rows (s is sCur, sTrial, ds, one entry per pair).
  std::vector<JointMinimalEval, Eigen::aligned_allocator<JointMinimalEval>> lim2;
  int numPairs = 0;
  std::vector<int> pairRow;
  std::vector<char> limitOn;  // per limit: a candidate (pair rows) in this step
  // Per contact: a candidate of this step (pair rows; else equality rows y = 0, see
  // contactCandidate), and the index of its first pair (−1 if not a candidate).
  std::vector<char> contactOn;
  std::vector<int> contactPair;
  VecX yCur, yTrial, dy;
  // The contact step's factorisation: the Newton matrix (assembled in matrix_, which stays
  // unfactored for the iterative refinement: its pivots span many decades) copied into an order in
  // which every contact node is eliminated before its body (leafFirst; see leafFirstOrder), block
  // by block through leafBlocks = (block of leafFirst, block of matrix_ or −1 for a zero fill-in
  // block); and the refinement's work vectors.
  GraphLDU leafFirst;
  std::vector<std::pair<int, int>> leafBlocks;
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
  // GMRES of inaccurate contact-step solves (solveFactored): Krylov basis and two work vectors.
  MatX krylov;
  VecX work1, work2;
};

namespace {
// Elimination order of the contact step. The compiled order (compile.cc) puts every contact node
// after its body, so that the bodies' contacts share fill-in blocks: a box's 8 corners form a
// dense 8-node clique (28 fill-in blocks) whose factorisation was 56 % of the box drop's step.
// Here a contact node (and its companion) is an ordinary node: the depth-first list reaches it from
// its body and eliminates it first, as a leaf (a contact pair between two bodies like a joint, as
// the DFS meets it), which adds no fill-in. Its pivot ∂c/∂y + diag(s/y) is invertible however
// small s/y gets: rows [ε_n + s/γ; μ, ε_f + s/ψ, −1ᵀ; 1, diag(ε_f + s/β)] have determinant
// (ε_n + s/γ)·Π(ε_f + s/β_k)·(ε_f + s/ψ + Σ 1/(ε_f + s/β_k)) > 0 (a companion, eliminated before
// its contact node, is diagonal). The body then receives the contacts' Schur terms (up to
// Δt/ε_n ~ 1e9 N·s/m in the normal rows of a closed contact: conditioned like the reduced KKT
// matrix of any primal–dual method; the iterative refinement against the unfactored matrix
// follows each solve). Joints and limits keep the compiled rules (zero diagonal; a limit on a joint
// to the world hangs on its body).
EliminationOrder leafFirstOrder(const CompiledSystem& sys) {
  const int n = sys.numNodes;
  std::vector<std::vector<int>> adjacency(n);
  std::vector<bool> zeroDiagonal(n, false), hangingLeaf(n, false);
  const auto edge = [&](int a, int b) {
    if (a < 0 || b < 0) return;
    adjacency[a].push_back(b);
    adjacency[b].push_back(a);
  };
  for (const CompiledJoint& j : sys.joints) {
    if (j.node < 0) continue;
    zeroDiagonal[j.node] = true;
    edge(j.node, j.geo.parent);
    edge(j.node, j.geo.child);
  }
  for (const CompiledContact& c : sys.contacts) {
    const CompiledContactGroup& grp = sys.contactGroups[c.group];
    edge(c.node, grp.bodyA);
    edge(c.node, grp.body);
    if (c.extraNode < 0) continue;
    edge(c.extraNode, grp.bodyA);
    edge(c.extraNode, grp.body);
    edge(c.extraNode, c.node);
  }
  for (const CompiledLimit& l : sys.limits) {
    const JointGeometry& g = sys.joints[l.joint].geo;
    zeroDiagonal[l.node] = true;
    hangingLeaf[l.node] = g.parent < 0;
    edge(l.node, g.parent);
    edge(l.node, g.child);
  }
  // Contacts between bodies may close many loops (a pile): minimum degree where it fills in less.
  bool pairs = false;
  for (const CompiledContactGroup& grp : sys.contactGroups) pairs = pairs || grp.bodyA >= 0;
  return computeEliminationOrder(adjacency, zeroDiagonal, hangingLeaf, {}, pairs);
}

// Whether candidate k of a contact group enters the step's complementarity problem: its gap at the
// knot z1 is within kContactMargin + 2|φ̇₀|Δt, φ̇₀ the gap's rate at the state's velocities (the
// limits' rule). The others are equality rows y = 0 (selectPairs, evaluate).
bool contactCandidate(const CompiledContactGroup& grp, const contact::Contact& c, const State& state, double dt) {
  const BodyState& b = state.bodies[grp.body];
  double rate = c.dxB.dot(b.v) + c.dthB.dot(b.w);
  if (grp.bodyA >= 0) rate += c.dxA.dot(state.bodies[grp.bodyA].v) + c.dthA.dot(state.bodies[grp.bodyA].w);
  return !(c.phi > kContactMargin + 2.0 * std::abs(rate) * dt);
}

// The interior-point pairs: every row of every candidate contact (then the n_f − 4 friction rows of
// its companion), then rows 0–1 (lower, upper) of every candidate limit. The pair vectors keep the
// capacity of all pairs (allocated once); the first numPairs entries are in use.
void selectPairs(const CompiledSystem& sys, VariationalIntegrator::Impl& m) {
  MS_ASSERT(m.contactOn.size() == sys.contacts.size() && m.contactPair.size() == sys.contacts.size(),
            "contact candidate flags sized for another system");
  m.pairRow.clear();
  const int extra = sys.frictionDirections - kFrictionDirections;
  for (size_t ci = 0; ci < sys.contacts.size(); ++ci) {
    const CompiledContact& c = sys.contacts[ci];
    m.contactPair[ci] = m.contactOn[ci] ? int(m.pairRow.size()) : -1;
    if (!m.contactOn[ci]) continue;
    for (int q = 0; q < 6; ++q) m.pairRow.push_back(6 * c.node + q);
    for (int q = 0; q < extra && c.extraNode >= 0; ++q) m.pairRow.push_back(6 * c.extraNode + q);
  }
  for (size_t li = 0; li < sys.limits.size(); ++li)
    if (m.limitOn[li])
      for (int q = 0; q < 2; ++q) m.pairRow.push_back(6 * sys.limits[li].node + q);
  if (int(m.pairRow.size()) == m.numPairs) return;
  m.numPairs = int(m.pairRow.size());
  MS_ASSERT(m.numPairs <= m.sCur.size(), "more interior-point pairs than allocated");
  for (VecX* v : {&m.yCur, &m.yTrial, &m.dy, &m.sCur, &m.sTrial, &m.ds}) v->head(m.numPairs).setZero();
}
}  // namespace

VariationalIntegrator::VariationalIntegrator(std::shared_ptr<const CompiledSystem> system)
    : sys_(std::move(system)), matrix_(sys_->order), impl_(std::make_shared<Impl>()) {
  const int nb = int(sys_->bodies.size()), nj = int(sys_->joints.size());
  Impl& m = *impl_;
  m.x1.resize(nb);
  m.v0.resize(nb);
  m.force.resize(nb);
  m.torque.resize(nb);
  m.momentum0.resize(nb);
  m.q1.resize(nb);
  m.x2.resize(nb);
  m.q2.resize(nb);
  m.phi.resize(nb);
  m.g1.resize(nj);
  m.m1.resize(nj);
  m.needsMinimal.assign(nj, 0);
  m.damping.assign(nj, Vec6::Zero());
  m.damped.assign(nj, 0);
  const int n0 = 6 * sys_->numNodes;
  m.set1.resize(sys_->contactGroups.size());
  m.set2.resize(sys_->contactGroups.size());
  m.features.resize(sys_->contactGroups.size());
  m.fr.resize(sys_->contacts.size());
  m.frPlain.resize(sys_->contacts.size());
  // Interior-point pairs: every contact row, then rows 0–1 (lower, upper) of every limit node.
  // (Rebuilt per step by selectPairs when limits are candidates or not; all on until then.)
  m.lim2.resize(sys_->limits.size());
  m.limitOn.assign(sys_->limits.size(), 1);
  m.contactOn.assign(sys_->contacts.size(), 1);
  m.contactPair.assign(sys_->contacts.size(), -1);
  const int maxPairs =
      int((6 + sys_->frictionDirections - kFrictionDirections) * sys_->contacts.size() + 2 * sys_->limits.size());
  m.pairRow.reserve(maxPairs);
  for (VecX* v : {&m.yCur, &m.yTrial, &m.dy, &m.sCur, &m.sTrial, &m.ds}) v->setZero(maxPairs);
  m.pairActive.assign(maxPairs, 0);
  m.ip.reserve(maxPairs);
  m.numPairs = -1;
  selectPairs(*sys_, m);
  m.rowWeight.setOnes(6 * sys_->numNodes);
  if (sys_->frictionDirections > kFrictionDirections) {
    m.swapC.assign(4 * sys_->contacts.size(), 0);
    m.swapE.assign(4 * sys_->contacts.size(), 0);
    m.numSwaps.assign(sys_->contacts.size(), 0);
  }
  if (!sys_->contacts.empty() || !sys_->limits.empty()) {
    // The contact step's elimination order and the map of its blocks onto matrix_'s.
    m.leafFirst = GraphLDU(leafFirstOrder(*sys_));
    const EliminationOrder& lo = m.leafFirst.order();
    for (int i = 0; i < lo.numNodes; ++i)
      for (int c : lo.children[i])
        for (auto [r, k] : {std::pair{i, c}, std::pair{c, i}})
          m.leafBlocks.emplace_back(m.leafFirst.blockIndex(r, k), matrix_.blockIndex(r, k));
    m.rhs.setZero(n0);
    m.refine.setZero(n0);
    m.start.setZero(n0);
    m.polished.setZero(n0);
    m.krylov.setZero(n0, kKrylov + 1);
    m.work1.setZero(n0);
    m.work2.setZero(n0);
  }
  const int n = 6 * sys_->numNodes;
  m.roundoff.setZero(n);
  for (const CompiledBody& b : sys_->bodies) totalMass_ += b.mass;
  // The state copy kept while a step is solved in sub-intervals: sized here, so that taking it
  // inside a step does not allocate (copy-assignment reuses the capacity).
  const size_t nc = sys_->contacts.size(), nl = sys_->limits.size();
  auto reserve = [&](State& s) {
    s.bodies.reserve(nb);
    s.lambda.reserve(nj);
    s.contactImpulse.reserve(nc);
    s.contactGap.reserve(nc);
    s.contactFriction.reserve(nc);
    s.limitImpulse.reserve(nl);
    s.limitPosition.reserve(nl);
    s.softAnchor.reserve(nc);
    s.softActive.reserve(nc);
  };
  reserve(backup_);
  // Closed loops can meet singular configurations: the start states of this and the previous step
  // and the first outcome of a step are kept (docs/engine.md, "Singular configurations").
  watchSingular_ = !sys_->loopJoints.empty() && sys_->contacts.empty();
  if (watchSingular_) {
    for (State* s : {&start_, &previous_, &outcome_}) reserve(*s);
    for (Inputs* in : {&startInputs_, &previousInputs_}) {
      in->force.reserve(nb);
      in->torque.reserve(nb);
      in->actuator.reserve(nj);
    }
  }
  m.cur.setZero(n);
  for (VecX& h : m.startHistory) h.setZero(n);
  m.trial.setZero(n);
  m.delta.setZero(n);
  m.residual.setZero(n);
  m.trialResidual.setZero(n);
}

namespace {

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
void contactCandidates(const CompiledContactGroup& grp, const Vec3Vector& x, const Vec4Vector& q, contact::ContactSet& out,
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

// Friction rows B(z1) of every contact candidate at the knot, polygons turned by `twist`.
void frictionRowsAtKnot(const CompiledSystem& sys, const VariationalIntegrator::Impl& m,
                        std::vector<contact::FrictionRows>& out, double twist) {
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    contact::BodyPose za, zb;
    if (grp.bodyA >= 0) za = {m.x1[grp.bodyA], m.q1[grp.bodyA]};
    zb = {m.x1[grp.body], m.q1[grp.body]};
    for (int k = 0; k < grp.count; ++k)
      contact::frictionRows(m.set1[gi].contacts[k], grp.bodyA >= 0 ? &za : nullptr, zb, sys.frictionDirections,
                            out[grp.first + k], twist);
  }
}

// Prepare the knot z1, constant forces and G(z1) for one step of length Δt = st.dt from a state
// whose velocities belong to an interval of length h0 (= Δt except around a subdivided step, see
// VariationalIntegrator::step). Returns false if |ω₀| ≥ 2/h0.
// Variable steps (h0 ≠ Δt): the discrete momenta are those of each interval's own length, and the
// forces at the knot z1 act over the mean of the two intervals. Multiplied by Δt/2, (16) reads
//   (Δt/2)(Jω s_Δt(ω) + ω×Jω) − (h0/2)(Jω₀ s_h0(ω₀) − ω₀×Jω₀) − ((h0 + Δt)/2) τ − Δt G_θᵀλ = 0,
// and (10) m v − m v₀ − ((h0 + Δt)/2) f − Δt G_xᵀλ = 0; with h0 = Δt both are (10) and (16).
bool prepare(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const StepSettings& st, const Inputs& in,
             const State& state, double h0) {
  const double dt = st.dt;
  m.dt = dt;
  m.h0 = h0;
  const int nb = int(sys.bodies.size());
  double totalMass = 0;
  // Knot z1 by (11) and (17); previous angular momentum term of (16); gravity and external wrenches.
  for (int i = 0; i < nb; ++i) {
    const BodyState& b = state.bodies[i];
    const CompiledBody& cb = sys.bodies[i];
    Vec4 inc;
    if (!quat::incrementFromVelocity(b.w, h0, inc)) return false;
    m.x1[i] = b.x + b.v * h0;
    m.q1[i] = quat::mul(b.q, inc).normalized();
    m.v0[i] = b.v;
    const Vec3 Jw0 = cb.inertia * b.w;
    m.momentum0[i] = (h0 / dt) * (Jw0 * std::sqrt(4.0 / (h0 * h0) - b.w.squaredNorm()) - b.w.cross(Jw0));
    m.force[i] = cb.mass * st.gravity + in.force[i];
    m.torque[i] = quat::rotation(m.q1[i]).transpose() * in.torque[i];
    totalMass += cb.mass;
  }
  m.damperWeight = 1.0 / std::max(1.0, totalMass * st.gravity.norm());
  // Springs between bodies: force along the line of their points at z1 (the gradient of
  // ½k(|d| − L)², variational), damping from the velocities ż0 that led to z1 (explicit).
  for (const SpringDesc& sp : sys.model.springs) {
    const int a = sp.bodyA, b = sp.bodyB;
    SpringEnd A, B;
    if (a >= 0) A = {m.x1[a], quat::rotation(m.q1[a]), state.bodies[a].v, state.bodies[a].w};
    if (b >= 0) B = {m.x1[b], quat::rotation(m.q1[b]), state.bodies[b].v, state.bodies[b].w};
    Vec3 fb, ta, tb;
    if (!springForce(sp, A, B, fb, ta, tb)) continue;  // direction undefined: no force at zero length
    if (b >= 0) {
      m.force[b] += fb;
      m.torque[b] += tb;
    }
    if (a >= 0) {
      m.force[a] -= fb;
      m.torque[a] += ta;
    }
  }
  // Joint Jacobians at z1; spring and actuator efforts mapped to body wrenches.
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    const JointPoses z = posesOf(j.geo, m.x1, m.q1);
    if (j.node >= 0) evalJointConstraint(j.geo, z, m.g1[k]);
    const bool act = in.actuator[k].any();
    m.damping[k] = j.hasDamper ? j.damping : Vec6::Zero();
    if (k < in.damping.size()) m.damping[k] += in.damping[k];
    m.damped[k] = m.damping[k].any();
    m.needsMinimal[k] = j.hasSpring || m.damped[k] || act;
    if (!m.needsMinimal[k]) continue;
    JointMinimalEval& me = m.m1[k];
    evalJointMinimal(j.geo, z, me);
    Vec6 u = in.actuator[k];
    if (j.hasSpring) u -= j.stiffness.cwiseProduct(me.theta - j.rest);
    if (j.geo.parent >= 0) {
      m.force[j.geo.parent] += me.dxa.transpose() * u;
      m.torque[j.geo.parent] += me.dtha.transpose() * u;
    }
    m.force[j.geo.child] += me.dxb.transpose() * u;
    m.torque[j.geo.child] += me.dthb.transpose() * u;
  }
  // Forces at the knot act over the mean interval (h0 + Δt)/2: scaled to the residual's 1/Δt.
  if (h0 != dt) {
    const double scale = 0.5 * (h0 + dt) / dt;
    for (int i = 0; i < nb; ++i) {
      m.force[i] *= scale;
      m.torque[i] *= scale;
    }
  }
  // Joint limits: minimal-coordinate Jacobians at z1 (the limit efforts act through them).
  for (const CompiledLimit& l : sys.limits) {
    const CompiledJoint& j = sys.joints[l.joint];
    if (!m.needsMinimal[l.joint]) evalJointMinimal(j.geo, posesOf(j.geo, m.x1, m.q1), m.m1[l.joint]);
  }
  m.pairsRechosen = 0;
  // Contact candidates at z1: normals and points for the impulses, friction rows B(z1). A pair's
  // face manifold is chosen here, with the bodies' motion over the step as its margin (twice the
  // previous velocities' reach: |v| Δt + |ω| r Δt per body).
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    if (grp.bodyA >= 0) {
      const BodyState &a = state.bodies[grp.bodyA], &b = state.bodies[grp.body];
      m.features[gi].motion = 2.0 * dt * (a.v.norm() + a.w.norm() * contact::shapeReach(grp.shapeA) + b.v.norm() +
                                          b.w.norm() * contact::shapeReach(grp.shape));
    }
    contactCandidates(grp, m.x1, m.q1, m.set1[gi], m.features[gi], true);
  }
  frictionRowsAtKnot(sys, m, m.fr, m.frictionTwist);
  return true;
}

// Residual of (20a)–(20b) and (optionally) the Newton matrix at iterate `x`. False if |ω| ≥ 2/Δt.
bool evaluate(const CompiledSystem& sys, VariationalIntegrator::Impl& m, const VecX& x, VecX& r, GraphLDU* F) {
  const double dt = m.dt;
  const int nb = int(sys.bodies.size());
  // Fill-in blocks (closed loops) still hold factors from the previous iteration: clear them.
  if (F && sys.order.fillIn > 0) F->setFillInZero();
  // Bodies: next knot z2, dynamics residuals (10), (16) and their diagonal blocks.
  for (int i = 0; i < nb; ++i) {
    const CompiledBody& cb = sys.bodies[i];
    const Vec3 v = x.segment<3>(6 * i), w = x.segment<3>(6 * i + 3);
    Vec4 inc;
    if (!quat::incrementFromVelocity(w, dt, inc)) return false;
    m.x2[i] = m.x1[i] + v * dt;
    m.q2[i] = quat::mul(m.q1[i], inc);
    const double s = std::sqrt(4.0 / (dt * dt) - w.squaredNorm());
    const Vec3 Jw = cb.inertia * w;
    r.segment<3>(6 * i) = cb.mass * (v - m.v0[i]) / dt - m.force[i];
    r.segment<3>(6 * i + 3) = Jw * s + w.cross(Jw) - m.momentum0[i] - 2.0 * m.torque[i];
    if (F) {
      m.phi[i] = quat::incrementJacobian(w, dt);
      Mat6& D = F->diag(i);
      D.setZero();
      D.topLeftCorner<3, 3>().diagonal().setConstant(cb.mass / dt);
      D.bottomRightCorner<3, 3>() =
          cb.inertia * s - (Jw * w.transpose()) / s + quat::skew(w) * cb.inertia - quat::skew(Jw);
    }
  }
  // Joints: constraint forces G(z1)ᵀλ on the bodies, constraint rows g(z2), dampers.
  for (size_t k = 0; k < sys.joints.size(); ++k) {
    const CompiledJoint& j = sys.joints[k];
    const int a = j.geo.parent, b = j.geo.child;
    if (j.node >= 0) {
      const JointConstraintEval& G = m.g1[k];
      const Vec6 lam = x.segment<6>(6 * j.node);
      if (a >= 0) {
        r.segment<3>(6 * a) -= G.dxa.transpose() * lam;
        r.segment<3>(6 * a + 3) -= 2.0 * G.dtha.transpose() * lam;
      }
      r.segment<3>(6 * b) -= G.dxb.transpose() * lam;
      r.segment<3>(6 * b + 3) -= 2.0 * G.dthb.transpose() * lam;
      const JointPoses z2 = posesOf(j.geo, m.x2, m.q2);
      if (F) {
        evalJointConstraint(j.geo, z2, m.g2);
        r.segment<6>(6 * j.node) = m.g2.g;
        // Joint diagonal: a tiny ε on constraint rows (regularises near-singular configurations;
        // the residual is unchanged), and on padding rows a value of the scale of the joint's
        // Schur complement (Δt²/m), so that pivots are not badly scaled.
        Mat6& D = F->diag(j.node);
        D.setZero();
        for (int q = 0; q < 6; ++q) D(q, q) = q < j.geo.constrained() ? kRegularization * dt * dt : dt * dt;
        // (joint row, body column): ∂g(z2)/∂ż; (body row, joint column): −G(z1)ᵀ.
        Mat6& JB = F->block(j.blockJB);
        JB.leftCols<3>() = m.g2.dxb * dt;
        JB.rightCols<3>() = m.g2.dthb * m.phi[b];
        Mat6& BJ = F->block(j.blockBJ);
        BJ.topRows<3>() = -G.dxb.transpose();
        BJ.bottomRows<3>() = -2.0 * G.dthb.transpose();
        if (a >= 0) {
          Mat6& JA = F->block(j.blockJA);
          JA.leftCols<3>() = m.g2.dxa * dt;
          JA.rightCols<3>() = m.g2.dtha * m.phi[a];
          Mat6& AJ = F->block(j.blockAJ);
          AJ.topRows<3>() = -G.dxa.transpose();
          AJ.bottomRows<3>() = -2.0 * G.dtha.transpose();
        }
      } else {
        r.segment<6>(6 * j.node) = jointConstraintValue(j.geo, z2);
      }
    }
    if (!m.damped[k]) continue;
    const Vec6& c = m.damping[k];
    const JointMinimalEval& me = m.m1[k];
    if (j.node >= 0) {
      // Damper efforts u are unknowns in the joint node's free rows q = n_c + i (i < free):
      // w (u_i + c_i θ̇_i) = 0 with θ̇ = J_min(z1) ż; the bodies feel −J_minᵀ u (rotational rows
      // doubled) like −Gᵀλ. The parent–child coupling then runs through the joint node and Newton
      // stays exact for any damping (w: the body rows' force scale, so the tolerance means the same).
      const int nc = j.geo.constrained(), nf = j.geo.freeCoordinates();
      MS_ASSERT(nc + nf <= 6, "a joint's constraint and free rows exceed its node");
      const double w = m.damperWeight;
      for (int i = 0; i < nf; ++i) {
        const int q = nc + i;
        const double u = x[6 * j.node + q];
        // One body's part: its share of θ̇_i, the effort −J_min,iᵀu on it (rotational rows doubled)
        // and, with the matrix, the blocks (damper row, body) = w c_i ∂θ̇_i/∂ż, (body, damper) = −J_min,iᵀ.
        auto body = [&](int k, const Mat6x3& dx, const Mat6x3& dth, int blockJ, int blockB) {
          r.segment<3>(6 * k) -= dx.row(i).transpose() * u;
          r.segment<3>(6 * k + 3) -= 2.0 * dth.row(i).transpose() * u;
          if (F) {
            Mat6& JX = F->block(blockJ);
            JX.row(q).head<3>() = w * c[i] * dx.row(i);
            JX.row(q).tail<3>() = w * c[i] * dth.row(i);
            Mat6& XJ = F->block(blockB);
            XJ.col(q).head<3>() = -dx.row(i).transpose();
            XJ.col(q).tail<3>() = -2.0 * dth.row(i).transpose();
          }
          return dx.row(i).dot(x.segment<3>(6 * k)) + dth.row(i).dot(x.segment<3>(6 * k + 3));
        };
        double rate = body(b, me.dxb, me.dthb, j.blockJB, j.blockBJ);
        if (a >= 0) rate += body(a, me.dxa, me.dtha, j.blockJA, j.blockAJ);
        r[6 * j.node + q] = w * (u + c[i] * rate);
        if (F) F->diag(j.node)(q, q) = w;
      }
      continue;
    }
    // A joint without a node (nothing constrained): u = −c θ̇ applied directly, implicit in ż; its
    // Jacobian keeps each body's diagonal block (exact for a floating joint to the world).
    Vec6 rate = me.dxb * x.segment<3>(6 * b) + me.dthb * x.segment<3>(6 * b + 3);
    if (a >= 0) rate += me.dxa * x.segment<3>(6 * a) + me.dtha * x.segment<3>(6 * a + 3);
    const Vec6 u = -c.cwiseProduct(rate);
    auto apply = [&](int body, const Mat6x3& dx, const Mat6x3& dth) {
      r.segment<3>(6 * body) -= dx.transpose() * u;
      r.segment<3>(6 * body + 3) -= 2.0 * dth.transpose() * u;
      if (!F) return;
      Eigen::Matrix<double, 6, 6> Jm;  // [dx dth] : minimal rates per body velocity
      Jm.leftCols<3>() = dx;
      Jm.rightCols<3>() = dth;
      Eigen::Matrix<double, 6, 6> JmT = Jm.transpose();
      JmT.bottomRows<3>() *= 2.0;
      F->diag(body).noalias() += JmT * c.asDiagonal() * Jm;
    };
    if (a >= 0) apply(a, me.dxa, me.dtha);
    apply(b, me.dxb, me.dthb);
  }
  // Contacts: impulses −N(z1)ᵀγ − B(z1)ᵀβ on the body (and on body A of a contact pair, whose
  // gradients ∂φ/∂(x_A, θ_A) already carry the sign and whose sliding rows enter with −1); rows
  // c = [φ(z2), μγ − Σβ, Bż + ψ] (the caller subtracts the slacks); blocks ∂c/∂ż, ∂c/∂y, −[Nᵀ 0 Bᵀ].
  // Directions 5..n_f are the rows of the companion node (rows ≥ n_f − 4 of B_E are zero).
  using Mat43 = Eigen::Matrix<double, 4, 3>;
  using Mat63 = Eigen::Matrix<double, 6, 3>;
  const int extra = sys.frictionDirections - kFrictionDirections;
  for (size_t gi = 0; gi < sys.contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys.contactGroups[gi];
    contactCandidates(grp, m.x2, m.q2, m.set2[gi], m.features[gi], false);
    for (int k = 0; k < grp.count; ++k) {
      const CompiledContact& cc = sys.contacts[grp.first + k];
      const contact::Contact& c1 = m.set1[gi].contacts[k];
      const contact::Contact& c2 = m.set2[gi].contacts[k];
      const contact::FrictionRows& fr = m.fr[grp.first + k];
      const Vec6 y = x.segment<6>(6 * cc.node);
      if (!m.contactOn[grp.first + k]) {
        // Not a candidate in this step: equality rows y = 0 (companion too), no impulse, no coupling.
        r.segment<6>(6 * cc.node) = y;
        if (cc.extraNode >= 0) r.segment<6>(6 * cc.extraNode) = x.segment<6>(6 * cc.extraNode);
        if (!F) continue;
        F->diag(cc.node).setIdentity();
        for (int blk : {cc.blockCB, cc.blockBC, cc.blockCA, cc.blockAC, cc.blockEB, cc.blockBE, cc.blockEA, cc.blockAE,
                        cc.blockCE, cc.blockEC})
          if (blk >= 0) F->block(blk).setZero();
        if (cc.extraNode >= 0) F->diag(cc.extraNode).setIdentity();
        continue;
      }
      const double gamma = y[0], psi = y[1];
      const Eigen::Vector4d beta = y.tail<4>();
      auto rc = r.segment<6>(6 * cc.node);
      rc[0] = c2.phi;
      rc[1] = grp.friction * gamma - beta.sum();
      rc.tail<4>().setConstant(psi);
      // Compliance (see kNormalCompliance): exact in the residual and in ∂c/∂y.
      rc[0] += kNormalCompliance * dt * dt * gamma;
      rc.tail<5>() += kFrictionCompliance * dt * y.tail<5>();
      // Companion (n_f > 4): β₅..β_{n_f} in the cone row, rows ψ + ε_fβ_k, padding rows y = 0.
      const bool hasE = cc.extraNode >= 0;
      Vec6 yE = Vec6::Zero();
      if (hasE) {
        yE = x.segment<6>(6 * cc.extraNode);
        auto re = r.segment<6>(6 * cc.extraNode);
        for (int q = 0; q < 6; ++q) re[q] = q < extra ? psi + kFrictionCompliance * dt * yE[q] : yE[q];
        rc[1] -= yE.head(extra).sum();
        yE.tail(6 - extra).setZero();  // padding: no impulse
      }
      // One side of the contact: body `b` with gap gradients at z1 / z2 and sliding rows (sign ±1).
      auto side = [&](int b, const contact::Row3& dx1, const contact::Row3& dth1, const contact::Row3& dx2,
                      const contact::Row3& dth2, const Mat43& Bv,
                      const Mat43& Bw, int blockCS, int blockSC, const Mat63& BvE, const Mat63& BwE, int blockES,
                      int blockSE) {
        r.segment<3>(6 * b) -= dx1.transpose() * gamma + Bv.transpose() * beta;
        r.segment<3>(6 * b + 3) -= 2.0 * (dth1.transpose() * gamma + Bw.transpose() * beta);
        rc.tail<4>() += Bv * x.segment<3>(6 * b) + Bw * x.segment<3>(6 * b + 3);
        if (hasE) {
          // Companion directions: impulses on the body, sliding rows (zero rows for the padding).
          r.segment<3>(6 * b) -= BvE.transpose() * yE;
          r.segment<3>(6 * b + 3) -= 2.0 * BwE.transpose() * yE;
          r.segment<6>(6 * cc.extraNode) += BvE * x.segment<3>(6 * b) + BwE * x.segment<3>(6 * b + 3);
        }
        if (!F) return;
        if (hasE) {
          // (companion row, body column): B_E; (body row, companion column): −B_Eᵀ.
          Mat6& ES = F->block(blockES);
          ES.leftCols<3>() = BvE;
          ES.rightCols<3>() = BwE;
          Mat6& SE = F->block(blockSE);
          SE.topRows<3>() = -BvE.transpose();
          SE.bottomRows<3>() = -2.0 * BwE.transpose();
        }
        Mat6& CS = F->block(blockCS);
        CS.setZero();
        CS.block<1, 3>(0, 0) = dx2 * dt;
        CS.block<1, 3>(0, 3) = dth2 * m.phi[b];
        CS.block<4, 3>(2, 0) = Bv;
        CS.block<4, 3>(2, 3) = Bw;
        Mat6& SC = F->block(blockSC);
        SC.setZero();
        SC.block<3, 1>(0, 0) = -dx1.transpose();
        SC.block<3, 1>(3, 0) = -2.0 * dth1.transpose();
        SC.block<3, 4>(0, 2) = -Bv.transpose();
        SC.block<3, 4>(3, 2) = -2.0 * Bw.transpose();
      };
      side(grp.body, c1.dxB, c1.dthB, c2.dxB, c2.dthB, fr.dvB.topRows<4>(), fr.dwB.topRows<4>(), cc.blockCB, cc.blockBC,
           fr.dvB.middleRows<6>(4), fr.dwB.middleRows<6>(4), cc.blockEB, cc.blockBE);
      if (grp.bodyA >= 0)
        side(grp.bodyA, c1.dxA, c1.dthA, c2.dxA, c2.dthA, -fr.dvA.topRows<4>(), -fr.dwA.topRows<4>(), cc.blockCA,
             cc.blockAC, -fr.dvA.middleRows<6>(4), -fr.dwA.middleRows<6>(4), cc.blockEA, cc.blockAE);
      if (!F) continue;
      if (hasE) {
        // Companion: diag(ε_f, …, 1 on padding); (contact row 1, E's β) = −1; (E's rows, ψ) = +1.
        Mat6& DE = F->diag(cc.extraNode);
        DE.setZero();
        for (int q = 0; q < 6; ++q) DE(q, q) = q < extra ? kFrictionCompliance * dt : 1.0;
        Mat6& CE = F->block(cc.blockCE);
        CE.setZero();
        CE.block(1, 0, 1, extra).setConstant(-1.0);
        Mat6& EC = F->block(cc.blockEC);
        EC.setZero();
        EC.block(0, 1, extra, 1).setConstant(1.0);
      }
      // ∂c/∂y with the compliance on the diagonal (without it the φ rows of a box face — 4 gaps,
      // 3 freedoms — make the pivots singular as s/y → 0).
      Mat6& D = F->diag(cc.node);
      D.setZero();
      D.diagonal().setConstant(kFrictionCompliance * dt);
      D(0, 0) = kNormalCompliance * dt * dt;
      D(1, 0) = grp.friction;
      D.block<1, 4>(1, 2).setConstant(-1.0);
      D.block<4, 1>(2, 1).setConstant(1.0);
    }
  }
  // Joint limits: effort u = γ_lo − γ_hi on the bodies through J_min(z1); rows
  // [θ(z2) − lower + ε_l γ_lo, upper − θ(z2) + ε_l γ_hi, y₂..y₅] (the caller subtracts the slacks of
  // rows 0–1); blocks ±∂θ(z2)/∂ż, diag(ε_l, ε_l, 1, 1, 1, 1) and ∓J_min(z1)ᵀ.
  for (size_t li = 0; li < sys.limits.size(); ++li) {
    const CompiledLimit& l = sys.limits[li];
    const CompiledJoint& j = sys.joints[l.joint];
    const int a = j.geo.parent, b = j.geo.child;
    const JointMinimalEval& me1 = m.m1[l.joint];
    JointMinimalEval& me2 = m.lim2[li];
    evalJointMinimal(j.geo, posesOf(j.geo, m.x2, m.q2), me2);
    const Vec6 y = x.segment<6>(6 * l.node);
    const double u = y[0] - y[1], eps = kLimitCompliance * dt * dt;
    if (!m.limitOn[li]) {
      // Not a candidate in this step: six equality rows y = 0, no effort, no coupling.
      r.segment<6>(6 * l.node) = y;
      if (!F) continue;
      F->diag(l.node).setIdentity();
      F->block(l.blockLB).setZero();
      F->block(l.blockBL).setZero();
      if (a >= 0) {
        F->block(l.blockLA).setZero();
        F->block(l.blockAL).setZero();
      }
      continue;
    }
    // Efforts on the bodies (as an actuator): f = (∂θ/∂x)ᵀu, rotational rows 2(∂θ/∂θ)ᵀu.
    if (a >= 0) {
      r.segment<3>(6 * a) -= me1.dxa.row(0).transpose() * u;
      r.segment<3>(6 * a + 3) -= 2.0 * me1.dtha.row(0).transpose() * u;
    }
    r.segment<3>(6 * b) -= me1.dxb.row(0).transpose() * u;
    r.segment<3>(6 * b + 3) -= 2.0 * me1.dthb.row(0).transpose() * u;
    // Limit rows at z2 with the compliance; padding rows y = 0.
    auto rl = r.segment<6>(6 * l.node);
    rl[0] = me2.theta[0] - l.lower + eps * y[0];
    rl[1] = l.upper - me2.theta[0] + eps * y[1];
    rl.tail<4>() = y.tail<4>();
    if (!F) continue;
    // ∂c/∂y: the compliance on the pair rows, identity on the padding rows.
    Mat6& D = F->diag(l.node);
    D.setIdentity();
    D(0, 0) = D(1, 1) = eps;
    // (limit row, body column): ±∂θ(z2)/∂ż; (body row, limit column): ∓J_min(z1)ᵀ.
    auto rows = [&](int blk, const Mat6x3& dx2, const Mat6x3& dth2, int body) {
      Mat6& LB = F->block(blk);
      LB.setZero();
      LB.block<1, 3>(0, 0) = dx2.row(0) * dt;
      LB.block<1, 3>(0, 3) = dth2.row(0) * m.phi[body];
      LB.row(1) = -LB.row(0);
    };
    auto cols = [&](int blk, const Mat6x3& dx1, const Mat6x3& dth1) {
      Mat6& BL = F->block(blk);
      BL.setZero();
      BL.block<3, 1>(0, 0) = -dx1.row(0).transpose();
      BL.block<3, 1>(3, 0) = -2.0 * dth1.row(0).transpose();
      BL.col(1) = -BL.col(0);
    };
    rows(l.blockLB, me2.dxb, me2.dthb, b);
    cols(l.blockBL, me1.dxb, me1.dthb);
    if (a >= 0) {
      rows(l.blockLA, me2.dxa, me2.dtha, a);
      cols(l.blockAL, me1.dxa, me1.dtha);
    }
  }
  return true;
}

}  // namespace

int companionSwaps(const double* ratio, int nf, int swapC[4], int swapE[4]) {
  // The 4 directions of smallest ratio (insertion sort of at most kMaxFrictionDirections indices).
  int idx[contact::kMaxFrictionDirections];
  for (int k = 0; k < nf; ++k) {
    int j = k;
    for (; j > 0 && ratio[idx[j - 1]] > ratio[k]; --j) idx[j] = idx[j - 1];
    idx[j] = k;
  }
  bool wanted[contact::kMaxFrictionDirections] = {};
  for (int i = 0; i < kFrictionDirections && i < nf; ++i) wanted[idx[i]] = true;
  // Pair the unwanted directions of the contact node with the wanted ones of the companion.
  int n = 0, e = kFrictionDirections;
  for (int k = 0; k < kFrictionDirections; ++k) {
    if (wanted[k]) continue;
    while (e < nf && !wanted[e]) ++e;
    if (e >= nf) break;
    swapC[n] = 2 + k;
    swapE[n] = e - kFrictionDirections;
    ++n;
    ++e;
  }
  return n;
}

void swapCompanionUnknowns(GraphLDU& F, const CompiledSystem& sys, const CompiledContact& c, int a, int b) {
  const CompiledContactGroup& grp = sys.contactGroups[c.group];
  // Rows: (contact, X) row a ↔ (companion, X) row b for X = contact, companion, body, body A.
  F.diag(c.node).row(a).swap(F.block(c.blockEC).row(b));
  F.block(c.blockCE).row(a).swap(F.diag(c.extraNode).row(b));
  F.block(c.blockCB).row(a).swap(F.block(c.blockEB).row(b));
  if (grp.bodyA >= 0) F.block(c.blockCA).row(a).swap(F.block(c.blockEA).row(b));
  // Columns: (X, contact) column a ↔ (X, companion) column b.
  F.diag(c.node).col(a).swap(F.block(c.blockCE).col(b));
  F.block(c.blockEC).col(a).swap(F.diag(c.extraNode).col(b));
  F.block(c.blockBC).col(a).swap(F.block(c.blockBE).col(b));
  if (grp.bodyA >= 0) F.block(c.blockAC).col(a).swap(F.block(c.blockAE).col(b));
}

namespace {

// One step with contacts as the interior-point problem of solver/interior_point.h: y = (ż, λ,
// contact impulses, limit efforts), pairs (s, impulse) per contact row and per limit row (rows 0–1
// of a limit node; its padding rows are equalities). The graph LDU is the linear algebra.
class ContactStepProblem final : public InteriorPointProblem {
 public:
  ContactStepProblem(const CompiledSystem& sys, VariationalIntegrator::Impl& m, GraphLDU& F) : sys_(sys), m_(m), F_(F) {}
  int numPairs() const override { return m_.numPairs; }
  Eigen::Ref<const VecX> slack(IpIterate which) const override {
    return (which == IpIterate::Current ? m_.sCur : m_.sTrial).head(m_.numPairs);
  }
  Eigen::Ref<const VecX> dual(IpIterate which) const override {
    return (which == IpIterate::Current ? m_.yCur : m_.yTrial).head(m_.numPairs);
  }
  Eigen::Ref<const VecX> slackStep() const override { return m_.ds.head(m_.numPairs); }
  Eigen::Ref<const VecX> dualStep() const override { return m_.dy.head(m_.numPairs); }
  // The evaluation of the current iterate and of the first trial of each line search (the full
  // step to the boundary limit, usually the one accepted) assembles the Newton matrix too (into
  // F_): the driver factors at the point it evaluated last, so factor() then needs no evaluation of
  // its own. Shorter trials evaluate the residual only (sphere chains backtrack often).
  IpEqualityNorms evaluate(IpIterate which) override {
    const bool cur = which == IpIterate::Current;
    const bool assemble = cur || firstTrial_;
    firstTrial_ = false;
    const IpEqualityNorms n = norms(cur ? m_.cur : m_.trial, cur ? m_.sCur : m_.sTrial,
                                    cur ? m_.residual : m_.trialResidual, assemble ? &F_ : nullptr);
    if (assemble) matrix_ = !std::isfinite(n.maxAbs) ? Matrix::None : cur ? Matrix::Current : Matrix::Trial;
    else if (matrix_ == Matrix::Trial) matrix_ = Matrix::None;
    return n;
  }
  bool factor() override {
    if (matrix_ != Matrix::Current && !std::isfinite(norms(m_.cur, m_.sCur, m_.residual, &F_).maxAbs)) return false;
    completeMatrix();
    return factorCompleted();
  }
  // The completed matrix (F_ stays unfactored) into the contact step's order, then factored there.
  bool factorCompleted() {
    GraphLDU& L = m_.leafFirst;
    for (int i = 0; i < L.numNodes(); ++i) L.diag(i) = F_.diag(i);
    for (const auto& [dst, src] : m_.leafBlocks) {
      if (src >= 0) L.block(dst) = F_.block(src);
      else L.block(dst).setZero();
    }
    return L.factor();
  }
  // F_ at the current iterate with S·Y⁻¹ and the companion swaps (the matrix that was factored).
  void completeMatrix() {
    // Δs eliminated per pair: the contact and limit diagonals gain S·Y⁻¹.
    for (int p = 0; p < m_.numPairs; ++p) {
      const int row = m_.pairRow[p];
      F_.diag(row / 6)(row % 6, row % 6) += m_.sCur[p] / m_.yCur[p];
    }
    swapCompanions(false);
    matrix_ = Matrix::Factored;
  }
  // Companions: the 4 directions of smallest s/β into the contact node (pairs of candidate ci:
  // contactPair[ci] + [0, 6) on the contact node, then its n_f − 4 companion rows; a contact that
  // is not a candidate has equality rows and no swaps). For the polish: the active directions.
  void swapCompanions(bool polish) {
    const int nf = sys_.frictionDirections;
    for (size_t ci = 0; ci < m_.numSwaps.size(); ++ci) {
      m_.numSwaps[ci] = 0;
      if (m_.contactPair[ci] < 0) continue;
      double ratio[contact::kMaxFrictionDirections];
      for (int k = 0; k < nf; ++k) {
        const int p = m_.contactPair[ci] + (k < kFrictionDirections ? 2 + k : 6 + k - kFrictionDirections);
        ratio[k] = polish ? (m_.pairActive[p] ? 0.0 : 1.0) : m_.sCur[p] / m_.yCur[p];
      }
      const int n = companionSwaps(ratio, nf, &m_.swapC[4 * ci], &m_.swapE[4 * ci]);
      m_.numSwaps[ci] = n;
      for (int i = 0; i < n; ++i)
        swapCompanionUnknowns(F_, sys_, sys_.contacts[ci], m_.swapC[4 * ci + i], m_.swapE[4 * ci + i]);
    }
  }
  bool solveNewton(const Eigen::Ref<const VecX>& rhsComp) override {
    constexpr int refinements = kRefinements;
    const VecX& y = m_.yCur;
    firstTrial_ = true;
    // The refinement needs the factored matrix unfactored: rebuilt if a line search assembled
    // trials since (the driver's second direction after a failed search).
    if (refinements > 0 && matrix_ != Matrix::Factored) {
      norms(m_.cur, m_.sCur, m_.residual, &F_);
      completeMatrix();
    }
    m_.rhs = -m_.residual;
    for (int p = 0; p < m_.numPairs; ++p) m_.rhs[m_.pairRow[p]] += rhsComp[p] / y[p];
    permuteCompanions(m_.rhs);
    solveFactored();
    permuteCompanions(m_.delta);  // back to the fixed layout (disjoint swaps: self-inverse)
    // Δs from the complementarity rows: S Δy + Y Δs = r. (Recovering it from the linearised slack
    // equation instead, Δs = ∂c/∂ż Δż + ∂c/∂y Δy + (c − s), made the sphere chain fail earlier.)
    gatherPairs(m_.delta, m_.dy);
    const int np = m_.numPairs;
    m_.ds.head(np).array() = (rhsComp.array() - m_.sCur.head(np).array() * m_.dy.head(np).array()) / y.head(np).array();
    return m_.delta.allFinite() && m_.ds.head(np).allFinite();
  }
  void apply(double alpha) override {
    m_.trial = m_.cur + alpha * m_.delta;
    m_.sTrial.head(m_.numPairs) = m_.sCur.head(m_.numPairs) + alpha * m_.ds.head(m_.numPairs);
    gatherPairs(m_.trial, m_.yTrial);
  }
  void accept() override {
    matrix_ = matrix_ == Matrix::Trial ? Matrix::Current : Matrix::None;
    m_.cur.swap(m_.trial);
    m_.sCur.swap(m_.sTrial);
    m_.yCur.swap(m_.yTrial);
    m_.residual.swap(m_.trialResidual);
  }
  void raisePairs(const Eigen::Ref<const VecX>& s, const Eigen::Ref<const VecX>& y) override {
    matrix_ = Matrix::None;
    for (int p = 0; p < m_.numPairs; ++p) {
      m_.sCur[p] = s[p];
      m_.cur[m_.pairRow[p]] = y[p];
    }
  }
  // Applies the companion swaps of the current factorisation to a node-major vector.
  void permuteCompanions(VecX& v) const {
    for (size_t ci = 0; ci < m_.numSwaps.size(); ++ci)
      for (int i = 0; i < m_.numSwaps[ci]; ++i)
        std::swap(v[6 * sys_.contacts[ci].node + m_.swapC[4 * ci + i]],
                  v[6 * sys_.contacts[ci].extraNode + m_.swapE[4 * ci + i]]);
  }
  // The duals of the pairs from a node-major vector.
  void gatherPairs(const VecX& x, VecX& y) const {
    for (int p = 0; p < m_.numPairs; ++p) y[p] = x[m_.pairRow[p]];
  }
  // δ = F⁻¹ rhs (m_.rhs → m_.delta, both in the factorisation's companion layout) with the
  // factorisation of leafFirst, kRefinements corrections against the unfactored F_, and, if the
  // weighted residual is still above kSolveAccuracy·‖W rhs‖∞, restarted GMRES on W F L⁻¹ W⁻¹
  // (W = diag(rowWeight); the factorisation L as right preconditioner). Measured on the folding
  // capsule chain: the graph LDU eliminates each contact before its body, and a sliding contact
  // (γ, ψ and one β active, μ = 1) adds a Schur term (n + μb)nᵀΔt/(ε_n + s/γ) of ~1e9 to the body's
  // pivot; where that pivot is nearly singular the solve is wrong by ~1e-4 (relative) and iterative
  // refinement diverges, although the whole matrix is well determined (a dense LU with pivoting
  // solves it to 1e-20). The error has the rank of the few bad pivots, so GMRES preconditioned by
  // the same factorisation removes it in a few directions.
  void solveFactored() {
    const GraphLDU& L = m_.leafFirst;
    const VecX& w = m_.rowWeight;
    L.solve(m_.rhs, m_.delta);
    // Iterative refinement against the unfactored matrix (up to kRefinements corrections).
    for (int k = 0; k < kRefinements; ++k) {
      F_.multiply(m_.delta, m_.refine);
      m_.refine = m_.rhs - m_.refine;
      L.solve(m_.refine, m_.refine);
      m_.delta += m_.refine;
    }
    F_.multiply(m_.delta, m_.refine);
    m_.refine = m_.rhs - m_.refine;
    const double rhsNorm = m_.rhs.cwiseProduct(w).lpNorm<Eigen::Infinity>();
    double resNorm = m_.refine.cwiseProduct(w).lpNorm<Eigen::Infinity>();
    if (!(resNorm > kSolveAccuracy * rhsNorm) || !std::isfinite(resNorm)) return;
    // Round-off level of the residual itself: ~u·|F||δ| + |rhs| per row (normwise, weighted).
    m_.work1 = m_.delta.cwiseAbs();
    F_.multiplyAbs(m_.work1, m_.work2);
    const double roundoff = kSolveRoundoff * (m_.work2 + m_.rhs.cwiseAbs()).cwiseProduct(w).lpNorm<Eigen::Infinity>();
    if (resNorm <= roundoff) return;
    const double target = std::max(kKrylovTarget * rhsNorm, roundoff);
    MatX& V = m_.krylov;
    VecX &t1 = m_.work1, &t2 = m_.work2;
    Eigen::Matrix<double, kKrylov + 1, kKrylov> H;
    Eigen::Matrix<double, kKrylov + 1, 1> g;
    Eigen::Matrix<double, kKrylov, 1> cs, sn, z;
    for (int cycle = 0; cycle < kKrylovCycles && resNorm > target; ++cycle) {
      V.col(0) = m_.refine.cwiseProduct(w);
      const double beta = V.col(0).norm();
      if (!(beta > 0) || !std::isfinite(beta)) return;
      V.col(0) /= beta;
      g.setZero();
      g[0] = beta;
      int j = 0;
      while (j < kKrylov) {
        // V_{j+1} = W F L⁻¹ W⁻¹ V_j, orthogonalised (modified Gram–Schmidt).
        t1 = V.col(j).cwiseQuotient(w);
        L.solve(t1, t2);
        F_.multiply(t2, t1);
        V.col(j + 1) = t1.cwiseProduct(w);
        for (int i = 0; i <= j; ++i) {
          H(i, j) = V.col(i).dot(V.col(j + 1));
          V.col(j + 1) -= H(i, j) * V.col(i);
        }
        H(j + 1, j) = V.col(j + 1).norm();
        if (H(j + 1, j) > 0) V.col(j + 1) /= H(j + 1, j);
        // Givens rotations: H upper triangular, g the rotated right-hand side.
        for (int i = 0; i < j; ++i) {
          const double a = H(i, j), b = H(i + 1, j);
          H(i, j) = cs[i] * a + sn[i] * b;
          H(i + 1, j) = -sn[i] * a + cs[i] * b;
        }
        const double rho = std::hypot(H(j, j), H(j + 1, j));
        if (!(rho > 0) || !std::isfinite(rho)) break;
        cs[j] = H(j, j) / rho;
        sn[j] = H(j + 1, j) / rho;
        H(j, j) = rho;
        H(j + 1, j) = 0;
        g[j + 1] = -sn[j] * g[j];
        g[j] = cs[j] * g[j];
        ++j;
        if (std::abs(g[j]) <= target) break;
      }
      if (j == 0) return;
      // z = H⁻¹ g (back substitution), δ += L⁻¹ W⁻¹ V z.
      for (int i = j - 1; i >= 0; --i) {
        double acc = g[i];
        for (int k = i + 1; k < j; ++k) acc -= H(i, k) * z[k];
        z[i] = acc / H(i, i);
      }
      t1.noalias() = V.leftCols(j) * z.head(j);
      t1 = t1.cwiseQuotient(w);
      L.solve(t1, t2);
      m_.delta += t2;
      F_.multiply(m_.delta, t1);
      t1 = m_.rhs - t1;
      const double next = t1.cwiseProduct(w).lpNorm<Eigen::Infinity>();
      // Keep the correction only if it reduced the residual; stop when a cycle gains less than 10×.
      if (!(next < resNorm)) {
        m_.delta -= t2;
        return;
      }
      m_.refine.swap(t1);
      const bool slow = next > 0.1 * resNorm;
      resNorm = next;
      if (slow) return;
    }
  }
  // Polish of an interior point that stalled near a solution: the equations with the active set
  // guessed from the iterate — pair p active if y_p ≥ s_p: its row c_p = 0 and its impulse free;
  // otherwise y_p = 0 and c_p free — solved by Newton's method from the iterate (inactive rows of
  // the matrix become unit rows, solveFactored). A direction whose end point has an active impulse
  // < −tol or an inactive c_p < −tol changes the set instead (primal–dual active-set rule) and is
  // solved again at the same point. Solved when the weighted residual of those equations is ≤ tol
  // and every active impulse and inactive c_p is ≥ −tol: m_.cur is then that point, slacks s = 0
  // (active) or max(c, 0) (inactive, impulse 0): exactly complementary. At most maxFactorisations
  // factorisations; returns how many were made, and the weighted residual in `residual` (infinite if
  // not solved; m_.cur is then unchanged).
  int polish(double tol, int maxFactorisations, double& residual) {
    residual = std::numeric_limits<double>::infinity();
    const int np = m_.numPairs;
    VecX& x = m_.polished;
    VecX& r = m_.trialResidual;
    x = m_.cur;
    for (int p = 0; p < np; ++p) m_.pairActive[p] = m_.yCur[p] >= m_.sCur[p];
    int factorisations = 0;
    matrix_ = Matrix::None;  // F_ holds the polish's matrices from here on
    for (;;) {
      if (!ms::evaluate(sys_, m_, x, r, &F_)) return factorisations;
      // r ← the active-set equations: c on active rows, y on the others.
      bool signs = true;
      for (int p = 0; p < np; ++p) {
        const int row = m_.pairRow[p];
        if (m_.pairActive[p]) {
          signs = signs && x[row] >= -tol;
        } else {
          signs = signs && r[row] >= -tol;
          r[row] = x[row];
        }
      }
      const double norm = r.cwiseProduct(m_.rowWeight).lpNorm<Eigen::Infinity>();
      if (!std::isfinite(norm)) return factorisations;
      if (norm <= tol && signs) {
        ms::evaluate(sys_, m_, x, r, nullptr);
        for (int p = 0; p < np; ++p) {
          const int row = m_.pairRow[p];
          m_.sCur[p] = m_.pairActive[p] ? 0.0 : std::max(r[row], 0.0);
          if (!m_.pairActive[p]) x[row] = 0.0;
        }
        m_.cur.swap(x);
        gatherPairs(m_.cur, m_.yCur);
        residual = norm;
        return factorisations;
      }
      if (factorisations >= maxFactorisations) return factorisations;
      for (int p = 0; p < np; ++p)
        if (!m_.pairActive[p]) F_.setUnitRow(m_.pairRow[p] / 6, m_.pairRow[p] % 6);
      swapCompanions(true);
      ++factorisations;
      if (!factorCompleted()) return factorisations;
      m_.rhs = -r;
      permuteCompanions(m_.rhs);
      solveFactored();
      permuteCompanions(m_.delta);
      if (!m_.delta.allFinite()) return factorisations;
      // The set at the direction's end point (c there, not linearised; y alone if it cannot be
      // evaluated, |ω| ≥ 2/Δt).
      m_.trial = x + m_.delta;
      const bool evaluated = ms::evaluate(sys_, m_, m_.trial, m_.refine, nullptr);
      bool changed = false;
      for (int p = 0; p < np; ++p) {
        const int row = m_.pairRow[p];
        if (m_.pairActive[p] && m_.trial[row] < -tol) m_.pairActive[p] = 0, changed = true;
        else if (!m_.pairActive[p] && evaluated && m_.refine[row] < -tol) m_.pairActive[p] = 1, changed = true;
      }
      if (!changed) x.swap(m_.trial);
    }
  }

 private:
  // Residual [F; c − s] at (x, s) into r (and the Newton matrix into F without S·Y⁻¹).
  IpEqualityNorms norms(const VecX& x, const VecX& s, VecX& r, GraphLDU* F) {
    IpEqualityNorms n;
    if (!ms::evaluate(sys_, m_, x, r, F)) {
      n.squared = n.maxAbs = std::numeric_limits<double>::infinity();
      return n;
    }
    for (int p = 0; p < m_.numPairs; ++p) r[m_.pairRow[p]] -= s[p];
    gatherPairs(x, &x == &m_.cur ? m_.yCur : m_.yTrial);
    n.squared = r.cwiseProduct(m_.rowWeight).squaredNorm();
    n.maxAbs = r.cwiseProduct(m_.rowWeight).lpNorm<Eigen::Infinity>();
    if (!std::isfinite(n.squared)) n.maxAbs = std::numeric_limits<double>::quiet_NaN();
    return n;
  }
  const CompiledSystem& sys_;
  VariationalIntegrator::Impl& m_;
  GraphLDU& F_;
  // What F_ holds: nothing usable, the matrix at the current iterate or at the last evaluated trial
  // (as assembled), or the current one completed by completeMatrix() (as factored).
  enum class Matrix { None, Current, Trial, Factored };
  Matrix matrix_ = Matrix::None;
  bool firstTrial_ = false;  // the next trial evaluation is the first since a Newton direction
};

}  // namespace

bool VariationalIntegrator::residualAt(const StepSettings& settings, const Inputs& inputs, const State& state,
                                       const VecX& vel, const VecX& lambda, VecX& residual, bool assembleMatrix) {
  Impl& m = *impl_;
  const double h0 = state.interval > 0 ? state.interval : settings.dt;
  if (!prepare(*sys_, m, settings, inputs, state, h0)) return false;
  const int nb = int(sys_->bodies.size());
  VecX x = VecX::Zero(6 * sys_->numNodes);
  x.head(6 * nb) = vel;
  x.tail(6 * (sys_->numNodes - nb)) = lambda;
  residual.setZero(x.size());
  return evaluate(*sys_, m, x, residual, assembleMatrix ? &matrix_ : nullptr);
}

namespace {
// Deepest subdivision of a step whose equations have no solution at the full Δt: Δt/2^6.
constexpr int kMaxHalvings = 6;
// Longest hold (in solves) after failed attempts to grow a subdivided interval back.
constexpr int kMaxBackoff = 256;
bool retryable(StepStatus s) {
  return s == StepStatus::NotConverged || s == StepStatus::SingularMatrix || s == StepStatus::AngularVelocityLimit;
}
}  // namespace

// One step of st.dt as one or more solves of (20a)–(20b). Normally one solve over Δt. When it
// fails (no solution near the warm start: measured on long chains, where the Newton matrix becomes
// singular — docs/engine.md, "Steps without a solution"), the same solve is retried with the next
// interval halved (down to Δt/2^kMaxHalvings), and the following solves fill the rest of Δt; the
// interval of the state's velocities is kept in State::interval, so positions stay on the Δt grid
// and the next steps grow the interval back to Δt (at most doubling per solve). Variable intervals
// keep the method variational (prepare: each interval's own momenta, knot forces over the mean).
StepReport VariationalIntegrator::advance(const StepSettings& st, const Inputs& inputs, State& state, int firstHalvings) {
  const double dt = st.dt, tiny = 1e-9 * dt;
  const long step0 = state.step;
  const double time0 = state.time;
  // Intervals are whole multiples of the shortest one, Δt/2^kMaxHalvings, counted in integers: their
  // sums never drift off the Δt grid (floating-point remainders accumulated over ~1400 subdivided
  // steps of the 1000-link chain once left a solve over 2e-11 s, followed by 246 more).
  constexpr int kUnits = 1 << kMaxHalvings;
  const double unit = dt / kUnits;
  const auto length = [&](int units) { return units == kUnits ? dt : units * unit; };
  // A state whose velocities belong to a sub-interval needs more than one solve: keep it to undo them
  // (otherwise the one solve, retried with shorter intervals, leaves the state unchanged on failure).
  const bool several = state.interval > 0 && state.interval < dt - tiny;
  double h0 = several ? state.interval : dt;
  int h0Units = several ? std::clamp(int(std::lround(state.interval / unit)), 1, kUnits - 1) : kUnits;
  if (several) backup_ = state;
  StepReport total;
  int shortest = kUnits;
  StepSettings sub = st;
  for (int remaining = kUnits;;) {
    remaining -= h0Units;
    const bool last = remaining <= 0;
    // This solve's interval: what is left of Δt, or (last) up to Δt again, at most 2·h0; not
    // longer than h0 while a failed attempt to grow is being backed off.
    int h = std::min(last ? kUnits : remaining, (hold_ > 0 ? 1 : 2) * h0Units);
    if (hold_ > 0) --hold_;
    // A step solved again to pass a singular configuration starts with a shorter interval.
    h = std::max(1, h >> firstHalvings);
    firstHalvings = 0;
    const auto growing = [&] { return h > h0Units; };  // this attempt lengthens the interval
    StepReport rep;
    for (;;) {
      sub.dt = length(h);
      // Messages of retryable failures are written only on the last try (no allocation otherwise).
      finalAttempt_ = h == 1;
      fullInterval_ = h == kUnits;
      rootChecked_ = 2 * h >= kUnits;
      growthAttempt_ = growing();
      rep = solve(sub, h0, inputs, state);
      total.iterations += rep.iterations;
      if (rep.status == StepStatus::Ok) {
        // A longer interval worked: back off less next time.
        if (growing()) backoff_ = std::max(1, backoff_ / 2);
        break;
      }
      // A failed attempt to grow the interval: the next 1, 2, 4, … 256 solves keep theirs (each
      // failed attempt costs a whole Newton solve; on a long chain whose equations have no solution
      // at the full Δt it would be repeated every step).
      if (growing()) {
        hold_ = backoff_;
        backoff_ = std::min(2 * backoff_, kMaxBackoff);
      }
      // A start state beyond |ω| < 2/h0 is not cured by a shorter next interval.
      if (!retryable(rep.status) || startInvalid_ || finalAttempt_) {
        if (h < kUnits) rep.message += " (also with the step subdivided down to " + num(length(h)) + " s)";
        rep.iterations = total.iterations;
        if (several) state = backup_;  // undo the sub-intervals already solved
        return rep;
      }
      h /= 2;
    }
    state.interval = h == kUnits ? 0.0 : length(h);
    shortest = std::min(shortest, h);
    total.residual = std::max(total.residual, rep.residual);
    total.constraintViolation = std::max(total.constraintViolation, rep.constraintViolation);
    total.penetration = std::max(total.penetration, rep.penetration);
    total.limitViolation = std::max(total.limitViolation, rep.limitViolation);
    total.activeContacts = rep.activeContacts;
    total.activeLimits = rep.activeLimits;
    total.stalled = total.stalled || rep.stalled;
    if (last) break;
    h0Units = h;
    h0 = length(h);
  }
  state.step = step0 + 1;
  state.time = time0 + dt;
  total.substeps = int(std::lround(double(kUnits) / shortest));
  return total;
}

namespace {
// A step of a closed loop whose joint impulses did work beyond this fraction of the kinetic energy
// passed a singular configuration by switching branch (docs/engine.md, "Singular configurations").
constexpr double kSingularWork = 0.01;
// Shortest first interval of the previous step when it is solved again: Δt/2^kMaxRevisitHalvings.
constexpr int kMaxRevisitHalvings = 4;
// Solves that keep the shortened interval after the previous step is solved again (the passage and
// the motion right after it at the finer interval: on four-link-segments n = 20, 600 s at Δt = 0.01,
// max |E − E0| per 30 s stayed within 121–577 J, against a growth to 1.1e5 J without a hold).
constexpr int kSingularHold = 8;
}  // namespace

// Kinetic energy of the state's velocities, J.
double VariationalIntegrator::kineticEnergy(const State& state) const {
  double ke = 0;
  for (size_t i = 0; i < sys_->bodies.size(); ++i) {
    const CompiledBody& cb = sys_->bodies[i];
    const BodyState& b = state.bodies[i];
    ke += 0.5 * (cb.mass * b.v.squaredNorm() + b.w.dot(cb.inertia * b.w));
  }
  return ke;
}

// Work of the joint impulses over the solve just converged (interval h, from the state's velocities
// to the iterate's): h λᵀ G(z1) (ż₀ + ż)/2 per joint, with torques G_θᵀλ on the body-frame rates.
// Ideal joints do no work (G ż = 0 along the motion); at a configuration where a loop's constraint
// Jacobian loses rank the discrete solution can switch branch with an impulse that does.
double VariationalIntegrator::constraintWork(double h, const State& state) const {
  const Impl& m = *impl_;
  double work = 0;
  for (size_t k = 0; k < sys_->joints.size(); ++k) {
    const CompiledJoint& j = sys_->joints[k];
    if (j.node < 0) continue;
    const JointConstraintEval& G = m.g1[k];
    // Mean linear and angular velocity of a body over the two intervals at the knot.
    auto v = [&](int i) { return Vec3(0.5 * (m.cur.segment<3>(6 * i) + state.bodies[i].v)); };
    auto w = [&](int i) { return Vec3(0.5 * (m.cur.segment<3>(6 * i + 3) + state.bodies[i].w)); };
    Vec6 rate = G.dxb * v(j.geo.child) + G.dthb * w(j.geo.child);
    if (j.geo.parent >= 0) rate += G.dxa * v(j.geo.parent) + G.dtha * w(j.geo.parent);
    work += h * m.cur.segment<6>(6 * j.node).dot(rate);
  }
  return work;
}

// One step of st.dt. Closed loops: a step whose joint impulses did work (> kSingularWork of the
// kinetic energy) switched branch at a singular configuration — measured on four-link-segments: the
// knot of the step lands within ~0.05° of a rhombus's flat configuration, the step needs an impulse
// 2000× the usual and leaves 50 J less kinetic energy, and subdividing that step does not help
// because its knot is already fixed. The previous step is then solved again in sub-intervals
// (Δt/2, …, Δt/2^kMaxRevisitHalvings, kept for kSingularHold solves), which places the knot
// elsewhere, and this step after it. If none avoids the work, the attempt whose joints did the least
// work is kept and the step is flagged.
StepReport VariationalIntegrator::step(const StepSettings& st, const Inputs& inputs, State& state) {
  const FlushDenormalsScope noSubnormals;
  if (!watchSingular_) return advance(st, inputs, state, 0);
  // The previous step can be solved again only if this state is the one it produced.
  const bool canRevisit = havePrevious_ && state.step == lastStep_ && state.interval == lastInterval_ &&
                          !state.bodies.empty() && state.bodies[0].x == lastX0_ && st.dt == previousSettings_.dt;
  start_ = state;
  startInputs_ = inputs;
  int startBackoff = backoff_;
  const double floor = 1e-9 * std::max(1.0, totalMass_ * st.gravity.norm());  // J, for a state at rest
  const auto passedSingular = [&](double ke0, double ke1) {
    return std::abs(stepWork_) > kSingularWork * std::max({ke0, ke1, floor});
  };
  stepWork_ = 0;
  bool revisitable = true;
  double ke0 = kineticEnergy(state);
  StepReport rep = advance(st, inputs, state, 0);
  if (rep.status == StepStatus::Ok && passedSingular(ke0, kineticEnergy(state))) {
    if (!canRevisit) {
      rep.singular = StepReport::Singular::Kept;
    } else {
      outcome_ = state;
      int outcomeHold = hold_, outcomeBackoff = backoff_;
      // The attempt whose joints did the least work so far (the first outcome to begin with).
      double bestWork = std::abs(stepWork_);
      StepReport best = rep;
      int iterations = rep.iterations;
      bool passed = false;
      for (int k = 1; k <= kMaxRevisitHalvings && !passed; ++k) {
        // The previous step again, its first interval Δt/2^k, then this step after it.
        state = previous_;
        hold_ = kSingularHold;
        backoff_ = previousBackoff_;
        // The work of both steps counts: the previous one, solved again, must not switch branch either.
        stepWork_ = 0;
        const double keBefore = kineticEnergy(state);
        const StepReport again = advance(previousSettings_, previousInputs_, state, k);
        iterations += again.iterations;
        if (again.status != StepStatus::Ok) continue;
        start_ = state;
        startBackoff = backoff_;
        ke0 = std::max(keBefore, kineticEnergy(state));
        StepReport next = advance(st, inputs, state, 0);
        iterations += next.iterations;
        if (next.status != StepStatus::Ok) continue;
        if (passedSingular(ke0, kineticEnergy(state))) {
          if (std::abs(stepWork_) < bestWork) {
            bestWork = std::abs(stepWork_);
            outcome_ = state;
            outcomeHold = hold_;
            outcomeBackoff = backoff_;
            best = next;
            best.substeps = std::max(next.substeps, again.substeps);
          }
          continue;
        }
        next.substeps = std::max(next.substeps, again.substeps);
        next.stalled = next.stalled || again.stalled;
        next.residual = std::max(next.residual, again.residual);
        rep = next;
        rep.singular = StepReport::Singular::Revisited;
        passed = true;
      }
      if (!passed) {
        // Keep the first outcome (start_ may hold a re-solved start by now: the next step cannot
        // go back to this one).
        revisitable = false;
        state = outcome_;
        hold_ = outcomeHold;
        backoff_ = outcomeBackoff;
        rep = best;
        rep.singular = StepReport::Singular::Kept;
      }
      rep.iterations = iterations;
    }
  }
  havePrevious_ = rep.status == StepStatus::Ok && revisitable;
  if (havePrevious_) {
    // This step's start becomes the previous step's (swaps: no allocation).
    std::swap(previous_, start_);
    std::swap(previousInputs_, startInputs_);
    previousSettings_ = st;
    previousBackoff_ = startBackoff;
    lastStep_ = state.step;
    lastInterval_ = state.interval;
    lastX0_ = state.bodies.empty() ? Vec3::Zero() : state.bodies[0].x;
  }
  return rep;
}

void VariationalIntegrator::restart() { havePrevious_ = false; }

// One solve of (20a)–(20b) over the interval st.dt from a state whose velocities span h0.
namespace {

// Coefficients of the polynomial extrapolation of order p through the last p + 1 values, newest
// first: x_k ≈ Σ_j c[p][j] x_{k−1−j}, c[p][j] = (−1)^j C(p + 1, j + 1).
constexpr double kExtrapolation[kStartHistory - 1][kStartHistory - 1] = {
    {1, 0, 0, 0, 0}, {2, -1, 0, 0, 0}, {3, -3, 1, 0, 0}, {4, -6, 4, -1, 0}, {5, -10, 10, -5, 1}};
// Iterations to reach kCoarseResidual above which a tree's full-interval solution is solved again
// in half intervals (solve()).
constexpr int kPlainIterations = 3;
constexpr double kCoarseResidual = 1e-6;
// A warm start with a residual below this fraction of the tolerance is accepted without a Newton
// iteration (solve()).
constexpr double kWarmStartFraction = 1e-3;
// Steps between two choices of the extrapolation order.
constexpr int kOrderInterval = 8;

// Warm start of an equality-path solve: m.cur holds the previous solution (this step's plain start).
// It is pushed into the history, and, when the previous solves were consecutive full intervals,
// replaced by the polynomial extrapolation of the history. The order (0 = the plain start … 4) is
// the one that would have predicted the newest solution best from the older ones (∞-norm over the
// nbRows body velocities), chosen again every kOrderInterval steps: smooth motion of a few links
// gains from high orders (10-link chain: mean start residual 3e-3 with order 1, 1e-4 with order 4;
// 2.01 → 1.06 Newton iterations per step), fast motion of long chains does not (300 links: order 4
// takes 3.0 iterations per step against 2.0 with order 1).
void extrapolateWarmStart(VariationalIntegrator::Impl& m, int nRows, int nbRows, bool consecutive, long step) {
  constexpr int K = kStartHistory;
  m.historyHead = (m.historyHead + 1) % K;
  m.historyCount = consecutive ? std::min(m.historyCount + 1, K) : 1;
  m.startHistory[m.historyHead].head(nRows) = m.cur.head(nRows);
  if (m.historyCount < 2) return;
  auto past = [&](int j) -> const VecX& { return m.startHistory[(m.historyHead + K - j) % K]; };
  // Choose the order by predicting the newest solution from the older ones.
  if (step % kOrderInterval == 0 || m.extrapolationOrder > m.historyCount - 2) {
    const int maxOrder = m.historyCount - 2;
    double err[K - 1] = {0, 0, 0, 0, 0};
    for (int i = 0; i < nbRows; ++i) {
      for (int p = 0; p <= maxOrder; ++p) {
        double pred = 0;
        for (int j = 0; j <= p; ++j) pred += kExtrapolation[p][j] * past(j + 1)(i);
        err[p] = std::max(err[p], std::abs(pred - past(0)(i)));
      }
    }
    int best = 0;
    for (int p = 1; p <= maxOrder; ++p)
      if (err[p] < err[best]) best = p;
    m.extrapolationOrder = best;
  }
  // Extrapolate from the newest extrapolationOrder + 1 solutions.
  const int p = std::min(m.extrapolationOrder, m.historyCount - 1);
  m.cur.head(nRows) = kExtrapolation[p][0] * past(0).head(nRows);
  for (int j = 1; j <= p; ++j) m.cur.head(nRows) += kExtrapolation[p][j] * past(j).head(nRows);
}

}  // namespace

StepReport VariationalIntegrator::solve(const StepSettings& st, double h0, const Inputs& inputs, State& state) {
  Impl& m = *impl_;
  StepReport rep;
  const int nb = int(sys_->bodies.size());
  startInvalid_ = false;
  m.frictionTwist = 0;
  if (!prepare(*sys_, m, st, inputs, state, h0)) {
    startInvalid_ = true;
    rep.status = StepStatus::AngularVelocityLimit;
    rep.message = "|w| >= 2/dt at the start of the step: the time step is too large for this rotation speed";
    return rep;
  }
  // Warm start: previous velocities and multipliers. Across a change of interval (h0 → Δt), ω is
  // carried as the same turn rate: |ω| = (2/h) sin(φ/2) for a turn φ per interval h (eq. 13), with
  // φ ≤ π/2, where the discrete momentum (h/2) Jω √(4/h² − |ω|²) ∝ sin φ (eq. 16) is largest: the
  // physical branch of the momentum map.
  for (int i = 0; i < nb; ++i) {
    m.cur.segment<3>(6 * i) = state.bodies[i].v;
    Vec3 w = state.bodies[i].w;
    const double wn = w.norm();
    if (h0 != st.dt && wn > 0) {
      const double halfTurn = std::asin(std::min(1.0, 0.5 * wn * h0)) * st.dt / h0;
      constexpr double kQuarterPi = 0.7853981633974483;  // φ/2 at φ = π/2
      w *= (2.0 / st.dt) * std::sin(std::min(halfTurn, kQuarterPi)) / wn;
    }
    m.cur.segment<3>(6 * i + 3) = w;
  }
  for (size_t k = 0; k < sys_->joints.size(); ++k)
    if (sys_->joints[k].node >= 0) m.cur.segment<6>(6 * sys_->joints[k].node) = state.lambda[k];
  for (const CompiledLimit& l : sys_->limits) m.cur.segment<6>(6 * l.node).setZero();
  // Joint limits that are candidates of this step: within kLimitMargin + 2|θ̇₀|Δt of a bound at z1.
  bool anyLimit = false;
  for (size_t li = 0; li < sys_->limits.size(); ++li) {
    const CompiledLimit& l = sys_->limits[li];
    const JointGeometry& g = sys_->joints[l.joint].geo;
    const JointMinimalEval& me = m.m1[l.joint];
    double rate = me.dxb.row(0).dot(state.bodies[g.child].v) + me.dthb.row(0).dot(state.bodies[g.child].w);
    if (g.parent >= 0)
      rate += me.dxa.row(0).dot(state.bodies[g.parent].v) + me.dtha.row(0).dot(state.bodies[g.parent].w);
    const double dist = std::min(me.theta[0] - l.lower, l.upper - me.theta[0]);
    m.limitOn[li] = !(dist > kLimitMargin + 2.0 * std::abs(rate) * st.dt);
    anyLimit = anyLimit || m.limitOn[li];
  }
  // Contacts that are candidates of this step: within kContactMargin + 2|φ̇₀|Δt at z1.
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    for (int k = 0; k < grp.count; ++k)
      m.contactOn[grp.first + k] = contactCandidate(grp, m.set1[gi].contacts[k], state, st.dt);
  }
  selectPairs(*sys_, m);
  // Both paths weight the body rows (N, N·m) of the residual by the system's force scale
  // max(1 N, Σ m|g|); constraint rows stay in m and rad.
  m.bodyWeight = 1.0 / std::max(1.0, totalMass_ * st.gravity.norm());
  if (!sys_->contacts.empty() || anyLimit) return stepWithContacts(st, state);
  // Equality path of a tree: extrapolate the warm start in time from the previous steps' solutions
  // (velocities and multipliers move smoothly from step to step; with order p the extrapolation
  // error is O(Δt^(p+1))), when this state is the one the previous full-interval solve started one
  // step before (extrapolateWarmStart).
  // Not with closed loops: near a singular configuration the extrapolated start leads Newton to the
  // other branch (four-link-segments: 45 instead of 0 revisited steps, energy criterion failed).
  {
    const bool consecutive = !watchSingular_ && state.step == m.prevStartStep + 1 && h0 == st.dt &&
                             m.prevStartH == st.dt;
    m.prevStartStep = state.step;
    m.prevStartH = h0;
    extrapolateWarmStart(m, 6 * sys_->numNodes, 6 * nb, consecutive, state.step);
  }
  if (!evaluate(*sys_, m, m.cur, m.residual, &matrix_)) {
    rep.status = StepStatus::AngularVelocityLimit;
    if (finalAttempt_) rep.message = "the warm start needs |w| >= 2/dt (eq. 13): reduce the time step";
    return rep;
  }

  // Convergence test and line search on the weighted residual.
  const int nbRows = 6 * nb, njRows = int(m.residual.size()) - nbRows;
  auto infNorm = [&](const VecX& r) {
    const double b = m.bodyWeight * r.head(nbRows).lpNorm<Eigen::Infinity>();
    return njRows > 0 ? std::max(b, r.tail(njRows).lpNorm<Eigen::Infinity>()) : b;
  };
  auto twoNorm = [&](const VecX& r) {
    return std::sqrt(m.bodyWeight * m.bodyWeight * r.head(nbRows).squaredNorm() + r.tail(njRows).squaredNorm());
  };
  // Newton iterations with backtracking on the weighted residual 2-norm.
  double rnorm = infNorm(m.residual);
  int it = 0;
  bool reuseFactor = false;
  bool backtracked = false;  // an iteration was accepted with a shortened Newton step
  int toCoarse = -1;         // iterations until the residual was below kCoarseResidual (or tolerance)
  const double coarse = std::max(st.tolerance, kCoarseResidual);
  for (;; ++it) {
    if (toCoarse < 0 && rnorm < coarse) toCoarse = it;
    if (!std::isfinite(rnorm)) {
      rep.status = StepStatus::NonFinite;
      rep.message = "non-finite residual in Newton iteration " + std::to_string(it);
      return rep;
    }
    // The warm start alone is accepted only well inside the tolerance; otherwise one Newton
    // iteration polishes it (at rest the previous solution is the start, and accepting it as it was
    // let the pivot regularisation's ~1e-10 relative error of the first solve creep on: the gallery
    // pendulum hanging at rest sank 9.8e-14 m per step until the 1e-10 m violation was corrected
    // with a 1.0e-7 relative spike of its reaction force, at step 1019).
    if (rnorm < st.tolerance && (it > 0 || rnorm < kWarmStartFraction * st.tolerance)) break;
    const bool polishing = rnorm < st.tolerance;
    if (it >= st.maxIterations) {
      rep.status = StepStatus::NotConverged;
      if (finalAttempt_)
        rep.message = "Newton did not reach tolerance " + num(st.tolerance) + " in " +
                      std::to_string(st.maxIterations) + " iterations (weighted residual " + num(rnorm) + ")";
      rep.iterations = it;
      rep.residual = rnorm;
      return rep;
    }
    if (!reuseFactor && !matrix_.factor()) {
      rep.status = StepStatus::SingularMatrix;
      if (finalAttempt_)
        rep.message = "singular Newton matrix in iteration " + std::to_string(it + 1) +
                      " (redundant or degenerate constraints?)";
      return rep;
    }
    m.delta = -m.residual;
    matrix_.solve(m.delta, m.delta);
    const double r2 = twoNorm(m.residual);
    double alpha = 1.0;
    bool accepted = false;
    bool omegaLimited = false;
    for (int ls = 0; ls <= st.maxLineSearch; ++ls, alpha *= 0.5) {
      m.trial = m.cur + alpha * m.delta;
      // Residual only: the matrix is assembled once the step is accepted and more work remains.
      if (!evaluate(*sys_, m, m.trial, m.trialResidual, nullptr)) {
        omegaLimited = true;
        continue;
      }
      if (twoNorm(m.trialResidual) < r2) {
        accepted = true;
        break;
      }
    }
    if (!accepted && polishing) break;  // the start was within the tolerance already: kept
    if (!accepted && reuseFactor) {
      // The frozen matrix no longer gives a descent direction: back to a fresh Newton matrix.
      reuseFactor = false;
      evaluate(*sys_, m, m.cur, m.residual, &matrix_);
      continue;
    }
    if (!accepted && !omegaLimited && atRoundoffLevel()) {
      // Attainable accuracy: no decrease is possible below the round-off of the residual itself.
      rep.stalled = true;
      break;
    }
    if (!accepted) {
      rep.status = omegaLimited ? StepStatus::AngularVelocityLimit : StepStatus::NotConverged;
      if (finalAttempt_)
        rep.message = omegaLimited ? "the solution needs |w| >= 2/dt (eq. 13): reduce the time step"
                                   : "line search found no decrease of the residual (weighted residual " + num(rnorm) + ")";
      rep.iterations = it + 1;
      rep.residual = rnorm;
      return rep;
    }
    const double previous = rnorm;
    backtracked = backtracked || alpha < 1.0;
    m.cur.swap(m.trial);
    m.residual.swap(m.trialResidual);
    rnorm = infNorm(m.residual);
    if (rnorm >= st.tolerance && std::isfinite(rnorm)) {
      // Simplified Newton near convergence: after a full step that contracted the residual
      // strongly, the next iteration reuses this factorisation (the matrix barely changes);
      // otherwise, or when that stops contracting, the matrix is assembled and factorised anew.
      reuseFactor = alpha == 1.0 && rnorm < kReuseContraction * previous;
      if (!reuseFactor) evaluate(*sys_, m, m.cur, m.residual, &matrix_);
    }
  }

  rep.iterations = it;
  rep.residual = rnorm;
  // A solution of a tree reached only through a shortened Newton step, or after more than
  // kPlainIterations iterations to get below kCoarseResidual (Newton's quadratic regime, reached in
  // one iteration on ordinary steps, whatever the tolerance), may be another root of the discrete
  // equations: the start was outside the physical root's basin. An interval of Δt or Δt/2 is then
  // solved again in halves (closer start, smaller motion per interval), which keep their solutions
  // (checking Δt only let the 100-link chain at Δt 0.01 take such roots at Δt/2 from t ≈ 100 s on:
  // |E − E0| 28 → 2851 J by 1000 s, failure at 1261.6 s; with Δt/2 checked: 1300 s, ≤ 238 J).
  // Shorter intervals are not checked: near a rotation fold (docs/engine.md) Newton converges
  // linearly, and refusing those solves subdivided a spinner down to Δt/64 with a worse attitude.
  if (!watchSingular_ && rootChecked_ && (backtracked || toCoarse > kPlainIterations)) {
    rep.status = StepStatus::NotConverged;
    return rep;
  }
  if (!excludedLimitsHold()) return stepWithAllLimits(st, state);
  finish(st, state, rep);
  return rep;
}

// Round-off level of the equality residual at the current iterate (the matrix assembled there, the
// last Newton direction in m.delta): row i of F(x) sums terms of total size
//   a_i = (|F| (|x| + |Δx|))_i + |constant terms|_i
// (momenta m|v₀|/Δt, |f|, |Jω₀ s − ω₀×Jω₀|, 2|τ| on body rows; the positions |x₂| + 1 m of the two
// bodies on constraint rows), so a floating-point evaluation, and a Newton step solved with a
// backward-stable factorisation, cannot bring the residual below about γ_n a, γ_n = n u with n the
// number of terms per row (6 × the most blocks in a row of F) and u the unit round-off. The test is
// normwise per kind of row (forces in N, torques in N·m, constraints in m and rad): a row whose own
// terms are all tiny still carries the rounding of the large intermediate products (lever arms ×
// forces, rotations of large vectors) of its kind. True if every kind is within that level: the line
// search then cannot find a decrease, and the iterate is as accurate as double precision allows.
bool VariationalIntegrator::atRoundoffLevel() {
  Impl& m = *impl_;
  const int nb = int(sys_->bodies.size());
  evaluate(*sys_, m, m.cur, m.residual, &matrix_);
  m.trial = m.cur.cwiseAbs() + m.delta.cwiseAbs();
  matrix_.multiplyAbs(m.trial, m.roundoff);
  for (int i = 0; i < nb; ++i) {
    const double mass = sys_->bodies[i].mass;
    m.roundoff.segment<3>(6 * i).array() += mass * m.v0[i].cwiseAbs().array() / m.dt + m.force[i].cwiseAbs().array();
    m.roundoff.segment<3>(6 * i + 3).array() += m.momentum0[i].cwiseAbs().array() + 2.0 * m.torque[i].cwiseAbs().array();
  }
  for (const CompiledJoint& j : sys_->joints) {
    if (j.node < 0) continue;
    const double pos = 1.0 + m.x2[j.geo.child].cwiseAbs().maxCoeff() +
                       (j.geo.parent >= 0 ? m.x2[j.geo.parent].cwiseAbs().maxCoeff() : 0.0);
    m.roundoff.segment<6>(6 * j.node).array() += pos;
  }
  const double gamma = 6.0 * matrix_.maxRowBlocks() * std::numeric_limits<double>::epsilon() / 2;
  // Largest residual and largest term per kind of row: 0 forces, 1 torques, 2 constraints.
  double r[3] = {0, 0, 0}, a[3] = {0, 0, 0};
  for (int i = 0; i < int(m.residual.size()); ++i) {
    const int kind = i >= 6 * nb ? 2 : (i % 6 < 3 ? 0 : 1);
    r[kind] = std::max(r[kind], std::abs(m.residual(i)));
    a[kind] = std::max(a[kind], m.roundoff(i));
  }
  return r[0] <= gamma * a[0] && r[1] <= gamma * a[1] && r[2] <= gamma * a[2];
}

// True if every limit left out of the step stays strictly inside its bounds at z2 (then its effort
// 0 solves the complementarity exactly). m.lim2 holds θ(z2) of the final iterate.
bool VariationalIntegrator::excludedLimitsHold() const {
  const Impl& m = *impl_;
  for (size_t li = 0; li < sys_->limits.size(); ++li) {
    const CompiledLimit& l = sys_->limits[li];
    const double theta = m.lim2[li].theta[0];
    if (!m.limitOn[li] && !(theta > l.lower && theta < l.upper)) return false;
  }
  return true;
}

// True if every contact left out of the step is open at z2 (φ > 0: its impulse 0 solves the
// complementarity exactly, and friction β ≤ μγ = 0 with it). The others become candidates (the
// caller solves the step again). m.set2 holds φ(z2) of the final iterate.
bool VariationalIntegrator::excludedContactsHold() {
  Impl& m = *impl_;
  bool hold = true;
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    for (int k = 0; k < grp.count; ++k) {
      const int ci = grp.first + k;
      if (m.contactOn[ci] || m.set2[gi].contacts[k].phi > 0) continue;
      m.contactOn[ci] = 1;
      hold = false;
    }
  }
  return hold;
}

// The step again from its warm start, with every limit a candidate.
StepReport VariationalIntegrator::stepWithAllLimits(const StepSettings& st, State& state) {
  Impl& m = *impl_;
  std::fill(m.limitOn.begin(), m.limitOn.end(), 1);
  selectPairs(*sys_, m);
  return stepAgain(st, state);
}

// Converged: the new state is (z1, ż1); g(z2) is the joint part of the final residual (evaluated
// at the final iterate), φ(z2) the contact part (before the slacks are subtracted).
void VariationalIntegrator::storeUntwisted(int ci, State& state) {
  Impl& m = *impl_;
  const CompiledContact& c = sys_->contacts[ci];
  const contact::FrictionRows& twisted = m.fr[ci];
  const int nf = sys_->frictionDirections;
  // The friction impulse Σ β_k d_k of the twisted polygon (directions 5..n_f in the companion).
  Vec3 f = Vec3::Zero();
  for (int k = 0; k < nf; ++k) {
    const double beta = k < kFrictionDirections ? m.cur[6 * c.node + 2 + k] : m.cur[6 * c.extraNode + k - kFrictionDirections];
    f += twisted.d.row(k).transpose() * beta;
  }
  double beta[contact::kMaxFrictionDirections];
  contact::frictionInPolygon(f, m.frPlain[ci], beta);
  for (int k = 0; k < nf; ++k) {
    if (k < kFrictionDirections) state.contactImpulse[ci][2 + k] = beta[k];
    else if (ci < int(state.contactFriction.size())) state.contactFriction[ci][k - kFrictionDirections] = beta[k];
  }
}

void VariationalIntegrator::finish(const StepSettings& st, State& state, StepReport& rep) {
  Impl& m = *impl_;
  const int nb = int(sys_->bodies.size());
  double viol = 0;
  for (const CompiledJoint& j : sys_->joints)
    if (j.node >= 0) viol = std::max(viol, m.residual.segment(6 * j.node, j.geo.constrained()).lpNorm<Eigen::Infinity>());
  // Rows dropped as redundant are measured too (they must hold through the others).
  for (const CompiledJoint& j : sys_->joints)
    if (j.hasDroppedRows) viol = std::max(viol, jointConstraintValue(j.full, posesOf(j.geo, m.x2, m.q2)).lpNorm<Eigen::Infinity>());
  if (watchSingular_) stepWork_ += constraintWork(st.dt, state);
  for (int i = 0; i < nb; ++i) {
    BodyState& b = state.bodies[i];
    b.x = m.x1[i];
    b.q = m.q1[i];
    b.v = m.cur.segment<3>(6 * i);
    b.w = m.cur.segment<3>(6 * i + 3);
  }
  for (size_t k = 0; k < sys_->joints.size(); ++k)
    if (sys_->joints[k].node >= 0) state.lambda[k] = m.cur.segment<6>(6 * sys_->joints[k].node);
  // Contacts: impulses, gaps at the next knot, penetration and the contacts that carry load.
  if (m.frictionTwist != 0) frictionRowsAtKnot(*sys_, m, m.frPlain, 0.0);
  double minGap = std::numeric_limits<double>::infinity();
  int active = 0;
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    for (int k = 0; k < grp.count; ++k) {
      const int ci = grp.first + k;
      const double gap = m.set2[gi].contacts[k].phi;
      state.contactImpulse[ci] = m.cur.segment<6>(6 * sys_->contacts[ci].node);
      if (sys_->contacts[ci].extraNode >= 0 && ci < int(state.contactFriction.size()))
        state.contactFriction[ci] = m.cur.segment<6>(6 * sys_->contacts[ci].extraNode);
      if (m.frictionTwist != 0) storeUntwisted(ci, state);
      state.contactGap[ci] = gap;
      minGap = std::min(minGap, gap);
      active += gap <= 1e-6 && state.contactImpulse[ci][0] > 1e-6;
    }
  }
  // Joint limits: efforts, θ(z2), the violation without the compliance and the limits that carry load.
  double limitViol = 0;
  int activeLimits = 0;
  for (size_t li = 0; li < sys_->limits.size(); ++li) {
    const CompiledLimit& l = sys_->limits[li];
    const double theta = m.lim2[li].theta[0];
    const Eigen::Vector2d y = m.cur.segment<2>(6 * l.node);
    state.limitImpulse[li] = y;
    state.limitPosition[li] = theta;
    limitViol = std::max({limitViol, l.lower - theta, theta - l.upper});
    activeLimits += (theta - l.lower <= 1e-6 && y[0] > 1e-6) || (l.upper - theta <= 1e-6 && y[1] > 1e-6);
  }
  rep.limitViolation = limitViol;
  rep.activeLimits = activeLimits;
  state.time += st.dt;
  state.step += 1;
  rep.constraintViolation = viol;
  rep.penetration = std::isfinite(minGap) ? std::max(0.0, -minGap) : 0.0;
  rep.activeContacts = active;
}

// A step with contacts (29a)–(29f): the interior-point driver on the graph LDU. Contact impulses
// start at the previous step's plus kWarmShift and slacks at max(c, kWarmShift) (strictly inside
// the feasible cone); bodies and joints from the previous step. Mehrotra's rule first; if it fails,
// the step is solved again from the same impulses (slacks max(c, 1)) with the monotone rule
// (slower, but it does not jam where the predictor–corrector target drops too fast: measured on
// the 200-sphere chain's impacts).
StepReport VariationalIntegrator::stepWithContacts(const StepSettings& st, State& state) {
  Impl& m = *impl_;
  StepReport rep;
  const int nb = int(sys_->bodies.size());
  // Start: limit pair duals at 1, the other rows of limit nodes at 0; contact impulses warm-started
  // (see kWarmShift): the previous step's, shifted into the interior. Slacks at max(c, floor).
  for (const CompiledLimit& l : sys_->limits) m.cur.segment<6>(6 * l.node).setZero();
  for (const CompiledContact& c : sys_->contacts)
    if (c.extraNode >= 0) m.cur.segment<6>(6 * c.extraNode).setZero();
  for (int p = 0; p < m.numPairs; ++p) m.cur[m.pairRow[p]] = 1.0;
  const bool warm = state.contactImpulse.size() == sys_->contacts.size();
  const bool warmExtra = state.contactFriction.size() == sys_->contacts.size();
  const int extra = sys_->frictionDirections - kFrictionDirections;
  for (size_t ci = 0; ci < sys_->contacts.size(); ++ci) {
    // A contact that is not a candidate: its equality rows' solution y = 0 (companion too).
    if (!m.contactOn[ci]) {
      m.cur.segment<6>(6 * sys_->contacts[ci].node).setZero();
      continue;
    }
    m.cur.segment<6>(6 * sys_->contacts[ci].node) =
        (warm ? Vec6(state.contactImpulse[ci].cwiseMax(0.0)) : Vec6::Zero()).array() + kWarmShift;
    // Companion: directions 5..n_f likewise; its padding rows stay 0.
    if (sys_->contacts[ci].extraNode >= 0)
      m.cur.segment(6 * sys_->contacts[ci].extraNode, extra) =
          (warmExtra ? Vec6(state.contactFriction[ci].cwiseMax(0.0)) : Vec6::Zero()).head(extra).array() + kWarmShift;
  }
  auto startSlacks = [&](double floor) {
    for (int p = 0; p < m.numPairs; ++p) {
      m.yCur[p] = m.cur[m.pairRow[p]];
      m.sCur[p] = std::max(m.residual[m.pairRow[p]], floor);
    }
  };
  if (!evaluate(*sys_, m, m.cur, m.residual, nullptr)) {
    rep.status = StepStatus::AngularVelocityLimit;
    rep.message = "|w| >= 2/dt at the start of the step: the time step is too large for this rotation speed";
    return rep;
  }
  m.start = m.cur;
  m.rowWeight.head(6 * nb).setConstant(m.bodyWeight);
  InteriorPointSettings& ips = m.ip.settings();
  ips.tol = st.tolerance;
  ips.complementarityTol = st.complementarityTolerance;
  ips.maxIterations = st.maxIterations;
  ips.maxLineSearch = std::max(st.maxLineSearch, 20);
  ContactStepProblem problem(*sys_, m, matrix_);
  // A line search that stalls below kContactAttainable (weighted residual) and within 100× the
  // complementarity tolerance has reached the attainable accuracy. The step is accepted; its joint
  // violation and penetration are measured and reported as usual.
  auto accepted = [&](const InteriorPointReport& r) {
    return r.converged() || ((r.status == InteriorPointStatus::LineSearchFailed ||
                              r.status == InteriorPointStatus::MaxIterations) &&
                             r.residual <= std::max(ips.tol, kContactAttainable) &&
                             r.complementarity <= 100 * ips.complementarityTol);
  };
  // The whole sequence below runs with the friction polygons as built, then (if it fails) turned
  // by half a sector, π/n_f: a degenerate friction pair of one orientation is not one of the other.
  InteriorPointReport ipr;
  // An attempt to lengthen the interval (growthAttempt_) runs the first solve only: if it fails the
  // step keeps the interval that worked (advance), and the retries below would only add their cost —
  // measured on a 40-capsule chain, 587 of 820 failed solves were such attempts, ~100 iterations each.
  const int orientations = growthAttempt_ ? 1 : 2;
  for (int orientation = 0; orientation < orientations && (orientation == 0 || !accepted(ipr)); ++orientation) {
  if (orientation == 1) {
    if (ipr.status == InteriorPointStatus::NonFinite || sys_->contacts.empty()) break;
    m.frictionTwist = kPi / sys_->frictionDirections;
    frictionRowsAtKnot(*sys_, m, m.fr, m.frictionTwist);
    m.cur = m.start;
    evaluate(*sys_, m, m.cur, m.residual, nullptr);
  }
  ips.muRule = InteriorPointMuRule::Mehrotra;
  startSlacks(kWarmShift);
  ipr = m.ip.solve(problem);
  rep.iterations += ipr.iterations;
  // Retries from other starts (the warm start may sit next to the wrong face of the problem):
  //  1. Impulses at the scale that stops the whole system within the step, F = Σ m(|g| + |v|/Δt)
  //     shared by the contacts, times 1, 0.1 and 10 (kStartScales), slacks max(c, 1), Mehrotra. A sliding foot with μ ≥ 0.75
  //     (quadruped) needs a tangential impact — a normal impulse thousands of times its weight for
  //     one step, the time-stepping resolution of Painlevé's paradox — which the path from the
  //     warm start (normal impulse ~0.1 N) cannot reach: the gap slack pins at ~1e-8 while the
  //     direction asks for Δγ ~ 1e4 N, and the fraction to the boundary cuts every step to nothing.
  //  2. The warm start with the monotone rule.
  constexpr double kStartScales[] = {1.0, 0.1, 10.0};
  constexpr int kRetries = int(sizeof kStartScales / sizeof kStartScales[0]) + 1;
  for (int retry = 0; retry < (growthAttempt_ ? 0 : kRetries) && !accepted(ipr) && ipr.status != InteriorPointStatus::NonFinite;
       ++retry) {
    m.cur = m.start;
    const bool scaled = retry + 1 < kRetries;
    if (scaled) {
      double stop = 0;
      for (int i = 0; i < nb; ++i)
        stop += sys_->bodies[i].mass * (st.gravity.norm() + state.bodies[i].v.norm() / st.dt);
      int candidates = 0;
      for (char on : m.contactOn) candidates += on;
      const double y0 = kStartScales[retry] * stop / double(std::max(1, candidates));
      for (size_t ci = 0; ci < sys_->contacts.size(); ++ci)
        if (m.contactOn[ci]) m.cur.segment<6>(6 * sys_->contacts[ci].node).array() += y0;
    }
    evaluate(*sys_, m, m.cur, m.residual, nullptr);
    startSlacks(1.0);
    ips.muRule = scaled ? InteriorPointMuRule::Mehrotra : InteriorPointMuRule::Monotone;
    ipr = m.ip.solve(problem);
    rep.iterations += ipr.iterations;
  }
  }
  // A stalled interior point accepted at kContactAttainable: polished to an exact complementary
  // solution when its active set can be identified (ContactStepProblem::polish), else reported.
  if (accepted(ipr) && !ipr.converged()) {
    double polished = 0;
    rep.iterations += problem.polish(ips.tol, kPolishFactorisations, polished);
    if (polished <= ips.tol) {
      ipr.status = InteriorPointStatus::Converged;
      ipr.residual = polished;
      ipr.complementarity = 0;
    } else {
      rep.stalled = true;
    }
  }
  rep.residual = ipr.residual;
  if (!accepted(ipr)) {
    rep.status = ipr.status == InteriorPointStatus::NonFinite ? StepStatus::NonFinite
                 : ipr.status == InteriorPointStatus::Singular ? StepStatus::SingularMatrix
                                                                 : StepStatus::NotConverged;
    if (finalAttempt_ || rep.status == StepStatus::NonFinite) rep.message = "interior point: " + ipr.message;
    return rep;
  }
  // The final iterate's residual and gaps (the line search may have evaluated other points last).
  evaluate(*sys_, m, m.cur, m.residual, nullptr);
  if (!excludedLimitsHold()) return stepWithAllLimits(st, state);
  if (!excludedContactsHold()) {
    selectPairs(*sys_, m);
    return stepAgain(st, state);
  }
  if (m.pairsRechosen < kPairResolves && !pairsHold()) {
    ++m.pairsRechosen;
    // The groups' candidates at the new features (a face slot that became active) may enter.
    for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
      const CompiledContactGroup& grp = sys_->contactGroups[gi];
      for (int k = 0; k < grp.count; ++k)
        m.contactOn[grp.first + k] = m.contactOn[grp.first + k] || contactCandidate(grp, m.set1[gi].contacts[k], state, st.dt);
    }
    selectPairs(*sys_, m);
    return stepAgain(st, state);
  }
  finish(st, state, rep);
  return rep;
}

// Polytope pairs (box, hull) whose solution z2 overlaps by more than kPairOverlap: a feature the
// face manifold chosen at z1 left out met within the step (two edges that crossed: at z1 a face
// separated them better). Their features are chosen again at z2 (and z1's candidates and friction
// rows recomputed with them); false if any was.
bool VariationalIntegrator::pairsHold() {
  Impl& m = *impl_;
  using K = contact::ContactShape::Kind;
  auto polytope = [](const contact::ContactShape& s) { return s.kind == K::Box || s.kind == K::Convex; };
  bool hold = true;
  for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
    const CompiledContactGroup& grp = sys_->contactGroups[gi];
    if (grp.bodyA < 0 || !polytope(grp.shapeA) || !polytope(grp.shape)) continue;
    const contact::BodyPose za{m.x2[grp.bodyA], m.q2[grp.bodyA]}, zb{m.x2[grp.body], m.q2[grp.body]};
    contact::Contact c;
    contact::polytopeSignedDistance(grp.shapeA, za, grp.shape, zb, c);
    if (!(c.phi < -kPairOverlap)) continue;
    contactCandidates(grp, m.x2, m.q2, m.set2[gi], m.features[gi], true);
    contactCandidates(grp, m.x1, m.q1, m.set1[gi], m.features[gi], false);
    hold = false;
  }
  if (!hold) frictionRowsAtKnot(*sys_, m, m.fr, m.frictionTwist);
  return hold;
}

// The step again from its warm start (the state's velocities and multipliers).
StepReport VariationalIntegrator::stepAgain(const StepSettings& st, State& state) {
  Impl& m = *impl_;
  for (size_t i = 0; i < sys_->bodies.size(); ++i) {
    m.cur.segment<3>(6 * i) = state.bodies[i].v;
    m.cur.segment<3>(6 * i + 3) = state.bodies[i].w;
  }
  for (size_t k = 0; k < sys_->joints.size(); ++k)
    if (sys_->joints[k].node >= 0) m.cur.segment<6>(6 * sys_->joints[k].node) = state.lambda[k];
  return stepWithContacts(st, state);
}

}  // namespace ms
