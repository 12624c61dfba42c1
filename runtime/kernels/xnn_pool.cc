// File: runtime/kernels/xnn_pool.cc
// -----------------------------------------------------------------------------
// Pooling on the NHWC plan's values (plan/nhwc_layout.h): MaxPool through
// XNNPACK's NHWC max pooling (float32, and int8 for plan/qdq_int8.h), GlobalAveragePool as a per-channel loop. Both
// take float32 [N, H, W, C] and give NHWC. XNNPACK's padding is fixed when the
// operator is created, so the operator is created for each new input height
// and width (ceil_mode becomes extra end padding). Geometries XNNPACK cannot
// run as ONNX defines them (1x1 window, stride over the window, a window with
// no input element, dilation whose padded taps XNNPACK redirects outside the
// window) run the portable NCHW kernel between two transposes.
// NaN: XNNPACK's max keeps the other operand where the portable kernel keeps
// the NaN (ONNX leaves it open; ONNX Runtime's CPU kernel does not propagate it either).
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"
#include "runtime/kernels/window.h"
#include "runtime/kernels/xnn_util.h"
#include "xnnpack.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// Whether every window of `d` has an input element and every out-of-range tap
// is redirected to one of the window's own in-range taps: XNNPACK's
// indirection (its src/indirection.c) clamps such taps to the border when
// neither dim is dilated, else points them at a row it computes from the
// stride alone (in both dims).
bool XnnTapsMatch(const WindowDim& d, bool any_dilation) {
  const int64_t pb = d.pad_begin;
  for (int64_t o = 0; o < d.out; ++o) {
    const int64_t start = o * d.stride - pb;
    bool any = false;
    for (int64_t k = 0; k < d.kernel; ++k) any = any || (start + k * d.dilation >= 0 && start + k * d.dilation < d.in);
    if (!any) return false;
    for (int64_t k = 0; k < d.kernel; ++k) {
      const int64_t at = start + k * d.dilation;
      if (at >= 0 && at < d.in) continue;
      int64_t used;
      if (!any_dilation) {
        used = at < 0 ? 0 : d.in - 1;
      } else {
        const int64_t adjusted = pb % d.dilation;
        int64_t safe = o * d.stride;
        if (safe < adjusted) safe += d.dilation;
        used = safe - adjusted;
      }
      const int64_t from_start = used - start;
      if (used < 0 || used >= d.in || from_start < 0 || from_start % d.dilation != 0 ||
          from_start / d.dilation >= d.kernel) {
        return false;
      }
    }
  }
  return true;
}

// NHWC <-> NCHW copies for the portable fallback.
template <typename T>
void ToNchw(const T* src, T* dst, int64_t n, int64_t hw, int64_t c) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < hw; ++p)
      for (int64_t ch = 0; ch < c; ++ch) dst[(b * c + ch) * hw + p] = src[(b * hw + p) * c + ch];
}
template <typename T>
void ToNhwc(const T* src, T* dst, int64_t n, int64_t hw, int64_t c) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) dst[(b * hw + p) * c + ch] = src[(b * c + ch) * hw + p];
}

