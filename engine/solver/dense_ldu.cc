// SPDX-License-Identifier: GPL-3.0-or-later
// Dense block LDU reference (Brüdigam et al. 2023, §4): the block LDU decomposition that
// Algorithms 1/3 perform sparsely, here right-looking on the full permuted matrix
// (A_jk ← A_jk − L_ji D_i U_ik for all j, k after i), then the two triangular passes of
// Algorithms 2/4. No pivoting beyond inverting each diagonal block.
#include "solver/dense_ldu.h"

#include <Eigen/LU>

#include "core/check.h"

namespace ms {

bool denseBlockLDUSolve(const MatX& A, const std::vector<int>& list, int blockSize, const VecX& b, VecX& x) {
  const int bs = blockSize;
  MS_ASSERT(bs > 0 && A.rows() == A.cols() && A.rows() % bs == 0, "A must be square, a multiple of blockSize");
  const int nb = static_cast<int>(A.rows() / bs);
  const int dim = nb * bs;
  MS_ASSERT(static_cast<int>(list.size()) == nb && b.size() == dim, "list / b size mismatch");

  // Permute A and b to list order: new block k is old block list[k].
  MatX F(dim, dim);
  VecX y(dim);
  for (int r = 0; r < nb; ++r) {
    y.segment(r * bs, bs) = b.segment(list[r] * bs, bs);
    for (int c = 0; c < nb; ++c) F.block(r * bs, c * bs, bs, bs) = A.block(list[r] * bs, list[c] * bs, bs, bs);
  }

  // Right-looking block LDU in place: F_kk ← D_k, column below ← L, row right ← U.
  std::vector<MatX> dinv(nb);
  for (int k = 0; k < nb; ++k) {
    const int o = k * bs, rest = dim - o - bs;
    Eigen::FullPivLU<MatX> lu(F.block(o, o, bs, bs));
    if (!lu.isInvertible()) return false;
    dinv[k] = lu.inverse();
    if (rest == 0) break;
    // L = F_{below,k} D_k⁻¹; Schur update of the trailing matrix with L (D_k U_k,right) = L F_{k,right}.
    MatX L = F.block(o + bs, o, rest, bs) * dinv[k];
    F.bottomRightCorner(rest, rest).noalias() -= L * F.block(o, o + bs, bs, rest);
    F.block(o + bs, o, rest, bs) = L;
    // U = D_k⁻¹ F_{k,right}.
    F.block(o, o + bs, bs, rest) = dinv[k] * F.block(o, o + bs, bs, rest);
  }

  // Forward pass: y_k −= Σ_{j<k} L_kj y_j.
  for (int k = 1; k < nb; ++k) y.segment(k * bs, bs).noalias() -= F.block(k * bs, 0, bs, k * bs) * y.head(k * bs);
  // Backward pass: z_k = D_k⁻¹ y_k − Σ_{j>k} U_kj z_j.
  VecX z(dim);
  for (int k = nb - 1; k >= 0; --k) {
    const int o = k * bs, rest = dim - o - bs;
    VecX zk = dinv[k] * y.segment(o, bs);
    if (rest > 0) zk.noalias() -= F.block(o, o + bs, bs, rest) * z.tail(rest);
    z.segment(o, bs) = zk;
  }

  // Un-permute the solution to node order.
  x.resize(dim);
  for (int r = 0; r < nb; ++r) x.segment(list[r] * bs, bs) = z.segment(r * bs, bs);
  return x.allFinite();
}

}  // namespace ms
