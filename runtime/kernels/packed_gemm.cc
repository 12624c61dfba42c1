// File: runtime/kernels/packed_gemm.cc
// -----------------------------------------------------------------------------
// The portable PackedGemm and the choice between it and XNNPACK's.
#include "runtime/kernels/packed_gemm.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/kernels/accelerated.h"

namespace pt2onnx::runtime {
namespace {

// W kept transposed ([k, n]): each input value scales one contiguous row of
// it into the output row, a loop the compiler vectorises.
template <typename T>
class PortableGemm : public PackedGemm<T> {
 public:
  PortableGemm(const T* w, const T* bias, int64_t n, int64_t k)
      : n_(n), k_(k), wt_(static_cast<size_t>(n * k)), bias_(static_cast<size_t>(n), T(0)) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < k; ++i) wt_[i * n + j] = w[j * k + i];
    }
    if (bias != nullptr) std::copy(bias, bias + n, bias_.begin());
  }

  absl::Status Run(const T* x, int64_t m, T* y, pthreadpool_t) override {
    for (int64_t r = 0; r < m; ++r) {
      const T* in = x + r * k_;
      T* out = y + r * n_;
      std::copy(bias_.begin(), bias_.end(), out);
      for (int64_t i = 0; i < k_; ++i) {
        const T v = in[i];
        const T* row = wt_.data() + i * n_;
        for (int64_t j = 0; j < n_; ++j) out[j] += row[j] * v;
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t n_, k_;
  std::vector<T> wt_;
  std::vector<T> bias_;
};

}  // namespace

std::unique_ptr<PackedGemm<float>> CreatePackedGemm(const float* w, const float* bias, int64_t n, int64_t k,
                                                    bool accelerate) {
  if (accelerate && k > 0) {
    std::unique_ptr<PackedGemm<float>> fast = CreateXnnPackedGemm(w, bias, n, k);
    if (fast != nullptr) return fast;
  }
  return std::make_unique<PortableGemm<float>>(w, bias, n, k);
}

std::unique_ptr<PackedGemm<double>> CreatePackedGemm(const double* w, const double* bias, int64_t n, int64_t k,
                                                     bool) {
  return std::make_unique<PortableGemm<double>>(w, bias, n, k);
}

}  // namespace pt2onnx::runtime
