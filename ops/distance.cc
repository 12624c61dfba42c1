// File: ops/distance.cc
// -----------------------------------------------------------------------------
// Pairwise p-norm distances: _cdist_forward (torch.cdist) and _pdist_forward
// (torch.pdist), as torch's CPU kernels compute them; pairwise_distance, dist
// and cosine_similarity as aten/src/ATen/native/Distance.cpp composes them
// (and triplet_margin_loss, Loss.cpp's loss over pairwise distances):
//   p = 0: the count of differing coordinates; p = 1: sum |d|;
//   p = 2: sqrt(sum d^2); p = inf: max |d|; otherwise (sum |d|^p)^(1/p).
// cdist with p = 2 uses the matrix-product form
//   sqrt(clamp_min(|x|^2 + |y|^2 - 2 x.y, 0))
// when compute_mode is 1, or when it is None/0 and either point count
// exceeds 25 (aten/src/ATen/native/Distance.cpp); it rounds differently, so
// the same choice is made here (at run time when the counts are symbolic).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/loss_helpers.h"
#include "ops/reduce_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// The p-norm over the last axis of the differences `diff`.
std::string PNorm(TranslateContext& ctx, const std::string& diff, double p, DataType dtype) {
  return PNormOver(ctx, diff, p, {-1}, false, dtype);
}

absl::StatusOr<DataType> FloatingOutDtype(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid(absl::StrCat("norms of ", DataTypeName(dtype), " tensors; torch computes them in floating point"));
  }
  return dtype;
}

absl::StatusOr<double> CheckedP(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double p, ctx.Float("p"));
  if (!(p >= 0)) return ctx.Invalid(absl::StrCat("p must be a non-negative number, got ", p));
  return p;
}

// aten::_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor
// aten::cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor
absl::Status AtenCdistForward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedP(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank1, ctx.InputRank("x1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank2, ctx.InputRank("x2"));
  if (rank1 < 2 || rank2 < 2) return ctx.Invalid("x1 and x2 must have at least 2 dims");
  std::optional<int64_t> compute_mode;
  if (ctx.Has("compute_mode")) {
    PT2ONNX_ASSIGN_OR_RETURN(compute_mode, ctx.OptionalInt("compute_mode"));
  }
  const int64_t mode = compute_mode.value_or(0);
  if (mode < 0 || mode > 2) {
    return ctx.Invalid(absl::StrCat("compute_mode must be None, 0, 1 or 2, got ", mode));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x1, ctx.InputAs("x1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x2, ctx.InputAs("x2", dtype));
  // Which form torch uses: 0 direct, 1 matrix product, -1 decided at run time.
  int form = 0;
  if (p == 2 && mode == 1) form = 1;
  if (p == 2 && mode == 0) {
    const pt2::SymInt& r1 = (*ctx.InputMeta("x1"))->sizes[rank1 - 2];
    const pt2::SymInt& r2 = (*ctx.InputMeta("x2"))->sizes[rank2 - 2];
    form = (r1.is_symbolic || r2.is_symbolic) ? -1 : (r1.value > 25 || r2.value > 25) ? 1 : 0;
  }
  std::string direct;
  if (form != 1) {
    direct = PNorm(ctx, ctx.Op("Sub", {Unsqueeze(ctx, x1, {-2}), Unsqueeze(ctx, x2, {-3})}), p,
                   dtype);
    if (form == 0) return ctx.SetOutput(0, direct);
  }

  // torch's _euclidean_dist: [-2 x, |x|^2, 1] . [y, 1, |y|^2]^T.
  auto square_norm = [&](const std::string& x) {
    return ctx.Op("ReduceSum", {ctx.Op("Mul", {x, x}), ctx.ConstantInt64s({-1})},
                  {Attribute::Int("keepdims", 1)});
  };
  std::string n1 = square_norm(x1);
  std::string n2 = square_norm(x2);
  std::string one1 = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), ctx.Op("Shape", {n1})});
  std::string one2 = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), ctx.Op("Shape", {n2})});
  std::string a = ctx.Op("Concat", {ctx.Op("Mul", {x1, ctx.ConstantScalar(dtype, -2)}), n1, one1},
                         {Attribute::Int("axis", -1)});
  std::string b = ctx.Op("Concat", {x2, one2, n2}, {Attribute::Int("axis", -1)});
  std::vector<int64_t> swap_last;
  for (int64_t i = 0; i < rank2; ++i) swap_last.push_back(i);
  std::swap(swap_last[rank2 - 1], swap_last[rank2 - 2]);
  std::string product = ctx.Op("MatMul",
                               {a, ctx.Op("Transpose", {b}, {Attribute::Ints("perm", swap_last)})});
  std::string by_matmul = ctx.Op("Sqrt", {ctx.Op("Max", {product, ctx.ConstantScalar(dtype, 0)})});
  if (form == 1) return ctx.SetOutput(0, by_matmul);

  // Symbolic point counts: the matrix form only when one exceeds 25.
  std::string counts = ctx.Op("Concat",
                              {ShapeSlice(ctx, x1, rank1 - 2, rank1 - 1),
                               ShapeSlice(ctx, x2, rank2 - 2, rank2 - 1)},
                              {Attribute::Int("axis", 0)});
  std::string large = ctx.Op("Greater",
                             {ctx.Op("ReduceMax", {counts}, {Attribute::Int("keepdims", 0)}),
                                         ctx.ConstantInt64(25)});
  return ctx.SetOutput(0, ctx.Op("Where", {large, by_matmul, direct}));
}

