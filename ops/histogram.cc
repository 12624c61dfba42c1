// File: ops/histogram.cc
// -----------------------------------------------------------------------------
// histogram (bin_ct, bins_tensor) and histogramdd (int[] bins, int bins,
// Tensor[] bins), as aten/src/ATen/native/Histogram.cpp and
// cpu/HistogramKernel.cpp compute them: points are the input's rows
// (histogram: every element, one dim). With a bin count, each dim's outer
// edges are `range` or the dim's min and max, widened by 0.5 each way when
// equal, and the edges are linspace(left, right, bins + 1) in the input's
// dtype. A point falls in bin (number of edges <= x) - 1, the last edge
// closing the last bin; points outside [first, last] edge (NaN too) are
// dropped. The kernel's interpolation with local search lands on that same
// bin. Counts (or weights) are a ScatterElements(add) into the flattened
// histogram; density divides by the total, then by each dim's bin widths.
// Bin counts (and tensor edges' lengths) must be static. Opsets 18..23.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Above this many bins in all the histogram is refused: the file chooses it.
constexpr int64_t kMaxBins = int64_t{1} << 24;

std::string At(TranslateContext& ctx, const std::string& x, int64_t i, int64_t axis = 0) {
  return ctx.Op("Gather", {x, ctx.ConstantInt64(i)}, {Attribute::Int("axis", axis)});
}

// linspace(start, end, steps) with 0-d bounds in `dtype`, torch's two halves
// (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp); steps >= 2.
std::string Linspace(TranslateContext& ctx, const std::string& start, const std::string& end, int64_t steps,
                     DataType dtype) {
  std::string index = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(steps), ctx.ConstantInt64(1)});
  std::string from_end = ctx.Op("Sub", {ctx.ConstantInt64(steps - 1), index});
  std::string step = ctx.Op("Div", {ctx.Op("Sub", {end, start}),
                                    ctx.ConstantScalar(dtype, static_cast<double>(steps - 1))});
  std::string low = ctx.Op("Add", {start, ctx.Op("Mul", {step, ctx.CastTo(index, DataType::kInt64, dtype)})});
  std::string high = ctx.Op("Sub", {end, ctx.Op("Mul", {step, ctx.CastTo(from_end, DataType::kInt64, dtype)})});
  return ctx.Op("Where", {ctx.Op("Less", {index, ctx.ConstantInt64(steps / 2)}), low, high});
}

struct Axis {
  std::string edges;  // 1-D, bins + 1 values
  int64_t bins;
};

// The `range` argument (2 values per dim) when given.
absl::StatusOr<std::optional<std::vector<double>>> ReadRange(TranslateContext& ctx, int64_t dims) {
  if (!ctx.Has("range")) return std::optional<std::vector<double>>();
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("range"));
  if (arg.kind != pt2::Argument::Kind::kFloats || static_cast<int64_t>(arg.floats.size()) != 2 * dims) {
    return ctx.Invalid(absl::StrCat("range needs ", 2 * dims, " floats"));
  }
  return std::optional<std::vector<double>>(arg.floats);
}

// Edges from bin counts: dim d spans range[2d..2d+1] or the points' min/max.
absl::StatusOr<std::vector<Axis>> EdgesFromCounts(TranslateContext& ctx, const std::string& points,
                                                  const std::vector<int64_t>& bins, DataType dtype) {
  const int64_t dims = static_cast<int64_t>(bins.size());
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<double>> range, ReadRange(ctx, dims));
  std::vector<Axis> axes;
  for (int64_t d = 0; d < dims; ++d) {
    if (bins[d] <= 0) return ctx.Invalid(absl::StrCat("bins must be positive, got ", bins[d]));
    std::string left, right;
    if (range.has_value()) {
      double lo = (*range)[2 * d], hi = (*range)[2 * d + 1];
      if (!(lo <= hi)) return ctx.Invalid(absl::StrCat("range [", lo, ", ", hi, "] is not ordered"));
      if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
      }
      left = ctx.ConstantScalar(dtype, lo);
      right = ctx.ConstantScalar(dtype, hi);
    } else {
      std::string column = At(ctx, points, d, 1);
      left = ctx.Op("ReduceMin", {column}, {Attribute::Int("keepdims", 0)});
      right = ctx.Op("ReduceMax", {column}, {Attribute::Int("keepdims", 0)});
      std::string same = ctx.Op("Equal", {left, right});
      std::string half = ctx.ConstantScalar(dtype, 0.5);
      left = ctx.Op("Where", {same, ctx.Op("Sub", {left, half}), left});
      right = ctx.Op("Where", {same, ctx.Op("Add", {right, half}), right});
    }
    axes.push_back({Linspace(ctx, left, right, bins[d] + 1, dtype), bins[d]});
  }
  return axes;
}

