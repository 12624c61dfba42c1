// File: reference/unpooling.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/unpooling.cc: max_unpool2d and max_unpool3d as
// the loops of aten/src/ATen/native/cpu/MaxUnpoolKernel.cpp: for each
// (N, C) plane, output[plane][indices[i]] = self[plane][i], in order (a
// repeated index keeps the last value); an index outside the output plane is
// an error.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// The most output elements the kernel allocates (sizes come from the file).
constexpr int64_t kMaxOutput = int64_t{1} << 30;

absl::Status Unpool(RefCall& call, int64_t k) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, call.Input("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> output_size, call.Ints("output_size"));
  if (self.rank() != k + 1 && self.rank() != k + 2) {
    return call.Invalid(absl::StrCat("self must have rank ", k + 1, " or ", k + 2));
  }
  if (indices.dtype() != DataType::kInt64) return call.Invalid("indices must be int64");
  if (indices.dims() != self.dims()) return call.Invalid("indices must have the shape of self");
  if (static_cast<int64_t>(output_size.size()) != k) {
    return call.Invalid(absl::StrCat("output_size must have ", k, " entries"));
  }
  if (k == 3) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.Ints("stride"));
    for (int64_t s : stride) {
      if (s <= 0) return call.Invalid("stride must be positive");
    }
  }
  int64_t out_plane = 1;
  for (int64_t s : output_size) {
    std::optional<int64_t> grown = CheckedMul(out_plane, s);
    if (s < 0 || !grown || *grown > kMaxOutput) return call.Invalid("output_size out of range");
    out_plane = *grown;
  }
  int64_t in_plane = 1;
  for (int64_t i = self.rank() - k; i < self.rank(); ++i) in_plane *= self.dim(i);
  Dims out_dims(self.dims().begin(), self.dims().end() - k);
  int64_t planes = 1;
  for (int64_t d : out_dims) planes *= d;
  std::optional<int64_t> total = CheckedMul(planes, out_plane);
  if (!total || *total > kMaxOutput) return call.Invalid("the output would be too large");
  out_dims.insert(out_dims.end(), output_size.begin(), output_size.end());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), out_dims));
  const bool as_double = IsFloatLike(self.dtype());
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < in_plane; ++i) {
      const int64_t at = p * in_plane + i;
      const int64_t index = LoadInt(indices, at);
      if (index < 0 || index >= out_plane) {
        return call.Invalid(absl::StrCat("index ", index, " outside an output plane of ", out_plane));
      }
      const int64_t to = p * out_plane + index;
      if (as_double) {
        StoreDouble(out, to, LoadDouble(self, at));
      } else {
        StoreInt(out, to, LoadInt(self, at));
      }
    }
  }
  return call.SetTensor(std::move(out));
}

// aten::max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor
absl::Status MaxUnpool2d(RefCall& call) { return Unpool(call, 2); }
// aten::max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor
absl::Status MaxUnpool3d(RefCall& call) { return Unpool(call, 3); }

}  // namespace

void RegisterUnpoolingRef(RefRegistry& r) {
  r.Add("aten::max_unpool2d.default", MaxUnpool2d);
  r.Add("aten::max_unpool3d.default", MaxUnpool3d);
}

}  // namespace pt2onnx::reference
