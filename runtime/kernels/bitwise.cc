// File: runtime/kernels/bitwise.cc
// -----------------------------------------------------------------------------
// BitwiseAnd / BitwiseOr / BitwiseXor (broadcasting) and BitwiseNot, on the
// integer dtypes (ONNX defines them for integers only).
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class BitOp { kAnd, kOr, kXor };

template <BitOp kOp>
class BitwiseBinaryKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(a, 0);
    PT2ONNX_INPUT(b, 1);
    const char* name = kOp == BitOp::kAnd ? "BitwiseAnd" : (kOp == BitOp::kOr ? "BitwiseOr" : "BitwiseXor");
    if (a.dtype() != b.dtype()) return absl::InvalidArgumentError(absl::StrCat(name, ": input dtypes differ"));
    PT2ONNX_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.dims(), b.dims()));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, a.dtype(), dims));
    std::vector<int64_t> strides[2] = {BroadcastStrides(a.dims(), dims), BroadcastStrides(b.dims(), dims)};
    return VisitDtype(a.dtype(), kInts, name, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* pa = a.data<T>();
        const T* pb = b.data<T>();
        T* po = (out)->data<T>();
        ForEachBroadcast(dims, strides, [&](int64_t i, const int64_t* o) {
          const T x = pa[o[0]], y = pb[o[1]];
          po[i] = static_cast<T>(kOp == BitOp::kAnd ? (x & y) : (kOp == BitOp::kOr ? (x | y) : (x ^ y)));
        });
      }
    });
  }
};

class BitwiseNotKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    return VisitDtype(x.dtype(), kInts, "BitwiseNot", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) po[i] = static_cast<T>(~px[i]);
      }
    });
  }
};

}  // namespace

extern const KernelRegistration kBitwiseKernels[] = {
    {"BitwiseAnd", MakeKernel<BitwiseBinaryKernel<BitOp::kAnd>>, HalfMode::kNative},
    {"BitwiseOr", MakeKernel<BitwiseBinaryKernel<BitOp::kOr>>, HalfMode::kNative},
    {"BitwiseXor", MakeKernel<BitwiseBinaryKernel<BitOp::kXor>>, HalfMode::kNative},
    {"BitwiseNot", MakeKernel<BitwiseNotKernel>, HalfMode::kNative},
};
extern const size_t kNumBitwiseKernels = sizeof(kBitwiseKernels) / sizeof(kBitwiseKernels[0]);

}  // namespace pt2onnx::runtime
