// File: runtime/kernels/accelerated.h
// -----------------------------------------------------------------------------
// XNNPACK-backed kernels (kernels/xnn_*.cc; the recurrent layers' and the
// int8 plan's kernels that use it). The session asks for one first; null
// means XNNPACK does not take this node (dtype, weights it cannot pack,
// unsupported attributes) and the portable kernel runs it.
#ifndef PT2ONNX_RUNTIME_KERNELS_ACCELERATED_H_
#define PT2ONNX_RUNTIME_KERNELS_ACCELERATED_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/packed_gemm.h"

namespace pt2onnx::runtime {

absl::StatusOr<std::unique_ptr<OpKernel>> CreateAcceleratedKernel(const KernelCreateInfo& info);

// Add/Sub/Mul/Div, Softmax, Gelu, Transpose (kernels/xnn_elementwise.cc); null when
// XNNPACK does not take the node. Called by CreateAcceleratedKernel.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateXnnElementwiseKernel(const KernelCreateInfo& info);

// A float32 3-D Conv with constant weights as one XNNPACK 2-D convolution per
// depth tap (kernels/xnn_conv3d.cc); null when XNNPACK does not take it.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateXnnConv3dKernel(const KernelCreateInfo& info);

// MaxPool and GlobalAveragePool of the NHWC plan (kernels/xnn_pool.cc): float32
// [N, H, W, C] in and out; null for other op types.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateNhwcPoolKernel(const KernelCreateInfo& info);

// Add / Mul of the NHWC plan with a fused Relu (attribute activation="Relu") or
// Clip (output_min / output_max) (kernels/nhwc_activated.cc); null for other op types.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateNhwcActivatedKernel(const KernelCreateInfo& info);

// Y[..., N] = X[..., K] W + bias in one fully connected operator (a MatMul
// whose only reader adds a bias); W [K, N] and bias [N] float32. Null when
// XNNPACK does not take it.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateFullyConnectedWithBias(const Tensor& w, const Tensor& bias);

// XNNPACK's fully connected operator as a PackedGemm (kernels/xnn_packed_gemm.cc):
// W [n, k], bias [n] or null, both copied. Null when XNNPACK does not take it.
std::unique_ptr<PackedGemm<float>> CreateXnnPackedGemm(const float* w, const float* bias, int64_t n, int64_t k);

// LSTM, GRU and RNN with their matrix products through XNNPACK
// (kernels/recurrent.cc); the registry's kernel runs them portably.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateAcceleratedRecurrentKernel(const KernelCreateInfo& info);

// The int8 steps of plan/qdq_int8.h, QConvNhwc and QFullyConnected
// (kernels/xnn_int8.cc); an error when XNNPACK refuses one (the plan checks
// its limits first), null for other op types.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateInt8Kernel(const KernelCreateInfo& info);

// The int8 plan's elementwise steps QAdd, QMul, QUnary, QMean, QConcat and the
// uint8 <-> int8 shifts (kernels/int8_elementwise.cc); null for other op types.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateInt8ElementwiseKernel(const KernelCreateInfo& info);

// Whether QUnary runs `node` (an ONNX elementwise function of one value with
// a float32 kernel): the int8 plan asks before it matches one.
bool Int8UnaryTakes(const ir::Node& node);

// Whether XNNPACK runs int8 x int8 products with a float32 output (qd8_f32_qc8w)
// on this machine: the int8 plan's steps whose output is not quantized.
bool Int8FloatOutputAvailable();

// Whether XNNPACK initialised on this machine (else every node runs portably).
bool AcceleratorAvailable();

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_ACCELERATED_H_
