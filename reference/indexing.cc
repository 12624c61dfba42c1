// Reference kernels: reading by index (advanced indexing index.Tensor and its
// write twin index_put, embedding, index_select, gather, take_along_dim,
// masked_select / masked_scatter). Every index is bounds-checked; negative
// indices wrap as in Python.
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// Where each element of self[indices] comes from (flat offsets into self),
// with torch's placement of the broadcast index dims: in place of the indexed
// dims when those are adjacent, else first.
struct IndexPlan {
  Dims dims;
  std::vector<int64_t> offsets;
};

absl::StatusOr<IndexPlan> PlanIndex(const Tensor& self, const std::vector<std::optional<Tensor>>& given) {
  std::vector<std::optional<Tensor>> per_dim;
  for (const std::optional<Tensor>& index : given) {
    if (!index.has_value()) {
      per_dim.push_back(std::nullopt);
      continue;
    }
    if (index->dtype() != DataType::kBool && index->dtype() != DataType::kUint8) {
      per_dim.push_back(*index);
      continue;
    }
    // A mask covers index->rank() dims: one long index per dim (its nonzeros).
    const size_t first = per_dim.size();
    if (first + index->rank() > static_cast<size_t>(self.rank())) {
      return absl::InvalidArgumentError("too many indices for tensor");
    }
    for (int64_t k = 0; k < index->rank(); ++k) {
      if (index->dims()[k] != self.dims()[first + k]) {
        return absl::InvalidArgumentError(absl::StrCat("the mask's shape ", DimsString(index->dims()),
                                                       " does not match the indexed dims of self"));
      }
    }
    std::vector<std::vector<int64_t>> coords(index->rank());
    for (int64_t i = 0; i < index->numel(); ++i) {
      if (LoadInt(*index, i) == 0) continue;
      std::vector<int64_t> c = Coords(i, index->dims());
      for (int64_t k = 0; k < index->rank(); ++k) coords[k].push_back(c[k]);
    }
    for (int64_t k = 0; k < index->rank(); ++k) {
      const int64_t n = static_cast<int64_t>(coords[k].size());
      PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromInts(DataType::kInt64, {n}, coords[k]));
      per_dim.push_back(std::move(t));
    }
  }
  if (per_dim.size() > static_cast<size_t>(self.rank())) return absl::InvalidArgumentError("too many indices for tensor");
  per_dim.resize(self.rank());
  std::vector<int64_t> indexed;
  Dims bdims;
  for (int64_t d = 0; d < self.rank(); ++d) {
    if (!per_dim[d].has_value()) continue;
    if (indexed.empty()) {
      bdims = per_dim[d]->dims();
    } else {
      PT2ONNX_ASSIGN_OR_RETURN(bdims, BroadcastDims(bdims, per_dim[d]->dims()));
    }
    indexed.push_back(d);
  }
  IndexPlan plan;
  const std::vector<int64_t> strides = RowMajorStrides(self.dims());
  if (indexed.empty()) {
    plan.dims = self.dims();
    for (int64_t i = 0; i < self.numel(); ++i) plan.offsets.push_back(i);
    return plan;
  }
  const bool adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  const int64_t bpos = adjacent ? indexed.front() : 0;
  std::vector<int64_t> rest;  // un-indexed dims in order
  for (int64_t d = 0; d < self.rank(); ++d) {
    if (!per_dim[d].has_value()) rest.push_back(d);
  }
  for (int64_t k = 0; k < bpos; ++k) plan.dims.push_back(self.dims()[rest[k]]);
  plan.dims.insert(plan.dims.end(), bdims.begin(), bdims.end());
  for (size_t k = bpos; k < rest.size(); ++k) plan.dims.push_back(self.dims()[rest[k]]);
  std::vector<std::vector<int64_t>> values(self.rank()), bidx(self.rank());
  for (int64_t d : indexed) {
    PT2ONNX_ASSIGN_OR_RETURN(values[d], IndexValues(*per_dim[d]));
    bidx[d] = BroadcastIndices(per_dim[d]->dims(), bdims);
  }
  int64_t numel = 1;
  for (int64_t s : plan.dims) numel *= s;
  const std::vector<int64_t> bstrides = RowMajorStrides(bdims);
  plan.offsets.resize(numel);
  for (int64_t i = 0; i < numel; ++i) {
    std::vector<int64_t> c = Coords(i, plan.dims);
    int64_t bflat = 0;
    for (size_t k = 0; k < bdims.size(); ++k) bflat += c[bpos + k] * bstrides[k];
    int64_t off = 0;
    for (int64_t d : indexed) {
      PT2ONNX_ASSIGN_OR_RETURN(int64_t v, WrapIndex(values[d][bidx[d][bflat]], self.dims()[d]));
      off += v * strides[d];
    }
    for (size_t k = 0; k < rest.size(); ++k) {
      const size_t pos = static_cast<int64_t>(k) < bpos ? k : k + bdims.size();
      off += c[pos] * strides[rest[k]];
    }
    plan.offsets[i] = off;
  }
  return plan;
}

