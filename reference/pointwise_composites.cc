// File: reference/pointwise_composites.cc
// -----------------------------------------------------------------------------
// Reference kernels for the elementwise composites of ops/pointwise_composites.cc:
// erfc, frac, sinc, deg2rad/rad2deg, logit, xlogy, logaddexp(2), heaviside,
// addcmul/addcdiv, lerp, isfinite/isposinf/isneginf, signbit. Computed in
// double (int64 for integer addcmul and heaviside) with ATen's formulas,
// straight from <cmath>, not from the ONNX expansions they are checked against.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Writes `out` into self for an in-place overload, then sets the result.
absl::Status Finish(RefCall& call, bool in_place, Tensor self, Tensor out) {
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

absl::Status FloatUnary(RefCall& call, bool in_place, const DoubleUnary& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, FloatResult(self.dtype()), f));
  return Finish(call, in_place, self, std::move(out));
}

double Sinc(double x) {
  if (x == 0) return 1;
  const double px = kPi * x;
  return std::sin(px) / px;
}

// ATen forms pi * x in the input's own precision (aten/src/ATen/native/cpu/
// UnaryOpsKernel.cpp, sinc_kernel: float for float32, half and bfloat16), so
// near integers its result is the sine of that rounded product, ~1e-8 rather
// than ~1e-17: the product is rounded as there, the rest done in double.
double SincOfFloat(double x) {
  if (x == 0) return 1;
  const float px = static_cast<float>(kPi) * static_cast<float>(x);
  return std::sin(static_cast<double>(px)) / px;
}

absl::Status SincImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  const DataType out_dtype = FloatResult(self.dtype());
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, UnaryMapDouble(self, out_dtype, out_dtype == DataType::kDouble ? DoubleUnary(Sinc) : SincOfFloat));
  return Finish(call, in_place, self, std::move(out));
}

// aten::erfc(Tensor self) -> Tensor, and the same one-line schema below.
absl::Status Erfc(RefCall& call) { return FloatUnary(call, false, [](double x) { return std::erfc(x); }); }
absl::Status ErfcInPlace(RefCall& call) { return FloatUnary(call, true, [](double x) { return std::erfc(x); }); }
absl::Status Frac(RefCall& call) { return FloatUnary(call, false, [](double x) { return x - std::trunc(x); }); }
absl::Status FracInPlace(RefCall& call) { return FloatUnary(call, true, [](double x) { return x - std::trunc(x); }); }
absl::Status SincOp(RefCall& call) { return SincImpl(call, false); }
absl::Status SincInPlace(RefCall& call) { return SincImpl(call, true); }
absl::Status Deg2rad(RefCall& call) { return FloatUnary(call, false, [](double x) { return x * (kPi / 180); }); }
absl::Status Deg2radInPlace(RefCall& call) { return FloatUnary(call, true, [](double x) { return x * (kPi / 180); }); }
absl::Status Rad2deg(RefCall& call) { return FloatUnary(call, false, [](double x) { return x * (180 / kPi); }); }
absl::Status Rad2degInPlace(RefCall& call) { return FloatUnary(call, true, [](double x) { return x * (180 / kPi); }); }

// aten::logit(Tensor self, float? eps=None) -> Tensor
absl::Status LogitImpl(RefCall& call, bool in_place) {
  std::optional<double> eps;
  if (call.Has("eps")) {
    PT2ONNX_ASSIGN_OR_RETURN(eps, call.OptionalDouble("eps"));
  }
  const double lo = eps.value_or(-1), hi = 1 - lo;
  const bool clamp = eps.has_value() && *eps >= 0;
  return FloatUnary(call, in_place, [clamp, lo, hi](double x) {
    if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
    return std::log(x / (1 - x));
  });
}
absl::Status Logit(RefCall& call) { return LogitImpl(call, false); }
absl::Status LogitInPlace(RefCall& call) { return LogitImpl(call, true); }

// A float-valued binary op over self and `other_arg` (either may be a Scalar).
absl::Status FloatBinary(RefCall& call, bool in_place, absl::string_view other_arg, const DoubleBinary& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, other_arg));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", other_arg}));
  dtype = FloatResult(dtype);
  auto no_int = [](int64_t, int64_t) -> absl::StatusOr<int64_t> { return absl::InternalError("integer compute"); };
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BinaryMap(self, other, dtype, dtype, f, no_int));
  return Finish(call, in_place, self, std::move(out));
}

double Xlogy(double x, double y) {
  if (std::isnan(y)) return y;
  if (x == 0) return 0;
  return x * std::log(y);
}
// aten::xlogy.Tensor(Tensor self, Tensor other) -> Tensor (and Scalar_Self, Scalar_Other)
absl::Status XlogyOp(RefCall& call) { return FloatBinary(call, false, "other", Xlogy); }
absl::Status XlogyInPlace(RefCall& call) { return FloatBinary(call, true, "other", Xlogy); }

