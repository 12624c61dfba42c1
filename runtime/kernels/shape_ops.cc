// File: runtime/kernels/shape_ops.cc
// -----------------------------------------------------------------------------
// Data movement that never looks at values: Reshape, Squeeze, Unsqueeze,
// Identity (aliases, no copy), Transpose, Expand, Tile, Concat, Split.
// They copy whole elements, so every dtype (half types included) works.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {


class IdentityKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    ctx.SetOutput(0, x);
    return absl::OkStatus();
  }
};

class ReshapeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    allow_zero_ = AttrInt(info.node, "allowzero", 0) != 0;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(shape_t, 1);
    PT2ONNX_ASSIGN_OR_RETURN(auto shape, ReadInts(shape_t, "Reshape shape"));
    Dims dims = shape;
    int64_t infer = -1, known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0 && !allow_zero_) {
        if (i >= x.dims().size()) return absl::InvalidArgumentError("Reshape: 0 copies a dim past the input's rank");
        dims[i] = x.dim(i);
      }
      if (dims[i] == -1) {
        if (infer >= 0) return absl::InvalidArgumentError("Reshape: more than one -1");
        infer = static_cast<int64_t>(i);
      } else if (dims[i] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("Reshape: invalid dim ", dims[i]));
      } else {
        if (dims[i] > 0 && known > INT64_MAX / dims[i]) return absl::InvalidArgumentError("Reshape: shape too large");
        known *= dims[i];
      }
    }
    if (infer >= 0) {
      if (known == 0 || x.numel() % known != 0) {
        return absl::InvalidArgumentError(absl::StrCat("Reshape: cannot reshape ", DimsString(x.dims()), " to ",
                                                       DimsString(shape)));
      }
      dims[infer] = x.numel() / known;
    }
    auto n = CheckedNumel(dims);
    if (!n.ok() || *n != x.numel()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Reshape: cannot reshape ", DimsString(x.dims()), " to ", DimsString(shape)));
    }
    ctx.SetOutput(0, x.Alias(dims));
    return absl::OkStatus();
  }

 private:
  bool allow_zero_ = false;
};

// Squeeze / Unsqueeze: axes from input 1 (opset 13+).
template <bool kUnsqueeze>
class SqueezeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    std::vector<int64_t> axes;
    if (ctx.input(1) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(1), "axes"));
      axes = read;
    }
    Dims dims;
    if (kUnsqueeze) {
      const int64_t rank = x.rank() + static_cast<int64_t>(axes.size());
      std::vector<bool> inserted(rank, false);
      for (int64_t a : axes) {
        PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(a, rank, "Unsqueeze axis"));
        if (inserted[axis]) return absl::InvalidArgumentError("Unsqueeze: repeated axis");
        inserted[axis] = true;
      }
      size_t next = 0;
      for (int64_t i = 0; i < rank; ++i) dims.push_back(inserted[i] ? 1 : x.dim(next++));
    } else {
      std::vector<bool> removed(x.rank(), false);
      for (int64_t a : axes) {
        PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(a, x.rank(), "Squeeze axis"));
        if (x.dim(axis) != 1) {
          return absl::InvalidArgumentError(absl::StrCat("Squeeze: dim ", axis, " of ", DimsString(x.dims()),
                                                         " is not 1"));
        }
        removed[axis] = true;
      }
      for (int64_t i = 0; i < x.rank(); ++i) {
        if (axes.empty() ? x.dim(i) != 1 : !removed[i]) dims.push_back(x.dim(i));
      }
    }
    ctx.SetOutput(0, x.Alias(dims));
    return absl::OkStatus();
  }
};

class TransposeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    perm_ = AttrInts(info.node, "perm");
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) {
      for (int64_t i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
    }
    if (static_cast<int64_t>(perm.size()) != x.rank()) {
      return absl::InvalidArgumentError("Transpose: perm length differs from the input's rank");
    }
    std::vector<int64_t> in_strides = ContiguousStrides(x.dims());
    std::vector<bool> seen(perm.size(), false);
    Dims dims;
    std::vector<int64_t> strides;
    for (int64_t p : perm) {
      PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(p, x.rank(), "Transpose perm"));
      if (seen[axis]) return absl::InvalidArgumentError("Transpose: perm repeats an axis");
      seen[axis] = true;
      dims.push_back(x.dim(axis));
      strides.push_back(in_strides[axis]);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    StridedCopy(x, 0, strides, *out);
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> perm_;
};

class ExpandKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(shape_t, 1);
    PT2ONNX_ASSIGN_OR_RETURN(auto shape, ReadInts(shape_t, "Expand shape"));
    PT2ONNX_ASSIGN_OR_RETURN(auto dims, BroadcastDims(x.dims(), shape));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    StridedCopy(x, 0, BroadcastStrides(x.dims(), dims), *out);
    return absl::OkStatus();
  }
};

class TileKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(repeats_t, 1);
    PT2ONNX_ASSIGN_OR_RETURN(auto repeats, ReadInts(repeats_t, "Tile repeats"));
    if (static_cast<int64_t>(repeats.size()) != x.rank()) {
      return absl::InvalidArgumentError("Tile: repeats length differs from the input's rank");
    }
    Dims dims(x.rank());
    for (int64_t i = 0; i < x.rank(); ++i) {
      if ((repeats)[i] < 0 || (x.dim(i) > 0 && (repeats)[i] > (int64_t{1} << 40) / x.dim(i))) {
        return absl::InvalidArgumentError("Tile: repeat negative or too large");
      }
      dims[i] = x.dim(i) * (repeats)[i];
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), dims));
    if ((out)->numel() == 0) return absl::OkStatus();
    const int64_t size = ElementSize(x.dtype());
    uint8_t* po = (out)->raw();
    const int64_t rank = x.rank();
    if (rank == 0) {
      std::memcpy(po, x.raw(), size);
      return absl::OkStatus();
    }
    // Block copies, innermost axis first: each input row lands at its place and is repeated along the
    // last axis; then, for each outer axis, the finished block of its first x.dim(d) indices is
    // copied repeats[d] - 1 times after itself.
    const std::vector<int64_t> out_strides = ContiguousStrides(dims);
    const int64_t row = x.dim(rank - 1);
    std::vector<int64_t> index(rank, 0);
    // The offset in `out` of `index` over axes [0, axes), then the index advanced over x's extents.
    auto offset = [&](int64_t axes) {
      int64_t o = 0;
      for (int64_t a = 0; a < axes; ++a) o += index[a] * out_strides[a];
      return o;
    };
    auto advance = [&](int64_t axes) {
      for (int64_t a = axes; a-- > 0;) {
        if (++index[a] < x.dim(a)) return;
        index[a] = 0;
      }
    };
    for (int64_t r = 0, rows = x.numel() / row; r < rows; ++r, advance(rank - 1)) {
      uint8_t* dst = po + offset(rank - 1) * size;
      for (int64_t k = 0; k < repeats[rank - 1]; ++k) std::memcpy(dst + k * row * size, x.raw() + r * row * size, row * size);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (repeats[d] == 1) continue;
      const int64_t block = x.dim(d) * out_strides[d] * size;
      int64_t slabs = 1;
      for (int64_t a = 0; a < d; ++a) slabs *= x.dim(a);
      std::fill(index.begin(), index.end(), 0);
      for (int64_t s = 0; s < slabs; ++s, advance(d)) {
        uint8_t* base = po + offset(d) * size;
        for (int64_t k = 1; k < repeats[d]; ++k) std::memcpy(base + k * block, base, block);
      }
    }
    return absl::OkStatus();
  }
};

class ConcatKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    if (!HasAttr(info.node, "axis")) return absl::InvalidArgumentError("Concat: axis attribute missing");
    axis_ = AttrInt(info.node, "axis", 0);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(first, 0);
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, first.rank(), "Concat axis"));
    Dims dims = first.dims();
    dims[axis] = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      PT2ONNX_INPUT(t, i);
      if (t.rank() != first.rank() || t.dtype() != first.dtype()) {
        return absl::InvalidArgumentError("Concat: inputs differ in rank or dtype");
      }
      for (int64_t d = 0; d < t.rank(); ++d) {
        if (d != axis && t.dim(d) != first.dim(d)) {
          return absl::InvalidArgumentError(absl::StrCat("Concat: shapes ", DimsString(first.dims()), " and ",
                                                         DimsString(t.dims()), " differ off the axis"));
        }
      }
      dims[axis] += t.dim(axis);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, first.dtype(), dims));
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
    int64_t inner = ElementSize(first.dtype());
    for (int64_t d = axis + 1; d < first.rank(); ++d) inner *= dims[d];
    const int64_t out_row = dims[axis] * inner;
    int64_t column = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = *ctx.input(i);
      const int64_t row = t.dim(axis) * inner;
      for (int64_t o = 0; o < outer && row > 0; ++o) {
        std::memcpy((out)->raw() + o * out_row + column, t.raw() + o * row, row);
      }
      column += row;
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

class SplitKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 0);
    num_outputs_ = static_cast<int64_t>(info.node.outputs.size());
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, x.rank(), "Split axis"));
    std::vector<int64_t> sizes;
    const int64_t total = x.dim(axis);
    if (ctx.input(1) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(1), "Split sizes"));
      sizes = read;
      int64_t sum = 0;
      for (int64_t s : sizes) {
        if (s < 0) return absl::InvalidArgumentError("Split: negative size");
        sum += s;
      }
      if (sum != total || static_cast<int64_t>(sizes.size()) != num_outputs_) {
        return absl::InvalidArgumentError("Split: sizes do not add up to the axis length / output count");
      }
    } else {
      const int64_t chunk = (total + num_outputs_ - 1) / num_outputs_;
      for (int64_t i = 0, left = total; i < num_outputs_; ++i, left -= chunk) sizes.push_back(std::max<int64_t>(0, std::min(chunk, left)));
    }
    int64_t start = 0;
    for (int64_t i = 0; i < num_outputs_; ++i) {
      Dims dims = x.dims();
      dims[axis] = sizes[i];
      PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(i, x.dtype(), dims));
      StridedCopy(x, start * ContiguousStrides(x.dims())[axis], ContiguousStrides(x.dims()), *out);
      start += sizes[i];
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = 0;
  int64_t num_outputs_ = 1;
};

}  // namespace

extern const KernelRegistration kShapeKernels[] = {
    {"Identity", MakeKernel<IdentityKernel>, HalfMode::kNative},
    {"Reshape", MakeKernel<ReshapeKernel>, HalfMode::kNative},
    {"Squeeze", MakeKernel<SqueezeKernel<false>>, HalfMode::kNative},
    {"Unsqueeze", MakeKernel<SqueezeKernel<true>>, HalfMode::kNative},
    {"Transpose", MakeKernel<TransposeKernel>, HalfMode::kNative},
    {"Expand", MakeKernel<ExpandKernel>, HalfMode::kNative},
    {"Tile", MakeKernel<TileKernel>, HalfMode::kNative},
    {"Concat", MakeKernel<ConcatKernel>, HalfMode::kNative},
    {"Split", MakeKernel<SplitKernel>, HalfMode::kNative},
};
extern const size_t kNumShapeKernels = sizeof(kShapeKernels) / sizeof(kShapeKernels[0]);

}  // namespace pt2onnx::runtime
