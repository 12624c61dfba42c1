// File: runtime/kernels/xnn_elementwise.cc
// -----------------------------------------------------------------------------
// Elementwise, Softmax, Gelu and Transpose through XNNPACK's operator API,
// each wrapping the portable kernel it falls back to (other dtypes, ranks
// above XNNPACK's 6, a Softmax axis that is not the last, tanh Gelu).
// Add/Sub/Mul/Div and Transpose give the portable kernels' exact bits;
// Softmax and Gelu use XNNPACK's exp/erf approximations (~1 ulp).
#include <cmath>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"
#include "runtime/kernels/xnn_util.h"
#include "pthreadpool.h"
#include "xnnpack.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// Below this many elements the portable loop is as fast as setting XNNPACK up.
constexpr int64_t kSmall = 1024;

class XnnBinaryKernel : public OpKernel {
 public:
  XnnBinaryKernel(XnnOperator op, std::unique_ptr<OpKernel> fallback)
      : op_(std::move(op)), fallback_(std::move(fallback)) {}
  absl::Status Run(KernelContext& ctx) override {
    const Tensor* a = ctx.input(0);
    const Tensor* b = ctx.input(1);
    if (a == nullptr || b == nullptr || a->dtype() != DataType::kFloat || b->dtype() != DataType::kFloat ||
        a->rank() > XNN_MAX_TENSOR_DIMS || b->rank() > XNN_MAX_TENSOR_DIMS ||
        std::max(a->numel(), b->numel()) < kSmall) {
      return fallback_->Run(ctx);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a->dims(), b->dims()));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, dims));
    if ((out)->numel() == 0) return absl::OkStatus();
    if (a->dims() != a_dims_ || b->dims() != b_dims_) {
      std::vector<size_t> ad(a->dims().begin(), a->dims().end()), bd(b->dims().begin(), b->dims().end());
      pool_ = ctx.threadpool_for(static_cast<double>((out)->numel()), kMinParallelElements);
      xnn_status s = xnn_reshape_binary_elementwise_nd(op_.get(), ad.size(), ad.data(), bd.size(), bd.data(), pool_);
      if (s != xnn_status_success) return XnnError(s, "reshape binary");
      a_dims_ = a->dims();
      b_dims_ = b->dims();
    }
    xnn_status s = xnn_setup_binary_elementwise_nd(op_.get(), a->data<float>(), b->data<float>(), (out)->data<float>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "binary");
  }

 private:
  XnnOperator op_;
  std::unique_ptr<OpKernel> fallback_;
  Dims a_dims_{-1}, b_dims_{-1};
  pthreadpool_t pool_ = nullptr;  // chosen with the shapes
};