absl::StatusOr<Tensor> GatherOffsets(const Tensor& self, const Dims& dims, const std::vector<int64_t>& offsets) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), dims));
  for (size_t i = 0; i < offsets.size(); ++i) CopyElement(out, i, self, offsets[i]);
  return out;
}

// aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor (and _unsafe_index.Tensor)
absl::Status IndexTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(auto indices, call.OptionalInputs("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(IndexPlan plan, PlanIndex(self, indices));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherOffsets(self, plan.dims, plan.offsets));
  return call.SetTensor(std::move(out));
}

// aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
// (index_put_ writes into self; _unsafe_index_put as index_put)
absl::Status IndexPutImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(auto indices, call.OptionalInputs("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, call.Input("values"));
  PT2ONNX_ASSIGN_OR_RETURN(bool accumulate, call.Bool("accumulate"));
  PT2ONNX_ASSIGN_OR_RETURN(IndexPlan plan, PlanIndex(self, indices));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(values, plan.dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v, CastTensor(b, self.dtype()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  if (!accumulate) {
    for (size_t i = 0; i < plan.offsets.size(); ++i) CopyElement(out, plan.offsets[i], v, i);
  } else if (IsFloatLike(self.dtype())) {
    std::vector<double> acc = ToDoubles(self), add = ToDoubles(v);
    for (size_t i = 0; i < plan.offsets.size(); ++i) acc[plan.offsets[i]] += add[i];
    PT2ONNX_ASSIGN_OR_RETURN(out, FromDoubles(self.dtype(), self.dims(), acc));
  } else {
    std::vector<int64_t> acc = ToInts(self), add = ToInts(v);
    for (size_t i = 0; i < plan.offsets.size(); ++i) {
      acc[plan.offsets[i]] = static_cast<int64_t>(static_cast<uint64_t>(acc[plan.offsets[i]]) + add[i]);
    }
    if (self.dtype() == DataType::kBool) {
      for (int64_t& e : acc) e = e != 0;
    }
    PT2ONNX_ASSIGN_OR_RETURN(out, FromInts(self.dtype(), self.dims(), acc));
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status IndexPut(RefCall& call) { return IndexPutImpl(call, false); }
absl::Status IndexPutInPlace(RefCall& call) { return IndexPutImpl(call, true); }

// aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor
absl::Status Embedding(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, call.Input("indices"));
  if (weight.rank() != 2) return call.Invalid("embedding's weight must be 2-D");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ids, IndexValues(indices));
  const int64_t rows = weight.dims()[0], width = weight.dims()[1];
  Dims dims = indices.dims();
  dims.push_back(width);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(weight.dtype(), dims));
  for (size_t i = 0; i < ids.size(); ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t row, WrapIndex(ids[i], rows));
    for (int64_t j = 0; j < width; ++j) CopyElement(out, i * width + j, weight, row * width + j);
  }
  return call.SetTensor(std::move(out));
}

// aten::index_select(Tensor self, int dim, Tensor index) -> Tensor
absl::Status IndexSelect(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim_arg, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index, call.Input("index"));
  if (index.rank() > 1) return call.Invalid("index_select's index must be 0-D or 1-D");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ids, IndexValues(index));
  if (self.rank() == 0) {
    for (int64_t id : ids) PT2ONNX_RETURN_IF_ERROR(WrapIndex(id, 1).status());
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
    return call.SetTensor(std::move(out));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, self.rank()));
  Dims dims = self.dims();
  dims[dim] = static_cast<int64_t>(ids.size());
  const std::vector<int64_t> strides = RowMajorStrides(self.dims());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), dims));
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> c = Coords(i, dims);
    PT2ONNX_ASSIGN_OR_RETURN(c[dim], WrapIndex(ids[c[dim]], self.dims()[dim]));
    CopyElement(out, i, self, Offset(c, strides));
  }
  return call.SetTensor(std::move(out));
}

