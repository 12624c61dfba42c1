// File: runtime/kernels/packed_gemm.h
// -----------------------------------------------------------------------------
// Y[m, n] = X[m, k] W^T + bias with W [n, k] (the layout of ONNX's recurrent
// weights and of Gemm with transB=1) prepared once and applied to any number
// of row blocks: the recurrent kernels run one per time step. XNNPACK's
// fully connected operator where it takes float32 (kernels/xnn_packed_gemm.cc),
// else a portable loop over W transposed.
//
//   auto gemm = CreatePackedGemm(w, bias, n, k, /*accelerate=*/true);
//   PT2ONNX_RETURN_IF_ERROR(gemm->Run(x, rows, y, ctx.threadpool_for(rows * n * k, kMinParallelMacs)));
#ifndef PT2ONNX_RUNTIME_KERNELS_PACKED_GEMM_H_
#define PT2ONNX_RUNTIME_KERNELS_PACKED_GEMM_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "runtime/kernels/kernel.h"

namespace pt2onnx::runtime {

template <typename T>
class PackedGemm {
 public:
  virtual ~PackedGemm() = default;
  // y [m, n] (row stride n) from x [m, k] (row stride k). x and y must not
  // overlap. `pool` may be null (the calling thread alone). Not thread-safe:
  // an operator keeps the shape it last ran.
  virtual absl::Status Run(const T* x, int64_t m, T* y, pthreadpool_t pool) = 0;
};

// Copies `w` [n, k] and `bias` [n] (null: zero); neither need outlive the
// call. n > 0; k may be 0 (y is the bias).
std::unique_ptr<PackedGemm<float>> CreatePackedGemm(const float* w, const float* bias, int64_t n, int64_t k,
                                                    bool accelerate);
std::unique_ptr<PackedGemm<double>> CreatePackedGemm(const double* w, const double* bias, int64_t n, int64_t k,
                                                     bool accelerate);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_PACKED_GEMM_H_
