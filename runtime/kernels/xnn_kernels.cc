// File: runtime/kernels/xnn_kernels.cc
// -----------------------------------------------------------------------------
// float32 kernels through XNNPACK's operator API, following its lifecycle:
// create (weights packed once, at session creation) -> reshape (only when
// the input shape changes) -> setup (buffers) -> run (on the session's
// pthreadpool). Covered: MatMul / Gemm with constant 2-D weights (fully
// connected), MatMul of two activations (batch matrix multiply, broadcast
// batch dims), Conv 1-D/2-D with constant weights (NCHW <-> NHWC around
// XNNPACK's NHWC convolution).
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/linalg.h"
#include "runtime/kernels/registry.h"
#include "runtime/kernels/window.h"
#include "runtime/kernels/xnn_util.h"
#include "runtime/plan/nhwc_layout.h"
#include "pthreadpool.h"
#include "xnnpack.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

bool XnnReady() {
  static const bool ready = xnn_initialize(nullptr) == xnn_status_success;
  return ready;
}

bool IsConstF32(const Tensor* t, int64_t rank) {
  return t != nullptr && t->dtype() == DataType::kFloat && (rank < 0 || t->rank() == rank);
}

// Y[..., N] = X[..., K] W + b with W packed once.
class FullyConnectedKernel : public OpKernel {
 public:
  FullyConnectedKernel(int64_t k, int64_t n, XnnOperator op, bool gemm) : k_(k), n_(n), op_(std::move(op)), gemm_(gemm) {}
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto a, ctx.RequiredInput(0));
    const Tensor& x = *a;
    if (x.dtype() != DataType::kFloat || x.rank() < 1 || x.dims().back() != k_ || (gemm_ && x.rank() != 2)) {
      return absl::InvalidArgumentError(absl::StrCat("input ", DimsString(x.dims()), " does not match weights with ",
                                                     k_, " rows"));
    }
    Dims out_dims = x.dims();
    out_dims.back() = n_;
    if (x.rank() == 1) out_dims = {n_};
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, out_dims));
    const size_t batch = k_ > 0 ? static_cast<size_t>(x.numel() / k_) : 0;
    if (batch == 0) return absl::OkStatus();
    if (batch != batch_) {
      pool_ = ctx.threadpool_for(static_cast<double>(batch) * k_ * n_, kMinParallelMacs);
      xnn_status s = xnn_reshape_fully_connected_nc_f32(op_.get(), batch, pool_);
      if (s != xnn_status_success) return XnnError(s, "reshape fully connected");
      batch_ = batch;
    }
    xnn_status s = xnn_setup_fully_connected_nc_f32(op_.get(), x.data<float>(), (out)->data<float>());
    if (s != xnn_status_success) return XnnError(s, "setup fully connected");
    s = xnn_run_operator(op_.get(), pool_);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "run fully connected");
  }
  bool PackedInput(size_t i) const override { return i == 1 || i == 2; }

 private:
  int64_t k_, n_;
  XnnOperator op_;
  bool gemm_;
  size_t batch_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the batch size
};

