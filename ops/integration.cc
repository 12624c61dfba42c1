// File: ops/integration.cc
// -----------------------------------------------------------------------------
// The trapezoidal rule along one dim: trapezoid / trapz (sums) and
// cumulative_trapezoid (running sums), with sample points `x` or a constant
// spacing `dx`. All translations hold for opsets 18..23.
//
// As torch (aten/src/ATen/native/Integration.cpp): each interval contributes
// dx * (y[i] + y[i + 1]) / 2; a 1-D `x` lies along `dim`, a lower-rank `x`
// broadcasts from the right; fewer than two samples give 0 (an empty running
// sum). Integer inputs give the default float result, but torch computes
// their sums and differences in the integer dtypes first (wrapping at their
// width) and sums integer areas in int64: IntegerTrapezoid follows that order.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
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

using ir::Attribute;

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

std::string SliceAxis(TranslateContext& ctx, const std::string& v, int64_t axis, int64_t start, int64_t end) {
  return ctx.Op("Slice", {v, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}), ctx.ConstantInt64s({axis})});
}

// The checked output dtype, y's rank and the wrapped `dim`.
struct Layout {
  DataType dtype;
  int64_t rank = 0;
  int64_t axis = 0;
};
absl::StatusOr<Layout> ReadLayout(TranslateContext& ctx) {
  Layout layout;
  layout.dtype = ctx.OutputDtype(0);
  if (!IsFloatingPoint(layout.dtype)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(layout.dtype), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(layout.rank, ctx.InputRank("y"));
  if (layout.rank == 0) return ctx.Invalid("y must have at least one dimension");
  PT2ONNX_ASSIGN_OR_RETURN(layout.axis, AxisArg(ctx, "dim", layout.rank));
  return layout;
}

// x in `dtype`, its dims lined up with y's.
absl::StatusOr<std::string> SamplePoints(TranslateContext& ctx, const Layout& layout, DataType dtype) {
  const int64_t rank = layout.rank, axis = layout.axis;
  PT2ONNX_ASSIGN_OR_RETURN(int64_t x_rank, ctx.InputRank("x"));
  if (x_rank == 0 || x_rank > rank) {
    return ctx.Invalid(absl::StrCat("x has ", x_rank, " dims; expected 1 to y's ", rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("x", dtype));
  if (x_rank == 1 && rank > 1) {
    // A 1-D x holds the sample points along dim.
    std::vector<int64_t> others;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) others.push_back(d);
    }
    return Unsqueeze(ctx, x, others);
  }
  if (x_rank < rank) {
    // Otherwise x's dims line up with y's last ones, as broadcasting does.
    std::vector<int64_t> leading;
    for (int64_t d = 0; d < rank - x_rank; ++d) leading.push_back(d);
    return Unsqueeze(ctx, x, leading);
  }
  return x;
}

// v[i] + v[i + 1] along `axis`.
std::string PairSums(TranslateContext& ctx, const std::string& v, int64_t axis) {
  return ctx.Op("Add", {SliceAxis(ctx, v, axis, 0, -1), SliceAxis(ctx, v, axis, 1, kToEnd)});
}

// v[i + 1] - v[i] along `axis`.
std::string Widths(TranslateContext& ctx, const std::string& v, int64_t axis) {
  return ctx.Op("Sub", {SliceAxis(ctx, v, axis, 1, kToEnd), SliceAxis(ctx, v, axis, 0, -1)});
}

// The constant spacing: a Scalar dx (trapezoid, cumulative_trapezoid) or a
// float one (trapz).
absl::StatusOr<double> Spacing(TranslateContext& ctx) {
  absl::StatusOr<ScalarValue> scalar = ctx.Scalar("dx");
  if (scalar.ok()) return scalar->AsDouble();
  return ctx.Float("dx");
}

// Integer y or x, in torch's order: (y[i] + y[i + 1]) in y's dtype and
// (x[i + 1] - x[i]) in x's, their product in the promoted dtype, all
// wrapping; integer areas summed (or running-summed) in int64, then / 2.
// A constant dx: y.sum(dim) - (y[0] + y[-1]) * 0.5, times dx; running sums
// of (y[i] + y[i + 1]) * (dx / 2.).
absl::Status IntegerTrapezoid(TranslateContext& ctx, const Layout& layout, bool with_x, bool cumulative) {
  const DataType dtype = layout.dtype;
  const int64_t axis = layout.axis;
  PT2ONNX_ASSIGN_OR_RETURN(DataType y_dtype, ctx.InputDtype("y"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.Input("y"));
  std::string axes = ctx.ConstantInt64s({axis});
  if (with_x) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType x_dtype, ctx.InputDtype("x"));
    PT2ONNX_ASSIGN_OR_RETURN(DataType common, ResultType(ctx, {"y", "x"}));
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, SamplePoints(ctx, layout, x_dtype));
    std::string widths = ctx.CastTo(Widths(ctx, x, axis), x_dtype, common);
    std::string areas = ctx.Op("Mul", {ctx.CastTo(PairSums(ctx, y, axis), y_dtype, common), widths});
    const DataType sum_dtype = IsFloatingPoint(common) ? common : DataType::kInt64;
    areas = ctx.CastTo(areas, common, sum_dtype);
    std::string total = cumulative ? ctx.Op("CumSum", {areas, ctx.ConstantInt64(axis)})
                                   : ctx.Op("ReduceSum", {areas, axes}, {Attribute::Int("keepdims", 0)});
    return ctx.SetOutput(0, ctx.Op("Div", {ctx.CastTo(total, sum_dtype, dtype), ctx.ConstantScalar(dtype, 2)}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(double spacing, Spacing(ctx));
  if (cumulative) {
    std::string areas =
        ctx.Op("Mul", {ctx.CastTo(PairSums(ctx, y, axis), y_dtype, dtype), ctx.ConstantScalar(dtype, spacing / 2)});
    return ctx.SetOutput(0, ctx.Op("CumSum", {areas, ctx.ConstantInt64(axis)}));
  }
  std::string sum = ctx.Op("ReduceSum", {ctx.CastTo(y, y_dtype, DataType::kInt64), axes},
                           {Attribute::Int("keepdims", 0)});
  // y[0] + y[-1] (both empty along dim when it is: then the sum is 0, as torch's zeros).
  std::string ends = ctx.Op("Add", {SliceAxis(ctx, y, axis, 0, 1), SliceAxis(ctx, y, axis, -1, kToEnd)});
  ends = ctx.Op("ReduceSum", {ctx.CastTo(ends, y_dtype, dtype), axes}, {Attribute::Int("keepdims", 0)});
  std::string half_ends = ctx.Op("Mul", {ends, ctx.ConstantScalar(dtype, 0.5)});
  std::string inner = ctx.Op("Sub", {ctx.CastTo(sum, DataType::kInt64, dtype), half_ends});
  return ctx.SetOutput(0, ctx.Op("Mul", {inner, ctx.ConstantScalar(dtype, spacing)}));
}

// True when y (or x) is an integer tensor.
absl::StatusOr<bool> HasIntegerOperand(TranslateContext& ctx, bool with_x) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType y_dtype, ctx.InputDtype("y"));
  if (IsInteger(y_dtype)) return true;
  if (!with_x) return false;
  PT2ONNX_ASSIGN_OR_RETURN(DataType x_dtype, ctx.InputDtype("x"));
  return IsInteger(x_dtype);
}

