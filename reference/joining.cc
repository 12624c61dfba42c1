// Reference kernels: cat/stack, the splits (split, split_with_sizes, chunk,
// unbind, tensor_split), repeat, flip and roll.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/aten/type_promotion.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "reference/shape_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// Concatenates along `dim` (wrapped), all cast to `dtype`.
absl::StatusOr<Tensor> Concat(const std::vector<Tensor>& parts, int64_t dim, DataType dtype) {
  Dims dims = parts[0].dims();
  int64_t total = 0;
  for (const Tensor& p : parts) {
    if (p.rank() != static_cast<int64_t>(dims.size())) return absl::InvalidArgumentError("cat: ranks differ");
    for (size_t d = 0; d < dims.size(); ++d) {
      if (static_cast<int64_t>(d) != dim && p.dims()[d] != dims[d]) {
        return absl::InvalidArgumentError(absl::StrCat("cat: sizes differ in dim ", d));
      }
    }
    total += p.dims()[dim];
  }
  dims[dim] = total;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dims[d];
  const size_t es = ElementSize(dtype);
  const int64_t out_row = out.numel() / std::max<int64_t>(outer, 1);
  int64_t column = 0;
  for (const Tensor& p : parts) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor c, p.dtype() == dtype ? p : CastTensor(p, dtype));
    const int64_t row = outer == 0 ? 0 : c.numel() / outer;
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(out.raw() + (o * out_row + column) * es, c.raw() + o * row * es, row * es);
    }
    column += row;
  }
  return out;
}

// aten::cat(Tensor[] tensors, int dim=0) -> Tensor
absl::Status Cat(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> all, call.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  if (all.empty()) return call.Invalid("cat of no tensors");
  DataType dtype = DataType::kUndefined;
  std::vector<Tensor> parts;
  for (const Tensor& t : all) {
    dtype = aten::PromoteTypes(dtype, t.dtype());
    // Legacy: 1-D empty tensors are skipped.
    if (!(t.rank() == 1 && t.numel() == 0)) parts.push_back(t);
  }
  if (parts.empty()) return call.SetTensor(all[0]);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, parts[0].rank()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Concat(parts, dim, dtype));
  return call.SetTensor(std::move(out));
}

// aten::stack(Tensor[] tensors, int dim=0) -> Tensor
absl::Status Stack(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> all, call.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  if (all.empty()) return call.Invalid("stack of no tensors");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, all[0].rank() + 1));
  DataType dtype = DataType::kUndefined;
  std::vector<Tensor> parts;
  for (const Tensor& t : all) {
    if (t.dims() != all[0].dims()) return call.Invalid("stack expects each tensor to be equal size");
    dtype = aten::PromoteTypes(dtype, t.dtype());
    Dims dims = t.dims();
    dims.insert(dims.begin() + dim, 1);
    parts.push_back(t.Alias(dims));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Concat(parts, dim, dtype));
  return call.SetTensor(std::move(out));
}

absl::Status SplitBySizes(RefCall& call, const Tensor& self, int64_t dim, const std::vector<int64_t>& sizes) {
  std::vector<Tensor> outs;
  int64_t at = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > self.dims()[dim] - at) return call.Invalid("split sizes do not add up to the dim");
    PT2ONNX_ASSIGN_OR_RETURN(Tensor part, SliceDim(self, dim, at, at + s, 1));
    outs.push_back(std::move(part));
    at += s;
  }
  if (at != self.dims()[dim]) return call.Invalid("split sizes do not add up to the dim");
  return call.SetTensors(std::move(outs));
}

// aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
absl::Status Split(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t size, call.Int("split_size"));
  const int64_t n = self.dims()[dim];
  if (size < 0 || (size == 0 && n != 0)) return call.Invalid("split_size must be positive");
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return SplitBySizes(call, self, dim, sizes);
}

// aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]
absl::Status SplitWithSizes(RefCall& call, const char* sizes_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, call.Ints(sizes_arg));
  return SplitBySizes(call, self, dim, sizes);
}
absl::Status SplitWithSizesOp(RefCall& call) { return SplitWithSizes(call, "split_sizes"); }
// aten::split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]
absl::Status SplitSizes(RefCall& call) { return SplitWithSizes(call, "split_size"); }

// aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
absl::Status Chunk(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t chunks, call.Int("chunks"));
  if (chunks <= 0) return call.Invalid("chunk expects 'chunks' to be greater than 0");
  const int64_t n = self.dims()[dim];
  const int64_t size = (n + chunks - 1) / chunks;
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return SplitBySizes(call, self, dim, sizes);
}

// aten::tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]
absl::Status TensorSplitIndices(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, call.Ints("indices"));
  std::vector<Tensor> outs;
  int64_t start = 0;
  for (size_t i = 0; i <= indices.size(); ++i) {
    int64_t end = i < indices.size() ? indices[i] : self.dims()[dim];
    PT2ONNX_ASSIGN_OR_RETURN(Tensor part, SliceDim(self, dim, start, end, 1));
    outs.push_back(std::move(part));
    start = end;
  }
  return call.SetTensors(std::move(outs));
}

