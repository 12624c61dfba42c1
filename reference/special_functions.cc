// File: reference/special_functions.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/special_functions.cc: i0 (and
// special_modified_bessel_i0), i0e, erfcx, ndtr, ndtri, log_ndtr, entr and xlog1py, in
// double from I0's power series, <cmath>'s std::erfc and std::log1p (not the
// series the translation evaluates), rounded once to the result dtype; and
// for ops/special_math.cc's special_zeta, polygamma and mvlgamma (a direct
// sum to 30 with an Euler-Maclaurin remainder, std::lgamma).
#include <cfloat>
#include <cmath>
#include <functional>
#include <utility>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr double kSqrtPi = 1.7724538509055160273;

// A float-valued function of self: integer inputs give float32.
absl::Status FloatFunction(RefCall& call, const std::function<double(double, DataType)>& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  const DataType out = FloatResult(self.dtype());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, UnaryMapDouble(self, out, [&](double x) { return f(x, out); }));
  return call.SetTensor(std::move(y));
}

// exp(-a) I0(a) for 0 <= a <= 700 from the power series
// sum_k (a^2 / 4)^k / (k!)^2, each term carrying the factor exp(-a) so that
// nothing overflows (libc++, the WebAssembly build's library, has no
// std::cyl_bessel_i). Terms grow until k ~ a/2, then fall; no cancellation.
double ScaledI0Series(double a) {
  const double q = a * a / 4;
  double term = std::exp(-a);
  double sum = term;
  for (int k = 1; k < 4000; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
    if (2 * k > a && term < sum * 1e-17) break;
  }
  return sum;
}

// I0(x). torch's kernels multiply by exp(|x|) in the compute dtype (float
// below float64): that factor overflowing gives inf, and +-inf give
// inf / inf = NaN (aten/src/ATen/native/Math.h, calc_i0).
double I0(double x, DataType out) {
  const double a = std::fabs(x);
  if (std::isnan(a) || std::isinf(a)) return NAN;
  const double exp_limit = out == DataType::kDouble ? std::log(DBL_MAX) : std::log(static_cast<double>(FLT_MAX));
  if (a > exp_limit) return INFINITY;
  return ScaledI0Series(a) * std::exp(a);
}

// exp(-|x|) I0(x); past 700 (where I0 overflows double) the asymptotic
// series exp(-a) I0(a) ~ (1 + 1/(8a) + 9/(128a^2)) / sqrt(2 pi a).
double I0e(double x, DataType) {
  const double a = std::fabs(x);
  if (std::isnan(a)) return a;
  if (a > 700) return (1 + 1 / (8 * a) + 9 / (128 * a * a)) / std::sqrt(2 * M_PI * a);
  return ScaledI0Series(a);
}

// exp(x^2) erfc(x); from 26 on (erfc nears underflow) the asymptotic series.
double Erfcx(double x) {
  if (x >= 26) {
    const double z = 1 / (2 * x * x);
    return (1 - z + 3 * z * z - 15 * z * z * z) / (x * kSqrtPi);
  }
  return std::exp(x * x) * std::erfc(x);
}

// Phi(x) = erfc(-x / sqrt(2)) / 2.
double Ndtr(double x, DataType) { return 0.5 * std::erfc(-x * M_SQRT1_2); }

// log Phi(x), split at -1 as torch's calc_log_ndtr.
double LogNdtr(double x, DataType) {
  const double t = x * M_SQRT1_2;
  if (x < -1) return std::log(Erfcx(-t) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

// The inverse of Phi: Newton's method on log Phi(x) = log p (well scaled in
// the lower tail), from Abramowitz & Stegun 26.2.23's estimate; the upper
// half by symmetry. -inf / inf at 0 / 1, NaN outside [0, 1].
double Ndtri(double p, DataType) {
  if (std::isnan(p) || p < 0 || p > 1) return NAN;
  if (p == 0) return -INFINITY;
  if (p == 1) return INFINITY;
  if (p == 0.5) return 0;
  if (p > 0.5) return -Ndtri(1 - p, DataType::kDouble);
  const double t = std::sqrt(-2 * std::log(p));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  const double log_p = std::log(p);
  for (int i = 0; i < 100; ++i) {
    const double cdf = 0.5 * std::erfc(-x * M_SQRT1_2);
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    if (cdf <= 0 || pdf <= 0) break;
    const double step = (std::log(cdf) - log_p) * cdf / pdf;
    x -= step;
    if (std::fabs(step) <= 1e-16 * std::fabs(x) + 1e-300) break;
  }
  return x;
}

// Entropy term -x log x: 0 at 0, -inf for negative x.
double Entr(double x, DataType) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  return x == 0 ? 0.0 : -INFINITY;
}

// aten::i0(Tensor self) -> Tensor; special_modified_bessel_i0 alike
absl::Status I0Op(RefCall& call) { return FloatFunction(call, I0); }
// aten::special_i0e(Tensor self) -> Tensor
absl::Status I0eOp(RefCall& call) { return FloatFunction(call, I0e); }
// aten::special_erfcx(Tensor self) -> Tensor
absl::Status ErfcxOp(RefCall& call) {
  return FloatFunction(call, [](double x, DataType) { return Erfcx(x); });
}
// aten::special_ndtr(Tensor self) -> Tensor
absl::Status NdtrOp(RefCall& call) { return FloatFunction(call, Ndtr); }
// aten::special_ndtri(Tensor self) -> Tensor
absl::Status NdtriOp(RefCall& call) { return FloatFunction(call, Ndtri); }
// aten::special_entr(Tensor self) -> Tensor
absl::Status EntrOp(RefCall& call) { return FloatFunction(call, Entr); }
// aten::special_log_ndtr(Tensor self) -> Tensor
absl::Status LogNdtrOp(RefCall& call) { return FloatFunction(call, LogNdtr); }

// aten::special_xlog1py(Tensor self, Tensor other) -> Tensor (and the
// self_scalar / other_scalar overloads): NaN other gives NaN, then self == 0
// gives 0.
absl::Status Xlog1py(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) {
    PT2ONNX_ASSIGN_OR_RETURN(dtype, call.ResultType({"self", "other"}));
    dtype = FloatResult(dtype);
  }
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, dtype, dtype,
                            [](double x, double y) {
                              if (std::isnan(y)) return static_cast<double>(NAN);
                              return x == 0 ? 0.0 : x * std::log1p(y);
                            },
                            [](int64_t, int64_t) -> absl::StatusOr<int64_t> {
                              return absl::InvalidArgumentError("xlog1py has a float result");
                            }));
  return call.SetTensor(std::move(out));
}

