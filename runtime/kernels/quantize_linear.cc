// File: runtime/kernels/quantize_linear.cc
// -----------------------------------------------------------------------------
// QuantizeLinear and DequantizeLinear on the float path: every quantized
// value is computed element by element, per tensor, per axis (opset 13) or
// per block (opset 21, attribute block_size). The accelerated plan runs the
// QDQ patterns it knows as int8 steps instead (plan/qdq_int8.h); these
// kernels compute everything else, and the numbers those steps are tested
// against.
//
//   QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
//   DequantizeLinear: y = (x - zero_point) * scale
//
// x / scale is a float32 division as the ONNX specification writes it (ONNX
// Runtime's CPU kernel too); the quantized dtype is the zero point's, else
// the attribute output_dtype (opset 21), else uint8. Half-precision scales
// are widened by the session (kViaFloat32) and the result rounded back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/quantize_rows.h"

namespace pt2onnx::runtime {
namespace {

// Where each element of x finds its scale and zero point.
struct ParamLayout {
  int64_t outer = 1;   // product of dims before the axis
  int64_t extent = 1;  // x's size along the axis
  int64_t inner = 1;   // product of dims after the axis
  int64_t block = 0;   // 0: per tensor or per axis; else elements per block along the axis
  bool per_tensor = true;

  int64_t ParamIndex(int64_t i) const {
    if (per_tensor) return 0;
    const int64_t along = (i / inner) % extent;
    if (block == 0) return along;
    const int64_t blocks = (extent + block - 1) / block;
    return ((i / inner / extent) * blocks + along / block) * inner + i % inner;
  }
};

absl::StatusOr<ParamLayout> LayoutFor(const char* op, const Tensor& x, const Tensor& scale, int64_t axis_attr,
                                      int64_t block_size) {
  ParamLayout p;
  if (block_size <= 0 && scale.numel() == 1 && scale.rank() <= 1) return p;
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, x.rank()));
  p.per_tensor = false;
  p.extent = x.dim(axis);
  for (int64_t d = 0; d < axis; ++d) p.outer *= x.dim(d);
  for (int64_t d = axis + 1; d < x.rank(); ++d) p.inner *= x.dim(d);
  if (block_size <= 0) {
    if (scale.rank() != 1 || scale.dim(0) != p.extent) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": a per-axis scale must be 1-D of x's size ", p.extent,
                                                     " along axis ", axis, ", got ", DimsString(scale.dims())));
    }
    return p;
  }
  p.block = block_size;
  Dims want = x.dims();
  want[axis] = (p.extent + block_size - 1) / block_size;
  if (scale.dims() != want) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": a blocked scale (block_size ", block_size, ") must be ",
                                                   DimsString(want), " for x ", DimsString(x.dims()), ", got ",
                                                   DimsString(scale.dims())));
  }
  return p;
}

absl::Status CheckZeroPoint(const char* op, const Tensor* zero_point, const Tensor& scale) {
  if (zero_point == nullptr) return absl::OkStatus();
  if (zero_point->dims() != scale.dims() && !(zero_point->numel() == 1 && scale.numel() == 1)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": zero point ", DimsString(zero_point->dims()),
                                                   " and scale ", DimsString(scale.dims()), " differ in shape"));
  }
  return absl::OkStatus();
}

bool IsQuantizedDtype(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8 || t == DataType::kInt16 || t == DataType::kUint16 ||
         t == DataType::kInt32;
}

class QuantizeLinearKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 1);
    block_size_ = AttrInt(info.node, "block_size", 0);
    const int64_t out = AttrInt(info.node, "output_dtype", 0);
    if (out != 0) output_dtype_ = static_cast<DataType>(out);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(scale, 1);
    const Tensor* zero_point = ctx.input(2);
    if (x.dtype() != DataType::kFloat || scale.dtype() != DataType::kFloat) {
      return absl::UnimplementedError(absl::StrCat("QuantizeLinear from ", DataTypeName(x.dtype()), " with a ",
                                                   DataTypeName(scale.dtype()), " scale"));
    }
    PT2ONNX_RETURN_IF_ERROR(CheckZeroPoint("QuantizeLinear", zero_point, scale));
    const DataType qtype = zero_point != nullptr ? zero_point->dtype() : output_dtype_;
    if (!IsQuantizedDtype(qtype) || qtype == DataType::kInt32) return UnsupportedDtype("QuantizeLinear", qtype);
    PT2ONNX_ASSIGN_OR_RETURN(ParamLayout layout, LayoutFor("QuantizeLinear", x, scale, axis_, block_size_));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, qtype, x.dims()));
    const float* px = x.data<float>();
    const float* ps = scale.data<float>();
    return VisitDtype(qtype, kInts, "QuantizeLinear", [&](auto tag) {
      using Q = decltype(tag);
      constexpr float kLow = static_cast<float>(std::numeric_limits<Q>::lowest());
      constexpr float kHigh = static_cast<float>(std::numeric_limits<Q>::max());
      const Q* pz = zero_point != nullptr ? zero_point->data<Q>() : nullptr;
      Q* py = y->data<Q>();
      if constexpr (std::is_same_v<Q, int8_t> || std::is_same_v<Q, uint8_t>) {
        if (scale.numel() == 1) {  // per tensor, 8-bit: the int8 plan's boundaries, vectorised
          QuantizeRow(px, py, x.numel(), ps[0], pz != nullptr ? static_cast<int32_t>(pz[0]) : 0);
          return;
        }
      }
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t k = layout.ParamIndex(i);
        const float zp = pz != nullptr ? static_cast<float>(pz[k]) : 0.0f;
        // nearbyint rounds half to even in the default rounding mode, as ONNX asks.
        float v = std::nearbyint(px[i] / ps[k]) + zp;
        v = std::isnan(v) ? 0.0f : std::min(std::max(v, kLow), kHigh);
        py[i] = static_cast<Q>(v);
      }
    });
  }

 private:
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUint8;
};

class DequantizeLinearKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 1);
    block_size_ = AttrInt(info.node, "block_size", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(scale, 1);
    const Tensor* zero_point = ctx.input(2);
    if (scale.dtype() != DataType::kFloat) return UnsupportedDtype("DequantizeLinear scale", scale.dtype());
    if (!IsQuantizedDtype(x.dtype())) return UnsupportedDtype("DequantizeLinear", x.dtype());
    if (zero_point != nullptr && zero_point->dtype() != x.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("DequantizeLinear: zero point ", DataTypeName(zero_point->dtype()),
                                                     " differs from x ", DataTypeName(x.dtype())));
    }
    PT2ONNX_RETURN_IF_ERROR(CheckZeroPoint("DequantizeLinear", zero_point, scale));
    PT2ONNX_ASSIGN_OR_RETURN(ParamLayout layout, LayoutFor("DequantizeLinear", x, scale, axis_, block_size_));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, DataType::kFloat, x.dims()));
    const float* ps = scale.data<float>();
    float* py = y->data<float>();
    return VisitDtype(x.dtype(), kInts, "DequantizeLinear", [&](auto tag) {
      using Q = decltype(tag);
      const Q* px = x.data<Q>();
      const Q* pz = zero_point != nullptr ? zero_point->data<Q>() : nullptr;
      if constexpr (std::is_same_v<Q, int8_t> || std::is_same_v<Q, uint8_t>) {
        if (scale.numel() == 1) {  // per tensor, 8-bit, vectorised
          DequantizeRow(px, py, x.numel(), ps[0], pz != nullptr ? static_cast<int32_t>(pz[0]) : 0);
          return;
        }
      }
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t k = layout.ParamIndex(i);
        // The difference is exact in int64; one rounding to float, then the product.
        const int64_t q = static_cast<int64_t>(px[i]) - (pz != nullptr ? static_cast<int64_t>(pz[k]) : 0);
        py[i] = static_cast<float>(q) * ps[k];
      }
    });
  }

 private:
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
};

}  // namespace

extern const KernelRegistration kQuantizeKernels[] = {
    {"QuantizeLinear", MakeKernel<QuantizeLinearKernel>, HalfMode::kViaFloat32},
    {"DequantizeLinear", MakeKernel<DequantizeLinearKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumQuantizeKernels = sizeof(kQuantizeKernels) / sizeof(kQuantizeKernels[0]);

}  // namespace pt2onnx::runtime