// Each point's flat bin and whether it lies inside every dim's edges.
absl::Status EmitHistogram(TranslateContext& ctx, const std::string& points, const std::vector<Axis>& axes,
                           DataType dtype, bool list_edges) {
  std::string flat = ctx.ConstantInt64(0);
  std::string inside;
  int64_t total = 1;
  std::vector<int64_t> hist_shape;
  for (const Axis& a : axes) {
    if (a.bins <= 0 || a.bins > kMaxBins / total) return ctx.Invalid("too many bins");
    total *= a.bins;
    hist_shape.push_back(a.bins);
  }
  int64_t stride = total;
  for (size_t d = 0; d < axes.size(); ++d) {
    const Axis& a = axes[d];
    stride /= a.bins;
    std::string x = At(ctx, points, static_cast<int64_t>(d), 1);  // (N,)
    std::string below = ctx.Op("LessOrEqual", {Unsqueeze(ctx, a.edges, {0}), Unsqueeze(ctx, x, {1})});
    std::string count = ctx.Op("ReduceSum", {ctx.CastTo(below, DataType::kBool, DataType::kInt64),
                                             ctx.ConstantInt64s({1})},
                               {Attribute::Int("keepdims", 0)});
    std::string bin = ctx.Op("Min", {ctx.Op("Sub", {count, ctx.ConstantInt64(1)}), ctx.ConstantInt64(a.bins - 1)});
    std::string in = ctx.Op("And", {ctx.Op("GreaterOrEqual", {x, At(ctx, a.edges, 0)}),
                                    ctx.Op("LessOrEqual", {x, At(ctx, a.edges, a.bins)})});
    inside = inside.empty() ? in : ctx.Op("And", {inside, in});
    flat = ctx.Op("Add", {flat, ctx.Op("Mul", {bin, ctx.ConstantInt64(stride)})});
  }
  std::string weights = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), ShapeSlice(ctx, points, 0, 1)});
  if (ctx.Has("weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.InputAs("weight", dtype));
    weights = Reshape(ctx, weight, {-1});
  }
  weights = ctx.Op("Where", {inside, weights, ctx.ConstantScalar(dtype, 0)});
  flat = ctx.Op("Where", {inside, flat, ctx.ConstantInt64(0)});
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 0), ctx.ConstantInt64s({total})});
  std::string hist = ctx.Op("ScatterElements", {zeros, flat, weights},
                            {Attribute::Int("axis", 0), Attribute::String("reduction", "add")});
  hist = Reshape(ctx, hist, hist_shape);
  PT2ONNX_ASSIGN_OR_RETURN(bool density, ctx.Bool("density"));
  if (density) {
    hist = ctx.Op("Div", {hist, ctx.Op("ReduceSum", {hist}, {Attribute::Int("keepdims", 0)})});
    for (size_t d = 0; d < axes.size(); ++d) {
      const Axis& a = axes[d];
      auto part = [&](int64_t from, int64_t to) {
        return ctx.Op("Slice", {a.edges, ctx.ConstantInt64s({from}), ctx.ConstantInt64s({to})});
      };
      std::vector<int64_t> shape(axes.size(), 1);
      shape[d] = a.bins;
      hist = ctx.Op("Div", {hist, Reshape(ctx, ctx.Op("Sub", {part(1, a.bins + 1), part(0, a.bins)}), shape)});
    }
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, hist));
  if (!list_edges) return ctx.SetOutput(1, axes[0].edges);
  std::vector<std::string> edges;
  for (const Axis& a : axes) edges.push_back(a.edges);
  return ctx.SetListOutput(1, edges);
}

