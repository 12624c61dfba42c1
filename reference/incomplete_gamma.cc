// File: reference/incomplete_gamma.cc
// -----------------------------------------------------------------------------
// Reference kernels for igamma / igammac (and special_gammainc(c)): the
// regularized incomplete gamma functions with torch's boundary values
// (aten/src/ATen/native/Math.h, calc_igamma / calc_igammac), elsewhere in
// long double: the power series of P for x < a + 1, else the continued
// fraction of Q evaluated bottom-up over a fixed 4000 terms (no convergence
// test), then rounded to the result dtype.
#include <cmath>
#include <limits>
#include <utility>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr int kTerms = 4000;

// P(a, x) and Q(a, x) for a > 0, 0 < x, both finite.
std::pair<long double, long double> Regularized(long double a, long double x) {
  const long double log_prefactor = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {
    long double term = 1 / a, sum = term;
    for (int k = 1; k < kTerms; ++k) {
      term *= x / (a + k);
      sum += term;
      if (term < sum * 1e-20L) break;
    }
    const long double p = sum * std::exp(log_prefactor);
    return {p, 1 - p};
  }
  // Q = prefactor / (x + 1 - a - 1(1-a) / (x + 3 - a - 2(2-a) / (x + 5 - a - ...)))
  long double tail = 0;
  for (int n = kTerms; n >= 1; --n) tail = -n * (n - a) / (x + 2 * n + 1 - a + tail);
  const long double q = std::exp(log_prefactor) / (x + 1 - a + tail);
  return {1 - q, q};
}

double IncompleteGamma(double a, double x, bool upper) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double one = upper ? 0 : 1, zero = upper ? 1 : 0;
  if (std::isnan(a) || std::isnan(x) || x < 0 || a < 0) return nan;
  if (a == 0) return x > 0 ? one : nan;
  if (x == 0) return zero;
  if (std::isinf(a)) return std::isinf(x) ? nan : zero;
  if (std::isinf(x)) return one;
  const std::pair<long double, long double> pq = Regularized(a, x);
  return static_cast<double>(upper ? pq.second : pq.first);
}

absl::Status Igamma(RefCall& call, bool upper, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, TensorOrScalar(call, "other"));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) {
    PT2ONNX_ASSIGN_OR_RETURN(dtype, call.ResultType({"self", "other"}));
  }
  if (!IsFloatLike(dtype)) return call.Invalid("igamma needs floating-point operands");
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(a, x, DataType::kDouble, dtype,
                            [upper](double av, double xv) { return IncompleteGamma(av, xv, upper); },
                            [](int64_t, int64_t) -> absl::StatusOr<int64_t> {
                              return absl::InvalidArgumentError("igamma has a floating-point result");
                            }));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(a, out));
  return call.SetTensor(a);
}

// aten::igamma(Tensor self, Tensor other) -> Tensor
absl::Status IgammaLower(RefCall& call) { return Igamma(call, false, false); }
absl::Status IgammaLowerInPlace(RefCall& call) { return Igamma(call, false, true); }
// aten::igammac(Tensor self, Tensor other) -> Tensor
absl::Status IgammaUpper(RefCall& call) { return Igamma(call, true, false); }
absl::Status IgammaUpperInPlace(RefCall& call) { return Igamma(call, true, true); }

}  // namespace

void RegisterIncompleteGammaRef(RefRegistry& r) {
  r.Add("aten::igamma.default", IgammaLower);
  r.Add("aten::igamma_.default", IgammaLowerInPlace);
  r.Add("aten::igammac.default", IgammaUpper);
  r.Add("aten::igammac_.default", IgammaUpperInPlace);
  r.Add("aten::special_gammainc.default", IgammaLower);
  r.Add("aten::special_gammaincc.default", IgammaUpper);
}

}  // namespace pt2onnx::reference
