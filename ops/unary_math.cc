// File: ops/unary_math.cc
// -----------------------------------------------------------------------------
// Elementwise unary math: exp/log families, roots, trigonometry, erf,
// rounding, sign, isnan/isinf, nan_to_num.
//
// In-place overloads (add_.Tensor, abs_.default, ...) are registered to the
// functional translation with AddWithInPlace and bound with BindResult; see
// translate/op_helpers.h for that convention.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using pt2::Argument;
using ArgKind = pt2::Argument::Kind;

// `op_type` on self cast to the output dtype (sin of an int tensor is float).
absl::Status Unary(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op(op_type, {x}));
}

// x (op) c, for ops ONNX spells as arithmetic on a constant.
absl::Status UnaryThenConstant(TranslateContext& ctx, absl::string_view unary_op,
                               absl::string_view binary_op, double c) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string y = unary_op.empty() ? x : ctx.Op(unary_op, {x});
  return BindResult(ctx, ctx.Op(binary_op, {y, ctx.ConstantScalar(dtype, c)}));
}

// aten::neg(Tensor self) -> Tensor
// ONNX Neg has no uint8 variant: 0 - x wraps modulo 256 as torch's negation.
absl::Status AtenNeg(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (dtype != DataType::kUint8) return Unary(ctx, "Neg");
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op("Sub", {ctx.ConstantScalar(dtype, 0), x}));
}
// aten::abs(Tensor self) -> Tensor
absl::Status AtenAbs(TranslateContext& ctx) { return Unary(ctx, "Abs"); }
// aten::exp(Tensor self) -> Tensor
absl::Status AtenExp(TranslateContext& ctx) { return Unary(ctx, "Exp"); }
// aten::exp2(Tensor self) -> Tensor
absl::Status AtenExp2(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op("Pow", {ctx.ConstantScalar(dtype, 2), x}));
}
// aten::expm1(Tensor self) -> Tensor
absl::Status AtenExpm1(TranslateContext& ctx) { return UnaryThenConstant(ctx, "Exp", "Sub", 1); }
// aten::log(Tensor self) -> Tensor
absl::Status AtenLog(TranslateContext& ctx) { return Unary(ctx, "Log"); }
// aten::log2(Tensor self) -> Tensor
absl::Status AtenLog2(TranslateContext& ctx) {
  return UnaryThenConstant(ctx, "Log", "Mul", 1 / kLn2);
}
// aten::log10(Tensor self) -> Tensor
absl::Status AtenLog10(TranslateContext& ctx) {
  return UnaryThenConstant(ctx, "Log", "Mul", 1 / kLn10);
}
// aten::log1p(Tensor self) -> Tensor
absl::Status AtenLog1p(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op("Log", {ctx.Op("Add", {x, ctx.ConstantScalar(dtype, 1)})}));
}
// aten::sqrt(Tensor self) -> Tensor
absl::Status AtenSqrt(TranslateContext& ctx) { return Unary(ctx, "Sqrt"); }
// aten::rsqrt(Tensor self) -> Tensor
absl::Status AtenRsqrt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op("Reciprocal", {ctx.Op("Sqrt", {x})}));
}
// aten::square(Tensor self) -> Tensor
absl::Status AtenSquare(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op(dtype == DataType::kBool ? "And" : "Mul", {x, x}));
}
// aten::sin(Tensor self) -> Tensor
absl::Status AtenSin(TranslateContext& ctx) { return Unary(ctx, "Sin"); }
// aten::cos(Tensor self) -> Tensor
absl::Status AtenCos(TranslateContext& ctx) { return Unary(ctx, "Cos"); }
// aten::tan(Tensor self) -> Tensor
absl::Status AtenTan(TranslateContext& ctx) { return Unary(ctx, "Tan"); }
// aten::asin(Tensor self) -> Tensor
absl::Status AtenAsin(TranslateContext& ctx) { return Unary(ctx, "Asin"); }
// aten::acos(Tensor self) -> Tensor
absl::Status AtenAcos(TranslateContext& ctx) { return Unary(ctx, "Acos"); }
// aten::atan(Tensor self) -> Tensor
absl::Status AtenAtan(TranslateContext& ctx) { return Unary(ctx, "Atan"); }
// aten::sinh(Tensor self) -> Tensor
absl::Status AtenSinh(TranslateContext& ctx) { return Unary(ctx, "Sinh"); }
// aten::cosh(Tensor self) -> Tensor
absl::Status AtenCosh(TranslateContext& ctx) { return Unary(ctx, "Cosh"); }
// aten::tanh(Tensor self) -> Tensor
absl::Status AtenTanh(TranslateContext& ctx) { return Unary(ctx, "Tanh"); }
// aten::sigmoid(Tensor self) -> Tensor
absl::Status AtenSigmoid(TranslateContext& ctx) { return Unary(ctx, "Sigmoid"); }
// ONNX Runtime's Erf gives 1 for NaN; torch gives NaN.
// aten::erf(Tensor self) -> Tensor
absl::Status AtenErf(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("IsNaN", {x}), x, ctx.Op("Erf", {x})}));
}
// aten::reciprocal(Tensor self) -> Tensor
absl::Status AtenReciprocal(TranslateContext& ctx) { return Unary(ctx, "Reciprocal"); }

