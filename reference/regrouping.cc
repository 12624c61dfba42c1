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
#include "reference/kernel_support.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

void CopyElementBytes(Tensor& dst, int64_t di, const Tensor& src, int64_t si) {
  const size_t width = ElementSize(dst.dtype());
  std::memcpy(dst.raw() + di * width, src.raw() + si * width, width);
}

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

// aten::put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor
// source[i] written (or added) at flat position index[i] of a copy of self.
absl::Status PutImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index, call.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor source, call.Input("source"));
  PT2ONNX_ASSIGN_OR_RETURN(bool accumulate, call.Bool("accumulate"));
  if (source.numel() != index.numel()) return call.Invalid("put_(): Expected source and index to have the same number of elements");
  if (source.dtype() != self.dtype()) return call.Invalid("put_(): self and source expected to have the same dtype");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  const int64_t n = self.numel();
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t at = LoadInt(index, i);
    if (at < -n || at >= n) return call.Invalid(absl::StrCat("out of range: tried to access index ", at, " on a tensor of ", n, " elements"));
    if (at < 0) at += n;
    if (!accumulate) {
      CopyElementBytes(out, at, source, i);
    } else if (IsFloatLike(self.dtype())) {
      StoreDouble(out, at, LoadDouble(out, at) + LoadDouble(source, i));
    } else {
      StoreInt(out, at, static_cast<int64_t>(static_cast<uint64_t>(LoadInt(out, at)) + static_cast<uint64_t>(LoadInt(source, i))));
    }
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status Put(RefCall& call) { return PutImpl(call, false); }
absl::Status PutInPlace(RefCall& call) { return PutImpl(call, true); }

}  // namespace

void RegisterRegroupingRef(RefRegistry& r) {
  r.Add("aten::put.default", Put);
  r.Add("aten::put_.default", PutInPlace);
  r.Add("aten::take.default", Take);
  r.Add("aten::sum_to_size.default", SumToSize);
  r.Add("aten::channel_shuffle.default", ChannelShuffle);
}

}  // namespace pt2onnx::reference
