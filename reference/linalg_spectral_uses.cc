// Reference kernels built on the spectral decompositions (spectral_support.h):
// linalg_pinv (every overload) and pinverse, linalg_matrix_rank (every
// overload), linalg_cond, and matrix_exp (scaling and squaring of a Taylor
// sum), in double a matrix at a time. Tolerances follow torch's
// get_atol_rtol, linalg_pinv and matrix_rank_impl; cond follows linalg_cond
// and _linalg_cond_helper (aten/src/ATen/native/LinearAlgebra.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/linalg_support.h"
#include "reference/registry.h"
#include "reference/spectral_support.h"

namespace pt2onnx::reference {
namespace {

// Per-matrix atol and rtol.
struct Tols {
  std::vector<double> atol, rtol;
};

absl::StatusOr<std::vector<double>> PerMatrix(const std::optional<Tensor>& t, const Dims& batch,
                                              int64_t count, double fallback) {
  if (!t) return std::vector<double>(count, fallback);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(*t, batch));
  return ToDoubles(b);
}

double DefaultRtol(DataType dtype, const Mats& a) {
  const double eps = dtype == DataType::kDouble ? std::numeric_limits<double>::epsilon()
                                                : std::numeric_limits<float>::epsilon();
  return eps * static_cast<double>(std::max(a.rows, a.cols));
}

// Each overload's tolerances (see get_atol_rtol).
absl::StatusOr<Tols> ReadTols(const RefCall& call, DataType dtype, const Mats& a) {
  const std::string& key = call.key();
  const int64_t count = a.count();
  const double fallback = DefaultRtol(dtype, a);
  Tols t;
  if (absl::EndsWith(key, ".atol_rtol_tensor")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> atol, call.OptionalInput("atol"));
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> rtol, call.OptionalInput("rtol"));
    PT2ONNX_ASSIGN_OR_RETURN(t.atol, PerMatrix(atol, a.batch, count, 0.0));
    PT2ONNX_ASSIGN_OR_RETURN(t.rtol, PerMatrix(rtol, a.batch, count, fallback));
    if (!rtol && atol) {
      for (int64_t b = 0; b < count; ++b) t.rtol[b] = t.atol[b] > 0 ? 0.0 : fallback;
    }
    return t;
  }
  if (absl::EndsWith(key, ".atol_rtol_float")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> atol, call.OptionalDouble("atol"));
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> rtol, call.OptionalDouble("rtol"));
    const double r = rtol ? *rtol : (atol && *atol > 0 ? 0.0 : fallback);
    return Tols{std::vector<double>(count, atol.value_or(0.0)), std::vector<double>(count, r)};
  }
  const bool rank = absl::StrContains(key, "matrix_rank");
  const char* name = rank ? "tol" : "rcond";
  std::vector<double> value;
  if (absl::EndsWith(key, "_tensor")) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor v, call.Input(name));
    PT2ONNX_ASSIGN_OR_RETURN(value, PerMatrix(v, a.batch, count, 0.0));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(double v, call.Double(name));
    value.assign(count, v);
  }
  // matrix_rank's tol is an atol, pinv's rcond an rtol.
  std::vector<double> zeros(count, 0.0);
  return rank ? Tols{value, zeros} : Tols{zeros, value};
}

bool Hermitian(const RefCall& call) {
  if (!call.Has("hermitian")) return false;
  absl::StatusOr<bool> h = call.Bool("hermitian");
  return h.ok() && *h;
}

// Values (singular, or eigen for hermitian) with vectors: pinv = left diag(1/value) right^T.
struct Spectrum {
  std::vector<double> values, left, right;  // left (n, k), right (m, k)
};

Spectrum SpectrumOf(const double* a, int64_t m, int64_t n, bool hermitian) {
  Spectrum s;
  if (hermitian) {
    std::vector<double> sym(n * n);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) sym[i * n + j] = i >= j ? a[i * n + j] : a[j * n + i];
    }
    EighOne(sym, n, s.values, s.left);
    s.right = s.left;
    return s;
  }
  SvdResult r = SvdOne(a, m, n);
  return Spectrum{r.s, r.v, r.u};
}

double Cutoff(const std::vector<double>& values, double atol, double rtol) {
  double top = 0;
  for (double v : values) top = std::max(top, std::fabs(v));
  return std::max(atol, rtol * top);
}

