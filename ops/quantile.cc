// File: ops/quantile.cc
// -----------------------------------------------------------------------------
// quantile / nanquantile with a scalar q, as ATen computes them
// (aten/src/ATen/native/Sorting.cpp, quantile_compute): sort the reduced dim
// (NaN last), rank = q * (n - 1) in the input's dtype, n the slice length
// (nanquantile: its count of non-NaN values, a negative rank taken as 0);
// lower/higher/nearest round the rank (nearest half to even), linear and
// midpoint lerp between the values at floor and ceil of the rank with
// torch's two-sided lerp formula. quantile of a slice holding a NaN is NaN.
// TopK has no NaN order, so NaN sorts as +inf and the NaN results are
// restored with a mask.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

absl::Status Quantile(TranslateContext& ctx, bool ignore_nan) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(double q, ctx.Float("q"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, ctx.Bool("keepdim"));
  std::string mode = "linear";
  if (ctx.Has("interpolation")) {
    PT2ONNX_ASSIGN_OR_RETURN(mode, ctx.String("interpolation"));
  }
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Invalid("quantile() input tensor must be either float or double dtype");
  }
  if (!(q >= 0 && q <= 1)) return ctx.Invalid("quantile() q must be in the range [0, 1]");
  if (mode != "linear" && mode != "lower" && mode != "higher" && mode != "midpoint" && mode != "nearest") {
    return ctx.Invalid(absl::StrCat("quantile() interpolation must be one of linear, lower, higher, midpoint or "
                                    "nearest. Got ", mode));
  }
  int64_t axis = 0;
  if (dim) {
    PT2ONNX_ASSIGN_OR_RETURN(axis, CheckedAxis(ctx, "dim", *dim, std::max<int64_t>(rank, 1)));
    if (rank == 0) x = Reshape(ctx, x, {1});
  } else {
    x = Reshape(ctx, x, {-1});
  }
  Attribute ax = Attribute::Int("axis", rank == 0 || !dim ? 0 : axis);
  if (!dim || rank == 0) axis = 0;
  std::string axes = ctx.ConstantInt64s({axis});
  std::string nan = ctx.Op("IsNaN", {x});
  std::string inf = ctx.ConstantScalar(dtype, std::numeric_limits<double>::infinity());
  std::string n = ShapeSlice(ctx, x, axis, axis + 1);
  std::string sorted = ctx.AddNode("TopK", {ctx.Op("Where", {nan, inf, x}), n},
                                   {ax, Attribute::Int("largest", 0), Attribute::Int("sorted", 1)}, 2)[0];
  std::string nan_count = ctx.Op("ReduceSum", {ctx.CastTo(nan, DataType::kBool, DataType::kInt64), axes},
                                 {Attribute::Int("keepdims", 1)});
  std::string one_i = ctx.ConstantInt64(1);
  std::string last;  // n - 1 (valid count - 1 for nanquantile), keepdims shape
  if (ignore_nan) {
    last = ctx.Op("Sub", {ctx.Op("Sub", {n, nan_count}), one_i});
  } else {
    last = ctx.Op("Sub", {ctx.Op("Expand", {n, ctx.Op("Shape", {nan_count})}), one_i});
  }
  std::string r = ctx.Op("Mul", {ctx.ConstantScalar(dtype, q), ctx.CastTo(last, DataType::kInt64, dtype)});
  std::string zero = ctx.ConstantScalar(dtype, 0);
  r = ctx.Op("Max", {r, zero});  // nanquantile of an all-NaN slice
  if (mode == "lower") r = ctx.Op("Floor", {r});
  if (mode == "higher") r = ctx.Op("Ceil", {r});
  if (mode == "nearest") r = ctx.Op("Round", {r});
  std::string below_i = ctx.CastTo(r, dtype, DataType::kInt64);
  std::string y = ctx.Op("GatherElements", {sorted, below_i}, {ax});
  if (mode == "linear" || mode == "midpoint") {
    std::string w = mode == "midpoint" ? ctx.ConstantScalar(dtype, 0.5)
                                       : ctx.Op("Sub", {r, ctx.CastTo(below_i, DataType::kInt64, dtype)});
    std::string above = ctx.Op("GatherElements", {sorted, ctx.CastTo(ctx.Op("Ceil", {r}), dtype, DataType::kInt64)},
                               {ax});
    std::string diff = ctx.Op("Sub", {above, y});
    std::string low_side = ctx.Op("Add", {y, ctx.Op("Mul", {w, diff})});
    std::string high_side = ctx.Op("Sub", {above, ctx.Op("Mul", {diff, ctx.Op("Sub", {ctx.ConstantScalar(dtype, 1), w})})});
    y = ctx.Op("Where", {ctx.Op("Less", {w, ctx.ConstantScalar(dtype, 0.5)}), low_side, high_side});
  }
  // NaN results: any NaN (quantile) or no valid value (nanquantile).
  std::string nan_out = ignore_nan ? ctx.Op("Equal", {ctx.Op("Sub", {n, nan_count}), ctx.ConstantInt64(0)})
                                   : ctx.Op("Greater", {nan_count, ctx.ConstantInt64(0)});
  y = ctx.Op("Where", {nan_out, ctx.ConstantScalar(dtype, std::nan("")), y});
  if (!dim) {
    y = keepdim ? Reshape(ctx, y, std::vector<int64_t>(rank, 1)) : Reshape(ctx, y, {});
  } else if (rank == 0) {
    y = Reshape(ctx, y, {});
  } else if (!keepdim) {
    y = Squeeze(ctx, y, {axis});
  }
  return ctx.SetOutput(0, y);
}

// aten::quantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor
absl::Status AtenQuantileScalar(TranslateContext& ctx) { return Quantile(ctx, false); }

// aten::nanquantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor
absl::Status AtenNanquantileScalar(TranslateContext& ctx) { return Quantile(ctx, true); }

}  // namespace

void RegisterQuantileOps(OpRegistry& r) {
  r.Add("aten::quantile.scalar", &AtenQuantileScalar);
  r.Add("aten::nanquantile.scalar", &AtenNanquantileScalar);
}

}  // namespace pt2onnx::ops
