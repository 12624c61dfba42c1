#include "reference/shape_support.h"

#include <algorithm>

#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {

absl::StatusOr<Dims> InferSize(const std::vector<int64_t>& size, int64_t numel) {
  Dims dims(size.begin(), size.end());
  int64_t known = 1;
  int infer = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == -1) {
      if (infer >= 0) return absl::InvalidArgumentError("only one dimension can be inferred");
      infer = static_cast<int>(d);
    } else if (dims[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("invalid shape dimension ", dims[d]));
    } else {
      PT2ONNX_ASSIGN_OR_RETURN(known, CheckedNumel({known, dims[d]}));
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape '", DimsString(dims),
                                                     "' is invalid for input of size ", numel));
    }
    dims[infer] = numel / known;
  } else if (known != numel) {
    return absl::InvalidArgumentError(absl::StrCat("shape '", DimsString(dims),
                                                   "' is invalid for input of size ", numel));
  }
  return dims;
}

absl::StatusOr<Tensor> Permute(const Tensor& t, const std::vector<int64_t>& perm) {
  if (static_cast<int64_t>(perm.size()) != t.rank()) {
    return absl::InvalidArgumentError("permute: the number of dims does not match the rank");
  }
  std::vector<bool> seen(t.rank(), false);
  std::vector<int64_t> strides = RowMajorStrides(t.dims()), out_strides;
  Dims sizes;
  for (int64_t p : perm) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t d, WrapDim(p, t.rank()));
    if (seen[d]) return absl::InvalidArgumentError("permute: repeated dim");
    seen[d] = true;
    sizes.push_back(t.dims()[d]);
    out_strides.push_back(strides[d]);
  }
  return GatherStrided(t, sizes, out_strides, 0);
}

absl::StatusOr<Tensor> SliceByArgs(const RefCall& call, const Tensor& t) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, t.rank()));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> start, call.OptionalInt("start"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> end, call.OptionalInt("end"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t step, call.Int("step"));
  if (step <= 0) return call.Invalid("slice step must be positive");
  return SliceDim(t, dim, start.value_or(0), end.value_or(std::numeric_limits<int64_t>::max()), step);
}

absl::StatusOr<Tensor> SliceDim(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  const int64_t n = t.dims()[dim];
  if (start < 0) start = start < -n ? 0 : start + n;
  if (end < 0) end = end < -n ? 0 : end + n;
  start = std::min(start, n);
  end = std::min(std::max(end, start), n);
  Dims sizes = t.dims();
  sizes[dim] = (end - start + step - 1) / step;
  std::vector<int64_t> strides = RowMajorStrides(t.dims());
  const int64_t offset = start * strides[dim];
  strides[dim] *= step;
  return GatherStrided(t, sizes, strides, sizes[dim] == 0 ? 0 : offset);
}

absl::StatusOr<Tensor> SelectDim(const Tensor& t, int64_t dim, int64_t index) {
  const int64_t n = t.dims()[dim];
  if (index < -n || index >= n) {
    return absl::InvalidArgumentError(absl::StrCat("index ", index, " is out of bounds for dimension ",
                                                   dim, " with size ", n));
  }
  if (index < 0) index += n;
  std::vector<int64_t> strides = RowMajorStrides(t.dims());
  const int64_t offset = index * strides[dim];
  Dims sizes = t.dims();
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return GatherStrided(t, sizes, strides, offset);
}

}  // namespace pt2onnx::reference
