// File: runtime/kernels/xnn_int8.cc
// -----------------------------------------------------------------------------
// The int8 steps of plan/qdq_int8.h through XNNPACK's qs8 operators with
// per-channel weights (qs8_qc8w; a per-tensor weight scale is repeated per
// channel): QConvNhwc (int8 [N, H, W, C] in and out) and QFullyConnected
// (int8 [..., K] -> [..., N]; with inputs 4 and 5, the input's scale and zero
// point of dynamic quantization, read at each run). Weights and the bias are
// packed at creation. A convolution with fewer than 8 input channels and one
// group (an RGB stem) runs as im2col and a product (kernels/xnn_int8_im2col.cc).
//
// Numerics. The QDQ graph computes y = conv(DQ(x), DQ(W)) + b in float and
// rounds Q(y) = round(y / y_scale) + y_zero once. Here the accumulation is
// exact in int32, the float bias is quantized to int32 with the scale
// x_scale * w_scale[c] (as ONNX Runtime's QDQ bias quantization does, error
// at most half a bias step), and XNNPACK requantizes the accumulator with
// the fp32 scale x_scale * w_scale[c] / y_scale (its src/operators/
// convolution-nhwc.c and fully-connected-nc.c compute it so; the qs8 "fp32"
// requantization of src/microparams-init.c). Both round half to even, but
// the two float products differ in their last bits, so a value that lies
// within an ulp of a rounding boundary may land on the neighbouring integer:
// results equal ONNX Runtime's within one quantization step of the output.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/window.h"
#include "runtime/kernels/xnn_int8.h"
#include "runtime/kernels/xnn_util.h"
#include "core/status_macros.h"
#include "pthreadpool.h"
#include "xnnpack.h"

