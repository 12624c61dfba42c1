// File: ops/comparison.cc
// -----------------------------------------------------------------------------
// Elementwise comparisons (eq/ne/lt/le/gt/ge) and the selections built on a
// condition: clamp, where, masked_fill.
//
// Comparisons output BOOL, so their compute dtype is recomputed with torch's
// rules (ResultType, ops/elementwise_common.h).
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

// Operands meet in torch's result dtype; the result is BOOL (or self's dtype
// for the in-place overloads, e.g. lt_).
absl::Status CompareTensors(TranslateContext& ctx, Comparison comparison) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ResultType(ctx, {"self", "other"}));
  if (dtype == DataType::kBool && !ComparesBools(comparison)) dtype = DataType::kInt32;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs("other", dtype));
  std::string result = EmitComparison(ctx, comparison, a, b);
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  return BindResult(ctx, ctx.CastTo(result, DataType::kBool, out));
}

// aten::eq.Tensor(Tensor self, Tensor other) -> Tensor
// aten::eq.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenEq(TranslateContext& ctx) { return CompareTensors(ctx, kCompareEq); }
// aten::ne.Tensor(Tensor self, Tensor other) -> Tensor
// aten::ne.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenNe(TranslateContext& ctx) { return CompareTensors(ctx, kCompareNe); }
// aten::lt.Tensor(Tensor self, Tensor other) -> Tensor
// aten::lt.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenLt(TranslateContext& ctx) { return CompareTensors(ctx, kCompareLt); }
// aten::le.Tensor(Tensor self, Tensor other) -> Tensor
// aten::le.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenLe(TranslateContext& ctx) { return CompareTensors(ctx, kCompareLe); }
// aten::gt.Tensor(Tensor self, Tensor other) -> Tensor
// aten::gt.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenGt(TranslateContext& ctx) { return CompareTensors(ctx, kCompareGt); }
// aten::ge.Tensor(Tensor self, Tensor other) -> Tensor
// aten::ge.Scalar(Tensor self, Scalar other) -> Tensor
absl::Status AtenGe(TranslateContext& ctx) { return CompareTensors(ctx, kCompareGe); }

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
  // ONNX Max/Min have no bool variant; on bools they are Or/And.
  const bool is_bool = dtype == DataType::kBool;
  if (ctx.Has("min")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string lo, ctx.InputOrScalarAs("min", dtype));
    y = ctx.Op(is_bool ? "Or" : "Max", {y, lo});
  }
  if (ctx.Has("max")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string hi, ctx.InputOrScalarAs("max", dtype));
    y = ctx.Op(is_bool ? "And" : "Min", {y, hi});
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

// aten::isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor
// Whether each element equals any test element, in their result dtype (NaN
// matches nothing): Equal against the flattened test set, any over it.
absl::Status AtenIsinTensorTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ResultType(ctx, {"elements", "test_elements"}));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("elements", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("test_elements", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("elements"));
  bool invert = false;
  if (ctx.Has("invert")) {
    PT2ONNX_ASSIGN_OR_RETURN(invert, ctx.Bool("invert"));
  }
  std::string eq = EmitComparison(ctx, kCompareEq, Unsqueeze(ctx, a, {rank}), Reshape(ctx, b, {-1}));
  std::string hits = ctx.Op("ReduceMax", {ctx.CastTo(eq, DataType::kBool, DataType::kInt32),
                                          ctx.ConstantInt64s({rank})},
                            {ir::Attribute::Int("keepdims", 0)});
  // An empty test set reduces to INT32_MIN: no hit.
  std::string found = ctx.Op("Greater", {hits, ctx.ConstantScalar(DataType::kInt32, 0)});
  return ctx.SetOutput(0, invert ? ctx.Op("Not", {found}) : found);
}

}  // namespace

void RegisterComparisonOps(OpRegistry& r) {
  r.Add("aten::isin.Tensor_Tensor", &AtenIsinTensorTensor);
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
