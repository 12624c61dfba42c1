// rms_norm_fusion: a decomposed RMS norm becomes RMSNormalization (opset
// >= 23), as Llama-style modules (LlamaRMSNorm, T5LayerNorm, ...) emit it:
//   ms = ReduceMean(Pow(x, 2) or Mul(x, x), axes)
//   y = x * Reciprocal(Sqrt(ms + eps))   or   x / Sqrt(ms + eps)
//   then optionally y * scale.
//
// Rules: x is float32 (RMSNormalization computes in float, as the pattern
// does); the mean reduces trailing axes with keepdims=1; eps is a
// one-element float32 constant; the scale has exactly x's normalized dims;
// every intermediate is read only inside the pattern. Without a scale, one
// of ones is added (static normalized dims). Metadata as layer_norm_fusion.
// Non-rules: non-trailing axes, a dynamic eps, an exponent other than 2,
// the mean square or the reciprocal read elsewhere, float16/double, a
// normalized shape of one element in all (ONNX Runtime refuses it); a mean
// subtracted first is layer_norm_fusion's (which runs before).
#include "passes/fusion_match.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

class RmsNormFusionPass : public Pass {
 public:
  std::string Name() const override { return "rms_norm_fusion"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override { return RunFusion(model, 23, FuseAt); }

 private:
  static void FuseAt(ir::GraphEditor& editor, const ValueIndex& index, size_t i) {
    FusionMatch match(editor, index);
    std::optional<NormCore> core = MatchNormCore(match, i);
    if (!core) return;
    const ir::Node& norm = editor.graph().nodes[i];
    const std::string& x = core->numerator;
    if (NormalizesOneElement(match, x, core->axis)) return;
    size_t root = i;
    std::string result = norm.outputs[0];
    std::string scale = AbsorbNormParameter(match, "Mul", x, core->axis, &result, &root);
    if (!match.Contained(result)) return;
    if (scale.empty()) scale = AddOnesScale(match, x, core->axis);
    if (scale.empty()) return;
    ir::Node fused;
    fused.op_type = "RMSNormalization";
    fused.inputs = {x, scale};
    fused.outputs = {result};
    fused.attributes = {ir::Attribute::Int("axis", core->axis),
                        ir::Attribute::Float("epsilon", static_cast<float>(core->epsilon))};
    match.Replace(root, std::move(fused), *core->square);
  }
};

}  // namespace

std::unique_ptr<Pass> CreateRmsNormFusionPass(const PipelineOptions&) {
  return std::make_unique<RmsNormFusionPass>();
}

}  // namespace pt2onnx::passes
