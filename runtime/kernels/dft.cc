// File: runtime/kernels/dft.cc
// -----------------------------------------------------------------------------
// DFT(x, dft_length?, axis?): the discrete Fourier transform along one axis
// of x (..., 1) real or (..., 2) complex; the output is complex (..., 2).
// `inverse` divides by n; `onesided` keeps the n/2 + 1 first frequencies.
// The axis is an input from opset 20, an attribute (default 1) before.
// Direct O(n^2) sums in double with an exact twiddle table (j*k mod n).
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr int64_t kMaxLength = int64_t{1} << 24;  // the direct sum is O(n^2) anyway

class DftKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    inverse_ = AttrInt(info.node, "inverse", 0) != 0;
    onesided_ = AttrInt(info.node, "onesided", 0) != 0;
    axis_input_ = info.opset >= 20;
    axis_ = axis_input_ ? -2 : AttrInt(info.node, "axis", 1);
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    const int64_t rank = x.rank();
    if (rank < 2 || (x.dim(rank - 1) != 1 && x.dim(rank - 1) != 2)) {
      return absl::InvalidArgumentError("DFT: input must be (..., 1) real or (..., 2) complex, got " +
                                        DimsString(x.dims()));
    }
    int64_t axis = axis_;
    if (axis_input_ && ctx.input(2) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(2), "DFT axis"));
      if (read.size() != 1) return absl::InvalidArgumentError("DFT: axis must be a scalar");
      axis = (read)[0];
    }
    // The signal dims are all but the last (real, imaginary) one.
    if (axis < -rank || axis >= rank - 1 || axis == -1) {
      return absl::InvalidArgumentError(absl::StrCat("DFT: axis ", axis, " is out of range for rank ", rank));
    }
    if (axis < 0) axis += rank;
    const int64_t n_in = x.dim(axis);
    int64_t n = n_in;
    if (ctx.input(1) != nullptr && ctx.input(1)->numel() > 0) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(1), "DFT dft_length"));
      if (read.size() != 1 || (read)[0] < 1 || (read)[0] > kMaxLength) {
        return absl::InvalidArgumentError(absl::StrCat("DFT: dft_length must be in [1, ", kMaxLength, "]"));
      }
      n = (read)[0];
    }
    if (n < 1) return absl::InvalidArgumentError("DFT: the transformed length is 0");
    const int64_t n_out = onesided_ ? n / 2 + 1 : n;
    Dims out_dims = x.dims();
    out_dims[axis] = n_out;
    out_dims[rank - 1] = 2;
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    const bool complex_in = x.dim(rank - 1) == 2;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis + 1; d < rank - 1; ++d) inner *= x.dim(d);
    // cos/sin of 2*pi*m/n for m in [0, n): indexing by (j*k) mod n keeps the angle exact.
    std::vector<double> cosines(n), sines(n);
    for (int64_t m = 0; m < n; ++m) {
      cosines[m] = std::cos(kTwoPi * static_cast<double>(m) / static_cast<double>(n));
      sines[m] = std::sin(kTwoPi * static_cast<double>(m) / static_cast<double>(n));
    }
    const double sign = inverse_ ? 1.0 : -1.0;
    const int64_t used = n < n_in ? n : n_in;  // shorter signals are zero-padded
    return VisitDtype(x.dtype(), kFloats, "DFT", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        const int64_t c_in = complex_in ? 2 : 1;
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t in = 0; in < inner; ++in) {
            for (int64_t k = 0; k < n_out; ++k) {
              double re = 0, im = 0;
              int64_t m = 0;  // j * k mod n
              for (int64_t j = 0; j < used; ++j, m = (m + k) % n) {
                const T* v = px + ((o * n_in + j) * inner + in) * c_in;
                const double a = v[0], b = complex_in ? static_cast<double>(v[1]) : 0.0;
                const double c = cosines[m], s = sign * sines[m];
                re += a * c - b * s;
                im += a * s + b * c;
              }
              if (inverse_) {
                re /= static_cast<double>(n);
                im /= static_cast<double>(n);
              }
              T* w = po + ((o * n_out + k) * inner + in) * 2;
              w[0] = static_cast<T>(re);
              w[1] = static_cast<T>(im);
            }
          }
        }
      }
    });
  }

 private:
  bool inverse_ = false, onesided_ = false, axis_input_ = true;
  int64_t axis_ = -2;
};

}  // namespace

extern const KernelRegistration kDftKernels[] = {
    {"DFT", MakeKernel<DftKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumDftKernels = sizeof(kDftKernels) / sizeof(kDftKernels[0]);

}  // namespace pt2onnx::runtime
