// File: ops/arithmetic.cc
// -----------------------------------------------------------------------------
// Elementwise arithmetic: add/sub/mul/div (every rounding mode), pow,
// remainder/fmod, atan2, minimum/maximum.
//
// Types: torch promotes operands before computing (result_type); the FX
// metadata of the output already holds the promoted dtype, so arithmetic casts
// every operand to ctx.OutputDtype(0).
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
#include "core/dtype.h"
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

// self (op) alpha * other, in the output dtype. Bool add/mul are or/and.
absl::Status AddSub(TranslateContext& ctx, absl::string_view op_type, bool reversed) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string other, ctx.InputOrScalarAs("other", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(double alpha, FloatOr(ctx, "alpha", 1));
  if (dtype == DataType::kBool) {
    if (op_type != "Add" || alpha != 1) return ctx.Unsupported("boolean subtraction or alpha");
    return BindResult(ctx, ctx.Op("Or", {self, other}));
  }
  // rsub computes other - alpha * self.
  std::string& scaled = reversed ? self : other;
  if (alpha != 1) scaled = ctx.Op("Mul", {scaled, ctx.ConstantScalar(dtype, alpha)});
  return BindResult(ctx, reversed ? ctx.Op(op_type, {other, self}) : ctx.Op(op_type, {self, other}));
}

// aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
absl::Status AtenAdd(TranslateContext& ctx) { return AddSub(ctx, "Add", false); }
// aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
absl::Status AtenSub(TranslateContext& ctx) { return AddSub(ctx, "Sub", false); }
// aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
absl::Status AtenRsub(TranslateContext& ctx) { return AddSub(ctx, "Sub", true); }

// aten::mul.Tensor(Tensor self, Tensor other) -> Tensor
// aten::mul.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenMul(TranslateContext& ctx) {
  if (ctx.OutputDtype(0) == DataType::kBool) return BinaryInOutputType(ctx, "And");
  return BinaryInOutputType(ctx, "Mul");
}

// Division with torch's rounding modes. Without one the output is floating
// (integer inputs were promoted), so plain Div is true division.
absl::Status DivMode(TranslateContext& ctx, absl::string_view mode) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  bool is_float = IsFloatingPoint(dtype);
  if (mode.empty()) {
    if (!is_float) return ctx.Unsupported(absl::StrCat("true division into ", DataTypeName(dtype)));
    return BindResult(ctx, ctx.Op("Div", {a, b}));
  }
  if (mode == "trunc") {
    std::string q = ctx.Op("Div", {a, b});
    return BindResult(ctx, is_float ? TruncFloat(ctx, q, dtype) : q);
  }
  if (mode == "floor") {
    if (is_float) return BindResult(ctx, FloorDivFloat(ctx, a, b, dtype));
    return BindResult(ctx, FloorDivInt(ctx, a, b, dtype));
  }
  return ctx.Invalid(absl::StrCat("unknown rounding_mode '", mode, "'"));
}

absl::StatusOr<std::string> RoundingMode(const TranslateContext& ctx) {
  if (!ctx.Has("rounding_mode")) return std::string();
  return ctx.String("rounding_mode");
}

// aten::div.Tensor(Tensor self, Tensor other) -> Tensor
// aten::div.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenDiv(TranslateContext& ctx) { return DivMode(ctx, ""); }
// aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor
// aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor
absl::Status AtenDivMode(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string mode, RoundingMode(ctx));
  return DivMode(ctx, mode);
}
// aten::floor_divide(Tensor self, Tensor other) -> Tensor
absl::Status AtenFloorDivide(TranslateContext& ctx) { return DivMode(ctx, "floor"); }

// aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
// aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
// aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor
// aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)
// aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)
// ONNX's Pow takes int32/int64 bases only: narrower integers are raised in
// a wider type and wrapped back, as ATen's repeated multiplication wraps.
absl::Status AtenPow(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsInteger(dtype) || dtype == DataType::kInt32 || dtype == DataType::kInt64) {
    return BinaryInOutputType(ctx, "Pow", "self", "exponent");
  }
  const DataType wide = ElementSize(dtype) < 4 ? DataType::kInt32 : DataType::kInt64;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("exponent", dtype));
  std::string power = ctx.Op("Pow", {ctx.CastTo(a, dtype, wide), ctx.CastTo(b, dtype, wide)});
  return BindResult(ctx, ctx.CastTo(power, wide, dtype));
}

// aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor
// aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor
// aten::remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor
absl::Status AtenRemainder(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  return BindResult(ctx, PythonMod(ctx, a, b, dtype));
}

// C fmod: the result has the dividend's sign (Mod fmod=1, ints and floats).
// aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor
// aten::fmod.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenFmod(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  return BindResult(ctx, ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 1)}));
}

// True where the sign bit of float `v` is set (v < 0, -0 and -inf included:
// 1 / -0 is -inf).
std::string SignBit(TranslateContext& ctx, const std::string& v, DataType dtype) {
  std::string zero = Zero(ctx, dtype);
  return ctx.Op("Or", {ctx.Op("Less", {v, zero}),
                       ctx.Op("Less", {ctx.Op("Reciprocal", {v}), zero})});
}

