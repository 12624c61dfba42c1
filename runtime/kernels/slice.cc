// File: runtime/kernels/slice.cc
// -----------------------------------------------------------------------------
// Slice (negative starts/ends/steps, clamped as the ONNX spec says), Shape
// (start/end attributes) and Size.
#include <algorithm>
#include <cstdint>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

class SliceKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(starts_t, 1);
    PT2ONNX_INPUT(ends_t, 2);
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> starts, ReadInts(starts_t, "Slice starts"));
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ReadInts(ends_t, "Slice ends"));
    const size_t n = starts.size();
    std::vector<int64_t> axes(n), steps(n, 1);
    for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
    if (ctx.input(3) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(3), "Slice axes"));
      axes = read;
    }
    if (ctx.input(4) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(4), "Slice steps"));
      steps = read;
    }
    if (ends.size() != n || axes.size() != n || steps.size() != n) {
      return absl::InvalidArgumentError("Slice: starts, ends, axes and steps differ in length");
    }
    Dims dims = x.dims();
    std::vector<int64_t> in_strides = ContiguousStrides(x.dims());
    std::vector<int64_t> strides = in_strides;
    int64_t offset = 0;
    std::vector<bool> seen(x.rank(), false);
    for (size_t i = 0; i < n; ++i) {
      PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axes[i], x.rank(), "Slice axis"));
      if (seen[axis]) return absl::InvalidArgumentError("Slice: repeated axis");
      seen[axis] = true;
      const int64_t len = x.dim(axis), step = steps[i];
      if (step == 0) return absl::InvalidArgumentError("Slice: step 0");
      int64_t s = starts[i], e = ends[i];
      if (step == INT64_MIN) return absl::InvalidArgumentError("Slice: step out of range");
      // Negative indices count from the end; then clamp as the ONNX spec says.
      auto adjust = [&](int64_t v, int64_t lo, int64_t hi) {
        if (v < 0) v += len;
        return std::max(lo, std::min(hi, v));
      };
      if (step > 0) {
        s = adjust(s, 0, len);
        e = adjust(e, 0, len);
        dims[axis] = e > s ? (e - s - 1) / step + 1 : 0;
      } else {
        s = adjust(s, 0, len - 1);
        e = adjust(e, -1, len - 1);
        dims[axis] = s > e ? (s - e - 1) / (-step) + 1 : 0;
      }
      offset += dims[axis] > 0 ? s * in_strides[axis] : 0;
      strides[axis] = in_strides[axis] * step;
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    StridedCopy(x, offset, strides, *out);
    return absl::OkStatus();
  }
};

class ShapeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    start_ = AttrInt(info.node, "start", 0);
    end_ = HasAttr(info.node, "end") ? AttrInt(info.node, "end", 0) : INT64_MAX;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    const int64_t rank = x.rank();
    auto clamp = [&](int64_t v) { return std::max<int64_t>(0, std::min(rank, v < 0 ? v + rank : v)); };
    const int64_t s = clamp(start_), e = clamp(end_);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kInt64, {std::max<int64_t>(0, e - s)}));
    for (int64_t i = s; i < e; ++i) (out)->data<int64_t>()[i - s] = x.dim(i);
    return absl::OkStatus();
  }

 private:
  int64_t start_ = 0, end_ = INT64_MAX;
};

// Size: the element count as a 0-d INT64 (ONNX Size-13/21).
class SizeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kInt64, {}));
    out->data<int64_t>()[0] = x.numel();
    return absl::OkStatus();
  }
};

}  // namespace

extern const KernelRegistration kSliceKernels[] = {
    {"Slice", MakeKernel<SliceKernel>, HalfMode::kNative},
    {"Shape", MakeKernel<ShapeKernel>, HalfMode::kNative},
    {"Size", MakeKernel<SizeKernel>, HalfMode::kNative},
};
extern const size_t kNumSliceKernels = sizeof(kSliceKernels) / sizeof(kSliceKernels[0]);

}  // namespace pt2onnx::runtime
