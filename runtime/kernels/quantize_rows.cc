// File: runtime/kernels/quantize_rows.cc
// -----------------------------------------------------------------------------
// The rows of kernels/quantize_rows.h. Quantize: clamping to the range minus
// the zero point before rounding gives what rounding then clamping gives (the
// bounds are integers); adding and subtracting 1.5 * 2^23 rounds half to
// even, as nearbyint does, for |v| <= 2^22.
#include "runtime/kernels/quantize_rows.h"

#include <limits>

namespace pt2onnx::runtime {
namespace {

template <typename Q>
void Quantize(const float* x, Q* y, int64_t n, float scale, int32_t zero_point) {
  constexpr float kRound = 12582912.0f;
  const float zp = static_cast<float>(zero_point);
  const float lo = static_cast<float>(std::numeric_limits<Q>::lowest()) - zp;
  const float hi = static_cast<float>(std::numeric_limits<Q>::max()) - zp;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] / scale;
    float c = v < lo ? lo : v;
    c = c > hi ? hi : c;
    c = v == v ? c : -zp;  // NaN quantizes to 0
    y[i] = static_cast<Q>(static_cast<int32_t>((c + kRound) - kRound + zp));
  }
}

template <typename Q>
void Dequantize(const Q* x, float* y, int64_t n, float scale, int32_t zero_point) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
}

}  // namespace

void QuantizeRow(const float* x, int8_t* y, int64_t n, float scale, int32_t zero_point) {
  Quantize(x, y, n, scale, zero_point);
}
void QuantizeRow(const float* x, uint8_t* y, int64_t n, float scale, int32_t zero_point) {
  Quantize(x, y, n, scale, zero_point);
}
void DequantizeRow(const int8_t* x, float* y, int64_t n, float scale, int32_t zero_point) {
  Dequantize(x, y, n, scale, zero_point);
}
void DequantizeRow(const uint8_t* x, float* y, int64_t n, float scale, int32_t zero_point) {
  Dequantize(x, y, n, scale, zero_point);
}

}  // namespace pt2onnx::runtime
