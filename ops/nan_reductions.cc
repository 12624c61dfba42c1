// File: ops/nan_reductions.cc
// -----------------------------------------------------------------------------
// Reductions that skip NaN (nansum, nanmean), the paired aminmax, and isreal.
// Built on ops/reduce_helpers.h like reduction.cc; all translations hold for
// opsets 18..23.
//
// NaN handling follows torch (aten/src/ATen/native/ReduceOps.cpp): nansum
// counts NaN as 0, nanmean divides by the number of non-NaN elements (so an
// all-NaN or empty slice gives 0 / 0 = NaN), and aminmax propagates NaN as
// amin / amax do.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/status_macros.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// `self` in the output dtype with NaN replaced by 0 (integers have none),
// and the non-NaN mask when `want_mask` (null otherwise).
struct NanFree {
  std::string values;
  std::optional<std::string> not_nan;
};
absl::StatusOr<NanFree> ZeroedNans(TranslateContext& ctx, bool want_mask) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, SelfAsOutputDtype(ctx));
  DataType dtype = ctx.OutputDtype(0);
  if (!IsFloatingPoint(dtype)) return NanFree{x, std::nullopt};
  std::string is_nan = ctx.Op("IsNaN", {x});
  std::string zeroed = ctx.Op("Where", {is_nan, ctx.ConstantScalar(dtype, 0), x});
  if (!want_mask) return NanFree{zeroed, std::nullopt};
  return NanFree{zeroed, ctx.Op("Not", {is_nan})};
}

absl::StatusOr<std::vector<int64_t>> DimArg(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  return OptionalDims(ctx, "dim", rank);
}

// aten::nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenNansum(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, DimArg(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(NanFree x, ZeroedNans(ctx, false));
  return ctx.SetOutput(0, Reduce(ctx, "ReduceSum", x.values, axes, keepdim));
}

// aten::nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenNanmean(TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid("nanmean(): expected a floating point input or dtype");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, DimArg(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(NanFree x, ZeroedNans(ctx, true));
  std::string sum = Reduce(ctx, "ReduceSum", x.values, axes, keepdim);
  std::string ones = ctx.CastTo(*x.not_nan, DataType::kBool, dtype);
  std::string count = Reduce(ctx, "ReduceSum", ones, axes, keepdim);
  return ctx.SetOutput(0, ctx.Op("Div", {sum, count}));
}

// aten::aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
// dim=None reduces everything; keepdim then keeps every dim as size 1.
absl::Status AtenAminmax(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  std::vector<int64_t> axes;
  if (dim.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(axes, ReducedAxes(ctx, "dim", {*dim}, rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  // ONNX's bool ReduceMin/Max only exist from opset 20, int16 ones not at all:
  // go through int32 (exact).
  const bool widened = dtype == DataType::kBool || dtype == DataType::kInt16;
  std::string input = widened ? ctx.CastTo(x, dtype, DataType::kInt32) : x;
  std::string lo = Reduce(ctx, "ReduceMin", input, axes, keepdim);
  std::string hi = Reduce(ctx, "ReduceMax", input, axes, keepdim);
  if (widened) {
    lo = ctx.CastTo(lo, DataType::kInt32, dtype);
    hi = ctx.CastTo(hi, DataType::kInt32, dtype);
  }
  if (IsFloatingPoint(dtype)) {
    // ONNX leaves NaN in Min/Max reductions unspecified (ONNX Runtime may skip
    // it): a slice holding NaN gives NaN explicitly, as torch.
    std::string nan_flags = ctx.CastTo(ctx.Op("IsNaN", {x}), DataType::kBool, dtype);
    std::string has_nan = ctx.CastTo(Reduce(ctx, "ReduceMax", nan_flags, axes, keepdim), dtype, DataType::kBool);
    std::string nan = ctx.ConstantScalar(dtype, std::numeric_limits<double>::quiet_NaN());
    lo = ctx.Op("Where", {has_nan, nan, lo});
    hi = ctx.Op("Where", {has_nan, nan, hi});
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, lo));
  return ctx.SetOutput(1, hi);
}

// aten::isreal(Tensor self) -> Tensor
// Every non-complex tensor is real: true in self's shape.
absl::Status AtenIsreal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (IsComplex(dtype)) return ctx.Unsupported("isreal of a complex tensor");
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  std::string shape = ctx.Op("Shape", {x});
  return ctx.SetOutput(0, ctx.Op("Expand", {ctx.ConstantScalar(DataType::kBool, 1), shape}));
}

}  // namespace

void RegisterNanReductionOps(OpRegistry& r) {
  r.Add("aten::nansum.default", &AtenNansum);
  r.Add("aten::nanmean.default", &AtenNanmean);
  r.Add("aten::aminmax.default", &AtenAminmax);
  r.Add("aten::isreal.default", &AtenIsreal);
}

}  // namespace pt2onnx::ops
