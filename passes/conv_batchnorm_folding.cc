// conv_batchnorm_folding: an inference BatchNormalization after a Conv is
// folded into the Conv's weights and bias (torch.onnx's default rewrite rules
// do the same), so eval-mode CNNs lose one node per BatchNorm.
//
// Rules (runtime::FoldConvBatchNorm, which the executor also uses): float32
// Conv with constant weights (and bias, if any) whose only reader is a
// BatchNormalization with training_mode 0 and constant scale, bias, mean and
// variance; the Conv then writes the BatchNorm's output, keeping its name.
// Non-rules: a Conv result read elsewhere or as a graph output, statistics
// computed at run time, training mode, float16/bfloat16 (folding would round
// the weights differently from the unfolded model).
#include "runtime/plan/fold_batchnorm.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

class ConvBatchNormFoldingPass : public Pass {
 public:
  std::string Name() const override { return "conv_batchnorm_folding"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph folded = runtime::FoldConvBatchNorm(model.graph);
    if (folded.nodes.size() == model.graph.nodes.size()) return false;
    model.graph = std::move(folded);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateConvBatchNormFoldingPass(const PipelineOptions&) {
  return std::make_unique<ConvBatchNormFoldingPass>();
}

}  // namespace pt2onnx::passes
