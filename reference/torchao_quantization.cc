// File: reference/torchao_quantization.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/torchao_quantization.cc: torchao 0.18's
// quantize_affine, dequantize_affine and choose_qparams_affine
// (torchao/quantization/quant_primitives.py), computed in float32 (or the
// tensors' double) in torchao's order, so the integer results are torch's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// Each element's block: the index of its scale among the blocks' grid
// (per dim, index / block size), row-major over the grid.
absl::StatusOr<std::vector<int64_t>> BlockOf(const RefCall& call, const Tensor& x, std::vector<int64_t>* grid_dims) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block, call.Ints("block_size"));
  const Dims& dims = x.dims();
  if (block.size() != dims.size()) return call.Invalid("block_size needs one entry per input dim");
  std::vector<int64_t> grid(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (block[d] < 1 || dims[d] % block[d] != 0) {
      return call.Invalid(absl::StrCat("dim ", d, " (", dims[d], ") is not divisible by its block size ", block[d]));
    }
    grid[d] = dims[d] / block[d];
  }
  std::vector<int64_t> index(static_cast<size_t>(x.numel()));
  std::vector<int64_t> at(dims.size(), 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t b = 0;
    for (size_t d = 0; d < dims.size(); ++d) b = b * grid[d] + at[d] / block[d];
    index[static_cast<size_t>(i)] = b;
    for (size_t d = dims.size(); d-- > 0;) {
      if (++at[d] < dims[d]) break;
      at[d] = 0;
    }
  }
  if (grid_dims != nullptr) *grid_dims = grid;
  return index;
}

