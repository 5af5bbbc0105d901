// SPDX-License-Identifier: GPL-3.0-or-later
// Numeric graph-based sparse block LDU (Brüdigam et al. 2023, Algorithms 1–4) on 6×6 blocks.
// Every node (body or joint) owns 6 rows; joints with fewer constraint rows pad the rest with
// identity rows (λ = 0) so that all blocks are fixed-size. A node marked trivial (identity diagonal,
// zero row and column: a contact or limit that is not a candidate of the step) is skipped by
// factor(), solve() and multiply().
// All storage is allocated in the constructor: factor() and solve() never allocate.
#pragma once

#include <vector>

#include <Eigen/StdVector>

#include "core/types.h"
#include "solver/graph.h"

namespace ms {

// The numbering of a graph LDU's off-diagonal blocks, without their values: the blocks (i, c) and
// (c, i) of every filled pair, in list order of i, then of its children c (GraphLDU's storage
// order). Rows are stored flat (CSR), each sorted by column node. The compile step looks its
// block indices up with it once.
class GraphBlockIndex {
 public:
  using Entry = std::pair<int, int>;  // (column node, block index)
  struct Row {
    const Entry* first;
    const Entry* last;
    const Entry* begin() const { return first; }
    const Entry* end() const { return last; }
    int size() const { return int(last - first); }
  };
  GraphBlockIndex() = default;
  explicit GraphBlockIndex(const EliminationOrder& order);
  // Block index of (row node i, column node j), −1 if they are not connected in the filled graph.
  int blockIndex(int i, int j) const;
  // Row i's entries, sorted by column node.
  Row row(int i) const { return {entries_.data() + start_[i], entries_.data() + start_[i + 1]}; }
  int numBlocks() const { return int(entries_.size()); }

 private:
  int n_ = 0;
  std::vector<int> start_;      // row i: entries_[start_[i], start_[i + 1])
  std::vector<Entry> entries_;
};

class GraphLDU {
 public:
  // What factor() leaves in a child's lower block (i, c): L_ic, or G_ic = L_ic D_c (the
  // Schur-corrected F_ic as it is). G costs two 6×6 products per edge and one per cyclic correction
  // (G_{i,c2} U_{c2,c1} for L_{i,c2} D_{c2} U_{c2,c1}) instead of three and two, and solve() applies
  // D⁻¹ in its forward pass instead of its backward pass: the same solution, other roundings. The
  // contact step factors with G (piles fill in); the equality Newton path keeps L, whose roundings
  // the long-run energy checks of the robustness suite were measured with (docs/engine.md).
  enum class Lower { L, LD };
  GraphLDU() = default;
  explicit GraphLDU(const EliminationOrder& order, Lower lower = Lower::L);

  int numNodes() const { return order_.numNodes; }
  const EliminationOrder& order() const { return order_; }

  // Block index of the off-diagonal block (row node i, column node j) for any pair connected in
  // the filled graph, -1 otherwise. Look indices up once (at compile time) and use block(k) after.
  int blockIndex(int i, int j) const;
  Mat6& block(int k) { return off_[k]; }
  const Mat6& block(int k) const { return off_[k]; }
  Mat6& diag(int i) { return diag_[i]; }
  const Mat6& diag(int i) const { return diag_[i]; }

  // Marks node i as trivial (or not): its equations are x_i = rhs_i — identity diagonal block and
  // every stored block of its row and column zero (the caller assembles it so; a contact or limit
  // that is not a candidate of the step). factor(), solve() and multiply() skip it and its blocks,
  // so a trivial node costs nothing; the result is the same as without the mark.
  void setTrivial(int i, bool trivial) { trivial_[i] = trivial; }
  bool trivial(int i) const { return trivial_[i] != 0; }
  // Restricts factor(), solve(), multiply() and multiplyAbs() to the nodes nodes[0..count) (an
  // island of the contact step: no stored block joins one of them to a node outside that is not
  // trivial or zero), listed in this factorisation's elimination order; the other nodes' rows of a
  // result are not written. The caller keeps the array alive while restricted; nullptr: every node.
  void restrictTo(const int* nodes, int count) { active_ = nodes, activeCount_ = count; }
  // Zero every block (including fill-in blocks).
  void setZero();
  // Zero the fill-in blocks only (they hold factors after factor(); every other block is rewritten
  // when a matrix is assembled).
  void setFillInZero();
  // In-place factorisation. Returns false if a pivot block is singular or non-finite.
  bool factor();
  // Solve F x = rhs after factor(); rhs and x are node-major (rows 6i..6i+5 belong to node i)
  // and may alias.
  void solve(const VecX& rhs, VecX& x) const;