namespace pt2onnx::runtime {

Quant ReadQuant(const ir::Node& node) {
  return Quant{AttrFloat(node, "x_scale", 1), AttrFloat(node, "y_scale", 1),
               static_cast<int8_t>(AttrInt(node, "x_zero_point", 0)),
               static_cast<int8_t>(AttrInt(node, "y_zero_point", 0)), static_cast<int8_t>(AttrInt(node, "y_min", -128)),
               static_cast<int8_t>(AttrInt(node, "y_max", 127))};
}

absl::StatusOr<PackedScales> PackScalesAndBias(const KernelCreateInfo& info, int64_t channels, float x_scale) {
  const Tensor* scale = info.constant_inputs.size() > 2 ? info.constant_inputs[2] : nullptr;
  const Tensor* bias = info.constant_inputs.size() > 3 ? info.constant_inputs[3] : nullptr;
  const bool has_bias = info.node.inputs.size() > 3 && !info.node.inputs[3].empty();
  if (scale == nullptr || scale->dtype() != DataType::kFloat || (scale->numel() != 1 && scale->numel() != channels) ||
      (has_bias && (bias == nullptr || bias->dtype() != DataType::kFloat || bias->numel() != channels))) {
    return absl::InvalidArgumentError("int8 step: weight scales or bias are not constants of the expected size");
  }
  PackedScales p;
  for (int64_t c = 0; c < channels; ++c) {
    const float s = scale->data<float>()[scale->numel() == 1 ? 0 : c];
    p.scales.push_back(s);
    p.float_bias.push_back(has_bias ? bias->data<float>()[c] : 0.0f);
    double q = has_bias ? std::nearbyint(static_cast<double>(bias->data<float>()[c]) / (double{x_scale} * s)) : 0;
    q = std::fmin(std::fmax(q, -2147483648.0), 2147483647.0);
    p.bias.push_back(static_cast<int32_t>(q));
  }
  return p;
}

absl::StatusOr<const Tensor*> NhwcInt8Input(KernelContext& ctx, int64_t channels) {
  PT2ONNX_ASSIGN_OR_RETURN(const Tensor* x, ctx.RequiredInput(0));
  if (x->dtype() != DataType::kInt8 || x->rank() != 4 || x->dim(3) != channels) {
    return absl::InvalidArgumentError(absl::StrCat("int8 Conv: input ", DimsString(x->dims()), " (",
                                                   DataTypeName(x->dtype()), ") does not match ", channels,
                                                   "-channel int8 weights"));
  }
  return x;
}

std::vector<xnn_quantization_params>& RowParams(std::vector<xnn_quantization_params>& rows, size_t n,
                                                const Quant& q) {
  if (rows.size() < n) rows.assign(n, xnn_quantization_params{q.x_zero, q.x_scale});
  return rows;
}

namespace {

class QConvNhwcKernel : public OpKernel {
 public:
  QConvNhwcKernel(XnnOperator op, int64_t c, int64_t m, int64_t macs_per_output, bool float_out, Quant q)
      : op_(std::move(op)), c_(c), m_(m), macs_per_output_(macs_per_output), float_out_(float_out), q_(q) {}
  bool PackedInput(size_t i) const override { return i >= 1; }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* xi, NhwcInt8Input(ctx, c_));
    const Tensor& x = *xi;
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2);
    if (n != key_n_ || h != key_h_ || w != key_w_) {
      size_t oh = 0, ow = 0;
      pool_ = ctx.threadpool();
      auto reshape = [&] {
        return float_out_ ? xnn_reshape_convolution2d_nhwc_qd8_f32_qc8w(op_.get(), n, h, w, &workspace_size_,
                                                                        &workspace_alignment_, &oh, &ow, pool_)
                          : xnn_reshape_convolution2d_nhwc_qs8_qc8w(op_.get(), n, h, w, &workspace_size_,
                                                                    &workspace_alignment_, &oh, &ow, pool_);
      };
      xnn_status s = reshape();
      const double macs = static_cast<double>(n) * oh * ow * m_ * macs_per_output_;
      if (s == xnn_status_success && pool_ != nullptr && ctx.threadpool_for(macs, kMinParallelMacs) == nullptr) {
        pool_ = nullptr;
        s = reshape();
      }
      if (s != xnn_status_success) {
        key_n_ = -1;
        return XnnError(s, "reshape int8 convolution");
      }
      key_n_ = n, key_h_ = h, key_w_ = w;
      oh_ = static_cast<int64_t>(oh), ow_ = static_cast<int64_t>(ow);
    }
    const DataType out_dtype = float_out_ ? DataType::kFloat : DataType::kInt8;
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, out_dtype, {n, oh_, ow_, m_}));
    if ((out)->numel() == 0 || x.numel() == 0) return absl::OkStatus();
    std::shared_ptr<Buffer> workspace = workspace_size_ > 0 ? ctx.pool()->Acquire(workspace_size_) : nullptr;
    void* ws = workspace ? workspace->data() : nullptr;
    // Rows: a 1x1 convolution runs as a GEMM over every pixel, others per image.
    xnn_status s = float_out_ ? xnn_setup_convolution2d_nhwc_qd8_f32_qc8w(
                                    op_.get(), ws, x.data<int8_t>(), (out)->data<float>(),
                                    RowParams(rows_, static_cast<size_t>(n * std::max(h * w, oh_ * ow_)) + 16, q_).data())
                              : xnn_setup_convolution2d_nhwc_qs8_qc8w(op_.get(), ws, x.data<int8_t>(),
                                                                      (out)->data<int8_t>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    ctx.pool()->Release(std::move(workspace));
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "int8 convolution");
  }

 private:
  XnnOperator op_;
  int64_t c_, m_, macs_per_output_;
  bool float_out_;
  Quant q_;
  std::vector<xnn_quantization_params> rows_;
  int64_t key_n_ = -1, key_h_ = -1, key_w_ = -1;  // the input the operator is reshaped for
  int64_t oh_ = 0, ow_ = 0;
  size_t workspace_size_ = 0, workspace_alignment_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the shape
};

