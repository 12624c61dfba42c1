// File: ops/fake_quantize.cc
// -----------------------------------------------------------------------------
// ATen's fake quantization, what QAT programs compute (torch.ao's
// FakeQuantize modules with their observers frozen):
//   y = (clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max) - zero_point) * scale
// in float32 (aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp,
// fake_quantize_tensor_cachemask_kernel and the per-channel kernel beside
// it). The range has no dtype; the narrowest integer dtype holding it carries
// a QuantizeLinear -> DequantizeLinear pair (ops/quantize_helpers.h), the QDQ
// form runtimes fuse.
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

absl::Status FakeQuantize(TranslateContext& ctx, const QParams& p) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t quant_min, ctx.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t quant_max, ctx.Int("quant_max"));
  PT2ONNX_ASSIGN_OR_RETURN(QRange range, RangeWithoutDtype(ctx, quant_min, quant_max));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dtype != DataType::kFloat && !IsHalfFloat(dtype)) {
    return ctx.Invalid(absl::StrCat("fake-quantizes float input, got ", DataTypeName(dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", DataType::kFloat));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, EmitQuantize(ctx, x, p, range, rank));
  return ctx.SetOutput(0, ctx.CastTo(EmitDequantize(ctx, q, p, range.dtype, rank), DataType::kFloat, dtype));
}

// aten::fake_quantize_per_tensor_affine(Tensor self, float scale, int zero_point, int quant_min, int quant_max) -> Tensor
absl::Status AtenFakeQuantizePerTensorAffine(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double scale, ctx.Float("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t zero_point, ctx.Int("zero_point"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t quant_min, ctx.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t quant_max, ctx.Int("quant_max"));
  // torch refuses these (FakeQuantPerTensorAffine.cpp's checks).
  if (zero_point < quant_min || zero_point > quant_max) {
    return ctx.Invalid(absl::StrCat("zero_point ", zero_point, " must be in [quant_min, quant_max] = [", quant_min,
                                    ", ", quant_max, "]"));
  }
  return FakeQuantize(ctx, QParams{ScalarScale(ctx, scale), ctx.ConstantInt64(zero_point), std::nullopt});
}

// aten::fake_quantize_per_tensor_affine.tensor_qparams(Tensor self, Tensor scale, Tensor zero_point, int quant_min, int quant_max) -> Tensor
absl::Status AtenFakeQuantizePerTensorAffineTensorQparams(TranslateContext& ctx) {
  QParams p;
  PT2ONNX_ASSIGN_OR_RETURN(p.scale, TensorScale(ctx, "scale"));
  PT2ONNX_ASSIGN_OR_RETURN(p.zero_point, TensorZeroPoint(ctx, "zero_point"));
  return FakeQuantize(ctx, p);
}

// aten::fake_quantize_per_channel_affine(Tensor self, Tensor scale, Tensor zero_point, int axis, int quant_min, int quant_max) -> Tensor
absl::Status AtenFakeQuantizePerChannelAffine(TranslateContext& ctx) {
  QParams p;
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "axis", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t scale_rank, ctx.InputRank("scale"));
  if (scale_rank != 1) return ctx.Invalid(absl::StrCat("scale must be 1-D, got rank ", scale_rank));
  p.axis = axis;
  PT2ONNX_ASSIGN_OR_RETURN(p.scale, ctx.InputAs("scale", DataType::kFloat));
  PT2ONNX_ASSIGN_OR_RETURN(DataType zp_dtype, ctx.InputDtype("zero_point"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string zp, ctx.Input("zero_point"));
  // torch accepts float zero points here (rounded by the kernel).
  if (IsFloatingPoint(zp_dtype)) zp = ctx.Op("Round", {ctx.CastTo(zp, zp_dtype, DataType::kFloat)});
  p.zero_point = ctx.CastTo(zp, IsFloatingPoint(zp_dtype) ? DataType::kFloat : zp_dtype, DataType::kInt64);
  return FakeQuantize(ctx, p);
}

}  // namespace

void RegisterFakeQuantizeOps(OpRegistry& r) {
  r.Add("aten::fake_quantize_per_tensor_affine.default", &AtenFakeQuantizePerTensorAffine);
  r.Add("aten::fake_quantize_per_tensor_affine.tensor_qparams", &AtenFakeQuantizePerTensorAffineTensorQparams);
  r.Add("aten::fake_quantize_per_channel_affine.default", &AtenFakeQuantizePerChannelAffine);
}

}  // namespace pt2onnx::ops
