// File: ops/index_reduce.cc
// -----------------------------------------------------------------------------
// Reductions into groups of a dim: index_reduce (rows of `source` reduced
// into the rows of self that `index` names: prod, mean, amax, amin, with or
// without self) and segment_reduce (consecutive runs of a dim, given by
// lengths or offsets, each reduced to one row: sum, mean, prod, max, min).
// index_reduce is ScatterND with a reduction on the dim-first layout;
// segment_reduce masks data per segment and reduces the masked copy.
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
#include "ops/reduce_helpers.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// aten::index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor
// Rows of `source` along dim go to rows index[i] of self. include_self=false
// first resets the indexed rows to the reduction's identity; mean divides
// the sum by the count of contributions (self counted once when included, a
// count of 0 taken as 1), floor-dividing integers
// (aten/src/ATen/native/TensorAdvancedIndexing.cpp).
absl::Status AtenIndexReduceDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType index_dtype, ctx.InputDtype("index"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string source, ctx.InputAs("source", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduce, ctx.String("reduce"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", std::max<int64_t>(rank, 1)));
  bool include_self = true;
  if (ctx.Has("include_self")) {
    PT2ONNX_ASSIGN_OR_RETURN(include_self, ctx.Bool("include_self"));
  }
  std::string reduction;
  if (reduce == "prod") {
    reduction = "mul";
  } else if (reduce == "mean") {
    reduction = "add";
  } else if (reduce == "amax") {
    reduction = "max";
  } else if (reduce == "amin") {
    reduction = "min";
  } else {
    return ctx.Invalid(absl::StrCat("index_reduce reduce='", reduce,
                                    "'; expected prod, mean, amax or amin"));
  }
  if (dtype == DataType::kBool) return ctx.Unsupported("index_reduce of a bool tensor");
  const std::string identity = ReductionIdentity(ctx, dtype, reduction);

  // The dim-first layout: ScatterND writes whole rows. A 0-d self is one row.
  std::vector<int64_t> perm;
  std::string xt, updates;
  if (rank == 0) {
    xt = Reshape(ctx, x, {1});
    updates = Reshape(ctx, source, {1});
  } else {
    perm = {axis};
    for (int64_t a = 0; a < rank; ++a) {
      if (a != axis) perm.push_back(a);
    }
    PT2ONNX_ASSIGN_OR_RETURN(int64_t source_rank, ctx.InputRank("source"));
    if (source_rank == 0) source = Reshape(ctx, source, std::vector<int64_t>(rank, 1));
    xt = TransposeBy(ctx, x, perm);
    updates = TransposeBy(ctx, source, perm);
  }
  std::string rows = Reshape(ctx, ctx.CastTo(index, index_dtype, DataType::kInt64), {-1, 1});
  if (!include_self) {
    xt = ctx.Op("ScatterND", {xt, rows, ctx.Op("Expand", {identity, ctx.Op("Shape", {updates})})});
  }
  std::string yt = ctx.Op("ScatterND", {xt, rows, updates},
                          {Attribute::String("reduction", reduction)});
  if (reduce == "mean") {
    std::string zero = ctx.ConstantScalar(dtype, 0);
    std::string one = ctx.ConstantScalar(dtype, 1);
    std::string start = ctx.Op("Expand", {include_self ? one : zero, ctx.Op("Shape", {xt})});
    std::string ones = ctx.Op("Expand", {one, ctx.Op("Shape", {updates})});
    std::string count = ctx.Op("ScatterND", {start, rows, ones},
                               {Attribute::String("reduction", "add")});
    count = ctx.Op("Max", {count, one});
    std::string sum = yt;
    yt = ctx.Op("Div", {sum, count});
    if (!IsFloatingPoint(dtype)) {
      // Integer Div truncates; floor division drops an inexact negative by one.
      std::string inexact = ctx.Op("Not", {ctx.Op("Equal", {ctx.Op("Mul", {yt, count}), sum})});
      std::string adjust = ctx.Op("And", {inexact, ctx.Op("Less", {sum, zero})});
      yt = ctx.Op("Where", {adjust, ctx.Op("Sub", {yt, one}), yt});
    }
  }
  std::string y = rank == 0 ? Reshape(ctx, yt, {}) : TransposeBy(ctx, yt, InversePermutation(perm));
  return BindResult(ctx, y);
}

// aten::segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor
// Segment s of row o covers [start, end) of data's `axis` (the last dim of
// lengths/offsets; their leading dims are data's leading dims). Its value
// starts at `initial` (or the identity) and folds in the segment; max/min
// turn NaN once one is met; mean divides by the length, an empty mean
// without `initial` being NaN (aten/src/ATen/native/SegmentReduce.cpp).
absl::Status AtenSegmentReduceDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string data, ctx.Input("data"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("data"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("data"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduce, ctx.String("reduce"));
  if (!IsFloatingPoint(dtype)) return ctx.Invalid("segment_reduce of a non-floating tensor");
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> lengths, ctx.OptionalInput("lengths"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> offsets, ctx.OptionalInput("offsets"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> indices, ctx.OptionalInput("indices"));
  if (indices) return ctx.Unsupported("segment_reduce by indices (torch does not implement it)");
  if (!lengths && !offsets) return ctx.Invalid("segment_reduce needs lengths or offsets");
  const char* bounds_arg = offsets ? "offsets" : "lengths";
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bounds_rank, ctx.InputRank(bounds_arg));
  PT2ONNX_ASSIGN_OR_RETURN(DataType bounds_dtype, ctx.InputDtype(bounds_arg));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "axis", rank));
  if (rank == 0 || bounds_rank != axis + 1) {
    return ctx.Invalid("segment_reduce: axis must be the last dim of lengths/offsets");
  }
  std::optional<double> initial;
  if (ctx.Has("initial")) {
    PT2ONNX_ASSIGN_OR_RETURN(ScalarValue v, ctx.Scalar("initial"));
    initial = v.AsDouble();
  }
  const double inf = std::numeric_limits<double>::infinity();
  std::string op_type;
  double neutral = 0;
  if (reduce == "sum" || reduce == "mean") {
    op_type = "ReduceSum";
  } else if (reduce == "prod") {
    op_type = "ReduceProd";
    neutral = 1;
  } else if (reduce == "max") {
    op_type = "ReduceMax";
    neutral = initial.value_or(-inf);  // max/min absorb `initial` as padding
  } else if (reduce == "min") {
    op_type = "ReduceMin";
    neutral = initial.value_or(inf);
  } else {
    return ctx.Invalid(absl::StrCat("segment_reduce reduce='", reduce,
                                    "'; expected sum, mean, prod, max or min"));
  }
  // starts/ends: [lead..., S] int64.
  std::string starts, ends;
  const int64_t last = bounds_rank - 1;
  std::string one_i = ctx.ConstantInt64s({1});
  std::string last_axis = ctx.ConstantInt64s({last});
  if (offsets) {
    std::string o = ctx.CastTo(*offsets, bounds_dtype, DataType::kInt64);
    starts = ctx.Op("Slice", {o, ctx.ConstantInt64s({0}), ctx.ConstantInt64s({-1}), last_axis});
    ends = ctx.Op("Slice", {o, one_i, ctx.ConstantInt64s({std::numeric_limits<int64_t>::max()}),
                            last_axis});
  } else {
    std::string l = ctx.CastTo(*lengths, bounds_dtype, DataType::kInt64);
    ends = ctx.Op("CumSum", {l, ctx.ConstantInt64(last)});
    starts = ctx.Op("Sub", {ends, l});
  }
  std::string lens = ctx.Op("Sub", {ends, starts});
  // mask [lead..., S, N]: position j of the axis lies in segment s.
  std::string n = Reshape(ctx, ShapeSlice(ctx, data, axis, axis + 1), {});
  std::string j = ctx.Op("Range", {ctx.ConstantInt64(0), n, ctx.ConstantInt64(1)});
  std::string s_col = Unsqueeze(ctx, starts, {bounds_rank});
  std::string e_col = Unsqueeze(ctx, ends, {bounds_rank});
  std::string mask = ctx.Op("And", {ctx.Op("LessOrEqual", {s_col, j}), ctx.Op("Less", {j, e_col})});
  // Broadcast against data [lead..., 1, N, inner...].
  std::vector<int64_t> inner_axes;
  for (int64_t a = axis + 2; a < rank + 1; ++a) inner_axes.push_back(a);
  if (!inner_axes.empty()) mask = Unsqueeze(ctx, mask, inner_axes);
  std::string wide = Unsqueeze(ctx, data, {axis});
  std::string masked = ctx.Op("Where", {mask, wide, ctx.ConstantScalar(dtype, neutral)});
  std::string axes = ctx.ConstantInt64s({axis + 1});
  std::string y = ctx.Op(op_type, {masked, axes}, {Attribute::Int("keepdims", 0)});
  // [lead..., S] per-segment values broadcast over the inner dims.
  auto per_segment = [&](std::string v) {
    std::vector<int64_t> tail;
    for (int64_t a = bounds_rank; a < rank; ++a) tail.push_back(a);
    return tail.empty() ? v : Unsqueeze(ctx, v, tail);
  };
  if (reduce == "max" || reduce == "min") {
    // ReduceMax/Min need not propagate NaN; torch's fold does.
    std::string nan_hit = ctx.Op("And", {mask, ctx.Op("IsNaN", {wide})});
    std::string any_nan = ctx.Op("ReduceMax", {ctx.CastTo(nan_hit, DataType::kBool, DataType::kInt32),
                                               axes}, {Attribute::Int("keepdims", 0)});
    any_nan = ctx.Op("Greater", {any_nan, ctx.ConstantScalar(DataType::kInt32, 0)});
    y = ctx.Op("Where", {any_nan, ctx.ConstantScalar(dtype, std::nan("")), y});
  } else if (initial) {
    std::string init = ctx.ConstantScalar(dtype, *initial);
    y = ctx.Op(reduce == "prod" ? "Mul" : "Add", {y, init});
  }
  if (reduce == "mean") {
    std::string len_f = per_segment(ctx.CastTo(lens, DataType::kInt64, dtype));
    std::string one = ctx.ConstantScalar(dtype, 1);
    y = ctx.Op("Div", {y, ctx.Op("Max", {len_f, one})});
    if (!initial) {
      std::string empty = ctx.Op("Equal", {len_f, ctx.ConstantScalar(dtype, 0)});
      y = ctx.Op("Where", {empty, ctx.ConstantScalar(dtype, std::nan("")), y});
    }
  }
  return ctx.SetOutput(0, y);
}

}  // namespace

void RegisterIndexReduceOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::index_reduce", "default", &AtenIndexReduceDefault);
  r.Add("aten::segment_reduce.default", &AtenSegmentReduceDefault);
}

}  // namespace pt2onnx::ops
