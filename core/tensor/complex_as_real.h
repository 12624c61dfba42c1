// File: core/tensor/complex_as_real.h
// -----------------------------------------------------------------------------
// How every tool hands out a complex value (docs/cli.md, "Complex outputs"):
// as torch.view_as_real lays it out, a float32 (float64) tensor with a
// trailing dim of 2 (real, imaginary). The ONNX model carries complex values
// that way; refrun and --verify turn the reference interpreter's complex
// tensors into the same layout with this.
//
//   PT2ONNX_ASSIGN_OR_RETURN(out.tensor, ComplexAsReal(out.tensor));
#ifndef PT2ONNX_CORE_TENSOR_COMPLEX_AS_REAL_H_
#define PT2ONNX_CORE_TENSOR_COMPLEX_AS_REAL_H_

#include "absl/status/statusor.h"
#include "core/tensor/tensor.h"

namespace pt2onnx {

// A complex64/complex128 tensor as float32/float64 [..., 2]: the same
// interleaved bytes, copied. Any other tensor is returned as it is (sharing
// its buffer).
absl::StatusOr<Tensor> ComplexAsReal(const Tensor& tensor);

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_TENSOR_COMPLEX_AS_REAL_H_
