// File: runtime/kernels/gate_activations.h
// -----------------------------------------------------------------------------
// The activations of the recurrent cells (kernels/recurrent.cc) applied in
// place to a contiguous array: one call per gate block and time step, so the
// loops must vectorise. float32 uses its own exp (range reduction and a
// polynomial, no branches or library calls in the loop), within 3 ulp of
// the exact value as libm is; float64 keeps libm's exp and tanh.
//
//   ActivateInPlace(GateActivation::kSigmoid, gates, 3 * hidden);
#ifndef PT2ONNX_RUNTIME_KERNELS_GATE_ACTIVATIONS_H_
#define PT2ONNX_RUNTIME_KERNELS_GATE_ACTIVATIONS_H_

#include <cstdint>

namespace pt2onnx::runtime {

enum class GateActivation { kSigmoid, kTanh, kRelu };

void ActivateInPlace(GateActivation activation, float* values, int64_t n);
void ActivateInPlace(GateActivation activation, double* values, int64_t n);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_GATE_ACTIVATIONS_H_
