// File: ops/embedding_losses.cc
// -----------------------------------------------------------------------------
// Margin and embedding losses torch.export keeps as single ATen nodes:
// margin_ranking, hinge_embedding, cosine_embedding (composites in
// aten/src/ATen/native/Loss.cpp) and the per-sample margin losses
// multi_margin and multilabel_margin (LossMultiMargin.cpp,
// LossMultiLabelMargin.cpp), all with torch's `reduction`. Computed in the
// output's floating dtype; clamps keep NaN as torch's clamp_min does.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
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

absl::StatusOr<DataType> FloatingLossDtype(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid(absl::StrCat("the loss is typed ", DataTypeName(dtype),
                                    "; torch computes losses in floating point"));
  }
  return dtype;
}

// max(v, 0) with NaN kept (ONNX leaves Max of NaN unspecified).
std::string ClampMinZero(TranslateContext& ctx, const std::string& v, DataType dtype) {
  std::string zero = Zero(ctx, dtype);
  return ctx.Op("Where", {ctx.Op("Less", {v, zero}), zero, v});
}

// Where `target == value` (compared in the target's dtype), `v`, else 0.
std::string WhereTargetIs(TranslateContext& ctx, const std::string& target, double value, bool equal,
                          const std::string& v, DataType dtype) {
  std::string is = ctx.Op("Equal", {target, ctx.ConstantScalar(dtype, value)});
  if (!equal) is = ctx.Op("Not", {is});
  return ctx.Op("Where", {is, v, Zero(ctx, dtype)});
}

absl::Status Reduced(TranslateContext& ctx, const std::string& loss) {
  PT2ONNX_ASSIGN_OR_RETURN(LossReduction reduction, ReadLossReduction(ctx));
  return ctx.SetOutput(0, ApplyLossReduction(ctx, loss, reduction));
}

// max(0, -y (x1 - x2) + margin).
// aten::margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor
absl::Status AtenMarginRankingLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingLossDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, FloatOr(ctx, "margin", 0.0));
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("input1"));
  if (IsInteger(in)) {
    // Loss.cpp computes -target * (input1 - input2) in the integer dtype
    // (wrapping) and only `+ margin` promotes to floating point. int64 (or
    // int32 for narrower types: ONNX Runtime lacks their Mul) keeps the low
    // bits, which the Cast back to the input dtype wraps as torch.
    const DataType wide = in == DataType::kInt64 ? in : DataType::kInt32;
    PT2ONNX_ASSIGN_OR_RETURN(std::string x1, ctx.InputAs("input1", wide));
    PT2ONNX_ASSIGN_OR_RETURN(std::string x2, ctx.InputAs("input2", wide));
    PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("target", wide));
    std::string product = ctx.Op("Mul", {ctx.Op("Sub", {ctx.ConstantScalar(wide, 0), y}), ctx.Op("Sub", {x1, x2})});
    std::string wrapped = ctx.CastTo(ctx.CastTo(product, wide, in), in, dtype);
    std::string v = ctx.Op("Add", {wrapped, ctx.ConstantScalar(dtype, margin)});
    return Reduced(ctx, ClampMinZero(ctx, v, dtype));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x1, ctx.InputAs("input1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x2, ctx.InputAs("input2", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("target", dtype));
  std::string v = ctx.Op("Sub", {ctx.ConstantScalar(dtype, margin), ctx.Op("Mul", {y, ctx.Op("Sub", {x1, x2})})});
  return Reduced(ctx, ClampMinZero(ctx, v, dtype));
}

// (y != 1 ? max(margin - x, 0) : 0) + (y != -1 ? x : 0): a target that is
// neither 1 nor -1 gets both terms, as in Loss.cpp.
// aten::hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=1) -> Tensor
absl::Status AtenHingeEmbeddingLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingLossDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, FloatOr(ctx, "margin", 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("target", dtype));
  std::string clamped = ClampMinZero(ctx, ctx.Op("Sub", {ctx.ConstantScalar(dtype, margin), x}), dtype);
  std::string loss = ctx.Op("Add", {WhereTargetIs(ctx, y, 1, false, clamped, dtype),
                                    WhereTargetIs(ctx, y, -1, false, x, dtype)});
  return Reduced(ctx, loss);
}

