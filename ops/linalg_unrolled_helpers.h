// File: ops/linalg_unrolled_helpers.h
// -----------------------------------------------------------------------------
// Building blocks for the linear-algebra solvers ONNX lacks (it only has Det):
// each is unrolled into plain ONNX ops over the batch, one step a row or
// column, so the matrix size must be static and at most kMaxUnrolledSize
// (larger or symbolic sizes are refused). Each step is some thirty nodes, so
// a 32x32 inverse is about 1,100 nodes after optimization (converted in about
// a second); beyond that the graph, not the arithmetic, becomes the cost.
//
// LU follows LAPACK's getrf: partial pivoting on the first largest |value| of
// the column (so pivots and factors match torch's), multipliers scaled by the
// pivot's reciprocal, a zero pivot leaving its column as is. Substitutions
// follow trsm's column order (divide, then update the remaining rows).
#ifndef PT2ONNX_OPS_LINALG_UNROLLED_HELPERS_H_
#define PT2ONNX_OPS_LINALG_UNROLLED_HELPERS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// Largest static matrix size the unrolled solvers accept.
inline constexpr int64_t kMaxUnrolledSize = 32;

// The static (rows, cols) of tensor argument `arg`, a batch of matrices;
// Unsupported when either is symbolic or above kMaxUnrolledSize.
absl::StatusOr<std::pair<int64_t, int64_t>> StaticMatrixDims(TranslateContext& ctx,
                                                             absl::string_view arg);

// Swaps the last two axes of a rank-`rank` value.
std::string TransposeLast2(TranslateContext& ctx, const std::string& x, int64_t rank);

// Expands `values` (each a batch of matrices, ranks >= 2) to their common
// broadcast batch, keeping each one's trailing two dims.
std::vector<std::string> BroadcastBatch(TranslateContext& ctx, std::vector<std::string> values);

// The batch shape (all but the last two dims) of `x` as a 1-D INT64 value.
std::string BatchShape(TranslateContext& ctx, const std::string& x);

struct UnrolledLu {
  std::string lu;        // (..., m, n + extra): packed L\U, then the transformed extra columns
  std::string pivots;    // (..., min(m, n)) INT64, 1-based (empty when min(m, n) == 0)
  std::string perm;      // (..., m, 1) INT64: row i of the pivoted matrix is original row perm[i]
  std::string info;      // (...) INT32: 1-based index of the first zero pivot, else 0
  std::string det_sign;  // (..., 1, 1) dtype: sign of det (swaps and pivot signs)
  std::string log_abs;   // (..., 1, 1) dtype: sum of log|pivot|
};

// LU with partial pivoting of the leading (m, n) block of `a`
// (..., m, n + extra): the trailing `extra` columns are carried along
// (swapped and eliminated as getrs's forward substitution would), so a
// right-hand side appended there comes out as L^-1 P^T b.
UnrolledLu LuFactor(TranslateContext& ctx, const std::string& a, int64_t m, int64_t n,
                    int64_t extra, DataType dtype);

// Solves T x = b for the triangular (n, n) part of `t` (broadcast batch with
// b (..., n, r)), lower or upper, optionally with an implicit unit diagonal.
std::string TriangularSolve(TranslateContext& ctx, const std::string& t, const std::string& b,
                            int64_t n, bool lower, bool unit, DataType dtype);

// A constant BOOL (rows, cols) mask, mask[i][j] = pred(i, j).
std::string ConstantMask(TranslateContext& ctx, int64_t rows, int64_t cols,
                         const std::function<bool(int64_t, int64_t)>& pred);

// The row permutation (..., m, 1) INT64 that LAPACK's 1-based `pivots`
// (..., k) INT64 describe: row i of P^T A is row perm[i] of A.
std::string PermutationFromPivots(TranslateContext& ctx, const std::string& pivots, int64_t m,
                                  int64_t k);

// P (..., m, m) of `dtype` with A = P L U, from perm (..., m, 1).
std::string PermutationMatrix(TranslateContext& ctx, const std::string& perm, int64_t m,
                              DataType dtype);

struct UnrolledCholesky {
  std::string l;     // (..., n, n): lower factor, zeros above the diagonal
  std::string info;  // (...) INT32: 1-based index of the first non-positive pivot, else 0
};

// Cholesky A = L L^T of the lower triangle of each (n, n) matrix of `a`,
// column by column as potrf (the scale by the pivot's reciprocal). After a
// non-positive pivot the factor holds NaN (torch raises or reports info).
UnrolledCholesky CholeskyFactor(TranslateContext& ctx, const std::string& a, int64_t n,
                                DataType dtype);

struct SolvedSystem {
  std::string x;     // the solution
  std::string info;  // (...) INT32: getrf's info
};

// A x = b for a (..., n, n) and b (..., n, r), batches broadcast: LU of
// [A | b] (the forward substitution rides along), then back substitution.
SolvedSystem SolveSquare(TranslateContext& ctx, const std::string& a, const std::string& b,
                         int64_t n, int64_t r, DataType dtype);

// The inverse of each (n, n) matrix of `a`, and getrf's info.
SolvedSystem Inverse(TranslateContext& ctx, const std::string& a, int64_t n, DataType dtype);

// An (n, n) identity of `dtype` expanded to the batch shape `batch` (1-D INT64).
std::string BatchedEye(TranslateContext& ctx, int64_t n, const std::string& batch, DataType dtype);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_LINALG_UNROLLED_HELPERS_H_