// out[c] = self[c with c[dim] = index[c]]
absl::StatusOr<Tensor> GatherAlong(const Tensor& self, int64_t dim_arg, const Tensor& index) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ids, IndexValues(index));
  const int64_t rank = std::max<int64_t>(self.rank(), 1);
  if (std::max<int64_t>(index.rank(), 1) != rank) {
    return absl::InvalidArgumentError("gather: index and self must have the same number of dims");
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, self.rank()));
  Dims sdims = self.rank() == 0 ? Dims{1} : self.dims();
  Dims idims = index.rank() == 0 ? Dims{1} : index.dims();
  for (int64_t k = 0; k < rank; ++k) {
    if (k != dim && idims[k] > sdims[k]) {
      return absl::InvalidArgumentError(absl::StrCat("gather: index size ", idims[k], " exceeds self's size ",
                                                     sdims[k], " in dim ", k));
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(sdims);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), index.dims()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> c = Coords(i, idims);
    PT2ONNX_ASSIGN_OR_RETURN(c[dim], WrapIndex(ids[i], sdims[dim]));
    CopyElement(out, i, self, Offset(c, strides));
  }
  return out;
}

// aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
absl::Status Gather(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index, call.Input("index"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherAlong(self, dim, index));
  return call.SetTensor(std::move(out));
}

// aten::take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor
absl::Status TakeAlongDim(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor indices, call.Input("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> dim_arg, call.OptionalInt("dim"));
  if (!dim_arg.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherAlong(self.Alias({self.numel()}), 0, indices.Alias({indices.numel()})));
    return call.SetTensor(std::move(out));
  }
  if (self.rank() != indices.rank()) return call.Invalid("take_along_dim: self and indices need the same rank");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(*dim_arg, self.rank()));
  Dims with_self = indices.dims();
  with_self[dim] = self.dims()[dim];
  PT2ONNX_ASSIGN_OR_RETURN(Dims self_dims, BroadcastDims(self.dims(), with_self));
  Dims with_index = self_dims;
  with_index[dim] = indices.dims()[dim];
  PT2ONNX_ASSIGN_OR_RETURN(Tensor s, BroadcastTo(self, self_dims));
  PT2ONNX_ASSIGN_OR_RETURN(Dims index_dims, BroadcastDims(indices.dims(), with_index));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor i, BroadcastTo(indices, index_dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherAlong(s, dim, i));
  return call.SetTensor(std::move(out));
}

// aten::masked_select(Tensor self, Tensor mask) -> Tensor
absl::Status MaskedSelect(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(self.dims(), mask.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor s, BroadcastTo(self, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, BroadcastTo(mask, dims));
  std::vector<int64_t> picked;
  for (int64_t i = 0; i < m.numel(); ++i) {
    if (LoadInt(m, i) != 0) picked.push_back(i);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherOffsets(s, {static_cast<int64_t>(picked.size())}, picked));
  return call.SetTensor(std::move(out));
}

// aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor
absl::Status MaskedScatter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor source, call.Input("source"));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(self.dims(), mask.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(self, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(b));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, BroadcastTo(mask, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, CastTensor(source, self.dtype()));
  int64_t next = 0;
  for (int64_t i = 0; i < m.numel(); ++i) {
    if (LoadInt(m, i) == 0) continue;
    if (next >= src.numel()) return call.Invalid("masked_scatter: source has fewer elements than the mask selects");
    CopyElement(out, i, src, next++);
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterIndexingRef(RefRegistry& r) {
  r.Add("aten::index.Tensor", IndexTensor);
  r.Add("aten::_unsafe_index.Tensor", IndexTensor);
  r.Add("aten::index_put.default", IndexPut);
  r.Add("aten::index_put_.default", IndexPutInPlace);
  r.Add("aten::_unsafe_index_put.default", IndexPut);
  r.Add("aten::embedding.default", Embedding);
  r.Add("aten::index_select.default", IndexSelect);
  r.Add("aten::gather.default", Gather);
  r.Add("aten::take_along_dim.default", TakeAlongDim);
  r.Add("aten::masked_select.default", MaskedSelect);
  r.Add("aten::masked_scatter.default", MaskedScatter);
}

}  // namespace pt2onnx::reference
