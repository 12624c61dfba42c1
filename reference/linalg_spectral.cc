// Reference kernels for the spectral decompositions and what builds on them:
// linalg_eigh/eigvalsh (cyclic two-sided Jacobi), linalg_svd, svd and
// linalg_svdvals (cyclic one-sided Jacobi), linalg_pinv and pinverse,
// linalg_matrix_rank, linalg_cond and matrix_exp, in double a matrix at a
// time, each Jacobi run until the off-diagonal part vanishes. Vector signs
// are Jacobi's, not LAPACK's (both are valid); tolerances follow torch's
// get_atol_rtol (aten/src/ATen/native/LinearAlgebra.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/linalg_support.h"
#include "reference/registry.h"
#include "reference/spectral_support.h"

namespace pt2onnx::reference {

namespace {
// c, s of the rotation [[c, s], [-s, c]] that diagonalizes [[app, apq], [apq, aqq]].
std::pair<double, double> Rotation(double app, double aqq, double apq) {
  const double tau = (aqq - app) / (2 * apq);
  const double t = (tau >= 0 ? 1.0 : -1.0) / (std::fabs(tau) + std::sqrt(1 + tau * tau));
  const double c = 1 / std::sqrt(1 + t * t);
  return {c, t * c};
}
}  // namespace

// Eigenvalues ascending and eigenvectors (columns of vecs, n x n row-major)
// of the symmetric a (n x n row-major, destroyed).
void EighOne(std::vector<double>& a, int64_t n, std::vector<double>& vals, std::vector<double>& vecs) {
  std::vector<double> v(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0 || std::fabs(apq) <= 1e-300) continue;
        const double small = 1e-18 * std::sqrt(std::fabs(a[p * n + p] * a[q * n + q]));
        if (std::fabs(apq) < small) {
          a[p * n + q] = a[q * n + p] = 0;
          continue;
        }
        rotated = true;
        auto [c, s] = Rotation(a[p * n + p], a[q * n + q], apq);
        for (int64_t r = 0; r < n; ++r) {  // A <- A J
          const double ap = a[r * n + p], aq = a[r * n + q];
          a[r * n + p] = c * ap - s * aq;
          a[r * n + q] = s * ap + c * aq;
        }
        for (int64_t r = 0; r < n; ++r) {  // A <- J^T A
          const double ap = a[p * n + r], aq = a[q * n + r];
          a[p * n + r] = c * ap - s * aq;
          a[q * n + r] = s * ap + c * aq;
        }
        for (int64_t r = 0; r < n; ++r) {
          const double vp = v[r * n + p], vq = v[r * n + q];
          v[r * n + p] = c * vp - s * vq;
          v[r * n + q] = s * vp + c * vq;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return a[x * n + x] < a[y * n + y]; });
  vals.assign(n, 0.0);
  vecs.assign(n * n, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    vals[j] = a[order[j] * n + order[j]];
    for (int64_t r = 0; r < n; ++r) vecs[r * n + j] = v[r * n + order[j]];
  }
}

