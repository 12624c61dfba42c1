// File: runtime/kernels/registry.h
// -----------------------------------------------------------------------------
// Kernel lookup by op type. Accelerated kernels (XNNPACK) are tried first by
// the session and fall back to these when they decline a case.
#ifndef PT2ONNX_RUNTIME_KERNELS_REGISTRY_H_
#define PT2ONNX_RUNTIME_KERNELS_REGISTRY_H_

#include <string>
#include <vector>

#include "runtime/kernels/kernel.h"

namespace pt2onnx::runtime {

// The registration for `op_type` (ai.onnx domain), or null.
const KernelRegistration* FindKernel(const std::string& op_type);
// Every op type with a kernel, sorted.
std::vector<std::string> KernelOpTypes();

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_REGISTRY_H_
