// File: runtime/kernels/pool.cc
// -----------------------------------------------------------------------------
// MaxPool (with optional Indices), AveragePool (count_include_pad, ceil_mode,
// dilations) and GlobalAveragePool / GlobalMaxPool, NC[D]HW, 1-3 spatial dims.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/window.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// max(a, b) as MaxPool takes it: a NaN wins.
template <typename T>
inline T MaxOf(T best, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v) && !std::isnan(best)) return v;
  }
  return v > best ? v : best;
}

// One pass of a separable max pool: along the middle dim of [outer, in,
// inner], each output position the max of its window (the lowest value when
// no position of it is inside the input).
template <typename T>
void MaxAlong(const T* x, int64_t outer, const WindowDim& w, int64_t inner, T* y) {
  T lowest = std::numeric_limits<T>::lowest();
  if constexpr (std::is_floating_point_v<T>) lowest = -std::numeric_limits<T>::infinity();
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t o = 0; o < w.out; ++o) {
      T* row = y + (a * w.out + o) * inner;
      std::fill_n(row, inner, lowest);
      const int64_t start = o * w.stride - w.pad_begin;
      for (int64_t k = 0; k < w.kernel; ++k) {
        const int64_t i = start + k * w.dilation;
        if (i < 0 || i >= w.in) continue;
        const T* src = x + (a * w.in + i) * inner;
        for (int64_t b = 0; b < inner; ++b) row[b] = MaxOf(row[b], src[b]);
      }
    }
  }
}

template <bool kMax>
class PoolKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto attrs, ReadWindowAttrs(info.node));
    attrs_ = attrs;
    if (attrs_.kernel_shape.empty()) return absl::InvalidArgumentError("pooling needs kernel_shape");
    count_include_pad_ = AttrInt(info.node, "count_include_pad", 0) != 0;
    if (AttrInt(info.node, "storage_order", 0) != 0) {
      return absl::UnimplementedError("MaxPool: storage_order=1 (column-major indices) is not supported");
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.rank() < 3) return absl::InvalidArgumentError("pooling input must have rank >= 3");
    Dims in(x.dims().begin() + 2, x.dims().end());
    PT2ONNX_ASSIGN_OR_RETURN(auto window, ResolveWindow(attrs_, in, attrs_.kernel_shape, kMax ? "MaxPool" : "AveragePool"));
    Dims out_dims = {x.dim(0), x.dim(1)};
    for (const WindowDim& d : window) out_dims.push_back(d.out);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    int64_t* indices = nullptr;
    if (kMax && ctx.num_outputs() > 1) {
      PT2ONNX_ASSIGN_OR_RETURN(auto idx, ctx.AllocateOutput(1, DataType::kInt64, out_dims));
      indices = (idx)->data<int64_t>();
    }
    // Pad the geometry to 3 spatial dims.
    WindowDim w[3];
    const size_t off = 3 - window.size();
    for (size_t i = 0; i < window.size(); ++i) w[off + i] = (window)[i];
    for (size_t i = 0; i < off; ++i) w[i] = WindowDim{1, 1, 1, 1, 0, 0, 1};
    const int64_t planes = x.dim(0) * x.dim(1);
    const int64_t in_size = w[0].in * w[1].in * w[2].in, out_size = w[0].out * w[1].out * w[2].out;
    return VisitDtype(x.dtype(), kMax ? (kFloats | kInts) : kFloats, kMax ? "MaxPool" : "AveragePool", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        T* py = (out)->data<T>();
        if (kMax && indices == nullptr) {
          // Max is separable: one pass a dim (kernel sum, not product, reads an element).
          std::vector<T> last(static_cast<size_t>(w[0].in * w[1].in * w[2].out));
          std::vector<T> middle(static_cast<size_t>(w[0].in * w[1].out * w[2].out));
          for (int64_t p = 0; p < planes; ++p) {
            MaxAlong(px + p * in_size, w[0].in * w[1].in, w[2], 1, last.data());
            MaxAlong(last.data(), w[0].in, w[1], w[2].out, middle.data());
            MaxAlong(middle.data(), 1, w[0], w[1].out * w[2].out, py + p * out_size);
          }
          return;
        }
        for (int64_t p = 0; p < planes; ++p) {
          const T* xplane = px + p * in_size;
          for (int64_t o0 = 0; o0 < w[0].out; ++o0)
          for (int64_t o1 = 0; o1 < w[1].out; ++o1)
          for (int64_t o2 = 0; o2 < w[2].out; ++o2) {
            const int64_t o[3] = {o0, o1, o2};
            double sum = 0;
            int64_t count = 0, pad_count = 1, best_at = -1;
            T best = std::numeric_limits<T>::lowest();
            if constexpr (std::is_floating_point_v<T>) best = -std::numeric_limits<T>::infinity();
            int64_t start[3];
            for (int a = 0; a < 3; ++a) {
              start[a] = o[a] * w[a].stride - w[a].pad_begin;
              // count_include_pad counts the padded area, not the ceil_mode overhang.
              int64_t positions = 0;
              for (int64_t k = 0; k < w[a].kernel; ++k) {
                const int64_t i = start[a] + k * w[a].dilation;
                if (i < w[a].in + w[a].pad_end) ++positions;
              }
              pad_count *= positions;
            }
            for (int64_t k0 = 0; k0 < w[0].kernel; ++k0) {
              const int64_t i0 = start[0] + k0 * w[0].dilation;
              if (i0 < 0 || i0 >= w[0].in) continue;
              for (int64_t k1 = 0; k1 < w[1].kernel; ++k1) {
                const int64_t i1 = start[1] + k1 * w[1].dilation;
                if (i1 < 0 || i1 >= w[1].in) continue;
                for (int64_t k2 = 0; k2 < w[2].kernel; ++k2) {
                  const int64_t i2 = start[2] + k2 * w[2].dilation;
                  if (i2 < 0 || i2 >= w[2].in) continue;
                  const int64_t at = (i0 * w[1].in + i1) * w[2].in + i2;
                  const T v = xplane[at];
                  if (kMax) {
                    bool nan = false;
                    if constexpr (std::is_floating_point_v<T>) nan = std::isnan(v) && !std::isnan(best);
                    if (nan || v > best) { best = v; best_at = at; }
                  } else {
                    sum += v;
                  }
                  ++count;
                }
              }
            }
            const int64_t e = p * out_size + (o0 * w[1].out + o1) * w[2].out + o2;
            if (kMax) {
              py[e] = best;
              if (indices != nullptr) indices[e] = p * in_size + best_at;
            } else {
              const int64_t divisor = count_include_pad_ ? pad_count : count;
              py[e] = static_cast<T>(divisor > 0 ? sum / divisor : NAN);
            }
          }
        }
      }
    });
  }

 private:
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
};