// aten::_pdist_forward(Tensor self, float p=2.) -> Tensor
// aten::pdist(Tensor self, float p=2.) -> Tensor
// Distances of rows i < j of an (N, M) input, in row-major (i, j) order.
absl::Status AtenPdistForward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, CheckedP(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 2) return ctx.Invalid(absl::StrCat("self must be an (N, M) matrix, got rank ", rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string all = PNorm(ctx, ctx.Op("Sub", {Unsqueeze(ctx, x, {1}), Unsqueeze(ctx, x, {0})}), p,
                          dtype);
  std::string rows = ctx.Op("Range",
                            {ctx.ConstantInt64(0), Squeeze(ctx, ShapeSlice(ctx, x, 0, 1), {0}),
                                      ctx.ConstantInt64(1)});
  std::string upper = ctx.Op("Less", {Unsqueeze(ctx, rows, {1}), Unsqueeze(ctx, rows, {0})});
  return ctx.SetOutput(0, ctx.Op("Compress", {Reshape(ctx, all, {-1}), Reshape(ctx, upper, {-1})},
                                 {Attribute::Int("axis", 0)}));
}

// a - b + eps in `dtype`. The difference is taken in the operands' promoted
// dtype first, so integer differences wrap at its width (uint8 5 - 6 is 255),
// as torch subtracts before `+ eps` makes the result floating.
absl::StatusOr<std::string> ShiftedDifference(TranslateContext& ctx, absl::string_view a_arg,
                                              absl::string_view b_arg, double eps, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType common, ResultType(ctx, {a_arg, b_arg}));
  const DataType compute = IsInteger(common) ? common : dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs(a_arg, compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs(b_arg, compute));
  std::string diff = ctx.CastTo(ctx.Op("Sub", {a, b}), compute, dtype);
  return ctx.Op("Add", {diff, ctx.ConstantScalar(dtype, eps)});
}

