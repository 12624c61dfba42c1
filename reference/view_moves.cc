// Reference kernels: views that move dims or pick elements (mT, mH, adjoint,
// numpy_T, movedim/moveaxis, diagonal, unfold, narrow with a tensor start,
// ravel, _reshape_alias) and layout copies (tile, pixel_shuffle,
// pixel_unshuffle). Results are row-major copies; the interpreter tracks
// which base elements a view shows (interpreter.cc).
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "reference/shape_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// a * b for sizes read from the file, or an error on overflow.
absl::StatusOr<int64_t> SizeProduct(const RefCall& call, int64_t a, int64_t b) {
  std::optional<int64_t> p = CheckedMul(a, b);
  if (!p) return call.Invalid("the result's size overflows int64");
  return *p;
}

// Sets the output to a new `dims` tensor whose element at coordinates c is
// self's element at source_coords(c), self read with the shape `self_dims`
// (its own, or with leading ones).
template <typename SourceCoords>
absl::Status SetGathered(RefCall& call, const Tensor& self, const Dims& self_dims, const Dims& dims,
                         SourceCoords source_coords) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), dims));
  const std::vector<int64_t> strides = RowMajorStrides(self_dims);
  for (int64_t i = 0; i < out.numel(); ++i) {
    CopyElement(out, i, self, Offset(source_coords(Coords(i, dims)), strides));
  }
  return call.SetTensor(std::move(out));
}

// The last two dims swapped (mT, mH and adjoint of a real tensor).
absl::Status SwapLastTwo(RefCall& call, const char* name) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.rank() < 2) return call.Invalid(absl::StrCat(name, " is only supported on tensors of 2 or more dims"));
  std::vector<int64_t> perm(self.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[self.rank() - 1], perm[self.rank() - 2]);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Permute(self, perm));
  return call.SetTensor(std::move(out));
}
// aten::mT(Tensor(a) self) -> Tensor(a)
absl::Status MatrixT(RefCall& call) { return SwapLastTwo(call, "mT"); }
// aten::mH(Tensor(a) self) -> Tensor(a): conj is the identity on real tensors
absl::Status MatrixH(RefCall& call) { return SwapLastTwo(call, "mH"); }
// aten::adjoint(Tensor(a) self) -> Tensor(a)
absl::Status Adjoint(RefCall& call) { return SwapLastTwo(call, "adjoint()"); }

// aten::numpy_T(Tensor(a) self) -> Tensor(a): all dims reversed
absl::Status NumpyT(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::vector<int64_t> perm(self.rank());
  for (int64_t d = 0; d < self.rank(); ++d) perm[d] = self.rank() - 1 - d;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Permute(self, perm));
  return call.SetTensor(std::move(out));
}

// aten::movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
// (.int takes one dim each; moveaxis alike). Source dims go to their
// destinations; the other dims keep their order in the free places.
absl::Status Movedim(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> source, call.Ints("source"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> destination, call.Ints("destination"));
  if (source.size() != destination.size()) {
    return call.Invalid("movedim: Invalid source or destination dims: source and destination must have the same length");
  }
  const int64_t rank = self.rank();
  std::vector<int64_t> perm(rank, -1);
  std::vector<bool> used(rank, false);
  std::set<int64_t> seen_src, seen_dst;
  for (size_t k = 0; k < source.size(); ++k) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t s, WrapDim(source[k], rank));
    PT2ONNX_ASSIGN_OR_RETURN(int64_t d, WrapDim(destination[k], rank));
    if (!seen_src.insert(s).second || !seen_dst.insert(d).second) return call.Invalid("movedim: repeated dim");
    if (rank == 0) continue;
    perm[d] = s;
    used[s] = true;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (perm[d] != -1) continue;
    while (used[next]) ++next;
    perm[d] = next++;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Permute(self, perm));
  return call.SetTensor(std::move(out));
}

// aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
// The other dims in order, then the diagonal as the last dim.
absl::Status Diagonal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, call.Int("offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t a1, call.Int("dim1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t a2, call.Int("dim2"));
  if (self.rank() < 2) return call.Invalid("diagonal: the tensor must have at least 2 dims");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim1, WrapDim(a1, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim2, WrapDim(a2, self.rank()));
  if (dim1 == dim2) return call.Invalid("diagonal dimensions cannot be identical");
  const int64_t n1 = self.dims()[dim1], n2 = self.dims()[dim2];
  if (offset > n2 || offset < -n1) offset = offset > 0 ? n2 : -n1;  // an empty diagonal, no overflow
  const int64_t row0 = offset < 0 ? -offset : 0, col0 = offset > 0 ? offset : 0;
  const int64_t length = std::max<int64_t>(std::min(n1 - row0, n2 - col0), 0);
  Dims dims;
  for (int64_t d = 0; d < self.rank(); ++d) {
    if (d != dim1 && d != dim2) dims.push_back(self.dims()[d]);
  }
  dims.push_back(length);
  std::vector<int64_t> coords(self.rank());
  return SetGathered(call, self, self.dims(), dims, [&](const std::vector<int64_t>& oc) {
    size_t k = 0;
    for (int64_t d = 0; d < self.rank(); ++d) {
      if (d != dim1 && d != dim2) coords[d] = oc[k++];
    }
    coords[dim1] = row0 + oc.back();
    coords[dim2] = col0 + oc.back();
    return coords;
  });
}

// aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
// Windows of `size` every `step` along dimension, as a new last dim.
absl::Status Unfold(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dimension"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t size, call.Int("size"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t step, call.Int("step"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  const int64_t n = self.rank() == 0 ? 1 : self.dims()[dim];
  if (size < 0 || size > n) return call.Invalid(absl::StrCat("unfold: size ", size, " exceeds the dim's size ", n));
  if (step <= 0) return call.Invalid("unfold: step must be positive");
  Dims dims = self.dims();
  if (self.rank() > 0) dims[dim] = (n - size) / step + 1;
  dims.push_back(size);
  return SetGathered(call, self, self.dims(), dims, [&](std::vector<int64_t> c) {
    const int64_t within = c.back();
    c.pop_back();
    if (self.rank() > 0) c[dim] = c[dim] * step + within;
    return c;
  });
}

// aten::narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)
absl::Status NarrowTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor start_t, call.Input("start"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, call.Int("length"));
  if (start_t.numel() != 1 || start_t.rank() != 0 || IsFloatLike(start_t.dtype())) {
    return call.Invalid("start must be an 0-dim integral Tensor");
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  const int64_t n = self.dims()[dim];
  int64_t start = LoadInt(start_t, 0);
  if (start < 0 && start >= -n) start += n;
  if (start < 0 || length < 0 || start > n || length > n - start) {
    return call.Invalid("narrow: start and length are out of range");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, SliceDim(self, dim, start, start + length, 1));
  return call.SetTensor(std::move(out));
}

// aten::ravel(Tensor(a) self) -> Tensor(a)
absl::Status Ravel(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return call.SetTensor(self.Alias({self.numel()}));
}

// aten::_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)
// reshape emits it only where the reshape is a view, so the strides describe
// torch's layout of the same row-major order: it is a reshape here.
absl::Status ReshapeAlias(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.Ints("stride"));
  if (size.size() != stride.size()) return call.Invalid("_reshape_alias: size and stride differ in length");
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, InferSize(size, self.numel()));
  return call.SetTensor(self.Alias(dims));
}

// aten::tile(Tensor self, SymInt[] dims) -> Tensor: repeat, with ones
// prepended to whichever of dims and self's shape is shorter.
absl::Status Tile(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> reps, call.Ints("dims"));
  const size_t rank = std::max<size_t>(reps.size(), self.rank());
  reps.insert(reps.begin(), rank - reps.size(), 1);
  Dims in(rank - self.rank(), 1);
  in.insert(in.end(), self.dims().begin(), self.dims().end());
  Dims dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (reps[d] < 0) return call.Invalid("tile: negative repetition");
    PT2ONNX_ASSIGN_OR_RETURN(dims[d], SizeProduct(call, in[d], reps[d]));
  }
  return SetGathered(call, self, in, dims, [&](std::vector<int64_t> c) {
    for (size_t d = 0; d < rank; ++d) c[d] %= in[d];
    return c;
  });
}

