// File: ops/normalization.cc
// -----------------------------------------------------------------------------
// Normalization layers: layer norm, group norm, RMS norm. Batch norm and
// instance norm (both BatchNormalization nodes) are in batch_norm.cc; both
// files use ops/norm_helpers.h.
//
// Auxiliary outputs (saved mean / inverse std) are computed only when the
// program reads them (TranslateContext::OutputUsed).

#include <algorithm>
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

// ---- helpers -------------------------------------------------------------------

// The number of trailing dims `normalized_shape` covers (layer and RMS
// norm); it must be between 1 and the input's rank.
absl::StatusOr<int64_t> NormalizedDimCount(const TranslateContext& ctx, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument shape_arg, ctx.Arg("normalized_shape"));
  const int64_t k = static_cast<int64_t>(shape_arg.kind == pt2::Argument::Kind::kSymInts
                                             ? shape_arg.syms.size()
                                             : shape_arg.ints.size());
  if (k < 1 || k > rank) return ctx.Invalid("normalized_shape does not fit the input rank");
  return k;
}

// The `weight` argument in `dtype`, or ones of normalized_shape: ONNX's
// LayerNormalization and RMSNormalization require a scale, torch's weight is
// optional.
absl::StatusOr<std::string> ScaleOrOnes(TranslateContext& ctx, DataType dtype) {
  if (ctx.Has("weight")) return ctx.InputAs("weight", dtype);
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("normalized_shape"));
  return ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1.0), shape});
}

// True when normalized_shape is static with one element in all. ONNX
// Runtime refuses LayerNormalization and RMSNormalization there ("Size of
// X.shape[axis:] must be larger than 1"), so those norms are decomposed.
bool NormalizesOneElement(const TranslateContext& ctx) {
  if (!ctx.IsStaticInts("normalized_shape")) return false;
  absl::StatusOr<std::vector<int64_t>> shape = ctx.Ints("normalized_shape");
  if (!shape.ok()) return false;
  // One element in all: every dim is 1 (no product: the dims come from the file).
  return std::all_of(shape->begin(), shape->end(), [](int64_t d) { return d == 1; });
}

// ---- layer norm ----------------------------------------------------------------------

// Layer norm as its formula, in float (double for double): mean, centred
// values, their mean square, y = d / sqrt(var + eps) * weight + bias, and
// for native_layer_norm the mean and rstd (keepdims, as torch's).
absl::Status LayerNormDecomposed(TranslateContext& ctx, bool stats) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, NormalizedDimCount(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  const DataType ct = ComputeType(dtype);
  std::vector<int64_t> axes;
  for (int64_t i = rank - k; i < rank; ++i) axes.push_back(i);
  std::string xc = ctx.CastTo(x, dtype, ct);
  std::string mean = ctx.Op("ReduceMean", {xc, ctx.ConstantInt64s(axes)});
  std::string centred = ctx.Op("Sub", {xc, mean});
  std::string variance = ctx.Op("ReduceMean", {ctx.Op("Mul", {centred, centred}), ctx.ConstantInt64s(axes)});
  std::string rstd = ctx.Op(
      "Reciprocal", {ctx.Op("Sqrt", {ctx.Op("Add", {variance, ctx.ConstantScalar(ct, eps)})})});
  std::string y = ctx.Op("Mul", {centred, rstd});
  if (ctx.Has("weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("weight", ct));
    y = ctx.Op("Mul", {y, w});
  }
  if (ctx.Has("bias")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputAs("bias", ct));
    y = ctx.Op("Add", {y, b});
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(y, ct, ctx.OutputDtype(0))));
  if (stats && ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, ctx.CastTo(mean, ct, ctx.OutputDtype(1))));
  }
  if (stats && ctx.OutputUsed(2)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, ctx.CastTo(rstd, ct, ctx.OutputDtype(2))));
  }
  return absl::OkStatus();
}