// norm(x1 - x2 + eps, p) over the last dim of the broadcast rank: eps is
// added to the difference, not to the norm (Distance.cpp).
// aten::pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=1e-06, bool keepdim=False) -> Tensor
absl::Status AtenPairwiseDistance(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, FloatOr(ctx, "p", 2.0));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, FloatOr(ctx, "eps", 1e-6));
  bool keepdim = false;
  if (ctx.Has("keepdim")) {
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, ctx.Bool("keepdim"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank1, ctx.InputRank("x1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank2, ctx.InputRank("x2"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string diff, ShiftedDifference(ctx, "x1", "x2", eps, dtype));
  // Two 0-d operands: torch's dim -1 of a 0-d tensor is the whole of it.
  std::vector<int64_t> axes;
  if (std::max(rank1, rank2) > 0) axes = {-1};
  return ctx.SetOutput(0, PNormOver(ctx, diff, p, axes, keepdim, dtype));
}

// The p-norm of every element of self - other (broadcast), a 0-d result.
// aten::dist(Tensor self, Tensor other, Scalar p=2) -> Tensor
absl::Status AtenDist(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, FloatOr(ctx, "p", 2.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("other", dtype));
  return ctx.SetOutput(0, PNormOver(ctx, ctx.Op("Sub", {a, b}), p, {}, false, dtype));
}

// sum((x1 / max(|x1|, eps)) * (x2 / max(|x2|, eps))) over dim, each operand
// broadcast to the common shape first (its norm counts the repeats) and
// each norm clamped on its own (Distance.cpp, torch 2.x).
// aten::cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor
absl::Status AtenCosineSimilarity(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, FloatOr(ctx, "eps", 1e-8));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank1, ctx.InputRank("x1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank2, ctx.InputRank("x2"));
  const int64_t rank = std::max(rank1, rank2);
  // A 0-d pair reduces over everything with dim 0 or -1, as torch wraps it.
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", rank));
  std::vector<int64_t> axes;
  if (rank > 0) axes = {axis};
  PT2ONNX_ASSIGN_OR_RETURN(std::string x1, ctx.InputAs("x1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x2, ctx.InputAs("x2", dtype));
  // Expand broadcasts both ways, so each operand takes the common shape.
  std::string e1 = ctx.Op("Expand", {x1, ctx.Op("Shape", {x2})});
  std::string e2 = ctx.Op("Expand", {x2, ctx.Op("Shape", {x1})});
  std::string floor = ctx.ConstantScalar(dtype, eps);
  auto unit = [&](const std::string& x) {
    std::string norm = ctx.Op("Max", {PNormOver(ctx, x, 2, axes, true, dtype), floor});
    return ctx.Op("Div", {x, norm});
  };
  return ctx.SetOutput(0, Reduce(ctx, "ReduceSum", ctx.Op("Mul", {unit(e1), unit(e2)}), axes, false));
}

// max(margin + d(a, p) - d(a, n), 0) with d = pairwise_distance; swap
// takes min(d(a, n), d(p, n)) as the negative distance (Loss.cpp).
// aten::triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., float p=2.,
//     float eps=1e-06, bool swap=False, int reduction=1) -> Tensor
absl::Status AtenTripletMarginLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingOutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, FloatOr(ctx, "margin", 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(double p, FloatOr(ctx, "p", 2.0));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, FloatOr(ctx, "eps", 1e-6));
  bool swap = false;
  if (ctx.Has("swap")) {
    PT2ONNX_ASSIGN_OR_RETURN(swap, ctx.Bool("swap"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(LossReduction reduction, ReadLossReduction(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("anchor"));
  for (const char* arg : {"positive", "negative"}) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t other_rank, ctx.InputRank(arg));
    if (other_rank != rank) {
      return ctx.Invalid(absl::StrCat("anchor, positive and negative must have the same rank; anchor is ", rank,
                                      "-D, ", arg, " ", other_rank, "-D"));
    }
  }
  std::vector<int64_t> axes;
  if (rank > 0) axes = {-1};
  auto distance = [&](absl::string_view x1, absl::string_view x2) -> absl::StatusOr<std::string> {
    PT2ONNX_ASSIGN_OR_RETURN(std::string diff, ShiftedDifference(ctx, x1, x2, eps, dtype));
    return PNormOver(ctx, diff, p, axes, false, dtype);
  };
  PT2ONNX_ASSIGN_OR_RETURN(std::string d_pos, distance("anchor", "positive"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string d_neg, distance("anchor", "negative"));
  if (swap) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string d_swap, distance("positive", "negative"));
    d_neg = ctx.Op("Min", {d_neg, d_swap});
  }
  std::string v = ctx.Op("Sub", {ctx.Op("Add", {ctx.ConstantScalar(dtype, margin), d_pos}), d_neg});
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string loss = ctx.Op("Where", {ctx.Op("Less", {v, zero}), zero, v});  // NaN kept
  return ctx.SetOutput(0, ApplyLossReduction(ctx, loss, reduction));
}

}  // namespace

void RegisterDistanceOps(OpRegistry& r) {
  r.Add("aten::_cdist_forward.default", &AtenCdistForward);
  r.Add("aten::_pdist_forward.default", &AtenPdistForward);
  r.Add("aten::cdist.default", &AtenCdistForward);  // same arguments
  r.Add("aten::pdist.default", &AtenPdistForward);
  r.Add("aten::pairwise_distance.default", &AtenPairwiseDistance);
  r.Add("aten::dist.default", &AtenDist);
  r.Add("aten::cosine_similarity.default", &AtenCosineSimilarity);
  r.Add("aten::triplet_margin_loss.default", &AtenTripletMarginLoss);
}

}  // namespace pt2onnx::ops
