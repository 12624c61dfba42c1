// File: runtime/kernels/int8_elementwise.cc
// -----------------------------------------------------------------------------
// The int8 plan's elementwise steps (plan/qdq_int8_elementwise.cc): int8 in,
// int8 out, each input with its (scale, zero point), the output's Q clamped
// to [y_min, y_max] (a Relu or Clip the plan folded in).
//
//   QAdd, QMul    the QDQ graph's float32 arithmetic on int8 rows (exact;
//                 XNNPACK's qs8 add requantizes in fixed point and rounds
//                 ties up, not to even: a sum of 0.75 a + 0.5 b lands on a
//                 tie in about one element in eight).
//   QUnary        a 256-entry table, Q(f(DQ(x))) for every int8 x, computed
//                 at creation with the executor's own float32 kernel of f:
//                 the numbers its float path gives the QDQ graph.
//   QMean         XNNPACK's qs8 mean (int32 sums, one requantization): within
//                 one step of the float mean.
//   QConcat       copies; an input whose parameters differ from the output's
//                 is requantized as DQ -> Q computes it, exactly.
//   QShiftToInt8, QShiftToUint8   x xor 0x80: the uint8 <-> int8 twins of
//                 plan/qdq_int8_rewriter.h.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"
#include "runtime/kernels/xnn_util.h"
#include "pthreadpool.h"
#include "xnnpack.h"

namespace pt2onnx::runtime {
namespace {

struct QParam {
  float scale = 1;
  int32_t zero = 0;
};

struct OutputRange {
  QParam q;
  int8_t min = -128, max = 127;
  int8_t nan = 0;  // what Q makes of NaN: the integer 0 of the Q's dtype (-128 for a shifted uint8)
  bool clamps() const { return min != -128 || max != 127; }
};

OutputRange ReadOutput(const ir::Node& node) {
  return OutputRange{{AttrFloat(node, "y_scale", 1), static_cast<int32_t>(AttrInt(node, "y_zero_point", 0))},
                     static_cast<int8_t>(AttrInt(node, "y_min", -128)),
                     static_cast<int8_t>(AttrInt(node, "y_max", 127)),
                     static_cast<int8_t>(AttrInt(node, "y_uint8", 0) != 0 ? -128 : 0)};
}

QParam ReadParam(const ir::Node& node, const char* scale, const char* zero) {
  return QParam{AttrFloat(node, scale, 1), static_cast<int32_t>(AttrInt(node, zero, 0))};
}

// DequantizeLinear's and QuantizeLinear's float arithmetic (kernels/quantize_linear.cc).
float Dequantize(int8_t x, const QParam& q) {
  return static_cast<float>(int32_t{x} - q.zero) * q.scale;
}
int8_t Quantize(float v, const OutputRange& y) {
  if (std::isnan(v)) return std::min(std::max(y.nan, y.min), y.max);
  float r = std::nearbyint(v / y.q.scale) + static_cast<float>(y.q.zero);
  r = std::min(std::max(r, static_cast<float>(y.min)), static_cast<float>(y.max));
  return static_cast<int8_t>(r);
}

absl::StatusOr<const Tensor*> Int8Input(KernelContext& ctx, size_t i, const char* op) {
  PT2ONNX_ASSIGN_OR_RETURN(const Tensor* x, ctx.RequiredInput(i));
  if (x->dtype() != DataType::kInt8) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": input ", i, " is ", DataTypeName(x->dtype()), ", not int8"));
  }
  return x;
}

void Clamp(Tensor& y, const OutputRange& r) {  // a Relu/Clip folded into the Q
  if (!r.clamps()) return;
  int8_t* p = y.data<int8_t>();
  const int64_t n = y.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = std::min(std::max(p[i], r.min), r.max);
}

std::vector<size_t> SizeDims(const Dims& dims) { return std::vector<size_t>(dims.begin(), dims.end()); }

