// File: reference/random_draws.h
// -----------------------------------------------------------------------------
// The reference interpreter's random numbers, shared by the random kernels
// (random.cc, distributions.cc, dropout.cc, attention.cc): a fixed,
// portable splitmix64 stream and the marking of a drawn result as not
// comparable (its values can match neither torch's generator nor the ONNX
// model's; shape and dtype still can, and the distribution is torch's).
//
//   RandomStream s;
//   StoreDouble(t, i, s.Normal());
//   return SetRandom(call, std::move(t));
#ifndef PT2ONNX_REFERENCE_RANDOM_DRAWS_H_
#define PT2ONNX_REFERENCE_RANDOM_DRAWS_H_

#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"

namespace pt2onnx::reference {

// splitmix64 from a fixed seed: every kernel call draws the same stream.
class RandomStream {
 public:
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // U[0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // N(0, 1) by Box-Muller; 1 - u lies in (0, 1], so the log is finite.
  double Normal() {
    const double u = 1 - Uniform(), v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }

 private:
  uint64_t state_ = 0x9E3779B97F4A7C15ull;
};

// Sets `t` as the call's next result, marked not comparable.
inline absl::Status SetRandom(RefCall& call, Tensor t) {
  RefValue v = RefValue::OfTensor(std::move(t));
  v.not_comparable = absl::StrCat("random values (", call.key(), ") cannot match torch's or the ONNX model's");
  return call.Set(std::move(v));
}

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_RANDOM_DRAWS_H_
