// File: reference/index_support.h
// -----------------------------------------------------------------------------
// Helpers of the reference indexing and scatter kernels: checked index
// values (negative wrap, bounds), row-major coordinates and element copies.
#ifndef PT2ONNX_REFERENCE_INDEX_SUPPORT_H_
#define PT2ONNX_REFERENCE_INDEX_SUPPORT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "reference/ref_value.h"

namespace pt2onnx::reference {

// The values of an integer index tensor (int64 or int32, as torch requires).
absl::StatusOr<std::vector<int64_t>> IndexValues(const Tensor& index);
// `v` in [-size, size) wrapped to [0, size), else an out-of-range error.
absl::StatusOr<int64_t> WrapIndex(int64_t v, int64_t size);
// Row-major coordinates of flat element `flat` of a tensor of `dims`.
std::vector<int64_t> Coords(int64_t flat, const Dims& dims);
// Flat offset of `coords` given row-major `strides`.
int64_t Offset(const std::vector<int64_t>& coords, const std::vector<int64_t>& strides);
// dst[di] = src[si]; both tensors have the same dtype.
void CopyElement(Tensor& dst, int64_t di, const Tensor& src, int64_t si);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_INDEX_SUPPORT_H_
