// File: ops/counting.cc
// -----------------------------------------------------------------------------
// Ops that count or repeat by data: repeat_interleave (all three
// overloads), histc and bincount. Their output sizes may depend on values
// (a sum of repeats, a maximum), so the graph computes them at run time.
//
// Counting is a ScatterElements(reduction="add") into zeros; repeating by a
// tensor of counts marks where each count ends and takes a running sum:
//   repeats [2, 0, 3] -> ends (CumSum) [2, 2, 5] -> marks over 0..5
//   [0, 0, 2, 0, 0 | 1] -> CumSum of the first 5 = [0, 0, 2, 2, 2],
// the source index of every output position, in O(total + N).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// zeros of `dtype` shaped by the 1-D INT64 `shape`.
std::string Zeros(TranslateContext& ctx, DataType dtype, const std::string& shape) {
  return ctx.Op("Expand", {ctx.ConstantScalar(dtype, 0), shape});
}

std::string ScatterAdd(TranslateContext& ctx, const std::string& zeros, const std::string& indices,
                       const std::string& updates) {
  return ctx.Op("ScatterElements", {zeros, indices, updates},
                {ir::Attribute::Int("axis", 0), ir::Attribute::String("reduction", "add")});
}

// Source index of every output position for 1-D INT64 `repeats` (see above).
// `total` is a 1-D [1] INT64 value: output_size when given, else the sum.
std::string RepeatIndices(TranslateContext& ctx, const std::string& repeats, std::optional<std::string> total) {
  std::string ends = ctx.Op("CumSum", {repeats, ctx.ConstantInt64(0)});
  if (!total.has_value()) {
    total = ctx.Op("ReduceSum", {repeats, ctx.ConstantInt64s({0})}, {ir::Attribute::Int("keepdims", 1)});
  }
  // Each node made in its own statement: the order of a call's arguments is
  // unspecified, and the model's node order must not depend on the compiler.
  std::string one = ctx.ConstantInt64s({1});
  std::string zeros = Zeros(ctx, DataType::kInt64, ctx.Op("Add", {*total, one}));
  std::string clipped_ends = ctx.Op("Min", {ends, *total});  // ends past a too small output_size drop out
  std::string ones = ctx.Op("Expand", {ctx.ConstantInt64(1), ctx.Op("Shape", {ends})});
  std::string marks = ScatterAdd(ctx, zeros, clipped_ends, ones);
  std::string head = ctx.Op("Slice", {marks, ctx.ConstantInt64s({0}), *total, ctx.ConstantInt64s({0})});
  return ctx.Op("CumSum", {head, ctx.ConstantInt64(0)});
}

// output_size as a 1-D [1] INT64 value, or nullopt when None.
absl::StatusOr<std::optional<std::string>> OutputSize(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("output_size"));
  if (arg.kind == pt2::Argument::Kind::kNone) return std::optional<std::string>();
  absl::StatusOr<int64_t> fixed = ctx.Int("output_size");
  if (fixed.ok() && *fixed < 0) {
    return ctx.Invalid(absl::StrCat("output_size must be non-negative, got ", *fixed));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string size, ctx.SymIntAsTensor("output_size"));
  return std::optional<std::string>(Reshape(ctx, size, {1}));
}

// `self` flattened when dim is None (torch flattens then), with the axis to repeat along.
absl::StatusOr<std::pair<std::string, int64_t>> RepeatSource(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  if (!dim.has_value() || rank == 0) {
    if (dim.has_value()) PT2ONNX_RETURN_IF_ERROR(CheckedAxis(ctx, "dim", *dim, rank).status());
    return std::make_pair(Reshape(ctx, self, {-1}), int64_t{0});
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(ctx, "dim", *dim, rank));
  return std::make_pair(self, axis);
}

