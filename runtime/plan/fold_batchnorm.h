// File: runtime/plan/fold_batchnorm.h
// -----------------------------------------------------------------------------
// Session-time rewrite: a float32 Conv with constant weights whose only reader
// is an inference BatchNormalization with constant statistics becomes one Conv
// with scaled weights and a shifted bias (as ONNX Runtime does), so XNNPACK
// runs it in one pass.
#ifndef PT2ONNX_RUNTIME_PLAN_FOLD_BATCHNORM_H_
#define PT2ONNX_RUNTIME_PLAN_FOLD_BATCHNORM_H_

#include "core/ir/graph.h"

namespace pt2onnx::runtime {

// A copy of `graph` with every foldable Conv -> BatchNormalization pair folded.
ir::Graph FoldConvBatchNorm(const ir::Graph& graph);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_PLAN_FOLD_BATCHNORM_H_
