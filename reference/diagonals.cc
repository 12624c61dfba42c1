// File: reference/diagonals.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/diagonals.cc: linalg_diagonal, trace, diag,
// diagflat and diag_embed, by walking element coordinates: the diagonal at
// offset k of dims (d1, d2) holds the elements with i2 - i1 == k
// (aten/src/ATen/native/TensorShape.cpp, diagonal and diag_embed).
#include <algorithm>
#include <cstdint>
#include <cstring>
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

// Offsets the kernels accept (they are added to sizes).
constexpr int64_t kMaxOffset = int64_t{1} << 31;
// The most elements an embedding allocates (an offset alone can ask for m * m).
constexpr int64_t kMaxEmbedded = int64_t{1} << 30;

absl::StatusOr<int64_t> Offset(const RefCall& call, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, call.Int(arg));
  if (k > kMaxOffset || k < -kMaxOffset) return call.Invalid(absl::StrCat(arg, " out of range"));
  return k;
}

// The diagonal at offset k of dims d1 != d2 (wrapped): the other dims in
// order, then the diagonal.
absl::StatusOr<Tensor> Diagonal(const Tensor& t, int64_t k, int64_t d1, int64_t d2) {
  const int64_t rows = t.dim(d1), cols = t.dim(d2);
  const int64_t length = std::max<int64_t>(0, k >= 0 ? std::min(rows, cols - k) : std::min(rows + k, cols));
  Dims dims;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < t.rank(); ++d) {
    if (d != d1 && d != d2) {
      dims.push_back(t.dim(d));
      kept.push_back(d);
    }
  }
  dims.push_back(length);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(t.dtype(), dims));
  const std::vector<int64_t> strides = RowMajorStrides(t.dims());
  const size_t width = ElementSize(t.dtype());
  std::vector<int64_t> at(dims.size(), 0);
  for (int64_t o = 0; o < out.numel(); ++o) {
    int64_t from = 0;
    for (size_t j = 0; j < kept.size(); ++j) from += at[j] * strides[kept[j]];
    const int64_t i = at.back();
    from += (k >= 0 ? i : i - k) * strides[d1] + (k >= 0 ? i + k : i) * strides[d2];
    std::memcpy(out.raw() + o * width, t.raw() + from * width, width);
    for (int64_t j = static_cast<int64_t>(at.size()) - 1; j >= 0; --j) {
      if (++at[j] < dims[j]) break;
      at[j] = 0;
    }
  }
  return out;
}

// self's last dim on the offset-k diagonal of new dims d1, d2 of a rank + 1
// result (zeros elsewhere).
absl::StatusOr<Tensor> Embed(const Tensor& t, int64_t k, int64_t d1, int64_t d2) {
  const int64_t n = t.dim(t.rank() - 1);
  const int64_t m = n + (k >= 0 ? k : -k);
  Dims dims;
  for (int64_t d = 0; d + 1 < t.rank(); ++d) dims.push_back(t.dim(d));
  // Insert the two new dims at their output positions, lower first.
  const int64_t lo = std::min(d1, d2), hi = std::max(d1, d2);
  dims.insert(dims.begin() + lo, m);
  dims.insert(dims.begin() + hi, m);
  std::optional<int64_t> total = int64_t{1};
  for (int64_t d : dims) total = total ? CheckedMul(*total, d) : std::nullopt;
  if (!total || *total > kMaxEmbedded) return absl::InvalidArgumentError("diagonal embedding too large");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(t.dtype(), dims));
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  const size_t width = ElementSize(t.dtype());
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> at(t.rank(), 0);
  for (int64_t s = 0; s < t.numel(); ++s) {
    const int64_t i = at.back();
    int64_t to = 0;
    size_t j = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == d1) {
        to += (k >= 0 ? i : i - k) * strides[d];
      } else if (d == d2) {
        to += (k >= 0 ? i + k : i) * strides[d];
      } else {
        to += at[j++] * strides[d];
      }
    }
    std::memcpy(out.raw() + to * width, t.raw() + s * width, width);
    for (int64_t q = static_cast<int64_t>(at.size()) - 1; q >= 0; --q) {
      if (++at[q] < t.dim(q)) break;
      at[q] = 0;
    }
  }
  return out;
}

