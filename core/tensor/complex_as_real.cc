#include "core/tensor/complex_as_real.h"

#include <cstring>
#include <utility>

#include "core/status_macros.h"

namespace pt2onnx {

absl::StatusOr<Tensor> ComplexAsReal(const Tensor& tensor) {
  if (tensor.dtype() != DataType::kComplex64 && tensor.dtype() != DataType::kComplex128) return tensor;
  Dims dims = tensor.dims();
  dims.push_back(2);
  const DataType part = tensor.dtype() == DataType::kComplex64 ? DataType::kFloat : DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor real, Tensor::Allocate(part, std::move(dims), nullptr));
  if (real.byte_size() > 0) std::memcpy(real.raw(), tensor.raw(), real.byte_size());
  return real;
}

}  // namespace pt2onnx