// a (op) b as the QDQ graph computes it: both dequantized in float32, the
// float op, then QuantizeLinear's rounding (kernels/quantize_linear.cc: a
// float32 division, ties to even, clamping to the range before rounding,
// the same integers as rounding first). Rows whose inputs advance by 1 or 0
// are loops the compiler vectorises.
template <bool kAdd, int kStrideA, int kStrideB>
void BinaryRow(const int8_t* a, const int8_t* b, int8_t* y, int64_t n, const QParam& qa, const QParam& qb,
               const OutputRange& out) {
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: (v + kRound) - kRound rounds half to even
  const float za = static_cast<float>(qa.zero), zb = static_cast<float>(qb.zero), zy = static_cast<float>(out.q.zero);
  const float lo = static_cast<float>(out.min) - zy, hi = static_cast<float>(out.max) - zy;
  for (int64_t i = 0; i < n; ++i) {
    const float u = (static_cast<float>(a[i * kStrideA]) - za) * qa.scale;
    const float v = (static_cast<float>(b[i * kStrideB]) - zb) * qb.scale;
    const float c = std::min(std::max((kAdd ? u + v : u * v) / out.q.scale, lo), hi);
    y[i] = static_cast<int8_t>((c + kRound) - kRound + zy);
  }
}

template <bool kAdd>
void BinaryRows(const Tensor& a, const Tensor& b, Tensor& y, const QParam& qa, const QParam& qb,
                const OutputRange& out) {
  const std::vector<int64_t> strides[2] = {BroadcastStrides(a.dims(), y.dims()), BroadcastStrides(b.dims(), y.dims())};
  const int8_t* pa = a.data<int8_t>();
  const int8_t* pb = b.data<int8_t>();
  int8_t* py = y.data<int8_t>();
  ForEachBroadcastRow(y.dims(), strides, [&](int64_t start, const int64_t* offsets, int64_t n, const int64_t* inner) {
    const int8_t* ra = pa + offsets[0];
    const int8_t* rb = pb + offsets[1];
    int8_t* ry = py + start;
    if (inner[0] == 1 && inner[1] == 1) return BinaryRow<kAdd, 1, 1>(ra, rb, ry, n, qa, qb, out);
    if (inner[0] == 1 && inner[1] == 0) return BinaryRow<kAdd, 1, 0>(ra, rb, ry, n, qa, qb, out);
    if (inner[0] == 0 && inner[1] == 1) return BinaryRow<kAdd, 0, 1>(ra, rb, ry, n, qa, qb, out);
    for (int64_t i = 0; i < n; ++i) BinaryRow<kAdd, 0, 0>(ra + i * inner[0], rb + i * inner[1], ry + i, 1, qa, qb, out);
  });
}

class QBinaryKernel : public OpKernel {
 public:
  QBinaryKernel(bool add, QParam a, QParam b, OutputRange y) : add_(add), a_(a), b_(b), y_(y) {}
  absl::Status Run(KernelContext& ctx) override {
    const char* name = add_ ? "int8 Add" : "int8 Mul";
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* a, Int8Input(ctx, 0, name));
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* b, Int8Input(ctx, 1, name));
    PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(a->dims(), b->dims()));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, DataType::kInt8, dims));
    if (add_) {
      BinaryRows<true>(*a, *b, *y, a_, b_, y_);
    } else {
      BinaryRows<false>(*a, *b, *y, a_, b_, y_);
    }
    return absl::OkStatus();
  }

 private:
  bool add_;
  QParam a_, b_;
  OutputRange y_;
};

class QUnaryKernel : public OpKernel {
 public:
  explicit QUnaryKernel(std::array<int8_t, 256> table) : table_(table) {
    // A table that is the identity between two bounds (Relu or Clip between equal parameters) runs as a
    // clamp, a loop GCC vectorises; a lookup stays one load an element.
    lo_ = table_[0x80], hi_ = table_[0x7f];
    for (int v = -128; v < 128; ++v) {
      clamp_ = clamp_ && table_[static_cast<uint8_t>(v)] == std::min<int>(std::max<int>(v, lo_), hi_);
    }
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* x, Int8Input(ctx, 0, "int8 activation"));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, DataType::kInt8, x->dims()));
    if (clamp_) {
      const int8_t* __restrict px = x->data<int8_t>();
      int8_t* __restrict py = y->data<int8_t>();
      const int64_t n = x->numel();  // not re-read: an 8-bit store may alias anything
      for (int64_t i = 0; i < n; ++i) {
        const int8_t v = px[i] < lo_ ? lo_ : px[i];
        py[i] = v > hi_ ? hi_ : v;
      }
      return absl::OkStatus();
    }
    const uint8_t* __restrict px = x->data<uint8_t>();
    int8_t* __restrict py = y->data<int8_t>();
    const int8_t* __restrict table = table_.data();
    const int64_t n = x->numel();
    for (int64_t i = 0; i < n; ++i) py[i] = table[px[i]];
    return absl::OkStatus();
  }

 private:
  std::array<int8_t, 256> table_;  // indexed by the int8 value's bits
  int8_t lo_ = -128, hi_ = 127;
  bool clamp_ = true;
};

