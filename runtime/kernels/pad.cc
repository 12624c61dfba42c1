// File: runtime/kernels/pad.cc
// -----------------------------------------------------------------------------
// Pad(data, pads, constant_value?, axes?) in the modes constant / reflect /
// edge / wrap. Negative pads crop. Values are moved as bytes, so every dtype
// (float16 and bfloat16 included) is handled.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// The source index along a dim of length n for output index i - begin, or -1
// where the constant fills it.
int64_t SourceIndex(PadMode mode, int64_t i, int64_t n) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant: return -1;
    case PadMode::kEdge: return i < 0 ? 0 : n - 1;
    case PadMode::kWrap: return ((i % n) + n) % n;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      int64_t r = ((i % period) + period) % period;
      return r < n ? r : period - r;
    }
  }
  return -1;
}

class PadKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const std::string mode = AttrString(info.node, "mode", "constant");
    if (mode == "constant") mode_ = PadMode::kConstant;
    else if (mode == "reflect") mode_ = PadMode::kReflect;
    else if (mode == "edge") mode_ = PadMode::kEdge;
    else if (mode == "wrap") mode_ = PadMode::kWrap;
    else return absl::UnimplementedError("Pad: mode '" + mode + "' is not supported");
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(pads_tensor, 1);
    PT2ONNX_ASSIGN_OR_RETURN(auto pads, ReadInts(pads_tensor, "Pad pads"));
    const int64_t rank = x.rank();
    std::vector<int64_t> axes;
    if (ctx.input(3) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(3), "Pad axes"));
      for (int64_t a : read) {
        PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(a, rank, "Pad axis"));
        axes.push_back(axis);
      }
    } else {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    const int64_t k = static_cast<int64_t>(axes.size());
    if (static_cast<int64_t>(pads.size()) != 2 * k) {
      return absl::InvalidArgumentError(absl::StrCat("Pad: pads has ", pads.size(), " values for ", k, " axes"));
    }
    std::vector<int64_t> begin(rank, 0);
    Dims out_dims = x.dims();
    for (int64_t j = 0; j < k; ++j) {
      const int64_t d = axes[j], lo = (pads)[j], hi = (pads)[j + k];
      constexpr int64_t kLimit = int64_t{1} << 40;
      if (lo < -kLimit || lo > kLimit || hi < -kLimit || hi > kLimit) {
        return absl::InvalidArgumentError("Pad: a pad is out of range");
      }
      begin[d] = lo;
      out_dims[d] += lo + hi;
      if (out_dims[d] < 0) return absl::InvalidArgumentError("Pad: pads crop a dim below zero");
      if (mode_ != PadMode::kConstant && x.dim(d) == 0 && out_dims[d] > 0) {
        return absl::InvalidArgumentError("Pad: cannot pad an empty dim in reflect/edge/wrap mode");
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    const int size = ElementSize(x.dtype());
    std::vector<uint8_t> fill(size, 0);
    const Tensor* value = ctx.input(2);
    if (value != nullptr && value->numel() > 0) {
      if (value->dtype() != x.dtype()) return absl::InvalidArgumentError("Pad: constant_value dtype differs from data");
      std::memcpy(fill.data(), value->raw(), size);
    }
    const int64_t total = (out)->numel();
    if (total == 0) return absl::OkStatus();
    const std::vector<int64_t> in_strides = ContiguousStrides(x.dims());
    std::vector<int64_t> index(rank, 0);
    uint8_t* po = (out)->raw();
    const uint8_t* px = x.raw();
    for (int64_t linear = 0; linear < total; ++linear) {
      int64_t src = 0;
      for (int64_t d = 0; d < rank && src >= 0; ++d) {
        const int64_t s = SourceIndex(mode_, index[d] - begin[d], x.dim(d));
        src = s < 0 ? -1 : src + s * in_strides[d];
      }
      std::memcpy(po + linear * size, src < 0 ? fill.data() : px + src * size, size);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  PadMode mode_ = PadMode::kConstant;
};

}  // namespace

extern const KernelRegistration kPadKernels[] = {
    {"Pad", MakeKernel<PadKernel>, HalfMode::kNative},
};
extern const size_t kNumPadKernels = sizeof(kPadKernels) / sizeof(kPadKernels[0]);

}  // namespace pt2onnx::runtime
