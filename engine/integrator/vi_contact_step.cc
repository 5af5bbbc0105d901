// SPDX-License-Identifier: GPL-3.0-or-later
// The contact step (§3.3–3.5, (29a)–(29f), Appendix D): a step with contact or limit candidates
// solved by the primal–dual interior-point driver (solver/interior_point.h) on the graph LDU.
// - Unknowns y = (ż, λ, contact impulses, limit efforts); pairs (s, y) per contact row and per limit
//   row 0–1, s = c(ż, y) ≥ 0, s∘y = 0 (rows c from evaluate, vi_assembly.cc). Δs is eliminated per
//   pair, so a contact node's diagonal block is ∂c/∂y + diag(s/y).
// - Elimination (leafFirstOrder): every contact node (and its companion) before its body, as a leaf,
//   without pivoting across nodes. The contact pivot is invertible however small s/y gets; the
//   body's pivot receives the contacts' Schur terms.
// - Companions (n_f > 4): which directions the contact node holds is chosen per factorisation: the
//   4 of smallest s_k/β_k (the active ones) are swapped into its slots 2–5 (companionSwaps; rows and
//   columns of F, the right-hand side and the step are permuted alike; x and r keep the fixed
//   layout), so the (ψ, active β) saddle sits inside one 6×6 pivot as with 4 directions.
// - Linear solves (solveFactored): a solve whose weighted residual against the unfactored matrix is
//   above 1e-12 of its right-hand side takes one step of iterative refinement; a solve still
//   inaccurate (a sliding contact's Schur term ~1e9 can make its body's pivot nearly singular
//   although the whole matrix is not) is corrected by GMRES on W F L⁻¹ W⁻¹: the error lies in the
//   span of the few bad pivots, and 1–3 Krylov directions bring it to round-off.
// - Starts and retries (stepWithContacts): the warm start, Mehrotra's rule; then impulses at the
//   scale that stops the system within the step; then the monotone rule; then all of it with the
//   friction polygons turned by π/n_f.
// - Polish (ContactStepProblem::polish): a step that stalls (degenerate pairs, a slow barrier path)
//   and would be accepted at kContactAttainable: the active set A read from the iterate
//   (y_p ≥ s_p), Newton on G_A(x) = [F(x); c_p(x), p ∈ A; y_p, p ∉ A] = 0, whose Jacobian is the
//   step's matrix without S·Y⁻¹ and with unit rows for p ∉ A, with the primal–dual active-set update
//   (p leaves A when y_p + Δy_p < −tol, enters when c_p(x + Δx) < −tol, the direction then solved
//   again at the same x). Its solution, if the signs hold, solves the complementarity problem
//   exactly (s_p = 0 on A, y_p = 0 off A): the step then counts as converged.
// How these rules were found (measurements): docs/engine.md, "Contacts and friction" and "How the
// rules of the step were chosen".
#include <algorithm>
#include <cmath>
#include <limits>

#include "integrator/vi_internal.h"
#include "solver/graph.h"