// LayerNormalization over the last len(normalized_shape) dims. Scale is
// required by ONNX: ones when torch has no weight.
absl::Status LayerNormImpl(TranslateContext& ctx, bool stats) {
  if (NormalizesOneElement(ctx)) return LayerNormDecomposed(ctx, stats);
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, NormalizedDimCount(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ScaleOrOnes(ctx, dtype));
  std::vector<std::string> inputs = {x, scale};
  if (ctx.Has("bias")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ctx.InputAs("bias", dtype));
    inputs.push_back(bias);
  }
  const bool want_mean = stats && ctx.OutputUsed(1);
  const bool want_rstd = stats && ctx.OutputUsed(2);
  // Mean/InvStdDev come out in the stash type (float, stash_type=1).
  std::vector<std::string> outs = ctx.AddNode(
      "LayerNormalization", inputs,
      {ir::Attribute::Int("axis", rank - k),
       ir::Attribute::Float("epsilon", static_cast<float>(eps))},
      want_mean || want_rstd ? 3 : 1);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, outs[0]));
  if (want_mean) {
    PT2ONNX_RETURN_IF_ERROR(
        ctx.SetOutput(1, ctx.CastTo(outs[1], DataType::kFloat, ctx.OutputDtype(1))));
  }
  if (want_rstd) {
    PT2ONNX_RETURN_IF_ERROR(
        ctx.SetOutput(2, ctx.CastTo(outs[2], DataType::kFloat, ctx.OutputDtype(2))));
  }
  return absl::OkStatus();
}

// aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None,
//                  Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor
absl::Status AtenLayerNorm(TranslateContext& ctx) { return LayerNormImpl(ctx, false); }

// aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//                         Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)
absl::Status AtenNativeLayerNorm(TranslateContext& ctx) { return LayerNormImpl(ctx, true); }

// ---- group norm ------------------------------------------------------------------------

// Group norm as (N, G, -1) statistics, then the per-channel affine.
// Returns y and, when asked, mean/rstd shaped (N, G) as native_group_norm.
struct GroupNormResult {
  std::string y, mean, rstd;
};

// torch's group-norm checks: a positive group count dividing the channels.
absl::Status CheckGroups(const TranslateContext& ctx, int64_t groups) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("input"));
  if (meta->sizes.size() < 2) return ctx.Invalid("group norm needs an input of rank >= 2");
  if (groups <= 0) return ctx.Invalid(absl::StrCat("num_groups must be positive, got ", groups));
  const pt2::SymInt& c = meta->sizes[1];
  if (!c.is_symbolic && c.value % groups != 0) {
    return ctx.Invalid(absl::StrCat(c.value, " channels are not divisible by num_groups ", groups));
  }
  return absl::OkStatus();
}

// The input's shape as a value for the Reshape back from the grouped view: a
// constant when every dim is static (shape inference stays exact), else Shape.
std::string InputShape(TranslateContext& ctx, const pt2::TensorMeta& meta, const std::string& x) {
  std::vector<int64_t> dims;
  for (const pt2::SymInt& d : meta.sizes) {
    if (d.is_symbolic) return ctx.Op("Shape", {x});
    dims.push_back(d.value);
  }
  return ctx.ConstantInt64s(dims);
}

absl::StatusOr<GroupNormResult> GroupNormDecomposed(TranslateContext& ctx, int64_t groups,
                                                    double eps, bool stats) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  const DataType ct = ComputeType(dtype);
  std::string xc = ctx.CastTo(x, dtype, ct);
  // Reshape's 0 copies N, so the grouping works with a symbolic batch.
  std::string grouped = Reshape(ctx, xc, {0, groups, -1});
  std::string axes = ctx.ConstantInt64s({2});
  std::string mean = ctx.Op("ReduceMean", {grouped, axes});
  std::string centered = ctx.Op("Sub", {grouped, mean});
  std::string var = ctx.Op("ReduceMean", {ctx.Op("Mul", {centered, centered}), axes});
  std::string rstd = ctx.Op(
      "Reciprocal", {ctx.Op("Sqrt", {ctx.Op("Add", {var, ctx.ConstantScalar(ct, eps)})})});
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("input"));
  std::string shape = InputShape(ctx, *meta, x);
  std::string normalized = ctx.Op("Reshape", {ctx.Op("Mul", {centered, rstd}), shape});
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ChannelAffine(ctx, normalized, rank, ct));
  GroupNormResult r;
  r.y = ctx.CastTo(y, ct, dtype);
  if (stats) {
    r.mean = Squeeze(ctx, mean, {2});
    r.rstd = Squeeze(ctx, rstd, {2});
  }
  return r;
}

