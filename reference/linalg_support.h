// Shared helpers of the reference linear solvers (linalg_solvers.cc,
// linalg_lu.cc): batches of matrices in doubles, LU as LAPACK's getrf
// computes it (first largest |value| of the column as pivot, 1-based pivots,
// a zero pivot recorded in info and its column left as is) and substitution
// in trsm's column order.
#ifndef PT2ONNX_REFERENCE_LINALG_SUPPORT_H_
#define PT2ONNX_REFERENCE_LINALG_SUPPORT_H_

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reference/kernel_support.h"

namespace pt2onnx::reference {

// A batch of row-major (rows, cols) matrices in doubles.
struct Mats {
  Dims batch;
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  int64_t count() const {
    int64_t c = 1;
    for (int64_t d : batch) c *= d;
    return c;
  }
  double* at(int64_t b) { return v.data() + b * rows * cols; }
  Dims dims() const {
    Dims d = batch;
    d.push_back(rows);
    d.push_back(cols);
    return d;
  }
};

absl::StatusOr<Mats> ReadMats(const RefCall& call, const Tensor& t, absl::string_view what);
// `m` repeated over the broadcast batch `batch`.
Mats ExpandBatch(const Mats& m, const Dims& batch);
absl::StatusOr<std::pair<Mats, Mats>> Broadcast2(const Mats& a, const Mats& b);
Mats Transposed(const Mats& m);

struct Lu {
  std::vector<int64_t> pivots;  // 1-based
  int64_t info = 0;
  double sign = 1, log_abs = 0;
};

// getrf on one row-major (m, n) matrix in place.
Lu Factor(double* a, int64_t m, int64_t n);
// Solves T X = B in place for the (n, n) triangle of T read through tr(i, j),
// X (n, r) row-major.
void TriSolve(const std::function<double(int64_t, int64_t)>& tr, double* x, int64_t n, int64_t r,
              bool lower, bool unit);
// Applies (forward) or undoes LAPACK's 1-based row interchanges on x (n, r).
void Swap(double* x, int64_t r, const int64_t* pivots, int64_t k, bool forward);
// X with A X = B (adjoint: A^T X = B) from A's packed LU (n, n), in place.
void LuSolveOne(const double* lu, const int64_t* pivots, double* x, int64_t n, int64_t r,
                bool adjoint);
absl::Status SetMats(RefCall& call, DataType dtype, const Mats& m);
absl::Status SetInts(RefCall& call, DataType dtype, const Dims& dims,
                     const std::vector<int64_t>& v);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_LINALG_SUPPORT_H_
