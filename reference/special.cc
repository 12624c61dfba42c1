// Reference kernels: special functions (digamma, erfinv, lgamma),
// nan_to_num and round with decimals, and their in-place twins. Computed in
// double and rounded once to the result dtype, except round.decimals, whose
// ties depend on the float32 product torch computes.
#include <cmath>
#include <limits>

#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// A float-valued function: integer inputs give float32.
absl::Status FloatFunction(RefCall& call, bool in_place, const DoubleUnary& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, FloatResult(self.dtype()), f));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

// psi(x): reflection for negative x, recurrence up to 10, then the
// asymptotic series. Poles: -inf / +inf at +-0 (sign of -x), NaN at negative
// integers, as torch.
double Digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(INFINITY, -x);
  if (x < 0) {
    if (x == std::trunc(x)) return NAN;
    return Digamma(1 - x) - M_PI / std::tan(M_PI * x);
  }
  if (std::isinf(x)) return x;
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double series = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132)))));
  return result + std::log(x) - 0.5 / x - series;
}

// The inverse of erf on (-1, 1): Winitzki's closed form as a start, then
// Newton steps on erf(x) - y to double precision. +-1 give +-inf.
double Erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return NAN;
  if (y == 1 || y == -1) return std::copysign(INFINITY, y);
  if (y == 0) return y;
  const double a = 0.147;
  const double ln = std::log((1 - y) * (1 + y));
  const double t = 2 / (M_PI * a) + ln / 2;
  double x = std::copysign(std::sqrt(std::sqrt(t * t - ln / a) - t), y);
  for (int i = 0; i < 6; ++i) {
    const double slope = 2 / std::sqrt(M_PI) * std::exp(-x * x);
    if (slope == 0) break;
    const double step = (std::erf(x) - y) / slope;
    x -= step;
    if (std::abs(step) <= 1e-17 * std::abs(x)) break;
  }
  return x;
}

// aten::digamma(Tensor self) -> Tensor
absl::Status DigammaOp(RefCall& call) { return FloatFunction(call, false, Digamma); }
absl::Status DigammaInPlace(RefCall& call) { return FloatFunction(call, true, Digamma); }
// aten::erfinv(Tensor self) -> Tensor
absl::Status ErfinvOp(RefCall& call) { return FloatFunction(call, false, Erfinv); }
absl::Status ErfinvInPlace(RefCall& call) { return FloatFunction(call, true, Erfinv); }
// aten::lgamma(Tensor self) -> Tensor: log|Gamma(x)|
absl::Status Lgamma(RefCall& call) { return FloatFunction(call, false, [](double x) { return std::lgamma(x); }); }
absl::Status LgammaInPlace(RefCall& call) {
  return FloatFunction(call, true, [](double x) { return std::lgamma(x); });
}

// The largest finite value of a floating dtype (nan_to_num's default for +inf).
double MaxFinite(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16: return 65504.0;
    case DataType::kBFloat16: return 3.3895313892515355e38;
    case DataType::kFloat: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// aten::nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor
// Integers and bools are returned unchanged.
absl::Status NanToNumImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> nan, call.OptionalDouble("nan"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> posinf, call.OptionalDouble("posinf"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> neginf, call.OptionalDouble("neginf"));
  Tensor out = self;
  if (IsFloatLike(self.dtype())) {
    const double big = MaxFinite(self.dtype());
    const double nan_v = nan.value_or(0), pos_v = posinf.value_or(big), neg_v = neginf.value_or(-big);
    PT2ONNX_ASSIGN_OR_RETURN(out, UnaryMapDouble(self, self.dtype(), [=](double x) {
                               if (std::isnan(x)) return nan_v;
                               if (std::isinf(x)) return x > 0 ? pos_v : neg_v;
                               return x;
                             }));
  } else if (!in_place) {
    PT2ONNX_ASSIGN_OR_RETURN(out, CopyTensor(self));
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status NanToNum(RefCall& call) { return NanToNumImpl(call, false); }
absl::Status NanToNumInPlace(RefCall& call) { return NanToNumImpl(call, true); }

// round(x * 10^d) / 10^d (d > 0) or round(x / 10^-d) * 10^-d, half to even,
// in the tensor's own precision as torch computes it.
template <typename T>
T RoundDecimals(T x, int64_t decimals) {
  const T ten_pow = static_cast<T>(std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)));
  if (decimals >= 0) return std::nearbyint(x * ten_pow) / ten_pow;
  return std::nearbyint(x / ten_pow) * ten_pow;
}

// aten::round.decimals(Tensor self, *, int decimals) -> Tensor
absl::Status RoundDecimalsImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t decimals, call.Int("decimals"));
  Tensor out;
  if (self.dtype() == DataType::kFloat) {
    PT2ONNX_ASSIGN_OR_RETURN(out, UnaryMapDouble(self, self.dtype(), [decimals](double x) {
                               return static_cast<double>(RoundDecimals(static_cast<float>(x), decimals));
                             }));
  } else if (self.dtype() == DataType::kDouble) {
    PT2ONNX_ASSIGN_OR_RETURN(out, UnaryMapDouble(self, self.dtype(), [decimals](double x) {
                               return RoundDecimals(x, decimals);
                             }));
  } else if (IsFloatLike(self.dtype())) {
    return call.Unsupported("round with decimals on float16/bfloat16 (torch rounds each step to the dtype): "
                            "cast the tensor to float32 first");
  } else if (decimals != 0) {
    return call.Invalid("round with decimals is not implemented for integer tensors");
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(out, CopyTensor(self));
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status RoundDecimalsOp(RefCall& call) { return RoundDecimalsImpl(call, false); }
absl::Status RoundDecimalsInPlace(RefCall& call) { return RoundDecimalsImpl(call, true); }

}  // namespace

void RegisterSpecialRef(RefRegistry& r) {
  r.Add("aten::digamma.default", DigammaOp);
  r.Add("aten::digamma_.default", DigammaInPlace);
  r.Add("aten::erfinv.default", ErfinvOp);
  r.Add("aten::erfinv_.default", ErfinvInPlace);
  r.Add("aten::lgamma.default", Lgamma);
  r.Add("aten::lgamma_.default", LgammaInPlace);
  r.Add("aten::nan_to_num.default", NanToNum);
  r.Add("aten::nan_to_num_.default", NanToNumInPlace);
  r.Add("aten::round.decimals", RoundDecimalsOp);
  r.Add("aten::round_.decimals", RoundDecimalsInPlace);
}

}  // namespace pt2onnx::reference
