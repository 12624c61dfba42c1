// File: runtime/kernels/selection.cc
// -----------------------------------------------------------------------------
// Ordering and data-dependent selection: TopK (stable: equal values keep
// index order, NaN above every number), Unique (sorted=1, flattened or along
// an axis), NonZero and Compress. Output sizes depend on the values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// a < b in the order where NaN is above every number (and equal to NaN).
template <typename T>
bool LessNanLast(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// The dims of x seen as [outer, length, inner] around `axis`.
struct AxisBlocks {
  int64_t outer = 1, length = 1, inner = 1;
};
AxisBlocks BlocksAround(const Dims& dims, int64_t axis) {
  AxisBlocks b;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d < axis) b.outer *= dims[d];
    else if (d == axis) b.length = dims[d];
    else b.inner *= dims[d];
  }
  return b;
}

// TopK(x, k) -> (values, indices), axis / largest / sorted attributes.
class TopKKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", -1);
    largest_ = AttrInt(info.node, "largest", 1) != 0;
    // sorted=0 allows any order; the sorted one is returned.
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(k_tensor, 1);
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, x.rank(), "TopK axis"));
    PT2ONNX_ASSIGN_OR_RETURN(auto ks, ReadInts(k_tensor, "TopK k"));
    const AxisBlocks b = BlocksAround(x.dims(), axis);
    if (ks.size() != 1 || (ks)[0] < 0 || (ks)[0] > b.length) {
      return absl::InvalidArgumentError(absl::StrCat("TopK: k must be one value in [0, ", b.length, "]"));
    }
    const int64_t k = (ks)[0];
    Dims out_dims = x.dims();
    out_dims[axis] = k;
    PT2ONNX_ASSIGN_OR_RETURN(auto values, ctx.AllocateOutput(0, x.dtype(), out_dims));
    PT2ONNX_ASSIGN_OR_RETURN(auto indices, ctx.AllocateOutput(1, DataType::kInt64, out_dims));
    return VisitDtype(x.dtype(), kFloats | kInts, "TopK", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        T* pv = (values)->data<T>();
        int64_t* pi = (indices)->data<int64_t>();
        std::vector<int64_t> order(b.length);
        for (int64_t o = 0; o < b.outer; ++o) {
          for (int64_t in = 0; in < b.inner; ++in) {
            const T* lane = px + o * b.length * b.inner + in;
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
              return largest_ ? LessNanLast(lane[j * b.inner], lane[i * b.inner])
                              : LessNanLast(lane[i * b.inner], lane[j * b.inner]);
            });
            for (int64_t r = 0; r < k; ++r) {
              const int64_t at = (o * k + r) * b.inner + in;
              pv[at] = lane[order[r] * b.inner];
              pi[at] = order[r];
            }
          }
        }
      }
    });
  }

 private:
  int64_t axis_ = -1;
  bool largest_ = true;
};