// The input as (N, D) points in its dtype: histogram takes every element as
// a 1-D point, histogramdd the rows of (..., D).
absl::StatusOr<std::string> Points(TranslateContext& ctx, bool dd, int64_t* dims, DataType* dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(*dtype, ctx.InputDtype("self"));
  if (!IsFloatingPoint(*dtype)) return ctx.Invalid("histogram needs a floating-point input");
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  if (!dd) {
    *dims = 1;
    return Reshape(ctx, self, {-1, 1});
  }
  if (meta->sizes.empty() || meta->sizes.back().is_symbolic) {
    return ctx.Invalid("histogramdd needs an input of at least 1 dim with a static last dim");
  }
  *dims = meta->sizes.back().value;
  return Reshape(ctx, self, {-1, *dims});
}

// Edges given as tensors: each 1-D of static length >= 2.
absl::StatusOr<Axis> TensorEdges(TranslateContext& ctx, const std::string& value, const pt2::TensorMeta* meta,
                                 DataType dtype) {
  if (meta == nullptr || meta->sizes.size() != 1 || meta->sizes[0].is_symbolic || meta->sizes[0].value < 2) {
    return ctx.Unsupported("bin edges need a 1-D tensor of static length (at least 2)");
  }
  return Axis{ctx.CastTo(value, meta->dtype, dtype), meta->sizes[0].value - 1};
}

// aten::histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)
absl::Status AtenHistogramBinCt(TranslateContext& ctx) {
  int64_t dims;
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string points, Points(ctx, false, &dims, &dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bins, ctx.Int("bins"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Axis> axes, EdgesFromCounts(ctx, points, {bins}, dtype));
  return EmitHistogram(ctx, points, axes, dtype, false);
}

// aten::histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)
absl::Status AtenHistogramBinsTensor(TranslateContext& ctx) {
  int64_t dims;
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string points, Points(ctx, false, &dims, &dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("bins"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bins, ctx.Input("bins"));
  PT2ONNX_ASSIGN_OR_RETURN(Axis axis, TensorEdges(ctx, bins, meta, dtype));
  return EmitHistogram(ctx, points, {axis}, dtype, false);
}

// aten::histogramdd(Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)
absl::Status AtenHistogramdd(TranslateContext& ctx) {
  int64_t dims;
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string points, Points(ctx, true, &dims, &dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> bins, ctx.Ints("bins"));
  if (static_cast<int64_t>(bins.size()) != dims) {
    return ctx.Invalid(absl::StrCat(bins.size(), " bin counts for points of ", dims, " dims"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Axis> axes, EdgesFromCounts(ctx, points, bins, dtype));
  return EmitHistogram(ctx, points, axes, dtype, true);
}

// aten::histogramdd.int_bins(Tensor self, int bins, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)
absl::Status AtenHistogramddIntBins(TranslateContext& ctx) {
  int64_t dims;
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string points, Points(ctx, true, &dims, &dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t bins, ctx.Int("bins"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Axis> axes,
                           EdgesFromCounts(ctx, points, std::vector<int64_t>(dims, bins), dtype));
  return EmitHistogram(ctx, points, axes, dtype, true);
}

// aten::histogramdd.TensorList_bins(Tensor self, Tensor[] bins, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)
absl::Status AtenHistogramddTensorList(TranslateContext& ctx) {
  int64_t dims;
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string points, Points(ctx, true, &dims, &dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> bins, ctx.Inputs("bins"));
  if (static_cast<int64_t>(bins.size()) != dims) {
    return ctx.Invalid(absl::StrCat(bins.size(), " bin tensors for points of ", dims, " dims"));
  }
  std::vector<Axis> axes;
  for (size_t d = 0; d < bins.size(); ++d) {
    PT2ONNX_ASSIGN_OR_RETURN(Axis axis, TensorEdges(ctx, bins[d], ctx.InputListMeta("bins", d), dtype));
    axes.push_back(axis);
  }
  return EmitHistogram(ctx, points, axes, dtype, true);
}

}  // namespace

void RegisterHistogramOps(OpRegistry& r) {
  r.Add("aten::histogram.bin_ct", &AtenHistogramBinCt);
  r.Add("aten::histogram.bins_tensor", &AtenHistogramBinsTensor);
  r.Add("aten::histogramdd.default", &AtenHistogramdd);
  r.Add("aten::histogramdd.int_bins", &AtenHistogramddIntBins);
  r.Add("aten::histogramdd.TensorList_bins", &AtenHistogramddTensorList);
}

}  // namespace pt2onnx::ops
