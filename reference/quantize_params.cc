// File: reference/quantize_params.cc
// -----------------------------------------------------------------------------
// Reference kernels for dynamic quantization parameters and ATen's fake
// quantization, in float32 as torch computes them:
//   choose_qparams.tensor / choose_qparams_symmetric.tensor:
//     torch/ao/quantization/fx/_decomposed.py -> determine_qparams
//     (torch/ao/quantization/utils.py);
//   choose_qparams_per_token_asymmetric: _decomposed.py,
//     _choose_qparams_per_token_asymmetric_impl;
//   fake_quantize_per_tensor_affine (both overloads),
//   fake_quantize_per_channel_affine: aten/src/ATen/native/quantized/cpu/
//     kernels/QuantizedOpKernels.cpp (inv_scale = 1.0f / scale;
//     qval = zero_point + nearbyint(x * inv_scale), clamped;
//     (qval - zero_point) * scale).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<Tensor> Float32Input(const RefCall& call, absl::string_view name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input(name));
  if (x.dtype() != DataType::kFloat) {
    return call.Unsupported(absl::StrCat("input of dtype ", DataTypeName(x.dtype()), " (float32 only)"));
  }
  return x;
}

absl::Status SetParams(RefCall& call, const Dims& dims, const std::vector<double>& scale,
                       const std::vector<int64_t>& zero_point) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor s, FromDoubles(DataType::kDouble, dims, scale));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor z, FromInts(DataType::kInt64, dims, zero_point));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(s)));
  return call.SetTensor(std::move(z));
}

// min(min(x), 0) and max(max(x), 0) in float32 (aminmax, then against zeros).
std::pair<float, float> RangeWithZero(const std::vector<double>& x, size_t begin, size_t end) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (size_t i = begin; i < end; ++i) {
    lo = std::min(lo, static_cast<float>(x[i]));
    hi = std::max(hi, static_cast<float>(x[i]));
  }
  return {std::min(lo, 0.0f), std::max(hi, 0.0f)};
}

absl::Status ChooseQparams(RefCall& call, bool symmetric) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, Float32Input(call, "input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmin, call.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmax, call.Int("quant_max"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps_arg, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  if (x.numel() == 0) return SetParams(call, Dims{1}, {1.0}, {0});  // check_min_max_valid's default
  const std::vector<double> v = ToDoubles(x);
  const auto [min_neg, max_pos] = RangeWithZero(v, 0, v.size());
  const float eps = static_cast<float>(eps_arg);  // torch.Tensor([eps]): float32
  if (symmetric) {
    const float top = std::max(-min_neg, max_pos);
    const float scale = std::max(top / static_cast<float>(static_cast<double>(qmax - qmin) / 2), eps);
    return SetParams(call, Dims{1}, {scale}, {dtype == DataType::kUint8 ? 128 : 0});
  }
  const float scale = std::max((max_pos - min_neg) / static_cast<float>(qmax - qmin), eps);
  float zp = static_cast<float>(qmin) - std::nearbyint(min_neg / scale);
  zp = std::min(std::max(zp, static_cast<float>(qmin)), static_cast<float>(qmax));
  return SetParams(call, Dims{1}, {scale}, {static_cast<int64_t>(zp)});
}

absl::Status ChooseQparamsTensor(RefCall& call) { return ChooseQparams(call, false); }
absl::Status ChooseQparamsSymmetricTensor(RefCall& call) { return ChooseQparams(call, true); }

absl::Status ChooseQparamsPerTokenAsymmetric(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, Float32Input(call, "input"));
  if (x.rank() == 0) return call.Invalid("expects a tensor of rank 1 or more");
  const size_t n = static_cast<size_t>(x.dim(static_cast<size_t>(x.rank() - 1)));
  const std::vector<double> v = ToDoubles(x);
  const float qmin = -128, qmax = 127, eps = std::numeric_limits<float>::epsilon();
  std::vector<double> scales;
  std::vector<int64_t> zps;
  for (size_t start = 0; n > 0 && start < v.size(); start += n) {
    const auto [min_neg, max_pos] = RangeWithZero(v, start, start + n);
    const float scale = std::max((max_pos - min_neg) / (qmax - qmin), eps);
    const float dmin = min_neg / scale, dmax = max_pos / scale;
    float zp = (qmin + dmin) + (qmax + dmax) > 0 ? qmin - dmin : qmax - dmax;
    zp = std::nearbyint(std::min(std::max(zp, qmin), qmax));
    scales.push_back(scale);
    zps.push_back(static_cast<int64_t>(zp));
  }
  Dims dims = x.dims();
  dims.back() = 1;
  return SetParams(call, dims, scales, zps);
}

