// File: ops/integration.cc
// -----------------------------------------------------------------------------
// The trapezoidal rule along one dim: trapezoid / trapz (sums) and
// cumulative_trapezoid (running sums), with sample points `x` or a constant
// spacing `dx`. All translations hold for opsets 18..23.
//
// As torch (aten/src/ATen/native/Integration.cpp): each interval contributes
// dx * (y[i] + y[i + 1]) / 2; a 1-D `x` lies along `dim`, a lower-rank `x`
// broadcasts from the right; fewer than two samples give 0 (an empty running
// sum). Integer inputs give the default float result.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
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

struct Intervals {
  std::string contributions;  // dx * (y[i] + y[i + 1]) / 2 along `axis`
  int64_t axis = 0;
};

// The per-interval areas, in the output dtype. `with_x`: the `x` overload.
absl::StatusOr<Intervals> IntervalAreas(TranslateContext& ctx, bool with_x) {
  DataType dtype = ctx.OutputDtype(0);
  if (!IsFloatingPoint(dtype)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(dtype), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("y"));
  if (rank == 0) return ctx.Invalid("y must have at least one dimension");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("y", dtype));
  std::string pair_sums = ctx.Op("Add", {SliceAxis(ctx, y, axis, 0, -1), SliceAxis(ctx, y, axis, 1, kToEnd)});
  std::string dx;
  if (with_x) {
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
      x = Unsqueeze(ctx, x, others);
    } else if (x_rank < rank) {
      // Otherwise x's dims line up with y's last ones, as broadcasting does.
      std::vector<int64_t> leading;
      for (int64_t d = 0; d < rank - x_rank; ++d) leading.push_back(d);
      x = Unsqueeze(ctx, x, leading);
    }
    dx = ctx.Op("Sub", {SliceAxis(ctx, x, axis, 1, kToEnd), SliceAxis(ctx, x, axis, 0, -1)});
  } else {
    // Scalar dx (trapezoid, cumulative_trapezoid) or float dx (trapz).
    absl::StatusOr<ScalarValue> scalar = ctx.Scalar("dx");
    double spacing = 0;
    if (scalar.ok()) {
      spacing = scalar->AsDouble();
    } else {
      PT2ONNX_ASSIGN_OR_RETURN(spacing, ctx.Float("dx"));
    }
    dx = ctx.ConstantScalar(dtype, spacing);
  }
  std::string areas = ctx.Op("Div", {ctx.Op("Mul", {dx, pair_sums}), ctx.ConstantScalar(dtype, 2)});
  return Intervals{areas, axis};
}

absl::Status Trapezoid(TranslateContext& ctx, bool with_x) {
  PT2ONNX_ASSIGN_OR_RETURN(Intervals in, IntervalAreas(ctx, with_x));
  std::string sum = ctx.Op("ReduceSum", {in.contributions, ctx.ConstantInt64s({in.axis})},
                           {Attribute::Int("keepdims", 0)});
  return ctx.SetOutput(0, sum);
}

absl::Status CumulativeTrapezoid(TranslateContext& ctx, bool with_x) {
  PT2ONNX_ASSIGN_OR_RETURN(Intervals in, IntervalAreas(ctx, with_x));
  return ctx.SetOutput(0, ctx.Op("CumSum", {in.contributions, ctx.ConstantInt64(in.axis)}));
}

// aten::trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor; trapz.x alike
absl::Status AtenTrapezoidX(TranslateContext& ctx) { return Trapezoid(ctx, true); }
// aten::trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor; trapz.dx(Tensor y, *, float dx=1, int dim=-1)
absl::Status AtenTrapezoidDx(TranslateContext& ctx) { return Trapezoid(ctx, false); }
// aten::cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor
absl::Status AtenCumulativeTrapezoidX(TranslateContext& ctx) { return CumulativeTrapezoid(ctx, true); }
// aten::cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor
absl::Status AtenCumulativeTrapezoidDx(TranslateContext& ctx) { return CumulativeTrapezoid(ctx, false); }

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
