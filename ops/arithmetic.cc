// File: ops/elementwise.cc
// -----------------------------------------------------------------------------
// Elementwise ATen ops: arithmetic, comparisons, logical/bitwise ops, unary
// math, where/clamp/masked_fill. Dtype conversions, copies and identity-like
// ops live in conversion.cc.
//
// Types: torch promotes operands before computing (result_type); the FX
// metadata of the output already holds the promoted dtype, so arithmetic casts
// every operand to ctx.OutputDtype(0). Comparisons output BOOL, so their
// compute dtype is recomputed here with torch's rules (ResultType below).
//
// In-place overloads (add_.Tensor, abs_.default, ...) are registered to the
// functional translation with AddWithInPlace and bound with BindResult; see
// ops/op_helpers.h for that convention.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/aten/type_promotion.h"
#include "core/status_macros.h"
#include "ops/families.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using pt2::Argument;
using ArgKind = pt2::Argument::Kind;

// torch.result_type over the named Tensor/Scalar arguments: dimensioned
// tensors outrank 0-d tensors, which outrank Python scalars (a float scalar
// counts as the default dtype float32, an int one as int64).
absl::StatusOr<DataType> ResultType(const TranslateContext& ctx,
                                    std::vector<absl::string_view> args) {
  std::vector<aten::ResultTypeOperand> operands;
  for (absl::string_view name : args) {
    PT2ONNX_ASSIGN_OR_RETURN(Argument a, ctx.Arg(name));
    switch (a.kind) {
      case ArgKind::kTensor: {
        PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(name));
        operands.push_back({meta->dtype, meta->sizes.empty() ? aten::OperandKind::kZeroDimTensor
                                                             : aten::OperandKind::kTensor});
        break;
      }
      case ArgKind::kInt:
      case ArgKind::kSymInt:
        operands.push_back({DataType::kInt64, aten::OperandKind::kScalar});
        break;
      case ArgKind::kFloat:
      case ArgKind::kSymFloat:
        operands.push_back({DataType::kFloat, aten::OperandKind::kScalar});
        break;
      case ArgKind::kBool:
      case ArgKind::kSymBool:
        operands.push_back({DataType::kBool, aten::OperandKind::kScalar});
        break;
      default:
        return ctx.Invalid(absl::StrCat("argument '", name, "' is neither a tensor nor a scalar"));
    }
  }
  return aten::ResultType(operands);
}

// ---- Shared emission helpers -----------------------------------------------

// <cmath>'s M_PI family is POSIX, not C++17.
constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;

std::string Zero(TranslateContext& ctx, DataType dtype) { return ctx.ConstantScalar(dtype, 0); }

// trunc for floats: ONNX has no Trunc operator.
std::string TruncFloat(TranslateContext& ctx, const std::string& x, DataType dtype) {
  std::string negative = ctx.Op("Less", {x, Zero(ctx, dtype)});
  return ctx.Op("Where", {negative, ctx.Op("Ceil", {x}), ctx.Op("Floor", {x})});
}

// Python floor division for integers. ONNX integer Div truncates toward zero,
// so quotients of inexact divisions with operands of opposite signs drop by 1.
std::string FloorDivInt(TranslateContext& ctx, const std::string& a, const std::string& b,
                        DataType dtype) {
  std::string q = ctx.Op("Div", {a, b});
  std::string inexact = ctx.Op("Not", {ctx.Op("Equal", {ctx.Op("Mul", {q, b}), a})});
  std::string zero = Zero(ctx, dtype);
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {a, zero}), ctx.Op("Less", {b, zero})});
  std::string adjust = ctx.Op("And", {inexact, signs_differ});
  return ctx.Op("Where", {adjust, ctx.Op("Sub", {q, ctx.ConstantScalar(dtype, 1)}), q});
}

