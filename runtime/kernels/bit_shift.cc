// File: runtime/kernels/bit_shift.cc
// -----------------------------------------------------------------------------
// BitShift (opset 11): x << y or x >> y (attribute direction), broadcasting,
// on the unsigned integer dtypes ONNX defines it for. ONNX leaves a shift by
// the width or more undefined; here it gives 0, never C++'s undefined
// behaviour (the translations mask such amounts before they get here).
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

class BitShiftKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const std::string direction = AttrString(info.node, "direction", "");
    if (direction != "LEFT" && direction != "RIGHT") {
      return absl::InvalidArgumentError(
          absl::StrCat("BitShift: direction must be LEFT or RIGHT, got '", direction, "'"));
    }
    left_ = direction == "LEFT";
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(a, 0);
    PT2ONNX_INPUT(b, 1);
    if (a.dtype() != b.dtype()) return absl::InvalidArgumentError("BitShift: input dtypes differ");
    PT2ONNX_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.dims(), b.dims()));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, a.dtype(), dims));
    std::vector<int64_t> strides[2] = {BroadcastStrides(a.dims(), dims), BroadcastStrides(b.dims(), dims)};
    absl::Status unsigned_only = absl::OkStatus();
    PT2ONNX_RETURN_IF_ERROR(VisitDtype(a.dtype(), kInts, "BitShift", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
        constexpr T kWidth = static_cast<T>(8 * sizeof(T));
        const T* pa = a.data<T>();
        const T* pb = b.data<T>();
        T* po = (out)->data<T>();
        const bool left = left_;
        ForEachBroadcast(dims, strides, [&](int64_t i, const int64_t* o) {
          const T x = pa[o[0]], y = pb[o[1]];
          po[i] = y >= kWidth ? T{0} : static_cast<T>(left ? x << y : x >> y);
        });
      } else {
        unsigned_only = absl::UnimplementedError(
            absl::StrCat("BitShift on ", DataTypeName(a.dtype()), " (ONNX defines it for unsigned integers)"));
      }
    }));
    return unsigned_only;
  }

 private:
  bool left_ = true;
};

}  // namespace

extern const KernelRegistration kBitShiftKernels[] = {
    {"BitShift", MakeKernel<BitShiftKernel>, HalfMode::kNative},
};
extern const size_t kNumBitShiftKernels = sizeof(kBitShiftKernels) / sizeof(kBitShiftKernels[0]);

}  // namespace pt2onnx::runtime