namespace ms {

namespace {
// Weighted residual below which a stalled interior-point line search counts as converged: on the
// last try of a step (its shortest interval, vi_step_control.cc), and on the tries before it.
constexpr double kContactAttainable = 1e-7;
constexpr double kContactAttainableEarly = 1e-9;
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
constexpr int kKrylovCycles = 3;
// Warm start of the contact step: impulses start at the previous step's, shifted into the interior
// by kWarmShift (N), slacks at max(c, kWarmShift). Against the neutral start (impulses 1 N, slacks
// max(c, 1)) it cuts the interior-point iterations (quadruped standing 17.8 → 5.0 per step) and
// keeps the previous step's split of the load. Why 0.1: docs/engine.md, "How the rules of the step
// were chosen".
constexpr double kWarmShift = 0.1;
// The first solve of a contact step starts from the previous step's impulses as they are, each
// pair (s, y) centred onto s·y ≥ kStartMu [N·m or N·m/s] (centredStart), and is given at most
// kCentredBudget iterations, abandoned at an accepted step shorter than kAbandonAlpha; if it does
// not converge the step (or the island) is solved again from the shifted start (kWarmShift). A step
// (an island) whose warm start violates a pair by more than kStartViolation [m over the step], or
// that has more than kCentredMaxPairs pairs, starts shifted at once. Why: docs/engine.md, "How the
// rules of the step were chosen".
constexpr double kStartMu = 1e-6;
constexpr double kAbandonAlpha = 0.1;
constexpr int kCentredBudget = 15;
constexpr double kStartViolation = 1e-6;
constexpr int kCentredMaxPairs = 600;
// At most this many solves again per step with a polytope pair's features chosen at the solution.
constexpr int kPairResolves = 3;
// Iterative-refinement corrections of a contact Newton solve whose residual is above kSolveAccuracy
// (predictor and corrector alike; why: docs/engine.md, "How the rules of the step were chosen").
constexpr int kRefinements = 1;
}  // namespace

namespace vi {

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
  for (const CompiledCoupling& c : sys.couplings) {
    zeroDiagonal[c.node] = true;
    hangingLeaf[c.node] = c.numBodies == 1;
    for (int i = 0; i < c.numBodies; ++i) edge(c.node, c.body[i]);
  }
  // Contacts between bodies may close many loops (a pile): minimum degree where it fills in less.
  bool pairs = false;
  for (const CompiledContactGroup& grp : sys.contactGroups) pairs = pairs || grp.bodyA >= 0;
  return computeEliminationOrder(adjacency, zeroDiagonal, hangingLeaf, {}, pairs);
}

}  // namespace vi

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
  ContactStepProblem(const CompiledSystem& sys, VariationalIntegrator::Impl& m, GraphLDU& F)
      : sys_(sys), m_(m), F_(F), np_(m.numPairs) {}
  // Restricts the problem to island k of m_.islands (its pairs, rows, contacts and nodes; the
  // factorisation and the products work on its nodes only), or (k < 0) lifts the restriction.
  void setIsland(int k) {
    const vi::Islands& is = m_.islands;
    island_ = m_.island = k;
    p0_ = k < 0 ? 0 : is.pairStart[k];
    np_ = k < 0 ? m_.numPairs : is.pairStart[k + 1] - p0_;
    const int* nodes = k < 0 ? nullptr : is.nodes.data() + is.nodeStart[k];
    const int count = k < 0 ? 0 : is.nodeStart[k + 1] - is.nodeStart[k];
    m_.leafFirst.restrictTo(nodes, count);
    F_.restrictTo(nodes, count);
    matrix_ = Matrix::None;
  }
  // The rows of the current island: f(first row) for each of its nodes' 6 rows.
  template <class Fn>
  void eachNode(Fn&& f) const {
    const vi::Islands& is = m_.islands;
    for (int r = is.nodeStart[island_]; r < is.nodeStart[island_ + 1]; ++r) f(6 * is.nodes[r]);
  }
  int numPairs() const override { return np_; }
  Eigen::Ref<const VecX> slack(IpIterate which) const override {
    return (which == IpIterate::Current ? m_.sCur : m_.sTrial).segment(p0_, np_);
  }
  Eigen::Ref<const VecX> dual(IpIterate which) const override {
    return (which == IpIterate::Current ? m_.yCur : m_.yTrial).segment(p0_, np_);
  }
  Eigen::Ref<const VecX> slackStep() const override { return m_.ds.segment(p0_, np_); }
  Eigen::Ref<const VecX> dualStep() const override { return m_.dy.segment(p0_, np_); }
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
  // Blocks with a trivial end are not copied: factor() and solve() never read them.
  bool factorCompleted() {
    GraphLDU& L = m_.leafFirst;
    const auto copyBlocks = [&](int i) {
      if (L.trivial(i)) return;
      const std::vector<int>& children = L.order().children[i];
      for (size_t j = 0; j < children.size(); ++j) {
        if (L.trivial(children[j])) continue;
        for (int b = m_.leafBlockStart[i] + 2 * int(j), e = b + 2; b < e; ++b) {
          const std::pair<int, int>& k = m_.leafBlocks[size_t(b)];
          if (k.second >= 0) L.block(k.first) = F_.block(k.second);
          else L.block(k.first).setZero();
        }
      }
    };
    if (island_ < 0) {
      for (int i = 0; i < L.numNodes(); ++i) L.diag(i) = F_.diag(i), L.setTrivial(i, F_.trivial(i));
      for (int i = 0; i < L.numNodes(); ++i) copyBlocks(i);
    } else {
      // The island's nodes and their blocks (the others stay trivial in L: solveIslands).
      eachNode([&](int row) {
        const int i = row / 6;
        L.diag(i) = F_.diag(i);
        L.setTrivial(i, F_.trivial(i));
      });
      eachNode([&](int row) { copyBlocks(row / 6); });
    }
    return L.factor();
  }
  // F_ at the current iterate with S·Y⁻¹ and the companion swaps (the matrix that was factored).
  void completeMatrix() {
    // Δs eliminated per pair: the contact and limit diagonals gain S·Y⁻¹.
    for (int p = p0_; p < p0_ + np_; ++p) {
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
    const vi::IndexRange contacts = companionContacts();
    for (int r = contacts.begin; r < contacts.end; ++r) {
      const int ci = contacts[r];
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
    if (island_ < 0) m_.rhs = -m_.residual;
    else eachNode([&](int o) { m_.rhs.segment<6>(o) = -m_.residual.segment<6>(o); });
    for (int p = 0; p < np_; ++p) m_.rhs[m_.pairRow[p0_ + p]] += rhsComp[p] / y[p0_ + p];
    permuteCompanions(m_.rhs);
    solveFactored();
    permuteCompanions(m_.delta);  // back to the fixed layout (disjoint swaps: self-inverse)
    // Δs from the complementarity rows: S Δy + Y Δs = r. (Recovering it from the linearised slack
    // equation instead, Δs = ∂c/∂ż Δż + ∂c/∂y Δy + (c − s), made the sphere chain fail earlier.)
    gatherPairs(m_.delta, m_.dy);
    const int p0 = p0_, np = np_;
    m_.ds.segment(p0, np).array() =
        (rhsComp.array() - m_.sCur.segment(p0, np).array() * m_.dy.segment(p0, np).array()) / y.segment(p0, np).array();
    bool finite = m_.ds.segment(p0, np).allFinite();
    if (island_ < 0) finite = finite && m_.delta.allFinite();
    else eachNode([&](int o) { finite = finite && m_.delta.segment<6>(o).allFinite(); });
    return finite;
  }
  void apply(double alpha) override {
    if (island_ < 0) m_.trial = m_.cur + alpha * m_.delta;
    else eachNode([&](int o) { m_.trial.segment<6>(o) = m_.cur.segment<6>(o) + alpha * m_.delta.segment<6>(o); });
    m_.sTrial.segment(p0_, np_) = m_.sCur.segment(p0_, np_) + alpha * m_.ds.segment(p0_, np_);
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
    for (int p = 0; p < np_; ++p) {
      m_.sCur[p0_ + p] = s[p];
      m_.cur[m_.pairRow[p0_ + p]] = y[p];
    }
  }
  // The contacts whose companions the current problem swaps: all (n_f > 4), the island's, or none.
  vi::IndexRange companionContacts() const {
    if (m_.numSwaps.empty()) return {nullptr, 0, 0};
    return vi::islandRange(m_.islands.contacts, m_.islands.contactStart, island_, int(m_.numSwaps.size()));
  }
  // Applies the companion swaps of the current factorisation to a node-major vector.
  void permuteCompanions(VecX& v) const {
    const vi::IndexRange contacts = companionContacts();
    for (int r = contacts.begin; r < contacts.end; ++r)
      for (int ci = contacts[r], i = 0; i < m_.numSwaps[ci]; ++i)
        std::swap(v[6 * sys_.contacts[ci].node + m_.swapC[4 * ci + i]],
                  v[6 * sys_.contacts[ci].extraNode + m_.swapE[4 * ci + i]]);
  }
  // The duals of the pairs from a node-major vector.
  void gatherPairs(const VecX& x, VecX& y) const {
    for (int p = p0_; p < p0_ + np_; ++p) y[p] = x[m_.pairRow[p]];
  }
  // δ = F⁻¹ rhs (m_.rhs → m_.delta, both in the factorisation's companion layout) with the
  // factorisation of leafFirst, kRefinements corrections against the unfactored F_, and, if the
  // weighted residual is still above kSolveAccuracy·‖W rhs‖∞, restarted GMRES on W F L⁻¹ W⁻¹
  // (W = diag(rowWeight); the factorisation L as right preconditioner). The graph LDU eliminates
  // each contact before its body, and a sliding contact (γ, ψ and one β active) adds a Schur term
  // (n + μb)nᵀΔt/(ε_n + s/γ) of ~1e9 to the body's pivot; where that pivot is nearly singular the
  // solve is inaccurate and iterative refinement diverges, although the whole matrix is well
  // determined. The error has the rank of the few bad pivots, so GMRES preconditioned by the same
  // factorisation removes it in a few directions (docs/engine.md, "Inaccurate linear solves").
  void solveFactored() {
    const GraphLDU& L = m_.leafFirst;
    const VecX& w = m_.rowWeight;
    L.solve(m_.rhs, m_.delta);
    // refine ← rhs − F refine (every row, or the island's rows).
    const auto residualOf = [&] {
      if (island_ < 0) m_.refine = m_.rhs - m_.refine;
      else eachNode([&](int o) { m_.refine.segment<6>(o) = m_.rhs.segment<6>(o) - m_.refine.segment<6>(o); });
    };
    // Its weighted residual, then iterative refinement against the unfactored matrix while that is
    // above kSolveAccuracy·‖W rhs‖∞ (up to kRefinements corrections).
    const double rhsNorm = weightedMax(m_.rhs);
    F_.multiply(m_.delta, m_.refine);
    residualOf();
    double resNorm = weightedMax(m_.refine);
    for (int k = 0; k < kRefinements && resNorm > kSolveAccuracy * rhsNorm; ++k) {
      L.solve(m_.refine, m_.refine);
      if (island_ < 0) m_.delta += m_.refine;
      else eachNode([&](int o) { m_.delta.segment<6>(o) += m_.refine.segment<6>(o); });
      F_.multiply(m_.delta, m_.refine);
      residualOf();
      resNorm = weightedMax(m_.refine);
    }
    if (!(resNorm > kSolveAccuracy * rhsNorm) || !std::isfinite(resNorm)) return;
    // (Below, rare: whole vectors, which are 0 outside an island's rows: solveIslands.)
    // Round-off level of the residual itself: ~u·|F||δ| + |rhs| per row (normwise, weighted).
    m_.work1 = m_.delta.cwiseAbs();
    F_.multiplyAbs(m_.work1, m_.work2);
    const double roundoff = kSolveRoundoff * (m_.work2 + m_.rhs.cwiseAbs()).cwiseProduct(w).lpNorm<Eigen::Infinity>();
    if (resNorm <= roundoff) return;
    const double target = std::max(kKrylovTarget * rhsNorm, roundoff);
    MatX& V = m_.krylov;
    VecX &t1 = m_.work1, &t2 = m_.work2;
    Eigen::Matrix<double, vi::kKrylov + 1, vi::kKrylov> H;
    Eigen::Matrix<double, vi::kKrylov + 1, 1> g;
    Eigen::Matrix<double, vi::kKrylov, 1> cs, sn, z;
    for (int cycle = 0; cycle < kKrylovCycles && resNorm > target; ++cycle) {
      V.col(0) = m_.refine.cwiseProduct(w);
      const double beta = V.col(0).norm();
      if (!(beta > 0) || !std::isfinite(beta)) return;
      V.col(0) /= beta;
      g.setZero();
      g[0] = beta;
      int j = 0;
      while (j < vi::kKrylov) {
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
  // ‖W v‖∞ over every row, or over the island's rows.
  double weightedMax(const VecX& v) const {
    if (island_ < 0) return v.cwiseProduct(m_.rowWeight).lpNorm<Eigen::Infinity>();
    double most = 0;
    eachNode([&](int o) {
      const double a = v.segment<6>(o).cwiseProduct(m_.rowWeight.segment<6>(o)).lpNorm<Eigen::Infinity>();
      if (!(a <= most)) most = a;  // NaN propagates
    });
    return most;
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
      if (!vi::evaluate(sys_, m_, x, r, &F_)) return factorisations;
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
        vi::evaluate(sys_, m_, x, r, nullptr);
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
      const bool evaluated = vi::evaluate(sys_, m_, m_.trial, m_.refine, nullptr);
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
    if (!vi::evaluate(sys_, m_, x, r, F)) {
      n.squared = n.maxAbs = std::numeric_limits<double>::infinity();
      return n;
    }
    for (int p = p0_; p < p0_ + np_; ++p) r[m_.pairRow[p]] -= s[p];
    gatherPairs(x, &x == &m_.cur ? m_.yCur : m_.yTrial);
    if (island_ < 0) {
      n.squared = r.cwiseProduct(m_.rowWeight).squaredNorm();
    } else {
      n.squared = 0;
      eachNode([&](int o) { n.squared += r.segment<6>(o).cwiseProduct(m_.rowWeight.segment<6>(o)).squaredNorm(); });
    }
    n.maxAbs = weightedMax(r);
    if (!std::isfinite(n.squared)) n.maxAbs = std::numeric_limits<double>::quiet_NaN();
    return n;
  }
  const CompiledSystem& sys_;
  VariationalIntegrator::Impl& m_;
  GraphLDU& F_;
  // The island the problem is restricted to (−1: none), its first pair and its number of pairs.
  int island_ = -1, p0_ = 0, np_ = 0;
  // What F_ holds: nothing usable, the matrix at the current iterate or at the last evaluated trial
  // (as assembled), or the current one completed by completeMatrix() (as factored).
  enum class Matrix { None, Current, Trial, Factored };
  Matrix matrix_ = Matrix::None;
  bool firstTrial_ = false;  // the next trial evaluation is the first since a Newton direction
};

// A solve from the centred start: at most kCentredBudget iterations, abandoned at an accepted step
// shorter than kAbandonAlpha, without a report message (it allocates nothing whatever its outcome).
InteriorPointReport solveCentred(InteriorPointSolver& ip, InteriorPointProblem& problem) {
  InteriorPointSettings& s = ip.settings();
  const InteriorPointSettings keep = s;
  s.maxIterations = std::min(s.maxIterations, kCentredBudget);
  s.abandonAlpha = kAbandonAlpha;
  s.reportMessage = false;
  InteriorPointReport r = ip.solve(problem);
  s = keep;
  return r;
}

// The islands of the step (vi_islands.cc, two or more) solved one by one from the current iterate
// (the centred start, slacks set), each restricted to its own pairs, rows and nodes, with
// Mehrotra's rule; an island not converged within kCentredBudget iterations is solved again from
// the start `restart(k)` sets for its rows and pairs (m.island = k). True if every island
// converged: m.cur is then the step's solution, `out` holds the largest residual and
// complementarity and `iterations` the most iterations of an island (both tries). Else the caller
// solves the whole step as one problem from its start.
// Invariants while an island is solved: outside its rows, m.trial equals m.cur, the work vectors
// (rhs, delta, refine, work1, work2) are 0 and every node of leafFirst is trivial; each island
// restores them for its rows when it is done.
template <class Restart>
bool solveIslands(const CompiledSystem& sys, VariationalIntegrator::Impl& m, GraphLDU& F, ContactStepProblem& problem,
                  InteriorPointReport& out, int& iterations, Restart&& restart) {
  const vi::Islands& is = m.islands;
  GraphLDU& L = m.leafFirst;
  vi::excludedRows(sys, m, F);
  for (int i = 0; i < L.numNodes(); ++i) L.setTrivial(i, true);
  m.trial = m.cur;
  m.sTrial.head(m.numPairs) = m.sCur.head(m.numPairs);
  m.yTrial.head(m.numPairs) = m.yCur.head(m.numPairs);
  VecX* const work[] = {&m.rhs, &m.delta, &m.refine, &m.work1, &m.work2};
  for (VecX* v : work) v->setZero(6 * sys.numNodes);
  out.status = InteriorPointStatus::Converged;
  out.residual = out.complementarity = out.mu = 0;
  bool ok = true;
  for (int k = 0; k < is.count && ok; ++k) {
    if (m.islandAsleep[k]) continue;  // asleep (vi_sleep.cc): its rows hold its frozen solution
    problem.setIsland(k);
    InteriorPointReport r;
    r.status = InteriorPointStatus::Abandoned;
    if (!m.startShifted[k]) r = solveCentred(m.ip, problem);
    if (!r.converged()) {
      const int first = r.iterations;
      problem.setIsland(k);
      restart(k);
      r = m.ip.solve(problem);
      r.iterations += first;
    }
    iterations = std::max(iterations, r.iterations);
    ok = r.converged();
    out.residual = std::max(out.residual, r.residual);
    out.complementarity = std::max(out.complementarity, r.complementarity);
    out.mu = std::max(out.mu, r.mu);
    // Leave the island: the invariants above for its rows and pairs.
    for (int n = is.nodeStart[k]; n < is.nodeStart[k + 1]; ++n) {
      const int i = is.nodes[n];
      m.trial.segment<6>(6 * i) = m.cur.segment<6>(6 * i);
      for (VecX* v : work) v->segment<6>(6 * i).setZero();
      L.setTrivial(i, true);
    }
    const int p0 = is.pairStart[k], np = is.pairStart[k + 1] - p0;
    m.sTrial.segment(p0, np) = m.sCur.segment(p0, np);
    m.yTrial.segment(p0, np) = m.yCur.segment(p0, np);
  }
  problem.setIsland(-1);
  return ok;
}

}  // namespace


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
  // Start (m.start): limit pair duals at 1, the other rows of limit nodes at 0; contact impulses the
  // previous step's. The first solve starts from it centred (centredStart, kStartMu), a retry from
  // it shifted into the interior (shiftedStart, kWarmShift). Slacks at max(c, floor).
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
    m.cur.segment<6>(6 * sys_->contacts[ci].node) = warm ? Vec6(state.contactImpulse[ci].cwiseMax(0.0)) : Vec6::Zero();
    // Companion: directions 5..n_f likewise; its padding rows stay 0.
    if (sys_->contacts[ci].extraNode >= 0)
      m.cur.segment(6 * sys_->contacts[ci].extraNode, extra) =
          (warmExtra ? Vec6(state.contactFriction[ci].cwiseMax(0.0)) : Vec6::Zero()).head(extra);
  }
  auto startSlacks = [&](double floor) {
    for (int p = 0; p < m.numPairs; ++p) {
      m.yCur[p] = m.cur[m.pairRow[p]];
      m.sCur[p] = std::max(m.residual[m.pairRow[p]], floor);
    }
  };
  // Until the final evaluation the gaps φ(z2) of groups without a candidate are not computed (their
  // rows are y = 0); every exit of this function and its final evaluation compute them all again.
  struct AllGroupsAgain {
    bool& all;
    ~AllGroupsAgain() { all = true; }
  } allGroupsAgain{m.allGroups};
  m.allGroups = false;
  if (!vi::evaluate(*sys_, m, m.cur, m.residual, nullptr)) {
    rep.status = StepStatus::AngularVelocityLimit;
    rep.message = "|w| >= 2/dt at the start of the step: the time step is too large for this rotation speed";
    return rep;
  }
  m.start = m.cur;
  // The start shifted: island k's rows (k < 0: all) of m.cur set to m.start's, its candidate
  // contacts' impulses raised by kWarmShift (companions too); m.cur elsewhere unchanged.
  auto shiftedStart = [&](int k) {
    const vi::IndexRange contacts = vi::islandRange(m.islands.contacts, m.islands.contactStart, k, int(sys_->contacts.size()));
    if (k < 0) m.cur = m.start;
    else
      for (int r = m.islands.nodeStart[k]; r < m.islands.nodeStart[k + 1]; ++r)
        m.cur.segment<6>(6 * m.islands.nodes[r]) = m.start.segment<6>(6 * m.islands.nodes[r]);
    for (int r = contacts.begin; r < contacts.end; ++r) {
      const int ci = contacts[r];
      if (!m.contactOn[ci]) continue;
      const CompiledContact& c = sys_->contacts[ci];
      m.cur.segment<6>(6 * c.node) = m.start.segment<6>(6 * c.node).array() + kWarmShift;
      if (c.extraNode >= 0) m.cur.segment(6 * c.extraNode, extra) = m.start.segment(6 * c.extraNode, extra).array() + kWarmShift;
    }
  };
  // The start centred: each pair (s, y) = (max(c, 0), max(y, 0)) at m.start moved onto s·y ≥ kStartMu
  // (the smaller raised; both to √kStartMu when both are below it). m.residual is left at m.start:
  // the interior point evaluates its start itself.
  auto centredStart = [&] {
    const double root = std::sqrt(kStartMu);
    for (int p = 0; p < m.numPairs; ++p) {
      const int row = m.pairRow[p];
      double y = std::max(m.cur[row], 0.0), sl = std::max(m.residual[row], 0.0);
      if (sl * y < kStartMu) {
        if (y >= sl && y > root) sl = kStartMu / y;
        else if (sl > y && sl > root) y = kStartMu / sl;
        else sl = y = root;
      }
      m.cur[row] = m.yCur[p] = y;
      m.sCur[p] = sl;
    }
  };
  // Per island (one entry for the step as one problem): whether it starts shifted — it has more than
  // kCentredMaxPairs pairs, or the warm start violates one of its pairs by more than kStartViolation
  // over the step (m.residual: c at m.start; a gap or limit row c < −kStartViolation, a rate row
  // (friction, cone) c·Δt < −kStartViolation): the pair's status changes in this step (an impact, a
  // slip), where the centred start jams.
  auto startViolations = [&] {
    const bool byIsland = m.islands.count > 1;
    m.startShifted.assign(byIsland ? m.islands.count : 1, 0);
    const int firstLimitNode = sys_->jointNodes + int(sys_->contacts.size());
    const int endLimitNode = firstLimitNode + int(sys_->limits.size());
    for (int k = 0; k < int(m.startShifted.size()); ++k) {
      const int p0 = byIsland ? m.islands.pairStart[k] : 0, p1 = byIsland ? m.islands.pairStart[k + 1] : m.numPairs;
      m.startShifted[k] = p1 - p0 > kCentredMaxPairs;
      for (int p = p0; p < p1 && !m.startShifted[k]; ++p) {
        const int row = m.pairRow[p], node = row / 6;
        const bool position = row % 6 == 0 || (node >= firstLimitNode && node < endLimitNode);
        m.startShifted[k] = m.residual[row] * (position ? 1.0 : st.dt) < -kStartViolation;
      }
    }
  };
  m.rowWeight.head(6 * nb).setConstant(m.bodyWeight);
  InteriorPointSettings& ips = m.ip.settings();
  ips.tol = st.tolerance;
  ips.complementarityTol = st.complementarityTolerance;
  ips.maxIterations = st.maxIterations;
  ips.maxLineSearch = std::max(st.maxLineSearch, 20);
  ContactStepProblem problem(*sys_, m, matrix_);
  // A line search that stalls below kContactAttainable (weighted residual) and within 100× the
  // complementarity tolerance has reached the attainable accuracy. The step is accepted; its joint
  // violation and penetration are measured and reported as usual. While a shorter interval is left
  // to try, only below kContactAttainableEarly: a stall above it is retried subdivided (on a
  // 40-capsule chain a stall at 8.8e-9 left that joint violation; its halves converged).
  const double attainable = finalAttempt_ ? kContactAttainable : kContactAttainableEarly;
  auto accepted = [&](const InteriorPointReport& r) {
    return r.converged() || ((r.status == InteriorPointStatus::LineSearchFailed ||
                              r.status == InteriorPointStatus::MaxIterations) &&
                             r.residual <= std::max(ips.tol, attainable) &&
                             r.complementarity <= 100 * ips.complementarityTol);
  };
  InteriorPointReport ipr;
  // Islands (vi_islands.cc): two or more are solved one by one from the centred start (an island
  // that does not converge within kCentredBudget iterations again from the shifted start); if one
  // of them does not converge, the whole step is solved as one problem below, from its start.
  bool byIslands = false, centred = false;
  if (st.islands) vi::selectIslands(*sys_, m);
  // Sleeping (vi_sleep.cc): islands at rest keep their bodies still and their contacts' impulses.
  if (st.islands) rep.sleeping = vi::selectSleeping(*sys_, m, st, state);
  const bool allAsleep = nb > 0 && rep.sleeping == nb;
  if (allAsleep) {
    vi::freezeIsland(*sys_, m, state, -1);
    ipr.status = InteriorPointStatus::Converged;
    rep.islands = m.islands.count > 1 ? m.islands.count : 0;
  } else if (st.islands && m.islands.count > 1) {
    startViolations();
    centredStart();
    for (int k = 0; k < m.islands.count; ++k)
      if (m.islandAsleep[k]) vi::freezeIsland(*sys_, m, state, k);
    ips.muRule = InteriorPointMuRule::Mehrotra;
    const auto shiftedIsland = [&](int k) {
      shiftedStart(k);
      vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);  // the island's rows (m.island = k)
      for (int p = m.islands.pairStart[k]; p < m.islands.pairStart[k + 1]; ++p) {
        m.yCur[p] = m.cur[m.pairRow[p]];
        m.sCur[p] = std::max(m.residual[m.pairRow[p]], kWarmShift);
      }
    };
    byIslands = solveIslands(*sys_, m, matrix_, problem, ipr, rep.iterations, shiftedIsland);
    if (byIslands) rep.islands = m.islands.count;
    if (!byIslands) {
      rep.sleeping = 0;  // the whole step as one problem: every body is solved
      shiftedStart(-1);
      vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);
    }
  } else if (startViolations(), m.startShifted[0]) {
    // One problem whose warm start violates a pair: the shifted start.
    shiftedStart(-1);
    vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);
  } else {
    // One problem: first from the centred start within kCentredBudget iterations.
    centredStart();
    ips.muRule = InteriorPointMuRule::Mehrotra;
    ipr = solveCentred(m.ip, problem);
    rep.iterations += ipr.iterations;
    centred = ipr.converged();
    if (!centred) {
      shiftedStart(-1);
      vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);
    }
  }
  // The whole sequence below runs with the friction polygons as built, then (if it fails) turned
  // by half a sector, π/n_f: a degenerate friction pair of one orientation is not one of the other.
  // An attempt to lengthen the interval (growthAttempt_) runs the first solve only: if it fails the
  // step keeps the interval that worked (advance), and the retries below would only add their cost
  // (docs/engine.md, "How the rules of the step were chosen").
  const int orientations = byIslands || centred || allAsleep ? 0 : growthAttempt_ ? 1 : 2;
  for (int orientation = 0; orientation < orientations && (orientation == 0 || !accepted(ipr)); ++orientation) {
  if (orientation == 1) {
    if (ipr.status == InteriorPointStatus::NonFinite || sys_->contacts.empty()) break;
    m.frictionTwist = kPi / sys_->frictionDirections;
    vi::frictionRowsAtKnot(*sys_, m, m.fr, m.frictionTwist);
    shiftedStart(-1);
    vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);
  }
  ips.muRule = InteriorPointMuRule::Mehrotra;
  startSlacks(kWarmShift);
  ipr = m.ip.solve(problem);
  rep.iterations += ipr.iterations;
  // Retries from other starts (the warm start may sit next to the wrong face of the problem):
  //  1. Impulses at the scale that stops the whole system within the step, F = Σ m(|g| + |v|/Δt)
  //     shared by the contacts, times 1, 0.1 and 10 (kStartScales), slacks max(c, 1), Mehrotra: a
  //     sliding foot with μ ≥ 0.75 needs a normal impulse thousands of times its weight for one step
  //     (Painlevé's paradox), which the path from the warm start cannot reach (docs/engine.md,
  //     "Rubber feet").
  //  2. The warm start with the monotone rule.
  constexpr double kStartScales[] = {1.0, 0.1, 10.0};
  constexpr int kRetries = int(sizeof kStartScales / sizeof kStartScales[0]) + 1;
  for (int retry = 0; retry < (growthAttempt_ ? 0 : kRetries) && !accepted(ipr) && ipr.status != InteriorPointStatus::NonFinite;
       ++retry) {
    shiftedStart(-1);
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
    vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);
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
  m.allGroups = true;
  vi::evaluate(*sys_, m, m.cur, m.residual, nullptr);
  if (!excludedLimitsHold()) return stepWithAllLimits(st, state);
  if (!excludedContactsHold()) {
    vi::selectPairs(*sys_, m);
    return stepAgain(st, state);
  }
  if (m.pairsRechosen < kPairResolves && !pairsHold()) {
    ++m.pairsRechosen;
    // The groups' candidates at the new features (a face slot that became active) may enter.
    for (size_t gi = 0; gi < sys_->contactGroups.size(); ++gi) {
      const CompiledContactGroup& grp = sys_->contactGroups[gi];
      for (int k = 0; k < grp.count; ++k)
        m.contactOn[grp.first + k] = m.contactOn[grp.first + k] || vi::contactCandidate(grp, m.set1[gi].contacts[k], state, st.dt);
    }
    vi::selectPairs(*sys_, m);
    return stepAgain(st, state);
  }
  finish(st, state, rep);
  return rep;
}

}  // namespace ms