// aten::linalg_pinv.* and aten::pinverse(Tensor self, float rcond=1e-15) -> Tensor
absl::Status LinalgPinv(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "self"));
  const bool hermitian = Hermitian(call);
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  if (hermitian && m != n) return call.Invalid("linalg.pinv(hermitian=True) needs square matrices");
  PT2ONNX_ASSIGN_OR_RETURN(Tols tols, ReadTols(call, t.dtype(), a));
  Mats out;
  out.batch = a.batch;
  out.rows = n;
  out.cols = m;
  out.v.assign(a.count() * m * n, 0.0);
  for (int64_t b = 0; b < a.count() && k > 0; ++b) {
    Spectrum s = SpectrumOf(a.at(b), m, n, hermitian);
    const double cut = Cutoff(s.values, tols.atol[b], tols.rtol[b]);
    double* o = out.at(b);
    for (int64_t j = 0; j < k; ++j) {
      if (!(std::fabs(s.values[j]) > cut)) continue;
      const double inv = 1 / s.values[j];
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < m; ++c) o[r * m + c] += s.left[r * k + j] * inv * s.right[c * k + j];
      }
    }
  }
  return SetMats(call, t.dtype(), out);
}

// aten::linalg_matrix_rank.* -> Tensor (int64 of the batch shape)
absl::Status LinalgMatrixRank(RefCall& call) {
  const absl::string_view arg = call.Has("input") ? "input" : "self";
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input(arg));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, arg));
  const bool hermitian = Hermitian(call);
  const int64_t m = a.rows, n = a.cols;
  if (hermitian && m != n) return call.Invalid("linalg.matrix_rank(hermitian=True) needs square matrices");
  PT2ONNX_ASSIGN_OR_RETURN(Tols tols, ReadTols(call, t.dtype(), a));
  std::vector<int64_t> ranks(a.count(), 0);
  for (int64_t b = 0; b < a.count() && m > 0 && n > 0; ++b) {
    Spectrum s = SpectrumOf(a.at(b), m, n, hermitian);
    const double cut = Cutoff(s.values, tols.atol[b], tols.rtol[b]);
    for (double v : s.values) ranks[b] += std::fabs(v) > cut;
  }
  return SetInts(call, DataType::kInt64, a.batch, ranks);
}

// ±1 / ±inf / 'fro' / 'nuc' norm of one (n, n) matrix.
double NormOf(const double* x, int64_t n, const std::string& name, double p) {
  if (name == "fro") {
    double acc = 0;
    for (int64_t i = 0; i < n * n; ++i) acc += x[i] * x[i];
    return std::sqrt(acc);
  }
  if (name == "nuc") {
    double acc = 0;
    for (double s : SvdOne(x, n, n).s) acc += s;
    return acc;
  }
  const bool columns = std::fabs(p) == 1;
  double best = p > 0 ? -INFINITY : INFINITY;
  for (int64_t o = 0; o < n; ++o) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::fabs(columns ? x[i * n + o] : x[o * n + i]);
    best = p > 0 ? std::max(best, sum) : std::min(best, sum);
  }
  return best;
}

absl::Status Cond(RefCall& call, const std::string& name, double p) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "self"));
  const int64_t m = a.rows, n = a.cols;
  std::vector<double> out(a.count(), 0.0);
  if (m == 0 || n == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor z, FromDoubles(t.dtype(), a.batch, out));
    return call.SetTensor(std::move(z));
  }
  const bool spectral = name.empty() && std::fabs(p) == 2;
  if (!spectral && m != n) return call.Invalid("linalg.cond: A must be batches of square matrices");
  for (int64_t b = 0; b < a.count(); ++b) {
    if (spectral) {
      const std::vector<double> s = SvdOne(a.at(b), m, n).s;
      out[b] = p > 0 ? s.front() / s.back() : s.back() / s.front();
      continue;
    }
    std::vector<double> lu(a.at(b), a.at(b) + n * n), inv(n * n, 0.0);
    for (int64_t i = 0; i < n; ++i) inv[i * n + i] = 1;
    Lu f = Factor(lu.data(), n, n);
    if (f.info > 0) {
      std::fill(inv.begin(), inv.end(), INFINITY);
    } else {
      LuSolveOne(lu.data(), f.pivots.data(), inv.data(), n, n, false);
    }
    const double r = NormOf(a.at(b), n, name, p) * NormOf(inv.data(), n, name, p);
    out[b] = std::isnan(r) ? INFINITY : r;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor r, FromDoubles(t.dtype(), a.batch, out));
  return call.SetTensor(std::move(r));
}