template <bool kMax>
class GlobalPoolKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.rank() < 3) return absl::InvalidArgumentError("global pooling input must have rank >= 3");
    Dims dims = {x.dim(0), x.dim(1)};
    int64_t size = 1;
    for (int64_t d = 2; d < x.rank(); ++d) {
      dims.push_back(1);
      size *= x.dim(d);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    const int64_t planes = x.dim(0) * x.dim(1);
    return VisitDtype(x.dtype(), kFloats, "GlobalPool", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        for (int64_t p = 0; p < planes; ++p) {
          const T* row = x.data<T>() + p * size;
          double acc = kMax ? -INFINITY : 0;
          for (int64_t i = 0; i < size; ++i) acc = kMax ? (std::isnan(row[i]) || row[i] > acc ? row[i] : acc) : acc + row[i];
          (out)->data<T>()[p] = static_cast<T>(kMax ? acc : acc / static_cast<double>(size));
        }
      }
    });
  }
};

}  // namespace

extern const KernelRegistration kPoolKernels[] = {
    {"MaxPool", MakeKernel<PoolKernel<true>>, HalfMode::kViaFloat32},
    {"AveragePool", MakeKernel<PoolKernel<false>>, HalfMode::kViaFloat32},
    {"GlobalAveragePool", MakeKernel<GlobalPoolKernel<false>>, HalfMode::kViaFloat32},
    {"GlobalMaxPool", MakeKernel<GlobalPoolKernel<true>>, HalfMode::kViaFloat32},
};
extern const size_t kNumPoolKernels = sizeof(kPoolKernels) / sizeof(kPoolKernels[0]);

}  // namespace pt2onnx::runtime
