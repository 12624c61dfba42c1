// File: core/runtime/kernels/families.h
// -----------------------------------------------------------------------------
// The registration table of each kernel family (defined at the end of its
// file). A new family adds one pair here and one line in registry.cc.
#ifndef PT2ONNX_CORE_RUNTIME_KERNELS_FAMILIES_H_
#define PT2ONNX_CORE_RUNTIME_KERNELS_FAMILIES_H_

#include <cstddef>

#include "core/runtime/kernels/kernel.h"

namespace pt2onnx::runtime {

extern const KernelRegistration kControlFlowKernels[];  // control_flow.cc: If, Loop, Scan
extern const size_t kNumControlFlowKernels;
extern const KernelRegistration kLlmKernels[];  // llm.cc: Attention, RotaryEmbedding
extern const size_t kNumLlmKernels;
extern const KernelRegistration kBinaryKernels[];
extern const size_t kNumBinaryKernels;
extern const KernelRegistration kUnaryKernels[];
extern const size_t kNumUnaryKernels;
extern const KernelRegistration kShapeKernels[];
extern const size_t kNumShapeKernels;
extern const KernelRegistration kSliceKernels[];
extern const size_t kNumSliceKernels;
extern const KernelRegistration kGatherScatterKernels[];
extern const size_t kNumGatherScatterKernels;
extern const KernelRegistration kGenerateKernels[];
extern const size_t kNumGenerateKernels;
extern const KernelRegistration kReduceKernels[];
extern const size_t kNumReduceKernels;
extern const KernelRegistration kLinalgKernels[];
extern const size_t kNumLinalgKernels;
extern const KernelRegistration kConvKernels[];
extern const size_t kNumConvKernels;
extern const KernelRegistration kPoolKernels[];
extern const size_t kNumPoolKernels;
extern const KernelRegistration kNormKernels[];
extern const size_t kNumNormKernels;
extern const KernelRegistration kBitwiseKernels[];
extern const size_t kNumBitwiseKernels;
extern const KernelRegistration kRandomKernels[];
extern const size_t kNumRandomKernels;
extern const KernelRegistration kSelectionKernels[];
extern const size_t kNumSelectionKernels;
extern const KernelRegistration kPadKernels[];
extern const size_t kNumPadKernels;
extern const KernelRegistration kDetKernels[];
extern const size_t kNumDetKernels;
extern const KernelRegistration kDftKernels[];
extern const size_t kNumDftKernels;
extern const KernelRegistration kSamplingKernels[];
extern const size_t kNumSamplingKernels;
extern const KernelRegistration kResizeKernels[];
extern const size_t kNumResizeKernels;

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_CORE_RUNTIME_KERNELS_FAMILIES_H_
