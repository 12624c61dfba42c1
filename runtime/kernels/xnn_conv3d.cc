// 3-D convolution through XNNPACK's 2-D one (XNNPACK has no 3-D convolution):
// a kernel of depth KD is KD 2-D convolutions, one per depth tap t, each over
// the batch of input frames that tap reads for every output depth (frame
// od * stride - pad + t * dilation, zeros outside the input), summed.
// NCDHW in and out, NDHWC inside; the bias is added by tap 0's operator.
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/status_macros.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/window.h"
#include "runtime/kernels/xnn_util.h"

namespace pt2onnx::runtime {
namespace {

struct Conv3dShape {
  int64_t c = 0, m = 0, kd = 1, sd = 1, dd = 1, pad_front = 0, pad_back = 0;
  int64_t macs_per_output = 0;  // C/g * KD * KH * KW
};

class XnnConv3dKernel : public OpKernel {
 public:
  XnnConv3dKernel(std::vector<XnnOperator> taps, Conv3dShape shape) : taps_(std::move(taps)), s_(shape) {}
  bool PackedInput(size_t i) const override { return i == 1 || i == 2; }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.dtype() != DataType::kFloat || x.rank() != 5 || x.dim(1) != s_.c) {
      return absl::InvalidArgumentError(absl::StrCat("Conv: input ", DimsString(x.dims()), " does not match ", s_.c,
                                                     "-channel 3-D weights"));
    }
    const int64_t n = x.dim(0), d = x.dim(2), h = x.dim(3), w = x.dim(4);
    const int64_t span = s_.dd * (s_.kd - 1) + 1;
    if (d + s_.pad_front + s_.pad_back < span) {  // as the portable kernel (kernels/window.cc)
      return absl::InvalidArgumentError(absl::StrCat("Conv: the window (", span, ") is larger than the padded input (",
                                                     d + s_.pad_front + s_.pad_back, ")"));
    }
    const int64_t od = (d + s_.pad_front + s_.pad_back - span) / s_.sd + 1;
    PT2ONNX_RETURN_IF_ERROR(Reshape(ctx, n * od, h, w));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, DataType::kFloat, {n, s_.m, od, oh_, ow_}));
    if (out->numel() == 0) return absl::OkStatus();
    const int64_t hw = h * w, frame = hw * s_.c, ohw = oh_ * ow_, out_frame = ohw * s_.m;
    // The input as NDHWC frames.
    std::shared_ptr<Buffer> ndhwc = ctx.pool()->Acquire(x.byte_size());
    float* frames = reinterpret_cast<float*>(ndhwc->data());
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t z = 0; z < d; ++z) {
        float* dst = frames + (b * d + z) * frame;
        for (int64_t ch = 0; ch < s_.c; ++ch) {
          const float* src = x.data<float>() + ((b * s_.c + ch) * d + z) * hw;
          for (int64_t p = 0; p < hw; ++p) dst[p * s_.c + ch] = src[p];
        }
      }
    }
    const size_t batch_bytes = static_cast<size_t>(n * od * frame) * sizeof(float);
    const size_t result_bytes = static_cast<size_t>(n * od * out_frame) * sizeof(float);
    std::shared_ptr<Buffer> batch = ctx.pool()->Acquire(batch_bytes);
    std::shared_ptr<Buffer> tap_out = ctx.pool()->Acquire(result_bytes);
    std::shared_ptr<Buffer> sum = ctx.pool()->Acquire(result_bytes);
    std::shared_ptr<Buffer> workspace = workspace_size_ > 0 ? ctx.pool()->Acquire(workspace_size_) : nullptr;
    float* in = reinterpret_cast<float*>(batch->data());
    float* acc = reinterpret_cast<float*>(sum->data());
    float* part = reinterpret_cast<float*>(tap_out->data());
    absl::Status status;
    for (int64_t t = 0; t < s_.kd && status.ok(); ++t) {
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t o = 0; o < od; ++o) {
          const int64_t z = o * s_.sd - s_.pad_front + t * s_.dd;
          float* dst = in + (b * od + o) * frame;
          if (z < 0 || z >= d) {
            std::memset(dst, 0, static_cast<size_t>(frame) * sizeof(float));
          } else {
            std::memcpy(dst, frames + (b * d + z) * frame, static_cast<size_t>(frame) * sizeof(float));
          }
        }
      }
      float* target = t == 0 ? acc : part;
      xnn_status st = xnn_setup_convolution2d_nhwc_f32(taps_[t].get(), workspace ? workspace->data() : nullptr, in,
                                                       target);
      if (st == xnn_status_success) st = xnn_run_operator(taps_[t].get(), pool_);
      if (st != xnn_status_success) {
        status = XnnError(st, "3-D convolution tap");
        break;
      }
      if (t > 0) {
        const int64_t total = n * od * out_frame;
        for (int64_t i = 0; i < total; ++i) acc[i] += part[i];
      }
    }
    if (status.ok()) {
      // [N, OD, OH, OW, M] -> [N, M, OD, OH, OW].
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t o = 0; o < od; ++o) {
          const float* src = acc + (b * od + o) * out_frame;
          for (int64_t p = 0; p < ohw; ++p) {
            for (int64_t ch = 0; ch < s_.m; ++ch) {
              out->data<float>()[((b * s_.m + ch) * od + o) * ohw + p] = src[p * s_.m + ch];
            }
          }
        }
      }
    }
    for (auto* buffer : {&ndhwc, &batch, &tap_out, &sum, &workspace}) ctx.pool()->Release(std::move(*buffer));
    return status;
  }

 private:
  // Every tap's operator for a batch of `frames` frames of h x w (one
  // workspace size serves them all: the operators share their geometry).
  absl::Status Reshape(KernelContext& ctx, int64_t frames, int64_t h, int64_t w) {
    if (frames == key_frames_ && h == key_h_ && w == key_w_) return absl::OkStatus();
    key_frames_ = -1;
    workspace_size_ = 0;
    pool_ = ctx.threadpool_for(static_cast<double>(frames) * h * w * s_.m * s_.macs_per_output, kMinParallelMacs);
    for (size_t t = 0; t < taps_.size(); ++t) {
      size_t oh = 0, ow = 0, workspace = 0, alignment = 0;
      xnn_status st = xnn_reshape_convolution2d_nhwc_f32(taps_[t].get(), frames, h, w, &workspace, &alignment, &oh,
                                                         &ow, pool_);
      if (st != xnn_status_success) return XnnError(st, "reshape 3-D convolution tap");
      workspace_size_ = std::max(workspace_size_, workspace);
      oh_ = static_cast<int64_t>(oh);
      ow_ = static_cast<int64_t>(ow);
    }
    key_frames_ = frames;
    key_h_ = h;
    key_w_ = w;
    return absl::OkStatus();
  }

  std::vector<XnnOperator> taps_;
  Conv3dShape s_;
  int64_t key_frames_ = -1, key_h_ = -1, key_w_ = -1;
  int64_t oh_ = 0, ow_ = 0;
  size_t workspace_size_ = 0;
  pthreadpool_t pool_ = nullptr;
};

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateXnnConv3dKernel(const KernelCreateInfo& info) {
  const ir::Node& node = info.node;
  const Tensor* w = info.constant_inputs.size() > 1 ? info.constant_inputs[1] : nullptr;
  if (w == nullptr || w->dtype() != DataType::kFloat || w->rank() != 5) return std::unique_ptr<OpKernel>();
  const Tensor* bias = nullptr;
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    bias = info.constant_inputs[2];
    if (bias == nullptr || bias->dtype() != DataType::kFloat || bias->rank() != 1 || bias->numel() != w->dim(0)) {
      return std::unique_ptr<OpKernel>();
    }
  }
  absl::StatusOr<WindowAttrs> attrs = ReadWindowAttrs(node);
  if (!attrs.ok() || (attrs->auto_pad != "NOTSET" && attrs->auto_pad != "VALID")) return std::unique_ptr<OpKernel>();
  const int64_t group = AttrInt(node, "group", 1);
  const int64_t m = w->dim(0), cg = w->dim(1), kd = w->dim(2), kh = w->dim(3), kw = w->dim(4);
  if (group < 1 || m % group != 0 || m == 0 || cg == 0 || kd < 1 || kd > 64) return std::unique_ptr<OpKernel>();
  auto at = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.size() == 3 ? v[i] : fallback; };
  int64_t pads[6] = {0, 0, 0, 0, 0, 0};  // front, top, left, back, bottom, right
  if (attrs->auto_pad == "NOTSET" && !attrs->pads.empty()) {
    if (attrs->pads.size() != 6) return std::unique_ptr<OpKernel>();
    for (int i = 0; i < 6; ++i) pads[i] = attrs->pads[i];
  }
  const int64_t sd = at(attrs->strides, 0, 1), sh = at(attrs->strides, 1, 1), sw = at(attrs->strides, 2, 1);
  const int64_t dd = at(attrs->dilations, 0, 1), dh = at(attrs->dilations, 1, 1), dw = at(attrs->dilations, 2, 1);
  for (int64_t v : {pads[0], pads[1], pads[2], pads[3], pads[4], pads[5], sd, sh, sw, dd, dh, dw, kh, kw}) {
    if (v < 0 || v > (1 << 20)) return std::unique_ptr<OpKernel>();
  }
  if (sd < 1 || sh < 1 || sw < 1 || dd < 1 || dh < 1 || dw < 1) return std::unique_ptr<OpKernel>();
  // One 2-D operator per depth tap: ONNX [M, C/g, KD, KH, KW] tap t -> XNNPACK [g, M/g, KH, KW, C/g].
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const int64_t ksz = kh * kw;
  std::vector<XnnOperator> taps;
  std::vector<float> packed(static_cast<size_t>(m * cg * ksz));
  for (int64_t t = 0; t < kd; ++t) {
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < cg; ++i)
        for (int64_t p = 0; p < ksz; ++p)
          packed[(o * ksz + p) * cg + i] = w->data<float>()[((o * cg + i) * kd + t) * ksz + p];
    xnn_operator_t op = nullptr;
    xnn_status st = xnn_create_convolution2d_nhwc_f32(
        pads[1], pads[5], pads[4], pads[2], kh, kw, sh, sw, dh, dw, group, cg, m / group, cg * group, m,
        packed.data(), t == 0 && bias != nullptr ? bias->data<float>() : nullptr, -kInf, kInf, 0, nullptr, nullptr,
        &op);
    if (st != xnn_status_success) return std::unique_ptr<OpKernel>();
    taps.emplace_back(op);
  }
  Conv3dShape shape{cg * group, m, kd, sd, dd, pads[0], pads[3], cg * kd * ksz};
  return std::unique_ptr<OpKernel>(new XnnConv3dKernel(std::move(taps), shape));
}

}  // namespace pt2onnx::runtime
