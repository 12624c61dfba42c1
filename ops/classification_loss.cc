// File: ops/classification_loss.cc
// -----------------------------------------------------------------------------
// Class-index losses: nll_loss (nll_loss_forward / nll_loss2d_forward with
// their total_weight output, and the one-output nll_loss, nll_loss2d,
// nll_loss_nd) and cross_entropy_loss (class-index and class-probability
// targets, label smoothing), after aten/src/ATen/native/LossNLL.cpp.
//
// Input (N, C, d1..dk) or (C); target (N, d1..dk) or (). ONNX has
// NegativeLogLikelihoodLoss, but not every runtime (our executor included)
// runs it, so the gather is spelled with GatherElements: the log-probability
// of each target class, times its class weight, 0 where the target is
// ignore_index. `mean` divides by the summed weights of the targets that
// count (NaN when none does, as in torch).
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/loss_helpers.h"
#include "ops/reduce_helpers.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// The per-target terms of nll_loss over log-probabilities `logp`.
struct NllTerms {
  DataType dtype;
  int64_t class_axis;
  int64_t rank;                       // of the input
  std::string valid;                  // BOOL, target's shape: target != ignore_index
  std::string loss;                   // -w[t] logp[t], 0 where ignored
  std::string weights;                // w[t], 0 where ignored
  std::optional<std::string> weight;  // the class weights (C), in dtype
  LossReduction reduction;
};

absl::StatusOr<NllTerms> ReadNllTerms(TranslateContext& ctx, const std::string& logp, DataType dtype) {
  NllTerms terms;
  terms.dtype = dtype;
  PT2ONNX_ASSIGN_OR_RETURN(terms.rank, ctx.InputRank("self"));
  if (terms.rank == 0) return ctx.Invalid("the input is 0-d; nll_loss needs (C) or (N, C, ...)");
  terms.class_axis = terms.rank == 1 ? 0 : 1;
  PT2ONNX_ASSIGN_OR_RETURN(terms.reduction, ReadLossReduction(ctx));
  int64_t ignore_index = -100;
  if (ctx.Has("ignore_index")) {
    PT2ONNX_ASSIGN_OR_RETURN(ignore_index, ctx.Int("ignore_index"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string target, ctx.InputAs("target", DataType::kInt64));
  terms.valid = ctx.Op("Not", {ctx.Op("Equal", {target, ctx.ConstantInt64(ignore_index)})});
  std::string safe = ctx.Op("Where", {terms.valid, target, ctx.ConstantInt64(0)});
  std::string picked = ctx.Op("GatherElements", {logp, Unsqueeze(ctx, safe, {terms.class_axis})},
                              {Attribute::Int("axis", terms.class_axis)});
  picked = Squeeze(ctx, picked, {terms.class_axis});
  std::string zero = Zero(ctx, dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weight, ctx.OptionalInput("weight"));
  if (weight.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType weight_dtype, ctx.InputDtype("weight"));
    terms.weight = ctx.CastTo(*weight, weight_dtype, dtype);
    std::string w = ctx.Op("Gather", {*terms.weight, safe}, {Attribute::Int("axis", 0)});
    terms.weights = ctx.Op("Where", {terms.valid, w, zero});
  } else {
    terms.weights = ctx.CastTo(terms.valid, DataType::kBool, dtype);
  }
  std::string loss = ctx.Op("Neg", {ctx.Op("Mul", {picked, terms.weights})});
  terms.loss = ctx.Op("Where", {terms.valid, loss, zero});
  return terms;
}

std::string SumAll(TranslateContext& ctx, const std::string& x) { return Reduce(ctx, "ReduceSum", x, {}, false); }

// `per_target` (target-shaped, 0 where ignored) reduced as nll_loss does.
std::string ReduceLikeNll(TranslateContext& ctx, const NllTerms& terms, const std::string& per_target) {
  switch (terms.reduction) {
    case LossReduction::kNone:
      return per_target;
    case LossReduction::kSum:
      return SumAll(ctx, per_target);
    case LossReduction::kMean:
      return ctx.Op("Div", {SumAll(ctx, per_target), SumAll(ctx, terms.weights)});
  }
  return per_target;
}

absl::StatusOr<std::string> InputInFloat(TranslateContext& ctx, DataType& dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) {
    return ctx.Invalid(absl::StrCat("the loss is typed ", DataTypeName(dtype), "; torch needs floating inputs"));
  }
  return ctx.InputAs("self", dtype);
}

// aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction,
//     SymInt ignore_index) -> (Tensor output, Tensor total_weight)
// aten::nll_loss2d_forward: the same for (N, C, H, W).
absl::Status AtenNllLossForward(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string logp, InputInFloat(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(NllTerms terms, ReadNllTerms(ctx, logp, dtype));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ReduceLikeNll(ctx, terms, terms.loss)));
  if (ctx.num_outputs() < 2) return absl::OkStatus();
  // torch leaves total_weight at 0 for reduction none.
  std::string total = terms.reduction == LossReduction::kNone ? Zero(ctx, dtype) : SumAll(ctx, terms.weights);
  return ctx.SetOutput(1, total);
}

// aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//     SymInt ignore_index=-100) -> Tensor (and nll_loss2d, nll_loss_nd)
absl::Status AtenNllLoss(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string logp, InputInFloat(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(NllTerms terms, ReadNllTerms(ctx, logp, dtype));
  return ctx.SetOutput(0, ReduceLikeNll(ctx, terms, terms.loss));
}

// The class weights shaped to broadcast along the class axis of the input.
std::string WeightAlongClasses(TranslateContext& ctx, const std::string& weight, int64_t rank) {
  if (rank <= 2) return weight;
  std::vector<int64_t> trailing;
  for (int64_t a = 1; a < rank - 1; ++a) trailing.push_back(a);
  return Unsqueeze(ctx, weight, trailing);
}

// The number of classes as a 0-d value of `dtype`.
std::string ClassCount(TranslateContext& ctx, const std::string& x, int64_t axis, DataType dtype) {
  if (auto sizes = StaticSizes(ctx.InputMeta("self").value_or(nullptr))) {
    return ctx.ConstantScalar(dtype, static_cast<double>((*sizes)[axis]));
  }
  std::string c = Squeeze(ctx, ShapeSlice(ctx, x, axis, axis + 1), {0});
  return ctx.CastTo(c, DataType::kInt64, dtype);
}

// Class-probability targets: -sum_c logp * target (* weight) per element;
// label smoothing mixes the target with the uniform distribution; `mean`
// averages over the N * d1..dk elements.
absl::Status ProbabilityTarget(TranslateContext& ctx, const std::string& logp, DataType dtype, double smoothing) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  const int64_t axis = rank == 1 ? 0 : 1;
  PT2ONNX_ASSIGN_OR_RETURN(LossReduction reduction, ReadLossReduction(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string target, ctx.InputAs("target", dtype));
  if (smoothing > 0) {
    std::string uniform = ctx.Op("Div", {ctx.ConstantScalar(dtype, smoothing), ClassCount(ctx, logp, axis, dtype)});
    target = ctx.Op("Add", {ctx.Op("Mul", {target, ctx.ConstantScalar(dtype, 1 - smoothing)}), uniform});
  }
  std::string product = ctx.Op("Mul", {logp, target});
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weight, ctx.OptionalInput("weight"));
  if (weight.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType weight_dtype, ctx.InputDtype("weight"));
    product = ctx.Op("Mul", {product, WeightAlongClasses(ctx, ctx.CastTo(*weight, weight_dtype, dtype), rank)});
  }
  std::string per_element = ctx.Op("Neg", {Reduce(ctx, "ReduceSum", product, {axis}, false)});
  return ctx.SetOutput(0, ApplyLossReduction(ctx, per_element, reduction));
}

// log_softmax over the classes, then nll_loss; label smoothing adds
// eps / C times the (weighted) sum of -logp over the classes, reduced with
// nll's denominator (LossNLL.cpp, cross_entropy_loss_label_smoothing).
// aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//     SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor
absl::Status AtenCrossEntropyLoss(TranslateContext& ctx) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, InputInFloat(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank == 0) return ctx.Invalid("the input is 0-d; cross_entropy needs (C) or (N, C, ...)");
  const int64_t axis = rank == 1 ? 0 : 1;
  PT2ONNX_ASSIGN_OR_RETURN(double smoothing, FloatOr(ctx, "label_smoothing", 0.0));
  if (smoothing < 0 || smoothing > 1) return ctx.Invalid("label_smoothing must be between 0.0 and 1.0");
  std::string logp = ctx.Op("LogSoftmax", {x}, {Attribute::Int("axis", axis)});
  PT2ONNX_ASSIGN_OR_RETURN(DataType target_dtype, ctx.InputDtype("target"));
  if (IsFloatingPoint(target_dtype)) return ProbabilityTarget(ctx, logp, dtype, smoothing);
  PT2ONNX_ASSIGN_OR_RETURN(NllTerms terms, ReadNllTerms(ctx, logp, dtype));
  std::string nll = ReduceLikeNll(ctx, terms, terms.loss);
  if (smoothing == 0) return ctx.SetOutput(0, nll);
  std::string weighted = terms.weight.has_value()
                             ? ctx.Op("Mul", {logp, WeightAlongClasses(ctx, *terms.weight, rank)})
                             : logp;
  std::string smooth = ctx.Op("Neg", {Reduce(ctx, "ReduceSum", weighted, {axis}, false)});
  smooth = ctx.Op("Where", {terms.valid, smooth, Zero(ctx, dtype)});
  std::string scale = ctx.Op("Div", {ctx.ConstantScalar(dtype, smoothing), ClassCount(ctx, x, axis, dtype)});
  std::string mixed = ctx.Op("Add", {ctx.Op("Mul", {nll, ctx.ConstantScalar(dtype, 1 - smoothing)}),
                                     ctx.Op("Mul", {ReduceLikeNll(ctx, terms, smooth), scale})});
  return ctx.SetOutput(0, mixed);
}

}  // namespace

void RegisterClassificationLossOps(OpRegistry& r) {
  r.Add("aten::nll_loss_forward.default", &AtenNllLossForward);
  r.Add("aten::nll_loss2d_forward.default", &AtenNllLossForward);
  r.Add("aten::nll_loss.default", &AtenNllLoss);
  r.Add("aten::nll_loss2d.default", &AtenNllLoss);
  r.Add("aten::nll_loss_nd.default", &AtenNllLoss);
  r.Add("aten::cross_entropy_loss.default", &AtenCrossEntropyLoss);
}

}  // namespace pt2onnx::ops
