#include "core/ir/half.h"

#include <cstring>

namespace pt2onnx::ir {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

}  // namespace

uint16_t FloatToBFloat16(float value) {
  uint32_t u = Bits(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

float BFloat16ToFloat(uint16_t bits) { return FromBits(static_cast<uint32_t>(bits) << 16); }

uint16_t FloatToHalf(float value) {
  uint32_t u = Bits(value);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): scale so the integer part holds the mantissa.
    float scaled = FromBits(abs) * 16777216.0f;  // 2^24
    uint32_t m = static_cast<uint32_t>(scaled);
    float rem = scaled - static_cast<float>(m);
    if (rem > 0.5f || (rem == 0.5f && (m & 1u))) ++m;
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t exp = ((abs >> 23) - 112u) << 10;
  uint32_t mant = abs & 0x7fffffu;
  uint32_t half = exp | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float HalfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0) {
    float f = static_cast<float>(mant) / 16777216.0f;  // mant * 2^-24
    return sign ? -f : f;
  }
  if (exp == 31) return FromBits(sign | 0x7f800000u | (mant << 13));
  return FromBits(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace pt2onnx::ir