// The per-interval areas of floating y and x, in the output dtype.
absl::StatusOr<std::string> IntervalAreas(TranslateContext& ctx, const Layout& layout, bool with_x) {
  const DataType dtype = layout.dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("y", dtype));
  std::string pair_sums = PairSums(ctx, y, layout.axis);
  std::string dx;
  if (with_x) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, SamplePoints(ctx, layout, dtype));
    dx = Widths(ctx, x, layout.axis);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(double spacing, Spacing(ctx));
    dx = ctx.ConstantScalar(dtype, spacing);
  }
  return ctx.Op("Div", {ctx.Op("Mul", {dx, pair_sums}), ctx.ConstantScalar(dtype, 2)});
}

absl::Status Integrate(TranslateContext& ctx, bool with_x, bool cumulative) {
  PT2ONNX_ASSIGN_OR_RETURN(Layout layout, ReadLayout(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool integer, HasIntegerOperand(ctx, with_x));
  if (integer) return IntegerTrapezoid(ctx, layout, with_x, cumulative);
  PT2ONNX_ASSIGN_OR_RETURN(std::string areas, IntervalAreas(ctx, layout, with_x));
  if (cumulative) return ctx.SetOutput(0, ctx.Op("CumSum", {areas, ctx.ConstantInt64(layout.axis)}));
  return ctx.SetOutput(0, ctx.Op("ReduceSum", {areas, ctx.ConstantInt64s({layout.axis})},
                                 {Attribute::Int("keepdims", 0)}));
}

// aten::trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor; trapz.x alike
absl::Status AtenTrapezoidX(TranslateContext& ctx) { return Integrate(ctx, true, false); }
// aten::trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor; trapz.dx(Tensor y, *, float dx=1, int dim=-1)
absl::Status AtenTrapezoidDx(TranslateContext& ctx) { return Integrate(ctx, false, false); }
// aten::cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor
absl::Status AtenCumulativeTrapezoidX(TranslateContext& ctx) { return Integrate(ctx, true, true); }
// aten::cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor
absl::Status AtenCumulativeTrapezoidDx(TranslateContext& ctx) { return Integrate(ctx, false, true); }

// aten::gradient.scalarint(Tensor self, *, Scalar? spacing=None, int? dim=None, int edge_order=1) -> Tensor[]
// Per dim (every dim when None), with uniform spacing h: central
// differences (x[i+1] - x[i-1]) / h / 2 inside, one-sided first- or
// second-order ones at the two ends, in ATen's operation order
// (aten/src/ATen/native/ReduceOps.cpp, gradient_helper_float).
absl::Status AtenGradientScalarint(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.OptionalInt("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t edge_order, ctx.Int("edge_order"));
  double h = 1;
  if (ctx.Has("spacing")) {
    PT2ONNX_ASSIGN_OR_RETURN(ScalarValue v, ctx.Scalar("spacing"));
    h = v.AsDouble();
  }
  if (!IsFloatingPoint(dtype)) return ctx.Unsupported("torch.gradient of a non-floating tensor");
  if (edge_order != 1 && edge_order != 2) return ctx.Invalid("torch.gradient only supports edge_order=1 and edge_order=2.");
  if (rank == 0) return ctx.Invalid("torch.gradient needs a tensor of at least one dim");
  std::vector<int64_t> dims;
  if (dim) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t d, CheckedAxis(ctx, "dim", *dim, rank));
    dims.push_back(d);
  } else {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  std::string dx = ctx.ConstantScalar(dtype, h);
  auto c = [&](double v) { return ctx.ConstantScalar(dtype, v); };
  std::vector<std::string> results;
  for (int64_t d : dims) {
    const pt2::SymInt& size = meta->sizes[d];
    if (!size.is_symbolic && size.value < edge_order + 1) {
      return ctx.Invalid("torch.gradient expected each dimension size to be at least edge_order+1");
    }
    std::string ax = ctx.ConstantInt64s({d});
    auto part = [&](int64_t start, int64_t end) {
      return ctx.Op("Slice", {x, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}), ax});
    };
    const int64_t kEnd = std::numeric_limits<int64_t>::max();
    std::string center = ctx.Op("Div", {ctx.Op("Div", {ctx.Op("Sub", {part(2, kEnd), part(0, -2)}), dx}), c(2)});
    std::string first, last;
    if (edge_order == 1) {
      first = ctx.Op("Div", {ctx.Op("Sub", {part(1, 2), part(0, 1)}), dx});
      last = ctx.Op("Div", {ctx.Op("Sub", {part(-1, kEnd), part(-2, -1)}), dx});
    } else {
      first = ctx.Op("Add", {ctx.Op("Mul", {c(-1.5), part(0, 1)}), ctx.Op("Mul", {c(2), part(1, 2)})});
      first = ctx.Op("Div", {ctx.Op("Sub", {first, ctx.Op("Mul", {c(0.5), part(2, 3)})}), dx});
      last = ctx.Op("Sub", {ctx.Op("Mul", {c(0.5), part(-3, -2)}), ctx.Op("Mul", {c(2), part(-2, -1)})});
      last = ctx.Op("Div", {ctx.Op("Add", {last, ctx.Op("Mul", {c(1.5), part(-1, kEnd)})}), dx});
    }
    results.push_back(ctx.Op("Concat", {first, center, last}, {ir::Attribute::Int("axis", d)}));
  }
  return ctx.SetListOutput(0, results);
}

}  // namespace

void RegisterIntegrationOps(OpRegistry& r) {
  r.Add("aten::gradient.scalarint", &AtenGradientScalarint);
  r.Add("aten::trapezoid.x", &AtenTrapezoidX);
  r.Add("aten::trapezoid.dx", &AtenTrapezoidDx);
  r.Add("aten::trapz.x", &AtenTrapezoidX);
  r.Add("aten::trapz.dx", &AtenTrapezoidDx);
  r.Add("aten::cumulative_trapezoid.x", &AtenCumulativeTrapezoidX);
  r.Add("aten::cumulative_trapezoid.dx", &AtenCumulativeTrapezoidDx);
}

}  // namespace pt2onnx::ops
