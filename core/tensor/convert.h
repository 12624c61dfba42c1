// File: core/tensor/convert.h
// -----------------------------------------------------------------------------
// Conversions between runtime tensors: element type casts (Cast, the fp32
// compute path of float16/bfloat16), and IR constants (initializers,
// Constant nodes) copied into runtime tensors.
#ifndef PT2ONNX_CORE_TENSOR_CONVERT_H_
#define PT2ONNX_CORE_TENSOR_CONVERT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ir/graph.h"
#include "core/tensor/tensor.h"

namespace pt2onnx {

// Converts every element of `src` into `dst` (same dims, any numeric dtypes).
absl::Status CastInto(const Tensor& src, Tensor& dst);
absl::StatusOr<Tensor> CastTo(const Tensor& src, DataType dtype, BufferPool* pool);

// A copy of an IR constant (its bytes are read once, here).
absl::StatusOr<Tensor> FromIrTensor(const ir::Tensor& tensor);
// The value of a Constant node (value, value_float(s), value_int(s)).
absl::StatusOr<Tensor> ConstantNodeValue(const ir::Node& node);

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_TENSOR_CONVERT_H_