// Group norm without its statistics: InstanceNormalization normalizes each
// (n, c) over the trailing dims, so on the (N, G, -1) view it normalizes each
// group. With one group per channel (rank >= 3) it takes torch's per-channel
// weight and bias itself; otherwise it gets unit scale and zero shift per
// group and the per-channel affine follows the reshape back.
absl::StatusOr<std::string> GroupNormByInstanceNorm(TranslateContext& ctx, int64_t groups, double eps) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("input"));
  const DataType ct = ComputeType(dtype);
  std::string xc = ctx.CastTo(x, dtype, ct);
  const ir::Attribute epsilon = ir::Attribute::Float("epsilon", static_cast<float>(eps));
  const pt2::SymInt& channels = meta->sizes[1];
  if (rank >= 3 && !channels.is_symbolic && channels.value == groups) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ChannelParam(ctx, "weight", ct, 1.0));
    PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ChannelParam(ctx, "bias", ct, 0.0));
    return ctx.CastTo(ctx.Op("InstanceNormalization", {xc, scale, bias}, {epsilon}), ct, dtype);
  }
  // Reshape's 0 copies N, so the grouping works with a symbolic batch.
  std::string grouped = Reshape(ctx, xc, {0, groups, -1});
  // Sized at run time: num_groups comes from the file.
  std::string per_group = ctx.ConstantInt64s({groups});
  std::string ones = ctx.Op("Expand", {ctx.ConstantScalar(ct, 1.0), per_group});
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(ct, 0.0), per_group});
  std::string normalized = ctx.Op("InstanceNormalization", {grouped, ones, zeros}, {epsilon});
  std::string shape = InputShape(ctx, *meta, x);
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ChannelAffine(ctx, ctx.Op("Reshape", {normalized, shape}), rank, ct));
  return ctx.CastTo(y, ct, dtype);
}

// aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
//                  float eps=1e-05, bool cudnn_enabled=True) -> Tensor
// Opsets 18-20: GroupNormalization-18 took per-group scale/bias (unlike
// torch's per-channel ones), so it is decomposed.
absl::Status AtenGroupNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, ctx.Int("num_groups"));
  PT2ONNX_RETURN_IF_ERROR(CheckGroups(ctx, groups));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, GroupNormByInstanceNorm(ctx, groups, eps));
  return ctx.SetOutput(0, y);
}

// Opset 21+: GroupNormalization-21 takes per-channel scale and bias, as torch.
absl::Status AtenGroupNormOpset21(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, ctx.Int("num_groups"));
  PT2ONNX_RETURN_IF_ERROR(CheckGroups(ctx, groups));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ChannelParam(ctx, "weight", dtype, 1.0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bias, ChannelParam(ctx, "bias", dtype, 0.0));
  return ctx.SetOutput(
      0, ctx.Op("GroupNormalization", {x, scale, bias},
                {ir::Attribute::Int("num_groups", groups),
                 ir::Attribute::Float("epsilon", static_cast<float>(eps))}));
}

// aten::native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//                         SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)
absl::Status AtenNativeGroupNorm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, ctx.Int("group"));
  PT2ONNX_RETURN_IF_ERROR(CheckGroups(ctx, groups));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, ctx.Float("eps"));
  const bool stats = ctx.OutputUsed(1) || ctx.OutputUsed(2);
  if (!stats) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string y, GroupNormByInstanceNorm(ctx, groups, eps));
    return ctx.SetOutput(0, y);
  }
  PT2ONNX_ASSIGN_OR_RETURN(GroupNormResult r, GroupNormDecomposed(ctx, groups, eps, stats));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, r.y));
  if (!stats) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  const DataType ct = ComputeType(dtype);
  if (ctx.OutputUsed(1)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, ctx.CastTo(r.mean, ct, ctx.OutputDtype(1))));
  }
  if (ctx.OutputUsed(2)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, ctx.CastTo(r.rstd, ct, ctx.OutputDtype(2))));
  }
  return absl::OkStatus();
}