  // Copies the block values and trivial marks of `other` (same elimination order): no allocation,
  // no copy of the symbolic structure.
  void copyValues(const GraphLDU& other);
  // y = F x with the matrix before factor() (its fill-in blocks, zero then, are not read);
  // x and y node-major, not aliased. No allocation.
  void multiply(const VecX& x, VecX& y) const;
  // y = |F| |x| (entrywise absolute values), as multiply: the scale of F x for round-off estimates.
  void multiplyAbs(const VecX& x, VecX& y) const;
  // Replaces row q of node i's block row by the unit row e_q (diagonal 1, every other stored entry
  // of the row 0): the equation x_{6i+q} = rhs. Before factor().
  void setUnitRow(int i, int q);
  // The largest number of stored blocks in a block row (diagonal included).
  int maxRowBlocks() const;
  // The matrix as currently stored (before factor()), as a dense 6n×6n matrix (tests, reference).
  MatX toDense() const;

 private:
  // One (node i, child c) entry of the factorisation, stored flat in list order of i, then of c.
  struct ChildEntry {
    int child;      // node c
    int blockIC;    // block (i, c): F, then L (or G = L D_c) after factor()
    int blockCI;    // block (c, i): F, then U after factor()
    int corrBegin;  // this entry's cyclic corrections: corrections_[corrBegin, corrEnd)
    int corrEnd;
  };
  // Cyclic correction of Alg. 3 lines 8–16 for entry (i, c1) by an earlier child c2 of i that is
  // also a child of c1: F_{i,c1} −= L_{i,c2} D_{c2} U_{c2,c1}; F_{c1,i} −= L_{c1,c2} D_{c2} U_{c2,i}.
  struct Correction {
    int c2;         // node c2
    int blockIC2;   // (i, c2): L
    int blockC2I;   // (c2, i): U
    int blockC2C1;  // (c2, c1): U
    int blockC1C2;  // (c1, c2): L
  };
  // One (node i, parent p) entry for the backward pass of Alg. 4.
  struct ParentEntry {
    int parent;   // node p
    int blockIP;  // block (i, p): U after factor()
  };

  EliminationOrder order_;
  Lower lower_ = Lower::L;
  std::vector<Mat6, Eigen::aligned_allocator<Mat6>> diag_, dinv_, off_;
  std::vector<char> trivial_;  // per node: setTrivial()
  const int* active_ = nullptr;  // restrictTo(): the nodes worked on (nullptr: all, in list order)
  int activeCount_ = 0;
  // The nodes factor() and solve() work on, in elimination order.
  const int* listBegin() const { return active_ ? active_ : order_.list.data(); }
  const int* listEnd() const { return active_ ? active_ + activeCount_ : order_.list.data() + order_.list.size(); }
  // CSR layout: node i's child entries are children_[childStart_[i], childStart_[i+1]), likewise
  // for parents.
  std::vector<int> childStart_, parentStart_;
  std::vector<ChildEntry> children_;
  std::vector<int> fillInBlocks_;  // block indices of both directions of every fill-in pair
  std::vector<ParentEntry> parents_;
  std::vector<Correction> corrections_;
  // blockIndex() and the blocks of each row.
  GraphBlockIndex index_;
  // The blocks of each row without the fill-in blocks (zero until factor()), for multiply():
  // row i is products_[productStart_[i], productStart_[i + 1]), (column node, block index).
  std::vector<int> productStart_;
  std::vector<GraphBlockIndex::Entry> products_;
};

// Fast inverse of a 6×6 block. A contact node's pivot [a, 0…; μ, b, −1ᵀ; 0, 1, diag(d)]
// (a, b, d > 0) is inverted in closed form; any other block by diagonal equilibration, then a 2×2
// block Schur complement with closed-form 3×3 inverses. When its error estimate is large the result
// is verified by its residual and refined once, and when a 3×3 pivot is (nearly) singular or the
// residual is large it falls back to full-pivoting LU. Returns false if singular or non-finite.
bool invert6(const Mat6& a, Mat6& inv);

}  // namespace ms
