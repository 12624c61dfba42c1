// File: ops/batch_norm.cc
// -----------------------------------------------------------------------------
// Normalizations lowered to BatchNormalization: batch norm (inference forms,
// and batch statistics without running stats) and instance norm.
// Layer, group and RMS norm are in normalization.cc; both use
// ops/norm_helpers.h.
//
// Training mode with running statistics normalizes by the batch's
// statistics and rebinds the updated running statistics for later readers
// (the functional form returns them as outputs 3 and 4).
// Saved statistics outputs are bound only when the program reads them
// (TranslateContext::OutputUsed).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/norm_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// Binds output `i`, when read, to an empty tensor: what torch returns for
// statistics an inference-mode kernel does not compute.
absl::Status BindEmptyIfUsed(TranslateContext& ctx, int i) {
  if (!ctx.OutputUsed(i)) return absl::OkStatus();
  const pt2::TensorMeta* meta = ctx.OutputMeta(i);
  if (meta == nullptr) return absl::OkStatus();
  std::vector<int64_t> dims;
  int64_t numel = 1;
  for (const pt2::SymInt& s : meta->sizes) {
    if (s.is_symbolic) numel = -1;
    dims.push_back(s.value);
    if (numel >= 0) numel *= s.value;
  }
  if (numel != 0) {
    return ctx.Unsupported(absl::StrCat("output ", i, " (saved statistics) is used; only the "
                                        "normalized output is supported"));
  }
  return ctx.SetOutput(i, ctx.Constant(ir::Tensor::Owned(meta->dtype, dims, "")));
}

// ---- batch norm --------------------------------------------------------------------

