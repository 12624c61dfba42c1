// File: reference/regrouping.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/regrouping.cc: take (flat indexing, negative
// indices wrap once), sum_to_size (each element added into the cell its
// coordinates map to) and channel_shuffle (channel g * (C / G) + j moves to
// j * G + g).
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// aten::take(Tensor self, Tensor index) -> Tensor
absl::Status Take(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index, call.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), index.dims()));
  const size_t width = ElementSize(self.dtype());
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t at = LoadInt(index, i);
    if (at < -self.numel() || at >= self.numel()) {
      return call.Invalid(absl::StrCat("index ", at, " out of range for ", self.numel(), " elements"));
    }
    if (at < 0) at += self.numel();
    std::memcpy(out.raw() + i * width, self.raw() + at * width, width);
  }
  return call.SetTensor(std::move(out));
}

// aten::sum_to_size(Tensor self, SymInt[] size) -> Tensor
absl::Status SumToSize(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  const int64_t lead = self.rank() - static_cast<int64_t>(size.size());
  if (lead < 0) return call.Invalid("size has more dims than self");
  for (size_t j = 0; j < size.size(); ++j) {
    const int64_t have = self.dim(lead + j);
    if (size[j] != 1 && size[j] != have) return call.Invalid("size is not expandable to self's shape");
  }
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = IsFloatLike(self.dtype()) ? self.dtype() : DataType::kInt64;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, size));
  const std::vector<int64_t> out_strides = RowMajorStrides(size);
  std::vector<double> fsum(out.numel(), 0.0);
  std::vector<int64_t> isum(out.numel(), 0);
  std::vector<int64_t> at(self.rank(), 0);
  for (int64_t s = 0; s < self.numel(); ++s) {
    int64_t to = 0;
    for (size_t j = 0; j < size.size(); ++j) {
      if (size[j] != 1) to += at[lead + j] * out_strides[j];
    }
    if (IsFloatLike(dtype)) {
      fsum[to] += LoadDouble(self, s);
    } else {
      isum[to] = static_cast<int64_t>(static_cast<uint64_t>(isum[to]) + static_cast<uint64_t>(LoadInt(self, s)));
    }
    for (int64_t d = self.rank() - 1; d >= 0; --d) {
      if (++at[d] < self.dim(d)) break;
      at[d] = 0;
    }
  }
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (IsFloatLike(dtype)) {
      StoreDouble(out, i, fsum[i]);
    } else {
      StoreInt(out, i, isum[i]);
    }
  }
  return call.SetTensor(std::move(out));
}

// aten::channel_shuffle(Tensor self, SymInt groups) -> Tensor
absl::Status ChannelShuffle(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, call.Int("groups"));
  if (self.rank() < 3) return call.Invalid("channel_shuffle expects at least 3 dims");
  if (groups <= 0 || self.dim(1) % groups != 0) return call.Invalid("channels do not split into groups");
  const int64_t channels = self.dim(1), per_group = channels / groups;
  int64_t inner = 1;
  for (int64_t d = 2; d < self.rank(); ++d) inner *= self.dim(d);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), self.dims()));
  const size_t width = ElementSize(self.dtype());
  for (int64_t n = 0; n < self.dim(0); ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t to = (c % per_group) * groups + c / per_group;
      std::memcpy(out.raw() + ((n * channels + to) * inner) * width,
                  self.raw() + ((n * channels + c) * inner) * width, inner * width);
    }
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterRegroupingRef(RefRegistry& r) {
  r.Add("aten::take.default", Take);
  r.Add("aten::sum_to_size.default", SumToSize);
  r.Add("aten::channel_shuffle.default", ChannelShuffle);
}

}  // namespace pt2onnx::reference
