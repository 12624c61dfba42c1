// File: reference/quantize.cc
// -----------------------------------------------------------------------------
// Reference kernels for quantization: the quantized_decomposed operators of
// PT2E programs (torch/ao/quantization/fx/_decomposed.py, parameters by
// determine_qparams in torch/ao/quantization/utils.py) and ATen's fake
// quantization (aten/src/ATen/native/quantized/cpu/kernels/
// QuantizedOpKernels.cpp). Each computes in the dtype torch computes in, in
// torch's order, so the quantized values are torch's to the bit:
//   per tensor:  float32, x * float(1.0 / scale) (the inverse taken in double
//                from the Python float, then used as a float32 scalar);
//   per channel: in the scales' dtype, x * (1 / scales);
//   per token:   float64 when the scales are (x.mul(1.0 / scales) promotes);
//   rounding half to even (torch.round, std::nearbyint), zero point added
//   before the clamp to [quant_min, quant_max].
// Dequantize: (q - zero_point) * scale, quant_min / quant_max unused.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

bool QuantizedDtype(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8 || t == DataType::kInt16 || t == DataType::kUint16 ||
         t == DataType::kInt32;
}

absl::StatusOr<DataType> QDtype(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  if (!dtype.has_value() || !QuantizedDtype(*dtype)) {
    return call.Unsupported("quantized dtype other than uint8, int8, uint16, int16, int32");
  }
  return *dtype;
}

// round(x * inv) + zp, clamped: torch's quantize in the compute type T.
template <typename T>
int64_t QuantizeOne(T x, T inv, T zp, int64_t qmin, int64_t qmax) {
  T v = std::nearbyint(x * inv) + zp;
  v = std::min(std::max(v, static_cast<T>(qmin)), static_cast<T>(qmax));
  return static_cast<int64_t>(v);
}

absl::StatusOr<Tensor> FloatInput(const RefCall& call, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input(name));
  if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kFloat16 && x.dtype() != DataType::kBFloat16) {
    return call.Invalid(absl::StrCat("expects float32 input, got ", DataTypeName(x.dtype())));
  }
  return x;
}

// Where the parameters of element i are: one for all, per channel along an
// axis, or one per row of the last dimension (per token).
struct Layout {
  int64_t inner = 1, extent = 1;  // per channel
  int64_t row = 0;                // per token: the last dimension's size
  int64_t Index(int64_t i) const {
    if (row > 0) return i / row;
    return (i / inner) % extent;
  }
};

Layout ChannelLayout(const Tensor& x, int64_t axis) {
  Layout l;
  l.extent = x.dim(static_cast<size_t>(axis));
  for (int64_t d = axis + 1; d < x.rank(); ++d) l.inner *= x.dim(static_cast<size_t>(d));
  return l;
}

absl::StatusOr<int64_t> Axis(const RefCall& call, const Tensor& x) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, call.Int("axis"));
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis >= x.rank()) return call.Invalid(absl::StrCat("axis out of range for rank ", x.rank()));
  return axis;
}

absl::Status SetOutDtype(RefCall& call, const Dims& dims, const std::vector<double>& v, absl::string_view arg) {
  std::optional<DataType> out;
  if (call.Has(arg)) {
    PT2ONNX_ASSIGN_OR_RETURN(out, call.Dtype(arg));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(out.value_or(DataType::kFloat), dims, v));
  return call.SetTensor(std::move(t));
}

// ---- per tensor ----
absl::Status QuantizePerTensorWith(RefCall& call, double scale, int64_t zero_point) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, FloatInput(call, "input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmin, call.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmax, call.Int("quant_max"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, QDtype(call));
  const float inv = static_cast<float>(1.0 / scale), zp = static_cast<float>(zero_point);
  std::vector<int64_t> q(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    q[i] = QuantizeOne<float>(static_cast<float>(LoadDouble(x, i)), inv, zp, qmin, qmax);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(dtype, x.dims(), q));
  return call.SetTensor(std::move(out));
}

absl::Status DequantizePerTensorWith(RefCall& call, double scale, int64_t zero_point) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor q, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, QDtype(call));
  if (q.dtype() != dtype) return call.Invalid("input dtype differs from dtype");
  const float s = static_cast<float>(scale), zp = static_cast<float>(zero_point);
  std::vector<double> y(static_cast<size_t>(q.numel()));
  for (int64_t i = 0; i < q.numel(); ++i) y[i] = (static_cast<float>(LoadInt(q, i)) - zp) * s;
  return SetOutDtype(call, q.dims(), y, "out_dtype");
}

// The one value of a scale / zero-point tensor (torch's .item()).
absl::StatusOr<std::pair<double, int64_t>> ItemParams(const RefCall& call, absl::string_view s, absl::string_view z) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scale, call.Input(s));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor zp, call.Input(z));
  if (scale.numel() != 1 || zp.numel() != 1) return call.Invalid("expects one-element scale and zero point");
  const int64_t zero = IsFloatingPoint(zp.dtype()) ? static_cast<int64_t>(LoadDouble(zp, 0)) : LoadInt(zp, 0);
  return std::make_pair(LoadDouble(scale, 0), zero);
}

