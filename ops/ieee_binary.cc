// File: ops/ieee_binary.cc
// -----------------------------------------------------------------------------
// Binary ops with IEEE-754 semantics ONNX has no operator for: fmax / fmin
// (NaN-ignoring), copysign, hypot, ldexp and float_power. Formulas from
// aten/src/ATen/native/cpu/BinaryOpsKernel.cpp and BinaryOps.cpp.
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// Both operands in the output dtype (Scalars as constants of it).
struct Operands {
  DataType dtype;
  std::string a, b;
};

absl::StatusOr<Operands> ReadOperands(TranslateContext& ctx, absl::string_view other) {
  Operands ops;
  PT2ONNX_ASSIGN_OR_RETURN(ops.dtype, OutDtype(ctx));
  if (IsComplex(ops.dtype)) return ctx.Unsupported("complex operands");
  if (ops.dtype == DataType::kBool) return ctx.Unsupported("bool operands");
  PT2ONNX_ASSIGN_OR_RETURN(ops.a, ctx.InputOrScalarAs("self", ops.dtype));
  PT2ONNX_ASSIGN_OR_RETURN(ops.b, ctx.InputOrScalarAs(other, ops.dtype));
  return ops;
}

// fmax / fmin: the other operand where one is NaN (NaN only when both are).
absl::Status NanIgnoring(TranslateContext& ctx, const char* op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands ops, ReadOperands(ctx, "other"));
  std::string extreme = ctx.Op(op_type, {ops.a, ops.b});
  if (!IsFloatingPoint(ops.dtype)) return BindResult(ctx, extreme);
  std::string b_or_extreme = ctx.Op("Where", {ctx.Op("IsNaN", {ops.b}), ops.a, extreme});
  return BindResult(ctx, ctx.Op("Where", {ctx.Op("IsNaN", {ops.a}), ops.b, b_or_extreme}));
}

// aten::fmax(Tensor self, Tensor other) -> Tensor
absl::Status AtenFmax(TranslateContext& ctx) { return NanIgnoring(ctx, "Max"); }
// aten::fmin(Tensor self, Tensor other) -> Tensor
absl::Status AtenFmin(TranslateContext& ctx) { return NanIgnoring(ctx, "Min"); }

// |self| with the sign bit of other: negative, or -0 (1 / -0 is -inf). ONNX
// cannot read a NaN's sign bit, so a NaN `other` counts as positive.
// aten::copysign.Tensor(Tensor self, Tensor other) -> Tensor (and .Scalar)
absl::Status AtenCopysign(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands ops, ReadOperands(ctx, "other"));
  std::string zero = Zero(ctx, ops.dtype);
  std::string below_zero = ctx.Op("Less", {ops.b, zero});
  std::string negative_zero = ctx.Op("Less", {ctx.Op("Reciprocal", {ops.b}), zero});
  std::string sign_bit = ctx.Op("Or", {below_zero, negative_zero});
  std::string magnitude = ctx.Op("Abs", {ops.a});
  return BindResult(ctx, ctx.Op("Where", {sign_bit, ctx.Op("Neg", {magnitude}), magnitude}));
}

// sqrt(a^2 + b^2) without overflow or underflow, as std::hypot: scaled by
// m = max(|a|, |b|); inf where either is infinite, even against a NaN.
// aten::hypot(Tensor self, Tensor other) -> Tensor
absl::Status AtenHypot(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands ops, ReadOperands(ctx, "other"));
  if (!IsFloatingPoint(ops.dtype)) return ctx.Invalid("hypot of integer tensors");
  std::string abs_a = ctx.Op("Abs", {ops.a});
  std::string abs_b = ctx.Op("Abs", {ops.b});
  std::string m = ctx.Op("Max", {abs_a, abs_b});
  std::string zero = Zero(ctx, ops.dtype);
  std::string one = ctx.ConstantScalar(ops.dtype, 1.0);
  std::string scale = ctx.Op("Where", {ctx.Op("Equal", {m, zero}), one, m});
  std::string ra = ctx.Op("Div", {abs_a, scale});
  std::string rb = ctx.Op("Div", {abs_b, scale});
  std::string sum = ctx.Op("Add", {ctx.Op("Mul", {ra, ra}), ctx.Op("Mul", {rb, rb})});
  std::string scaled = ctx.Op("Mul", {m, ctx.Op("Sqrt", {sum})});
  std::string infinite = ctx.Op("Or", {ctx.Op("IsInf", {ops.a}), ctx.Op("IsInf", {ops.b})});
  std::string inf = ctx.ConstantScalar(ops.dtype, std::numeric_limits<double>::infinity());
  return BindResult(ctx, ctx.Op("Where", {infinite, inf, scaled}));
}

// self * 2^other, as torch spells it (self * pow(2, other)).
// aten::ldexp.Tensor(Tensor self, Tensor other) -> Tensor
absl::Status AtenLdexp(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands ops, ReadOperands(ctx, "other"));
  if (!IsFloatingPoint(ops.dtype)) return ctx.Invalid(absl::StrCat("ldexp to ", DataTypeName(ops.dtype)));
  std::string power = ctx.Op("Pow", {ctx.ConstantScalar(ops.dtype, 2.0), ops.b});
  return BindResult(ctx, ctx.Op("Mul", {ops.a, power}));
}

// pow in double (float_power's result is float64 for real inputs).
// aten::float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
// (and .Tensor_Scalar, .Scalar)
absl::Status AtenFloatPower(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands ops, ReadOperands(ctx, "exponent"));
  if (ops.dtype != DataType::kDouble) {
    return ctx.Invalid(absl::StrCat("float_power's result is float64, the program says ", DataTypeName(ops.dtype)));
  }
  return BindResult(ctx, ctx.Op("Pow", {ops.a, ops.b}));
}

}  // namespace

void RegisterIeeeBinaryOps(OpRegistry& r) {
  r.Add("aten::fmax.default", &AtenFmax);
  r.Add("aten::fmin.default", &AtenFmin);
  r.Add("aten::copysign.Tensor", &AtenCopysign);
  r.Add("aten::copysign.Scalar", &AtenCopysign);
  r.Add("aten::hypot.default", &AtenHypot);
  r.Add("aten::ldexp.Tensor", &AtenLdexp);
  r.Add("aten::float_power.Tensor_Tensor", &AtenFloatPower);
  r.Add("aten::float_power.Tensor_Scalar", &AtenFloatPower);
  r.Add("aten::float_power.Scalar", &AtenFloatPower);
}

}  // namespace pt2onnx::ops
