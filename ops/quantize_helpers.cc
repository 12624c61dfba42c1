// File: ops/quantize_helpers.cc
// -----------------------------------------------------------------------------
// QuantizeLinear / DequantizeLinear or torch's formula (see the header).
// Opset boundaries: QuantizeLinear and DequantizeLinear take int8 and uint8
// at every opset this converter emits (per axis since 13); int16 and uint16
// since 21. int32 is never a QuantizeLinear output, and DequantizeLinear
// allows int32 only without a zero point, so int32 always takes the formula.
#include "ops/quantize_helpers.h"

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {
namespace {

struct Limits {
  int64_t low, high;
};

std::optional<Limits> DtypeLimits(DataType dtype) {
  switch (dtype) {
    case DataType::kInt8: return Limits{-128, 127};
    case DataType::kUint8: return Limits{0, 255};
    case DataType::kInt16: return Limits{-32768, 32767};
    case DataType::kUint16: return Limits{0, 65535};
    case DataType::kInt32: return Limits{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return std::nullopt;
  }
}

bool HasQdqNodes(DataType dtype, int opset) {
  if (dtype == DataType::kInt8 || dtype == DataType::kUint8) return true;
  // Opset 21: QuantizeLinear / DequantizeLinear gained int16 and uint16.
  return (dtype == DataType::kInt16 || dtype == DataType::kUint16) && opset >= 21;
}

// A per-axis parameter (1-D) shaped to broadcast along `axis` of a rank-`rank` tensor.
std::string AlongAxis(TranslateContext& ctx, const std::string& v, const QParams& p, int64_t rank) {
  if (!p.axis.has_value()) return v;
  std::vector<int64_t> trailing;
  for (int64_t d = 1; d < rank - *p.axis; ++d) trailing.push_back(d);
  return trailing.empty() ? v : Unsqueeze(ctx, v, trailing);
}

std::vector<ir::Attribute> AxisAttr(const QParams& p) {
  if (!p.axis.has_value()) return {};
  return {ir::Attribute::Int("axis", *p.axis)};
}

}  // namespace

absl::StatusOr<QRange> ReadQRange(const TranslateContext& ctx) {
  QRange r;
  PT2ONNX_ASSIGN_OR_RETURN(r.quant_min, ctx.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(r.quant_max, ctx.Int("quant_max"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, ctx.OptionalDtype("dtype"));
  if (!dtype.has_value()) return ctx.Invalid("needs the quantized dtype");
  std::optional<Limits> limits = DtypeLimits(*dtype);
  if (!limits.has_value()) {
    return ctx.Unsupported(absl::StrCat("quantization to ", DataTypeName(*dtype),
                                        " (supported: uint8, int8, uint16, int16, int32)"));
  }
  if (r.quant_min > r.quant_max || r.quant_min < limits->low || r.quant_max > limits->high) {
    return ctx.Invalid(absl::StrCat("quant range [", r.quant_min, ", ", r.quant_max, "] is empty or outside ",
                                    DataTypeName(*dtype), "'s [", limits->low, ", ", limits->high, "]"));
  }
  r.dtype = *dtype;
  return r;
}

absl::StatusOr<QRange> RangeWithoutDtype(const TranslateContext& ctx, int64_t quant_min, int64_t quant_max) {
  if (quant_min > quant_max) {
    return ctx.Invalid(absl::StrCat("quant_min ", quant_min, " is above quant_max ", quant_max));
  }
  for (DataType t : {DataType::kInt8, DataType::kUint8, DataType::kInt16, DataType::kUint16, DataType::kInt32}) {
    const Limits l = *DtypeLimits(t);
    if (quant_min >= l.low && quant_max <= l.high) return QRange{quant_min, quant_max, t};
  }
  return ctx.Unsupported(absl::StrCat("a quant range [", quant_min, ", ", quant_max, "] wider than int32"));
}

std::string ScalarScale(TranslateContext& ctx, double scale) {
  return ctx.ConstantScalar(DataType::kFloat, scale);
}

absl::StatusOr<std::string> TensorScale(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype(arg));
  if (!IsFloatingPoint(dtype) || IsComplex(dtype)) {
    return ctx.Invalid(absl::StrCat("'", arg, "' must be a float tensor, got ", DataTypeName(dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string v, ctx.InputAs(arg, DataType::kFloat));
  return Reshape(ctx, v, {});
}

absl::StatusOr<std::string> TensorZeroPoint(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype(arg));
  PT2ONNX_ASSIGN_OR_RETURN(std::string v, ctx.Input(arg));
  // A float zero point (choose_qparams_per_token's zeros) holds whole numbers.
  if (IsFloatingPoint(dtype)) v = ctx.Op("Round", {ctx.CastTo(v, dtype, DataType::kFloat)});
  return Reshape(ctx, ctx.CastTo(v, IsFloatingPoint(dtype) ? DataType::kFloat : dtype, DataType::kInt64), {});
}

absl::StatusOr<std::string> EmitQuantize(TranslateContext& ctx, const std::string& x, const QParams& p,
                                         const QRange& range, int64_t rank) {
  const Limits limits = *DtypeLimits(range.dtype);
  const bool narrow = range.quant_min > limits.low || range.quant_max < limits.high;
  if (HasQdqNodes(range.dtype, ctx.opset())) {
    std::vector<std::string> inputs = {x, p.scale};
    // Without a zero point ONNX would quantize to uint8: give zeros of the dtype, of the scale's shape.
    if (p.zero_point.empty()) {
      std::string zero = ctx.ConstantScalar(range.dtype, 0);
      inputs.push_back(p.axis.has_value() ? ctx.Op("Expand", {zero, ctx.Op("Shape", {p.scale})}) : zero);
    } else {
      inputs.push_back(ctx.CastTo(p.zero_point, DataType::kInt64, range.dtype));
    }
    std::string q = ctx.Op("QuantizeLinear", inputs, AxisAttr(p));
    if (!narrow) return q;
    // torch clamps to [quant_min, quant_max]; QuantizeLinear saturates to the dtype's range only.
    return ctx.Op("Clip", {q, ctx.ConstantScalar(range.dtype, static_cast<double>(range.quant_min)),
                           ctx.ConstantScalar(range.dtype, static_cast<double>(range.quant_max))});
  }
  // torch's formula, in float32 as torch computes it.
  std::string v = ctx.Op("Round", {ctx.Op("Mul", {x, AlongAxis(ctx, ctx.Op("Reciprocal", {p.scale}), p, rank)})});
  if (!p.zero_point.empty()) {
    v = ctx.Op("Add", {v, AlongAxis(ctx, ctx.CastTo(p.zero_point, DataType::kInt64, DataType::kFloat), p, rank)});
  }
  v = ctx.Op("Clip", {v, ctx.ConstantScalar(DataType::kFloat, static_cast<double>(range.quant_min)),
                      ctx.ConstantScalar(DataType::kFloat, static_cast<double>(range.quant_max))});
  return ctx.CastTo(v, DataType::kFloat, range.dtype);
}

std::string EmitDequantize(TranslateContext& ctx, const std::string& q, const QParams& p, DataType dtype,
                           int64_t rank) {
  if (HasQdqNodes(dtype, ctx.opset())) {
    std::vector<std::string> inputs = {q, p.scale};
    if (!p.zero_point.empty()) inputs.push_back(ctx.CastTo(p.zero_point, DataType::kInt64, dtype));
    return ctx.Op("DequantizeLinear", inputs, AxisAttr(p));
  }
  std::string v = ctx.CastTo(q, dtype, DataType::kFloat);
  if (!p.zero_point.empty()) {
    v = ctx.Op("Sub", {v, AlongAxis(ctx, ctx.CastTo(p.zero_point, DataType::kInt64, DataType::kFloat), p, rank)});
  }
  return ctx.Op("Mul", {v, AlongAxis(ctx, p.scale, p, rank)});
}

}  // namespace pt2onnx::ops