// Rounding ops return integer (and bool) tensors unchanged.
absl::Status Rounding(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  if (!IsFloatingPoint(dtype)) return BindResult(ctx, x);
  if (op_type == "Trunc") return BindResult(ctx, TruncFloat(ctx, x, dtype));
  return BindResult(ctx, ctx.Op(op_type, {x}));
}

// aten::floor(Tensor self) -> Tensor
absl::Status AtenFloor(TranslateContext& ctx) { return Rounding(ctx, "Floor"); }
// aten::ceil(Tensor self) -> Tensor
absl::Status AtenCeil(TranslateContext& ctx) { return Rounding(ctx, "Ceil"); }
// aten::trunc(Tensor self) -> Tensor
absl::Status AtenTrunc(TranslateContext& ctx) { return Rounding(ctx, "Trunc"); }
// aten::round(Tensor self) -> Tensor  (half to even, as ONNX Round)
absl::Status AtenRound(TranslateContext& ctx) { return Rounding(ctx, "Round"); }

// torch scales by 10^decimals, or divides by 10^-decimals for negative ones
// (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp round_decimals_kernel).
// aten::round.decimals(Tensor self, *, int decimals) -> Tensor
absl::Status AtenRoundDecimals(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t decimals, ctx.Int("decimals"));
  if (decimals == 0) return AtenRound(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  if (!IsFloatingPoint(dtype)) return ctx.Unsupported("round with decimals on integer tensors");
  std::string scale = ctx.ConstantScalar(dtype, std::pow(10.0, std::abs(decimals)));
  const char* in = decimals > 0 ? "Mul" : "Div";
  const char* out = decimals > 0 ? "Div" : "Mul";
  return BindResult(ctx, ctx.Op(out, {ctx.Op("Round", {ctx.Op(in, {x, scale})}), scale}));
}

// torch.sign(NaN) is 0, ONNX Sign(NaN) is NaN.
// aten::sign(Tensor self) -> Tensor  (bool stays bool)
absl::Status AtenSign(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  if (dtype == DataType::kBool) return BindResult(ctx, x);
  std::string sign = ctx.Op("Sign", {x});
  if (!IsFloatingPoint(dtype)) return BindResult(ctx, sign);
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("IsNaN", {x}), Zero(ctx, dtype), sign}));
}

// IsInf takes 16-bit floats only from opset 20; below, test a float32 copy
// (the conversion keeps infinities).
std::string IsInf(TranslateContext& ctx, const std::string& x, DataType dtype,
                  std::vector<ir::Attribute> attributes = {}) {
  std::string in = x;
  if (ctx.opset() < 20 && ElementSize(dtype) == 2) in = ctx.CastTo(x, dtype, DataType::kFloat);
  return ctx.Op("IsInf", {in}, std::move(attributes));
}

// Integer tensors hold no NaN or inf.
absl::Status FloatClass(TranslateContext& ctx, bool nan) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  if (IsFloatingPoint(in)) return BindResult(ctx, nan ? ctx.Op("IsNaN", {x}) : IsInf(ctx, x, in));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "self"));
  return BindResult(ctx, ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 0), shape}));
}

