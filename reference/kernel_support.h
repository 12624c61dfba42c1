// File: reference/kernel_support.h
// -----------------------------------------------------------------------------
// Helpers shared by the reference op families: Tensor-or-Scalar operands,
// broadcast elementwise maps computed in double (floating results) or int64
// (integer and bool results), and in-place write-back.
#ifndef PT2ONNX_REFERENCE_KERNEL_SUPPORT_H_
#define PT2ONNX_REFERENCE_KERNEL_SUPPORT_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"

namespace pt2onnx::reference {

using DoubleBinary = std::function<double(double, double)>;
using IntBinary = std::function<absl::StatusOr<int64_t>(int64_t, int64_t)>;
using DoubleUnary = std::function<double(double)>;

// A Tensor argument, or a Scalar one as a 0-d tensor (float64 / int64 /
// bool, so no precision is lost before the result dtype is applied).
absl::StatusOr<Tensor> TensorOrScalar(const RefCall& call, absl::string_view name);

// out[i] = f(a[i], b[i]) over the broadcast of a and b. Both operands are
// first cast to `compute` (torch computes in the promoted dtype); the result
// is stored as `out_dtype`. Float computes use `fd`, the others `fi`.
absl::StatusOr<Tensor> BinaryMap(const Tensor& a, const Tensor& b, DataType compute,
                                 DataType out_dtype, const DoubleBinary& fd, const IntBinary& fi);

// out[i] = f(x[i]) computed in double, stored as `out_dtype`.
absl::StatusOr<Tensor> UnaryMapDouble(const Tensor& x, DataType out_dtype, const DoubleUnary& f);

// Writes `value` (broadcast to self's shape, cast to self's dtype) into
// self's buffer, so every alias of self sees it: ATen's in-place semantics.
absl::Status WriteInPlace(Tensor& self, const Tensor& value);

// The default float dtype for integer inputs of float-valued ops.
DataType FloatResult(DataType input);

// An integer result of int64 arithmetic as the narrower integer `dtype` holds
// it (two's complement wrap-around, as torch's integer kernels compute); the
// value itself for int64 and non-integer dtypes.
double WrapToWidth(int64_t v, DataType dtype);

// Dims of `t` broadcast materialised to `dims`.
absl::StatusOr<Tensor> BroadcastTo(const Tensor& t, const Dims& dims);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_KERNEL_SUPPORT_H_