// aten::tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]
absl::Status TensorSplitSections(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t sections, call.Int("sections"));
  if (sections <= 0) return call.Invalid("number of sections must be larger than 0");
  const int64_t n = self.dims()[dim];
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < sections; ++i) sizes.push_back(n / sections + (i < n % sections ? 1 : 0));
  return SplitBySizes(call, self, dim, sizes);
}

// aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
absl::Status Unbind(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  std::vector<Tensor> outs;
  for (int64_t i = 0; i < self.dims()[dim]; ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor part, SelectDim(self, dim, i));
    outs.push_back(std::move(part));
  }
  return call.SetTensors(std::move(outs));
}

// aten::repeat(Tensor self, SymInt[] repeats) -> Tensor
absl::Status Repeat(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, call.Ints("repeats"));
  if (repeats.size() < static_cast<size_t>(self.rank())) {
    return call.Invalid("number of repeat dims can not be smaller than the number of tensor dims");
  }
  const size_t rank = repeats.size(), shift = rank - self.rank();
  Dims in(rank, 1), out(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (d >= shift) in[d] = self.dims()[d - shift];
    if (repeats[d] < 0) return call.Invalid("negative repeat");
    PT2ONNX_ASSIGN_OR_RETURN(out[d], CheckedNumel({in[d], repeats[d]}));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, NewTensor(self.dtype(), out));
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  const size_t es = ElementSize(self.dtype());
  std::vector<int64_t> pos(rank, 0);
  for (int64_t i = 0; i < result.numel(); ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += (pos[d] % in[d]) * in_strides[d];
    std::memcpy(result.raw() + i * es, self.raw() + src * es, es);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return call.SetTensor(std::move(result));
}

// aten::flip(Tensor self, int[] dims) -> Tensor
absl::Status Flip(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.Ints("dims"));
  std::vector<int64_t> strides = RowMajorStrides(self.dims());
  int64_t offset = 0;
  std::vector<bool> seen(self.rank(), false);
  for (int64_t d : dims) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, self.rank()));
    if (seen[w]) return call.Invalid("dim appears multiple times in the list of dims");
    seen[w] = true;
    if (self.dims()[w] > 0) offset += (self.dims()[w] - 1) * strides[w];
    strides[w] = -strides[w];
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, GatherStrided(self, self.dims(), strides, offset));
  return call.SetTensor(std::move(out));
}

// aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor
absl::Status Roll(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> shifts, call.Ints("shifts"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, call.Ints("dims"));
  Tensor t = self;
  if (dims.empty()) {
    if (shifts.size() != 1) return call.Invalid("roll without dims takes one shift");
    t = self.Alias({self.numel()});
    dims = {0};
  }
  if (dims.size() != shifts.size()) return call.Invalid("shifts and dims must align");
  for (size_t k = 0; k < dims.size(); ++k) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dims[k], t.rank()));
    const int64_t n = t.dims()[dim];
    if (n == 0) continue;
    const int64_t s = ((shifts[k] % n) + n) % n;
    PT2ONNX_ASSIGN_OR_RETURN(Tensor tail, SliceDim(t, dim, n - s, n, 1));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor head, SliceDim(t, dim, 0, n - s, 1));
    PT2ONNX_ASSIGN_OR_RETURN(t, Concat({tail, head}, dim, t.dtype()));
  }
  return call.SetTensor(t.Alias(self.dims()));
}

// aten::meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
// (.default: 'ij'). Output k repeats tensor k along its own grid dim; 'xy'
// swaps the first two grid dims.
absl::Status Meshgrid(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, call.Inputs("tensors"));
  std::string indexing = "ij";
  if (call.Has("indexing")) {
    PT2ONNX_ASSIGN_OR_RETURN(indexing, call.String("indexing"));
  }
  if (indexing != "ij" && indexing != "xy") return call.Invalid("torch.meshgrid: indexing must be one of \"xy\" or \"ij\"");
  if (tensors.empty()) return call.Invalid("torch.meshgrid expects a non-empty TensorList");
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  Dims dims;
  for (const Tensor& t : tensors) {
    if (t.rank() > 1) return call.Invalid("torch.meshgrid: Expected 0D or 1D tensor in the tensor list");
    if (t.dtype() != tensors[0].dtype()) return call.Invalid("torch.meshgrid: all tensors must have the same dtype");
    dims.push_back(t.numel());
  }
  if (swap) std::swap(dims[0], dims[1]);
  std::vector<Tensor> outs;
  for (size_t k = 0; k < tensors.size(); ++k) {
    size_t axis = k;
    if (swap && k < 2) axis = 1 - k;
    Dims shape(dims.size(), 1);
    shape[axis] = tensors[k].numel();
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BroadcastTo(tensors[k].Alias(shape), dims));
    PT2ONNX_ASSIGN_OR_RETURN(out, CopyTensor(out));
    outs.push_back(std::move(out));
  }
  return call.SetTensors(std::move(outs));
}