// MatMul(A, B) of two activations: batch dims broadcast, rank >= 2 each.
// Other dtypes and 1-D operands go to the portable kernel.
class BatchMatMulKernel : public OpKernel {
 public:
  BatchMatMulKernel(XnnOperator op, std::unique_ptr<OpKernel> fallback)
      : op_(std::move(op)), fallback_(std::move(fallback)) {}
  absl::Status Run(KernelContext& ctx) override {
    auto a = ctx.RequiredInput(0);
    auto b = ctx.RequiredInput(1);
    if (!a.ok() || !b.ok()) return absl::InvalidArgumentError("MatMul needs 2 inputs");
    const Tensor& ta = **a;
    const Tensor& tb = **b;
    if (ta.dtype() != DataType::kFloat || tb.dtype() != DataType::kFloat || ta.rank() < 2 || tb.rank() < 2) {
      return fallback_->Run(ctx);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto plan, PlanMatMul(ta.dims(), tb.dims()));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, plan.out));
    if ((out)->numel() == 0) return absl::OkStatus();
    if (plan.k == 0) {
      std::memset((out)->raw(), 0, (out)->byte_size());
      return absl::OkStatus();
    }
    const size_t nb = plan.batch.size();
    std::vector<size_t> ba(nb, 1), bb(nb, 1);
    Dims adims = ta.rank() >= 2 ? Dims(ta.dims().begin(), ta.dims().end() - 2) : Dims{};
    Dims bdims = tb.rank() >= 2 ? Dims(tb.dims().begin(), tb.dims().end() - 2) : Dims{};
    for (size_t i = 0; i < adims.size(); ++i) ba[nb - adims.size() + i] = adims[i];
    for (size_t i = 0; i < bdims.size(); ++i) bb[nb - bdims.size() + i] = bdims[i];
    std::vector<size_t> key = ba;
    key.insert(key.end(), bb.begin(), bb.end());
    key.push_back(plan.m);
    key.push_back(plan.k);
    key.push_back(plan.n);
    if (key != shape_key_) {
      pool_ = ctx.threadpool_for(static_cast<double>((out)->numel()) * plan.k, kMinParallelMacs);
      // XNNPACK memcpy's the batch dims: no null pointer even for zero of them.
      static const size_t kNoBatchDims[1] = {1};
      xnn_status s = xnn_reshape_batch_matrix_multiply_nc_f32(op_.get(), nb, nb == 0 ? kNoBatchDims : ba.data(),
                                                              nb == 0 ? kNoBatchDims : bb.data(), plan.m, plan.k,
                                                              plan.n, &workspace_size_, &workspace_alignment_,
                                                              pool_);
      if (s != xnn_status_success) return XnnError(s, "reshape batch matrix multiply");
      shape_key_ = key;
    }
    std::shared_ptr<Buffer> workspace = workspace_size_ > 0 ? ctx.pool()->Acquire(workspace_size_) : nullptr;
    xnn_status s = xnn_setup_batch_matrix_multiply_nc_f32(op_.get(), workspace ? workspace->data() : nullptr,
                                                          ta.data<float>(), tb.data<float>(), (out)->data<float>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    ctx.pool()->Release(std::move(workspace));
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "batch matrix multiply");
  }

 private:
  XnnOperator op_;
  std::unique_ptr<OpKernel> fallback_;
  std::vector<size_t> shape_key_;
  size_t workspace_size_ = 0, workspace_alignment_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the shapes
};

