// File: runtime/kernels/xnn_int8.h
// -----------------------------------------------------------------------------
// What the int8 kernels of kernels/xnn_int8.cc and kernels/xnn_int8_im2col.cc
// share: a step's quantization parameters (attributes written by
// plan/qdq_int8.cc), the packed per-channel scales and bias, and the per-row
// parameters of XNNPACK's float-output (qd8_f32_qc8w) operators.
#ifndef PT2ONNX_RUNTIME_KERNELS_XNN_INT8_H_
#define PT2ONNX_RUNTIME_KERNELS_XNN_INT8_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/xnn_util.h"
#include "xnnpack.h"

namespace pt2onnx::runtime {

inline constexpr float kInf = std::numeric_limits<float>::infinity();

// The quantization of a step's input and output.
struct Quant {
  float x_scale, y_scale;
  int8_t x_zero, y_zero, y_min, y_max;
};

Quant ReadQuant(const ir::Node& node);

// Weight scales per output channel and the int32 bias (zeros without one).
struct PackedScales {
  std::vector<float> scales;
  std::vector<int32_t> bias;
  std::vector<float> float_bias;  // for a float output
};

// Constant inputs 2 (scales: one, or one per channel) and 3 (float bias, optional) of `info`,
// the bias quantized with the scale x_scale * w_scale[c].
absl::StatusOr<PackedScales> PackScalesAndBias(const KernelCreateInfo& info, int64_t channels, float x_scale);

// Input 0 of an int8 convolution: int8 [N, H, W, channels], else an error naming both.
absl::StatusOr<const Tensor*> NhwcInt8Input(KernelContext& ctx, int64_t channels);

// With a float output (qd8_f32_qc8w) the input's static parameters are handed to
// XNNPACK per row, as a dynamically quantized input's would be: `rows` grown to n.
std::vector<xnn_quantization_params>& RowParams(std::vector<xnn_quantization_params>& rows, size_t n,
                                                const Quant& q);

// Where each output pixel's window lies in the input of a convolution.
struct ConvWindow {
  int64_t kh, kw, sh, sw, dh, dw, top, left, bottom, right;
  int64_t OutSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pad0, int64_t pad1) const {
    const int64_t span = in + pad0 + pad1 - d * (k - 1) - 1;
    return span < 0 ? 0 : span / s + 1;
  }
};

// A one-group convolution of `c` input channels (fewer than 8) as im2col and one int8 fully
// connected product; `kernel` is the weights as [m, kh, kw, c].
absl::StatusOr<std::unique_ptr<OpKernel>> CreateQConvIm2col(const std::vector<int8_t>& kernel, int64_t c,
                                                            int64_t m, const ConvWindow& win,
                                                            const PackedScales& packed, bool float_out,
                                                            const Quant& q);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_XNN_INT8_H_