// aten::_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor
// Tensor j, its dim zero-padded to a multiple of num_chunks, is viewed as
// [lead..., num_chunks, w_j]; the views join along dim + 1.
absl::Status ChunkCat(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> ts, call.Inputs("tensors"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t chunks, call.Int("num_chunks"));
  if (ts.empty()) return call.Invalid("_chunk_cat expects a non-empty input tensor list");
  if (chunks < 1) return call.Invalid("_chunk_cat expects positive num_chunks");
  bool same = true;
  for (const Tensor& t : ts) same = same && t.rank() == ts[0].rank();
  if (same) {
    PT2ONNX_ASSIGN_OR_RETURN(dim, WrapDim(dim, ts[0].rank()));
  } else if (dim < 0) {
    return call.Invalid("_chunk_cat expects non-negative dim when input tensors have different ndims");
  }
  const DataType dtype = ts[0].dtype();
  Dims lead;
  for (int64_t d = 0; d < dim && d < ts[0].rank(); ++d) lead.push_back(ts[0].dim(d));
  int64_t outer = 1;
  for (int64_t v : lead) outer *= v;
  std::vector<int64_t> widths;
  int64_t total = 0;
  for (const Tensor& t : ts) {
    if (t.dtype() != dtype) return call.Invalid("_chunk_cat expects all input tensors with the same dtype");
    if (dim >= t.rank()) return call.Invalid("_chunk_cat expects dim < ndim for all input tensors");
    if (t.numel() == 0) return call.Invalid("_chunk_cat expects non-empty tensor");
    for (int64_t d = 0; d < dim; ++d) {
      if (t.dim(d) != lead[d]) return call.Invalid("_chunk_cat expects same sizes of 0,...,dim-1 dimensions");
    }
    int64_t trail = 1;
    for (int64_t d = dim + 1; d < t.rank(); ++d) trail *= t.dim(d);
    const int64_t per_chunk = (t.dim(dim) + chunks - 1) / chunks;
    widths.push_back(per_chunk * trail);
    total += per_chunk * trail;
  }
  Dims out_dims = lead;
  out_dims.push_back(chunks);
  out_dims.push_back(total);
  const bool fl = IsFloatLike(dtype);
  std::vector<double> fd(outer * chunks * total, 0.0);
  std::vector<int64_t> id(outer * chunks * total, 0);
  int64_t column = 0;
  for (size_t j = 0; j < ts.size(); ++j) {
    const Tensor& t = ts[j];
    int64_t trail = 1;
    for (int64_t d = dim + 1; d < t.rank(); ++d) trail *= t.dim(d);
    const int64_t n = t.dim(dim), w = widths[j];
    const std::vector<double> tv = fl ? ToDoubles(t) : std::vector<double>();
    const std::vector<int64_t> ti = fl ? std::vector<int64_t>() : ToInts(t);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < chunks; ++k) {
        for (int64_t e = 0; e < w; ++e) {
          const int64_t flat = k * w + e, row = flat / trail, rest = flat % trail;
          if (row >= n) continue;  // padding
          const int64_t from = (o * n + row) * trail + rest;
          const int64_t to = (o * chunks + k) * total + column + e;
          if (fl) fd[to] = tv[from];
          else id[to] = ti[from];
        }
      }
    }
    column += w;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, fl ? FromDoubles(dtype, out_dims, fd) : FromInts(dtype, out_dims, id));
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterJoiningRef(RefRegistry& r) {
  r.Add("aten::_chunk_cat.default", ChunkCat);
  r.Add("aten::meshgrid.default", Meshgrid);
  r.Add("aten::meshgrid.indexing", Meshgrid);
  r.Add("aten::cat.default", Cat);
  r.Add("aten::stack.default", Stack);
  r.Add("aten::split.Tensor", Split);
  r.Add("aten::split_copy.Tensor", Split);
  r.Add("aten::unsafe_split.Tensor", Split);
  r.Add("aten::split.sizes", SplitSizes);
  r.Add("aten::split_with_sizes.default", SplitWithSizesOp);
  r.Add("aten::split_with_sizes_copy.default", SplitWithSizesOp);
  r.Add("aten::unsafe_split_with_sizes.default", SplitWithSizesOp);
  r.Add("aten::chunk.default", Chunk);
  r.Add("aten::unsafe_chunk.default", Chunk);
  r.Add("aten::tensor_split.indices", TensorSplitIndices);
  r.Add("aten::tensor_split.sections", TensorSplitSections);
  r.Add("aten::unbind.int", Unbind);
  r.Add("aten::unbind_copy.int", Unbind);
  r.Add("aten::repeat.default", Repeat);
  r.Add("aten::flip.default", Flip);
  r.Add("aten::roll.default", Roll);
}

}  // namespace pt2onnx::reference