absl::StatusOr<std::pair<int64_t, int64_t>> Range(const RefCall& call, DataType dtype) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
    case DataType::kInt8: lo = -128; hi = 127; break;
    case DataType::kUint8: lo = 0; hi = 255; break;
    case DataType::kInt16: lo = -32768; hi = 32767; break;
    case DataType::kUint16: lo = 0; hi = 65535; break;
    case DataType::kInt32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: return call.Unsupported(absl::StrCat("torchao quantization to ", DataTypeName(dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> qmin, call.OptionalDouble("quant_min"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> qmax, call.OptionalDouble("quant_max"));
  if (qmin.has_value()) lo = static_cast<int64_t>(*qmin);
  if (qmax.has_value()) hi = static_cast<int64_t>(*qmax);
  return std::pair<int64_t, int64_t>{lo, hi};
}

absl::StatusOr<std::optional<std::vector<double>>> ZeroPoints(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> zp, call.OptionalInput("zero_point"));
  if (!zp.has_value() || zp->numel() == 0) return std::optional<std::vector<double>>();
  return std::optional<std::vector<double>>(ToDoubles(*zp));
}

// v rounded to float32 when the arithmetic is float32's.
double In(double v, bool single) { return single ? static_cast<double>(static_cast<float>(v)) : v; }

// torchao::quantize_affine: clamp(round(input * (1 / scale)) + zero_point, qmin, qmax).
absl::Status QuantizeAffine(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scale_t, call.Input("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> out_dtype, call.Dtype("output_dtype"));
  if (!out_dtype.has_value()) return call.Invalid("output_dtype is required");
  PT2ONNX_ASSIGN_OR_RETURN(auto range, Range(call, *out_dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block, BlockOf(call, x, nullptr));
  PT2ONNX_ASSIGN_OR_RETURN(auto zp, ZeroPoints(call));
  const bool single = x.dtype() != DataType::kDouble && scale_t.dtype() != DataType::kDouble;
  const std::vector<double> xv = ToDoubles(x), scale = ToDoubles(scale_t);
  std::vector<int64_t> out(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t b = static_cast<size_t>(block[i]);
    if (b >= scale.size() || (zp.has_value() && b >= zp->size())) return call.Invalid("scale has too few elements");
    const double inverse = In(1.0 / scale[b], single);
    double q = std::nearbyint(In(xv[i] * inverse, single));
    if (zp.has_value()) q += (*zp)[b];
    q = std::min(std::max(q, static_cast<double>(range.first)), static_cast<double>(range.second));
    out[i] = static_cast<int64_t>(q);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromInts(*out_dtype, x.dims(), out));
  return call.SetTensor(std::move(result));
}

// torchao::dequantize_affine: (input - zero_point) * scale in the output dtype.
absl::Status DequantizeAffine(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scale_t, call.Input("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block, BlockOf(call, x, nullptr));
  PT2ONNX_ASSIGN_OR_RETURN(auto zp, ZeroPoints(call));
  DataType out_dtype = call.OutputDtype();
  if (out_dtype == DataType::kUndefined) out_dtype = DataType::kFloat;
  const bool single = out_dtype != DataType::kDouble && scale_t.dtype() != DataType::kDouble;
  const std::vector<double> xv = ToDoubles(x), scale = ToDoubles(scale_t);
  std::vector<double> out(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t b = static_cast<size_t>(block[i]);
    if (b >= scale.size() || (zp.has_value() && b >= zp->size())) return call.Invalid("scale has too few elements");
    const double shifted = In(zp.has_value() ? xv[i] - (*zp)[b] : xv[i], single);
    out[i] = In(shifted * scale[b], single);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(out_dtype, x.dims(), out));
  return call.SetTensor(std::move(result));
}

// torchao::choose_qparams_affine -> (scale, zero_point), per block.
absl::Status ChooseQparamsAffine(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mapping, call.String("mapping_type"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> target, call.Dtype("target_dtype"));
  if (!target.has_value()) return call.Invalid("target_dtype is required");
  PT2ONNX_ASSIGN_OR_RETURN(auto range, Range(call, *target));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> eps_arg, call.OptionalDouble("eps"));
  const bool single = x.dtype() != DataType::kDouble;
  const double eps = eps_arg.value_or(x.dtype() == DataType::kDouble ? 2.2250738585072014e-308
                                      : x.dtype() == DataType::kFloat16 ? 6.103515625e-05
                                                                         : 1.1754943508222875e-38);
  std::vector<int64_t> grid;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block, BlockOf(call, x, &grid));
  int64_t blocks = 1;
  for (int64_t g : grid) blocks *= g;
  std::vector<double> lo(static_cast<size_t>(blocks), 0.0), hi(static_cast<size_t>(blocks), 0.0);
  const std::vector<double> xv = ToDoubles(x);
  for (size_t i = 0; i < xv.size(); ++i) {  // min / max widened to include 0
    const size_t b = static_cast<size_t>(block[i]);
    lo[b] = std::min(lo[b], xv[i]);
    hi[b] = std::max(hi[b], xv[i]);
  }
  const double qmin = static_cast<double>(range.first), qmax = static_cast<double>(range.second);
  std::vector<double> scale(lo.size()), zero_point(lo.size());
  for (size_t b = 0; b < lo.size(); ++b) {
    double s = 0, z = 0;
    if (mapping == "SYMMETRIC") {
      s = In(std::max(-lo[b], hi[b]) / In((qmax - qmin) / 2, single), single);
      z = static_cast<double>(static_cast<int64_t>((qmax + qmin + 1) / 2));
    } else if (mapping == "SYMMETRIC_NO_CLIPPING_ERR") {
      const double from_min = In(lo[b] / qmin, single), from_max = In(hi[b] / qmax, single);
      s = from_min > from_max ? from_min : from_max;
      z = static_cast<double>(static_cast<int64_t>((qmax + qmin + 1) / 2));
    } else if (mapping == "ASYMMETRIC") {
      s = std::max(In(In(hi[b] - lo[b], single) / (qmax - qmin), single), In(eps, single));
      z = std::min(std::max(qmin - std::nearbyint(In(lo[b] / s, single)), qmin), qmax);
    } else {
      return call.Invalid(absl::StrCat("unknown mapping_type '", mapping, "'"));
    }
    scale[b] = std::max(s, In(eps, single));
    zero_point[b] = z;
  }
  bool keepdim = false;
  if (call.Has("keepdim")) {
    PT2ONNX_ASSIGN_OR_RETURN(keepdim, call.Bool("keepdim"));
  }
  // keepdim: the blocks' grid; otherwise the grid without the dims reduced over whole.
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> block_size, call.Ints("block_size"));
  Dims out_dims;
  for (size_t d = 0; d < grid.size(); ++d) {
    if (keepdim || block_size[d] == 1) out_dims.push_back(grid[d]);
    else if (block_size[d] != x.dims()[d]) out_dims.push_back(grid[d]);
  }
  DataType scale_dtype = call.OutputDtype(0), zp_dtype = call.OutputDtype(1);
  if (scale_dtype == DataType::kUndefined) scale_dtype = x.dtype();
  if (zp_dtype == DataType::kUndefined) zp_dtype = DataType::kInt32;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor s, FromDoubles(scale_dtype, out_dims, scale));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor z, FromDoubles(zp_dtype, out_dims, zero_point));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(s)));
  return call.SetTensor(std::move(z));
}

}  // namespace

void RegisterTorchaoQuantizationRef(RefRegistry& r) {
  r.Add("torchao::quantize_affine.default", QuantizeAffine);
  r.Add("torchao::dequantize_affine.default", DequantizeAffine);
  r.Add("torchao::choose_qparams_affine.default", ChooseQparamsAffine);
}

}  // namespace pt2onnx::reference
