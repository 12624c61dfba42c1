// Shared helpers of the reference linear solvers; see linalg_support.h.
#include "reference/linalg_support.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {


absl::StatusOr<Mats> ReadMats(const RefCall& call, const Tensor& t, absl::string_view what) {
  if (t.rank() < 2) return call.Invalid(absl::StrCat(what, " must have at least 2 dimensions"));
  if (!IsFloatLike(t.dtype())) return call.Invalid(absl::StrCat(what, " must be floating point"));
  Mats m;
  m.batch.assign(t.dims().begin(), t.dims().end() - 2);
  m.rows = t.dims()[t.rank() - 2];
  m.cols = t.dims()[t.rank() - 1];
  m.v = ToDoubles(t);
  return m;
}

// `m` repeated over the broadcast batch `batch`.
Mats ExpandBatch(const Mats& m, const Dims& batch) {
  Mats out;
  out.batch = batch;
  out.rows = m.rows;
  out.cols = m.cols;
  const int64_t size = m.rows * m.cols;
  for (int64_t src : BroadcastIndices(m.batch, batch)) {
    out.v.insert(out.v.end(), m.v.begin() + src * size, m.v.begin() + (src + 1) * size);
  }
  return out;
}

absl::StatusOr<std::pair<Mats, Mats>> Broadcast2(const Mats& a, const Mats& b) {
  PT2ONNX_ASSIGN_OR_RETURN(Dims batch, BroadcastDims(a.batch, b.batch));
  return std::make_pair(ExpandBatch(a, batch), ExpandBatch(b, batch));
}

Mats Transposed(const Mats& m) {
  Mats t = m;
  std::swap(t.rows, t.cols);
  for (int64_t b = 0; b < m.count(); ++b) {
    for (int64_t i = 0; i < m.rows; ++i) {
      for (int64_t j = 0; j < m.cols; ++j) {
        t.v[b * m.rows * m.cols + j * m.rows + i] = m.v[b * m.rows * m.cols + i * m.cols + j];
      }
    }
  }
  return t;
}


// getrf on one (m, n) matrix in place.
Lu Factor(double* a, int64_t m, int64_t n) {
  Lu r;
  for (int64_t k = 0; k < std::min(m, n); ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < m; ++i) {
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    }
    r.pivots.push_back(p + 1);
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      r.sign = -r.sign;
    }
    const double pivot = a[k * n + k];
    r.sign *= pivot > 0 ? 1 : (pivot < 0 ? -1 : 0);
    r.log_abs += std::log(std::fabs(pivot));
    if (pivot == 0) {
      if (r.info == 0) r.info = k + 1;
      continue;
    }
    const double recip = 1 / pivot;
    for (int64_t i = k + 1; i < m; ++i) {
      a[i * n + k] *= recip;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= a[i * n + k] * a[k * n + j];
    }
  }
  return r;
}

// Solves T X = B in place for the (n, n) triangle of t (read through
// `tr(i, j)`), B (n, r): column-wise substitution as trsm.
void TriSolve(const std::function<double(int64_t, int64_t)>& tr, double* x, int64_t n, int64_t r,
              bool lower, bool unit) {
  for (int64_t step = 0; step < n; ++step) {
    const int64_t k = lower ? step : n - 1 - step;
    for (int64_t c = 0; c < r; ++c) {
      if (!unit) x[k * r + c] /= tr(k, k);
      for (int64_t i = lower ? k + 1 : 0; i < (lower ? n : k); ++i) {
        x[i * r + c] -= x[k * r + c] * tr(i, k);
      }
    }
  }
}

// Applies LAPACK's 1-based row interchanges to x (n, r), forward or undone.
void Swap(double* x, int64_t r, const int64_t* pivots, int64_t k, bool forward) {
  for (int64_t s = 0; s < k; ++s) {
    const int64_t i = forward ? s : k - 1 - s;
    const int64_t p = pivots[i] - 1;
    if (p != i) {
      for (int64_t c = 0; c < r; ++c) std::swap(x[i * r + c], x[p * r + c]);
    }
  }
}

// X with A X = B (or A^T X = B) from A's packed LU (n, n), in place in x.
void LuSolveOne(const double* lu, const int64_t* pivots, double* x, int64_t n, int64_t r,
                bool adjoint) {
  auto plain = [&](int64_t i, int64_t j) { return lu[i * n + j]; };
  auto flipped = [&](int64_t i, int64_t j) { return lu[j * n + i]; };
  if (!adjoint) {
    Swap(x, r, pivots, n, true);
    TriSolve(plain, x, n, r, true, true);
    TriSolve(plain, x, n, r, false, false);
  } else {
    TriSolve(flipped, x, n, r, true, false);
    TriSolve(flipped, x, n, r, false, true);
    Swap(x, r, pivots, n, false);
  }
}

absl::Status SetMats(RefCall& call, DataType dtype, const Mats& m) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype, m.dims(), m.v));
  return call.SetTensor(std::move(t));
}

absl::Status SetInts(RefCall& call, DataType dtype, const Dims& dims,
                     const std::vector<int64_t>& v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(dtype, dims, v));
  return call.SetTensor(std::move(t));
}


}  // namespace pt2onnx::reference