// [*, C*r*r, H, W] <-> [*, C, H*r, W*r]: out[c, h*r+i, w*r+j] = in[c*r*r + i*r + j, h, w].
absl::Status PixelShuffleImpl(RefCall& call, const char* factor_name, bool shuffle) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t r, call.Int(factor_name));
  if (self.rank() < 3) return call.Invalid("pixel_shuffle expects an input with at least 3 dims");
  if (r <= 0) return call.Invalid(absl::StrCat(factor_name, " must be positive"));
  const int64_t rank = self.rank();
  const int64_t c = self.dims()[rank - 3], h = self.dims()[rank - 2], w = self.dims()[rank - 1];
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rr, SizeProduct(call, r, r));
  Dims dims = self.dims();
  if (shuffle) {
    if (c % rr != 0) return call.Invalid("pixel_shuffle: channels must be divisible by upscale_factor squared");
    dims[rank - 3] = c / rr;
    PT2ONNX_ASSIGN_OR_RETURN(dims[rank - 2], SizeProduct(call, h, r));
    PT2ONNX_ASSIGN_OR_RETURN(dims[rank - 1], SizeProduct(call, w, r));
  } else {
    if (h % r != 0 || w % r != 0) return call.Invalid("pixel_unshuffle: height and width must be divisible by downscale_factor");
    PT2ONNX_ASSIGN_OR_RETURN(dims[rank - 3], SizeProduct(call, c, rr));
    dims[rank - 2] = h / r;
    dims[rank - 1] = w / r;
  }
  // Iterate over the shuffled (large-spatial) layout; map to the packed one.
  const Dims& big = shuffle ? dims : self.dims();
  const Dims& packed = shuffle ? self.dims() : dims;
  const std::vector<int64_t> big_strides = RowMajorStrides(big), packed_strides = RowMajorStrides(packed);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), dims));
  const int64_t total = out.numel();
  for (int64_t i = 0; i < total; ++i) {
    std::vector<int64_t> bc = Coords(i, big);
    std::vector<int64_t> pc = bc;
    const int64_t ch = bc[rank - 3], y = bc[rank - 2], x = bc[rank - 1];
    pc[rank - 3] = ch * rr + (y % r) * r + (x % r);
    pc[rank - 2] = y / r;
    pc[rank - 1] = x / r;
    const int64_t bi = Offset(bc, big_strides), pi = Offset(pc, packed_strides);
    if (shuffle) CopyElement(out, bi, self, pi);
    else CopyElement(out, pi, self, bi);
  }
  return call.SetTensor(std::move(out));
}
// aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor
absl::Status PixelShuffle(RefCall& call) { return PixelShuffleImpl(call, "upscale_factor", true); }
// aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor
absl::Status PixelUnshuffle(RefCall& call) { return PixelShuffleImpl(call, "downscale_factor", false); }

}  // namespace

void RegisterViewMovesRef(RefRegistry& r) {
  r.Add("aten::mT.default", MatrixT);
  r.Add("aten::mH.default", MatrixH);
  r.Add("aten::adjoint.default", Adjoint);
  r.Add("aten::numpy_T.default", NumpyT);
  r.Add("aten::movedim.int", Movedim);
  r.Add("aten::movedim.intlist", Movedim);
  r.Add("aten::moveaxis.int", Movedim);
  r.Add("aten::moveaxis.intlist", Movedim);
  r.Add("aten::diagonal.default", Diagonal);
  r.Add("aten::diagonal_copy.default", Diagonal);
  r.Add("aten::unfold.default", Unfold);
  r.Add("aten::narrow.Tensor", NarrowTensor);
  r.Add("aten::ravel.default", Ravel);
  r.Add("aten::_reshape_alias.default", ReshapeAlias);
  r.Add("aten::tile.default", Tile);
  r.Add("aten::pixel_shuffle.default", PixelShuffle);
  r.Add("aten::pixel_unshuffle.default", PixelUnshuffle);
}

}  // namespace pt2onnx::reference
