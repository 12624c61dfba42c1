// Reference kernels for Cholesky: linalg_cholesky(_ex), cholesky_solve and
// cholesky_inverse, on the lower triangle of A (upper=True returns L^T), in
// double a matrix at a time. linalg_cholesky raises where torch does (a
// matrix that is not positive definite); _ex reports the first failing
// column in info and, as LAPACK's potrf, leaves that column on unfactored.
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/linalg_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// potrf (lower, left-looking) on one (n, n) matrix in place; returns info.
int64_t CholeskyOne(double* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int64_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return j + 1;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) v -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = v / d;
    }
  }
  return 0;
}

absl::StatusOr<Mats> Square(const RefCall& call, const Tensor& t, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(Mats m, ReadMats(call, t, name));
  if (m.rows != m.cols) return call.Invalid(absl::StrCat(name, " must be batches of square matrices"));
  return m;
}

// aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor
// aten::linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False)
//     -> (Tensor L, Tensor info)
absl::Status LinalgCholesky(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, Square(call, t, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, call.Bool("upper"));
  const bool ex = call.key() == "aten::linalg_cholesky_ex.default";
  const int64_t n = a.rows;
  std::vector<int64_t> infos;
  for (int64_t b = 0; b < a.count(); ++b) {
    double* m = a.at(b);
    const int64_t info = CholeskyOne(m, n);
    if (info > 0 && !ex) {
      return call.Invalid(absl::StrCat("linalg.cholesky: The factorization could not be completed "
                                       "because the input is not positive-definite (the leading "
                                       "minor of order ", info, " is not positive-definite)."));
    }
    infos.push_back(info);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) m[i * n + j] = 0;
    }
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), upper ? Transposed(a) : a));
  if (ex) return SetInts(call, DataType::kInt32, a.batch, infos);
  return absl::OkStatus();
}

// X with (F F^T) X = B for lower F, (F^T F) X = B for upper F; batches broadcast.
absl::StatusOr<Mats> CholeskySolveMats(const RefCall& call, const Mats& f, const Mats& b,
                                       bool upper) {
  if (b.rows != f.rows) return call.Invalid("cholesky_solve: Incompatible matrix sizes");
  PT2ONNX_ASSIGN_OR_RETURN(auto both, Broadcast2(f, b));
  const int64_t n = f.rows;
  for (int64_t i = 0; i < both.first.count(); ++i) {
    const double* m = both.first.at(i);
    auto plain = [&](int64_t r, int64_t c) { return m[r * n + c]; };
    auto flipped = [&](int64_t r, int64_t c) { return m[c * n + r]; };
    double* x = both.second.at(i);
    if (upper) {
      TriSolve(flipped, x, n, b.cols, true, false);
      TriSolve(plain, x, n, b.cols, false, false);
    } else {
      TriSolve(plain, x, n, b.cols, true, false);
      TriSolve(flipped, x, n, b.cols, false, false);
    }
  }
  return both.second;
}

// aten::cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor
absl::Status CholeskySolve(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tb, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tf, call.Input("input2"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats b, ReadMats(call, tb, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats f, Square(call, tf, "input2"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, call.Bool("upper"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats x, CholeskySolveMats(call, f, b, upper));
  return SetMats(call, tb.dtype(), x);
}

// aten::cholesky_inverse(Tensor self, bool upper=False) -> Tensor
absl::Status CholeskyInverse(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tf, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats f, Square(call, tf, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool upper, call.Bool("upper"));
  Mats eye;
  eye.batch = f.batch;
  eye.rows = eye.cols = f.rows;
  eye.v.assign(f.v.size(), 0.0);
  for (int64_t b = 0; b < f.count(); ++b) {
    for (int64_t i = 0; i < f.rows; ++i) eye.at(b)[i * f.rows + i] = 1;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Mats x, CholeskySolveMats(call, f, eye, upper));
  return SetMats(call, tf.dtype(), x);
}

}  // namespace

void RegisterLinalgCholeskyRef(RefRegistry& r) {
  r.Add("aten::linalg_cholesky.default", LinalgCholesky);
  r.Add("aten::linalg_cholesky_ex.default", LinalgCholesky);
  r.Add("aten::cholesky_solve.default", CholeskySolve);
  r.Add("aten::cholesky_inverse.default", CholeskyInverse);
}

}  // namespace pt2onnx::reference