// Q(f(DQ(x))) for every int8 x, f the float32 kernel the executor runs for `op` (accelerated where it is).
absl::StatusOr<std::array<int8_t, 256>> UnaryTable(const KernelCreateInfo& info) {
  ir::Node node = info.node;
  node.op_type = AttrString(info.node, "op", "");
  node.domain.clear();
  const QParam x = ReadParam(info.node, "x_scale", "x_zero_point");
  const OutputRange y = ReadOutput(info.node);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, Tensor::Allocate(DataType::kFloat, {256}, nullptr));
  for (int v = -128; v < 128; ++v) values.data<float>()[static_cast<uint8_t>(v)] = Dequantize(static_cast<int8_t>(v), x);
  std::vector<Tensor> bounds;
  std::vector<const Tensor*> inputs = {&values};
  node.inputs = {"x"};
  if (node.op_type == "Clip") {  // the bounds the plan made attributes, as inputs again (opset >= 11)
    for (const char* which : {"min", "max"}) {
      PT2ONNX_ASSIGN_OR_RETURN(Tensor bound, Tensor::Allocate(DataType::kFloat, {}, nullptr));
      const float fallback = which[1] == 'i' ? -std::numeric_limits<float>::infinity()
                                             : std::numeric_limits<float>::infinity();
      bound.data<float>()[0] = AttrFloat(info.node, which, fallback);
      bounds.push_back(std::move(bound));
    }
    inputs = {&values, &bounds[0], &bounds[1]};
    node.inputs = {"x", "min", "max"};
  }
  KernelCreateInfo float_info{node, info.opset, {}, nullptr};
  float_info.constant_inputs.assign(inputs.size(), nullptr);
  for (size_t k = 1; k < inputs.size(); ++k) float_info.constant_inputs[k] = inputs[k];
  PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, CreateAcceleratedKernel(float_info));
  if (kernel == nullptr) {
    const KernelRegistration* reg = FindKernel(node.op_type);
    if (reg == nullptr) return absl::InvalidArgumentError(absl::StrCat("int8 ", node.op_type, ": no float kernel"));
    PT2ONNX_ASSIGN_OR_RETURN(kernel, reg->factory(float_info));
  }
  BufferPool pool;
  KernelContext ctx(inputs, 1, &pool, nullptr);
  PT2ONNX_RETURN_IF_ERROR(kernel->Run(ctx));
  const Tensor& out = ctx.outputs()[0];
  if (out.dtype() != DataType::kFloat || out.numel() != 256) {
    return absl::InternalError(absl::StrCat("int8 ", node.op_type, ": the float kernel did not map 256 values"));
  }
  std::array<int8_t, 256> table;
  for (int i = 0; i < 256; ++i) table[i] = Quantize(out.data<float>()[i], y);
  return table;
}