// Softmax over the last axis, or Gelu: the erf form is XNNPACK's gelu; the
// tanh form, 0.5 v (1 + tanh(u)) = v sigmoid(2u), is XNNPACK's sigmoid between
// two vectorisable loops (the portable kernel computes the same formula with
// libm's exp). Rows x channels.
//
// XNNPACK's erf gelu computes 0.5 v (1 + erf(v / sqrt2)), which cancels in the
// negative tail (relative error 3e-1 at v = -4.5, garbage below -5, against
// 4e-6 at -2); values below kGeluTail are recomputed as the portable kernel
// does, 0.5 v erfc(-v / sqrt2), which does not cancel.
constexpr float kGeluTail = -2.0f;
class XnnRowKernel : public OpKernel {
 public:
  XnnRowKernel(XnnOperator op, bool softmax, int64_t axis, std::unique_ptr<OpKernel> fallback, bool tanh_gelu = false)
      : op_(std::move(op)), softmax_(softmax), tanh_gelu_(tanh_gelu), axis_(axis), fallback_(std::move(fallback)) {}
  absl::Status Run(KernelContext& ctx) override {
    const Tensor* x = ctx.input(0);
    if (x == nullptr || x->dtype() != DataType::kFloat || x->rank() == 0 || x->numel() < kSmall ||
        (softmax_ && axis_ != -1 && axis_ != x->rank() - 1)) {
      return fallback_->Run(ctx);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, x->dims()));
    const size_t channels = softmax_ ? static_cast<size_t>(x->dims().back()) : static_cast<size_t>(x->numel());
    const size_t rows = softmax_ ? static_cast<size_t>(x->numel()) / channels : 1;
    if (rows != rows_ || channels != channels_) {
      pool_ = ctx.threadpool_for(static_cast<double>(x->numel()), kMinParallelElements);
      xnn_status s = softmax_ ? xnn_reshape_softmax_nc_f32(op_.get(), channels, channels, channels, rows, pool_)
                              : xnn_reshape_unary_elementwise_nc(op_.get(), rows, channels, channels, channels, pool_);
      if (s != xnn_status_success) return XnnError(s, "reshape");
      rows_ = rows;
      channels_ = channels;
    }
    const float* in = x->data<float>();
    float* o = (out)->data<float>();
    const size_t n = static_cast<size_t>(x->numel());
    if (tanh_gelu_) {
      const float k2 = 2.0f * 0.7978845608028654f;  // 2 sqrt(2/pi)
      for (size_t i = 0; i < n; ++i) o[i] = k2 * (in[i] + 0.044715f * in[i] * in[i] * in[i]);
    }
    xnn_status s = softmax_ ? xnn_setup_softmax_nc_f32(op_.get(), in, o)
                            : xnn_setup_unary_elementwise_nc(op_.get(), tanh_gelu_ ? o : in, o);
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    if (s != xnn_status_success) return XnnError(s, softmax_ ? "softmax" : "gelu");
    if (tanh_gelu_) {
      for (size_t i = 0; i < n; ++i) o[i] *= in[i];
    } else if (!softmax_) {
      for (size_t i = 0; i < n; ++i) {
        if (in[i] < kGeluTail) o[i] = 0.5f * in[i] * std::erfc(-in[i] * 0.7071067811865476f);
      }
    }
    return absl::OkStatus();
  }

 private:
  XnnOperator op_;
  bool softmax_, tanh_gelu_;
  int64_t axis_;
  std::unique_ptr<OpKernel> fallback_;
  size_t rows_ = 0, channels_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the shape
};

class XnnTransposeKernel : public OpKernel {
 public:
  XnnTransposeKernel(std::vector<int64_t> perm, std::unique_ptr<OpKernel> fallback)
      : perm_(std::move(perm)), fallback_(std::move(fallback)) {}
  absl::Status Run(KernelContext& ctx) override {
    const Tensor* x = ctx.input(0);
    const int size = x != nullptr ? ElementSize(x->dtype()) : 0;
    if (x == nullptr || x->numel() < kSmall || x->rank() > XNN_MAX_TENSOR_DIMS ||
        static_cast<int64_t>(perm_.size()) != x->rank() || (size != 1 && size != 2 && size != 4 && size != 8)) {
      return fallback_->Run(ctx);
    }
    std::vector<size_t> shape, perm;
    std::vector<bool> seen(perm_.size(), false);
    Dims dims;
    for (int64_t p : perm_) {
      if (p < 0 || p >= x->rank() || seen[p]) return fallback_->Run(ctx);  // its error message
      seen[p] = true;
      perm.push_back(static_cast<size_t>(p));
      dims.push_back(x->dim(p));
    }
    for (int64_t d : x->dims()) shape.push_back(static_cast<size_t>(d));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x->dtype(), dims));
    const void* in = x->raw();
    void* o = (out)->raw();
    const size_t n = shape.size();
    pthreadpool_t pool = ctx.threadpool_for(static_cast<double>(x->numel()), kMinParallelElements);
    xnn_status s = size == 1   ? xnn_run_transpose_nd_x8(in, o, n, shape.data(), perm.data(), 0, pool)
                   : size == 2 ? xnn_run_transpose_nd_x16(in, o, n, shape.data(), perm.data(), 0, pool)
                   : size == 4 ? xnn_run_transpose_nd_x32(in, o, n, shape.data(), perm.data(), 0, pool)
                               : xnn_run_transpose_nd_x64(in, o, n, shape.data(), perm.data(), 0, pool);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "transpose");
  }

 private:
  std::vector<int64_t> perm_;
  std::unique_ptr<OpKernel> fallback_;
};