// One-sided Jacobi on the columns of a (m x n, m >= n).
namespace {
SvdResult SvdTall(std::vector<double> w, int64_t m, int64_t n) {
  std::vector<double> v(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double app = 0, aqq = 0, apq = 0;
        for (int64_t r = 0; r < m; ++r) {
          app += w[r * n + p] * w[r * n + p];
          aqq += w[r * n + q] * w[r * n + q];
          apq += w[r * n + p] * w[r * n + q];
        }
        if (apq == 0 || std::fabs(apq) <= 1e-17 * std::sqrt(app * aqq)) continue;
        rotated = true;
        auto [c, s] = Rotation(app, aqq, apq);
        for (int64_t r = 0; r < m; ++r) {
          const double wp = w[r * n + p], wq = w[r * n + q];
          w[r * n + p] = c * wp - s * wq;
          w[r * n + q] = s * wp + c * wq;
        }
        for (int64_t r = 0; r < n; ++r) {
          const double vp = v[r * n + p], vq = v[r * n + q];
          v[r * n + p] = c * vp - s * vq;
          v[r * n + q] = s * vp + c * vq;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> norms(n, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t r = 0; r < m; ++r) norms[j] += w[r * n + j] * w[r * n + j];
    norms[j] = std::sqrt(norms[j]);
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  SvdResult out;
  out.s.resize(n);
  out.u.assign(m * n, 0.0);
  out.v.assign(n * n, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t o = order[j];
    out.s[j] = norms[o];
    for (int64_t r = 0; r < m; ++r) out.u[r * n + j] = norms[o] > 0 ? w[r * n + o] / norms[o] : 0;
    for (int64_t r = 0; r < n; ++r) out.v[r * n + j] = v[r * n + o];
  }
  return out;
}
}  // namespace

SvdResult SvdOne(const double* a, int64_t m, int64_t n) {
  if (m >= n) return SvdTall(std::vector<double>(a, a + m * n), m, n);
  std::vector<double> t(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) t[j * m + i] = a[i * n + j];
  }
  SvdResult r = SvdTall(std::move(t), n, m);
  std::swap(r.u, r.v);
  return r;
}

namespace {


// The matrix of the UPLO triangle mirrored.
std::vector<double> Mirrored(const double* a, int64_t n, bool lower) {
  std::vector<double> s(n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool own = lower ? i >= j : i <= j;
      s[i * n + j] = own ? a[i * n + j] : a[j * n + i];
    }
  }
  return s;
}

absl::StatusOr<Mats> Square(const RefCall& call, const Tensor& t, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(Mats m, ReadMats(call, t, name));
  if (m.rows != m.cols) return call.Invalid(absl::StrCat(name, " must be batches of square matrices"));
  return m;
}

Mats Shaped(const Dims& batch, int64_t rows, int64_t cols) {
  Mats m;
  m.batch = batch;
  m.rows = rows;
  m.cols = cols;
  m.v.assign(m.count() * rows * cols, 0.0);
  return m;
}

absl::Status SetVector(RefCall& call, DataType dtype, const Dims& batch, int64_t k,
                       const std::vector<double>& v) {
  Dims d = batch;
  d.push_back(k);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype, d, v));
  return call.SetTensor(std::move(t));
}

// aten::linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)
// aten::linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor
absl::Status LinalgEigh(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, Square(call, t, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string uplo, call.String("UPLO"));
  if (uplo != "L" && uplo != "l" && uplo != "U" && uplo != "u") {
    return call.Invalid("Expected UPLO argument to be 'L' or 'U'");
  }
  const int64_t n = a.rows;
  std::vector<double> values;
  Mats vectors = Shaped(a.batch, n, n);
  for (int64_t b = 0; b < a.count(); ++b) {
    std::vector<double> s = Mirrored(a.at(b), n, uplo == "L" || uplo == "l"), vals, vecs;
    EighOne(s, n, vals, vecs);
    values.insert(values.end(), vals.begin(), vals.end());
    std::copy(vecs.begin(), vecs.end(), vectors.at(b));
  }
  PT2ONNX_RETURN_IF_ERROR(SetVector(call, t.dtype(), a.batch, n, values));
  if (call.key() == "aten::linalg_eigh.default") return SetMats(call, t.dtype(), vectors);
  return absl::OkStatus();
}

// aten::linalg_matrix_sqrth(Tensor self) -> Tensor
// V diag(sqrt(w)) V^T of the lower triangle (unique for a positive-definite A).
absl::Status LinalgMatrixSqrth(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, Square(call, t, "self"));
  const int64_t n = a.rows;
  Mats root = Shaped(a.batch, n, n);
  for (int64_t b = 0; b < a.count(); ++b) {
    std::vector<double> s = Mirrored(a.at(b), n, true), vals, vecs;
    EighOne(s, n, vals, vecs);
    double* x = root.at(b);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += vecs[i * n + k] * std::sqrt(vals[k]) * vecs[j * n + k];
        x[i * n + j] = sum;
      }
    }
  }
  return SetMats(call, t.dtype(), root);
}

struct BatchSvd {
  Mats u, v;  // u (m, k), v (n, k)
  std::vector<double> s;
};