class QMeanKernel : public OpKernel {
 public:
  QMeanKernel(XnnOperator op, std::vector<int64_t> axes, bool spatial, bool keepdims)
      : op_(std::move(op)), axes_(std::move(axes)), spatial_(spatial), keepdims_(keepdims) {}
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* x, Int8Input(ctx, 0, "int8 mean"));
    const int64_t rank = x->rank();
    std::set<int64_t> axes;
    if (spatial_) {
      for (int64_t d = 2; d < rank; ++d) axes.insert(d);
    } else if (axes_.empty()) {
      for (int64_t d = 0; d < rank; ++d) axes.insert(d);
    }
    for (int64_t a : axes_) {
      PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, rank, "int8 mean axis"));
      axes.insert(axis);
    }
    Dims out_dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (!axes.count(d)) {
        out_dims.push_back(x->dim(d));
      } else if (keepdims_) {
        out_dims.push_back(1);
      }
      if (axes.count(d) && x->dim(d) == 0) {
        return absl::InvalidArgumentError("int8 mean: a reduced axis is empty (the mean of nothing)");
      }
    }
    if (rank > XNN_MAX_TENSOR_DIMS) return absl::InvalidArgumentError("int8 mean: input of more than 6 dimensions");
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, DataType::kInt8, out_dims));
    if (y->numel() == 0) return absl::OkStatus();
    const std::vector<int64_t> axis_list(axes.begin(), axes.end());
    if (x->dims() != x_dims_) {
      pool_ = ctx.threadpool_for(static_cast<double>(x->numel()), kMinParallelElements);
      const std::vector<size_t> xd = SizeDims(x->dims());
      xnn_status s = xnn_reshape_reduce_nd(op_.get(), axis_list.size(), axis_list.data(), xd.size(), xd.data(),
                                           &workspace_size_, &workspace_alignment_, pool_);
      if (s != xnn_status_success) {
        x_dims_.clear();
        return XnnError(s, "reshape int8 mean");
      }
      x_dims_ = x->dims();
    }
    std::shared_ptr<Buffer> workspace = workspace_size_ > 0 ? ctx.pool()->Acquire(workspace_size_) : nullptr;
    xnn_status s = xnn_setup_reduce_nd(op_.get(), workspace ? workspace->data() : nullptr, x->data<int8_t>(),
                                       y->data<int8_t>());
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    ctx.pool()->Release(std::move(workspace));
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "int8 mean");
  }

 private:
  XnnOperator op_;
  std::vector<int64_t> axes_;
  bool spatial_, keepdims_;
  Dims x_dims_;
  size_t workspace_size_ = 0, workspace_alignment_ = 0;
  pthreadpool_t pool_ = nullptr;
};

class QConcatKernel : public OpKernel {
 public:
  QConcatKernel(int64_t axis, std::vector<QParam> inputs, OutputRange y)
      : axis_(axis), inputs_(std::move(inputs)), y_(y) {}
  absl::Status Run(KernelContext& ctx) override {
    if (ctx.num_inputs() != inputs_.size()) return absl::InvalidArgumentError("int8 Concat: input count changed");
    std::vector<const Tensor*> xs;
    for (size_t k = 0; k < inputs_.size(); ++k) {
      PT2ONNX_ASSIGN_OR_RETURN(const Tensor* x, Int8Input(ctx, k, "int8 Concat"));
      xs.push_back(x);
    }
    const int64_t rank = xs[0]->rank();
    PT2ONNX_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_, rank, "int8 Concat axis"));
    Dims dims = xs[0]->dims();
    dims[axis] = 0;
    for (const Tensor* x : xs) {
      for (int64_t d = 0; d < rank; ++d) {
        if (x->rank() != rank || (d != axis && x->dim(d) != dims[d])) {
          return absl::InvalidArgumentError(absl::StrCat("int8 Concat: input ", DimsString(x->dims()), " does not fit ",
                                                         DimsString(xs[0]->dims()), " along axis ", axis));
        }
      }
      dims[axis] += x->dim(axis);
    }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, DataType::kInt8, dims));
    if (y->numel() == 0) return absl::OkStatus();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= dims[d];
    int8_t* py = y->data<int8_t>();
    const int64_t row = dims[axis] * inner;
    int64_t offset = 0;
    for (size_t k = 0; k < xs.size(); ++k) {
      const int64_t chunk = xs[k]->dim(axis) * inner;
      const int8_t* px = xs[k]->data<int8_t>();
      const bool same = inputs_[k].scale == y_.q.scale && inputs_[k].zero == y_.q.zero;
      for (int64_t o = 0; o < outer; ++o) {
        int8_t* dst = py + o * row + offset;
        const int8_t* src = px + o * chunk;
        if (same) {
          std::memcpy(dst, src, static_cast<size_t>(chunk));
        } else {
          for (int64_t i = 0; i < chunk; ++i) dst[i] = Quantize(Dequantize(src[i], inputs_[k]), y_);
        }
      }
      offset += chunk;
    }
    Clamp(*y, y_);
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
  std::vector<QParam> inputs_;
  OutputRange y_;
};

