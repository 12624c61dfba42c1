// File: passes/passes.h
// -----------------------------------------------------------------------------
// Factories of every pass (one pass per file, named after it). The order they
// run in is decided only in pipeline.cc; pass_manager.h runs them.
#ifndef PT2ONNX_PASSES_PASSES_H_
#define PT2ONNX_PASSES_PASSES_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/graph.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {

// Removes nodes whose outputs nobody reads (graph outputs are roots).
std::unique_ptr<Pass> CreateDeadCodeEliminationPass();
// Bypasses Identity nodes.
std::unique_ptr<Pass> CreateIdentityEliminationPass();
// Constant nodes become initializers named after their output.
std::unique_ptr<Pass> CreateLiftConstantsPass();
// Evaluates nodes whose inputs are all constant with the ONNX executor.
std::unique_ptr<Pass> CreateConstantFoldingPass(FoldingLimits limits);
// Shape/Size of static dims become constants.
std::unique_ptr<Pass> CreateShapeSimplificationPass();
// No-op and back-to-back Cast, Transpose, Reshape/Squeeze/Unsqueeze/Flatten.
std::unique_ptr<Pass> CreateCastEliminationPass();
std::unique_ptr<Pass> CreateTransposeEliminationPass();
std::unique_ptr<Pass> CreateReshapeEliminationPass();
// A Reshape's computed target shape becomes a constant when its output's
// known shape fixes one (static sizes, 0 for copied symbols, one -1).
std::unique_ptr<Pass> CreateReshapeShapeMaterializationPass();
// Reshape(MatMul(Reshape(a), Reshape(b))) over merged batch dims becomes a
// MatMul on the unmerged operands.
std::unique_ptr<Pass> CreateMatMulReshapeEliminationPass();
// Nodes computing the same thing from the same inputs become one.
std::unique_ptr<Pass> CreateCommonSubexpressionEliminationPass();
// Inference BatchNormalization after a Conv folds into the Conv.
std::unique_ptr<Pass> CreateConvBatchNormFoldingPass();
// 2-D MatMul followed by a bias Add becomes Gemm.
std::unique_ptr<Pass> CreateMatMulAddToGemmPass();
// Decomposed norms and activations become LayerNormalization (opset >= 17),
// RMSNormalization (>= 23) and Gelu (>= 20).
std::unique_ptr<Pass> CreateLayerNormFusionPass();
std::unique_ptr<Pass> CreateRmsNormFusionPass();
std::unique_ptr<Pass> CreateGeluFusionPass();
// Decomposed scaled dot-product attention becomes Attention (opset >= 23).
std::unique_ptr<Pass> CreateAttentionFusionPass();
// Rotate-half rotary embeddings become RotaryEmbedding (opset >= 23).
std::unique_ptr<Pass> CreateRotaryEmbeddingFusionPass();
// Initializers with equal dtype, dims and bytes become one.
std::unique_ptr<Pass> CreateInitializerDeduplicationPass();
// Opset imports of domains no node uses are dropped.
std::unique_ptr<Pass> CreateUnusedOpsetRemovalPass();

// Compatibility: runs `passes` as one stage to a fixed point.
absl::Status RunPipeline(const std::vector<std::unique_ptr<Pass>>& passes, ir::Model& model, bool verify,
                         int max_iterations = 4);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_PASSES_H_