class QFullyConnectedKernel : public OpKernel {
 public:
  QFullyConnectedKernel(XnnOperator op, int64_t k, int64_t n, bool float_out, Quant q, bool dynamic)
      : op_(std::move(op)), k_(k), n_(n), float_out_(float_out), q_(q), dynamic_(dynamic) {}
  bool PackedInput(size_t i) const override { return i >= 1 && i <= 3; }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.dtype() != DataType::kInt8 || x.rank() < 1 || x.dims().back() != k_) {
      return absl::InvalidArgumentError(absl::StrCat("int8 fully connected: input ", DimsString(x.dims()), " (",
                                                     DataTypeName(x.dtype()), ") does not match int8 weights with ",
                                                     k_, " inputs"));
    }
    Dims out_dims = x.dims();
    out_dims.back() = n_;
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, float_out_ ? DataType::kFloat : DataType::kInt8, out_dims));
    const size_t batch = static_cast<size_t>(x.numel() / k_);
    if (batch == 0) return absl::OkStatus();
    if (batch != batch_) {
      pool_ = ctx.threadpool_for(static_cast<double>(batch) * k_ * n_, kMinParallelMacs);
      xnn_status s = float_out_ ? xnn_reshape_fully_connected_nc_qd8_f32_qc8w(op_.get(), batch, pool_)
                                : xnn_reshape_fully_connected_nc_qs8_qc8w(op_.get(), batch, pool_);
      if (s != xnn_status_success) return XnnError(s, "reshape int8 fully connected");
      batch_ = batch;
    }
    if (dynamic_) PT2ONNX_RETURN_IF_ERROR(ReadDynamicParams(ctx, batch + 16));
    xnn_status s = float_out_ ? xnn_setup_fully_connected_nc_qd8_f32_qc8w(op_.get(), x.data<int8_t>(),
                                                                           (out)->data<float>(),
                                                                           RowParams(rows_, batch + 16, q_).data())
                              : xnn_setup_fully_connected_nc_qs8_qc8w(op_.get(), x.data<int8_t>(),
                                                                      (out)->data<int8_t>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "int8 fully connected");
  }

 private:
  // Dynamic quantization: the input's scale and zero point (scalars; a uint8 zero point shifted to the
  // input's int8 twin) arrive as inputs 4 and 5 at each run.
  absl::Status ReadDynamicParams(KernelContext& ctx, size_t rows) {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.RequiredInput(4));
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* zero, ctx.RequiredInput(5));
    if (scale->dtype() != DataType::kFloat || scale->numel() != 1 || zero->numel() != 1 ||
        (zero->dtype() != DataType::kInt8 && zero->dtype() != DataType::kUint8)) {
      return absl::InvalidArgumentError(absl::StrCat("int8 fully connected: run-time quantization parameters ",
                                                     DimsString(scale->dims()), " ", DataTypeName(scale->dtype()), ", ",
                                                     DimsString(zero->dims()), " ", DataTypeName(zero->dtype()),
                                                     " are not a float32 and an 8-bit scalar"));
    }
    const int32_t z = zero->dtype() == DataType::kUint8 ? int32_t{zero->data<uint8_t>()[0]} - 128
                                                        : int32_t{zero->data<int8_t>()[0]};
    rows_.assign(rows, xnn_quantization_params{z, scale->data<float>()[0]});
    return absl::OkStatus();
  }

  XnnOperator op_;
  int64_t k_, n_;
  bool float_out_;
  Quant q_;
  bool dynamic_;
  std::vector<xnn_quantization_params> rows_;
  size_t batch_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the batch size
};