// Conv NCHW via NHWC: transposes in and out around XNNPACK's convolution;
// none for the session's internal NHWC Conv (plan/nhwc_layout.h).
class ConvKernel : public OpKernel {
 public:
  ConvKernel(XnnOperator op, int64_t c, int64_t m, int64_t macs_per_output, bool one_d, bool nhwc)
      : op_(std::move(op)), c_(c), m_(m), macs_per_output_(macs_per_output), one_d_(one_d), nhwc_(nhwc) {}
  bool PackedInput(size_t i) const override { return i == 1 || i == 2; }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    const int64_t want_rank = one_d_ ? 3 : 4;
    if (x.dtype() != DataType::kFloat || x.rank() != want_rank || x.dim(nhwc_ ? 3 : 1) != c_) {
      return absl::InvalidArgumentError(absl::StrCat("Conv: input ", DimsString(x.dims()), " does not match ", c_,
                                                     "-channel weights"));
    }
    if (nhwc_) return RunNhwc(ctx, x);
    const int64_t n = x.dim(0), h = one_d_ ? 1 : x.dim(2), w = x.dim(want_rank - 1);
    PT2ONNX_RETURN_IF_ERROR(Reshape(ctx, n, h, w));
    Dims out_dims = one_d_ ? Dims{n, m_, ow_} : Dims{n, m_, oh_, ow_};
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, out_dims));
    if ((out)->numel() == 0 || x.numel() == 0) return absl::OkStatus();
    std::shared_ptr<Buffer> nhwc_in = ctx.pool()->Acquire(x.byte_size());
    std::shared_ptr<Buffer> nhwc_out = ctx.pool()->Acquire((out)->byte_size());
    std::shared_ptr<Buffer> workspace = workspace_size_ > 0 ? ctx.pool()->Acquire(workspace_size_) : nullptr;
    const int64_t hw = h * w, ohw = oh_ * ow_;
    float* in = reinterpret_cast<float*>(nhwc_in->data());
    for (int64_t b = 0; b < n; ++b) {
      const float* src = x.data<float>() + b * c_ * hw;
      float* dst = in + b * c_ * hw;
      for (int64_t ch = 0; ch < c_; ++ch)
        for (int64_t p = 0; p < hw; ++p) dst[p * c_ + ch] = src[ch * hw + p];
    }
    xnn_status s = xnn_setup_convolution2d_nhwc_f32(op_.get(), workspace ? workspace->data() : nullptr, in,
                                                    reinterpret_cast<float*>(nhwc_out->data()));
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    if (s == xnn_status_success) {
      const float* res = reinterpret_cast<const float*>(nhwc_out->data());
      for (int64_t b = 0; b < n; ++b) {
        const float* src = res + b * m_ * ohw;
        float* dst = (out)->data<float>() + b * m_ * ohw;
        for (int64_t p = 0; p < ohw; ++p)
          for (int64_t ch = 0; ch < m_; ++ch) dst[ch * ohw + p] = src[p * m_ + ch];
      }
    }
    ctx.pool()->Release(std::move(nhwc_in));
    ctx.pool()->Release(std::move(nhwc_out));
    ctx.pool()->Release(std::move(workspace));
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "convolution");
  }

 private:
  absl::Status Reshape(KernelContext& ctx, int64_t n, int64_t h, int64_t w) {
    if (n == key_n_ && h == key_h_ && w == key_w_) return absl::OkStatus();
    size_t oh = 0, ow = 0;
    pool_ = ctx.threadpool();
    xnn_status s = xnn_reshape_convolution2d_nhwc_f32(op_.get(), n, h, w, &workspace_size_, &workspace_alignment_,
                                                      &oh, &ow, pool_);
    const double macs = static_cast<double>(n) * oh * ow * m_ * macs_per_output_;
    if (s == xnn_status_success && pool_ != nullptr && ctx.threadpool_for(macs, kMinParallelMacs) == nullptr) {
      pool_ = nullptr;
      s = xnn_reshape_convolution2d_nhwc_f32(op_.get(), n, h, w, &workspace_size_, &workspace_alignment_, &oh, &ow,
                                             pool_);
    }
    if (s != xnn_status_success) {
      key_n_ = -1;
      return XnnError(s, "reshape convolution");
    }
    key_n_ = n;
    key_h_ = h;
    key_w_ = w;
    oh_ = static_cast<int64_t>(oh);
    ow_ = static_cast<int64_t>(ow);
    return absl::OkStatus();
  }

  absl::Status RunNhwc(KernelContext& ctx, const Tensor& x) {
    PT2ONNX_RETURN_IF_ERROR(Reshape(ctx, x.dim(0), x.dim(1), x.dim(2)));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, {x.dim(0), oh_, ow_, m_}));
    if ((out)->numel() == 0 || x.numel() == 0) return absl::OkStatus();
    std::shared_ptr<Buffer> workspace = workspace_size_ > 0 ? ctx.pool()->Acquire(workspace_size_) : nullptr;
    xnn_status s = xnn_setup_convolution2d_nhwc_f32(op_.get(), workspace ? workspace->data() : nullptr,
                                                    x.data<float>(), (out)->data<float>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    ctx.pool()->Release(std::move(workspace));
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "convolution");
  }

  XnnOperator op_;
  int64_t c_, m_, macs_per_output_;
  bool one_d_, nhwc_;
  int64_t key_n_ = -1, key_h_ = -1, key_w_ = -1;  // the input the operator is reshaped for
  pthreadpool_t pool_ = nullptr;                    // chosen with it
  int64_t oh_ = 0, ow_ = 0;
  size_t workspace_size_ = 0, workspace_alignment_ = 0;
};

constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<std::unique_ptr<OpKernel>> CreateFullyConnected(const KernelCreateInfo& info, bool gemm) {
  const ir::Node& node = info.node;
  const Tensor* w = info.constant_inputs.size() > 1 ? info.constant_inputs[1] : nullptr;
  if (!IsConstF32(w, 2)) return std::unique_ptr<OpKernel>();
  bool trans_b = false;
  const Tensor* bias = nullptr;
  if (gemm) {
    if (AttrInt(node, "transA", 0) != 0 || AttrFloat(node, "alpha", 1) != 1.0f) return std::unique_ptr<OpKernel>();
    trans_b = AttrInt(node, "transB", 0) != 0;
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
      bias = info.constant_inputs[2];
      if (!IsConstF32(bias, -1) || AttrFloat(node, "beta", 1) != 1.0f) return std::unique_ptr<OpKernel>();
    }
  }
  const int64_t k = trans_b ? w->dim(1) : w->dim(0), n = trans_b ? w->dim(0) : w->dim(1);
  if (bias != nullptr && !(bias->numel() == n && (bias->rank() == 1 || (bias->rank() == 2 && bias->dim(0) == 1)))) {
    return std::unique_ptr<OpKernel>();
  }
  if (k == 0 || n == 0) return std::unique_ptr<OpKernel>();
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_fully_connected_nc_f32(k, n, k, n, w->data<float>(), bias ? bias->data<float>() : nullptr,
                                                   -kInf, kInf, trans_b ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS, nullptr,
                                                   nullptr, &op);
  if (s != xnn_status_success) return std::unique_ptr<OpKernel>();
  return std::unique_ptr<OpKernel>(new FullyConnectedKernel(k, n, XnnOperator(op), gemm));
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateFullyConnectedWithBias(const Tensor& w, const Tensor& bias) {
  if (!XnnReady() || !IsConstF32(&w, 2) || !IsConstF32(&bias, 1) || bias.numel() != w.dim(1) || w.numel() == 0) {
    return std::unique_ptr<OpKernel>();
  }
  const int64_t k = w.dim(0), n = w.dim(1);
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_fully_connected_nc_f32(k, n, k, n, w.data<float>(), bias.data<float>(), -kInf, kInf,
                                                   XNN_FLAG_TRANSPOSE_WEIGHTS, nullptr, nullptr, &op);
  if (s != xnn_status_success) return std::unique_ptr<OpKernel>();
  return std::unique_ptr<OpKernel>(new FullyConnectedKernel(k, n, XnnOperator(op), false));
}

namespace {

absl::StatusOr<std::unique_ptr<OpKernel>> CreateConv(const KernelCreateInfo& info, bool nhwc) {
  const ir::Node& node = info.node;
  const Tensor* w = info.constant_inputs.size() > 1 ? info.constant_inputs[1] : nullptr;
  if (!IsConstF32(w, -1) || (w->rank() != 3 && w->rank() != 4)) return std::unique_ptr<OpKernel>();
  const Tensor* bias = nullptr;
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    bias = info.constant_inputs[2];
    if (!IsConstF32(bias, 1) || bias->numel() != w->dim(0)) return std::unique_ptr<OpKernel>();
  }
  auto attrs = ReadWindowAttrs(node);
  if (!attrs.ok() || (attrs->auto_pad != "NOTSET" && attrs->auto_pad != "VALID")) return std::unique_ptr<OpKernel>();
  const bool one_d = w->rank() == 3;
  if (nhwc && one_d) return std::unique_ptr<OpKernel>();
  // A fused activation's range (plan/nhwc_layout.h).
  const float out_min = AttrFloat(node, "output_min", -kInf), out_max = AttrFloat(node, "output_max", kInf);
  const int64_t group = AttrInt(node, "group", 1);
  const int64_t m = w->dim(0), cg = w->dim(1);
  const int64_t kh = one_d ? 1 : w->dim(2), kw = w->dim(w->rank() - 1);
  if (group < 1 || m % group != 0 || m == 0 || cg == 0) return std::unique_ptr<OpKernel>();
  const size_t ns = one_d ? 1 : 2;
  auto at = [&](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.size() == ns ? v[i] : fallback; };
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
  if (attrs->auto_pad == "NOTSET" && !attrs->pads.empty()) {
    if (attrs->pads.size() != 2 * ns) return std::unique_ptr<OpKernel>();
    if (one_d) { pads[1] = attrs->pads[0]; pads[3] = attrs->pads[1]; }
    else { pads[0] = attrs->pads[0]; pads[1] = attrs->pads[1]; pads[2] = attrs->pads[2]; pads[3] = attrs->pads[3]; }
  }
  int64_t sh = one_d ? 1 : at(attrs->strides, 0, 1), sw = at(attrs->strides, ns - 1, 1);
  int64_t dh = one_d ? 1 : at(attrs->dilations, 0, 1), dw = at(attrs->dilations, ns - 1, 1);
  for (int64_t v : {pads[0], pads[1], pads[2], pads[3], sh, sw, dh, dw, kh, kw}) {
    if (v < 0 || v > (1 << 20)) return std::unique_ptr<OpKernel>();
  }
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1) return std::unique_ptr<OpKernel>();
  // ONNX [M, C/g, kh, kw] -> XNNPACK [g, M/g, kh, kw, C/g].
  const int64_t ksz = kh * kw;
  std::vector<float> packed(static_cast<size_t>(m * cg * ksz));
  for (int64_t o = 0; o < m; ++o)
    for (int64_t i = 0; i < cg; ++i)
      for (int64_t p = 0; p < ksz; ++p) packed[(o * ksz + p) * cg + i] = w->data<float>()[(o * cg + i) * ksz + p];
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_convolution2d_nhwc_f32(
      pads[0], pads[3], pads[2], pads[1], kh, kw, sh, sw, dh, dw, group, cg, m / group, cg * group, m, packed.data(),
      bias ? bias->data<float>() : nullptr, out_min, out_max, 0, nullptr, nullptr, &op);
  if (s != xnn_status_success) return std::unique_ptr<OpKernel>();
  return std::unique_ptr<OpKernel>(new ConvKernel(XnnOperator(op), cg * group, m, cg * ksz, one_d, nhwc));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateBatchMatMul(const KernelCreateInfo& info) {
  PT2ONNX_ASSIGN_OR_RETURN(auto fallback, FindKernel("MatMul")->factory(info));
  xnn_operator_t op = nullptr;
  if (xnn_create_batch_matrix_multiply_nc_f32(0, &op) != xnn_status_success) return std::unique_ptr<OpKernel>();
  return std::unique_ptr<OpKernel>(new BatchMatMulKernel(XnnOperator(op), std::move(fallback)));
}

}  // namespace