// float32, or int8 for the int8 plan's QMaxPoolNhwc (plan/qdq_int8.h).
class NhwcMaxPoolKernel : public OpKernel {
 public:
  NhwcMaxPoolKernel(WindowAttrs attrs, std::unique_ptr<OpKernel> portable, DataType dtype)
      : attrs_(std::move(attrs)), portable_(std::move(portable)), dtype_(dtype) {}

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.dtype() != dtype_ || x.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("MaxPool (NHWC): input ", DimsString(x.dims()), " is not ",
                                                     DataTypeName(dtype_), " 4-D"));
    }
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    if (h != height_ || w != width_) {
      PT2ONNX_RETURN_IF_ERROR(Prepare(h, w));
    }
    if (op_ == nullptr) return RunPortable(ctx, x);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, dtype_, {n, out_h_, out_w_, c}));
    if ((out)->numel() == 0) return absl::OkStatus();
    const bool s8 = dtype_ == DataType::kInt8;
    if (n != batch_ || c != channels_) {
      size_t oh = 0, ow = 0;
      pool_ = ctx.threadpool_for(static_cast<double>((out)->numel()) * taps_, kMinParallelElements);
      xnn_status s = s8 ? xnn_reshape_max_pooling2d_nhwc_s8(op_.get(), n, h, w, c, c, c, &oh, &ow, pool_)
                        : xnn_reshape_max_pooling2d_nhwc_f32(op_.get(), n, h, w, c, c, c, &oh, &ow, pool_);
      if (s != xnn_status_success || static_cast<int64_t>(oh) != out_h_ || static_cast<int64_t>(ow) != out_w_) {
        return absl::InternalError(absl::StrCat("XNNPACK reshape max pooling failed (status ", static_cast<int>(s), ")"));
      }
      batch_ = n;
      channels_ = c;
    }
    xnn_status s = s8 ? xnn_setup_max_pooling2d_nhwc_s8(op_.get(), x.data<int8_t>(), (out)->data<int8_t>())
                      : xnn_setup_max_pooling2d_nhwc_f32(op_.get(), x.data<float>(), (out)->data<float>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    if (s != xnn_status_success) {
      return absl::InternalError(absl::StrCat("XNNPACK max pooling failed (status ", static_cast<int>(s), ")"));
    }
    return absl::OkStatus();
  }

 private:
  // Resolves the window for H x W and creates the operator, or leaves it null
  // when XNNPACK's result would differ from ONNX's.
  absl::Status Prepare(int64_t h, int64_t w) {
    op_.reset();
    height_ = h;
    width_ = w;
    batch_ = channels_ = -1;
    PT2ONNX_ASSIGN_OR_RETURN(auto window, ResolveWindow(attrs_, {h, w}, attrs_.kernel_shape, "MaxPool"));
    const WindowDim& dh = (window)[0];
    const WindowDim& dw = (window)[1];
    out_h_ = dh.out;
    out_w_ = dw.out;
    taps_ = dh.kernel * dw.kernel;
    constexpr int64_t kMax = int64_t{1} << 24;
    const bool any_dilation = dh.dilation > 1 || dw.dilation > 1;
    for (const WindowDim& d : window) {
      // (The tap check walks out x kernel taps: bounded, for hostile attributes.)
      if (d.stride > d.kernel || d.kernel > kMax || d.dilation > kMax || d.pad_begin > kMax || d.in > kMax ||
          d.out > kMax || d.out * d.kernel > kMax || !XnnTapsMatch(d, any_dilation)) {
        return absl::OkStatus();
      }
    }
    if (dh.kernel * dw.kernel == 1) return absl::OkStatus();
    // End padding that makes XNNPACK's floor division give ONNX's output size (ceil_mode).
    auto end_pad = [](const WindowDim& d) {
      const int64_t span = d.dilation * (d.kernel - 1) + 1;
      return std::max<int64_t>(0, (d.out - 1) * d.stride + span - d.in - d.pad_begin);
    };
    xnn_operator_t op = nullptr;
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const uint32_t geometry[10] = {
        static_cast<uint32_t>(dh.pad_begin), static_cast<uint32_t>(end_pad(dw)), static_cast<uint32_t>(end_pad(dh)),
        static_cast<uint32_t>(dw.pad_begin), static_cast<uint32_t>(dh.kernel), static_cast<uint32_t>(dw.kernel),
        static_cast<uint32_t>(dh.stride), static_cast<uint32_t>(dw.stride), static_cast<uint32_t>(dh.dilation),
        static_cast<uint32_t>(dw.dilation)};
    auto [t, r, b, l, kh, kw, sh, sw, ah, aw] = geometry;
    xnn_status s = dtype_ == DataType::kInt8
                       ? xnn_create_max_pooling2d_nhwc_s8(t, r, b, l, kh, kw, sh, sw, ah, aw, -128, 127, 0, &op)
                       : xnn_create_max_pooling2d_nhwc_f32(t, r, b, l, kh, kw, sh, sw, ah, aw, -kInf, kInf, 0, &op);
    if (s == xnn_status_success) op_.reset(op);
    return absl::OkStatus();
  }

  absl::Status RunPortable(KernelContext& ctx, const Tensor& x) {
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    PT2ONNX_ASSIGN_OR_RETURN(auto nchw, Tensor::Allocate(dtype_, {n, c, h, w}, ctx.pool()));
    if (dtype_ == DataType::kInt8) ToNchw(x.data<int8_t>(), nchw.data<int8_t>(), n, h * w, c);
    else ToNchw(x.data<float>(), nchw.data<float>(), n, h * w, c);
    KernelContext inner({&nchw}, 1, ctx.pool(), ctx.threadpool());
    absl::Status s = portable_->Run(inner);
    ctx.pool()->Release(nchw.buffer());
    nchw = Tensor();
    if (!s.ok()) return s;
    Tensor& y = inner.outputs()[0];
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, dtype_, {n, y.dim(2), y.dim(3), c}));
    if (dtype_ == DataType::kInt8) ToNhwc(y.data<int8_t>(), (out)->data<int8_t>(), n, y.dim(2) * y.dim(3), c);
    else ToNhwc(y.data<float>(), (out)->data<float>(), n, y.dim(2) * y.dim(3), c);
    ctx.pool()->Release(y.buffer());
    y = Tensor();
    return absl::OkStatus();
  }

  WindowAttrs attrs_;
  std::unique_ptr<OpKernel> portable_;
  DataType dtype_;
  XnnOperator op_;
  int64_t height_ = -1, width_ = -1, batch_ = -1, channels_ = -1, out_h_ = 0, out_w_ = 0, taps_ = 1;
  pthreadpool_t pool_ = nullptr;  // chosen with the shape
};

