// File: ops/quantize_helpers.h
// -----------------------------------------------------------------------------
// Quantize and dequantize as ONNX QuantizeLinear / DequantizeLinear where the
// opset has them for the dtype, else as torch's formula; shared by the
// quantized_decomposed translations (quantize.cc), the fake-quantize ones
// (fake_quantize.cc) and the dynamic ones (quantize_params.cc).
//
//   QParams p{scale_f32, zero_point_i64, /*axis=*/std::nullopt};
//   PT2ONNX_ASSIGN_OR_RETURN(std::string q, EmitQuantize(ctx, x, p, {-128, 127, DataType::kInt8}));
//   std::string y = EmitDequantize(ctx, q, p, DataType::kInt8);
//
// torch's quantize (torch/ao/quantization/fx/_decomposed.py) is
// clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max), rounding
// half to even as ONNX does. ONNX divides (x / scale); the two agree except
// where x * (1 / scale) and x / scale fall on either side of a rounding
// boundary, a one-ulp difference that moves such a value by one quantization
// step (documented; the fixtures' tolerance is one step). Kept as
// QuantizeLinear so that runtimes see the quantizer's QDQ structure.
#ifndef PT2ONNX_OPS_QUANTIZE_HELPERS_H_
#define PT2ONNX_OPS_QUANTIZE_HELPERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// Quantization parameters as ONNX values.
struct QParams {
  std::string scale;       // float32: 0-d per tensor, 1-D along `axis`
  std::string zero_point;  // int64 of scale's shape; empty: no zero point (0)
  std::optional<int64_t> axis;  // per-axis (non-negative) or per tensor
};

// The quantized range: torch's quant_min / quant_max and dtype.
struct QRange {
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  DataType dtype = DataType::kInt8;
};

// Reads quant_min, quant_max and dtype; InvalidArgument when the dtype is not
// one torch quantizes to (uint8, int8, uint16, int16, int32) or the range
// lies outside it (torch's _quant_min_max_bounds_check).
absl::StatusOr<QRange> ReadQRange(const TranslateContext& ctx);
// The same for a range without a dtype (fake quantization): the narrowest of
// int8, uint8, int16, uint16, int32 holding it.
absl::StatusOr<QRange> RangeWithoutDtype(const TranslateContext& ctx, int64_t quant_min, int64_t quant_max);

// A float scale argument as a 0-d float32 constant, and a tensor one (any
// float dtype, one element) as a 0-d float32 value.
std::string ScalarScale(TranslateContext& ctx, double scale);
absl::StatusOr<std::string> TensorScale(TranslateContext& ctx, absl::string_view arg);
// A one-element zero-point tensor (any integer or float dtype) as 0-d int64.
absl::StatusOr<std::string> TensorZeroPoint(TranslateContext& ctx, absl::string_view arg);

// x (float32) -> quantized values of range.dtype.
absl::StatusOr<std::string> EmitQuantize(TranslateContext& ctx, const std::string& x, const QParams& p,
                                         const QRange& range, int64_t rank);
// q (of `dtype`) -> float32 values, (q - zero_point) * scale.
std::string EmitDequantize(TranslateContext& ctx, const std::string& q, const QParams& p, DataType dtype,
                           int64_t rank);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_QUANTIZE_HELPERS_H_
