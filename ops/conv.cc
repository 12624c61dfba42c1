// File: ops/conv.cc
// -----------------------------------------------------------------------------
// Convolutions: conv1d/2d/3d (int and 'same'/'valid' padding), the generic
// convolution/_convolution (transposed flag) and conv_transpose1d/2d/3d.
//
// Layouts need no conversion: torch's conv weight is (C_out, C_in/groups, k...)
// like ONNX Conv's, and its transposed-conv weight (C_in, C_out/groups, k...)
// is exactly what ONNX ConvTranspose expects. torch pads every spatial dim
// symmetrically, so `padding` p becomes ONNX pads [p..., p...]; for
// ConvTranspose the same pads give torch's output size
// (in-1)*stride - 2p + dilation*(k-1) + output_padding + 1.
//
// Unbatched inputs (rank = weight rank - 1, accepted by conv1d/2d/3d) get a
// leading batch dimension added and removed around the ONNX node.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

struct ConvAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> pads;  // ONNX layout: all begins, then all ends
  std::vector<int64_t> dilations;
  std::vector<int64_t> output_padding;  // transposed only
  int64_t groups = 1;
  bool transposed = false;
};

// The weight's spatial dims when they are static (they are for parameters).
std::optional<std::vector<int64_t>> KernelShape(const TranslateContext& ctx) {
  absl::StatusOr<const pt2::TensorMeta*> meta = ctx.InputMeta("weight");
  if (!meta.ok() || *meta == nullptr) return std::nullopt;
  std::vector<int64_t> kernel;
  for (size_t i = 2; i < (*meta)->sizes.size(); ++i) {
    if ((*meta)->sizes[i].is_symbolic) return std::nullopt;
    kernel.push_back((*meta)->sizes[i].value);
  }
  return kernel;
}

// Emits Conv or ConvTranspose for the node's input/weight/bias.
absl::Status EmitConv(TranslateContext& ctx, const ConvAttrs& attrs) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> bias, ctx.OptionalInput("bias"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t input_rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t weight_rank, ctx.InputRank("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  if (IsComplex(dtype)) return ctx.Unsupported("complex convolution is not supported");
  if (!IsFloatingPoint(dtype)) {
    // ConvInteger takes 8-bit operands only and has no transposed form.
    return ctx.Unsupported(absl::StrCat(
        DataTypeName(dtype), " convolution: ONNX Conv and ConvTranspose hold floating types only; "
        "cast the input and weight to a floating dtype before export"));
  }

  const bool unbatched = input_rank == weight_rank - 1;
  if (unbatched) input = Unsqueeze(ctx, input, {0});

  std::vector<ir::Attribute> attributes = {
      ir::Attribute::Ints("strides", attrs.strides),
      ir::Attribute::Ints("pads", attrs.pads),
      ir::Attribute::Ints("dilations", attrs.dilations),
      ir::Attribute::Int("group", attrs.groups),
  };
  if (std::optional<std::vector<int64_t>> kernel = KernelShape(ctx)) {
    attributes.push_back(ir::Attribute::Ints("kernel_shape", *kernel));
  }
  if (attrs.transposed) {
    attributes.push_back(ir::Attribute::Ints("output_padding", attrs.output_padding));
  }
  std::vector<std::string> inputs = {input, weight};
  if (bias) inputs.push_back(*bias);
  std::string out = ctx.Op(attrs.transposed ? "ConvTranspose" : "Conv", inputs, attributes);
  if (unbatched) out = Squeeze(ctx, out, {0});
  return ctx.SetOutput(0, out);
}

// Attributes shared by every overload: stride, dilation, groups.
absl::StatusOr<ConvAttrs> CommonAttrs(const TranslateContext& ctx, int64_t n) {
  ConvAttrs attrs;
  PT2ONNX_ASSIGN_OR_RETURN(attrs.strides, SpatialInts(ctx, "stride", n));
  PT2ONNX_ASSIGN_OR_RETURN(attrs.dilations, SpatialInts(ctx, "dilation", n));
  PT2ONNX_ASSIGN_OR_RETURN(attrs.groups, ctx.Int("groups"));
  // torch's limits (check_shape_forward), bounded above so that the 'same'
  // padding arithmetic cannot overflow.
  constexpr int64_t kMax = int64_t{1} << 31;
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "stride", attrs.strides, 1, kMax));
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "dilation", attrs.dilations, 1, kMax));
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "groups", {attrs.groups}, 1, kMax));
  return attrs;
}

// Explicit int padding: torch rejects negative entries.
absl::StatusOr<std::vector<int64_t>> IntPadding(const TranslateContext& ctx, int64_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, SpatialInts(ctx, "padding", n));
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "padding", padding, 0, int64_t{1} << 31));
  return padding;
}

// torch requires 0 <= output_padding < max(stride, dilation) per dim; ONNX
// Runtime also wants it below the stride. An output padding op that the end
// padding p covers is the same as end padding p - op (both crop the full
// transposed output to the same cells), which is how such dims are emitted.
absl::Status CheckOutputPadding(const TranslateContext& ctx, ConvAttrs& attrs) {
  const size_t n = attrs.output_padding.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t op = attrs.output_padding[i];
    const int64_t limit = std::max(attrs.strides[i], attrs.dilations[i]);
    if (op < 0 || op >= limit) {
      return ctx.Invalid(absl::StrCat("output_padding ", op, " should be in [0, ", limit,
                                      "): smaller than the stride or the dilation (as torch)"));
    }
    if (op < attrs.strides[i]) continue;
    if (attrs.pads[n + i] < op) {
      return ctx.Unsupported(absl::StrCat(
          "output_padding ", op, " not smaller than the stride ", attrs.strides[i],
          " and larger than the padding ", attrs.pads[n + i],
          " (ONNX Runtime's ConvTranspose rejects it)"));
    }
    attrs.pads[n + i] -= op;
    attrs.output_padding[i] = 0;
  }
  return absl::OkStatus();
}

