#include "core/archive/crc32_clmul.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PT2ONNX_CRC32_CLMUL 1
#endif

namespace pt2onnx::archive {

#ifdef PT2ONNX_CRC32_CLMUL
namespace {

#define PT2ONNX_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

// Constants for the reflected polynomial: x^(4*128+32), x^(4*128-32) mod P
// (folding four blocks ahead), x^(128+32), x^(128-32) mod P (one block),
// x^64 mod P (the 64 -> 32 bit step), and Barrett's P' and floor(x^64 / P).
constexpr int64_t kFold4Low = 0x154442bd4, kFold4High = 0x1c6e41596;
constexpr int64_t kFold1Low = 0x1751997d0, kFold1High = 0x0ccaa009e;
constexpr int64_t kFold64 = 0x163cd6124;
constexpr int64_t kPoly = 0x1db710641, kBarrettMu = 0x1f7011641;

PT2ONNX_CLMUL_TARGET inline __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// x (128 bits) times x^128 mod P, plus `next`: x's low and high halves meet
// the two constants of `k`.
PT2ONNX_CLMUL_TARGET inline __m128i Fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

PT2ONNX_CLMUL_TARGET uint32_t Fold16(uint32_t crc, const uint8_t* p, size_t n) {
  const __m128i fold4 = _mm_set_epi64x(kFold4High, kFold4Low);
  const __m128i fold1 = _mm_set_epi64x(kFold1High, kFold1Low);
  const __m128i fold64 = _mm_set_epi64x(0, kFold64);
  const __m128i barrett = _mm_set_epi64x(kBarrettMu, kPoly);
  const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
  // Four independent lanes hide the multiplier's latency.
  __m128i x0 = _mm_xor_si128(Load(p), _mm_cvtsi32_si128(static_cast<int>(crc)));
  __m128i x1 = Load(p + 16), x2 = Load(p + 32), x3 = Load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x0 = Fold(x0, fold4, Load(p));
    x1 = Fold(x1, fold4, Load(p + 16));
    x2 = Fold(x2, fold4, Load(p + 32));
    x3 = Fold(x3, fold4, Load(p + 48));
  }
  x0 = Fold(x0, fold1, x1);
  x0 = Fold(x0, fold1, x2);
  x0 = Fold(x0, fold1, x3);
  for (; n >= 16; p += 16, n -= 16) x0 = Fold(x0, fold1, Load(p));
  // 128 -> 64 bits (appending 32 zero bits), then 64 -> 32.
  x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), _mm_clmulepi64_si128(x0, fold1, 0x10));
  x0 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x0, low32), fold64, 0x00),
                     _mm_srli_si128(x0, 4));
  // Barrett reduction to the 32-bit remainder.
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), barrett, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(t, x0), 1));
}

}  // namespace

bool Crc32ClmulAvailable() {
  static const bool available =
      __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return available;
}

uint32_t Crc32ClmulFold(uint32_t crc, const uint8_t* data, size_t length) {
  return Fold16(crc, data, length);
}

#else

bool Crc32ClmulAvailable() { return false; }
uint32_t Crc32ClmulFold(uint32_t crc, const uint8_t*, size_t) { return crc; }

#endif

}  // namespace pt2onnx::archive