// Mean over H and W per channel: [N, H, W, C] -> [N, 1, 1, C], summed in
// double like the portable kernel.
class NhwcGlobalAveragePoolKernel : public OpKernel {
 public:
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.dtype() != DataType::kFloat || x.rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("GlobalAveragePool (NHWC): input ", DimsString(x.dims()), " is not float32 4-D"));
    }
    const int64_t n = x.dim(0), hw = x.dim(1) * x.dim(2), c = x.dim(3);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, {n, 1, 1, c}));
    sums_.resize(static_cast<size_t>(c));
    for (int64_t b = 0; b < n; ++b) {
      std::fill(sums_.begin(), sums_.end(), 0.0);
      const float* px = x.data<float>() + b * hw * c;
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t ch = 0; ch < c; ++ch) sums_[ch] += px[p * c + ch];
      float* py = (out)->data<float>() + b * c;
      for (int64_t ch = 0; ch < c; ++ch) py[ch] = static_cast<float>(sums_[ch] / static_cast<double>(hw));
    }
    return absl::OkStatus();
  }

 private:
  std::vector<double> sums_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateNhwcPoolKernel(const KernelCreateInfo& info) {
  const std::string& op = info.node.op_type;
  if (op == "GlobalAveragePool") return std::unique_ptr<OpKernel>(new NhwcGlobalAveragePoolKernel());
  if (op != "MaxPool" && op != "QMaxPoolNhwc") return std::unique_ptr<OpKernel>();
  PT2ONNX_ASSIGN_OR_RETURN(auto attrs, ReadWindowAttrs(info.node));
  if (attrs.kernel_shape.size() != 2) return absl::InvalidArgumentError("MaxPool (NHWC) needs a 2-D kernel_shape");
  PT2ONNX_ASSIGN_OR_RETURN(auto portable, FindKernel("MaxPool")->factory(info));
  const DataType dtype = op == "MaxPool" ? DataType::kFloat : DataType::kInt8;
  return std::unique_ptr<OpKernel>(new NhwcMaxPoolKernel(std::move(attrs), std::move(portable), dtype));
}

}  // namespace pt2onnx::runtime