// aten::linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)
absl::Status LinalgDiagonal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, call.Input("A"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, Offset(call, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim1, call.Int("dim1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim2, call.Int("dim2"));
  if (a.rank() < 2) return call.Invalid("diagonal needs two dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, WrapDim(dim1, a.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, WrapDim(dim2, a.rank()));
  if (d1 == d2) return call.Invalid("diagonal dimensions cannot be identical");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Diagonal(a, k, d1, d2));
  return call.SetTensor(std::move(out));
}

// aten::trace(Tensor self) -> Tensor
absl::Status Trace(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.rank() != 2) return call.Invalid("trace expects a matrix");
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = IsFloatLike(self.dtype()) ? self.dtype() : DataType::kInt64;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor diagonal, Diagonal(self, 0, 0, 1));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, {}));
  if (IsFloatLike(dtype)) {
    double sum = 0;
    for (int64_t i = 0; i < diagonal.numel(); ++i) sum += LoadDouble(diagonal, i);
    StoreDouble(out, 0, sum);
  } else {
    int64_t sum = 0;
    // Wraps as torch's int64 accumulation does.
    for (int64_t i = 0; i < diagonal.numel(); ++i) {
      sum = static_cast<int64_t>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(LoadInt(diagonal, i)));
    }
    StoreInt(out, 0, sum);
  }
  return call.SetTensor(std::move(out));
}

// aten::diag(Tensor self, int diagonal=0) -> Tensor
absl::Status Diag(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, Offset(call, "diagonal"));
  if (self.rank() != 1 && self.rank() != 2) return call.Invalid("diag expects a vector or a matrix");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, self.rank() == 1 ? Embed(self, k, 0, 1) : Diagonal(self, k, 0, 1));
  return call.SetTensor(std::move(out));
}

// aten::diagflat(Tensor self, int offset=0) -> Tensor
absl::Status Diagflat(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, Offset(call, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Embed(self.Alias({self.numel()}), k, 0, 1));
  return call.SetTensor(std::move(out));
}

// aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor
absl::Status DiagEmbed(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, Offset(call, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim1, call.Int("dim1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim2, call.Int("dim2"));
  if (self.rank() < 1) return call.Invalid("diag_embed needs at least one dimension");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, WrapDim(dim1, self.rank() + 1));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, WrapDim(dim2, self.rank() + 1));
  if (d1 == d2) return call.Invalid("diagonal dimensions cannot be identical");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Embed(self, k, d1, d2));
  return call.SetTensor(std::move(out));
}

// aten::diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor
// A copy of self whose diagonal (laid out as diagonal() returns it) is src.
absl::Status DiagonalScatter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src_in, call.Input("src"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, Offset(call, "offset"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim1, call.Int("dim1"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim2, call.Int("dim2"));
  if (self.rank() < 2) return call.Invalid("diagonal needs two dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, WrapDim(dim1, self.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d2, WrapDim(dim2, self.rank()));
  if (d1 == d2) return call.Invalid("diagonal dimensions cannot be identical");
  const int64_t rows = self.dim(d1), cols = self.dim(d2);
  const int64_t length = std::max<int64_t>(0, k >= 0 ? std::min(rows, cols - k) : std::min(rows + k, cols));
  Dims dims;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < self.rank(); ++d) {
    if (d != d1 && d != d2) {
      dims.push_back(self.dim(d));
      kept.push_back(d);
    }
  }
  dims.push_back(length);
  if (src_in.dims() != dims) return call.Invalid("diagonal_scatter: src must have the shape of the diagonal");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor src, CastTensor(src_in, self.dtype()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  const std::vector<int64_t> strides = RowMajorStrides(self.dims());
  const size_t width = ElementSize(self.dtype());
  std::vector<int64_t> at(dims.size(), 0);
  for (int64_t s = 0; s < src.numel(); ++s) {
    const int64_t i = at.back();
    int64_t to = (k >= 0 ? i : i - k) * strides[d1] + (k >= 0 ? i + k : i) * strides[d2];
    for (size_t j = 0; j < kept.size(); ++j) to += at[j] * strides[kept[j]];
    std::memcpy(out.raw() + to * width, src.raw() + s * width, width);
    for (int64_t j = static_cast<int64_t>(at.size()) - 1; j >= 0; --j) {
      if (++at[j] < dims[j]) break;
      at[j] = 0;
    }
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterDiagonalsRef(RefRegistry& r) {
  r.Add("aten::diagonal_scatter.default", DiagonalScatter);
  r.Add("aten::linalg_diagonal.default", LinalgDiagonal);
  r.Add("aten::trace.default", Trace);
  r.Add("aten::diag.default", Diag);
  r.Add("aten::diagflat.default", Diagflat);
  r.Add("aten::diag_embed.default", DiagEmbed);
}

}  // namespace pt2onnx::reference