// cos = x1.x2 / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12)) over the last dim;
// y == 1: 1 - cos, y == -1: max(cos - margin, 0), otherwise 0 (Loss.cpp).
// aten::cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor
absl::Status AtenCosineEmbeddingLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingLossDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, FloatOr(ctx, "margin", 0.0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t target_rank, ctx.InputRank("target"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank1, ctx.InputRank("input1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank2, ctx.InputRank("input2"));
  if (target_rank > 1) return ctx.Invalid("0D or 1D target tensor expected, multi-target not supported");
  if (rank1 != target_rank + 1 || rank2 != target_rank + 1) {
    return ctx.Invalid(absl::StrCat("a ", target_rank, "-D target expects ", target_rank + 1,
                                    "-D inputs, got ", rank1, "-D and ", rank2, "-D"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x1, ctx.InputAs("input1", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x2, ctx.InputAs("input2", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputAs("target", dtype));
  auto sum_last = [&](const std::string& a, const std::string& b) {
    return Reduce(ctx, "ReduceSum", ctx.Op("Mul", {a, b}), {target_rank}, false);
  };
  std::string eps = ctx.ConstantScalar(dtype, 1e-12);
  std::string mag1 = ctx.Op("Add", {sum_last(x1, x1), eps});
  std::string mag2 = ctx.Op("Add", {sum_last(x2, x2), eps});
  std::string cos = ctx.Op("Div", {sum_last(x1, x2), ctx.Op("Sqrt", {ctx.Op("Mul", {mag1, mag2})})});
  std::string pos = ctx.Op("Sub", {ctx.ConstantScalar(dtype, 1), cos});
  std::string neg = ClampMinZero(ctx, ctx.Op("Sub", {cos, ctx.ConstantScalar(dtype, margin)}), dtype);
  return Reduced(ctx, ctx.Op("Add", {WhereTargetIs(ctx, y, 1, true, pos, dtype),
                                     WhereTargetIs(ctx, y, -1, true, neg, dtype)}));
}

// The per-sample losses' common frame: input as (N, C) (a 1-D input is one
// sample, a 0-d one a single class), C as 0-d int64 and in `dtype`.
struct Frames {
  std::string x;
  std::string classes;        // 0-d int64
  std::string classes_float;  // 0-d, dtype
};

absl::StatusOr<Frames> ReadFrames(TranslateContext& ctx, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank > 2) return ctx.Invalid(absl::StrCat("expected a 0-D, 1-D or 2-D input, got ", rank, "-D"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  Frames f;
  f.x = rank == 2 ? x : Reshape(ctx, x, {1, -1});
  f.classes = Squeeze(ctx, ShapeSlice(ctx, f.x, 1, 2), {0});
  f.classes_float = ctx.CastTo(f.classes, DataType::kInt64, dtype);
  return f;
}

// The per-class terms summed over the classes and divided by C, then
// reduced. `none` gives (N), or 0-d where the program says so: for a single
// sample torch's eager kernels and its export metadata disagree on which
// (a 0-d target gives () in eager, (1,) in the exported program).
absl::Status PerSample(TranslateContext& ctx, const Frames& f, const std::string& sum_over_classes) {
  PT2ONNX_ASSIGN_OR_RETURN(LossReduction reduction, ReadLossReduction(ctx));
  std::string per_sample = ctx.Op("Div", {sum_over_classes, f.classes_float});
  if (reduction == LossReduction::kNone && ctx.OutputRank(0) == 0) per_sample = Reshape(ctx, per_sample, {});
  return ctx.SetOutput(0, ApplyLossReduction(ctx, per_sample, reduction));
}

// Per sample: sum over d != y of w[y] max(margin - x[y] + x[d], 0)^p, / C.
// aten::multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None,
//     int reduction=1) -> Tensor
absl::Status AtenMultiMarginLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingLossDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, FloatOr(ctx, "p", 1.0));
  if (p != 1 && p != 2) return ctx.Invalid(absl::StrCat("only p == 1 and p == 2 supported, got ", p));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, FloatOr(ctx, "margin", 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t target_rank, ctx.InputRank("target"));
  if (target_rank > 1) return ctx.Invalid(absl::StrCat("expected a 0-D or 1-D target, got ", target_rank, "-D"));
  PT2ONNX_ASSIGN_OR_RETURN(Frames f, ReadFrames(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string target, ctx.InputAs("target", DataType::kInt64));
  std::string column = Reshape(ctx, target, {-1, 1});
  std::string x_target = ctx.Op("GatherElements", {f.x, column}, {Attribute::Int("axis", 1)});
  std::string z = ctx.Op("Add", {ctx.Op("Sub", {ctx.ConstantScalar(dtype, margin), x_target}), f.x});
  std::string h = ClampMinZero(ctx, z, dtype);
  if (p == 2) h = ctx.Op("Mul", {h, h});
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weight, ctx.OptionalInput("weight"));
  if (weight.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("weight", dtype));
    h = ctx.Op("Mul", {h, ctx.Op("Gather", {w, column}, {Attribute::Int("axis", 0)})});
  }
  std::string class_ids = ctx.Op("Range", {ctx.ConstantInt64(0), f.classes, ctx.ConstantInt64(1)});
  std::string other = ctx.Op("Not", {ctx.Op("Equal", {class_ids, column})});
  std::string terms = ctx.Op("Where", {other, h, Zero(ctx, dtype)});
  return PerSample(ctx, f, Reduce(ctx, "ReduceSum", terms, {1}, false));
}

// Per sample, the targets are target's entries before its first -1: sum over
// each target j and each non-target class i of max(1 - x[j] + x[i], 0), / C.
// aten::multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
absl::Status AtenMultilabelMarginLoss(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FloatingLossDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t target_rank, ctx.InputRank("target"));
  if (target_rank != rank) {
    return ctx.Invalid(absl::StrCat("target must have the input's shape, got ranks ", target_rank, " and ", rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Frames f, ReadFrames(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string target, ctx.InputAs("target", DataType::kInt64));
  std::string t = rank == 2 ? target : Reshape(ctx, target, {1, -1});
  // Entry k counts while no -1 occurs in entries 0..k.
  std::string stops = ctx.CastTo(ctx.Op("Equal", {t, ctx.ConstantInt64(-1)}), DataType::kBool, DataType::kInt64);
  std::string seen = ctx.Op("CumSum", {stops, ctx.ConstantInt64(1)});
  std::string valid = ctx.Op("Equal", {seen, ctx.ConstantInt64(0)});                     // (N, K)
  std::string index = ctx.Op("Where", {valid, t, ctx.ConstantInt64(0)});
  std::string x_target = ctx.Op("GatherElements", {f.x, index}, {Attribute::Int("axis", 1)});  // (N, K)
  std::string class_ids = ctx.Op("Range", {ctx.ConstantInt64(0), f.classes, ctx.ConstantInt64(1)});
  std::string valid3 = Unsqueeze(ctx, valid, {2});
  std::string hits = ctx.Op("And", {valid3, ctx.Op("Equal", {Unsqueeze(ctx, index, {2}), class_ids})});
  std::string hit_count = Reduce(ctx, "ReduceSum", ctx.CastTo(hits, DataType::kBool, DataType::kInt64), {1}, false);
  std::string non_target = ctx.Op("Equal", {hit_count, ctx.ConstantInt64(0)});  // (N, C)
  std::string z = ctx.Op("Add", {ctx.Op("Sub", {ctx.ConstantScalar(dtype, 1), Unsqueeze(ctx, x_target, {2})}),
                                 Unsqueeze(ctx, f.x, {1})});  // (N, K, C)
  std::string counted = ctx.Op("And", {valid3, Unsqueeze(ctx, non_target, {1})});
  std::string terms = ctx.Op("Where", {counted, ClampMinZero(ctx, z, dtype), Zero(ctx, dtype)});
  return PerSample(ctx, f, Reduce(ctx, "ReduceSum", terms, {1, 2}, false));
}

}  // namespace

void RegisterEmbeddingLossOps(OpRegistry& r) {
  r.Add("aten::margin_ranking_loss.default", &AtenMarginRankingLoss);
  r.Add("aten::hinge_embedding_loss.default", &AtenHingeEmbeddingLoss);
  r.Add("aten::cosine_embedding_loss.default", &AtenCosineEmbeddingLoss);
  r.Add("aten::multi_margin_loss.default", &AtenMultiMarginLoss);
  r.Add("aten::multilabel_margin_loss.default", &AtenMultilabelMarginLoss);
}

}  // namespace pt2onnx::ops
