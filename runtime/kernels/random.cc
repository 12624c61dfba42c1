// File: runtime/kernels/random.cc
// -----------------------------------------------------------------------------
// RandomUniformLike / RandomNormalLike: a tensor of the input's shape drawn
// from U[low, high) or N(mean, scale^2). The generator is xoshiro256**,
// seeded from the `seed` attribute or, without one, from the node's name, so
// a session's draws are reproducible run after run of the program while each
// run of a node still draws anew. No draw can equal torch's (another generator).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

class Xoshiro256 {
 public:
  void Seed(uint64_t seed) {
    for (uint64_t& s : state_) {  // splitmix64 expands the seed
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4] = {};
};

constexpr double kTwoPi = 6.283185307179586;

uint64_t NameHash(const std::string& name) {  // FNV-1a
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

template <bool kNormal>
class RandomLikeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const ir::Node& n = info.node;
    const char* name = kNormal ? "RandomNormalLike" : "RandomUniformLike";
    if (HasAttr(n, "dtype")) {
      dtype_ = static_cast<DataType>(AttrInt(n, "dtype", 0));
      if (dtype_ != DataType::kFloat && dtype_ != DataType::kDouble) {
        return absl::UnimplementedError(absl::StrCat(name, ": dtype attribute ", DataTypeName(dtype_),
                                                     " is not supported (float32 and float64 are)"));
      }
      has_dtype_ = true;
    }
    a_ = AttrFloat(n, kNormal ? "mean" : "low", 0.0f);
    b_ = AttrFloat(n, kNormal ? "scale" : "high", 1.0f);
    // The seed's bits, not its value: any float (NaN, huge) is a valid seed.
    uint32_t seed_bits = 0;
    const float seed = AttrFloat(n, "seed", 0);
    std::memcpy(&seed_bits, &seed, sizeof(seed_bits));
    generator_.Seed(HasAttr(n, "seed") ? seed_bits : NameHash(n.name));
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(like, 0);
    const DataType dtype = has_dtype_ ? dtype_ : like.dtype();
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, dtype, like.dims()));
    return VisitDtype(dtype, kFloats, kNormal ? "RandomNormalLike" : "RandomUniformLike", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        T* po = (out)->data<T>();
        const int64_t n = (out)->numel();
        for (int64_t i = 0; i < n; ++i) {
          T v = static_cast<T>(Draw());
          // Narrowing can round a uniform draw up to `high`: draw again.
          while (!kNormal && b_ > a_ && v >= static_cast<T>(b_)) v = static_cast<T>(Draw());
          po[i] = v;
        }
      }
    });
  }

 private:
  double Draw() {
    if (!kNormal) return a_ + (b_ - a_) * generator_.NextUnit();
    if (has_spare_) {
      has_spare_ = false;
      return a_ + b_ * spare_;
    }
    // Box-Muller: 1 - u lies in (0, 1], so the log is finite.
    const double u = 1.0 - generator_.NextUnit();
    const double v = generator_.NextUnit();
    const double r = std::sqrt(-2.0 * std::log(u));
    spare_ = r * std::sin(kTwoPi * v);
    has_spare_ = true;
    return a_ + b_ * r * std::cos(kTwoPi * v);
  }

  DataType dtype_ = DataType::kFloat;
  bool has_dtype_ = false;
  double a_ = 0, b_ = 1;
  Xoshiro256 generator_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace

extern const KernelRegistration kRandomKernels[] = {
    {"RandomUniformLike", MakeKernel<RandomLikeKernel<false>>, HalfMode::kNative},
    {"RandomNormalLike", MakeKernel<RandomLikeKernel<true>>, HalfMode::kNative},
};
extern const size_t kNumRandomKernels = sizeof(kRandomKernels) / sizeof(kRandomKernels[0]);

}  // namespace pt2onnx::runtime
