// File: ops/conv_norm_backward.cc
// -----------------------------------------------------------------------------
// Backward ops of convolution, layer norm and group norm, as exported
// training graphs carry them. Each returns (grad_input, grad_weight,
// grad_bias); output_mask says which torch computes (the others are None).
//
// Normalization: with xhat = (x - mean) * rstd and gw = grad * weight,
//   grad_input = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
// over the normalized elements (torch's layer_norm_backward /
// group_norm_backward kernels, regrouped).
//
// Convolution: grad_input is the transposed convolution of grad, cropped by
// the leading padding only and then fitted to the input's size at the end
// (zeros for input cells no window read, the right padding cut off: a
// negative Pad); grad_weight is a convolution of the input by grad with
// stride and dilation swapped (per group: the batch becomes the channels).
// Transposed convolutions swap the roles (see AtenConvolutionBackward).
#include <cstdint>
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

absl::StatusOr<std::vector<bool>> OutputMask(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("output_mask"));
  if (arg.kind != pt2::Argument::Kind::kBools || arg.bools.size() != 3) {
    return ctx.Invalid("output_mask must be a list of 3 bools");
  }
  return arg.bools;
}

std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

// Sum over `axes` (none: the value itself).
std::string SumOver(TranslateContext& ctx, const std::string& x, const std::vector<int64_t>& axes) {
  if (axes.empty()) return x;
  return ctx.Op("ReduceSum", {x, ctx.ConstantInt64s(axes)}, {Attribute::Int("keepdims", 0)});
}

// rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), means over `axes` (kept).
std::string NormInputGrad(TranslateContext& ctx, const std::string& gw, const std::string& xhat,
                          const std::string& rstd, const std::vector<int64_t>& axes) {
  std::string a = ctx.ConstantInt64s(axes);
  std::string mean_gw = ctx.Op("ReduceMean", {gw, a}, {Attribute::Int("keepdims", 1)});
  std::string mean_gwx = ctx.Op("ReduceMean", {ctx.Op("Mul", {gw, xhat}), a},
                                {Attribute::Int("keepdims", 1)});
  std::string inner = ctx.Op("Sub",
                             {ctx.Op("Sub", {gw, mean_gw}), ctx.Op("Mul", {xhat, mean_gwx})});
  return ctx.Op("Mul", {rstd, inner});
}

absl::Status BindIfWanted(TranslateContext& ctx, const std::vector<bool>& mask, int i,
                          const std::string& value) {
  if (!mask[i]) {
    if (ctx.OutputUsed(i)) {
      return ctx.Invalid(absl::StrCat("output ", i, " is read but output_mask[", i, "] is False"));
    }
    return absl::OkStatus();
  }
  return ctx.SetOutput(i, value);
}

// The dtype of the gradients (output 0, or 1 when grad_input is not wanted).
absl::StatusOr<DataType> GradDtype(const TranslateContext& ctx) {
  const DataType first = ctx.OutputDtype(0);
  const DataType dtype = first != DataType::kUndefined ? first : ctx.OutputDtype(1);
  if (dtype == DataType::kUndefined) {
    return ctx.Invalid("the outputs have no dtype in the program's metadata");
  }
  return dtype;
}

// aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
absl::Status AtenNativeLayerNormBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<bool> mask, OutputMask(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument shape_arg, ctx.Arg("normalized_shape"));
  const size_t k = shape_arg.kind == pt2::Argument::Kind::kSymInts ? shape_arg.syms.size()
                                                                    : shape_arg.ints.size();
  if (k == 0 || static_cast<int64_t>(k) > rank) {
    return ctx.Invalid(absl::StrCat("normalized_shape has ", k, " dims for an input of rank ",
                                    rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, GradDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_out", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("input", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mean, ctx.InputAs("mean", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string rstd, ctx.InputAs("rstd", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weight, ctx.OptionalInput("weight"));
  const std::vector<int64_t> norm_axes = Iota(rank - static_cast<int64_t>(k), rank);
  const std::vector<int64_t> batch_axes = Iota(0, rank - static_cast<int64_t>(k));
  std::string xhat = ctx.Op("Mul", {ctx.Op("Sub", {x, mean}), rstd});
  if (mask[0]) {
    std::string gw = grad;
    if (weight) {
      PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("weight", dtype));
      gw = ctx.Op("Mul", {grad, w});
    }
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, NormInputGrad(ctx, gw, xhat, rstd, norm_axes)));
  }
  PT2ONNX_RETURN_IF_ERROR(BindIfWanted(ctx, mask, 1,
                                       SumOver(ctx, ctx.Op("Mul", {grad, xhat}), batch_axes)));
  return BindIfWanted(ctx, mask, 2, SumOver(ctx, grad, batch_axes));
}