// Unique(x) -> (y, indices, inverse_indices, counts), sorted ascending.
// Without `axis` the input is flattened; with it, whole slices along the axis
// are compared (lexicographically, row-major).
class UniqueKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    if (AttrInt(info.node, "sorted", 1) != 1) {
      return absl::UnimplementedError("Unique: sorted=0 is not supported (sorted=1 is)");
    }
    has_axis_ = HasAttr(info.node, "axis");
    axis_ = AttrInt(info.node, "axis", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    int64_t axis = 0;
    Dims dims = has_axis_ ? x.dims() : Dims{x.numel()};
    if (has_axis_) {
      PT2ONNX_ASSIGN_OR_RETURN(auto a, NormalizeAxis(axis_, x.rank(), "Unique axis"));
      axis = a;
    }
    const AxisBlocks b = BlocksAround(dims, axis);
    std::vector<int64_t> order(b.length);
    std::iota(order.begin(), order.end(), 0);
    std::vector<int64_t> group_of(b.length);  // position in order -> unique id
    PT2ONNX_RETURN_IF_ERROR(VisitDtype(x.dtype(), kAll, "Unique", [&](auto tag) {
      using T = decltype(tag);
      const T* px = x.data<T>();
      // -1 / 0 / 1 comparison of slices i and j.
      auto compare = [&](int64_t i, int64_t j) {
        for (int64_t o = 0; o < b.outer; ++o) {
          for (int64_t in = 0; in < b.inner; ++in) {
            const T u = px[(o * b.length + i) * b.inner + in], v = px[(o * b.length + j) * b.inner + in];
            if (LessNanLast(u, v)) return -1;
            if (LessNanLast(v, u)) return 1;
          }
        }
        return 0;
      };
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return compare(i, j) < 0; });
      int64_t id = -1;
      for (int64_t p = 0; p < b.length; ++p) {
        if (p == 0 || compare(order[p - 1], order[p]) != 0) ++id;
        group_of[p] = id;
      }
    }));
    const int64_t num_unique = b.length == 0 ? 0 : group_of.back() + 1;
    Dims y_dims = dims;
    y_dims[axis] = num_unique;
    PT2ONNX_ASSIGN_OR_RETURN(auto y, ctx.AllocateOutput(0, x.dtype(), y_dims));
    PT2ONNX_ASSIGN_OR_RETURN(auto first, ctx.AllocateOutput(1, DataType::kInt64, {num_unique}));
    PT2ONNX_ASSIGN_OR_RETURN(auto inverse, ctx.AllocateOutput(2, DataType::kInt64, {b.length}));
    PT2ONNX_ASSIGN_OR_RETURN(auto counts, ctx.AllocateOutput(3, DataType::kInt64, {num_unique}));
    int64_t* pf = (first)->data<int64_t>();
    int64_t* pinv = (inverse)->data<int64_t>();
    int64_t* pc = (counts)->data<int64_t>();
    std::fill(pc, pc + num_unique, 0);
    const int size = ElementSize(x.dtype());
    const uint8_t* px = x.raw();
    uint8_t* py = (y)->raw();
    for (int64_t p = 0; p < b.length; ++p) {
      const int64_t id = group_of[p], src = order[p];
      pinv[src] = id;
      if (pc[id]++ != 0) continue;  // the stable sort puts the first occurrence first
      pf[id] = src;
      for (int64_t o = 0; o < b.outer; ++o) {
        std::memcpy(py + ((o * num_unique + id) * b.inner) * size, px + ((o * b.length + src) * b.inner) * size,
                    static_cast<size_t>(b.inner) * size);
      }
    }
    return absl::OkStatus();
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// NonZero(x) -> int64 (rank, n): the indices of non-zero elements, row-major.
class NonZeroKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    std::vector<int64_t> hits;
    absl::Status status;
    if (x.dtype() == DataType::kFloat16 || x.dtype() == DataType::kBFloat16) {
      const uint16_t* ph = x.data<uint16_t>();  // +0 and -0 are the zeros
      for (int64_t i = 0; i < x.numel(); ++i) {
        if ((ph[i] & 0x7FFF) != 0) hits.push_back(i);
      }
    } else {
      status = VisitDtype(x.dtype(), kAll, "NonZero", [&](auto tag) {
        using T = decltype(tag);
        const T* px = x.data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) {
          if (px[i] != T(0)) hits.push_back(i);
        }
      });
    }
    if (!status.ok()) return status;
    const int64_t rank = x.rank(), n = static_cast<int64_t>(hits.size());
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kInt64, {rank, n}));
    int64_t* po = (out)->data<int64_t>();
    for (int64_t j = 0; j < n; ++j) {
      int64_t linear = hits[j];
      for (int64_t d = rank - 1; d >= 0; --d) {
        po[d * n + j] = linear % x.dim(d);
        linear /= x.dim(d);
      }
    }
    return absl::OkStatus();
  }
};

// Compress(x, condition): the slices along `axis` (flattened x without one)
// whose condition is true; condition may be shorter than the axis.
class CompressKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    has_axis_ = HasAttr(info.node, "axis");
    axis_ = AttrInt(info.node, "axis", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(condition, 1);
    if (condition.dtype() != DataType::kBool || condition.rank() != 1) {
      return absl::InvalidArgumentError("Compress: condition must be a 1-D bool tensor");
    }
    Dims dims = has_axis_ ? x.dims() : Dims{x.numel()};
    int64_t axis = 0;
    if (has_axis_) {
      PT2ONNX_ASSIGN_OR_RETURN(auto a, NormalizeAxis(axis_, x.rank(), "Compress axis"));
      axis = a;
    }
    const AxisBlocks b = BlocksAround(dims, axis);
    const bool* pc = condition.data<bool>();
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < condition.numel(); ++i) {
      if (!pc[i]) continue;
      if (i >= b.length) {
        return absl::InvalidArgumentError(absl::StrCat("Compress: condition selects index ", i,
                                                       " past the axis length ", b.length));
      }
      kept.push_back(i);
    }
    Dims out_dims = dims;
    out_dims[axis] = static_cast<int64_t>(kept.size());
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    const int size = ElementSize(x.dtype());
    const int64_t m = static_cast<int64_t>(kept.size());
    for (int64_t o = 0; o < b.outer; ++o) {
      for (int64_t r = 0; r < m; ++r) {
        std::memcpy((out)->raw() + ((o * m + r) * b.inner) * size, x.raw() + ((o * b.length + kept[r]) * b.inner) * size,
                    static_cast<size_t>(b.inner) * size);
      }
    }
    return absl::OkStatus();
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

extern const KernelRegistration kSelectionKernels[] = {
    {"TopK", MakeKernel<TopKKernel>, HalfMode::kViaFloat32},
    {"Unique", MakeKernel<UniqueKernel>, HalfMode::kViaFloat32},
    {"NonZero", MakeKernel<NonZeroKernel>, HalfMode::kNative},
    {"Compress", MakeKernel<CompressKernel>, HalfMode::kNative},
};
extern const size_t kNumSelectionKernels = sizeof(kSelectionKernels) / sizeof(kSelectionKernels[0]);

}  // namespace pt2onnx::runtime