absl::Status QuantizePerTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t zp, call.Int("zero_point"));
  return QuantizePerTensorWith(call, scale, zp);
}
absl::Status QuantizePerTensorTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(auto p, ItemParams(call, "scale", "zero_point"));
  return QuantizePerTensorWith(call, p.first, p.second);
}
absl::Status DequantizePerTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t zp, call.Int("zero_point"));
  return DequantizePerTensorWith(call, scale, zp);
}
absl::Status DequantizePerTensorTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(auto p, ItemParams(call, "scale", "zero_point"));
  return DequantizePerTensorWith(call, p.first, p.second);
}

// ---- per channel and per token: parameters as tensors ----
struct TensorParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;  // empty: none
  bool in_double = false;            // the scales are float64: torch computes in float64
};

absl::StatusOr<TensorParams> ReadTensorParams(const RefCall& call, absl::string_view s, absl::string_view z,
                                              int64_t count) {
  TensorParams p;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scales, call.Input(s));
  if (scales.numel() != count) {
    return call.Invalid(absl::StrCat("expects ", count, " scales, got ", scales.numel()));
  }
  p.scales = ToDoubles(scales);
  p.in_double = scales.dtype() == DataType::kDouble;
  if (call.Has(z)) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor zp, call.Input(z));
    if (zp.numel() != count) return call.Invalid(absl::StrCat("expects ", count, " zero points"));
    for (double v : ToDoubles(zp)) p.zero_points.push_back(static_cast<int64_t>(std::nearbyint(v)));
  }
  return p;
}

absl::Status QuantizeWithParams(RefCall& call, const Tensor& x, const TensorParams& p, const Layout& l) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmin, call.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmax, call.Int("quant_max"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, QDtype(call));
  std::vector<int64_t> q(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t k = static_cast<size_t>(l.Index(i));
    const int64_t zp = p.zero_points.empty() ? 0 : p.zero_points[k];
    q[i] = p.in_double
               ? QuantizeOne<double>(static_cast<float>(LoadDouble(x, i)), 1.0 / p.scales[k], zp, qmin, qmax)
               : QuantizeOne<float>(static_cast<float>(LoadDouble(x, i)), 1.0f / static_cast<float>(p.scales[k]),
                                    static_cast<float>(zp), qmin, qmax);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(dtype, x.dims(), q));
  return call.SetTensor(std::move(out));
}

// (q - zp) in int64, times the scale in the scales' dtype.
std::vector<double> DequantizeWithParams(const Tensor& q, const TensorParams& p, const Layout& l) {
  std::vector<double> y(static_cast<size_t>(q.numel()));
  for (int64_t i = 0; i < q.numel(); ++i) {
    const size_t k = static_cast<size_t>(l.Index(i));
    const int64_t d = LoadInt(q, i) - (p.zero_points.empty() ? 0 : p.zero_points[k]);
    y[i] = p.in_double ? static_cast<double>(d) * p.scales[k]
                       : static_cast<double>(static_cast<float>(d) * static_cast<float>(p.scales[k]));
  }
  return y;
}

absl::Status QuantizePerChannel(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, FloatInput(call, "input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, Axis(call, x));
  const Layout l = ChannelLayout(x, axis);
  PT2ONNX_ASSIGN_OR_RETURN(TensorParams p, ReadTensorParams(call, "scales", "zero_points", l.extent));
  return QuantizeWithParams(call, x, p, l);
}

absl::Status DequantizePerChannel(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor q, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, Axis(call, q));
  const Layout l = ChannelLayout(q, axis);
  PT2ONNX_ASSIGN_OR_RETURN(TensorParams p, ReadTensorParams(call, "scales", "zero_points", l.extent));
  return SetOutDtype(call, q.dims(), DequantizeWithParams(q, p, l), "out_dtype");
}

Layout TokenLayout(const Tensor& x) {
  Layout l;
  l.row = x.rank() == 0 ? 1 : x.dim(static_cast<size_t>(x.rank() - 1));
  return l;
}

absl::Status QuantizePerToken(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, FloatInput(call, "input"));
  const Layout l = TokenLayout(x);
  PT2ONNX_ASSIGN_OR_RETURN(TensorParams p, ReadTensorParams(call, "scales", "zero_points",
                                                             l.row == 0 ? 0 : x.numel() / l.row));
  return QuantizeWithParams(call, x, p, l);
}

absl::Status DequantizePerToken(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor q, call.Input("input"));
  const Layout l = TokenLayout(q);
  PT2ONNX_ASSIGN_OR_RETURN(TensorParams p, ReadTensorParams(call, "scales", "zero_points",
                                                             l.row == 0 ? 0 : q.numel() / l.row));
  return SetOutDtype(call, q.dims(), DequantizeWithParams(q, p, l), "output_dtype");
}

}  // namespace

void RegisterQuantizeRef(RefRegistry& r) {
  r.Add("quantized_decomposed::quantize_per_tensor.default", QuantizePerTensor);
  r.Add("quantized_decomposed::quantize_per_tensor.tensor", QuantizePerTensorTensor);
  r.Add("quantized_decomposed::dequantize_per_tensor.default", DequantizePerTensor);
  r.Add("quantized_decomposed::dequantize_per_tensor.tensor", DequantizePerTensorTensor);
  r.Add("quantized_decomposed::quantize_per_channel.default", QuantizePerChannel);
  r.Add("quantized_decomposed::dequantize_per_channel.default", DequantizePerChannel);
  r.Add("quantized_decomposed::quantize_per_token.default", QuantizePerToken);
  r.Add("quantized_decomposed::dequantize_per_token.default", DequantizePerToken);
}

}  // namespace pt2onnx::reference