// Floor division for floats as ATen computes it (div_floor_floating in
// c10/util/generic_math.h): from fmod, so 1 // 0.1 is 9 (not floor(1 / 0.1)
// = 10) and inf // b is NaN; a zero divisor gives IEEE a / b.
std::string FloorDivFloat(TranslateContext& ctx, const std::string& a, const std::string& b,
                          DataType dtype) {
  std::string zero = Zero(ctx, dtype);
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::string mod = ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 1)});
  std::string div = ctx.Op("Div", {ctx.Op("Sub", {a, mod}), b});
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {b, zero}), ctx.Op("Less", {mod, zero})});
  std::string adjust = ctx.Op("And", {ctx.Op("Not", {ctx.Op("Equal", {mod, zero})}), signs_differ});
  div = ctx.Op("Where", {adjust, ctx.Op("Sub", {div, one}), div});
  std::string floor = ctx.Op("Floor", {div});
  std::string round_up =
      ctx.Op("Greater", {ctx.Op("Sub", {div, floor}), ctx.ConstantScalar(dtype, 0.5)});
  floor = ctx.Op("Where", {round_up, ctx.Op("Add", {floor, one}), floor});
  // A zero quotient takes the sign of a / b (finite here: |a| < |b|).
  std::string quotient = ctx.Op("Div", {a, b});
  std::string signed_zero = ctx.Op("Mul", {quotient, zero});
  std::string result = ctx.Op("Where", {ctx.Op("Equal", {div, zero}), signed_zero, floor});
  return ctx.Op("Where", {ctx.Op("Equal", {b, zero}), quotient, result});
}

// Python modulo (result has the divisor's sign). Integers: Mod with fmod=0.
// Floats: ONNX requires fmod=1, so fix the sign afterwards as ATen's
// remainder kernel does (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp).
std::string PythonMod(TranslateContext& ctx, const std::string& a, const std::string& b,
                      DataType dtype) {
  if (!IsFloatingPoint(dtype)) return ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 0)});
  std::string r = ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 1)});
  std::string zero = Zero(ctx, dtype);
  std::string nonzero = ctx.Op("Not", {ctx.Op("Equal", {r, zero})});
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {r, zero}), ctx.Op("Less", {b, zero})});
  std::string fix = ctx.Op("And", {nonzero, signs_differ});
  return ctx.Op("Where", {fix, ctx.Op("Add", {r, b}), r});
}

// ---- Arithmetic --------------------------------------------------------------

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

// Both operands in the output dtype, then `op_type`.
absl::Status BinaryInOutputType(TranslateContext& ctx, absl::string_view op_type,
                                absl::string_view a_arg = "self",
                                absl::string_view b_arg = "other") {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs(a_arg, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs(b_arg, dtype));
  return BindResult(ctx, ctx.Op(op_type, {a, b}));
}

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
absl::Status AtenPow(TranslateContext& ctx) {
  return BinaryInOutputType(ctx, "Pow", "self", "exponent");
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

// ---- Comparisons -------------------------------------------------------------

// Operands meet in torch's result dtype; the result is BOOL (or self's dtype
// for the in-place overloads, e.g. lt_).
absl::Status Compare(TranslateContext& ctx, absl::string_view op_type, bool negate) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ResultType(ctx, {"self", "other"}));
  // Less/Greater have no bool kernels.
  if (dtype == DataType::kBool && op_type != "Equal") dtype = DataType::kInt32;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  std::string result = ctx.Op(op_type, {a, b});
  if (negate) result = ctx.Op("Not", {result});
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  return BindResult(ctx, ctx.CastTo(result, DataType::kBool, out));
}

// aten::eq.Tensor(Tensor self, Tensor other) -> Tensor
// aten::eq.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenEq(TranslateContext& ctx) { return Compare(ctx, "Equal", false); }
// aten::ne.Tensor(Tensor self, Tensor other) -> Tensor
// aten::ne.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenNe(TranslateContext& ctx) { return Compare(ctx, "Equal", true); }
// aten::lt.Tensor(Tensor self, Tensor other) -> Tensor
// aten::lt.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenLt(TranslateContext& ctx) { return Compare(ctx, "Less", false); }
// aten::le.Tensor(Tensor self, Tensor other) -> Tensor
// aten::le.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenLe(TranslateContext& ctx) { return Compare(ctx, "LessOrEqual", false); }
// aten::gt.Tensor(Tensor self, Tensor other) -> Tensor
// aten::gt.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenGt(TranslateContext& ctx) { return Compare(ctx, "Greater", false); }
// aten::ge.Tensor(Tensor self, Tensor other) -> Tensor
// aten::ge.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenGe(TranslateContext& ctx) { return Compare(ctx, "GreaterOrEqual", false); }