// aten::repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
absl::Status AtenRepeatInterleaveTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("repeats"));
  if (rank != 1) return ctx.Invalid(absl::StrCat("repeats must be 1-D, got ", rank, "-D"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string repeats, ctx.InputAs("repeats", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> total, OutputSize(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  return ctx.SetOutput(0, ctx.CastTo(RepeatIndices(ctx, repeats, total), DataType::kInt64, out));
}

// aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
absl::Status AtenRepeatInterleaveSelfTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(auto source, RepeatSource(ctx));
  auto [x, axis] = source;
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("repeats"));
  if (meta->sizes.size() > 1) {
    return ctx.Invalid(absl::StrCat("repeats must be 0-D or 1-D, got ", meta->sizes.size(), "-D"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string repeats, ctx.InputAs("repeats", DataType::kInt64));
  bool single = meta->sizes.empty() || (!meta->sizes[0].is_symbolic && meta->sizes[0].value == 1);
  if (single) {  // one count for every slice (torch broadcasts a 1-element repeats)
    repeats = ctx.Op("Expand", {Reshape(ctx, repeats, {1}), ShapeSlice(ctx, x, axis, axis + 1)});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> total, OutputSize(ctx));
  std::string idx = RepeatIndices(ctx, repeats, total);
  return ctx.SetOutput(0, ctx.Op("Gather", {x, idx}, {ir::Attribute::Int("axis", axis)}));
}

// aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
// Every slice repeated r times: unsqueeze after the axis, tile r times, merge.
absl::Status AtenRepeatInterleaveSelfInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(auto source, RepeatSource(ctx));
  auto [x, axis] = source;
  std::string r;
  absl::StatusOr<int64_t> fixed = ctx.Int("repeats");  // static, or symbolic (a dim of another input)
  if (fixed.ok()) {
    if (*fixed < 0) return ctx.Invalid(absl::StrCat("repeats can not be negative, got ", *fixed));
    r = ctx.ConstantInt64s({*fixed});
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(r, ctx.SymIntAsTensor("repeats"));
    r = Reshape(ctx, r, {1});
  }
  // x's rank: self's, or 1 where RepeatSource flattened it.
  PT2ONNX_ASSIGN_OR_RETURN(int64_t self_rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  const int64_t rank = dim.has_value() && self_rank > 0 ? self_rank : 1;
  // The dims before and after the axis, left out where there are none (an
  // empty Shape slice in a Concat has no length shape inference can read).
  std::vector<std::string> before, after;
  if (axis > 0) before.push_back(ShapeSlice(ctx, x, 0, axis));
  std::string at = ShapeSlice(ctx, x, axis, axis + 1);
  if (axis + 1 < rank) after.push_back(ShapeSlice(ctx, x, axis + 1, rank));
  auto cat = [&](const std::vector<std::string>& middle) {
    std::vector<std::string> parts = before;
    parts.insert(parts.end(), middle.begin(), middle.end());
    parts.insert(parts.end(), after.begin(), after.end());
    return ctx.Op("Concat", std::move(parts), {ir::Attribute::Int("axis", 0)});
  };
  // Tile, not Expand: a count of 0 must give a 0-length axis, and runtimes
  // differ on Expand from 1 to 0 (ONNX Runtime keeps the 1).
  std::string unsqueezed = Unsqueeze(ctx, x, {axis + 1});
  std::vector<std::string> tiles;
  if (axis + 1 > 0) tiles.push_back(ctx.ConstantInt64s(std::vector<int64_t>(axis + 1, 1)));
  tiles.push_back(r);
  if (rank - axis - 1 > 0) tiles.push_back(ctx.ConstantInt64s(std::vector<int64_t>(rank - axis - 1, 1)));
  std::string expanded = ctx.Op("Tile", {unsqueezed, ctx.Op("Concat", std::move(tiles), {ir::Attribute::Int("axis", 0)})});
  std::string merged = cat({ctx.Op("Mul", {at, r})});
  // Every entry is a real size (a zero count gives a zero-length axis), so
  // allowzero=1: Reshape's default would read a 0 as "copy the input's dim".
  return ctx.SetOutput(0, ctx.Op("Reshape", {expanded, merged}, {ir::Attribute::Int("allowzero", 1)}));
}

// aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor
// torch (aten/src/ATen/native/Histogram.cpp, histc_select_outer_bin_edges):
// min == max takes the data's extrema, widened by 1 each way when they are
// equal too. aten/src/ATen/native/cpu/HistogramKernel.cpp (LINEAR_INTERPOLATION)
// counts x when lo <= x <= hi (NaN never) into bin
// trunc((x - lo) * bins / (hi - lo)) in the input dtype, x == hi in the last.
absl::Status AtenHistc(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bins, ctx.Int("bins"));
  if (bins <= 0 || bins > kMaxFoldedElements) {
    return ctx.Invalid(absl::StrCat("bins must be in [1, ", kMaxFoldedElements, "], got ", bins));
  }
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue min_arg, ctx.Scalar("min"));
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue max_arg, ctx.Scalar("max"));
  double lo_v = min_arg.AsDouble(), hi_v = max_arg.AsDouble();
  if (lo_v > hi_v) return ctx.Invalid("max must be larger than min");
  if (!std::isfinite(lo_v) || !std::isfinite(hi_v)) {
    return ctx.Invalid(absl::StrCat("range of [", lo_v, ", ", hi_v, "] is not finite"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (!IsFloatingPoint(dtype) || IsComplex(dtype)) {
    return ctx.Unsupported(absl::StrCat("histc of ", DataTypeName(dtype), " (torch takes floating-point input)"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType out_dtype, OutDtype(ctx));
  // float16/bfloat16 are binned in float32.
  DataType t = dtype == DataType::kDouble ? dtype : DataType::kFloat;
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", t));
  std::string x = Reshape(ctx, self, {-1});
  std::string lo, hi;
  if (lo_v == hi_v) {
    std::string mn = ctx.Op("ReduceMin", {x}, {ir::Attribute::Int("keepdims", 0)});
    std::string mx = ctx.Op("ReduceMax", {x}, {ir::Attribute::Int("keepdims", 0)});
    // An empty input keeps the given bounds (ReduceMin/Max of nothing are +-inf).
    std::string empty = ctx.Op("Equal", {ctx.Op("Size", {x}), ctx.ConstantInt64(0)});
    mn = ctx.Op("Where", {empty, ctx.ConstantScalar(t, lo_v), mn});
    mx = ctx.Op("Where", {empty, ctx.ConstantScalar(t, hi_v), mx});
    std::string same = ctx.Op("Equal", {mn, mx});
    std::string one = ctx.ConstantScalar(t, 1);
    lo = ctx.Op("Where", {same, ctx.Op("Sub", {mn, one}), mn});
    hi = ctx.Op("Where", {same, ctx.Op("Add", {mx, one}), mx});
  } else {
    lo = ctx.ConstantScalar(t, lo_v);
    hi = ctx.ConstantScalar(t, hi_v);
  }
  std::string inside = ctx.Op("And", {ctx.Op("GreaterOrEqual", {x, lo}), ctx.Op("LessOrEqual", {x, hi})});
  std::string scaled = ctx.Op("Div", {ctx.Op("Mul", {ctx.Op("Sub", {x, lo}), ctx.ConstantScalar(t, static_cast<double>(bins))}),
                                      ctx.Op("Sub", {hi, lo})});
  // Outside values (and NaN) never reach the cast: they count 0 in bin 0.
  scaled = ctx.Op("Where", {inside, ctx.Op("Floor", {scaled}), ctx.ConstantScalar(t, 0)});
  std::string pos = ctx.Op("Min", {ctx.CastTo(scaled, t, DataType::kInt64), ctx.ConstantInt64(bins - 1)});
  std::string zeros = Zeros(ctx, t, ctx.ConstantInt64s({bins}));
  std::string counts = ctx.CastTo(inside, DataType::kBool, t);
  std::string hist = ScatterAdd(ctx, zeros, pos, counts);
  return ctx.SetOutput(0, ctx.CastTo(hist, t, out_dtype));
}

// aten::bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor
// Length max(max(self) + 1, minlength) (0 + minlength for an empty input);
// int64 counts, or the weights summed in the output dtype (float for float
// weights, double otherwise: aten/src/ATen/native/SummaryOps.cpp).
absl::Status AtenBincount(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 1) return ctx.Invalid(absl::StrCat("bincount only supports 1-d non-negative integral inputs, got ", rank, "-D"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  if (IsFloatingPoint(in_dtype) || IsComplex(in_dtype) || in_dtype == DataType::kBool) {
    return ctx.Invalid(absl::StrCat("bincount takes integer input, got ", DataTypeName(in_dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string minlength, ctx.SymIntAsTensor("minlength"));
  std::string top = ctx.Op("ReduceMax", {ctx.Op("Concat", {x, ctx.ConstantInt64s({-1})}, {ir::Attribute::Int("axis", 0)})},
                           {ir::Attribute::Int("keepdims", 1)});
  std::string length = ctx.Op("Max", {ctx.Op("Add", {top, ctx.ConstantInt64s({1})}), Reshape(ctx, minlength, {1})});
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weights, ctx.OptionalInput("weights"));
  std::string updates;
  if (weights.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType w_dtype, ctx.InputDtype("weights"));
    updates = ctx.CastTo(*weights, w_dtype, out);
  } else {
    updates = ctx.Op("Expand", {ctx.ConstantScalar(out, 1), ctx.Op("Shape", {x})});
  }
  return ctx.SetOutput(0, ScatterAdd(ctx, Zeros(ctx, out, length), x, updates));
}

}  // namespace

void RegisterCountingOps(OpRegistry& r) {
  r.Add("aten::repeat_interleave.Tensor", &AtenRepeatInterleaveTensor);
  r.Add("aten::repeat_interleave.self_Tensor", &AtenRepeatInterleaveSelfTensor);
  r.Add("aten::repeat_interleave.self_int", &AtenRepeatInterleaveSelfInt);
  r.Add("aten::histc.default", &AtenHistc);
  r.Add("aten::bincount.default", &AtenBincount);
}

}  // namespace pt2onnx::ops