BatchSvd SvdOfBatch(const Mats& a) {
  const int64_t k = std::min(a.rows, a.cols);
  BatchSvd out{Shaped(a.batch, a.rows, k), Shaped(a.batch, a.cols, k), {}};
  Mats copy = a;
  for (int64_t b = 0; b < a.count(); ++b) {
    SvdResult r = SvdOne(copy.at(b), a.rows, a.cols);
    std::copy(r.u.begin(), r.u.end(), out.u.at(b));
    std::copy(r.v.begin(), r.v.end(), out.v.at(b));
    out.s.insert(out.s.end(), r.s.begin(), r.s.end());
  }
  return out;
}

Mats Identities(const Dims& batch, int64_t n) {
  Mats m = Shaped(batch, n, n);
  for (int64_t b = 0; b < m.count(); ++b) {
    for (int64_t i = 0; i < n; ++i) m.at(b)[i * n + i] = 1;
  }
  return m;
}

// U, S, V (not transposed); full: the square bases (only where nothing needs completing).
absl::Status Svd(RefCall& call, const Tensor& t, bool full, bool transpose_v) {
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "A"));
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  BatchSvd r = SvdOfBatch(a);
  if (full && m != n) {
    if (k > 0) return call.Unsupported("full_matrices=True of a non-square matrix (the orthonormal completion is not implemented)");
    r.u = Identities(a.batch, m);
    r.v = Identities(a.batch, n);
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), r.u));
  PT2ONNX_RETURN_IF_ERROR(SetVector(call, t.dtype(), a.batch, k, r.s));
  return SetMats(call, t.dtype(), transpose_v ? Transposed(r.v) : r.v);
}

// aten::linalg_polar(Tensor A) -> (Tensor U, Tensor H)
// U = W V^T and H = V S V^T from the thin SVD A = W S V^T, m >= n.
absl::Status LinalgPolar(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("A"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "A"));
  const int64_t m = a.rows, n = a.cols;
  if (m < n) return call.Invalid("linalg.polar: input must have at least as many rows as columns");
  BatchSvd r = SvdOfBatch(a);
  Mats u = Shaped(a.batch, m, n), h = Shaped(a.batch, n, n);
  for (int64_t b = 0; b < a.count(); ++b) {
    const double* w = r.u.at(b);
    const double* v = r.v.at(b);
    const double* s = r.s.data() + b * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += w[i * n + k] * v[j * n + k];
        u.at(b)[i * n + j] = sum;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += v[i * n + k] * s[k] * v[j * n + k];
        h.at(b)[i * n + j] = sum;
      }
    }
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), u));
  return SetMats(call, t.dtype(), h);
}

// aten::linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)
absl::Status LinalgSvd(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("A"));
  PT2ONNX_ASSIGN_OR_RETURN(bool full, call.Bool("full_matrices"));
  return Svd(call, t, full, true);
}

// aten::svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)
absl::Status SvdOld(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(bool some, call.Bool("some"));
  PT2ONNX_ASSIGN_OR_RETURN(bool compute_uv, call.Bool("compute_uv"));
  if (compute_uv) return Svd(call, t, !some, false);
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "self"));
  BatchSvd r = SvdOfBatch(a);
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), Shaped(a.batch, a.rows, a.rows)));
  PT2ONNX_RETURN_IF_ERROR(SetVector(call, t.dtype(), a.batch, std::min(a.rows, a.cols), r.s));
  return SetMats(call, t.dtype(), Shaped(a.batch, a.cols, a.cols));
}

// aten::linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor
absl::Status LinalgSvdvals(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("A"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "A"));
  return SetVector(call, t.dtype(), a.batch, std::min(a.rows, a.cols), SvdOfBatch(a).s);
}

}  // namespace

void RegisterLinalgSpectralRef(RefRegistry& r) {
  r.Add("aten::linalg_eigh.default", LinalgEigh);
  r.Add("aten::linalg_eigvalsh.default", LinalgEigh);
  r.Add("aten::linalg_svd.default", LinalgSvd);
  r.Add("aten::linalg_matrix_sqrth.default", LinalgMatrixSqrth);
  r.Add("aten::linalg_polar.default", LinalgPolar);
  r.Add("aten::svd.default", SvdOld);
  r.Add("aten::linalg_svdvals.default", LinalgSvdvals);
}

}  // namespace pt2onnx::reference
