// File: reference/shape_support.h
// -----------------------------------------------------------------------------
// Layout helpers of the reference views and joins: size inference with -1,
// permutation, slicing and selecting along one dim (all return new
// row-major tensors; hostile sizes are checked).
#ifndef PT2ONNX_REFERENCE_SHAPE_SUPPORT_H_
#define PT2ONNX_REFERENCE_SHAPE_SUPPORT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "reference/ref_value.h"

namespace pt2onnx::reference {

class RefCall;

// `size` with at most one -1 replaced so the product is `numel`.
absl::StatusOr<Dims> InferSize(const std::vector<int64_t>& size, int64_t numel);
// perm must be a permutation of [0, rank) (negative dims wrap).
absl::StatusOr<Tensor> Permute(const Tensor& t, const std::vector<int64_t>& perm);
// Python slicing of dim `dim` (already wrapped): start/end clamp, step > 0.
absl::StatusOr<Tensor> SliceDim(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
// SliceDim with the (int dim=0, SymInt? start=None, SymInt? end=None,
// SymInt step=1) arguments of `call`, dim wrapped into t's rank.
absl::StatusOr<Tensor> SliceByArgs(const RefCall& call, const Tensor& t);
// Index `index` of dim `dim` (negative wraps), the dim removed.
absl::StatusOr<Tensor> SelectDim(const Tensor& t, int64_t dim, int64_t index);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_SHAPE_SUPPORT_H_
