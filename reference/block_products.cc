// File: reference/block_products.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/block_products.cc: block_diag copies each input's
// rows at its running (row, column) corner of a zero matrix; cartesian_prod
// enumerates combinations with the last input fastest, as
// itertools.product does; linalg_vander multiplies powers one at a time.
#include <cstdint>
#include <cstring>
#include <string>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/aten/type_promotion.h"
#include "core/checked_math.h"
#include "core/status_macros.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// Columns linalg_vander computes at most (the translation's bound).
constexpr int64_t kMaxVanderColumns = 1024;

// The inputs cast to the output dtype (or their promoted one).
absl::StatusOr<std::vector<Tensor>> CastInputs(RefCall& call, DataType* dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> all, call.Inputs("tensors"));
  if (all.empty()) return call.Invalid("an empty tensor list");
  *dtype = call.OutputDtype();
  if (*dtype == DataType::kUndefined) {
    for (const Tensor& t : all) *dtype = aten::PromoteTypes(*dtype, t.dtype());
  }
  std::vector<Tensor> cast;
  for (const Tensor& t : all) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor c, CastTensor(t, *dtype));
    cast.push_back(std::move(c));
  }
  return cast;
}

// aten::block_diag(Tensor[] tensors) -> Tensor
absl::Status BlockDiag(RefCall& call) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> parts, CastInputs(call, &dtype));
  int64_t rows = 0, cols = 0;
  for (Tensor& t : parts) {
    if (t.rank() > 2) return call.Invalid("block_diag takes tensors of at most 2 dims");
    if (t.rank() < 2) t = t.Alias({1, t.numel()});
    rows += t.dim(0);
    cols += t.dim(1);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, {rows, cols}));
  const size_t width = ElementSize(dtype);
  int64_t row = 0, col = 0;
  for (const Tensor& t : parts) {
    for (int64_t r = 0; r < t.dim(0); ++r) {
      std::memcpy(out.raw() + ((row + r) * cols + col) * width, t.raw() + r * t.dim(1) * width, t.dim(1) * width);
    }
    row += t.dim(0);
    col += t.dim(1);
  }
  return call.SetTensor(std::move(out));
}

// aten::cartesian_prod(Tensor[] tensors) -> Tensor
absl::Status CartesianProd(RefCall& call) {
  DataType dtype;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> parts, CastInputs(call, &dtype));
  for (const Tensor& t : parts) {
    if (t.rank() != 1) return call.Invalid("cartesian_prod expects 1-d tensors");
  }
  if (parts.size() == 1) return call.SetTensor(parts[0]);
  const int64_t k = static_cast<int64_t>(parts.size());
  int64_t count = 1;
  for (const Tensor& t : parts) {
    std::optional<int64_t> grown = CheckedMul(count, t.numel());
    if (!grown) return call.Invalid("cartesian_prod: too many combinations");
    count = *grown;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, {count, k}));
  const size_t width = ElementSize(dtype);
  std::vector<int64_t> at(k, 0);
  for (int64_t row = 0; row < count; ++row) {
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(out.raw() + (row * k + j) * width, parts[j].raw() + at[j] * width, width);
    }
    for (int64_t j = k - 1; j >= 0; --j) {
      if (++at[j] < parts[j].numel()) break;
      at[j] = 0;
    }
  }
  return call.SetTensor(std::move(out));
}

// aten::linalg_vander(Tensor x, *, SymInt? N=None) -> Tensor
// out[..., i, j] = x[..., i]^j as a running product (torch's cumprod).
absl::Status LinalgVander(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("x"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> given, call.OptionalInt("N"));
  if (x.dtype() == DataType::kBool) return call.Invalid("linalg.vander does not take bool tensors");
  if (x.rank() == 0) x = x.Alias({1});
  const int64_t n = given ? *given : x.dim(x.rank() - 1);
  if (n <= 1) return call.Invalid("N must be greater than 1");
  if (n > kMaxVanderColumns) return call.Invalid("linalg.vander: too many columns");
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = IsFloatLike(x.dtype()) ? x.dtype() : DataType::kInt64;
  Dims dims = x.dims();
  dims.push_back(n);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (IsFloatLike(dtype)) {
      // Rounded to the result dtype after each product, as torch's cumprod is.
      PT2ONNX_ASSIGN_OR_RETURN(Tensor one, ScalarTensor(dtype, 1.0));
      double power = 1.0;
      StoreDouble(out, i * n, power);
      for (int64_t j = 1; j < n; ++j) {
        StoreDouble(one, 0, power * LoadDouble(x, i));
        power = LoadDouble(one, 0);
        StoreDouble(out, i * n + j, power);
      }
    } else {
      uint64_t power = 1;
      StoreInt(out, i * n, 1);
      for (int64_t j = 1; j < n; ++j) {
        power *= static_cast<uint64_t>(LoadInt(x, i));  // wraps as int64 products do
        StoreInt(out, i * n + j, static_cast<int64_t>(power));
      }
    }
  }
  return call.SetTensor(std::move(out));
}

// aten::combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor
// Rows in lexicographic index order: an odometer whose digits never
// decrease (with replacement) or strictly increase (without).
absl::Status Combinations(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t r, call.Int("r"));
  PT2ONNX_ASSIGN_OR_RETURN(bool replace, call.Bool("with_replacement"));
  if (self.rank() != 1) return call.Invalid("Expect a 1D vector, but got shape of rank " + std::to_string(self.rank()));
  if (r < 0) return call.Invalid("Expect a non-negative number, but got " + std::to_string(r));
  const size_t width = ElementSize(self.dtype());
  if (r == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor empty, NewTensor(self.dtype(), {0}));
    return call.SetTensor(std::move(empty));
  }
  const int64_t n = self.numel();
  std::vector<int64_t> picks;
  std::vector<int64_t> at(static_cast<size_t>(r));
  for (int64_t k = 0; k < r; ++k) at[k] = replace ? 0 : k;
  bool more = replace ? n > 0 : r <= n;
  while (more) {
    if (static_cast<int64_t>(picks.size()) + r > (int64_t{1} << 24)) return call.Invalid("combinations: too many rows");
    picks.insert(picks.end(), at.begin(), at.end());
    // The rightmost digit that can still grow; the digits after it restart.
    int64_t k = r - 1;
    while (k >= 0 && at[k] >= (replace ? n - 1 : n - r + k)) --k;
    more = k >= 0;
    if (!more) break;
    ++at[k];
    for (int64_t j = k + 1; j < r; ++j) at[j] = replace ? at[k] : at[j - 1] + 1;
  }
  const int64_t count = static_cast<int64_t>(picks.size()) / r;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), {count, r}));
  for (size_t i = 0; i < picks.size(); ++i) std::memcpy(out.raw() + i * width, self.raw() + picks[i] * width, width);
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterBlockProductsRef(RefRegistry& r) {
  r.Add("aten::combinations.default", Combinations);
  r.Add("aten::block_diag.default", BlockDiag);
  r.Add("aten::cartesian_prod.default", CartesianProd);
  r.Add("aten::linalg_vander.default", LinalgVander);
}

}  // namespace pt2onnx::reference
