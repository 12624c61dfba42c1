// File: runtime/kernels/gather_scatter.cc
// -----------------------------------------------------------------------------
// Indexed reads and writes: Gather, GatherElements, GatherND, ScatterElements,
// ScatterND. Every index is bounds-checked (negative ones count from the end);
// an index out of range is an error, never a wild read.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

absl::StatusOr<int64_t> CheckIndex(int64_t index, int64_t size, const char* op) {
  if (index < -size || index >= size) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": index ", index, " is out of range for size ", size));
  }
  return index < 0 ? index + size : index;
}

absl::StatusOr<std::vector<int64_t>> Indices(KernelContext& ctx, size_t i, const char* op) {
  PT2ONNX_ASSIGN_OR_RETURN(auto t, ctx.RequiredInput(i));
  return ReadInts(*t, op);
}

// Input 0 (data), input 1 read as indices, and the indices' dims: what every
// kernel here starts from.
struct IndexedData {
  const Tensor* data;
  std::vector<int64_t> indices;
  const Dims* index_dims;
};

absl::StatusOr<IndexedData> DataAndIndices(KernelContext& ctx, const char* op) {
  PT2ONNX_ASSIGN_OR_RETURN(auto data, ctx.RequiredInput(0));
  PT2ONNX_ASSIGN_OR_RETURN(auto indices, Indices(ctx, 1, op));
  return IndexedData{data, std::move(indices), &ctx.input(1)->dims()};
}

// GatherElements / ScatterElements: the checked axis, with indices of data's
// rank no larger than data on the other dims.
absl::StatusOr<int64_t> ElementsAxis(int64_t axis, const Tensor& x, const Dims& idims, const char* op) {
  PT2ONNX_ASSIGN_OR_RETURN(auto checked, NormalizeAxis(axis, x.rank(), op));
  if (static_cast<int64_t>(idims.size()) != x.rank()) return absl::InvalidArgumentError(absl::StrCat(op, ": rank mismatch"));
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != checked && idims[d] > x.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": indices shape too large"));
    }
  }
  return checked;
}

// GatherND / ScatterND: the element offset that index tuple `t` (k values,
// addressing data dims first_dim...) selects, each index checked.
absl::StatusOr<int64_t> TupleOffset(const std::vector<int64_t>& indices, int64_t t, int64_t k, const Tensor& x,
                                    int64_t first_dim, const std::vector<int64_t>& strides, const char* op) {
  int64_t offset = 0;
  for (int64_t j = 0; j < k; ++j) {
    PT2ONNX_ASSIGN_OR_RETURN(auto idx, CheckIndex(indices[t * k + j], x.dim(first_dim + j), op));
    offset += idx * strides[j];
  }
  return offset;
}

class GatherKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto data, ctx.RequiredInput(0));
    const Tensor& x = *data;
    PT2ONNX_ASSIGN_OR_RETURN(auto indices, Indices(ctx, 1, "Gather indices"));
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, x.rank(), "Gather axis"));
    Dims dims(x.dims().begin(), x.dims().begin() + axis);
    for (int64_t d : ctx.input(1)->dims()) dims.push_back(d);
    for (int64_t d = axis + 1; d < x.rank(); ++d) dims.push_back(x.dim(d));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    int64_t outer = 1, inner = ElementSize(x.dtype());
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t len = x.dim(axis);
    uint8_t* po = (out)->raw();
    const size_t n = indices.size();
    for (size_t k = 0; k < n; ++k) {
      PT2ONNX_ASSIGN_OR_RETURN(auto idx, CheckIndex((indices)[k], len, "Gather"));
      (indices)[k] = idx;
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < n; ++k) {
        std::memcpy(po + (o * n + k) * inner, x.raw() + (o * len + (indices)[k]) * inner, inner);
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

// The elements of an index tensor of `dims`, in row-major order: base() is
// the current element's offset in the data (of `strides`) without its
// coordinate on `axis`, which the index gives. An odometer: no division per
// element.
class AxisWalk {
 public:
  AxisWalk(const Dims& dims, int64_t axis, const std::vector<int64_t>& strides)
      : dims_(dims), axis_(axis), strides_(strides), pos_(dims.size(), 0) {}
  int64_t base() const { return base_; }
  void Next() {
    for (int64_t d = static_cast<int64_t>(dims_.size()) - 1; d >= 0; --d) {
      if (++pos_[d] < dims_[d]) {
        if (d != axis_) base_ += strides_[d];
        return;
      }
      if (d != axis_) base_ -= (dims_[d] - 1) * strides_[d];
      pos_[d] = 0;
    }
  }

 private:
  const Dims& dims_;
  int64_t axis_;
  const std::vector<int64_t>& strides_;
  std::vector<int64_t> pos_;
  int64_t base_ = 0;
};

// An index on an axis of `size`, negative ones from the end; false when out of range.
inline bool WrapIndex(int64_t& index, int64_t size) {
  if (index < -size || index >= size) return false;
  if (index < 0) index += size;
  return true;
}

class GatherElementsKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, DataAndIndices(ctx, "GatherElements indices"));
    const Tensor& x = *in.data;
    const std::vector<int64_t>* indices = &in.indices;
    const Dims& idims = *in.index_dims;
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, ElementsAxis(axis_, x, idims, "GatherElements"));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), idims));
    const int size = ElementSize(x.dtype());
    std::vector<int64_t> strides = ContiguousStrides(x.dims());
    AxisWalk walk(idims, axis, strides);
    for (size_t k = 0; k < indices->size(); ++k, walk.Next()) {
      int64_t idx = (*indices)[k];
      if (!WrapIndex(idx, x.dim(axis))) return CheckIndex(idx, x.dim(axis), "GatherElements").status();
      std::memcpy((out)->raw() + k * size, x.raw() + (walk.base() + idx * strides[axis]) * size, size);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

absl::StatusOr<Reduction> ParseReduction(const ir::Node& node) {
  std::string r = AttrString(node, "reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return absl::InvalidArgumentError("unknown reduction '" + r + "'");
}

// dst = combine(dst, src) for one element of any dtype.
absl::Status Combine(Reduction r, DataType dtype, uint8_t* dst, const uint8_t* src, const char* op) {
  if (r == Reduction::kNone) {
    std::memcpy(dst, src, ElementSize(dtype));
    return absl::OkStatus();
  }
  return VisitDtype(dtype, kAll, op, [&](auto tag) {
    using T = decltype(tag);
    T a, b;
    std::memcpy(&a, dst, sizeof(T));
    std::memcpy(&b, src, sizeof(T));
    T v;
    if constexpr (std::is_same_v<T, bool>) {
      // bool sums and maxima are "or", products and minima "and" (as ATen's bool arithmetic).
      v = (r == Reduction::kAdd || r == Reduction::kMax) ? (a || b) : (a && b);
    } else {
      v = r == Reduction::kAdd ? static_cast<T>(a + b)
          : r == Reduction::kMul ? static_cast<T>(a * b)
          : r == Reduction::kMax ? (a > b ? a : b) : (a < b ? a : b);
    }
    std::memcpy(dst, &v, sizeof(T));
  });
}

class ScatterElementsKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 0);
    PT2ONNX_ASSIGN_OR_RETURN(auto r, ParseReduction(info.node));
    reduction_ = r;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto updates = ctx.RequiredInput(2);
    if (!updates.ok()) return absl::InvalidArgumentError("ScatterElements needs 3 inputs");
    PT2ONNX_ASSIGN_OR_RETURN(auto in, DataAndIndices(ctx, "ScatterElements indices"));
    const Tensor& x = *in.data;
    const std::vector<int64_t>* indices = &in.indices;
    const Dims& idims = *in.index_dims;
    if ((*updates)->dims() != idims || (*updates)->dtype() != x.dtype()) {
      return absl::InvalidArgumentError("ScatterElements: indices/updates shape or dtype mismatch");
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, ElementsAxis(axis_, x, idims, "ScatterElements"));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    if (x.byte_size() > 0) std::memcpy((out)->raw(), x.raw(), x.byte_size());
    const int size = ElementSize(x.dtype());
    std::vector<int64_t> strides = ContiguousStrides(x.dims());
    AxisWalk walk(idims, axis, strides);
    for (size_t k = 0; k < indices->size(); ++k, walk.Next()) {
      int64_t idx = (*indices)[k];
      if (!WrapIndex(idx, x.dim(axis))) return CheckIndex(idx, x.dim(axis), "ScatterElements").status();
      uint8_t* dst = (out)->raw() + (walk.base() + idx * strides[axis]) * size;
      const uint8_t* src = (*updates)->raw() + k * size;
      if (reduction_ == Reduction::kNone) {
        std::memcpy(dst, src, size);
      } else {
        PT2ONNX_RETURN_IF_ERROR(Combine(reduction_, x.dtype(), dst, src, "ScatterElements"));
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = 0;
  Reduction reduction_ = Reduction::kNone;
};

// GatherND / ScatterND share the index-tuple walk: indices [..., k] address
// the first k dims of data (after batch_dims for GatherND).
class GatherNDKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    batch_dims_ = AttrInt(info.node, "batch_dims", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, DataAndIndices(ctx, "GatherND indices"));
    const Tensor& x = *in.data;
    const std::vector<int64_t>* indices = &in.indices;
    const Dims& idims = *in.index_dims;
    const int64_t b = batch_dims_;
    if (idims.empty() || b < 0 || b >= static_cast<int64_t>(idims.size()) || b >= x.rank()) {
      return absl::InvalidArgumentError("GatherND: bad batch_dims or indices rank");
    }
    const int64_t k = idims.back();
    if (k < 1 || b + k > x.rank()) return absl::InvalidArgumentError("GatherND: index tuple too long");
    for (int64_t d = 0; d < b; ++d) {
      if (idims[d] != x.dim(d)) return absl::InvalidArgumentError("GatherND: batch dims differ");
    }
    Dims dims(idims.begin(), idims.end() - 1);
    for (int64_t d = b + k; d < x.rank(); ++d) dims.push_back(x.dim(d));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    int64_t slice = ElementSize(x.dtype());
    for (int64_t d = b + k; d < x.rank(); ++d) slice *= x.dim(d);
    int64_t batch = 1, per_batch_data = 1;
    for (int64_t d = 0; d < b; ++d) batch *= idims[d];
    for (int64_t d = b; d < x.rank(); ++d) per_batch_data *= x.dim(d);
    per_batch_data *= ElementSize(x.dtype());
    const int64_t tuples = static_cast<int64_t>(indices->size()) / k;
    const int64_t per_batch_tuples = batch > 0 ? tuples / batch : 0;
    std::vector<int64_t> strides = ContiguousStrides(Dims(x.dims().begin() + b, x.dims().end()));
    for (int64_t t = 0; t < tuples; ++t) {
      PT2ONNX_ASSIGN_OR_RETURN(auto element, TupleOffset(*indices, t, k, x, b, strides, "GatherND"));
      const int64_t offset =
          (per_batch_tuples > 0 ? t / per_batch_tuples : 0) * per_batch_data + element * ElementSize(x.dtype());
      std::memcpy((out)->raw() + t * slice, x.raw() + offset, slice);
    }
    return absl::OkStatus();
  }

 private:
  int64_t batch_dims_ = 0;
};

class ScatterNDKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto r, ParseReduction(info.node));
    reduction_ = r;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto updates = ctx.RequiredInput(2);
    if (!updates.ok()) return absl::InvalidArgumentError("ScatterND needs 3 inputs");
    PT2ONNX_ASSIGN_OR_RETURN(auto in, DataAndIndices(ctx, "ScatterND indices"));
    const Tensor& x = *in.data;
    const std::vector<int64_t>* indices = &in.indices;
    const Dims& idims = *in.index_dims;
    if (idims.empty()) return absl::InvalidArgumentError("ScatterND: indices must have rank >= 1");
    const int64_t k = idims.back();
    if (k < 1 || k > x.rank()) return absl::InvalidArgumentError("ScatterND: index tuple too long");
    Dims expected(idims.begin(), idims.end() - 1);
    for (int64_t d = k; d < x.rank(); ++d) expected.push_back(x.dim(d));
    if ((*updates)->dims() != expected || (*updates)->dtype() != x.dtype()) {
      return absl::InvalidArgumentError("ScatterND: updates shape or dtype mismatch");
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    if (x.byte_size() > 0) std::memcpy((out)->raw(), x.raw(), x.byte_size());
    const int size = ElementSize(x.dtype());
    int64_t slice = 1;
    for (int64_t d = k; d < x.rank(); ++d) slice *= x.dim(d);
    std::vector<int64_t> strides = ContiguousStrides(x.dims());
    const int64_t tuples = k > 0 ? static_cast<int64_t>(indices->size()) / k : 0;
    for (int64_t t = 0; t < tuples; ++t) {
      PT2ONNX_ASSIGN_OR_RETURN(auto offset_or, TupleOffset(*indices, t, k, x, 0, strides, "ScatterND"));
      const int64_t offset = offset_or;
      for (int64_t e = 0; e < slice; ++e) {
        PT2ONNX_RETURN_IF_ERROR(Combine(reduction_, x.dtype(), (out)->raw() + (offset + e) * size,
                                 (*updates)->raw() + (t * slice + e) * size, "ScatterND"));
      }
    }
    return absl::OkStatus();
  }

 private:
  Reduction reduction_ = Reduction::kNone;
};

}  // namespace

extern const KernelRegistration kGatherScatterKernels[] = {
    {"Gather", MakeKernel<GatherKernel>, HalfMode::kNative},
    {"GatherElements", MakeKernel<GatherElementsKernel>, HalfMode::kNative},
    {"GatherND", MakeKernel<GatherNDKernel>, HalfMode::kNative},
    {"ScatterElements", MakeKernel<ScatterElementsKernel>, HalfMode::kViaFloat32},
    {"ScatterND", MakeKernel<ScatterNDKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumGatherScatterKernels = sizeof(kGatherScatterKernels) / sizeof(kGatherScatterKernels[0]);

}  // namespace pt2onnx::runtime