// aten::linalg_cond(Tensor self, Scalar? p=None) -> Tensor
absl::Status LinalgCond(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, call.Arg("p"));
  double p = 2;
  if (arg.kind != pt2::Argument::Kind::kNone) {
    PT2ONNX_ASSIGN_OR_RETURN(RefScalar v, call.Scalar("p"));
    p = v.AsDouble();
  }
  if (std::fabs(p) != 2 && std::fabs(p) != 1 && !std::isinf(p)) {
    return call.Invalid(absl::StrCat("linalg.cond got an invalid norm type: ", p));
  }
  return Cond(call, "", p);
}

// aten::linalg_cond.p_str(Tensor self, str p) -> Tensor
absl::Status LinalgCondStr(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string p, call.String("p"));
  if (p != "fro" && p != "nuc") return call.Invalid(absl::StrCat("linalg.cond got an invalid norm type: ", p));
  return Cond(call, p, 0);
}

void MatMulInto(const std::vector<double>& x, const std::vector<double>& y, std::vector<double>& out,
                int64_t n) {
  std::fill(out.begin(), out.end(), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t j = 0; j < n; ++j) out[i * n + j] += x[i * n + k] * y[k * n + j];
    }
  }
}

// aten::matrix_exp(Tensor self) -> Tensor: scaled to a 1-norm of at most
// 1/2, a Taylor sum of degree 24, squared back.
absl::Status MatrixExp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Mats a, ReadMats(call, t, "self"));
  if (a.rows != a.cols) return call.Invalid("linalg.matrix_exp: A must be batches of square matrices");
  const int64_t n = a.rows;
  for (int64_t b = 0; b < a.count(); ++b) {
    double* x = a.at(b);
    double norm = 0;
    for (int64_t j = 0; j < n; ++j) {
      double col = 0;
      for (int64_t i = 0; i < n; ++i) col += std::fabs(x[i * n + j]);
      norm = std::max(norm, col);
    }
    int squarings = 0;
    while (norm > 0.5 && squarings < 1100) {
      norm /= 2;
      ++squarings;
    }
    std::vector<double> xs(x, x + n * n), term(n * n, 0.0), sum(n * n, 0.0), tmp(n * n);
    for (double& v : xs) v = std::ldexp(v, -squarings);
    for (int64_t i = 0; i < n; ++i) term[i * n + i] = sum[i * n + i] = 1;
    for (int k = 1; k <= 24; ++k) {
      MatMulInto(term, xs, tmp, n);
      for (int64_t i = 0; i < n * n; ++i) {
        term[i] = tmp[i] / k;
        sum[i] += term[i];
      }
    }
    for (int s = 0; s < squarings; ++s) {
      MatMulInto(sum, sum, tmp, n);
      sum.swap(tmp);
    }
    std::copy(sum.begin(), sum.end(), x);
  }
  return SetMats(call, t.dtype(), a);
}

}  // namespace

void RegisterLinalgSpectralUsesRef(RefRegistry& r) {
  r.Add("aten::linalg_pinv.atol_rtol_tensor", LinalgPinv);
  r.Add("aten::linalg_pinv.atol_rtol_float", LinalgPinv);
  r.Add("aten::linalg_pinv.default", LinalgPinv);
  r.Add("aten::linalg_pinv.rcond_tensor", LinalgPinv);
  r.Add("aten::pinverse.default", LinalgPinv);
  r.Add("aten::linalg_matrix_rank.atol_rtol_tensor", LinalgMatrixRank);
  r.Add("aten::linalg_matrix_rank.atol_rtol_float", LinalgMatrixRank);
  r.Add("aten::linalg_matrix_rank.default", LinalgMatrixRank);
  r.Add("aten::linalg_matrix_rank.tol_tensor", LinalgMatrixRank);
  r.Add("aten::linalg_cond.default", LinalgCond);
  r.Add("aten::linalg_cond.p_str", LinalgCondStr);
  r.Add("aten::matrix_exp.default", MatrixExp);
}

}  // namespace pt2onnx::reference
