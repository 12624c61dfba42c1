// Reference kernels for Householder QR: geqrf, linalg_qr and ormqr, in double a
// matrix at a time, with LAPACK's conventions (geqr2/larfg: the reflector
// maps column i to beta e_i, beta = -sign(alpha) * ||(alpha, x)||, tau = 0
// when x is zero; Q accumulated from the reflectors as org2r does).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/linalg_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// geqr2 on one (m, n) matrix in place; returns tau (min(m, n)).
std::vector<double> Geqr2(double* a, int64_t m, int64_t n) {
  const int64_t k = std::min(m, n);
  std::vector<double> tau(k, 0.0);
  for (int64_t i = 0; i < k; ++i) {
    const double alpha = a[i * n + i];
    double xnorm2 = 0;
    for (int64_t r = i + 1; r < m; ++r) xnorm2 += a[r * n + i] * a[r * n + i];
    if (xnorm2 == 0) continue;  // H = I
    const double norm = std::sqrt(alpha * alpha + xnorm2);
    const double beta = alpha < 0 ? norm : -norm;
    tau[i] = (beta - alpha) / beta;
    const double scale = 1 / (alpha - beta);
    for (int64_t r = i + 1; r < m; ++r) a[r * n + i] *= scale;
    a[i * n + i] = beta;
    // Columns right of i: A -= tau v (v^T A), v = (1, a[i+1:, i]).
    for (int64_t c = i + 1; c < n; ++c) {
      double dot = a[i * n + c];
      for (int64_t r = i + 1; r < m; ++r) dot += a[r * n + i] * a[r * n + c];
      a[i * n + c] -= tau[i] * dot;
      for (int64_t r = i + 1; r < m; ++r) a[r * n + c] -= tau[i] * a[r * n + i] * dot;
    }
  }
  return tau;
}

// aten::geqrf(Tensor self) -> (Tensor a, Tensor tau)
absl::Status Geqrf(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "self"));
  std::vector<double> taus;
  for (int64_t b = 0; b < a.count(); ++b) {
    std::vector<double> tau = Geqr2(a.at(b), a.rows, a.cols);
    taus.insert(taus.end(), tau.begin(), tau.end());
  }
  PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), a));
  Dims tdims = a.batch;
  tdims.push_back(std::min(a.rows, a.cols));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tau, FromDoubles(t.dtype(), tdims, taus));
  return call.SetTensor(std::move(tau));
}

// aten::linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)
absl::Status LinalgQr(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("A"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "A"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mode, call.String("mode"));
  if (mode != "reduced" && mode != "complete" && mode != "r") {
    return call.Invalid(absl::StrCat("qr received unrecognized mode '", mode,
                                     "' but expected one of 'reduced' (default), 'r', or 'complete'"));
  }
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const int64_t q_cols = mode == "complete" ? m : k, r_rows = mode == "complete" ? m : k;
  Mats q, r;
  q.batch = r.batch = a.batch;
  q.rows = m;
  q.cols = q_cols;
  r.rows = r_rows;
  r.cols = n;
  for (int64_t b = 0; b < a.count(); ++b) {
    double* f = a.at(b);
    const std::vector<double> tau = Geqr2(f, m, n);
    for (int64_t i = 0; i < r_rows; ++i) {
      for (int64_t j = 0; j < n; ++j) r.v.push_back(j >= i ? f[i * n + j] : 0);
    }
    std::vector<double> qm(m * q_cols, 0.0);
    for (int64_t i = 0; i < std::min(m, q_cols); ++i) qm[i * q_cols + i] = 1;
    for (int64_t i = k - 1; i >= 0; --i) {
      auto v = [&](int64_t row) { return row < i ? 0.0 : (row == i ? 1.0 : f[row * n + i]); };
      for (int64_t c = 0; c < q_cols; ++c) {
        double dot = 0;
        for (int64_t row = 0; row < m; ++row) dot += v(row) * qm[row * q_cols + c];
        for (int64_t row = 0; row < m; ++row) qm[row * q_cols + c] -= tau[i] * v(row) * dot;
      }
    }
    q.v.insert(q.v.end(), qm.begin(), qm.end());
  }
  if (mode == "r") {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor empty, FromDoubles(t.dtype(), {0}, {}));
    PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(empty)));
  } else {
    PT2ONNX_RETURN_IF_ERROR(SetMats(call, t.dtype(), q));
  }
  return SetMats(call, t.dtype(), r);
}

// aten::ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True,
//             bool transpose=False) -> Tensor
// op(Q) C or C op(Q), Q = H_1 ... H_k from the reflectors below self's
// diagonal and tau; batches must match.
absl::Status Ormqr(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tv, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tt, call.Input("input2"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor tc, call.Input("input3"));
  PT2ONNX_ASSIGN_OR_RETURN(bool left, call.Bool("left"));
  PT2ONNX_ASSIGN_OR_RETURN(bool transpose, call.Bool("transpose"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats v, ReadMats(call, tv, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats c, ReadMats(call, tc, "input3"));
  const int64_t k = tt.rank() == 0 ? 0 : tt.dims().back();
  const int64_t mq = left ? c.rows : c.cols;
  if (v.rows != mq || k > v.cols || k > mq || v.batch != c.batch || tt.numel() != v.count() * k) {
    return call.Invalid("torch.ormqr: the reflectors, tau and input3 do not fit");
  }
  const std::vector<double> tau = ToDoubles(tt);
  for (int64_t b = 0; b < c.count(); ++b) {
    const double* f = v.at(b);
    double* cm = c.at(b);
    auto vi = [&](int64_t i, int64_t r) { return r < i ? 0.0 : (r == i ? 1.0 : f[r * v.cols + i]); };
    for (int64_t step = 0; step < k; ++step) {
      const int64_t i = (left != transpose) ? k - 1 - step : step;
      const double t = tau[b * k + i];
      if (left) {  // C -= t v (v^T C)
        for (int64_t col = 0; col < c.cols; ++col) {
          double dot = 0;
          for (int64_t r = 0; r < c.rows; ++r) dot += vi(i, r) * cm[r * c.cols + col];
          for (int64_t r = 0; r < c.rows; ++r) cm[r * c.cols + col] -= t * vi(i, r) * dot;
        }
      } else {  // C -= t (C v) v^T
        for (int64_t row = 0; row < c.rows; ++row) {
          double dot = 0;
          for (int64_t j = 0; j < c.cols; ++j) dot += cm[row * c.cols + j] * vi(i, j);
          for (int64_t j = 0; j < c.cols; ++j) cm[row * c.cols + j] -= t * dot * vi(i, j);
        }
      }
    }
  }
  return SetMats(call, tc.dtype(), c);
}

}  // namespace

void RegisterLinalgQrRef(RefRegistry& r) {
  r.Add("aten::geqrf.default", Geqrf);
  r.Add("aten::linalg_qr.default", LinalgQr);
  r.Add("aten::ormqr.default", Ormqr);
}

}  // namespace pt2onnx::reference