// ---- fake quantization ----
absl::Status FakeQuantize(RefCall& call, const std::vector<double>& scales, const std::vector<int64_t>& zps,
                          int64_t inner, int64_t extent) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("self"));
  if (!IsFloatingPoint(x.dtype()) || IsComplex(x.dtype())) return call.Invalid("expects a float input");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmin, call.Int("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qmax, call.Int("quant_max"));
  const bool in_double = x.dtype() == DataType::kDouble;
  std::vector<double> y(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t k = static_cast<size_t>((i / inner) % extent);
    const float sc = static_cast<float>(scales[k]), inv = 1.0f / sc;
    const int64_t z = zps[k];
    // The input's type times the float inverse (double for float64 input, else float).
    const double prod = in_double ? LoadDouble(x, i) * static_cast<double>(inv)
                                  : static_cast<double>(static_cast<float>(LoadDouble(x, i)) * inv);
    const double qf = static_cast<double>(z) + std::nearbyint(prod);
    const int64_t q = static_cast<int64_t>(std::fmin(std::fmax(qf, static_cast<double>(qmin)), static_cast<double>(qmax)));
    y[i] = in_double ? static_cast<double>(q - z) * static_cast<double>(sc)
                     : static_cast<double>(static_cast<float>(q - z) * sc);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(x.dtype(), x.dims(), y));
  return call.SetTensor(std::move(out));
}

absl::Status FakeQuantizePerTensorAffine(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t zp, call.Int("zero_point"));
  return FakeQuantize(call, {scale}, {zp}, 1, 1);
}

absl::Status FakeQuantizePerTensorAffineTensorQparams(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scale, call.Input("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor zp, call.Input("zero_point"));
  if (scale.numel() != 1 || zp.numel() != 1) return call.Invalid("expects one-element scale and zero point");
  // .item().toFloat() / .toInt()
  return FakeQuantize(call, {static_cast<float>(LoadDouble(scale, 0))}, {LoadInt(zp, 0)}, 1, 1);
}

absl::Status FakeQuantizePerChannelAffine(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scale, call.Input("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor zp, call.Input("zero_point"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, call.Int("axis"));
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis >= x.rank()) return call.Invalid("axis out of range");
  const int64_t extent = x.dim(static_cast<size_t>(axis));
  if (scale.numel() != extent || zp.numel() != extent) {
    return call.Invalid(absl::StrCat("expects ", extent, " scales and zero points"));
  }
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(static_cast<size_t>(d));
  std::vector<int64_t> zps;
  for (double v : ToDoubles(zp)) zps.push_back(static_cast<int64_t>(std::nearbyint(v)));
  return FakeQuantize(call, ToDoubles(scale), zps, inner, extent);
}

}  // namespace

void RegisterQuantizeParamsRef(RefRegistry& r) {
  r.Add("quantized_decomposed::choose_qparams.tensor", ChooseQparamsTensor);
  r.Add("quantized_decomposed::choose_qparams_symmetric.tensor", ChooseQparamsSymmetricTensor);
  r.Add("quantized_decomposed::choose_qparams_per_token_asymmetric.default", ChooseQparamsPerTokenAsymmetric);
  r.Add("aten::fake_quantize_per_tensor_affine.default", FakeQuantizePerTensorAffine);
  r.Add("aten::fake_quantize_per_tensor_affine.tensor_qparams", FakeQuantizePerTensorAffineTensorQparams);
  r.Add("aten::fake_quantize_per_channel_affine.default", FakeQuantizePerChannelAffine);
}

}  // namespace pt2onnx::reference