// Inference batch norm with running statistics.
absl::StatusOr<std::string> BatchNormInference(TranslateContext& ctx) {
  if (!ctx.Has("running_mean") || !ctx.Has("running_var")) {
    return ctx.Invalid("running_mean and running_var must be given in evaluation mode");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType stat_type, ctx.InputDtype("running_mean"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mean, ctx.Input("running_mean"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string var, ctx.InputAs("running_var", stat_type));
  DataType param_type = dtype;
  if (ctx.Has("weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(param_type, ctx.InputDtype("weight"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ChannelParam(ctx, "weight", param_type, 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ChannelParam(ctx, "bias", param_type, 0.0));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(double momentum, ctx.Float("momentum"));
  // ONNX's momentum weighs the old running value, torch's the new batch
  // statistic; neither matters in inference, but keep the meaning right.
  return ctx.Op("BatchNormalization", {x, scale, bias, mean, var},
                {ir::Attribute::Float("epsilon", static_cast<float>(eps)),
                 ir::Attribute::Float("momentum", static_cast<float>(1.0 - momentum))});
}

// Batch norm over the batch's own statistics (training=True without running
// stats: BatchNorm(track_running_stats=False)). Returns y and the statistics
// in the compute type, shaped (1, C, 1, ...).
struct BatchStats {
  std::string y, mean, invstd, centered, axes;  // centered: x - mean (compute type)
};
absl::StatusOr<BatchStats> BatchNormBatchStats(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  const DataType ct = ComputeType(dtype);
  x = ctx.CastTo(x, dtype, ct);
  std::vector<int64_t> axes = {0};
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  std::string axes_value = ctx.ConstantInt64s(axes);
  std::string mean = ctx.Op("ReduceMean", {x, axes_value});
  std::string centered = ctx.Op("Sub", {x, mean});
  std::string var = ctx.Op("ReduceMean", {ctx.Op("Mul", {centered, centered}), axes_value});
  std::string invstd = ctx.Op(
      "Reciprocal", {ctx.Op("Sqrt", {ctx.Op("Add", {var, ctx.ConstantScalar(ct, eps)})})});
  PT2ONNX_ASSIGN_OR_RETURN(std::string y,
                           ChannelAffine(ctx, ctx.Op("Mul", {centered, invstd}), rank, ct));
  BatchStats s;
  s.y = ctx.CastTo(y, ct, dtype);
  s.mean = mean;
  s.invstd = invstd;
  s.centered = centered;
  s.axes = axes_value;
  return s;
}

// With a batch of one (static), batch statistics are each channel's own over
// the trailing dims: InstanceNormalization, with torch's weight and bias as
// its scale and bias (timm's weight standardization runs this on weights).
// nullopt when the batch is not one or there are no trailing dims.
absl::StatusOr<std::optional<std::string>> SingleBatchStatsByInstanceNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("input"));
  if (meta->sizes.size() < 3 || meta->sizes[0].is_symbolic || meta->sizes[0].value != 1) return std::nullopt;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  const DataType ct = ComputeType(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ChannelParam(ctx, "weight", ct, 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ChannelParam(ctx, "bias", ct, 0.0));
  std::string y = ctx.Op("InstanceNormalization", {ctx.CastTo(x, dtype, ct), scale, bias},
                         {ir::Attribute::Float("epsilon", static_cast<float>(eps))});
  return std::optional<std::string>(ctx.CastTo(y, ct, dtype));
}


// Training with running statistics (aten/src/ATen/native/Normalization.cpp,
// batch_norm_cpu_update_stats): the outputs use the batch's statistics; the
// running ones become momentum * batch + (1 - momentum) * running (the
// variance unbiased: sum of squares / (n - 1)), rebound so later readers of
// running_mean / running_var see the update. `reserve`: the trailing empty
// uint8 output of _batch_norm_with_update.
absl::Status BatchNormTrainingUpdate(TranslateContext& ctx, int outputs, bool reserve, bool functional = false) {
  PT2ONNX_ASSIGN_OR_RETURN(BatchStats s, BatchNormBatchStats(ctx));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, s.y));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(double momentum, ctx.Float("momentum"));
  const DataType ct = ComputeType(dtype);
  if (outputs > 1 && ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, ctx.CastTo(Reshape(ctx, s.mean, {-1}), ct, ctx.OutputDtype(1))));
  }
  if (outputs > 2 && ctx.OutputUsed(2)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, ctx.CastTo(Reshape(ctx, s.invstd, {-1}), ct, ctx.OutputDtype(2))));
  }
  if (reserve && ctx.OutputUsed(3)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(3, ctx.Constant(ir::Tensor::Owned(DataType::kUint8, {0}, std::string()))));
  }
  // n values per channel: numel / C.
  std::string shape = ctx.Op("Shape", {x});
  std::string count = ctx.Op("ReduceProd", {shape}, {ir::Attribute::Int("keepdims", 0)});
  count = ctx.Op("Div", {count, Reshape(ctx, ShapeSlice(ctx, x, 1, 2), {})});
  std::string n = ctx.CastTo(count, DataType::kInt64, ct);
  std::string m = ctx.ConstantScalar(ct, momentum), keep = ctx.ConstantScalar(ct, 1.0 - momentum);
  for (const char* arg : {"running_mean", "running_var"}) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> running, ctx.OptionalInput(arg));
    if (!running) continue;
    PT2ONNX_ASSIGN_OR_RETURN(DataType rdtype, ctx.InputDtype(arg));
    std::string batch = std::string(arg) == "running_mean"
                            ? Reshape(ctx, s.mean, {-1})
                            : Reshape(ctx, ctx.Op("ReduceSum", {ctx.Op("Mul", {s.centered, s.centered}), s.axes}), {-1});
    if (std::string(arg) == "running_var") batch = ctx.Op("Div", {batch, ctx.Op("Sub", {n, ctx.ConstantScalar(ct, 1.0)})});
    std::string updated = ctx.Op("Add", {ctx.Op("Mul", {m, batch}),
                                         ctx.Op("Mul", {keep, ctx.CastTo(*running, rdtype, ct)})});
    updated = ctx.CastTo(updated, ct, rdtype);
    if (functional) {
      PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(std::string(arg) == "running_mean" ? 3 : 4, updated));
    } else {
      PT2ONNX_RETURN_IF_ERROR(ctx.RebindMutatedArgument(arg, updated));
    }
  }
  return absl::OkStatus();
}

// Shared by the overloads with a `training` flag. `outputs` = how many of
// (out, save_mean, save_invstd) the overload returns.
absl::Status BatchNormWithFlag(TranslateContext& ctx, int outputs) {
  PT2ONNX_ASSIGN_OR_RETURN(bool training, ctx.Bool("training"));
  if (!training) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string y, BatchNormInference(ctx));
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, y));
    for (int i = 1; i < outputs; ++i) PT2ONNX_RETURN_IF_ERROR(BindEmptyIfUsed(ctx, i));
    return absl::OkStatus();
  }
  if (ctx.Has("running_mean") || ctx.Has("running_var")) return BatchNormTrainingUpdate(ctx, outputs, false);
  const bool stats_used = (outputs > 1 && ctx.OutputUsed(1)) || (outputs > 2 && ctx.OutputUsed(2));
  if (!stats_used) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> y, SingleBatchStatsByInstanceNorm(ctx));
    if (y) return ctx.SetOutput(0, *y);
  }
  PT2ONNX_ASSIGN_OR_RETURN(BatchStats s, BatchNormBatchStats(ctx));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, s.y));
  // torch returns the saved statistics as (C); the FX metadata has their dtype.
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  const DataType ct = ComputeType(dtype);
  if (outputs > 1 && ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(
        ctx.SetOutput(1, ctx.CastTo(Reshape(ctx, s.mean, {-1}), ct, ctx.OutputDtype(1))));
  }
  if (outputs > 2 && ctx.OutputUsed(2)) {
    PT2ONNX_RETURN_IF_ERROR(
        ctx.SetOutput(2, ctx.CastTo(Reshape(ctx, s.invstd, {-1}), ct, ctx.OutputDtype(2))));
  }
  return absl::OkStatus();
}

// aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//                  Tensor? running_var, bool training, float momentum, float eps,
//                  bool cudnn_enabled) -> Tensor
absl::Status AtenBatchNorm(TranslateContext& ctx) { return BatchNormWithFlag(ctx, 1); }

// aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//                         Tensor? running_var, bool training, float momentum, float eps)
//                         -> (Tensor, Tensor, Tensor)
// aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum,
//     float eps) -> (Tensor, Tensor, Tensor)
// aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias,
//     bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)
absl::Status AtenNativeBatchNorm(TranslateContext& ctx) { return BatchNormWithFlag(ctx, 3); }

// aten::_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
//     Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
// Always training: (out, save_mean, save_invstd, empty reserve).
absl::Status AtenBatchNormWithUpdate(TranslateContext& ctx) { return BatchNormTrainingUpdate(ctx, 4, true); }

// aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, float momentum, float eps)
//     -> (Tensor, Tensor, Tensor)
absl::Status AtenNativeBatchNormLegitNoTraining(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, BatchNormInference(ctx));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  PT2ONNX_RETURN_IF_ERROR(BindEmptyIfUsed(ctx, 1));
  return BindEmptyIfUsed(ctx, 2);
}

// aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, bool training, float momentum, float eps)
//     -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)
absl::Status AtenNativeBatchNormLegitFunctional(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(bool training, ctx.Bool("training"));
  if (training) return BatchNormTrainingUpdate(ctx, 3, false, /*functional=*/true);
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, BatchNormInference(ctx));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  PT2ONNX_RETURN_IF_ERROR(BindEmptyIfUsed(ctx, 1));
  PT2ONNX_RETURN_IF_ERROR(BindEmptyIfUsed(ctx, 2));
  // Not training: the running statistics come back unchanged.
  PT2ONNX_ASSIGN_OR_RETURN(std::string mean, ctx.Input("running_mean"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string var, ctx.Input("running_var"));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(3, mean));
  return ctx.SetOutput(4, var);
}

// ---- instance norm ---------------------------------------------------------------------

// aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//                     Tensor? running_var, bool use_input_stats, float momentum, float eps,
//                     bool cudnn_enabled) -> Tensor
absl::Status AtenInstanceNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(bool use_input_stats, ctx.Bool("use_input_stats"));
  if (!use_input_stats) {
    // Per-(n, c) running statistics are per-channel: a batch norm.
    PT2ONNX_ASSIGN_OR_RETURN(std::string y, BatchNormInference(ctx));
    return ctx.SetOutput(0, y);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ChannelParam(ctx, "weight", dtype, 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ChannelParam(ctx, "bias", dtype, 0.0));
  return ctx.SetOutput(0, ctx.Op("InstanceNormalization", {x, scale, bias},
                                 {ir::Attribute::Float("epsilon", static_cast<float>(eps))}));
}

}  // namespace

void RegisterBatchNormOps(OpRegistry& r) {
  r.Add("aten::batch_norm.default", &AtenBatchNorm);
  r.Add("aten::native_batch_norm.default", &AtenNativeBatchNorm);
  r.Add("aten::_batch_norm_with_update.default", &AtenBatchNormWithUpdate);
  r.Add("aten::_native_batch_norm_legit.default", &AtenNativeBatchNorm);
  r.Add("aten::_native_batch_norm_legit.no_stats", &AtenNativeBatchNorm);
  r.Add("aten::_native_batch_norm_legit_no_training.default",
        &AtenNativeBatchNormLegitNoTraining);
  r.Add("aten::_native_batch_norm_legit_functional.default",
        &AtenNativeBatchNormLegitFunctional);
  r.Add("aten::instance_norm.default", &AtenInstanceNorm);
}

}  // namespace pt2onnx::ops
