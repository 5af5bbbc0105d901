// SPDX-License-Identifier: GPL-3.0-or-later
// Dense block LDU reference for the graph-based sparse solver (Brüdigam et al. 2023, §4): the same
// unpivoted block elimination as Algorithms 1–4, but on the full matrix, O(n³). Used by tests and
// by the sparse-vs-dense benchmark.
#pragma once

#include <vector>

#include "core/types.h"

namespace ms {

// Solve A x = b by dense block LDU without pivoting, eliminating the blocks in `list` order.
// A is node-major: rows/cols blockSize·k .. blockSize·k + blockSize − 1 belong to node k;
// list is a permutation of 0..A.rows()/blockSize − 1. x is returned in the original (node)
// order. Returns false if a pivot block is singular or the result is non-finite.
bool denseBlockLDUSolve(const MatX& A, const std::vector<int>& list, int blockSize, const VecX& b, VecX& x);

}  // namespace ms