// Hurwitz zeta(x, q): terms summed directly until q + k >= 30, then the
// Euler-Maclaurin remainder with B2 .. B16. Poles and NaN as torch.
double Zeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return NAN;
  if (x == 1) return INFINITY;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == std::floor(q)) return INFINITY;
    if (x != std::floor(x)) return NAN;
  }
  if (q < -1e6) return NAN;  // beyond what the direct sum is meant for
  double sum = 0;
  double a = q;
  while (a < 30) {
    sum += std::pow(a, -x);
    a += 1;
  }
  // sum_{k >= 0} (a + k)^-x ~ a^(1-x)/(x-1) + a^-x/2 + sum_j B2j/(2j)! x(x+1)..(x+2j-2) a^(-x-2j+1)
  static const double kBernoulli[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6,
                                      -3617.0 / 510};
  double tail = std::pow(a, 1 - x) / (x - 1) + std::pow(a, -x) / 2;
  double rising = x, factorial = 2, power = std::pow(a, -x - 1);
  for (int j = 1; j <= 8; ++j) {
    tail += kBernoulli[j - 1] / factorial * rising * power;
    rising *= (x + 2 * j - 1) * (x + 2 * j);
    factorial *= (2 * j + 1) * (2 * j + 2);
    power /= a * a;
  }
  return sum + tail;
}

// psi(x): reflection below 0, recurrence to 6, asymptotic series.
double Digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(INFINITY, -x);
  if (x < 0) {
    if (x == std::floor(x)) return NAN;
    return Digamma(1 - x) - M_PI / std::tan(M_PI * x);
  }
  if (std::isinf(x)) return x;
  double shift = 0;
  while (x < 6) {
    shift -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  return shift + std::log(x) - 0.5 / x - z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240))));
}

// aten::special_zeta(Tensor self, Tensor other) -> Tensor (and the Scalar overloads)
absl::Status ZetaOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = DataType::kFloat;
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, DataType::kDouble, dtype, Zeta,
                            [](int64_t, int64_t) -> absl::StatusOr<int64_t> {
                              return absl::InvalidArgumentError("zeta has a float result");
                            }));
  return call.SetTensor(std::move(out));
}

// aten::polygamma(int n, Tensor self) -> Tensor: digamma for n = 0, else
// (-1)^(n+1) n! zeta(n + 1, x).
absl::Status PolygammaOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, call.Int("n"));
  if (n < 0) return call.Invalid("polygamma(n, x) does not support negative n");
  const double order = static_cast<double>(n);
  return FloatFunction(call, [order](double x, DataType) {
    if (order == 0) return Digamma(x);
    return (std::fmod(order, 2) == 1 ? 1 : -1) * std::tgamma(order + 1) * Zeta(order + 1, x);
  });
}

// aten::mvlgamma(Tensor self, int p) -> Tensor: sum_{j<p} lgamma(x - j/2) + p(p-1)/4 log(pi).
absl::Status MvlgammaOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t p, call.Int("p"));
  if (p < 1 || p > 1000) return call.Invalid("p has to be between 1 and 1000");
  return FloatFunction(call, [p](double x, DataType) {
    double sum = static_cast<double>(p) * static_cast<double>(p - 1) / 4 * std::log(M_PI);
    for (int64_t j = 0; j < p; ++j) sum += std::lgamma(x - static_cast<double>(j) / 2);
    return sum;
  });
}

}  // namespace

void RegisterSpecialFunctionsRef(RefRegistry& r) {
  r.Add("aten::i0.default", I0Op);
  r.Add("aten::special_modified_bessel_i0.default", I0Op);
  r.Add("aten::special_i0e.default", I0eOp);
  r.Add("aten::special_erfcx.default", ErfcxOp);
  r.Add("aten::special_ndtr.default", NdtrOp);
  r.Add("aten::special_log_ndtr.default", LogNdtrOp);
  r.Add("aten::special_ndtri.default", NdtriOp);
  r.Add("aten::special_entr.default", EntrOp);
  r.Add("aten::special_xlog1py.default", Xlog1py);
  r.Add("aten::special_xlog1py.self_scalar", Xlog1py);
  r.Add("aten::special_xlog1py.other_scalar", Xlog1py);
  r.Add("aten::special_zeta.default", ZetaOp);
  r.Add("aten::special_zeta.self_scalar", ZetaOp);
  r.Add("aten::special_zeta.other_scalar", ZetaOp);
  r.Add("aten::polygamma.default", PolygammaOp);
  r.Add("aten::special_polygamma.default", PolygammaOp);
  r.Add("aten::mvlgamma.default", MvlgammaOp);
}

}  // namespace pt2onnx::reference