std::vector<int64_t> SymmetricPads(const std::vector<int64_t>& padding) {
  std::vector<int64_t> pads = padding;
  pads.insert(pads.end(), padding.begin(), padding.end());
  return pads;
}

absl::StatusOr<int64_t> SpatialRank(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t weight_rank, ctx.InputRank("weight"));
  if (weight_rank < 3) {
    return ctx.Invalid(absl::StrCat("weight has rank ", weight_rank, ", expected at least 3"));
  }
  return weight_rank - 2;
}

// aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1],
//              SymInt[1] padding=[0], SymInt[1] dilation=[1], SymInt groups=1) -> Tensor
// aten::conv2d(... SymInt[2] ...) -> Tensor
// aten::conv3d(... SymInt[3] ...) -> Tensor
absl::Status AtenConvNd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SpatialRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(ConvAttrs attrs, CommonAttrs(ctx, n));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, IntPadding(ctx, n));
  attrs.pads = SymmetricPads(padding);
  return EmitConv(ctx, attrs);
}

// aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1],
//                      str padding="valid", SymInt[1] dilation=[1], SymInt groups=1) -> Tensor
// aten::conv2d.padding / aten::conv3d.padding: same with 2 / 3 spatial dims.
absl::Status AtenConvNdPadding(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SpatialRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(ConvAttrs attrs, CommonAttrs(ctx, n));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mode, ctx.String("padding"));
  if (mode == "valid") {
    attrs.pads.assign(2 * n, 0);
    return EmitConv(ctx, attrs);
  }
  if (mode != "same") {
    return ctx.Invalid(absl::StrCat("padding '", mode, "' is not 'same' or 'valid'"));
  }
  for (int64_t s : attrs.strides) {
    if (s != 1) return ctx.Invalid("padding='same' requires stride 1 (as in torch)");
  }
  std::optional<std::vector<int64_t>> kernel = KernelShape(ctx);
  if (!kernel) return ctx.Unsupported("padding='same' with a symbolic kernel size");
  // torch (_convolution_mode in Convolution.cpp) pads dilation*(k-1) in
  // total per dim, the odd element on the right. Explicit pads reproduce that
  // exactly; auto_pad=SAME_UPPER would too, but pads keep shape inference
  // simple and the node self-describing.
  attrs.pads.assign(2 * n, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t total = attrs.dilations[i] * ((*kernel)[i] - 1);
    attrs.pads[i] = total / 2;
    attrs.pads[n + i] = total - total / 2;
  }
  return EmitConv(ctx, attrs);
}

// aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//                   SymInt[] padding, SymInt[] dilation, bool transposed,
//                   SymInt[] output_padding, SymInt groups) -> Tensor
// aten::_convolution(... same ..., bool benchmark, bool deterministic, bool cudnn_enabled,
//                    bool allow_tf32) -> Tensor   (backend flags do not change the result)
absl::Status AtenConvolution(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SpatialRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(ConvAttrs attrs, CommonAttrs(ctx, n));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, IntPadding(ctx, n));
  attrs.pads = SymmetricPads(padding);
  PT2ONNX_ASSIGN_OR_RETURN(attrs.transposed, ctx.Bool("transposed"));
  if (attrs.transposed) {
    PT2ONNX_ASSIGN_OR_RETURN(attrs.output_padding, SpatialInts(ctx, "output_padding", n));
    PT2ONNX_RETURN_IF_ERROR(CheckOutputPadding(ctx, attrs));
  }
  return EmitConv(ctx, attrs);
}

// aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1],
//                        SymInt[1] padding=[0], SymInt[1] output_padding=[0], SymInt groups=1,
//                        SymInt[1] dilation=[1]) -> Tensor
// aten::conv_transpose2d.input / aten::conv_transpose3d.input: same with 2 / 3 dims.
absl::Status AtenConvTransposeNd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, SpatialRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(ConvAttrs attrs, CommonAttrs(ctx, n));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, IntPadding(ctx, n));
  attrs.pads = SymmetricPads(padding);
  attrs.transposed = true;
  PT2ONNX_ASSIGN_OR_RETURN(attrs.output_padding, SpatialInts(ctx, "output_padding", n));
  PT2ONNX_RETURN_IF_ERROR(CheckOutputPadding(ctx, attrs));
  return EmitConv(ctx, attrs);
}

}  // namespace

void RegisterConvOps(OpRegistry& r) {
  r.Add("aten::conv1d.default", &AtenConvNd);
  r.Add("aten::conv2d.default", &AtenConvNd);
  r.Add("aten::conv3d.default", &AtenConvNd);
  r.Add("aten::conv1d.padding", &AtenConvNdPadding);
  r.Add("aten::conv2d.padding", &AtenConvNdPadding);
  r.Add("aten::conv3d.padding", &AtenConvNdPadding);
  r.Add("aten::convolution.default", &AtenConvolution);
  r.Add("aten::_convolution.default", &AtenConvolution);
  r.Add("aten::_convolution.deprecated", &AtenConvolution);
  r.Add("aten::conv_transpose1d.default", &AtenConvTransposeNd);
  r.Add("aten::conv_transpose2d.input", &AtenConvTransposeNd);
  r.Add("aten::conv_transpose3d.input", &AtenConvTransposeNd);
}

}  // namespace pt2onnx::ops
