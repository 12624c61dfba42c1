// File: runtime/kernels/det.cc
// -----------------------------------------------------------------------------
// Det(x): determinants of the trailing (M, M) matrices of x (..., M, M), by
// LU decomposition with partial pivoting, computed in double.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

double Determinant(std::vector<double>& a, int64_t m) {
  double det = 1.0;
  for (int64_t col = 0; col < m; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < m; ++r) {
      if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col])) pivot = r;
    }
    if (a[pivot * m + col] == 0.0) return 0.0;
    if (pivot != col) {
      for (int64_t c = 0; c < m; ++c) std::swap(a[pivot * m + c], a[col * m + c]);
      det = -det;
    }
    const double p = a[col * m + col];
    det *= p;
    for (int64_t r = col + 1; r < m; ++r) {
      const double f = a[r * m + col] / p;
      for (int64_t c = col + 1; c < m; ++c) a[r * m + c] -= f * a[col * m + c];
    }
  }
  return det;
}

class DetKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2)) {
      return absl::InvalidArgumentError(absl::StrCat("Det: input must be (..., M, M), got ", DimsString(x.dims())));
    }
    const int64_t m = x.dim(x.rank() - 1);
    Dims out_dims(x.dims().begin(), x.dims().end() - 2);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    return VisitDtype(x.dtype(), kFloats, "Det", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        std::vector<double> a(static_cast<size_t>(m * m));
        for (int64_t b = 0; b < (out)->numel(); ++b) {
          for (int64_t i = 0; i < m * m; ++i) a[i] = px[b * m * m + i];
          po[b] = static_cast<T>(Determinant(a, m));
        }
      }
    });
  }
};

}  // namespace

extern const KernelRegistration kDetKernels[] = {
    {"Det", MakeKernel<DetKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumDetKernels = sizeof(kDetKernels) / sizeof(kDetKernels[0]);

}  // namespace pt2onnx::runtime