bool AcceleratorAvailable() { return XnnReady(); }

absl::StatusOr<std::unique_ptr<OpKernel>> CreateAcceleratedKernel(const KernelCreateInfo& info) {
  const std::string& op = info.node.op_type;
  if (!XnnReady()) return std::unique_ptr<OpKernel>();
  if (info.node.domain == kRuntimeDomain) {
    if (op == "Conv") return CreateConv(info, true);
    if (op == "QConvNhwc" || op == "QFullyConnected") return CreateInt8Kernel(info);
    if (op == "Add" || op == "Mul") return CreateNhwcActivatedKernel(info);
    PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> int8, CreateInt8ElementwiseKernel(info));
    return int8 != nullptr ? std::move(int8) : CreateNhwcPoolKernel(info);
  }
  if (!info.node.domain.empty()) return std::unique_ptr<OpKernel>();
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Softmax" || op == "Gelu" ||
      op == "Transpose" || op == "HardSwish" || op == "Sigmoid" || op == "Tanh") {
    return CreateXnnElementwiseKernel(info);
  }
  if (op == "LSTM" || op == "GRU" || op == "RNN") return CreateAcceleratedRecurrentKernel(info);
  if (op != "MatMul" && op != "Gemm" && op != "Conv") return std::unique_ptr<OpKernel>();
  if (op == "Gemm") return CreateFullyConnected(info, true);
  if (op == "Conv") {
    const Tensor* w = info.constant_inputs.size() > 1 ? info.constant_inputs[1] : nullptr;
    return w != nullptr && w->rank() == 5 ? CreateXnnConv3dKernel(info) : CreateConv(info, false);
  }
  // MatMul: constant 2-D weights -> fully connected; else batch matmul when
  // both operands are float32 activations of rank >= 2 (checked at run time).
  const Tensor* w = info.constant_inputs.size() > 1 ? info.constant_inputs[1] : nullptr;
  if (w != nullptr) return w->rank() == 2 && w->dtype() == DataType::kFloat ? CreateFullyConnected(info, false)
                                                                            : std::unique_ptr<OpKernel>();
  return CreateBatchMatMul(info);
}

}  // namespace pt2onnx::runtime