// aten::isnan(Tensor self) -> Tensor
absl::Status AtenIsnan(TranslateContext& ctx) { return FloatClass(ctx, true); }
// aten::isinf(Tensor self) -> Tensor
absl::Status AtenIsinf(TranslateContext& ctx) { return FloatClass(ctx, false); }

double MaxFinite(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16: return 65504.0;
    case DataType::kBFloat16: return 3.3895313892515355e38;
    case DataType::kDouble: return std::numeric_limits<double>::max();
    default: return std::numeric_limits<float>::max();
  }
}

// Defaults: nan -> 0, +inf -> the dtype's max, -inf -> its lowest.
// aten::nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor
absl::Status AtenNanToNum(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  if (!IsFloatingPoint(dtype)) return BindResult(ctx, x);
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> nan, ctx.OptionalFloat("nan"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> posinf, ctx.OptionalFloat("posinf"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> neginf, ctx.OptionalFloat("neginf"));
  std::string y =
      ctx.Op("Where", {ctx.Op("IsNaN", {x}), ctx.ConstantScalar(dtype, nan.value_or(0)), x});
  std::string is_pos = IsInf(ctx, x, dtype, {ir::Attribute::Int("detect_negative", 0)});
  y = ctx.Op("Where", {is_pos, ctx.ConstantScalar(dtype, posinf.value_or(MaxFinite(dtype))), y});
  std::string is_neg = IsInf(ctx, x, dtype, {ir::Attribute::Int("detect_positive", 0)});
  y = ctx.Op("Where", {is_neg, ctx.ConstantScalar(dtype, neginf.value_or(-MaxFinite(dtype))), y});
  return BindResult(ctx, y);
}

}  // namespace

void RegisterUnaryMathOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::neg", "default", &AtenNeg);
  AddWithInPlace(r, "aten::abs", "default", &AtenAbs);
  AddWithInPlace(r, "aten::exp", "default", &AtenExp);
  AddWithInPlace(r, "aten::exp2", "default", &AtenExp2);
  AddWithInPlace(r, "aten::expm1", "default", &AtenExpm1);
  AddWithInPlace(r, "aten::log", "default", &AtenLog);
  AddWithInPlace(r, "aten::log2", "default", &AtenLog2);
  AddWithInPlace(r, "aten::log10", "default", &AtenLog10);
  AddWithInPlace(r, "aten::log1p", "default", &AtenLog1p);
  AddWithInPlace(r, "aten::sqrt", "default", &AtenSqrt);
  AddWithInPlace(r, "aten::rsqrt", "default", &AtenRsqrt);
  AddWithInPlace(r, "aten::square", "default", &AtenSquare);
  AddWithInPlace(r, "aten::sin", "default", &AtenSin);
  AddWithInPlace(r, "aten::cos", "default", &AtenCos);
  AddWithInPlace(r, "aten::tan", "default", &AtenTan);
  AddWithInPlace(r, "aten::asin", "default", &AtenAsin);
  AddWithInPlace(r, "aten::acos", "default", &AtenAcos);
  AddWithInPlace(r, "aten::atan", "default", &AtenAtan);
  AddWithInPlace(r, "aten::sinh", "default", &AtenSinh);
  AddWithInPlace(r, "aten::cosh", "default", &AtenCosh);
  AddWithInPlace(r, "aten::tanh", "default", &AtenTanh);
  AddWithInPlace(r, "aten::sigmoid", "default", &AtenSigmoid);
  AddWithInPlace(r, "aten::erf", "default", &AtenErf);
  AddWithInPlace(r, "aten::reciprocal", "default", &AtenReciprocal);
  AddWithInPlace(r, "aten::floor", "default", &AtenFloor);
  AddWithInPlace(r, "aten::ceil", "default", &AtenCeil);
  AddWithInPlace(r, "aten::trunc", "default", &AtenTrunc);
  AddWithInPlace(r, "aten::round", "default", &AtenRound);
  AddWithInPlace(r, "aten::round", "decimals", &AtenRoundDecimals);
  AddWithInPlace(r, "aten::sign", "default", &AtenSign);
  r.Add("aten::isnan.default", &AtenIsnan);
  r.Add("aten::isinf.default", &AtenIsinf);
  AddWithInPlace(r, "aten::nan_to_num", "default", &AtenNanToNum);
}

}  // namespace pt2onnx::ops
