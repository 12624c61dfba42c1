// Reference kernels: views and layout ops (view/reshape, (un)squeeze,
// flatten, permute/transpose, expand, slice/select/narrow, as_strided,
// clone/contiguous/alias). Values are row-major: shape-only views share the
// buffer (so in-place ops on them write through, as in torch); views that
// move elements (transpose, slice, expand) are copies.
#include <algorithm>
#include <cstring>
#include <optional>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "reference/shape_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a) (also reshape, _unsafe_view, view_copy)
absl::Status View(RefCall& call, const char* size_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints(size_arg));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, InferSize(size, self.numel()));
  return call.SetTensor(self.Alias(dims));
}
absl::Status ViewOp(RefCall& call) { return View(call, "size"); }
absl::Status ReshapeOp(RefCall& call) { return View(call, "shape"); }

// aten::reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)
absl::Status ReshapeAs(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  if (other.numel() != self.numel()) return call.Invalid("reshape_as: element counts differ");
  return call.SetTensor(self.Alias(other.dims()));
}

// aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
absl::Status Unsqueeze(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim_arg, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, self.rank() + 1));
  Dims dims = self.dims();
  dims.insert(dims.begin() + dim, 1);
  return call.SetTensor(self.Alias(dims));
}

// aten::squeeze(Tensor(a) self) -> Tensor(a); .dim / .dims squeeze only those
// dims, and only where their size is 1.
absl::Status Squeeze(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::vector<bool> drop(self.rank(), false);
  if (call.Has("dim")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.Ints("dim"));
    for (int64_t d : dims) {
      PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, self.rank()));
      if (self.rank() > 0 && self.dims()[w] == 1) drop[w] = true;
    }
  } else {
    for (int64_t d = 0; d < self.rank(); ++d) drop[d] = self.dims()[d] == 1;
  }
  Dims out;
  for (int64_t d = 0; d < self.rank(); ++d) {
    if (!drop[d]) out.push_back(self.dims()[d]);
  }
  return call.SetTensor(self.Alias(out));
}

// aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
absl::Status Flatten(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t s, call.Int("start_dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t e, call.Int("end_dim"));
  if (self.rank() == 0) return call.SetTensor(self.Alias({1}));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t start, WrapDim(s, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t end, WrapDim(e, self.rank()));
  if (start > end) return call.Invalid("flatten() has invalid args: start_dim cannot come after end_dim");
  Dims dims(self.dims().begin(), self.dims().begin() + start);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= self.dims()[d];
  dims.push_back(merged);
  dims.insert(dims.end(), self.dims().begin() + end + 1, self.dims().end());
  return call.SetTensor(self.Alias(dims));
}

// aten::unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)
absl::Status Unflatten(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, call.Ints("sizes"));
  PT2ONNX_ASSIGN_OR_RETURN(Dims inner, InferSize(sizes, self.dims()[dim]));
  Dims dims(self.dims().begin(), self.dims().begin() + dim);
  dims.insert(dims.end(), inner.begin(), inner.end());
  dims.insert(dims.end(), self.dims().begin() + dim + 1, self.dims().end());
  return call.SetTensor(self.Alias(dims));
}

// aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)
absl::Status PermuteOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> perm, call.Ints("dims"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Permute(self, perm));
  return call.SetTensor(std::move(out));
}

absl::Status Swap(RefCall& call, const char* a, const char* b) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d0, call.Int(a));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, call.Int(b));
  if (self.rank() == 0) return call.SetTensor(self);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t w0, WrapDim(d0, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t w1, WrapDim(d1, self.rank()));
  std::vector<int64_t> perm(self.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[w0], perm[w1]);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Permute(self, perm));
  return call.SetTensor(std::move(out));
}
// aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
absl::Status Transpose(RefCall& call) { return Swap(call, "dim0", "dim1"); }
// aten::swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)
absl::Status Swapaxes(RefCall& call) { return Swap(call, "axis0", "axis1"); }
// aten::t(Tensor(a) self) -> Tensor(a)
absl::Status TOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.rank() > 2) return call.Invalid("t() expects a tensor with <= 2 dimensions");
  if (self.rank() < 2) return call.SetTensor(self);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Permute(self, {1, 0}));
  return call.SetTensor(std::move(out));
}

// aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
absl::Status Expand(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  if (size.size() < static_cast<size_t>(self.rank())) return call.Invalid("expand: fewer sizes than dims");
  Dims dims(size.begin(), size.end());
  const size_t shift = size.size() - self.rank();
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == -1) {
      if (d < shift) return call.Invalid("expand: -1 is not allowed for a new leading dim");
      dims[d] = self.dims()[d - shift];
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BroadcastTo(self, dims));
  return call.SetTensor(std::move(out));
}
// aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
absl::Status ExpandAs(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BroadcastTo(self, other.dims()));
  return call.SetTensor(std::move(out));
}

// aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
absl::Status Slice(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, SliceByArgs(call, self));
  return call.SetTensor(std::move(out));
}

// aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
absl::Status Narrow(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t start, call.Int("start"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, call.Int("length"));
  const int64_t n = self.dims()[dim];
  if (start < 0) start += n;
  if (start < 0 || length < 0 || start > n || length > n - start) {
    return call.Invalid("narrow: start and length are out of range");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, SliceDim(self, dim, start, start + length, 1));
  return call.SetTensor(std::move(out));
}

// aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
absl::Status Select(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t index, call.Int("index"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, SelectDim(self, dim, index));
  return call.SetTensor(std::move(out));
}

// aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
// Over the value's row-major elements (its own storage).
absl::Status AsStrided(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.Ints("stride"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> offset, call.OptionalInt("storage_offset"));
  for (int64_t s : size) {
    if (s < 0) return call.Invalid("as_strided: negative size");
  }
  for (int64_t s : stride) {
    if (s < 0) return call.Invalid("as_strided: negative stride");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherStrided(self, Dims(size.begin(), size.end()), stride, offset.value_or(0)));
  return call.SetTensor(std::move(out));
}

// aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor (a copy)
absl::Status Clone(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  return call.SetTensor(std::move(out));
}
// aten::alias(Tensor(a) self) -> Tensor(a); contiguous / detach likewise share the value
absl::Status Alias(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return call.SetTensor(self);
}

// aten::as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor
// A contiguous copy of self; element i of src (row-major over size) lands
// at flat position offset + sum(i_k * stride_k), in order.
absl::Status AsStridedScatter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src_in, call.Input("src"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.Ints("stride"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> offset, call.OptionalInt("storage_offset"));
  if (size.size() != stride.size()) return call.Invalid("as_strided_scatter: size and stride differ in length");
  if (src_in.dims() != Dims(size.begin(), size.end())) return call.Invalid("as_strided_scatter: src must have the view's shape");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, CastTensor(src_in, self.dtype()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  const size_t width = ElementSize(self.dtype());
  std::vector<int64_t> at(size.size(), 0);
  for (int64_t i = 0; i < src.numel(); ++i) {
    int64_t pos = offset.value_or(0);
    for (size_t k = 0; k < size.size(); ++k) pos += at[k] * stride[k];
    if (pos < 0 || pos >= out.numel()) return call.Invalid("as_strided_scatter: the view reaches outside self");
    std::memcpy(out.raw() + pos * width, src.raw() + i * width, width);
    for (int64_t k = static_cast<int64_t>(size.size()) - 1; k >= 0; --k) {
      if (++at[k] < size[k]) break;
      at[k] = 0;
    }
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterViewsRef(RefRegistry& r) {
  r.Add("aten::as_strided_scatter.default", AsStridedScatter);
  r.Add("aten::view.default", ViewOp);
  r.Add("aten::view_copy.default", ViewOp);
  r.Add("aten::_unsafe_view.default", ViewOp);
  r.Add("aten::reshape.default", ReshapeOp);
  r.Add("aten::reshape_as.default", ReshapeAs);
  r.Add("aten::unsqueeze.default", Unsqueeze);
  r.Add("aten::unsqueeze_copy.default", Unsqueeze);
  r.Add("aten::squeeze.default", Squeeze);
  r.Add("aten::squeeze.dim", Squeeze);
  r.Add("aten::squeeze.dims", Squeeze);
  r.Add("aten::squeeze_copy.default", Squeeze);
  r.Add("aten::squeeze_copy.dim", Squeeze);
  r.Add("aten::squeeze_copy.dims", Squeeze);
  r.Add("aten::flatten.using_ints", Flatten);
  r.Add("aten::unflatten.int", Unflatten);
  r.Add("aten::permute.default", PermuteOp);
  r.Add("aten::permute_copy.default", PermuteOp);
  r.Add("aten::transpose.int", Transpose);
  r.Add("aten::transpose_copy.int", Transpose);
  r.Add("aten::swapaxes.default", Swapaxes);
  r.Add("aten::swapdims.default", Transpose);
  r.Add("aten::t.default", TOp);
  r.Add("aten::t_copy.default", TOp);
  r.Add("aten::expand.default", Expand);
  r.Add("aten::expand_copy.default", Expand);
  r.Add("aten::expand_as.default", ExpandAs);
  r.Add("aten::slice.Tensor", Slice);
  r.Add("aten::slice_copy.Tensor", Slice);
  r.Add("aten::narrow.default", Narrow);
  r.Add("aten::narrow_copy.default", Narrow);
  r.Add("aten::select.int", Select);
  r.Add("aten::select_copy.int", Select);
  r.Add("aten::as_strided.default", AsStrided);
  r.Add("aten::as_strided_copy.default", AsStrided);
  r.Add("aten::clone.default", Clone);
  r.Add("aten::lift_fresh_copy.default", Clone);
  r.Add("aten::alias.default", Alias);
  r.Add("aten::alias_copy.default", Clone);
  r.Add("aten::contiguous.default", Alias);
  r.Add("aten::detach.default", Alias);
  r.Add("aten::detach_.default", Alias);
}

}  // namespace pt2onnx::reference
