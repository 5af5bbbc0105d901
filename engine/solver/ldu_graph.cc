// SPDX-License-Identifier: GPL-3.0-or-later
// Numeric graph-based sparse block LDU: Brüdigam et al. 2023, §4.
// - factor(): Algorithm 3 (Algorithm 1 when the graph is a tree) in up-looking form; the cyclic
//   corrections of Alg. 3 lines 8–16 are precomputed index lists,
// - solve(): Algorithm 4 (Algorithm 2 for trees), forward pass over the list, then the diagonal
//   and upper pass in reverse,
// - invert6(): fast 6×6 pivot inverse (a contact node's pivot in closed form; otherwise diagonal
//   equilibration, then 2×2 block Schur complement with closed-form 3×3 inverses).
// Matrix F = L D U with L, U unit block-triangular in list order; after factor() the block (i, c)
// of a child c holds L_ic (or G_ic = L_ic D_c, Lower::LD) and the block (c, i) holds U_ci, diag_
// holds D and dinv_ holds D⁻¹.
#include "solver/ldu_graph.h"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>

#include "core/check.h"

namespace ms {

// Whether factor() checks that a trivial node's diagonal block is the identity (setTrivial's
// contract): in debug builds and in the sanitizer build (MECHSTUDIO_EXPENSIVE_CHECKS).
#if !defined(NDEBUG) || defined(MECHSTUDIO_EXPENSIVE_CHECKS)
constexpr bool kCheckTrivial = true;
#else
constexpr bool kCheckTrivial = false;
#endif

GraphBlockIndex::GraphBlockIndex(const EliminationOrder& order) : n_(order.numNodes) {
  // Count each row's blocks, then place them (block k: pair (i, c) → k, (c, i) → k + 1), then sort
  // each row by column.
  start_.assign(n_ + 1, 0);
  for (int i = 0; i < n_; ++i)
    for (int c : order.children[i]) ++start_[i + 1], ++start_[c + 1];
  for (int i = 0; i < n_; ++i) start_[i + 1] += start_[i];
  entries_.resize(size_t(start_[n_]));
  std::vector<int> fill(start_.begin(), start_.end() - 1);
  int next = 0;
  for (int i : order.list)
    for (int c : order.children[i]) {
      entries_[size_t(fill[i]++)] = {c, next++};
      entries_[size_t(fill[c]++)] = {i, next++};
    }
  for (int i = 0; i < n_; ++i) std::sort(entries_.begin() + start_[i], entries_.begin() + start_[i + 1]);
}

int GraphBlockIndex::blockIndex(int i, int j) const {
  // Binary search in row i's sorted entries.
  if (i < 0 || i >= n_ || j < 0 || j >= n_) return -1;
  const Row r = row(i);
  const Entry* it = std::lower_bound(r.begin(), r.end(), Entry(j, -1));
  return (it != r.end() && it->first == j) ? it->second : -1;
}

GraphLDU::GraphLDU(const EliminationOrder& order, Lower lower) : order_(order), lower_(lower), index_(order) {
  const int n = order_.numNodes;
  MS_ASSERT(static_cast<int>(order_.list.size()) == n && static_cast<int>(order_.position.size()) == n &&
                static_cast<int>(order_.children.size()) == n && static_cast<int>(order_.parents.size()) == n,
            "inconsistent EliminationOrder");
  diag_.assign(n, Mat6::Zero());
  dinv_.assign(n, Mat6::Zero());
  trivial_.assign(n, 0);

  // The blocks (i, c) and (c, i) of every filled-graph pair, numbered by index_.
  const int numPairs = index_.numBlocks() / 2;
  off_.assign(size_t(index_.numBlocks()), Mat6::Zero());

  // Child entries with their cyclic corrections (Alg. 3): for child c1 of i, every earlier child
  // c2 of i that is also a child of c1 (i.e. connected to c1 in the filled graph).
  childStart_.assign(n + 1, 0);
  children_.clear();
  corrections_.clear();
  children_.reserve(numPairs);
  for (int i = 0; i < n; ++i) {
    childStart_[i] = static_cast<int>(children_.size());
    const std::vector<int>& ch = order_.children[i];
    for (size_t s = 0; s < ch.size(); ++s) {
      const int c1 = ch[s];
      ChildEntry e{c1, blockIndex(i, c1), blockIndex(c1, i), static_cast<int>(corrections_.size()), 0};
      MS_ASSERT(e.blockIC >= 0 && e.blockCI >= 0, "missing child block");
      for (size_t s2 = 0; s2 < s; ++s2) {
        const int c2 = ch[s2];
        const int bC2C1 = blockIndex(c2, c1);
        if (bC2C1 < 0) continue;
        MS_ASSERT(order_.position[c2] < order_.position[c1], "children must be in list order");
        corrections_.push_back({c2, blockIndex(i, c2), blockIndex(c2, i), bC2C1, blockIndex(c1, c2)});
      }
      e.corrEnd = static_cast<int>(corrections_.size());
      children_.push_back(e);
    }
  }
  childStart_[n] = static_cast<int>(children_.size());

  // Parent entries (Alg. 4 line 9): block (i, p) holds U_ip after factor().
  parentStart_.assign(n + 1, 0);
  parents_.clear();
  parents_.reserve(numPairs);
  for (int i = 0; i < n; ++i) {
    parentStart_[i] = static_cast<int>(parents_.size());
    for (int p : order_.parents[i]) {
      const int b = blockIndex(i, p);
      MS_ASSERT(b >= 0, "missing parent block");
      parents_.push_back({p, b});
    }
  }
  parentStart_[n] = static_cast<int>(parents_.size());

  // Fill-in blocks, both directions.
  for (const auto& [a, b] : order_.fillInPairs) {
    fillInBlocks_.push_back(blockIndex(a, b));
    fillInBlocks_.push_back(blockIndex(b, a));
    MS_ASSERT(fillInBlocks_.back() >= 0 && fillInBlocks_[fillInBlocks_.size() - 2] >= 0, "missing fill-in block");
  }

  // Each row's blocks that multiply() reads: every stored block but the fill-in blocks.
  std::vector<char> fill(size_t(index_.numBlocks()), 0);
  for (int k : fillInBlocks_) fill[size_t(k)] = 1;
  productStart_.assign(n + 1, 0);
  products_.clear();
  products_.reserve(size_t(index_.numBlocks()) - fillInBlocks_.size());
  for (int i = 0; i < n; ++i) {
    productStart_[i] = static_cast<int>(products_.size());
    for (const GraphBlockIndex::Entry& e : index_.row(i))
      if (!fill[size_t(e.second)]) products_.push_back(e);
  }
  productStart_[n] = static_cast<int>(products_.size());
}

int GraphLDU::blockIndex(int i, int j) const { return index_.blockIndex(i, j); }

void GraphLDU::setZero() {
  // Zero diagonal, inverse-diagonal and all off-diagonal (including fill-in) blocks.
  for (Mat6& m : diag_) m.setZero();
  for (Mat6& m : dinv_) m.setZero();
  for (Mat6& m : off_) m.setZero();
}

void GraphLDU::setFillInZero() {
  for (int k : fillInBlocks_) off_[k].setZero();
}

bool GraphLDU::factor() {
  const bool ld = lower_ == Lower::LD;
  Mat6 tmp, lic;
  for (const int* it = listBegin(); it != listEnd(); ++it) {
    const int i = *it;
    Mat6& dii = diag_[i];
    // A trivial node: D_i = I, and its L and U blocks stay 0 (its row and column are zero).
    if (trivial_[i]) {
      if (kCheckTrivial) MS_ASSERT(dii.isIdentity(0.0), "a trivial node's diagonal block is not the identity");
      dinv_[i].setIdentity();
      continue;
    }
    for (int k = childStart_[i]; k < childStart_[i + 1]; ++k) {
      const ChildEntry& e = children_[k];
      // A trivial child adds nothing: L_ic = 0, U_ci = 0.
      if (trivial_[e.child]) continue;
      Mat6& fic = off_[e.blockIC];
      Mat6& fci = off_[e.blockCI];
      // Cyclic corrections (Alg. 3 lines 8–16) by earlier children c2 shared with c (none by a
      // trivial c2, whose L and U blocks are 0): L_{i,c2} D_{c2} is G_{i,c2} as stored, or formed.
      for (int q = e.corrBegin; q < e.corrEnd; ++q) {
        const Correction& r = corrections_[q];
        if (trivial_[r.c2]) continue;
        if (ld) {
          fic.noalias() -= off_[r.blockIC2] * off_[r.blockC2C1];
          fci.noalias() -= off_[r.blockC1C2] * off_[r.blockC2I];
        } else {
          tmp.noalias() = diag_[r.c2] * off_[r.blockC2C1];
          fic.noalias() -= off_[r.blockIC2] * tmp;
          tmp.noalias() = off_[r.blockC1C2] * diag_[r.c2];
          fci.noalias() -= tmp * off_[r.blockC2I];
        }
      }
      // U_ci = D_c⁻¹ F_ci and D_i −= L_ic D_c U_ci (Alg. 3 lines 18–20): with G, F_ic is kept as G_ic
      // and D_i −= G_ic U_ci; else L_ic = F_ic D_c⁻¹ and D_i −= L_ic F_ci.
      if (ld) {
        tmp.noalias() = dinv_[e.child] * fci;
        fci = tmp;
        dii.noalias() -= fic * fci;
      } else {
        lic.noalias() = fic * dinv_[e.child];
        dii.noalias() -= lic * fci;
        fic = lic;
        tmp.noalias() = dinv_[e.child] * fci;
        fci = tmp;
      }
    }
    // Invert the finished pivot D_i.
    if (!invert6(dii, dinv_[i])) return false;
  }
  return true;
}

void GraphLDU::solve(const VecX& rhs, VecX& x) const {
  const int n = numNodes();
  MS_ASSERT(rhs.size() == 6 * n, "rhs has the wrong size");
  if (&x != &rhs && x.size() != 6 * n) x.resize(6 * n);
  const bool ld = lower_ == Lower::LD;
  // Forward pass (Alg. 4 lines 1–6): y_i = rhs_i − Σ_c L_ic y_c, stored in x; with G stored,
  // L_ic y_c = G_ic w_c and w_i = D_i⁻¹ y_i is stored instead.
  // (A trivial node's y, w and x are its rhs; it adds nothing to its neighbours' sums.)
  Vec6 y;
  for (const int* it = listBegin(); it != listEnd(); ++it) {
    const int i = *it;
    y = rhs.segment<6>(6 * i);
    if (!trivial_[i]) {
      for (int k = childStart_[i]; k < childStart_[i + 1]; ++k) {
        const ChildEntry& e = children_[k];
        if (!trivial_[e.child]) y.noalias() -= off_[e.blockIC] * x.segment<6>(6 * e.child);
      }
      if (ld) {
        x.segment<6>(6 * i).noalias() = dinv_[i] * y;
        continue;
      }
    }
    x.segment<6>(6 * i) = y;
  }
  // Backward pass (Alg. 4 lines 7–12): x_i = D_i⁻¹ y_i − Σ_p U_ip x_p (w_i − Σ_p U_ip x_p).
  for (const int* it = listEnd(); it != listBegin();) {
    const int i = *--it;
    if (trivial_[i]) continue;
    if (ld) y = x.segment<6>(6 * i);
    else y.noalias() = dinv_[i] * x.segment<6>(6 * i);
    for (int k = parentStart_[i]; k < parentStart_[i + 1]; ++k) {
      const ParentEntry& p = parents_[k];
      if (!trivial_[p.parent]) y.noalias() -= off_[p.blockIP] * x.segment<6>(6 * p.parent);
    }
    x.segment<6>(6 * i) = y;
  }
}

void GraphLDU::copyValues(const GraphLDU& other) {
  MS_ASSERT(other.diag_.size() == diag_.size() && other.off_.size() == off_.size(), "copyValues: different structure");
  std::copy(other.diag_.begin(), other.diag_.end(), diag_.begin());
  std::copy(other.off_.begin(), other.off_.end(), off_.begin());
  std::copy(other.trivial_.begin(), other.trivial_.end(), trivial_.begin());
}

void GraphLDU::multiply(const VecX& x, VecX& y) const {
  // Row node i: its diagonal block and every stored off-diagonal block of the row but the fill-in
  // blocks (zero before factor()).
  // (A trivial row is x_i; a trivial column's blocks are 0.)
  const int rows = active_ ? activeCount_ : numNodes();
  for (int r = 0; r < rows; ++r) {
    const int i = active_ ? active_[r] : r;
    if (trivial_[i]) {
      y.segment<6>(6 * i) = x.segment<6>(6 * i);
      continue;
    }
    Vec6 acc = diag_[i] * x.segment<6>(6 * i);
    for (int b = productStart_[i]; b < productStart_[i + 1]; ++b) {
      const auto& [j, k] = products_[size_t(b)];
      if (!trivial_[j]) acc.noalias() += off_[k] * x.segment<6>(6 * j);
    }
    y.segment<6>(6 * i) = acc;
  }
}

void GraphLDU::multiplyAbs(const VecX& x, VecX& y) const {
  // As multiply, with every entry and every x_j taken by absolute value.
  const int rows = active_ ? activeCount_ : numNodes();
  for (int r = 0; r < rows; ++r) {
    const int i = active_ ? active_[r] : r;
    if (trivial_[i]) {
      y.segment<6>(6 * i) = x.segment<6>(6 * i).cwiseAbs();
      continue;
    }
    Vec6 acc = diag_[i].cwiseAbs() * x.segment<6>(6 * i).cwiseAbs();
    for (int b = productStart_[i]; b < productStart_[i + 1]; ++b) {
      const auto& [j, k] = products_[size_t(b)];
      if (!trivial_[j]) acc.noalias() += off_[k].cwiseAbs() * x.segment<6>(6 * j).cwiseAbs();
    }
    y.segment<6>(6 * i) = acc;
  }
}

void GraphLDU::setUnitRow(int i, int q) {
  diag_[i].row(q).setZero();
  diag_[i](q, q) = 1.0;
  for (const auto& [j, k] : index_.row(i)) off_[k].row(q).setZero();
}

int GraphLDU::maxRowBlocks() const {
  int most = 0;
  for (int i = 0; i < numNodes(); ++i) most = std::max(most, 1 + index_.row(i).size());
  return most;
}

MatX GraphLDU::toDense() const {
  // Scatter diagonal and off-diagonal blocks into a node-major dense matrix.
  const int n = numNodes();
  MatX m = MatX::Zero(6 * n, 6 * n);
  for (int i = 0; i < n; ++i) {
    m.block<6, 6>(6 * i, 6 * i) = diag_[i];
    for (const auto& [j, k] : index_.row(i)) m.block<6, 6>(6 * i, 6 * j) = off_[k];
  }
  return m;
}

namespace {

// Closed-form 3×3 inverse by cofactors; returns the determinant (out is garbage if det ≈ 0).
inline double inverse3(const Mat3& m, Mat3& out) {
  // Cofactors of the first row give the determinant; the rest complete the adjugate.
  const double c00 = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
  const double c01 = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
  const double c02 = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  const double det = m(0, 0) * c00 + m(0, 1) * c01 + m(0, 2) * c02;
  const double s = 1.0 / det;
  out(0, 0) = c00 * s;
  out(1, 0) = c01 * s;
  out(2, 0) = c02 * s;
  out(0, 1) = (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * s;
  out(1, 1) = (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * s;
  out(2, 1) = (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * s;
  out(0, 2) = (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * s;
  out(1, 2) = (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * s;
  out(2, 2) = (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * s;
  return det;
}

// |det| below kDetTolerance·scale³ (scale = max |entry| of the 6×6 block): 3×3 pivot treated as
// singular.
constexpr double kDetTolerance = 1e-12;
// First-order error estimate of the unpivoted Schur path, fitted on random and scaled 6×6
// matrices: relative error ≈ eps·(κ(A)·max|A⁻¹|/max|inv| + κ(S)) (κ in max-norms). Up to this
// value the result is accepted as is (measured error ≲ 1e-13); above it, it is verified by its
// residual and refined.
constexpr double kTrustedEstimate = 50.0;
// Largest residual max|I − a·X| that one refinement step turns into a ~1e-14 accurate inverse.
constexpr double kRefinableResidual = 1e-7;

// Full-pivoting LU fallback for singular / ill-conditioned 3×3 pivots.
bool invert6Fallback(const Mat6& a, Mat6& inv) {
  Eigen::FullPivLU<Mat6> lu(a);
  if (!lu.isInvertible()) return false;
  inv = lu.inverse();
  return inv.allFinite();
}

// Block-Schur inverse with its accuracy safeguards (on an equilibrated block, see invert6).
bool invertSchur(const Mat6& a, Mat6& inv) {
  // Scale of the whole block (max |entry|); non-finite or zero input is singular.
  const double scale = a.cwiseAbs().maxCoeff();
  if (!(scale > 0.0) || !std::isfinite(scale)) return false;
  const double tol = kDetTolerance * scale * scale * scale;

  // Top-left pivot A⁻¹ in closed form.
  const Mat3 A = a.topLeftCorner<3, 3>();
  const Mat3 B = a.topRightCorner<3, 3>();
  const Mat3 C = a.bottomLeftCorner<3, 3>();
  Mat3 Ai;
  const double detA = inverse3(A, Ai);
  if (!(std::abs(detA) > tol)) return invert6Fallback(a, inv);

  // Schur complement S = D − C A⁻¹ B and its closed-form inverse.
  Mat3 AiB, CAi, S, Si;
  AiB.noalias() = Ai * B;
  CAi.noalias() = C * Ai;
  S = a.bottomRightCorner<3, 3>();
  S.noalias() -= C * AiB;
  const double detS = inverse3(S, Si);
  if (!(std::abs(detS) > tol)) return invert6Fallback(a, inv);

  // Assemble [A⁻¹ + A⁻¹B S⁻¹ C A⁻¹, −A⁻¹B S⁻¹; −S⁻¹ C A⁻¹, S⁻¹].
  Mat3 X;
  X.noalias() = AiB * Si;
  inv.topLeftCorner<3, 3>() = Ai;
  inv.topLeftCorner<3, 3>().noalias() += X * CAi;
  inv.topRightCorner<3, 3>() = -X;
  inv.bottomLeftCorner<3, 3>().noalias() = -Si * CAi;
  inv.bottomRightCorner<3, 3>() = Si;
  // Accept if the error estimate is small (a NaN estimate fails the test and is verified below).
  const double aiMax = Ai.cwiseAbs().maxCoeff();
  const double estimate = A.cwiseAbs().maxCoeff() * aiMax * aiMax / inv.cwiseAbs().maxCoeff() +
                          S.cwiseAbs().maxCoeff() * Si.cwiseAbs().maxCoeff();
  if (estimate <= kTrustedEstimate) return inv.allFinite();

  // Possibly inaccurate (ill-conditioned A or S, or cancellation): verify with R = I − a·X, since
  // ‖X − a⁻¹‖ ≤ ‖a⁻¹‖·‖R‖, then refine once (X ← X + X·R, error ~‖R‖²), or fall back to full
  // pivoting.
  Mat6 R = Mat6::Identity();
  R.noalias() -= a * inv;
  if (!(R.cwiseAbs().maxCoeff() <= kRefinableResidual)) return invert6Fallback(a, inv);
  const Mat6 x0 = inv;
  inv.noalias() += x0 * R;
  return inv.allFinite();
}

// The pivot of a contact node eliminated as a leaf (4 friction directions; vi_assembly.cc and the
// interior point's s/y): rows [a, 0…; μ, b, −1, −1, −1, −1; 0, 1, diag(d₁..d₄)] with a, b, d_k > 0.
// Its inverse in closed form (every term positive, so nothing cancels), or false if `p` has not
// that pattern. With S = b + Σ 1/d_k: x₀ = r₀/a, x₁ = (r₁ − μ x₀ + Σ r_k/d_k)/S,
// x_k = (r_k − x₁)/d_k; the diagonal entries 1/d_k − 1/(d_k² S) = (S − 1/d_k)/(d_k S), with
// S − 1/d_k summed without 1/d_k.
bool invertContactPivot(const Mat6& p, Mat6& inv) {
  const double a = p(0, 0), b = p(1, 1);
  if (!(a > 0.0) || !(b > 0.0)) return false;
  for (int c = 1; c < 6; ++c)
    if (p(0, c) != 0.0) return false;
  for (int c = 2; c < 6; ++c)
    if (p(1, c) != -1.0) return false;
  double id[4], sumInv = 0.0;
  for (int k = 0; k < 4; ++k) {
    const int r = 2 + k;
    if (p(r, 0) != 0.0 || p(r, 1) != 1.0 || !(p(r, r) > 0.0)) return false;
    for (int c = 2; c < 6; ++c)
      if (c != r && p(r, c) != 0.0) return false;
    id[k] = 1.0 / p(r, r);
    sumInv += id[k];
  }
  const double mu = p(1, 0), S = b + sumInv, iS = 1.0 / S, ia = 1.0 / a;
  if (!std::isfinite(S) || !std::isfinite(mu)) return false;
  inv.setZero();
  inv(0, 0) = ia;
  inv(1, 0) = -mu * ia * iS;
  inv(1, 1) = iS;
  for (int k = 0; k < 4; ++k) {
    const int r = 2 + k;
    inv(1, r) = id[k] * iS;
    inv(r, 0) = -inv(1, 0) * id[k];
    inv(r, 1) = -iS * id[k];
    double others = b;  // S − 1/d_k, summed without it
    for (int j = 0; j < 4; ++j) others += j == k ? 0.0 : id[j];
    for (int j = 0; j < 4; ++j) inv(r, 2 + j) = j == k ? others * id[k] * iS : -id[k] * id[j] * iS;
  }
  return inv.allFinite();
}

}  // namespace

bool invert6(const Mat6& a, Mat6& inv) {
  // A contact node's pivot: in closed form.
  if (invertContactPivot(a, inv)) return true;
  // Equilibrate with E = diag(1/√|a_qq|) (row maximum for a zero diagonal), so that blocks mixing
  // translational and rotational rows, or joint rows of scale Δt²/m, have a unit diagonal; the
  // unpivoted Schur path then rarely needs its verification or fallback. a⁻¹ = E (E a E)⁻¹ E.
  Vec6 e;
  for (int q = 0; q < 6; ++q) {
    double d = std::abs(a(q, q));
    if (!(d > 0.0)) d = a.row(q).cwiseAbs().maxCoeff();
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    e(q) = 1.0 / std::sqrt(d);
  }
  const Mat6 scaled = e.asDiagonal() * a * e.asDiagonal();
  if (!invertSchur(scaled, inv)) return false;
  inv = e.asDiagonal() * inv * e.asDiagonal();
  return inv.allFinite();
}

}  // namespace ms
