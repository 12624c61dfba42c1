// Reference kernels: _unsafe_masked_index and
// _unsafe_masked_index_put_accumulate (torch/_decomp/decompositions.py):
// indices (one per leading dim, broadcast together) clamped into range
// ([0, size) for the read, [-size, size) wrapped for the write); the read
// gives `fill` where mask is false, the write adds values where it is true.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<Dims> BroadcastShape(const RefCall& call, const std::vector<Dims>& shapes) {
  size_t rank = 0;
  for (const Dims& s : shapes) rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (const Dims& s : shapes) {
    for (size_t j = 0; j < s.size(); ++j) {
      int64_t& o = out[rank - s.size() + j];
      if (s[j] == o || s[j] == 1) continue;
      if (o != 1) return call.Invalid("indices do not broadcast together");
      o = s[j];
    }
  }
  return out;
}

struct Positions {
  Dims batch;                // the indices' broadcast shape
  int64_t row = 1;           // elements per indexed position (self's trailing dims)
  std::vector<int64_t> at;   // flat row offset in self per batch element
};

absl::StatusOr<Positions> IndexPositions(const RefCall& call, const Tensor& self, bool wrap_negative) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<Tensor>> indices, call.OptionalInputs("indices"));
  const int64_t k = static_cast<int64_t>(indices.size());
  if (k == 0 || k > self.rank()) return call.Invalid("too many indices for the tensor");
  std::vector<Dims> shapes;
  for (const auto& i : indices) {
    if (!i) return call.Unsupported("masked indexing with a None index");
    shapes.push_back(i->dims());
  }
  Positions p;
  PT2ONNX_ASSIGN_OR_RETURN(p.batch, BroadcastShape(call, shapes));
  int64_t count = 1;
  for (int64_t d : p.batch) count *= d;
  for (int64_t d = k; d < self.rank(); ++d) p.row *= self.dim(d);
  p.at.assign(static_cast<size_t>(count), 0);
  for (int64_t d = 0; d < k; ++d) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> v, IndexValues(*indices[d]));
    const std::vector<int64_t> from = BroadcastIndices(indices[d]->dims(), p.batch);
    const int64_t size = self.dim(d);
    for (int64_t b = 0; b < count; ++b) {
      int64_t i = v[from[b]];
      i = std::min(std::max(i, wrap_negative ? -size : int64_t{0}), size - 1);
      if (i < 0) i += size;
      p.at[b] = p.at[b] * size + i;
    }
  }
  for (int64_t& a : p.at) a *= p.row;
  return p;
}

// aten::_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) -> Tensor
absl::Status UnsafeMaskedIndex(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor fill_t, TensorOrScalar(call, "fill"));
  if (mask.dtype() != DataType::kBool) return call.Invalid("tensors used as masks must be bool tensors");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<Tensor>> indices, call.OptionalInputs("indices"));
  const int64_t k = static_cast<int64_t>(indices.size());
  Positions p;
  if (self.numel() > 0) {
    PT2ONNX_ASSIGN_OR_RETURN(p, IndexPositions(call, self, false));
  } else {
    std::vector<Dims> shapes;
    for (const auto& i : indices) if (i) shapes.push_back(i->dims());
    PT2ONNX_ASSIGN_OR_RETURN(p.batch, BroadcastShape(call, shapes));
    for (int64_t d = k; d < self.rank(); ++d) p.row *= self.dim(d);
  }
  Dims out_dims = p.batch;
  for (int64_t d = k; d < self.rank(); ++d) out_dims.push_back(self.dim(d));
  const double fill = LoadDouble(fill_t, 0);
  const std::vector<double> x = ToDoubles(self);
  int64_t total = 1;
  for (int64_t d : out_dims) total *= d;
  const std::vector<int64_t> m = BroadcastIndices(mask.dims(), out_dims);
  std::vector<double> out(static_cast<size_t>(total), fill);
  for (int64_t o = 0; o < total; ++o) {
    if (self.numel() == 0 || LoadInt(mask, m[o]) == 0) continue;
    out[o] = x[p.at[o / p.row] + o % p.row];
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(self.dtype(), out_dims, out));
  return call.SetTensor(std::move(result));
}

// aten::_unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, Tensor values) -> Tensor
absl::Status UnsafeMaskedIndexPutAccumulate(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, call.Input("values"));
  if (mask.dtype() != DataType::kBool) return call.Invalid("tensors used as masks must be bool tensors");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  if (self.numel() == 0) return call.SetTensor(std::move(out));
  PT2ONNX_ASSIGN_OR_RETURN(Positions p, IndexPositions(call, self, true));
  Dims upd_dims = p.batch;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<Tensor>> indices, call.OptionalInputs("indices"));
  for (int64_t d = static_cast<int64_t>(indices.size()); d < self.rank(); ++d) upd_dims.push_back(self.dim(d));
  int64_t total = 1;
  for (int64_t d : upd_dims) total *= d;
  const std::vector<int64_t> vi = BroadcastIndices(values.dims(), upd_dims);
  const std::vector<int64_t> mi = BroadcastIndices(mask.dims(), upd_dims);
  const bool fl = IsFloatLike(self.dtype());
  for (int64_t u = 0; u < total; ++u) {
    if (LoadInt(mask, mi[u]) == 0) continue;
    const int64_t dst = p.at[u / p.row] + u % p.row;
    if (fl) StoreDouble(out, dst, LoadDouble(out, dst) + LoadDouble(values, vi[u]));
    else StoreInt(out, dst, static_cast<int64_t>(static_cast<uint64_t>(LoadInt(out, dst)) + static_cast<uint64_t>(LoadInt(values, vi[u]))));
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterMaskedIndexRef(RefRegistry& r) {
  r.Add("aten::_unsafe_masked_index.default", UnsafeMaskedIndex);
  r.Add("aten::_unsafe_masked_index_put_accumulate.default", UnsafeMaskedIndexPutAccumulate);
}

}  // namespace pt2onnx::reference
