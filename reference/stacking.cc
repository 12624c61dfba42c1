// File: reference/stacking.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/stacking.cc: hstack, vstack, dstack, column_stack,
// fliplr, flipud, rot90 and view_as, by element index arithmetic on
// row-major buffers (a join copies each input's rows into its column range;
// a flip reads index n - 1 - i; rot90 follows the rotation formula of
// aten/src/ATen/native/TensorTransformations.cpp).
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/aten/type_promotion.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"
#include "reference/shape_support.h"

namespace pt2onnx::reference {
namespace {

// Inputs of `tensors` with their common promoted dtype.
absl::StatusOr<std::vector<Tensor>> ReadTensors(RefCall& call, DataType* dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> all, call.Inputs("tensors"));
  if (all.empty()) return call.Invalid("an empty tensor list");
  *dtype = DataType::kUndefined;
  for (const Tensor& t : all) *dtype = aten::PromoteTypes(*dtype, t.dtype());
  return all;
}

// Joins tensors of equal rank along `dim`; the other sizes must agree.
absl::Status JoinAlong(RefCall& call, const std::vector<Tensor>& parts, int64_t dim, DataType dtype) {
  Dims dims = parts[0].dims();
  int64_t joined = 0;
  for (const Tensor& p : parts) {
    if (p.rank() != parts[0].rank()) return call.Invalid("tensors of different ranks");
    for (int64_t d = 0; d < p.rank(); ++d) {
      if (d != dim && p.dim(d) != dims[d]) return call.Invalid(absl::StrCat("sizes differ in dim ", d));
    }
    joined += p.dim(dim);
  }
  dims[dim] = joined;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dims[d];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < static_cast<int64_t>(dims.size()); ++d) inner *= dims[d];
  const size_t width = ElementSize(dtype);
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor cast, CastTensor(p, dtype));
    const int64_t block = p.dim(dim) * inner;
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(out.raw() + (o * joined * inner + offset) * width, cast.raw() + o * block * width,
                  block * width);
    }
    offset += block;
  }
  return call.SetTensor(std::move(out));
}

// aten::hstack(Tensor[] tensors) -> Tensor
absl::Status Hstack(RefCall& call) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> parts, ReadTensors(call, &dtype));
  for (Tensor& t : parts) {
    if (t.rank() == 0) t = t.Alias({1});
  }
  return JoinAlong(call, parts, parts[0].rank() == 1 ? 0 : 1, dtype);
}

// aten::vstack(Tensor[] tensors) -> Tensor  (and row_stack)
absl::Status Vstack(RefCall& call) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> parts, ReadTensors(call, &dtype));
  for (Tensor& t : parts) {
    if (t.rank() == 0) t = t.Alias({1, 1});
    if (t.rank() == 1) t = t.Alias({1, t.dim(0)});
  }
  return JoinAlong(call, parts, 0, dtype);
}

// aten::dstack(Tensor[] tensors) -> Tensor
absl::Status Dstack(RefCall& call) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> parts, ReadTensors(call, &dtype));
  for (Tensor& t : parts) {
    if (t.rank() == 0) t = t.Alias({1, 1, 1});
    if (t.rank() == 1) t = t.Alias({1, t.dim(0), 1});
    if (t.rank() == 2) t = t.Alias({t.dim(0), t.dim(1), 1});
  }
  return JoinAlong(call, parts, 2, dtype);
}

// aten::column_stack(Tensor[] tensors) -> Tensor
absl::Status ColumnStack(RefCall& call) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> parts, ReadTensors(call, &dtype));
  for (Tensor& t : parts) {
    if (t.rank() <= 1) t = t.Alias({t.numel(), 1});
  }
  return JoinAlong(call, parts, 1, dtype);
}

// A copy of `t` with dim `dim` reversed.
absl::StatusOr<Tensor> Reversed(const Tensor& t, int64_t dim) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(t.dtype(), t.dims()));
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < t.rank(); ++d) inner *= t.dim(d);
  const int64_t n = t.dim(dim);
  const size_t width = ElementSize(t.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t along = (i / inner) % n;
    const int64_t from = i + (n - 1 - 2 * along) * inner;
    std::memcpy(out.raw() + i * width, t.raw() + from * width, width);
  }
  return out;
}

absl::Status FlipDim(RefCall& call, int64_t dim, int64_t min_rank) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.rank() < min_rank) return call.Invalid(absl::StrCat("needs at least ", min_rank, " dims"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Reversed(self, dim));
  return call.SetTensor(std::move(out));
}
// aten::fliplr(Tensor self) -> Tensor
absl::Status Fliplr(RefCall& call) { return FlipDim(call, 1, 2); }
// aten::flipud(Tensor self) -> Tensor
absl::Status Flipud(RefCall& call) { return FlipDim(call, 0, 1); }

// aten::rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor
absl::Status Rot90(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, call.Int("k"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.Ints("dims"));
  if (dims.size() != 2) return call.Invalid("expected total rotation dims == 2");
  if (self.rank() < 2) return call.Invalid("expected total dims >= 2");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d0, WrapDim(dims[0], self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, WrapDim(dims[1], self.rank()));
  if (d0 == d1) return call.Invalid("expected rotation dims to be different");
  std::vector<int64_t> swap(self.rank());
  std::iota(swap.begin(), swap.end(), 0);
  std::swap(swap[d0], swap[d1]);
  Tensor out = self;
  switch (((k % 4) + 4) % 4) {
    case 1: {
      PT2ONNX_ASSIGN_OR_RETURN(Tensor flipped, Reversed(self, d1));
      PT2ONNX_ASSIGN_OR_RETURN(out, Permute(flipped, swap));
      break;
    }
    case 2: {
      PT2ONNX_ASSIGN_OR_RETURN(Tensor flipped, Reversed(self, d0));
      PT2ONNX_ASSIGN_OR_RETURN(out, Reversed(flipped, d1));
      break;
    }
    case 3: {
      PT2ONNX_ASSIGN_OR_RETURN(Tensor flipped, Reversed(self, d0));
      PT2ONNX_ASSIGN_OR_RETURN(out, Permute(flipped, swap));
      break;
    }
    default: {
      PT2ONNX_ASSIGN_OR_RETURN(out, CopyTensor(self));
      break;
    }
  }
  return call.SetTensor(std::move(out));
}

// aten::view_as(Tensor(a) self, Tensor other) -> Tensor(a)
absl::Status ViewAs(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  if (other.numel() != self.numel()) return call.Invalid("view_as: element counts differ");
  return call.SetTensor(self.Alias(other.dims()));
}

}  // namespace

void RegisterStackingRef(RefRegistry& r) {
  r.Add("aten::hstack.default", Hstack);
  r.Add("aten::vstack.default", Vstack);
  r.Add("aten::row_stack.default", Vstack);
  r.Add("aten::dstack.default", Dstack);
  r.Add("aten::column_stack.default", ColumnStack);
  r.Add("aten::fliplr.default", Fliplr);
  r.Add("aten::flipud.default", Flipud);
  r.Add("aten::rot90.default", Rot90);
  r.Add("aten::view_as.default", ViewAs);
}

}  // namespace pt2onnx::reference