double LogAddExp(double a, double b) {
  if (std::isinf(a) && a == b) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}
double LogAddExp2(double a, double b) {
  if (std::isinf(a) && a == b) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp2(-std::fabs(a - b))) / std::log(2.0);
}
// aten::logaddexp(Tensor self, Tensor other) -> Tensor (and logaddexp2)
absl::Status LogAddExpOp(RefCall& call) { return FloatBinary(call, false, "other", LogAddExp); }
absl::Status LogAddExp2Op(RefCall& call) { return FloatBinary(call, false, "other", LogAddExp2); }

// aten::heaviside(Tensor self, Tensor values) -> Tensor: values at 0, else self > 0.
absl::Status HeavisideImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, call.Input("values"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "values"}));
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out,
      BinaryMap(self, values, dtype, dtype, [](double a, double b) { return a == 0 ? b : (a > 0 ? 1.0 : 0.0); },
                [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a == 0 ? b : (a > 0 ? 1 : 0); }));
  return Finish(call, in_place, self, std::move(out));
}
absl::Status Heaviside(RefCall& call) { return HeavisideImpl(call, false); }
absl::Status HeavisideInPlace(RefCall& call) { return HeavisideImpl(call, true); }

// self, a and b broadcast together, combined elementwise in `dtype`.
using DoubleTernary = std::function<double(double, double, double)>;
using IntTernary = std::function<int64_t(int64_t, int64_t, int64_t)>;
absl::StatusOr<Tensor> TernaryMap(const Tensor& s, const Tensor& a, const Tensor& b, DataType dtype,
                                  const DoubleTernary& fd, const IntTernary& fi) {
  PT2ONNX_ASSIGN_OR_RETURN(Dims ab, BroadcastDims(a.dims(), b.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(s.dims(), ab));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor sb, BroadcastTo(s, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor abt, BroadcastTo(a, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor bbt, BroadcastTo(b, dims));
  PT2ONNX_ASSIGN_OR_RETURN(sb, CastTensor(sb, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(abt, CastTensor(abt, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(bbt, CastTensor(bbt, dtype));
  if (IsFloatLike(dtype)) {
    std::vector<double> x = ToDoubles(sb), y = ToDoubles(abt), z = ToDoubles(bbt);
    for (size_t i = 0; i < x.size(); ++i) x[i] = fd(x[i], y[i], z[i]);
    return FromDoubles(dtype, dims, x);
  }
  std::vector<int64_t> x = ToInts(sb), y = ToInts(abt), z = ToInts(bbt);
  for (size_t i = 0; i < x.size(); ++i) x[i] = fi(x[i], y[i], z[i]);
  return FromInts(dtype, dims, x);
}

int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
// aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
absl::Status Addc(RefCall& call, bool in_place, bool divide) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t1, call.Input("tensor1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t2, call.Input("tensor2"));
  RefScalar value;
  value.i = 1;
  if (call.Has("value")) {
    PT2ONNX_ASSIGN_OR_RETURN(value, call.Scalar("value"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "tensor1", "tensor2"}));
  if (divide && !IsFloatLike(dtype)) return call.Invalid("addcdiv of integer tensors");
  const double v = value.AsDouble();
  const int64_t vi = value.is_float() ? static_cast<int64_t>(value.f) : value.i;
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out,
      TernaryMap(self, t1, t2, dtype,
                 [v, divide](double s, double a, double b) { return divide ? s + v * a / b : s + v * a * b; },
                 [vi](int64_t s, int64_t a, int64_t b) {
                   return static_cast<int64_t>(static_cast<uint64_t>(s) + static_cast<uint64_t>(WrapMul(WrapMul(vi, a), b)));
                 }));
  return Finish(call, in_place, self, std::move(out));
}
absl::Status Addcmul(RefCall& call) { return Addc(call, false, false); }
absl::Status AddcmulInPlace(RefCall& call) { return Addc(call, true, false); }
absl::Status Addcdiv(RefCall& call) { return Addc(call, false, true); }
absl::Status AddcdivInPlace(RefCall& call) { return Addc(call, true, true); }

// aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor (and .Scalar):
// torch's two-sided formula (aten/src/ATen/native/Lerp.h).
absl::Status LerpImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor end, call.Input("end"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, TensorOrScalar(call, "weight"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "end"}));
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, TernaryMap(self, end, weight, FloatResult(dtype),
                             [](double s, double e, double w) {
                               return std::fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
                             },
                             [](int64_t s, int64_t, int64_t) { return s; }));
  return Finish(call, in_place, self, std::move(out));
}
absl::Status Lerp(RefCall& call) { return LerpImpl(call, false); }
absl::Status LerpInPlace(RefCall& call) { return LerpImpl(call, true); }

// Bool predicates of the value (integers and bools are finite, never infinite).
absl::Status Predicate(RefCall& call, const std::function<bool(double)>& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out,
                           UnaryMapDouble(self, DataType::kBool, [&f](double x) { return f(x) ? 1.0 : 0.0; }));
  return call.SetTensor(std::move(out));
}
// aten::isfinite(Tensor self) -> Tensor, and the same schema below.
absl::Status IsFinite(RefCall& call) { return Predicate(call, [](double x) { return std::isfinite(x); }); }
absl::Status IsPosInf(RefCall& call) {
  return Predicate(call, [](double x) { return x == std::numeric_limits<double>::infinity(); });
}
absl::Status IsNegInf(RefCall& call) {
  return Predicate(call, [](double x) { return x == -std::numeric_limits<double>::infinity(); });
}
absl::Status SignBit(RefCall& call) { return Predicate(call, [](double x) { return std::signbit(x); }); }

// aten::angle(Tensor self) -> Tensor (real inputs): pi below 0, NaN kept.
absl::Status Angle(RefCall& call) {
  return FloatUnary(call, false, [](double x) { return std::isnan(x) ? x : (x < 0 ? kPi : 0.0); });
}

// aten::isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
absl::Status IsClose(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_ASSIGN_OR_RETURN(double rtol, call.Double("rtol"));
  PT2ONNX_ASSIGN_OR_RETURN(double atol, call.Double("atol"));
  PT2ONNX_ASSIGN_OR_RETURN(bool equal_nan, call.Bool("equal_nan"));
  auto close = [rtol, atol, equal_nan](double a, double b) {
    if (a == b) return 1.0;
    if (equal_nan && std::isnan(a) && std::isnan(b)) return 1.0;
    const double diff = std::fabs(a - b);
    return std::isfinite(diff) && diff <= atol + std::fabs(rtol * b) ? 1.0 : 0.0;
  };
  auto no_int = [](int64_t, int64_t) -> absl::StatusOr<int64_t> { return absl::InternalError("integer compute"); };
  const DataType compute = IsFloatLike(self.dtype()) ? self.dtype() : DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BinaryMap(self, other, compute, DataType::kBool, close, no_int));
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterPointwiseCompositesRef(RefRegistry& r) {
  r.Add("aten::erfc.default", Erfc);
  r.Add("aten::erfc_.default", ErfcInPlace);
  r.Add("aten::frac.default", Frac);
  r.Add("aten::frac_.default", FracInPlace);
  r.Add("aten::sinc.default", SincOp);
  r.Add("aten::sinc_.default", SincInPlace);
  r.Add("aten::deg2rad.default", Deg2rad);
  r.Add("aten::deg2rad_.default", Deg2radInPlace);
  r.Add("aten::rad2deg.default", Rad2deg);
  r.Add("aten::rad2deg_.default", Rad2degInPlace);
  r.Add("aten::logit.default", Logit);
  r.Add("aten::logit_.default", LogitInPlace);
  r.Add("aten::xlogy.Tensor", XlogyOp);
  r.Add("aten::xlogy_.Tensor", XlogyInPlace);
  r.Add("aten::xlogy.Scalar_Other", XlogyOp);
  r.Add("aten::xlogy_.Scalar_Other", XlogyInPlace);
  r.Add("aten::xlogy.Scalar_Self", XlogyOp);
  r.Add("aten::logaddexp.default", LogAddExpOp);
  r.Add("aten::logaddexp2.default", LogAddExp2Op);
  r.Add("aten::heaviside.default", Heaviside);
  r.Add("aten::heaviside_.default", HeavisideInPlace);
  r.Add("aten::addcmul.default", Addcmul);
  r.Add("aten::addcmul_.default", AddcmulInPlace);
  r.Add("aten::addcdiv.default", Addcdiv);
  r.Add("aten::addcdiv_.default", AddcdivInPlace);
  r.Add("aten::lerp.Scalar", Lerp);
  r.Add("aten::lerp_.Scalar", LerpInPlace);
  r.Add("aten::lerp.Tensor", Lerp);
  r.Add("aten::lerp_.Tensor", LerpInPlace);
  r.Add("aten::isfinite.default", IsFinite);
  r.Add("aten::isposinf.default", IsPosInf);
  r.Add("aten::isneginf.default", IsNegInf);
  r.Add("aten::signbit.default", SignBit);
  r.Add("aten::angle.default", Angle);
  r.Add("aten::isclose.default", IsClose);
}

}  // namespace pt2onnx::reference
