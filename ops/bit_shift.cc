// File: ops/bit_shift.cc
// -----------------------------------------------------------------------------
// bitwise_left_shift / bitwise_right_shift (Tensor, Tensor_Scalar,
// Scalar_Tensor; __lshift__/__rshift__ are their aliases, core/aten/aliases.h).
//
// ONNX BitShift takes unsigned integers only and leaves shifts by the width
// or more undefined, so operands go through uint64 (two's complement bits
// kept by Cast), and out-of-range shift
// amounts take torch's values (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp,
// lshift_kernel / rshift_kernel): a left shift by a negative amount or by
// the width or more gives 0; a right shift by those gives a >> (width - 1),
// the sign fill (0 for unsigned types). Right shifts of negative values are arithmetic:
// ~(~a >> b).
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

bool IsUnsigned(DataType dtype) {
  return dtype == DataType::kUint8 || dtype == DataType::kUint16 || dtype == DataType::kUint32 ||
         dtype == DataType::kUint64;
}

absl::Status Shift(TranslateContext& ctx, bool left) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsInteger(dtype)) {
    return ctx.Invalid(absl::StrCat("bit shifts of ", DataTypeName(dtype),
                                    " tensors (torch shifts integers only)"));
  }
  // Every operand widened to int64 (sign- or zero-extended), where runtimes
  // have Less/Where/BitwiseNot kernels for every width; the result is cast
  // back, keeping its low bits as the narrow type's wraparound does.
  constexpr DataType kI64 = DataType::kInt64;
  constexpr DataType kU64 = DataType::kUint64;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  a = ctx.CastTo(a, dtype, kI64);
  b = ctx.CastTo(b, dtype, kI64);
  const int64_t width = 8 * ElementSize(dtype);
  std::string zero = ctx.ConstantInt64(0);
  // A uint64 amount of 2^63 or more reads as negative: out of range too.
  std::string in_range = ctx.Op("And", {ctx.Op("GreaterOrEqual", {b, zero}),
                                        ctx.Op("Less", {b, ctx.ConstantInt64(width)})});
  std::string fallback = left ? zero : ctx.ConstantInt64(width - 1);
  std::string amount = ctx.CastTo(ctx.Op("Where", {in_range, b, fallback}), kI64, kU64);
  const ir::Attribute direction = ir::Attribute::String("direction", left ? "LEFT" : "RIGHT");
  auto shift = [&](const std::string& v) {
    return ctx.CastTo(ctx.Op("BitShift", {ctx.CastTo(v, kI64, kU64), amount}, {direction}), kU64, kI64);
  };
  std::string result;
  if (left) {
    result = ctx.Op("Where", {in_range, shift(a), zero});
  } else if (IsUnsigned(dtype)) {
    // Logical, also for uint64 values of 2^63 and more; no sign to fill, so
    // an amount of the width or more gives 0, as torch's rshift_kernel does.
    result = ctx.Op("Where", {in_range, shift(a), zero});
  } else {
    // Arithmetic: a negative value is shifted as its complement, ~(~a >> b).
    std::string negative = ctx.Op("Less", {a, zero});
    std::string shifted = shift(ctx.Op("Where", {negative, ctx.Op("BitwiseNot", {a}), a}));
    result = ctx.Op("Where", {negative, ctx.Op("BitwiseNot", {shifted}), shifted});
  }
  return BindResult(ctx, ctx.CastTo(result, kI64, dtype));
}

// aten::bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor
// aten::bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor
// aten::bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor
absl::Status AtenBitwiseLeftShift(TranslateContext& ctx) { return Shift(ctx, true); }
// aten::bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor (and the
// Tensor_Scalar, Scalar_Tensor overloads)
absl::Status AtenBitwiseRightShift(TranslateContext& ctx) { return Shift(ctx, false); }

}  // namespace

void RegisterBitShiftOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::bitwise_left_shift", "Tensor", &AtenBitwiseLeftShift);
  AddWithInPlace(r, "aten::bitwise_left_shift", "Tensor_Scalar", &AtenBitwiseLeftShift);
  r.Add("aten::bitwise_left_shift.Scalar_Tensor", &AtenBitwiseLeftShift);
  AddWithInPlace(r, "aten::bitwise_right_shift", "Tensor", &AtenBitwiseRightShift);
  AddWithInPlace(r, "aten::bitwise_right_shift", "Tensor_Scalar", &AtenBitwiseRightShift);
  r.Add("aten::bitwise_right_shift.Scalar_Tensor", &AtenBitwiseRightShift);
}

}  // namespace pt2onnx::ops
