// File: ops/quantize.cc
// -----------------------------------------------------------------------------
// The quantized_decomposed operators that PT2E programs carry (torchao's
// prepare_pt2e / convert_pt2e, torch/ao/quantization/fx/_decomposed.py):
// quantize / dequantize per tensor (scalar and .tensor parameters), per
// channel and per token, as QuantizeLinear / DequantizeLinear so that the
// quantizer's QDQ structure reaches the ONNX model (ops/quantize_helpers.h
// says where the formula replaces them and how ONNX's x / scale differs from
// torch's x * (1 / scale)).
//
// torch's dequantize ignores quant_min / quant_max ("not used in
// computation, reserved for pattern matching"): (q - zero_point) * scale.
// Per token, torch computes in float64 with float64 scales; the scales come
// from float32 values (choose_qparams_per_token_asymmetric), so the float32
// product of DequantizeLinear is the same number rounded once.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/quantize_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// The float input torch quantizes: float32, or float16 / bfloat16 widened
// to float32 first as torch does.
absl::StatusOr<std::string> FloatInput(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  if (dtype != DataType::kFloat && !IsHalfFloat(dtype)) {
    return ctx.Invalid(absl::StrCat("quantizes float32, float16 or bfloat16 input, got ", DataTypeName(dtype)));
  }
  return ctx.InputAs("input", DataType::kFloat);
}

// The quantized input of a dequantize, which torch requires to be of `dtype`.
absl::StatusOr<std::string> QuantizedInput(TranslateContext& ctx, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType given, ctx.InputDtype("input"));
  if (given != dtype) {
    return ctx.Invalid(absl::StrCat("input is ", DataTypeName(given), " but dtype says ", DataTypeName(dtype)));
  }
  return ctx.Input("input");
}

absl::Status Quantize(TranslateContext& ctx, const QParams& p, const QRange& range) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatInput(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, EmitQuantize(ctx, x, p, range, rank));
  return ctx.SetOutput(0, q);
}

// out_dtype (None: float32) of a dequantize; `arg` names it.
absl::Status Dequantize(TranslateContext& ctx, const QParams& p, DataType dtype, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, QuantizedInput(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> out, ctx.OptionalDtype(arg));
  const DataType out_dtype = out.value_or(DataType::kFloat);
  if (!IsFloatingPoint(out_dtype) || IsComplex(out_dtype)) {
    return ctx.Invalid(absl::StrCat("dequantizes to a float dtype, got ", DataTypeName(out_dtype)));
  }
  return ctx.SetOutput(0, ctx.CastTo(EmitDequantize(ctx, q, p, dtype, rank), DataType::kFloat, out_dtype));
}

absl::StatusOr<QParams> ScalarParams(TranslateContext& ctx, const QRange& range) {
  PT2ONNX_ASSIGN_OR_RETURN(double scale, ctx.Float("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t zero_point, ctx.Int("zero_point"));
  // QuantizeLinear's zero point has the quantized dtype, where torch adds any int.
  if (zero_point < range.quant_min || zero_point > range.quant_max) {
    return ctx.Unsupported(absl::StrCat("zero point ", zero_point, " outside the quant range [", range.quant_min,
                                        ", ", range.quant_max, "]"));
  }
  return QParams{ScalarScale(ctx, scale), ctx.ConstantInt64(zero_point), std::nullopt};
}

absl::StatusOr<QParams> TensorParams(TranslateContext& ctx) {
  QParams p;
  PT2ONNX_ASSIGN_OR_RETURN(p.scale, TensorScale(ctx, "scale"));
  PT2ONNX_ASSIGN_OR_RETURN(p.zero_point, TensorZeroPoint(ctx, "zero_point"));
  return p;
}

// quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor
absl::Status QuantizePerTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(QParams p, ScalarParams(ctx, range));
  return Quantize(ctx, p, range);
}

// quantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor
absl::Status QuantizePerTensorTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(QParams p, TensorParams(ctx));
  return Quantize(ctx, p, range);
}

// dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor
absl::Status DequantizePerTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(QParams p, ScalarParams(ctx, range));
  return Dequantize(ctx, p, range.dtype, "out_dtype");
}

// dequantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor
absl::Status DequantizePerTensorTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(QParams p, TensorParams(ctx));
  return Dequantize(ctx, p, range.dtype, "out_dtype");
}

