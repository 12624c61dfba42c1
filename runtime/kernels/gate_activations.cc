// File: runtime/kernels/gate_activations.cc
// -----------------------------------------------------------------------------
// Sigmoid and Tanh from one exp of a non-positive argument. Every value is
// computed on every lane and picked by bit masks: GCC (which keeps
// -ftrapping-math) moves float arithmetic under a ?: into the branch that
// needs it and then leaves the loop scalar, so ?: only picks between integers
// or values already computed. NaN stays NaN; +-inf give 0/1 and -1/1. The
// helpers are `inline` because GCC does not inline a function two loops call
// on its own, and a call leaves the loop scalar.
#include "runtime/kernels/gate_activations.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace pt2onnx::runtime {
namespace {

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
uint32_t ToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}
// All ones when `condition`, else zero.
uint32_t Mask(bool condition) { return 0u - static_cast<uint32_t>(condition); }
float Select(uint32_t mask, float if_set, float if_clear) {
  return FromBits((ToBits(if_set) & mask) | (ToBits(if_clear) & ~mask));
}

// e^y for y <= 0 (or NaN): y = n ln2 + r with |r| <= ln2 / 2, e^r by its
// Taylor polynomial to r^7 (under 0.1 ulp), 2^n built in the exponent bits.
inline float ExpNonPositive(float y) {
  // Below -104 e^y rounds to 0 in float32; the clamp keeps n in range. On
  // bits, as a float select here would keep the loop scalar (see above).
  constexpr uint32_t kMinus104 = 0xC2D00000u, kMinusInf = 0xFF800000u;
  const uint32_t bits = ToBits(y);
  const uint32_t clamp = Mask(bits > kMinus104 && bits <= kMinusInf);
  y = FromBits((bits & ~clamp) | (kMinus104 & clamp));
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float shifted = y * 1.44269504088896341f + kRound;
  const float n = shifted - kRound;
  // ln 2 in two parts; the first has 12 significant bits, so n times it is exact.
  const float r = (y - n * 0.693145751953125f) - n * 1.428606765330187e-06f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // n in [-150, 0], in two halves so that each power of two is a normal float
  // and the product still reaches the subnormals.
  const int32_t e = static_cast<int32_t>(ToBits(shifted) - ToBits(kRound));
  const int32_t e1 = e / 2, e2 = e - e1;
  const float scale1 = FromBits(static_cast<uint32_t>(e1 + 127) << 23);
  const float scale2 = FromBits(static_cast<uint32_t>(e2 + 127) << 23);
  return p * scale1 * scale2;
}

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: no overflow either side.
inline float Sigmoid(float x) {
  const float e = ExpNonPositive(-std::fabs(x));
  const float numerator = Select(Mask(x < 0), e, 1.0f);
  return numerator / (1.0f + e);
}

// Odd polynomial below |x| = 0.55, where (1 - e) / (1 + e) would lose bits
// to cancellation; its coefficients are a least-squares fit of
// (tanh(x) - x) / x^3 in x^2 (under 1 ulp on the interval).
inline float Tanh(float x) {
  const float a = std::fabs(x);
  const float e = ExpNonPositive(-2.0f * a);
  const float large = std::copysign((1.0f - e) / (1.0f + e), x);
  const float u = x * x;
  float p = -0.006356495898216963f;
  p = p * u + 0.021127240732312202f;
  p = p * u + -0.05386507883667946f;
  p = p * u + 0.13332699239253998f;
  p = p * u + -0.33333319425582886f;
  const float small = x + x * u * p;
  return Select(Mask(a >= 0.55f), large, small);  // NaN fails the test: small is NaN
}

void SigmoidInPlace(float* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) values[i] = Sigmoid(values[i]);
}
void TanhInPlace(float* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) values[i] = Tanh(values[i]);
}

}  // namespace

void ActivateInPlace(GateActivation activation, float* values, int64_t n) {
  switch (activation) {
    case GateActivation::kSigmoid:
      SigmoidInPlace(values, n);
      break;
    case GateActivation::kTanh:
      TanhInPlace(values, n);
      break;
    case GateActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) values[i] = values[i] > 0 ? values[i] : 0.0f;
      break;
  }
}

void ActivateInPlace(GateActivation activation, double* values, int64_t n) {
  switch (activation) {
    case GateActivation::kSigmoid:
      for (int64_t i = 0; i < n; ++i) values[i] = 1 / (1 + std::exp(-values[i]));
      break;
    case GateActivation::kTanh:
      for (int64_t i = 0; i < n; ++i) values[i] = std::tanh(values[i]);
      break;
    case GateActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) values[i] = values[i] > 0 ? values[i] : 0.0;
      break;
  }
}

}  // namespace pt2onnx::runtime