// aten::native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
// mean and rstd are (N, group); the input is viewed as (N, group, -1).
absl::Status AtenNativeGroupNormBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<bool> mask, OutputMask(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group"));
  if (rank < 2) return ctx.Invalid(absl::StrCat("input must be (N, C, ...), got rank ", rank));
  if (group <= 0) return ctx.Invalid(absl::StrCat("group must be positive, got ", group));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, GradDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_out", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("input", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mean, ctx.InputAs("mean", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string rstd, ctx.InputAs("rstd", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> weight, ctx.OptionalInput("weight"));
  std::string x_shape = ctx.Op("Shape", {x});
  auto grouped = [&](const std::string& v) { return Reshape(ctx, v, {0, group, -1}); };
  mean = Unsqueeze(ctx, mean, {2});
  rstd = Unsqueeze(ctx, rstd, {2});
  std::string xhat_g = ctx.Op("Mul", {ctx.Op("Sub", {grouped(x), mean}), rstd});
  std::vector<int64_t> channel_axes = Iota(1, rank - 1);  // weight (C,) -> (C, 1, ...)
  if (mask[0]) {
    std::string gw = grad;
    if (weight) {
      PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("weight", dtype));
      gw = ctx.Op("Mul", {grad, channel_axes.empty() ? w : Unsqueeze(ctx, w, channel_axes)});
    }
    std::string gi = NormInputGrad(ctx, grouped(gw), xhat_g, rstd, {2});
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.Op("Reshape", {gi, x_shape})));
  }
  std::vector<int64_t> all_but_channel = Iota(2, rank);
  all_but_channel.insert(all_but_channel.begin(), 0);
  std::string xhat = ctx.Op("Reshape", {xhat_g, x_shape});
  PT2ONNX_RETURN_IF_ERROR(BindIfWanted(ctx, mask, 1,
                                       SumOver(ctx, ctx.Op("Mul", {grad, xhat}), all_but_channel)));
  return BindIfWanted(ctx, mask, 2, SumOver(ctx, grad, all_but_channel));
}

// [a..., b...] along axis 0 of 1-D INT64 values.
std::string Concat1d(TranslateContext& ctx, std::vector<std::string> parts) {
  return ctx.Op("Concat", std::move(parts), {Attribute::Int("axis", 0)});
}

// `v` padded (or cut, negative pads) at the end of its spatial dims to the
// spatial size of `like`.
std::string FitSpatialEnd(TranslateContext& ctx, const std::string& v, const std::string& like,
                          int64_t rank) {
  std::string missing = ctx.Op("Sub",
                               {ShapeSlice(ctx, like, 2, rank), ShapeSlice(ctx, v, 2, rank)});
  std::string end_pads = Concat1d(ctx, {ctx.ConstantInt64s({0, 0}), missing});
  return ctx.Op("Pad",
                {v, Concat1d(ctx, {ctx.ConstantInt64s(std::vector<int64_t>(rank, 0)), end_pads})});
}

struct ConvGeometry {
  int64_t rank;
  std::vector<int64_t> stride, pads, dilation;
  int64_t groups;
};

// The weight gradient of a convolution reading `in` (N, G*Cg, S...) and
// producing `out` (N, G*Og, T...) with weights shaped like `w` (G*Og, Cg,
// K...): in (-> Cg, G*N, S...) convolved by out (-> G*Og, N, T...) with
// stride and dilation swapped, cut to K, transposed to (G*Og, Cg, K...).
std::string WeightGrad(TranslateContext& ctx, const std::string& in, const std::string& out,
                       const std::string& w, const ConvGeometry& g) {
  const int64_t rank = g.rank;
  std::vector<int64_t> perm5 = {2, 1, 0};
  for (int64_t i = 3; i <= rank; ++i) perm5.push_back(i);
  std::string split = Concat1d(ctx, {ShapeSlice(ctx, in, 0, 1), ctx.ConstantInt64s({g.groups, -1}),
                                     ShapeSlice(ctx, in, 2, rank)});
  std::string grouped = ctx.Op("Transpose", {ctx.Op("Reshape", {in, split})},
                               {Attribute::Ints("perm", perm5)});
  std::string batch_as_channels =
      ctx.Op("Reshape",
             {grouped, Concat1d(ctx, {ctx.ConstantInt64s({0, -1}), ShapeSlice(ctx, in, 2, rank)})});
  std::vector<int64_t> swap01 = Iota(0, rank);
  std::swap(swap01[0], swap01[1]);
  std::string kernel_of_out = ctx.Op("Transpose", {out}, {Attribute::Ints("perm", swap01)});
  std::string wide = ctx.Op("Conv", {batch_as_channels, kernel_of_out},
                            {Attribute::Ints("strides", g.dilation),
                             Attribute::Ints("pads", g.pads),
                             Attribute::Ints("dilations", g.stride), Attribute::Int("group",
                                                                                    g.groups)});
  std::string cut = ctx.Op("Slice", {wide, ctx.ConstantInt64s(std::vector<int64_t>(rank - 2, 0)),
                                     ShapeSlice(ctx, w, 2,
                                                rank), ctx.ConstantInt64s(Iota(2, rank))});
  return ctx.Op("Transpose", {cut}, {Attribute::Ints("perm", swap01)});
}

// aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[1]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
// A transposed convolution is the adjoint of the ordinary one with the same
// weight: its grad_input is that convolution of grad, and its weight
// gradient is the ordinary one with input and grad exchanged. output_padding
// only changes sizes, which are fitted to the input's.
absl::Status AtenConvolutionBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<bool> mask, OutputMask(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(bool transposed, ctx.Bool("transposed"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t input_rank, ctx.InputRank("input"));
  const int64_t n = rank - 2;
  if (n < 1 || n > 3 || input_rank != rank) {
    return ctx.Invalid(absl::StrCat("input (rank ", input_rank, ") and weight (rank ", rank,
                                    ") must both be (N, C, 1-3 spatial dims)"));
  }
  ConvGeometry g;
  g.rank = rank;
  PT2ONNX_ASSIGN_OR_RETURN(g.stride, SpatialInts(ctx, "stride", n));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, SpatialInts(ctx, "padding", n));
  PT2ONNX_ASSIGN_OR_RETURN(g.dilation, SpatialInts(ctx, "dilation", n));
  PT2ONNX_ASSIGN_OR_RETURN(g.groups, ctx.Int("groups"));
  for (int64_t i = 0; i < n; ++i) {
    if (g.stride[i] <= 0 || g.dilation[i] <= 0 || padding[i] < 0) {
      return ctx.Invalid("stride and dilation must be positive and padding non-negative");
    }
  }
  if (g.groups <= 0) return ctx.Invalid(absl::StrCat("groups must be positive, got ", g.groups));
  const DataType dtype = ctx.InputDtype("grad_output").value_or(DataType::kUndefined);
  if (!IsFloatingPoint(dtype)) return ctx.Invalid("grad_output must be a floating-point tensor");
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("input", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("weight", dtype));
  g.pads = padding;
  g.pads.insert(g.pads.end(), padding.begin(), padding.end());
  const std::vector<Attribute> conv_attrs = {Attribute::Ints("strides", g.stride),
                                             Attribute::Ints("dilations", g.dilation),
                                             Attribute::Int("group", g.groups)};

  if (mask[0]) {
    std::vector<Attribute> attrs = conv_attrs;
    std::string gi;
    if (transposed) {
      attrs.push_back(Attribute::Ints("pads", g.pads));
      gi = ctx.Op("Conv", {grad, w}, attrs);
    } else {
      // Crop only the leading padding; the fit below zero-fills input cells
      // past the last window and cuts the right padding.
      std::vector<int64_t> lead_pads = padding;
      lead_pads.resize(2 * n, 0);
      attrs.push_back(Attribute::Ints("pads", lead_pads));
      gi = ctx.Op("ConvTranspose", {grad, w}, attrs);
    }
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, FitSpatialEnd(ctx, gi, x, rank)));
  }
  if (mask[1]) {
    std::string gw = transposed ? WeightGrad(ctx, grad, x, w, g) : WeightGrad(ctx, x, grad, w, g);
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, gw));
  } else if (ctx.OutputUsed(1)) {
    return ctx.Invalid("output 1 is read but output_mask[1] is False");
  }
  std::vector<int64_t> not_channel = Iota(2, rank);
  not_channel.insert(not_channel.begin(), 0);
  return BindIfWanted(ctx, mask, 2, SumOver(ctx, grad, not_channel));
}

}  // namespace

void RegisterConvNormBackwardOps(OpRegistry& r) {
  r.Add("aten::convolution_backward.default", &AtenConvolutionBackward);
  r.Add("aten::native_group_norm_backward.default", &AtenNativeGroupNormBackward);
  r.Add("aten::native_layer_norm_backward.default", &AtenNativeLayerNormBackward);
}

}  // namespace pt2onnx::ops