class QShiftKernel : public OpKernel {
 public:
  explicit QShiftKernel(DataType to) : to_(to) {}
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* x, ctx.RequiredInput(0));
    const DataType from = to_ == DataType::kInt8 ? DataType::kUint8 : DataType::kInt8;
    if (x->dtype() != from) {
      return absl::InvalidArgumentError(absl::StrCat("int8 shift: input is ", DataTypeName(x->dtype()), ", not ",
                                                     DataTypeName(from)));
    }
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, to_, x->dims()));
    const uint8_t* __restrict px = x->data<uint8_t>();
    uint8_t* __restrict py = y->data<uint8_t>();
    const int64_t n = x->numel();
    for (int64_t i = 0; i < n; ++i) py[i] = px[i] ^ 0x80;
    return absl::OkStatus();
  }

 private:
  DataType to_;
};

xnn_quantization_params XnnParam(const QParam& q) { return xnn_quantization_params{q.zero, q.scale}; }

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQBinary(const KernelCreateInfo& info, bool add) {
  return std::unique_ptr<OpKernel>(new QBinaryKernel(add, ReadParam(info.node, "a_scale", "a_zero_point"),
                                                     ReadParam(info.node, "b_scale", "b_zero_point"),
                                                     ReadOutput(info.node)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQMean(const KernelCreateInfo& info) {
  const QParam x = ReadParam(info.node, "x_scale", "x_zero_point");
  const OutputRange y = ReadOutput(info.node);
  if (y.clamps()) return absl::InvalidArgumentError("int8 mean: an output range is not supported");
  const xnn_quantization_params qx = XnnParam(x), qy = XnnParam(y.q);
  xnn_operator_t op = nullptr;
  const xnn_status s = xnn_create_reduce_nd(xnn_reduce_mean, xnn_datatype_qint8, &qx, &qy, 0, &op);
  if (s != xnn_status_success) return XnnError(s, "create int8 mean");
  return std::unique_ptr<OpKernel>(new QMeanKernel(XnnOperator(op), AttrInts(info.node, "axes"),
                                                   AttrInt(info.node, "spatial", 0) != 0,
                                                   AttrInt(info.node, "keepdims", 1) != 0));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQConcat(const KernelCreateInfo& info) {
  const ir::Attribute* scale_attr = info.node.FindAttribute("x_scales");
  const std::vector<float> scales = scale_attr != nullptr ? scale_attr->floats() : std::vector<float>{};
  const std::vector<int64_t> zeros = AttrInts(info.node, "x_zero_points");
  if (scales.size() != zeros.size() || scales.size() != info.node.inputs.size()) {
    return absl::InvalidArgumentError("int8 Concat: one scale and zero point per input expected");
  }
  std::vector<QParam> inputs;
  for (size_t k = 0; k < scales.size(); ++k) inputs.push_back(QParam{scales[k], static_cast<int32_t>(zeros[k])});
  return std::unique_ptr<OpKernel>(new QConcatKernel(AttrInt(info.node, "axis", 0), std::move(inputs),
                                                     ReadOutput(info.node)));
}

}  // namespace

bool Int8UnaryTakes(const ir::Node& node) {
  // Elementwise functions of one value (Clip's bounds are constants the plan checks).
  static const std::set<std::string> kOps = {
      "Abs",   "Ceil",     "Celu",     "Clip",     "Cos",   "Elu",  "Erf",   "Exp",      "Floor",
      "Gelu",  "HardSigmoid", "HardSwish", "LeakyRelu", "Log", "Mish", "Neg", "Reciprocal", "Relu",
      "Round", "Selu",     "Sigmoid",  "Sign",     "Sin",   "Softplus", "Softsign", "Sqrt", "Tanh",
      "ThresholdedRelu"};
  return node.domain.empty() && kOps.count(node.op_type) && FindKernel(node.op_type) != nullptr;
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateInt8ElementwiseKernel(const KernelCreateInfo& info) {
  const std::string& op = info.node.op_type;
  if (op == "QAdd" || op == "QMul") return CreateQBinary(info, op == "QAdd");
  if (op == "QUnary") {
    PT2ONNX_ASSIGN_OR_RETURN(auto table, UnaryTable(info));
    return std::unique_ptr<OpKernel>(new QUnaryKernel(table));
  }
  if (op == "QMean") return CreateQMean(info);
  if (op == "QConcat") return CreateQConcat(info);
  if (op == "QShiftToInt8" || op == "QShiftToUint8") {
    return std::unique_ptr<OpKernel>(new QShiftKernel(op == "QShiftToInt8" ? DataType::kInt8 : DataType::kUint8));
  }
  return std::unique_ptr<OpKernel>();
}

}  // namespace pt2onnx::runtime