// HardSwish (the same formula, x * min(max(x + 3, 0), 6) / 6, up to its
// rounding), Sigmoid and Tanh: XNNPACK's vectorised operators over the whole
// tensor. Sigmoid and Tanh natively only: XNNPACK's WebAssembly
// approximations, an ulp or two further from libm's, moved RAFT's
// verification past torch.onnx's thresholds in the browser.
class XnnUnaryKernel : public OpKernel {
 public:
  XnnUnaryKernel(XnnOperator op, const char* what, std::unique_ptr<OpKernel> fallback)
      : op_(std::move(op)), what_(what), fallback_(std::move(fallback)) {}
  absl::Status Run(KernelContext& ctx) override {
    const Tensor* x = ctx.input(0);
    if (x == nullptr || x->dtype() != DataType::kFloat || x->numel() < kSmall) return fallback_->Run(ctx);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, x->dims()));
    const size_t n = static_cast<size_t>(x->numel());
    if (n != size_) {
      pool_ = ctx.threadpool_for(static_cast<double>(n), kMinParallelElements);
      xnn_status s = xnn_reshape_unary_elementwise_nc(op_.get(), 1, n, n, n, pool_);
      if (s != xnn_status_success) return XnnError(s, "reshape");
      size_ = n;
    }
    xnn_status s = xnn_setup_unary_elementwise_nc(op_.get(), x->data<float>(), out->data<float>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, what_);
  }

 private:
  XnnOperator op_;
  const char* what_;
  std::unique_ptr<OpKernel> fallback_;
  size_t size_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the size
};

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateXnnElementwiseKernel(const KernelCreateInfo& info) {
  const std::string& op = info.node.op_type;
  PT2ONNX_ASSIGN_OR_RETURN(auto fallback, FindKernel(op)->factory(info));
  xnn_operator_t raw = nullptr;
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const xnn_binary_operator type = op == "Add"   ? xnn_binary_add
                                     : op == "Sub" ? xnn_binary_subtract
                                     : op == "Mul" ? xnn_binary_multiply
                                                   : xnn_binary_divide;
    if (xnn_create_binary_elementwise_nd(type, xnn_datatype_fp32, nullptr, nullptr, nullptr, 0, &raw) !=
        xnn_status_success) {
      return std::unique_ptr<OpKernel>();
    }
    return std::unique_ptr<OpKernel>(new XnnBinaryKernel(XnnOperator(raw), std::move(fallback)));
  }
  if (op == "Softmax" && info.opset >= 13) {
    if (xnn_create_softmax_nc_f32(0, &raw) != xnn_status_success) return std::unique_ptr<OpKernel>();
    return std::unique_ptr<OpKernel>(
        new XnnRowKernel(XnnOperator(raw), true, AttrInt(info.node, "axis", -1), std::move(fallback)));
  }
  const std::string approximate = op == "Gelu" ? AttrString(info.node, "approximate", "none") : "";
  if (op == "Gelu" && (approximate == "none" || approximate == "tanh")) {
    const bool tanh_gelu = approximate == "tanh";
    if (xnn_create_unary_elementwise_nc(tanh_gelu ? xnn_unary_sigmoid : xnn_unary_gelu, xnn_datatype_fp32,
                                        xnn_datatype_fp32, nullptr, nullptr, nullptr, 0, &raw) != xnn_status_success) {
      return std::unique_ptr<OpKernel>();
    }
    return std::unique_ptr<OpKernel>(new XnnRowKernel(XnnOperator(raw), false, -1, std::move(fallback), tanh_gelu));
  }
  if (op == "Transpose") {
    return std::unique_ptr<OpKernel>(new XnnTransposeKernel(AttrInts(info.node, "perm"), std::move(fallback)));
  }
#ifdef __EMSCRIPTEN__
  constexpr bool kXnnSigmoidTanh = false;
#else
  constexpr bool kXnnSigmoidTanh = true;
#endif
  if (op == "HardSwish" || (kXnnSigmoidTanh && (op == "Sigmoid" || op == "Tanh"))) {
    const xnn_unary_operator type = op == "HardSwish" ? xnn_unary_hardswish
                                    : op == "Sigmoid" ? xnn_unary_sigmoid
                                                      : xnn_unary_tanh;
    if (xnn_create_unary_elementwise_nc(type, xnn_datatype_fp32, xnn_datatype_fp32, nullptr, nullptr, nullptr, 0,
                                        &raw) != xnn_status_success) {
      return std::unique_ptr<OpKernel>();
    }
    return std::unique_ptr<OpKernel>(new XnnUnaryKernel(XnnOperator(raw), op == "HardSwish" ? "hardswish"
                                                                          : op == "Sigmoid" ? "sigmoid" : "tanh",
                                                        std::move(fallback)));
  }
  return std::unique_ptr<OpKernel>();
}

}  // namespace pt2onnx::runtime
