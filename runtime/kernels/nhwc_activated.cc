// File: runtime/kernels/nhwc_activated.cc
// -----------------------------------------------------------------------------
// An Add or Mul of the NHWC plan with the Relu / Clip that was its only reader
// (plan/nhwc_layout.h): the elementwise kernel runs, then the activation is
// applied to its output in place, saving the activation's step and buffer.
// The activation keeps the portable kernels' numbers: NaN stays NaN, Relu
// gives +0 for -0.
#include <limits>
#include <memory>

#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

class ActivatedKernel : public OpKernel {
 public:
  ActivatedKernel(std::unique_ptr<OpKernel> inner, bool relu, float lo, float hi)
      : inner_(std::move(inner)), relu_(relu), lo_(lo), hi_(hi) {}
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_RETURN_IF_ERROR(inner_->Run(ctx));
    Tensor& y = ctx.outputs()[0];
    if (y.dtype() != DataType::kFloat) return absl::InvalidArgumentError("a fused activation needs float32 values");
    const float* src = y.data<float>();
    if (y.buffer().use_count() > 1) {  // the output aliases a value: write a new one
      PT2ONNX_ASSIGN_OR_RETURN(auto fresh, Tensor::Allocate(DataType::kFloat, y.dims(), ctx.pool()));
      Apply(src, fresh.data<float>(), y.numel());
      y = std::move(fresh);
      return absl::OkStatus();
    }
    Apply(src, y.data<float>(), y.numel());
    return absl::OkStatus();
  }

 private:
  void Apply(const float* x, float* out, int64_t n) const {
    if (relu_) {
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] <= 0.0f ? 0.0f : x[i];
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      if (v < lo_) v = lo_;
      if (v > hi_) v = hi_;
      out[i] = v;
    }
  }

  std::unique_ptr<OpKernel> inner_;
  bool relu_;
  float lo_, hi_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateNhwcActivatedKernel(const KernelCreateInfo& info) {
  const std::string& op = info.node.op_type;
  if (op != "Add" && op != "Mul") return std::unique_ptr<OpKernel>();
  PT2ONNX_ASSIGN_OR_RETURN(auto inner, CreateXnnElementwiseKernel(info));
  if (inner == nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(inner, FindKernel(op)->factory(info));
  }
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const bool relu = AttrString(info.node, "activation", "") == "Relu";
  return std::unique_ptr<OpKernel>(new ActivatedKernel(std::move(inner), relu, AttrFloat(info.node, "output_min", -kInf),
                                                       AttrFloat(info.node, "output_max", kInf)));
}

}  // namespace pt2onnx::runtime
