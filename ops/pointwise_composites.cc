// File: ops/pointwise_composites.cc
// -----------------------------------------------------------------------------
// Elementwise operators that PyTorch defines as compositions of simpler ones
// (torch/_refs/__init__.py, torch/_decomp/decompositions.py) and ONNX lacks:
// erfc, frac, sinc, deg2rad/rad2deg, logit, xlogy, logaddexp(2), heaviside,
// addcmul/addcdiv, lerp, angle (real), isclose; and the float-class
// predicates isfinite, isposinf, isneginf, signbit.
//
// Types: the FX metadata of the output holds torch's promoted dtype (integer
// inputs of float-valued ops give float32), so every operand is cast to
// ctx.OutputDtype(0) first, as arithmetic.cc does. NaN and infinities follow
// ATen's CPU kernels; each translation says where they need care.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Refuses a float-valued op whose output torch typed as an integer: only a
// malformed program has one.
absl::StatusOr<DataType> FloatOutDtype(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid(absl::StrCat("the output is ", DataTypeName(dtype),
                                    "; torch computes this operator in floating point"));
  }
  return dtype;
}

absl::StatusOr<std::string> FloatSelf(TranslateContext& ctx, DataType& dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(dtype, FloatOutDtype(ctx));
  return ctx.InputAs("self", dtype);
}

// erfc without cancellation: 1 - erf(x) is 0 in float32 from x ~ 4 on,
// where erfc is still ~1e-8. Chebyshev fit of Numerical Recipes (Press et
// al., 2nd ed., section 6.2, erfcc), fractional error below 1.2e-7 for every
// x: erfc(|x|) = t exp(-x^2 + P(t)), t = 1 / (1 + |x|/2), and
// erfc(-x) = 2 - erfc(x). NaN stays NaN, erfc(inf) = 0, erfc(-inf) = 2.
// aten::erfc(Tensor self) -> Tensor
absl::Status AtenErfc(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelf(ctx, dtype));
  static constexpr double kP[] = {-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
                                  0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277};
  std::string z = ctx.Op("Abs", {x});
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::string t = ctx.Op("Div", {one, ctx.Op("Add", {one, ctx.Op("Mul", {z, ctx.ConstantScalar(dtype, 0.5)})})});
  std::string poly = ctx.ConstantScalar(dtype, kP[9]);
  for (int i = 8; i >= 0; --i) {
    poly = ctx.Op("Add", {ctx.Op("Mul", {poly, t}), ctx.ConstantScalar(dtype, kP[i])});
  }
  std::string exponent = ctx.Op("Sub", {poly, ctx.Op("Mul", {z, z})});
  std::string positive = ctx.Op("Mul", {t, ctx.Op("Exp", {exponent})});
  std::string negative = ctx.Op("Sub", {ctx.ConstantScalar(dtype, 2), positive});
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("Less", {x, Zero(ctx, dtype)}), negative, positive}));
}

// x - trunc(x); frac(+-inf) is NaN, as in torch.
// aten::frac(Tensor self) -> Tensor
absl::Status AtenFrac(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelf(ctx, dtype));
  return BindResult(ctx, ctx.Op("Sub", {x, TruncFloat(ctx, x, dtype)}));
}

// sin(pi x) / (pi x), 1 at 0 (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp).
// aten::sinc(Tensor self) -> Tensor
absl::Status AtenSinc(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelf(ctx, dtype));
  std::string px = ctx.Op("Mul", {x, ctx.ConstantScalar(dtype, kPi)});
  std::string ratio = ctx.Op("Div", {ctx.Op("Sin", {px}), px});
  std::string zero = ctx.Op("Equal", {x, Zero(ctx, dtype)});
  return BindResult(ctx, ctx.Op("Where", {zero, ctx.ConstantScalar(dtype, 1), ratio}));
}

absl::Status ScaleBy(TranslateContext& ctx, double factor) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelf(ctx, dtype));
  return BindResult(ctx, ctx.Op("Mul", {x, ctx.ConstantScalar(dtype, factor)}));
}
// aten::deg2rad(Tensor self) -> Tensor
absl::Status AtenDeg2rad(TranslateContext& ctx) { return ScaleBy(ctx, kPi / 180); }
// aten::rad2deg(Tensor self) -> Tensor
absl::Status AtenRad2deg(TranslateContext& ctx) { return ScaleBy(ctx, 180 / kPi); }

// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given.
// The clamp is two Wheres, not Clip: a NaN must stay NaN (torch's
// `x < lo ? lo : (x > hi ? hi : x)`).
// aten::logit(Tensor self, float? eps=None) -> Tensor
absl::Status AtenLogit(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelf(ctx, dtype));
  std::optional<double> eps;
  if (ctx.Has("eps")) {
    PT2ONNX_ASSIGN_OR_RETURN(eps, ctx.OptionalFloat("eps"));
  }
  if (eps.has_value() && *eps >= 0) {
    std::string lo = ctx.ConstantScalar(dtype, *eps);
    std::string hi = ctx.ConstantScalar(dtype, 1 - *eps);
    x = ctx.Op("Where", {ctx.Op("Less", {x, lo}), lo, x});
    x = ctx.Op("Where", {ctx.Op("Greater", {x, hi}), hi, x});
  }
  std::string one = ctx.ConstantScalar(dtype, 1);
  return BindResult(ctx, ctx.Op("Log", {ctx.Op("Div", {x, ctx.Op("Sub", {one, x})})}));
}

// self * log(other), 0 where self == 0 unless other is NaN
// (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp, xlogy_kernel).
// aten::xlogy.Tensor(Tensor self, Tensor other) -> Tensor
// aten::xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor
// aten::xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor
absl::Status AtenXlogy(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputOrScalarAs("other", dtype));
  std::string zero = Zero(ctx, dtype);
  std::string product = ctx.Op("Mul", {x, ctx.Op("Log", {y})});
  std::string result = ctx.Op("Where", {ctx.Op("Equal", {x, zero}), zero, product});
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("IsNaN", {y}), y, result}));
}

// max(a, b) + log(1 + base^-|a - b|) / log(base); equal infinities give
// themselves (inf - inf would be NaN), as torch's logaddexp kernel does. A
// NaN operand reaches the sum through |a - b|.
absl::Status LogAddExp(TranslateContext& ctx, bool base2) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("other", dtype));
  std::string larger = ctx.Op("Where", {ctx.Op("Greater", {a, b}), a, b});
  std::string gap = ctx.Op("Neg", {ctx.Op("Abs", {ctx.Op("Sub", {a, b})})});
  std::string power = base2 ? ctx.Op("Pow", {ctx.ConstantScalar(dtype, 2), gap}) : ctx.Op("Exp", {gap});
  std::string log = ctx.Op("Log", {ctx.Op("Add", {ctx.ConstantScalar(dtype, 1), power})});
  if (base2) log = ctx.Op("Mul", {log, ctx.ConstantScalar(dtype, 1 / kLn2)});
  std::string sum = ctx.Op("Add", {larger, log});
  std::string inf = ctx.ConstantScalar(dtype, kInf);
  std::string same_inf = ctx.Op("And", {ctx.Op("Equal", {a, b}), ctx.Op("Equal", {ctx.Op("Abs", {a}), inf})});
  return BindResult(ctx, ctx.Op("Where", {same_inf, a, sum}));
}
// aten::logaddexp(Tensor self, Tensor other) -> Tensor
absl::Status AtenLogaddexp(TranslateContext& ctx) { return LogAddExp(ctx, false); }
// aten::logaddexp2(Tensor self, Tensor other) -> Tensor
absl::Status AtenLogaddexp2(TranslateContext& ctx) { return LogAddExp(ctx, true); }

// values where self == 0, else (self > 0); NaN gives 0 (torch's
// `a == 0 ? b : a > 0`). Bools: self or values.
// aten::heaviside(Tensor self, Tensor values) -> Tensor
absl::Status AtenHeaviside(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string values, ctx.InputAs("values", dtype));
  if (dtype == DataType::kBool) return BindResult(ctx, ctx.Op("Or", {x, values}));
  std::string zero = Zero(ctx, dtype);
  std::string step = ctx.CastTo(ctx.Op("Greater", {x, zero}), DataType::kBool, dtype);
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("Equal", {x, zero}), values, step}));
}

