// File: core/checked_math.h
// -----------------------------------------------------------------------------
// Overflow-checked int64 arithmetic for integers read from a file (sizes,
// strides, offsets, steps, pads, dims). Signed overflow is undefined
// behaviour in C++, so every sum or product of attacker-chosen integers goes
// through one of these: nullopt means "does not fit in int64".
//
//   std::optional<int64_t> end = CheckedAdd(start, length);
//   if (!end) return ctx.Invalid("start + length overflows int64");
//
// Header-only (compiler builtins, gcc and clang, native and wasm).
#ifndef PT2ONNX_CORE_CHECKED_MATH_H_
#define PT2ONNX_CORE_CHECKED_MATH_H_

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace pt2onnx {

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The product of `values` (1 for none), nullopt on overflow.
inline std::optional<int64_t> CheckedProduct(std::initializer_list<int64_t> values) {
  int64_t r = 1;
  for (int64_t v : values) {
    if (__builtin_mul_overflow(r, v, &r)) return std::nullopt;
  }
  return r;
}

// -a, nullopt for INT64_MIN.
inline std::optional<int64_t> CheckedNeg(int64_t a) { return CheckedSub(0, a); }

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_CHECKED_MATH_H_