// ---- RMS norm ------------------------------------------------------------------------------

// torch's eps default: epsilon of the compute type (float for half types).
absl::StatusOr<double> RmsEps(const TranslateContext& ctx, DataType ct) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> eps, ctx.OptionalFloat("eps"));
  if (eps) return *eps;
  return ct == DataType::kDouble ? 2.220446049250313e-16 : 1.1920928955078125e-07;
}

// x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight, computed in
// float for half types and cast back (torch's rms_norm_composite).
absl::Status RmsNormDecomposed(TranslateContext& ctx, bool rstd_output) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, NormalizedDimCount(ctx, rank));
  const DataType ct = ComputeType(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(double eps, RmsEps(ctx, ct));
  std::vector<int64_t> axes;
  for (int64_t i = rank - k; i < rank; ++i) axes.push_back(i);
  std::string xc = ctx.CastTo(x, dtype, ct);
  std::string mean_sq = ctx.Op("ReduceMean", {ctx.Op("Mul", {xc, xc}), ctx.ConstantInt64s(axes)});
  std::string rstd = ctx.Op(
      "Reciprocal", {ctx.Op("Sqrt", {ctx.Op("Add", {mean_sq, ctx.ConstantScalar(ct, eps)})})});
  std::string y = ctx.Op("Mul", {xc, rstd});
  if (ctx.Has("weight")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("weight", ct));
    y = ctx.Op("Mul", {y, w});
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(y, ct, ctx.OutputDtype(0))));
  if (rstd_output && ctx.OutputUsed(1)) {
    return ctx.SetOutput(1, ctx.CastTo(rstd, ct, ctx.OutputDtype(1)));
  }
  return absl::OkStatus();
}

// aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None,
//                float? eps=None) -> Tensor
// Opsets 18-22: no RMSNormalization yet; decomposed.
absl::Status AtenRmsNorm(TranslateContext& ctx) { return RmsNormDecomposed(ctx, false); }

// Opset 23+: RMSNormalization (stash_type float, like torch's upcast).
absl::Status AtenRmsNormOpset23(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  // RMSNormalization's stash type is float; keep double exact by decomposing
  // (and a single normalized element, which ONNX Runtime refuses).
  if (dtype == DataType::kDouble || NormalizesOneElement(ctx)) return RmsNormDecomposed(ctx, false);
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, NormalizedDimCount(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, RmsEps(ctx, ComputeType(dtype)));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scale, ScaleOrOnes(ctx, dtype));
  return ctx.SetOutput(
      0, ctx.Op("RMSNormalization", {x, scale},
                {ir::Attribute::Int("axis", rank - k),
                 ir::Attribute::Float("epsilon", static_cast<float>(eps))}));
}

// aten::_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps)
//                       -> (Tensor, Tensor)
absl::Status AtenFusedRmsNorm(TranslateContext& ctx) { return RmsNormDecomposed(ctx, true); }

}  // namespace

void RegisterNormalizationOps(OpRegistry& r) {
  r.Add("aten::layer_norm.default", &AtenLayerNorm);
  r.Add("aten::native_layer_norm.default", &AtenNativeLayerNorm);
  // GroupNormalization-21 changed scale/bias from per-group to per-channel.
  r.Add("aten::group_norm.default", &AtenGroupNorm, 18, 20);
  r.Add("aten::group_norm.default", &AtenGroupNormOpset21, 21);
  r.Add("aten::native_group_norm.default", &AtenNativeGroupNorm);
  // RMSNormalization is new in opset 23.
  r.Add("aten::rms_norm.default", &AtenRmsNorm, 18, 22);
  r.Add("aten::rms_norm.default", &AtenRmsNormOpset23, 23);
  r.Add("aten::_fused_rms_norm.default", &AtenFusedRmsNorm);
}

}  // namespace pt2onnx::ops
