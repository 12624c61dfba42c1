// File: ops/logical.cc
// -----------------------------------------------------------------------------
// Logical (nonzero is true) and bitwise ops, and the Python operators
// __and__/__or__/__xor__.
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

}  // namespace

void RegisterLogicalOps(OpRegistry& r) {
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
  r.Add("aten::bitwise_and.Scalar_Tensor", &AtenBitwiseAnd);
  r.Add("aten::bitwise_or.Scalar_Tensor", &AtenBitwiseOr);
  r.Add("aten::bitwise_xor.Scalar_Tensor", &AtenBitwiseXor);
  r.Add("aten::__and__.Tensor", &AtenDunderAnd);
  r.Add("aten::__and__.Scalar", &AtenDunderAnd);
  r.Add("aten::__or__.Tensor", &AtenDunderOr);
  r.Add("aten::__or__.Scalar", &AtenDunderOr);
  r.Add("aten::__xor__.Tensor", &AtenDunderXor);
  r.Add("aten::__xor__.Scalar", &AtenDunderXor);
}

}  // namespace pt2onnx::ops