// self + value * (tensor1 op tensor2), in the promoted dtype.
absl::Status AddcOp(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype == DataType::kBool) return ctx.Unsupported("boolean addcmul/addcdiv");
  if (op_type == "Div" && !IsFloatingPoint(dtype)) {
    return ctx.Invalid("addcdiv on integer tensors (torch refuses integer division here)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string t1, ctx.InputAs("tensor1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string t2, ctx.InputAs("tensor2", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(double value, FloatOr(ctx, "value", 1));
  std::string term = ctx.Op(op_type, {t1, t2});
  // torch multiplies value into the first factor: value * t1 * t2.
  if (value != 1) term = ctx.Op(op_type, {ctx.Op("Mul", {ctx.ConstantScalar(dtype, value), t1}), t2});
  return BindResult(ctx, ctx.Op("Add", {self, term}));
}
// aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
absl::Status AtenAddcmul(TranslateContext& ctx) { return AddcOp(ctx, "Mul"); }
// aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
absl::Status AtenAddcdiv(TranslateContext& ctx) { return AddcOp(ctx, "Div"); }

// self + weight * (end - self) for |weight| < 0.5, else
// end - (end - self) * (1 - weight): torch's two-sided form
// (aten/src/ATen/native/Lerp.h), exact at weight 0 and 1.
// aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor
// aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor
absl::Status AtenLerp(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string start, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string end, ctx.InputAs("end", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.InputOrScalarAs("weight", dtype));
  std::string diff = ctx.Op("Sub", {end, start});
  std::string low = ctx.Op("Add", {start, ctx.Op("Mul", {weight, diff})});
  std::string rest = ctx.Op("Sub", {ctx.ConstantScalar(dtype, 1), weight});
  std::string high = ctx.Op("Sub", {end, ctx.Op("Mul", {diff, rest})});
  std::string small = ctx.Op("Less", {ctx.Op("Abs", {weight}), ctx.ConstantScalar(dtype, 0.5)});
  return BindResult(ctx, ctx.Op("Where", {small, low, high}));
}

// The float-class predicates: integers and bools are always finite, never
// infinite. Equal against +-inf works for every float type (ONNX IsInf has
// no float16 kernel in some runtimes).
// Half types are read as float32 (exact, infinities and NaN included):
// runtimes lack 16-bit comparison kernels.
absl::StatusOr<std::string> FloatSelfOrNull(TranslateContext& ctx, DataType& dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("self"));
  if (!IsFloatingPoint(in)) return std::string();
  dtype = ElementSize(in) == 2 ? DataType::kFloat : in;
  return ctx.InputAs("self", dtype);
}
absl::Status ConstantLikeSelf(TranslateContext& ctx, bool value) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "self"));
  return BindResult(ctx, ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, value ? 1 : 0), shape}));
}
absl::Status EqualsConstant(TranslateContext& ctx, double c) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelfOrNull(ctx, dtype));
  if (x.empty()) return ConstantLikeSelf(ctx, false);
  return BindResult(ctx, ctx.Op("Equal", {x, ctx.ConstantScalar(dtype, c)}));
}
// aten::isposinf(Tensor self) -> Tensor
absl::Status AtenIsposinf(TranslateContext& ctx) { return EqualsConstant(ctx, kInf); }
// aten::isneginf(Tensor self) -> Tensor
absl::Status AtenIsneginf(TranslateContext& ctx) { return EqualsConstant(ctx, -kInf); }
// x - x is 0 exactly for finite x (NaN for NaN and +-inf).
// aten::isfinite(Tensor self) -> Tensor
absl::Status AtenIsfinite(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelfOrNull(ctx, dtype));
  if (x.empty()) return ConstantLikeSelf(ctx, true);
  return BindResult(ctx, ctx.Op("Equal", {ctx.Op("Sub", {x, x}), Zero(ctx, dtype)}));
}
// The sign bit: x < 0, or -0 (1 / -0 is -inf). ONNX cannot read the sign
// of a NaN, so signbit(-nan) is false here where torch says true.
// aten::signbit(Tensor self) -> Tensor
absl::Status AtenSignbit(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("self"));
  if (in == DataType::kBool || in == DataType::kUint8) return ConstantLikeSelf(ctx, false);
  const DataType dtype = IsFloatingPoint(in) && ElementSize(in) == 2 ? DataType::kFloat : in;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string zero = Zero(ctx, dtype);
  std::string negative = ctx.Op("Less", {x, zero});
  if (!IsFloatingPoint(dtype)) return BindResult(ctx, negative);
  return BindResult(ctx, ctx.Op("Or", {negative, ctx.Op("Less", {ctx.Op("Reciprocal", {x}), zero})}));
}