// ONNX has no Atan2. The angle of (|x|, |y|) in [0, pi/2] is atan(|y| / |x|)
// (0 at the origin, pi/4 for two infinities, as std::atan2), then mirrored
// into x's half-plane and given y's sign, signed zeros included.
// aten::atan2(Tensor self, Tensor other) -> Tensor
absl::Status AtenAtan2(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("other", dtype));
  std::string zero = Zero(ctx, dtype);
  std::string ax = ctx.Op("Abs", {x});
  std::string ay = ctx.Op("Abs", {y});
  std::string angle = ctx.Op("Atan", {ctx.Op("Div", {ay, ax})});
  std::string origin = ctx.Op("And", {ctx.Op("Equal", {ax, zero}), ctx.Op("Equal", {ay, zero})});
  angle = ctx.Op("Where", {origin, zero, angle});
  std::string inf = ctx.ConstantScalar(dtype, std::numeric_limits<double>::infinity());
  std::string infinities = ctx.Op("And", {ctx.Op("Equal", {ax, inf}), ctx.Op("Equal", {ay, inf})});
  angle = ctx.Op("Where", {infinities, ctx.ConstantScalar(dtype, kPi / 4), angle});
  std::string mirrored = ctx.Op("Sub", {ctx.ConstantScalar(dtype, kPi), angle});
  angle = ctx.Op("Where", {SignBit(ctx, x, dtype), mirrored, angle});
  return BindResult(ctx, ctx.Op("Where", {SignBit(ctx, y, dtype), ctx.Op("Neg", {angle}), angle}));
}

// ONNX Min/Max have no bool kernels; on bools they are and/or.
// aten::minimum(Tensor self, Tensor other) -> Tensor
absl::Status AtenMinimum(TranslateContext& ctx) {
  return BinaryInOutputType(ctx, ctx.OutputDtype(0) == DataType::kBool ? "And" : "Min");
}
// aten::maximum(Tensor self, Tensor other) -> Tensor
absl::Status AtenMaximum(TranslateContext& ctx) {
  return BinaryInOutputType(ctx, ctx.OutputDtype(0) == DataType::kBool ? "Or" : "Max");
}

// Two-tensor max/min are elementwise maximum/minimum (the reductions
// max.dim/max.default live in reduction.cc).
// aten::max.other(Tensor self, Tensor other) -> Tensor
absl::Status AtenMaxOther(TranslateContext& ctx) { return AtenMaximum(ctx); }
// aten::min.other(Tensor self, Tensor other) -> Tensor
absl::Status AtenMinOther(TranslateContext& ctx) { return AtenMinimum(ctx); }

}  // namespace

void RegisterArithmeticOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::add", "Tensor", &AtenAdd);
  AddWithInPlace(r, "aten::add", "Scalar", &AtenAdd);
  AddWithInPlace(r, "aten::sub", "Tensor", &AtenSub);
  AddWithInPlace(r, "aten::sub", "Scalar", &AtenSub);
  r.Add("aten::rsub.Tensor", &AtenRsub);
  r.Add("aten::rsub.Scalar", &AtenRsub);
  AddWithInPlace(r, "aten::mul", "Tensor", &AtenMul);
  AddWithInPlace(r, "aten::mul", "Scalar", &AtenMul);
  AddWithInPlace(r, "aten::div", "Tensor", &AtenDiv);
  AddWithInPlace(r, "aten::div", "Scalar", &AtenDiv);
  AddWithInPlace(r, "aten::div", "Tensor_mode", &AtenDivMode);
  AddWithInPlace(r, "aten::div", "Scalar_mode", &AtenDivMode);
  r.Add("aten::true_divide.Tensor", &AtenDiv);
  r.Add("aten::true_divide.Scalar", &AtenDiv);
  r.Add("aten::floor_divide.default", &AtenFloorDivide);
  r.Add("aten::floor_divide_.Tensor", &AtenFloorDivide);
  AddWithInPlace(r, "aten::floor_divide", "Scalar", &AtenFloorDivide);
  // The in-place twins are named pow_.Tensor / pow_.Scalar in ATen.
  r.Add("aten::pow.Tensor_Tensor", &AtenPow);
  r.Add("aten::pow_.Tensor", &AtenPow);
  r.Add("aten::pow.Tensor_Scalar", &AtenPow);
  r.Add("aten::pow_.Scalar", &AtenPow);
  r.Add("aten::pow.Scalar", &AtenPow);
  AddWithInPlace(r, "aten::remainder", "Tensor", &AtenRemainder);
  AddWithInPlace(r, "aten::remainder", "Scalar", &AtenRemainder);
  r.Add("aten::remainder.Scalar_Tensor", &AtenRemainder);
  AddWithInPlace(r, "aten::fmod", "Tensor", &AtenFmod);
  AddWithInPlace(r, "aten::fmod", "Scalar", &AtenFmod);
  AddWithInPlace(r, "aten::atan2", "default", &AtenAtan2);
  r.Add("aten::minimum.default", &AtenMinimum);
  r.Add("aten::maximum.default", &AtenMaximum);
  r.Add("aten::max.other", &AtenMaxOther);
  r.Add("aten::min.other", &AtenMinOther);
}

}  // namespace pt2onnx::ops