// ---- Logical and bitwise -----------------------------------------------------

// Nonzero is true, as torch's logical ops read any dtype.
absl::Status Logical(TranslateContext& ctx, absl::string_view op_type) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", DataType::kBool));
  std::string result;
  if (op_type == "Not") {
    result = ctx.Op("Not", {a});
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", DataType::kBool));
    result = ctx.Op(op_type, {a, b});
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  return BindResult(ctx, ctx.CastTo(result, DataType::kBool, out));
}

// aten::logical_and(Tensor self, Tensor other) -> Tensor
absl::Status AtenLogicalAnd(TranslateContext& ctx) { return Logical(ctx, "And"); }
// aten::logical_or(Tensor self, Tensor other) -> Tensor
absl::Status AtenLogicalOr(TranslateContext& ctx) { return Logical(ctx, "Or"); }
// aten::logical_xor(Tensor self, Tensor other) -> Tensor
absl::Status AtenLogicalXor(TranslateContext& ctx) { return Logical(ctx, "Xor"); }
// aten::logical_not(Tensor self) -> Tensor
absl::Status AtenLogicalNot(TranslateContext& ctx) { return Logical(ctx, "Not"); }

// Bool operands use the logical ONNX ops, integers the Bitwise* ones (opset 18).
absl::Status Bitwise(TranslateContext& ctx, absl::string_view bool_op, absl::string_view int_op) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (IsFloatingPoint(dtype)) {
    return ctx.Unsupported(absl::StrCat("bitwise op on ", DataTypeName(dtype), " tensors"));
  }
  absl::string_view op_type = dtype == DataType::kBool ? bool_op : int_op;
  if (!ctx.Has("other")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
    return BindResult(ctx, ctx.Op(op_type, {a}));
  }
  return BinaryInOutputType(ctx, op_type);
}

// aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor
// aten::bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenBitwiseAnd(TranslateContext& ctx) { return Bitwise(ctx, "And", "BitwiseAnd"); }
// aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor
// aten::bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenBitwiseOr(TranslateContext& ctx) { return Bitwise(ctx, "Or", "BitwiseOr"); }
// aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor
// aten::bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenBitwiseXor(TranslateContext& ctx) { return Bitwise(ctx, "Xor", "BitwiseXor"); }
// aten::bitwise_not(Tensor self) -> Tensor
absl::Status AtenBitwiseNot(TranslateContext& ctx) { return Bitwise(ctx, "Not", "BitwiseNot"); }
// aten::__and__.Tensor(Tensor self, Tensor other) -> Tensor (also .Scalar)
absl::Status AtenDunderAnd(TranslateContext& ctx) { return AtenBitwiseAnd(ctx); }
// aten::__or__.Tensor(Tensor self, Tensor other) -> Tensor (also .Scalar)
absl::Status AtenDunderOr(TranslateContext& ctx) { return AtenBitwiseOr(ctx); }
// aten::__xor__.Tensor(Tensor self, Tensor other) -> Tensor (also .Scalar)
absl::Status AtenDunderXor(TranslateContext& ctx) { return AtenBitwiseXor(ctx); }

// ---- Unary math ----------------------------------------------------------------

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
absl::Status AtenNeg(TranslateContext& ctx) { return Unary(ctx, "Neg"); }
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

// ---- Selection and clamping --------------------------------------------------

// max(x, min) then min(., max), as torch (a min above max gives max). Not
// Clip: ONNX Runtime's Clip turns -inf into the lowest float when min is
// absent, and its bounds do not broadcast.
// aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
// aten::clamp_min(Tensor self, Scalar min) -> Tensor
// aten::clamp_max(Tensor self, Scalar max) -> Tensor
// aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor
// aten::clamp_min.Tensor(Tensor self, Tensor min) -> Tensor
// aten::clamp_max.Tensor(Tensor self, Tensor max) -> Tensor
absl::Status AtenClamp(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("self", dtype));
  if (ctx.Has("min")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string lo, ctx.InputOrScalarAs("min", dtype));
    y = ctx.Op("Max", {y, lo});
  }
  if (ctx.Has("max")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string hi, ctx.InputOrScalarAs("max", dtype));
    y = ctx.Op("Min", {y, hi});
  }
  return BindResult(ctx, y);
}

// aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
// (also .ScalarSelf, .ScalarOther, .Scalar: the scalars become 0-d values)
absl::Status AtenWhere(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string cond, ctx.InputAs("condition", DataType::kBool));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  return ctx.SetOutput(0, ctx.Op("Where", {cond, a, b}));
}

// aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
// (also .Tensor with a 0-d value)
absl::Status AtenMaskedFill(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.InputAs("mask", DataType::kBool));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputOrScalarAs("value", dtype));
  return BindResult(ctx, ctx.Op("Where", {mask, value, x}));
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& r) {
  // Arithmetic.
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
  // Comparisons.
  AddWithInPlace(r, "aten::eq", "Tensor", &AtenEq);
  AddWithInPlace(r, "aten::eq", "Scalar", &AtenEq);
  AddWithInPlace(r, "aten::ne", "Tensor", &AtenNe);
  AddWithInPlace(r, "aten::ne", "Scalar", &AtenNe);
  AddWithInPlace(r, "aten::lt", "Tensor", &AtenLt);
  AddWithInPlace(r, "aten::lt", "Scalar", &AtenLt);
  AddWithInPlace(r, "aten::le", "Tensor", &AtenLe);
  AddWithInPlace(r, "aten::le", "Scalar", &AtenLe);
  AddWithInPlace(r, "aten::gt", "Tensor", &AtenGt);
  AddWithInPlace(r, "aten::gt", "Scalar", &AtenGt);
  AddWithInPlace(r, "aten::ge", "Tensor", &AtenGe);
  AddWithInPlace(r, "aten::ge", "Scalar", &AtenGe);
  // Logical and bitwise.
  AddWithInPlace(r, "aten::logical_and", "default", &AtenLogicalAnd);
  AddWithInPlace(r, "aten::logical_or", "default", &AtenLogicalOr);
  AddWithInPlace(r, "aten::logical_xor", "default", &AtenLogicalXor);
  AddWithInPlace(r, "aten::logical_not", "default", &AtenLogicalNot);
  AddWithInPlace(r, "aten::bitwise_and", "Tensor", &AtenBitwiseAnd);
  AddWithInPlace(r, "aten::bitwise_and", "Scalar", &AtenBitwiseAnd);
  AddWithInPlace(r, "aten::bitwise_or", "Tensor", &AtenBitwiseOr);
  AddWithInPlace(r, "aten::bitwise_or", "Scalar", &AtenBitwiseOr);
  AddWithInPlace(r, "aten::bitwise_xor", "Tensor", &AtenBitwiseXor);
  AddWithInPlace(r, "aten::bitwise_xor", "Scalar", &AtenBitwiseXor);
  AddWithInPlace(r, "aten::bitwise_not", "default", &AtenBitwiseNot);
  r.Add("aten::__and__.Tensor", &AtenDunderAnd);
  r.Add("aten::__and__.Scalar", &AtenDunderAnd);
  r.Add("aten::__or__.Tensor", &AtenDunderOr);
  r.Add("aten::__or__.Scalar", &AtenDunderOr);
  r.Add("aten::__xor__.Tensor", &AtenDunderXor);
  r.Add("aten::__xor__.Scalar", &AtenDunderXor);
  // Unary math.
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
  // Selection and clamping.
  AddWithInPlace(r, "aten::clamp", "default", &AtenClamp);
  AddWithInPlace(r, "aten::clamp", "Tensor", &AtenClamp);
  AddWithInPlace(r, "aten::clamp_min", "default", &AtenClamp);
  AddWithInPlace(r, "aten::clamp_min", "Tensor", &AtenClamp);
  AddWithInPlace(r, "aten::clamp_max", "default", &AtenClamp);
  AddWithInPlace(r, "aten::clamp_max", "Tensor", &AtenClamp);
  r.Add("aten::where.self", &AtenWhere);
  r.Add("aten::where.ScalarSelf", &AtenWhere);
  r.Add("aten::where.ScalarOther", &AtenWhere);
  r.Add("aten::where.Scalar", &AtenWhere);
  AddWithInPlace(r, "aten::masked_fill", "Scalar", &AtenMaskedFill);
  AddWithInPlace(r, "aten::masked_fill", "Tensor", &AtenMaskedFill);
}

}  // namespace pt2onnx::ops