// pi for negative x, 0 otherwise, NaN kept (torch's angle of a real
// tensor; integers give float32). Complex inputs are refused: this layout
// carries them only between FFT ops.
// aten::angle(Tensor self) -> Tensor
absl::Status AtenAngle(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("self"));
  if (IsComplex(in)) return ctx.Unsupported("angle of a complex tensor");
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatSelf(ctx, dtype));
  std::string zero = Zero(ctx, dtype);
  std::string angle = ctx.Op("Where", {ctx.Op("Less", {x, zero}), ctx.ConstantScalar(dtype, kPi), zero});
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("IsNaN", {x}), x, angle}));
}

// a == b, or (NaN, NaN) with equal_nan, or a finite |a - b| within
// atol + |rtol b| (torch's isclose; integers compared in float64, where
// every int32 and every int64 below 2^53 is exact).
// aten::isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
absl::Status AtenIsclose(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(double rtol, FloatOr(ctx, "rtol", 1e-5));
  PT2ONNX_ASSIGN_OR_RETURN(double atol, FloatOr(ctx, "atol", 1e-8));
  bool equal_nan = false;
  if (ctx.Has("equal_nan")) {
    PT2ONNX_ASSIGN_OR_RETURN(equal_nan, ctx.Bool("equal_nan"));
  }
  const DataType dtype = in == DataType::kBool || IsFloatingPoint(in) ? in : DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("other", dtype));
  std::string close = ctx.Op("Equal", {a, b});
  if (dtype == DataType::kBool || (rtol == 0 && atol == 0 && !equal_nan)) return BindResult(ctx, close);
  if (equal_nan) close = ctx.Op("Or", {close, ctx.Op("And", {ctx.Op("IsNaN", {a}), ctx.Op("IsNaN", {b})})});
  if (rtol == 0 && atol == 0) return BindResult(ctx, close);
  std::string diff = ctx.Op("Abs", {ctx.Op("Sub", {a, b})});
  std::string allowed = ctx.Op("Add", {ctx.ConstantScalar(dtype, atol),
                                       ctx.Op("Abs", {ctx.Op("Mul", {ctx.ConstantScalar(dtype, rtol), b})})});
  std::string finite = ctx.Op("Equal", {ctx.Op("Sub", {diff, diff}), Zero(ctx, dtype)});
  std::string within = ctx.Op("And", {finite, ctx.Op("LessOrEqual", {diff, allowed})});
  return BindResult(ctx, ctx.Op("Or", {close, within}));
}

}  // namespace

void RegisterPointwiseCompositeOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::erfc", "default", &AtenErfc);
  AddWithInPlace(r, "aten::frac", "default", &AtenFrac);
  AddWithInPlace(r, "aten::sinc", "default", &AtenSinc);
  AddWithInPlace(r, "aten::deg2rad", "default", &AtenDeg2rad);
  AddWithInPlace(r, "aten::rad2deg", "default", &AtenRad2deg);
  AddWithInPlace(r, "aten::logit", "default", &AtenLogit);
  AddWithInPlace(r, "aten::xlogy", "Tensor", &AtenXlogy);
  AddWithInPlace(r, "aten::xlogy", "Scalar_Other", &AtenXlogy);
  r.Add("aten::xlogy.Scalar_Self", &AtenXlogy);
  r.Add("aten::logaddexp.default", &AtenLogaddexp);
  r.Add("aten::logaddexp2.default", &AtenLogaddexp2);
  AddWithInPlace(r, "aten::heaviside", "default", &AtenHeaviside);
  AddWithInPlace(r, "aten::addcmul", "default", &AtenAddcmul);
  AddWithInPlace(r, "aten::addcdiv", "default", &AtenAddcdiv);
  AddWithInPlace(r, "aten::lerp", "Scalar", &AtenLerp);
  AddWithInPlace(r, "aten::lerp", "Tensor", &AtenLerp);
  r.Add("aten::isposinf.default", &AtenIsposinf);
  r.Add("aten::isneginf.default", &AtenIsneginf);
  r.Add("aten::isfinite.default", &AtenIsfinite);
  r.Add("aten::signbit.default", &AtenSignbit);
  r.Add("aten::angle.default", &AtenAngle);
  r.Add("aten::isclose.default", &AtenIsclose);
}

}  // namespace pt2onnx::ops
