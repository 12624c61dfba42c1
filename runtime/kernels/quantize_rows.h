// File: runtime/kernels/quantize_rows.h
// -----------------------------------------------------------------------------
// Per-tensor 8-bit QuantizeLinear and DequantizeLinear over a contiguous row,
// with ONNX's numbers (kernels/quantize_linear.cc): the loops the int8 plan's
// boundaries spend their time in, in a file of their own so that they are
// compiled as plain vectorisable loops (written inside the kernel's dtype
// lambda GCC left them scalar: 1.2 ns an element).
#ifndef PT2ONNX_RUNTIME_KERNELS_QUANTIZE_ROWS_H_
#define PT2ONNX_RUNTIME_KERNELS_QUANTIZE_ROWS_H_

#include <cstdint>

namespace pt2onnx::runtime {

// y = saturate(round_half_even(x / scale) + zero_point); NaN -> 0.
void QuantizeRow(const float* x, int8_t* y, int64_t n, float scale, int32_t zero_point);
void QuantizeRow(const float* x, uint8_t* y, int64_t n, float scale, int32_t zero_point);
// y = (x - zero_point) * scale.
void DequantizeRow(const int8_t* x, float* y, int64_t n, float scale, int32_t zero_point);
void DequantizeRow(const uint8_t* x, float* y, int64_t n, float scale, int32_t zero_point);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_QUANTIZE_ROWS_H_
