// File: reference/float_representation.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/float_representation.cc: nextafter and
// frexp.Tensor through <cmath>'s std::nextafter / std::frexp in the
// operands' own precision (float for float32, double for float64), and
// hash_tensor, which XORs the elements' 64-bit patterns.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// aten::nextafter(Tensor self, Tensor other) -> Tensor
absl::Status Nextafter(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) {
    PT2ONNX_ASSIGN_OR_RETURN(dtype, call.ResultType({"self", "other"}));
  }
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) return call.Invalid("nextafter: float32 / float64 only");
  const bool wide = dtype == DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, DataType::kDouble, dtype,
                            [wide](double x, double y) -> double {
                              if (wide) return std::nextafter(x, y);
                              return std::nextafter(static_cast<float>(x), static_cast<float>(y));
                            },
                            [](int64_t, int64_t) -> absl::StatusOr<int64_t> {
                              return absl::InvalidArgumentError("nextafter has a float result");
                            }));
  return call.SetTensor(std::move(out));
}

// aten::frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)
absl::Status Frexp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (!IsFloatLike(self.dtype())) return call.Invalid("frexp only supports floating-point dtypes");
  const std::vector<double> x = ToDoubles(self);
  std::vector<double> mantissa(x.size()), exponent(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    int e = 0;
    mantissa[i] = std::frexp(x[i], &e);
    if (!std::isfinite(x[i])) e = 0;
    exponent[i] = e;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, FromDoubles(self.dtype(), self.dims(), mantissa));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor e, FromDoubles(DataType::kInt32, self.dims(), exponent));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(m)));
  return call.SetTensor(std::move(e));
}

// aten::hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) -> Tensor
// Mode 0 (the only one): each element widened to double (floating dtypes) or
// int64 (the others), its 64 bits read as uint64, XORed over `dim` (every
// dim when empty); torch/_torch_docs.py documents the definition.
absl::Status HashTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dim, call.Ints("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t mode, call.Int("mode"));
  if (mode != 0) return call.Invalid(absl::StrCat("hash_tensor: mode ", mode, " is not supported"));
  const int64_t rank = self.rank();
  std::vector<bool> reduced(rank, dim.empty());
  for (int64_t d : dim) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t w, WrapDim(d, rank));
    if (rank > 0) reduced[w] = true;
  }
  Dims kept, out_dims;
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : self.dim(d));
    if (!reduced[d] || keepdim) out_dims.push_back(kept.back());
  }
  int64_t out_numel = 1;
  for (int64_t k : kept) out_numel *= k;
  std::vector<uint64_t> acc(out_numel, 0);
  const bool is_float = IsFloatLike(self.dtype());
  for (int64_t i = 0; i < self.numel(); ++i) {
    uint64_t bits = 0;
    if (is_float) {
      const double v = LoadDouble(self, i);
      std::memcpy(&bits, &v, sizeof(bits));
    } else {
      bits = static_cast<uint64_t>(LoadInt(self, i));
    }
    int64_t rest = i, at = 0, scale = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % self.dim(d);
      rest /= self.dim(d);
      if (!reduced[d]) at += c * scale;
      scale *= kept[d];
    }
    acc[at] ^= bits;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(DataType::kUint64, out_dims));
  if (out_numel > 0) std::memcpy(out.raw(), acc.data(), acc.size() * sizeof(uint64_t));
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterFloatRepresentationRef(RefRegistry& r) {
  r.Add("aten::nextafter.default", Nextafter);
  r.Add("aten::frexp.Tensor", Frexp);
  r.Add("aten::hash_tensor.default", HashTensor);
}

}  // namespace pt2onnx::reference
