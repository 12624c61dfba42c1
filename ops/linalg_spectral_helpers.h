// File: ops/linalg_spectral_helpers.h
// -----------------------------------------------------------------------------
// Symmetric eigendecomposition and SVD in plain ONNX ops, by Jacobi
// rotations, for static matrix sizes up to kMaxUnrolledSize
// (ops/linalg_unrolled_helpers.h). Both run in float64 whatever the input
// dtype (float32 results then carry float64 accuracy, well inside the
// float32 tolerance of a comparison with LAPACK) and are cast back by the
// caller.
//
// Rotation order: the pairs (p, q) of a sweep are scheduled round-robin
// (the circle method), floor(n/2) disjoint pairs a round and n - 1 rounds
// (n rounds for odd n) a sweep, so a round is a single n x n rotation
// matrix J and a round of two-sided Jacobi is A <- J^T A J, of one-sided
// Jacobi W <- W J. The rounds run as an ONNX Loop of sweeps * rounds
// iterations whose body is some forty nodes whatever n; unrolling the
// rotations instead would give sweeps * n^2 / 2 rotation steps (over
// 100,000 nodes at n = 32). The sweep count is fixed (kJacobiSweeps):
// Jacobi converges quadratically once the off-diagonal part is small, and
// the bound below leaves float64 rounding as the only error for n <= 32
// (rotations past convergence have t ~ 0 and change nothing).
//
// Example:
//   SymmetricEigen e = JacobiEigh(ctx, a, n, rank);  // a float64 (..., n, n), symmetric
//   // e.values (..., n) ascending, e.vectors (..., n, n) columns
#ifndef PT2ONNX_OPS_LINALG_SPECTRAL_HELPERS_H_
#define PT2ONNX_OPS_LINALG_SPECTRAL_HELPERS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// Sweeps of every Jacobi loop.
inline constexpr int64_t kJacobiSweeps = 12;

struct SymmetricEigen {
  std::string values;   // (..., n) float64, ascending as LAPACK's syevd
  std::string vectors;  // (..., n, n) float64, orthonormal columns in that order
};

// Two-sided cyclic Jacobi on each (n, n) matrix of `a` (float64, assumed
// symmetric: only the rotated pairs' entries are read), n >= 1. With
// `empty_batch` (a static zero batch dim) no Loop is emitted: ONNX Runtime's
// Loop mishandles carried values with no elements.
SymmetricEigen JacobiEigh(TranslateContext& ctx, const std::string& a, int64_t n, int64_t rank,
                          bool empty_batch = false);

struct ThinSvd {
  std::string u;  // (..., m, k) float64; a column for a zero singular value is zero
  std::string s;  // (..., k) float64, descending
  std::string v;  // (..., n, k) float64 (V, not V^T)
};

// One-sided (Hestenes) Jacobi on the columns of `a` (float64, (..., m, n),
// m, n >= 1), k = min(m, n): a wide matrix is decomposed through its
// transpose. With `vectors` false only s is set.
ThinSvd JacobiSvd(TranslateContext& ctx, const std::string& a, int64_t m, int64_t n, int64_t rank,
                  bool vectors, bool empty_batch = false);

// Batch dims unknown, the last two static: a carried matrix's dims.
std::vector<ir::Dim> MatrixDims(int64_t rank, int64_t rows, int64_t cols);

using LoopBody = std::function<std::vector<std::string>(const std::string& iteration,
                                                        const std::vector<std::string>& carried)>;

// An ONNX Loop of `trips` (0-d INT64 value) iterations carrying float64
// values `init` of dims `dims[i]`; the body is the nodes `body` emits, given
// the iteration number and the carried values, returning their next values.
std::vector<std::string> RunLoop(TranslateContext& ctx, const std::string& trips,
                                 const std::vector<std::string>& init,
                                 const std::vector<std::vector<ir::Dim>>& dims, const LoopBody& body);

// Reads `arg` as a batch of static (rows, cols) matrices (kMaxUnrolledSize
// at most) of float32 or float64, cast to float64; the input dtype is
// returned in `dtype`.
struct SpectralInput {
  std::string a;  // float64
  DataType dtype = DataType::kFloat;
  int64_t rows = 0, cols = 0, rank = 0;
  bool empty_batch = false;  // a static batch dim is 0
};
absl::StatusOr<SpectralInput> ReadSpectralInput(TranslateContext& ctx, absl::string_view arg);

// `a` (no elements, or as many as the new shape) reshaped to its batch + `tail`.
std::string ReshapeLast(TranslateContext& ctx, const std::string& a, std::vector<int64_t> tail);

// An empty (..., 0) vector of the batch of the empty matrices `a` (..., m, n).
std::string EmptyVector(TranslateContext& ctx, const std::string& a);

// The singular values (..., min(m, n)) float64, descending, of the float64
// batch `a`; an empty matrix gives an empty vector.
std::string SingularValuesOf(TranslateContext& ctx, const std::string& a, int64_t m, int64_t n,
                             int64_t rank, bool empty_batch = false);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_LINALG_SPECTRAL_HELPERS_H_
