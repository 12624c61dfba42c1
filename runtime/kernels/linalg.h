// File: runtime/kernels/linalg.h
// -----------------------------------------------------------------------------
// MatMul shape planning shared by the portable and XNNPACK kernels.
#ifndef PT2ONNX_RUNTIME_KERNELS_LINALG_H_
#define PT2ONNX_RUNTIME_KERNELS_LINALG_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::runtime {

struct MatMulShape {
  int64_t m = 0, k = 0, n = 0;
  Dims batch;                           // broadcast batch dims
  std::vector<int64_t> a_batch_strides;  // in matrices, per batch dim
  std::vector<int64_t> b_batch_strides;
  Dims out;
};

// numpy matmul rules: 1-D operands get a dim added (and removed again).
absl::StatusOr<MatMulShape> PlanMatMul(const Dims& a, const Dims& b);

template <typename T>
void MatMulBlock(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_LINALG_H_
