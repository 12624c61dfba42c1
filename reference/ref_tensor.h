// File: reference/ref_tensor.h
// -----------------------------------------------------------------------------
// Element access and layout helpers for the reference interpreter. Kernels
// read a tensor as doubles (floating results, computed in double and rounded
// once to the result dtype) or as int64 (integer and bool results, wrapped to
// the result dtype as C++ conversions do), then build the result from the
// vector. Simple and dtype-agnostic; speed is not the goal.
//
//   std::vector<double> x = ToDoubles(self);
//   for (double& v : x) v = std::tanh(v);
//   PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(self.dtype(), self.dims(), x));
#ifndef PT2ONNX_REFERENCE_REF_TENSOR_H_
#define PT2ONNX_REFERENCE_REF_TENSOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "reference/ref_value.h"

namespace pt2onnx::reference {

// A zero-filled tensor (heap buffer). Errors for overflowing sizes.
absl::StatusOr<Tensor> NewTensor(DataType dtype, const Dims& dims);

// Complex tensors (complex64 / complex128, interleaved real and imaginary
// parts) load their real part and store (v, 0); only the FFT kernels and
// view_as_real read them as complex (fft.cc).
double LoadDouble(const Tensor& t, int64_t i);
int64_t LoadInt(const Tensor& t, int64_t i);  // floats truncate toward zero
void StoreDouble(Tensor& t, int64_t i, double v);  // ints: truncation, bool: v != 0
void StoreInt(Tensor& t, int64_t i, int64_t v);    // wraps to narrower ints

std::vector<double> ToDoubles(const Tensor& t);
std::vector<int64_t> ToInts(const Tensor& t);
absl::StatusOr<Tensor> FromDoubles(DataType dtype, const Dims& dims, absl::Span<const double> v);
absl::StatusOr<Tensor> FromInts(DataType dtype, const Dims& dims, absl::Span<const int64_t> v);

// torch's tensor.to(dtype): float -> int truncates, anything -> bool is != 0,
// real -> complex has imaginary part 0, complex -> real keeps the real part.
absl::StatusOr<Tensor> CastTensor(const Tensor& t, DataType dtype);
// A copy with its own buffer (in-place ops must not write into a shared one).
absl::StatusOr<Tensor> CopyTensor(const Tensor& t);
absl::StatusOr<Tensor> ScalarTensor(DataType dtype, double v);

bool IsFloatLike(DataType dtype);  // computed through doubles

// Row-major strides of `dims` in elements.
std::vector<int64_t> RowMajorStrides(const Dims& dims);
// `dim` in [-rank, rank-1] (a 0-d tensor takes -1 and 0), else an error.
absl::StatusOr<int64_t> WrapDim(int64_t dim, int64_t rank);

// For each element of `out` (row-major), the flat index in a tensor of dims
// `in` broadcast to `out` (in must broadcast to out).
std::vector<int64_t> BroadcastIndices(const Dims& in, const Dims& out);

// A new contiguous tensor viewing `src` (contiguous) through `sizes`,
// `strides` and `offset` in elements, as torch.as_strided would; the view
// must stay inside `src` (checked).
absl::StatusOr<Tensor> GatherStrided(const Tensor& src, const Dims& sizes,
                                     const std::vector<int64_t>& strides, int64_t offset);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_REF_TENSOR_H_
