// Reference kernels: random tensors (rand, randn, randint, their _like
// forms, randperm). Their values cannot match torch's generator nor the ONNX
// model's, so the kernels give values of the right dtype, shape and range
// from a fixed seed and mark them not comparable: the interpreter marks
// everything computed from them too, and --verify reports such values as
// not compared instead of comparing them (never a false pass or failure).
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/random_draws.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

using Stream = RandomStream;

enum class Draw { kUniform, kNormal, kInteger };

// The result dtype: the program's record, else `fallback`.
DataType ResultDtype(const RefCall& call, DataType fallback) {
  const DataType recorded = call.OutputDtype(0);
  return recorded == DataType::kUndefined ? fallback : recorded;
}

absl::Status Fill(RefCall& call, const Dims& dims, DataType dtype, Draw draw, int64_t low, int64_t high) {
  if (draw == Draw::kInteger && !(low < high)) {
    return call.Invalid(absl::StrCat("random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, dims));
  Stream s;
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (draw == Draw::kInteger) {
      StoreInt(t, i, static_cast<int64_t>(static_cast<uint64_t>(low) + s.Next() % range));
    } else if (draw == Draw::kUniform) {
      StoreDouble(t, i, s.Uniform());
    } else {
      StoreDouble(t, i, s.Normal());
    }
  }
  return SetRandom(call, std::move(t));
}

absl::StatusOr<Dims> SizeArg(const RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  for (int64_t d : size) {
    if (d < 0) return call.Invalid(absl::StrCat("negative dimension ", d));
  }
  return Dims(size.begin(), size.end());
}

// aten::rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status Rand(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, SizeArg(call));
  return Fill(call, dims, ResultDtype(call, DataType::kFloat), Draw::kUniform, 0, 1);
}
// aten::randn(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status Randn(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, SizeArg(call));
  return Fill(call, dims, ResultDtype(call, DataType::kFloat), Draw::kNormal, 0, 1);
}
// aten::rand_like(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status RandLike(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return Fill(call, self.dims(), ResultDtype(call, self.dtype()), Draw::kUniform, 0, 1);
}
// aten::randn_like(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status RandnLike(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return Fill(call, self.dims(), ResultDtype(call, self.dtype()), Draw::kNormal, 0, 1);
}
// aten::randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, ...) -> Tensor
absl::Status Randint(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t high, call.Int("high"));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, SizeArg(call));
  return Fill(call, dims, ResultDtype(call, DataType::kInt64), Draw::kInteger, 0, high);
}
// aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, ...) -> Tensor
absl::Status RandintLow(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t low, call.Int("low"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t high, call.Int("high"));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, SizeArg(call));
  return Fill(call, dims, ResultDtype(call, DataType::kInt64), Draw::kInteger, low, high);
}
// aten::randint_like(Tensor self, SymInt high, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status RandintLike(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t high, call.Int("high"));
  return Fill(call, self.dims(), ResultDtype(call, self.dtype()), Draw::kInteger, 0, high);
}
// aten::randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status RandintLikeLow(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t low, call.Int("low"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t high, call.Int("high"));
  return Fill(call, self.dims(), ResultDtype(call, self.dtype()), Draw::kInteger, low, high);
}
// aten::randperm(SymInt n, *, ScalarType? dtype=4, ...) -> Tensor: a shuffle of 0..n-1.
absl::Status Randperm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, call.Int("n"));
  if (n < 0) return call.Invalid(absl::StrCat("n must be non-negative, got", n));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(ResultDtype(call, DataType::kInt64), {n}));
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  Stream s;
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[s.Next() % static_cast<uint64_t>(i + 1)]);
  for (int64_t i = 0; i < n; ++i) StoreInt(t, i, perm[i]);
  return SetRandom(call, std::move(t));
}

}  // namespace

void RegisterRandomRef(RefRegistry& r) {
  r.Add("aten::rand.default", Rand);
  r.Add("aten::randn.default", Randn);
  r.Add("aten::rand_like.default", RandLike);
  r.Add("aten::randn_like.default", RandnLike);
  r.Add("aten::randint.default", Randint);
  r.Add("aten::randint.low", RandintLow);
  r.Add("aten::randint_like.default", RandintLike);
  r.Add("aten::randint_like.low_dtype", RandintLikeLow);
  r.Add("aten::randperm.default", Randperm);
}

}  // namespace pt2onnx::reference