// Per-channel parameters: 1-D scales / zero points along `axis` of the input.
absl::StatusOr<QParams> ChannelParams(TranslateContext& ctx, bool zero_points_optional) {
  QParams p;
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "axis", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t scales_rank, ctx.InputRank("scales"));
  if (scales_rank != 1) return ctx.Invalid(absl::StrCat("scales must be 1-D, got rank ", scales_rank));
  PT2ONNX_ASSIGN_OR_RETURN(DataType scale_dtype, ctx.InputDtype("scales"));
  if (!IsFloatingPoint(scale_dtype) || IsComplex(scale_dtype)) {
    return ctx.Invalid(absl::StrCat("scales must be float, got ", DataTypeName(scale_dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(p.scale, ctx.InputAs("scales", DataType::kFloat));
  p.axis = axis;
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> zp, ctx.OptionalInput("zero_points"));
  if (!zp.has_value()) {
    if (!zero_points_optional) return ctx.Invalid("needs zero_points");
    return p;
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType zp_dtype, ctx.InputDtype("zero_points"));
  std::string z = *zp;
  if (IsFloatingPoint(zp_dtype)) z = ctx.Op("Round", {ctx.CastTo(z, zp_dtype, DataType::kFloat)});
  p.zero_point = ctx.CastTo(z, IsFloatingPoint(zp_dtype) ? DataType::kFloat : zp_dtype, DataType::kInt64);
  return p;
}

// quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype) -> Tensor
absl::Status QuantizePerChannel(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(QParams p, ChannelParams(ctx, /*zero_points_optional=*/false));
  return Quantize(ctx, p, range);
}

// dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor
absl::Status DequantizePerChannel(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(QParams p, ChannelParams(ctx, /*zero_points_optional=*/true));
  return Dequantize(ctx, p, range.dtype, "out_dtype");
}

// Per token: scales and zero points of shape (..., 1), one per row of the
// last dimension. As per-axis parameters of the input viewed as (tokens, N).
struct TokenView {
  std::string shape;  // the input's shape, to restore
  int64_t n = 0;      // the last dimension
};

absl::StatusOr<TokenView> TokenRows(TranslateContext& ctx, QParams& p) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("input"));
  if (meta->sizes.empty() || meta->sizes.back().is_symbolic) {
    return ctx.Unsupported("per-token quantization of an input without a static last dimension");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.Input("input"));
  TokenView v{ctx.Op("Shape", {input}), meta->sizes.back().value};
  PT2ONNX_ASSIGN_OR_RETURN(DataType scale_dtype, ctx.InputDtype("scales"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scales, ctx.InputAs("scales", DataType::kFloat));
  if (!IsFloatingPoint(scale_dtype)) return ctx.Invalid("scales must be float");
  p.scale = Reshape(ctx, scales, {-1});
  PT2ONNX_ASSIGN_OR_RETURN(DataType zp_dtype, ctx.InputDtype("zero_points"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string zp, ctx.Input("zero_points"));
  if (IsFloatingPoint(zp_dtype)) zp = ctx.Op("Round", {ctx.CastTo(zp, zp_dtype, DataType::kFloat)});
  p.zero_point = Reshape(ctx, ctx.CastTo(zp, IsFloatingPoint(zp_dtype) ? DataType::kFloat : zp_dtype,
                                         DataType::kInt64), {-1});
  p.axis = 0;
  return v;
}

// quantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, ScalarType dtype) -> Tensor
absl::Status QuantizePerToken(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  QParams p;
  PT2ONNX_ASSIGN_OR_RETURN(TokenView v, TokenRows(ctx, p));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, FloatInput(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, EmitQuantize(ctx, Reshape(ctx, x, {-1, v.n}), p, range, 2));
  return ctx.SetOutput(0, ctx.Op("Reshape", {q, v.shape}));
}

// dequantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, ScalarType output_dtype) -> Tensor
absl::Status DequantizePerToken(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, ReadQRange(ctx));
  QParams p;
  PT2ONNX_ASSIGN_OR_RETURN(TokenView v, TokenRows(ctx, p));
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, QuantizedInput(ctx, range.dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> out, ctx.OptionalDtype("output_dtype"));
  const DataType out_dtype = out.value_or(DataType::kFloat);
  if (!IsFloatingPoint(out_dtype) || IsComplex(out_dtype)) {
    return ctx.Invalid(absl::StrCat("dequantizes to a float dtype, got ", DataTypeName(out_dtype)));
  }
  std::string y = EmitDequantize(ctx, Reshape(ctx, q, {-1, v.n}), p, range.dtype, 2);
  return ctx.SetOutput(0, ctx.CastTo(ctx.Op("Reshape", {y, v.shape}), DataType::kFloat, out_dtype));
}

}  // namespace

void RegisterQuantizeOps(OpRegistry& r) {
  r.Add("quantized_decomposed::quantize_per_tensor.default", &QuantizePerTensor);
  r.Add("quantized_decomposed::quantize_per_tensor.tensor", &QuantizePerTensorTensor);
  r.Add("quantized_decomposed::dequantize_per_tensor.default", &DequantizePerTensor);
  r.Add("quantized_decomposed::dequantize_per_tensor.tensor", &DequantizePerTensorTensor);
  r.Add("quantized_decomposed::quantize_per_channel.default", &QuantizePerChannel);
  r.Add("quantized_decomposed::dequantize_per_channel.default", &DequantizePerChannel);
  r.Add("quantized_decomposed::quantize_per_token.default", &QuantizePerToken);
  r.Add("quantized_decomposed::dequantize_per_token.default", &DequantizePerToken);
}

}  // namespace pt2onnx::ops
