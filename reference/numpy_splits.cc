// File: reference/numpy_splits.cc
// -----------------------------------------------------------------------------
// Reference kernels for the splits that ops/split_meshgrid.cc adds beside
// tensor_split's int overloads (those are in joining.cc): tensor_split by a
// tensor of indices, and NumPy's hsplit / vsplit / dsplit
// (torch/_refs/__init__.py: tensor_split along dim 1 (dim 0 of a 1-D
// tensor), 0 or 2; an int section count must divide that dim).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"
#include "reference/shape_support.h"

namespace pt2onnx::reference {
namespace {

// Piece j is self[bounds[j-1]:bounds[j]] along dim (Python slice rules).
absl::Status SplitAt(RefCall& call, const Tensor& self, int64_t dim, const std::vector<int64_t>& bounds) {
  std::vector<Tensor> outs;
  int64_t start = 0;
  for (size_t i = 0; i <= bounds.size(); ++i) {
    const int64_t end = i < bounds.size() ? bounds[i] : self.dim(dim);
    PT2ONNX_ASSIGN_OR_RETURN(Tensor part, SliceDim(self, dim, start, end, 1));
    outs.push_back(std::move(part));
    start = end;
  }
  return call.SetTensors(std::move(outs));
}

// `sections` pieces, the first n % sections one element longer.
absl::Status SplitEven(RefCall& call, const Tensor& self, int64_t dim, int64_t sections) {
  if (sections <= 0) return call.Invalid("number of sections must be larger than 0");
  const int64_t n = self.dim(dim);
  std::vector<int64_t> bounds;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < sections; ++i) {
    at += n / sections + (i < n % sections ? 1 : 0);
    bounds.push_back(at);
  }
  return SplitAt(call, self, dim, bounds);
}

// aten::tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]
absl::Status TensorSplitTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor split, call.Input("tensor_indices_or_sections"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  if (self.rank() == 0) return call.Invalid("tensor_split expects at least a 1-dimensional tensor");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  if (split.dtype() != DataType::kInt64 || split.rank() > 1) {
    return call.Invalid("tensor_indices_or_sections must be a 0-d or 1-D int64 tensor");
  }
  if (split.rank() == 0) return SplitEven(call, self, dim, LoadInt(split, 0));
  return SplitAt(call, self, dim, ToInts(split));
}

absl::StatusOr<int64_t> NumpyDim(RefCall& call, const Tensor& self, int64_t min_rank, int64_t dim) {
  if (self.rank() < min_rank) {
    return call.Invalid(absl::StrCat("needs a tensor of at least ", min_rank, " dims, got ", self.rank()));
  }
  return min_rank == 1 && self.rank() == 1 ? 0 : dim;
}

absl::Status NumpySplitInt(RefCall& call, int64_t min_rank, int64_t dim_for_rank) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, NumpyDim(call, self, min_rank, dim_for_rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t sections, call.Int("sections"));
  if (sections <= 0 || self.dim(dim) % sections != 0) {
    return call.Invalid(absl::StrCat("dim ", dim, " of size ", self.dim(dim), " is not divisible by ", sections));
  }
  return SplitEven(call, self, dim, sections);
}

absl::Status NumpySplitArray(RefCall& call, int64_t min_rank, int64_t dim_for_rank) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, NumpyDim(call, self, min_rank, dim_for_rank));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, call.Ints("indices"));
  return SplitAt(call, self, dim, indices);
}

// aten::hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
absl::Status HsplitInt(RefCall& call) { return NumpySplitInt(call, 1, 1); }
// aten::hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
absl::Status HsplitArray(RefCall& call) { return NumpySplitArray(call, 1, 1); }
// aten::vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
absl::Status VsplitInt(RefCall& call) { return NumpySplitInt(call, 2, 0); }
// aten::vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
absl::Status VsplitArray(RefCall& call) { return NumpySplitArray(call, 2, 0); }
// aten::dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
absl::Status DsplitInt(RefCall& call) { return NumpySplitInt(call, 3, 2); }
// aten::dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
absl::Status DsplitArray(RefCall& call) { return NumpySplitArray(call, 3, 2); }

}  // namespace

void RegisterNumpySplitsRef(RefRegistry& r) {
  r.Add("aten::tensor_split.tensor_indices_or_sections", TensorSplitTensor);
  r.Add("aten::hsplit.int", HsplitInt);
  r.Add("aten::hsplit.array", HsplitArray);
  r.Add("aten::vsplit.int", VsplitInt);
  r.Add("aten::vsplit.array", VsplitArray);
  r.Add("aten::dsplit.int", DsplitInt);
  r.Add("aten::dsplit.array", DsplitArray);
}

}  // namespace pt2onnx::reference