const Tensor* Weights(const KernelCreateInfo& info, size_t rank) {
  const Tensor* w = info.constant_inputs.size() > 1 ? info.constant_inputs[1] : nullptr;
  return w != nullptr && w->dtype() == DataType::kInt8 && w->rank() == static_cast<int64_t>(rank) ? w : nullptr;
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQConv(const KernelCreateInfo& info) {
  const ir::Node& node = info.node;
  const Tensor* w = Weights(info, 4);
  if (w == nullptr) return absl::InvalidArgumentError("int8 Conv: the weights are not a constant int8 4-D tensor");
  const Quant q = ReadQuant(node);
  const int64_t m = w->dim(0), cg = w->dim(1), kh = w->dim(2), kw = w->dim(3);
  PT2ONNX_ASSIGN_OR_RETURN(PackedScales packed, PackScalesAndBias(info, m, q.x_scale));
  PT2ONNX_ASSIGN_OR_RETURN(auto attrs, ReadWindowAttrs(node));
  const int64_t group = AttrInt(node, "group", 1);
  auto at = [](const std::vector<int64_t>& v, size_t i) { return v.size() == 2 ? v[i] : 1; };
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
  if (attrs.auto_pad == "NOTSET" && attrs.pads.size() == 4) {
    for (int i = 0; i < 4; ++i) pads[i] = attrs.pads[i];
  }
  // ONNX [M, C/g, kh, kw] -> XNNPACK [M, kh, kw, C/g] (groups outermost: M = g * M/g).
  const int64_t ksz = kh * kw;
  std::vector<int8_t> kernel(static_cast<size_t>(m * cg * ksz));
  for (int64_t o = 0; o < m; ++o)
    for (int64_t i = 0; i < cg; ++i)
      for (int64_t p = 0; p < ksz; ++p) kernel[(o * ksz + p) * cg + i] = w->data<int8_t>()[(o * cg + i) * ksz + p];
  const bool float_out = AttrInt(node, "float_output", 0) != 0;
  xnn_operator_t op = nullptr;
  const uint32_t sh = at(attrs.strides, 0), sw = at(attrs.strides, 1);
  const uint32_t dh = at(attrs.dilations, 0), dw = at(attrs.dilations, 1);
  if (group == 1 && cg < 8) {  // kernel is [M, kh, kw, C]: the [N, K] weights of im2col's rows
    const ConvWindow win{kh, kw, sh, sw, dh, dw, pads[0], pads[1], pads[2], pads[3]};
    return CreateQConvIm2col(kernel, cg, m, win, packed, float_out, q);
  }
  xnn_status s =
      float_out ? xnn_create_convolution2d_nhwc_qd8_f32_qc8w(
                      pads[0], pads[3], pads[2], pads[1], kh, kw, sh, sw, dh, dw, group, cg, m / group, cg * group, m,
                      packed.scales.data(), kernel.data(), packed.float_bias.data(), -kInf, kInf, 0, nullptr, nullptr,
                      &op)
                : xnn_create_convolution2d_nhwc_qs8_qc8w(
                      pads[0], pads[3], pads[2], pads[1], kh, kw, sh, sw, dh, dw, group, cg, m / group, cg * group, m,
                      q.x_zero, q.x_scale, packed.scales.data(), kernel.data(), packed.bias.data(), q.y_zero,
                      q.y_scale, q.y_min, q.y_max, 0, nullptr, nullptr, &op);
  if (s != xnn_status_success) return XnnError(s, "create int8 convolution");
  return std::unique_ptr<OpKernel>(new QConvNhwcKernel(XnnOperator(op), cg * group, m, cg * ksz, float_out, q));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQFullyConnected(const KernelCreateInfo& info) {
  const Tensor* w = Weights(info, 2);
  if (w == nullptr) return absl::InvalidArgumentError("int8 fully connected: the weights are not constant int8 2-D");
  const bool nk = AttrInt(info.node, "weights_nk", 0) != 0;
  const int64_t n = nk ? w->dim(0) : w->dim(1), k = nk ? w->dim(1) : w->dim(0);
  const Quant q = ReadQuant(info.node);
  PT2ONNX_ASSIGN_OR_RETURN(PackedScales packed, PackScalesAndBias(info, n, q.x_scale));
  const bool float_out = AttrInt(info.node, "float_output", 0) != 0;
  const uint32_t flags = nk ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS;
  xnn_operator_t op = nullptr;
  xnn_status s = float_out ? xnn_create_fully_connected_nc_qd8_f32_qc8w(k, n, k, n, packed.scales.data(),
                                                                       w->data<int8_t>(), packed.float_bias.data(),
                                                                       -kInf, kInf, flags, nullptr, nullptr, &op)
                           : xnn_create_fully_connected_nc_qs8_qc8w(
                                 k, n, k, n, q.x_zero, q.x_scale, packed.scales.data(), w->data<int8_t>(),
                                 packed.bias.data(), q.y_zero, q.y_scale, q.y_min, q.y_max, flags, nullptr, nullptr, &op);
  if (s != xnn_status_success) return XnnError(s, "create int8 fully connected");
  const bool dynamic = info.node.inputs.size() > 5;
  if (dynamic && !float_out) return absl::InvalidArgumentError("int8 fully connected: run-time parameters need a float output");
  return std::unique_ptr<OpKernel>(new QFullyConnectedKernel(XnnOperator(op), k, n, float_out, q, dynamic));
}

}  // namespace

bool Int8FloatOutputAvailable() {
  static const bool available = [] {
    if (!AcceleratorAvailable()) return false;
    const float scale = 1, bias = 0;
    const int8_t weight = 1;
    xnn_operator_t op = nullptr;
    if (xnn_create_fully_connected_nc_qd8_f32_qc8w(1, 1, 1, 1, &scale, &weight, &bias, -kInf, kInf, 0, nullptr,
                                                   nullptr, &op) != xnn_status_success) {
      return false;
    }
    xnn_delete_operator(op);
    return true;
  }();
  return available;
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateInt8Kernel(const KernelCreateInfo& info) {
  if (info.node.op_type == "QConvNhwc") return CreateQConv(info);
  if (info.node.op_type == "QFullyConnected") return CreateQFullyConnected(info);
  return std::unique_ptr<OpKernel>();
}

}  // namespace pt2onnx::runtime
