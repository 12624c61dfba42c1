// File: ops/linear_cross_entropy.cc
// -----------------------------------------------------------------------------
// torch.nn's fused linear + cross-entropy library ops, which
// torch/nn/modules/linear_cross_entropy.py defines in the torch_nn namespace
// and torch.export keeps whole: _linear_cross_entropy_batch_chunked (mean or
// sum) and _linear_cross_entropy_batch_chunked_no_reduction. Both compute
// logits = input @ linear_weight^T (+ linear_bias) over (N, F) rows in batch
// chunks, then the class-index cross-entropy with optional class weights and
// ignore_index (a masked row weighs 0; mean divides by the unmasked weights'
// sum, NaN when it is 0). Chunking only changes the order of float sums, so
// one unchunked graph gives the same values within rounding. The chunked op
// also returns gradients, which it fills only when asked (compute_*_grad);
// otherwise they are rank-matching empty tensors, emitted as constants.
// Label smoothing is refused by torch itself. Opsets 18..23.
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/shape_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// The per-row losses (N,) in `compute` and, for the mean, the weights (N,)
// whose sum divides them.
struct RowLosses {
  std::string loss;
  std::string weights;
};

absl::StatusOr<RowLosses> LinearCrossEntropyRows(TranslateContext& ctx, DataType compute) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t target_rank, ctx.InputRank("target"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType target_dtype, ctx.InputDtype("target"));
  if (rank != 2 || target_rank != 1) {
    return ctx.Invalid(absl::StrCat("expected a 2-D input and a 1-D target, got ", rank, "-D and ",
                                    target_rank, "-D"));
  }
  if (target_dtype != DataType::kInt64) return ctx.Invalid("the target must be int64 class indices");
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.InputAs("input", compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string linear_weight, ctx.InputAs("linear_weight", compute));
  PT2ONNX_ASSIGN_OR_RETURN(std::string target, ctx.Input("target"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t ignore_index, ctx.Int("ignore_index"));
  std::string logits = ctx.Op("Gemm", {input, linear_weight}, {Attribute::Int("transB", 1)});
  if (ctx.Has("linear_bias")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ctx.InputAs("linear_bias", compute));
    logits = ctx.Op("Add", {logits, bias});
  }
  std::string log_probs = ctx.Op("LogSoftmax", {logits}, {Attribute::Int("axis", 1)});
  std::string kept = ctx.Op("Not", {ctx.Op("Equal", {target, ctx.ConstantInt64(ignore_index)})});
  std::string safe_target = ctx.Op("Where", {kept, target, ctx.ConstantInt64(0)});
  std::string picked = ctx.Op("GatherElements", {log_probs, Unsqueeze(ctx, safe_target, {1})},
                              {Attribute::Int("axis", 1)});
  std::string weights = ctx.CastTo(kept, DataType::kBool, compute);
  if (ctx.Has("weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string class_weight, ctx.InputAs("weight", compute));
    std::string gathered = ctx.Op("Gather", {class_weight, safe_target}, {Attribute::Int("axis", 0)});
    weights = ctx.Op("Where", {kept, gathered, ctx.ConstantScalar(compute, 0)});
  }
  std::string loss = ctx.Op("Mul", {ctx.Op("Neg", {Squeeze(ctx, picked, {1})}), weights});
  return RowLosses{loss, weights};
}

// acc_dtype when given (the op accumulates in it), else the input's dtype.
absl::StatusOr<DataType> ComputeDtype(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType input, ctx.InputDtype("input"));
  if (!IsFloatingPoint(input)) return ctx.Invalid("the input must be floating point");
  std::optional<DataType> acc;
  if (ctx.Has("acc_dtype")) {
    PT2ONNX_ASSIGN_OR_RETURN(acc, ctx.OptionalDtype("acc_dtype"));
  }
  return acc.value_or(input);
}

// torch_nn::_linear_cross_entropy_batch_chunked(Tensor input, Tensor linear_weight, Tensor target,
//     Tensor? linear_bias, Tensor? weight, str reduction, int ignore_index, float label_smoothing,
//     int batch_chunk_size, str acc_policy, ScalarType acc_dtype, bool allow_retain_graph,
//     bool compute_input_grad, bool compute_linear_weight_grad, bool compute_linear_bias_grad)
//     -> (Tensor loss, Tensor grad_input, Tensor grad_linear_weight, Tensor grad_linear_bias)
absl::Status TorchNnLinearCrossEntropyChunked(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string reduction, ctx.String("reduction"));
  if (reduction != "mean" && reduction != "sum") {
    return ctx.Invalid(absl::StrCat("reduction must be 'mean' or 'sum', got '", reduction, "'"));
  }
  if (ctx.Has("label_smoothing")) {
    PT2ONNX_ASSIGN_OR_RETURN(double smoothing, ctx.Float("label_smoothing"));
    if (smoothing > 0) return ctx.Invalid("linear_cross_entropy does not support label smoothing");
  }
  for (int i = 1; i < ctx.num_outputs(); ++i) {
    std::optional<std::string> empty = StaticEmptyOutput(ctx, i);
    if (empty.has_value()) {
      PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(i, *empty));
    } else if (ctx.OutputUsed(i)) {
      return ctx.Unsupported("the gradients that linear_cross_entropy computes in its forward pass; export "
                             "the loss alone (compute_*_grad=False)");
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType compute, ComputeDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(RowLosses rows, LinearCrossEntropyRows(ctx, compute));
  std::string total = ctx.Op("ReduceSum", {rows.loss}, {Attribute::Int("keepdims", 0)});
  if (reduction == "mean") {
    total = ctx.Op("Div", {total, ctx.Op("ReduceSum", {rows.weights}, {Attribute::Int("keepdims", 0)})});
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  return ctx.SetOutput(0, ctx.CastTo(total, compute, out));
}

// torch_nn::_linear_cross_entropy_batch_chunked_no_reduction(Tensor input, Tensor linear_weight,
//     Tensor target, Tensor? linear_bias, Tensor? weight, int ignore_index, int batch_chunk_size,
//     str acc_policy, ScalarType acc_dtype) -> Tensor
absl::Status TorchNnLinearCrossEntropyNoReduction(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType compute, ComputeDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(RowLosses rows, LinearCrossEntropyRows(ctx, compute));
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  return ctx.SetOutput(0, ctx.CastTo(rows.loss, compute, out));
}

}  // namespace

void RegisterLinearCrossEntropyOps(OpRegistry& r) {
  r.Add("torch_nn::_linear_cross_entropy_batch_chunked.default", &TorchNnLinearCrossEntropyChunked);
  r.Add("torch_nn::_linear_cross_entropy_batch_chunked_no_reduction.default",
        &TorchNnLinearCrossEntropyNoReduction);
}

}  // namespace pt2onnx::ops
