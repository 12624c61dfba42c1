// File: runtime/kernels/generate.cc
// -----------------------------------------------------------------------------
// Value-producing ops without a natural family: Cast (every numeric dtype,
// half types included), BitCast, Constant, Range, Trilu, CumSum, CumProd.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/tensor/convert.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// Cast(to): float -> int truncates toward zero (as C and ONNX Runtime do),
// non-zero -> true, half types round to nearest even.
class CastKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    to_ = static_cast<DataType>(AttrInt(info.node, "to", 0));
    if (ElementSize(to_) == 0 || IsComplex(to_) || (to_ >= DataType::kFloat8E4M3FN)) {
      return absl::UnimplementedError(absl::StrCat("Cast to dtype ", DataTypeName(to_), " is not supported"));
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, to_, (in)->dims()));
    return CastInto(*in, *out);
  }

 private:
  DataType to_ = DataType::kUndefined;
};

// BitCast(to) (opset 26): the same bytes read as another dtype of the same
// width (torch's Tensor.view(dtype)); shapes are equal.
class BitCastKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    to_ = static_cast<DataType>(AttrInt(info.node, "to", 0));
    if (ElementSize(to_) == 0 || to_ >= DataType::kFloat8E4M3FN) {
      return absl::UnimplementedError(absl::StrCat("BitCast to dtype ", DataTypeName(to_), " is not supported"));
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    if (ElementSize(in->dtype()) != ElementSize(to_)) {
      return absl::InvalidArgumentError(absl::StrCat("BitCast from ", DataTypeName(in->dtype()), " to ",
                                                     DataTypeName(to_), ": the widths differ"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, to_, in->dims()));
    const size_t bytes = static_cast<size_t>(in->numel()) * ElementSize(to_);
    if (bytes > 0) std::memcpy(out->raw(), in->raw(), bytes);
    return absl::OkStatus();
  }

 private:
  DataType to_ = DataType::kUndefined;
};

class ConstantKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto value, ConstantNodeValue(info.node));
    value_ = std::move(value);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    ctx.SetOutput(0, value_);
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

class RangeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    const Tensor* s = ctx.input(0);
    const Tensor* l = ctx.input(1);
    const Tensor* d = ctx.input(2);
    if (!s || !l || !d || s->numel() != 1 || l->numel() != 1 || d->numel() != 1) {
      return absl::InvalidArgumentError("Range: start, limit and delta must be scalars");
    }
    absl::Status inner = absl::OkStatus();
    absl::Status status = VisitDtype(s->dtype(), kFloats | kInts, "Range", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T start = s->data<T>()[0], limit = l->data<T>()[0], delta = d->data<T>()[0];
        if (delta == 0) { inner = absl::InvalidArgumentError("Range: delta is 0"); return; }
        double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
        if (!(count < 9.0e15)) { inner = absl::InvalidArgumentError("Range: too many elements"); return; }
        int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
        auto out = ctx.AllocateOutput(0, s->dtype(), {n});
        if (!out.ok()) { inner = out.status(); return; }
        T* po = (*out)->data<T>();
        for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(start + static_cast<T>(i) * delta);
      }
    });
    return status.ok() ? inner : status;
  }
};

class TriluKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    upper_ = AttrInt(info.node, "upper", 1) != 0;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    const Tensor& x = *in;
    if (x.rank() < 2) return absl::InvalidArgumentError("Trilu: input rank must be >= 2");
    int64_t k = 0;
    if (ctx.input(1) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(1), "Trilu k"));
      if (read.size() != 1) return absl::InvalidArgumentError("Trilu: k must be a scalar");
      k = (read)[0];
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int size = ElementSize(x.dtype());
    const int64_t matrices = rows * cols > 0 ? x.numel() / (rows * cols) : 0;
    std::memset((out)->raw(), 0, (out)->byte_size());
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          // Overflow-safe test of j - i >= k (upper) / j - i <= k (lower).
          const bool keep = upper_ ? (j - i >= k) : (j - i <= k);
          if (!keep) continue;
          const int64_t e = (m * rows + i) * cols + j;
          std::memcpy((out)->raw() + e * size, x.raw() + e * size, size);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool upper_ = true;
};

// CumSum, and CumProd (opset 26; same attributes, identity 1).
template <bool kProduct>
class ScanKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    exclusive_ = AttrInt(info.node, "exclusive", 0) != 0;
    reverse_ = AttrInt(info.node, "reverse", 0) != 0;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto in = ctx.RequiredInput(0);
    auto axis_t = ctx.RequiredInput(1);
    const char* name = kProduct ? "CumProd" : "CumSum";
    const char* axis_name = kProduct ? "CumProd axis" : "CumSum axis";
    if (!in.ok() || !axis_t.ok()) return absl::InvalidArgumentError(absl::StrCat(name, " needs 2 inputs"));
    const Tensor& x = **in;
    PT2ONNX_ASSIGN_OR_RETURN(auto axis_v, ReadInts(**axis_t, axis_name));
    if (axis_v.size() != 1) return absl::InvalidArgumentError(absl::StrCat(name, ": axis must be a scalar"));
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis((axis_v)[0], x.rank(), axis_name));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t len = x.dim(axis);
    return VisitDtype(x.dtype(), kFloats | kInts, name, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            T acc = kProduct ? T(1) : T(0);
            for (int64_t j = 0; j < len; ++j) {
              const int64_t jj = reverse_ ? len - 1 - j : j;
              const int64_t e = (o * len + jj) * inner + i;
              if (exclusive_) {
                po[e] = acc;
                acc = Combine(acc, px[e]);
              } else {
                acc = Combine(acc, px[e]);
                po[e] = acc;
              }
            }
          }
        }
      }
    });
  }

 private:
  // Integer products wrap, as ONNX Runtime's and torch's do (computed unsigned: no UB).
  template <typename T>
  static T Combine(T acc, T v) {
    if constexpr (!kProduct) {
      return static_cast<T>(acc + v);
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v));
    } else {
      return static_cast<T>(acc * v);
    }
  }
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace

extern const KernelRegistration kGenerateKernels[] = {
    {"Cast", MakeKernel<CastKernel>, HalfMode::kNative},
    {"BitCast", MakeKernel<BitCastKernel>, HalfMode::kNative},
    {"Constant", MakeKernel<ConstantKernel>, HalfMode::kNative},
    {"Range", MakeKernel<RangeKernel>, HalfMode::kNative},
    {"Trilu", MakeKernel<TriluKernel>, HalfMode::kNative},
    {"CumSum", MakeKernel<ScanKernel<false>>, HalfMode::kViaFloat32},
    {"CumProd", MakeKernel<ScanKernel<true>>, HalfMode::kViaFloat32},
};
extern const size_t kNumGenerateKernels = sizeof(kGenerateKernels) / sizeof(kGenerateKernels[0]);

}  // namespace pt2onnx::runtime
