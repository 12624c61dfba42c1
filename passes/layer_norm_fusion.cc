// layer_norm_fusion: a decomposed layer norm becomes LayerNormalization
// (opset >= 17), as torch's decompositions and hand-written norms emit it:
//   mean = ReduceMean(x, axes); d = Sub(x, mean)
//   var = ReduceMean(Pow(d, 2) or Mul(d, d), axes)
//   y = d / Sqrt(var + eps)   or   d * Reciprocal(Sqrt(var + eps))
//   then optionally y * scale, then optionally + bias.
//
// Rules: x is float32 (LayerNormalization computes in float, as the pattern
// does); both means reduce the same trailing axes with keepdims=1; eps is a
// one-element float32 constant; scale and bias have exactly x's normalized
// dims; every intermediate is read only inside the pattern. Without a scale,
// one of ones is added (x's normalized dims must be static). The fused node
// has the last node's metadata (its output keeps its name), completed with
// the first ReduceMean's.
// Non-rules: other axes for the two means, non-trailing axes, a dynamic eps,
// an intermediate (mean, variance, ...) read elsewhere or as a graph output,
// a scale or bias that broadcasts the result to a larger shape, float16/double,
// normalized dims of one element in all (ONNX Runtime refuses those).
#include "passes/fusion_match.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

class LayerNormFusionPass : public Pass {
 public:
  std::string Name() const override { return "layer_norm_fusion"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override { return RunFusion(model, 17, FuseAt); }

 private:
  static void FuseAt(ir::GraphEditor& editor, const ValueIndex& index, size_t i) {
    FusionMatch match(editor, index);
    std::optional<NormCore> core = MatchNormCore(match, i);
    if (!core) return;
    const ir::Node& norm = editor.graph().nodes[i];
    const ir::Node* sub = match.Take(core->numerator, "Sub");
    if (sub == nullptr || sub->inputs.size() != 2) return;
    const std::string& x = sub->inputs[0];
    const ir::Node* mean = match.Take(sub->inputs[1], "ReduceMean");
    if (mean == nullptr || mean->inputs.empty() || mean->inputs[0] != x ||
        TrailingReduceAxis(*mean, match) != core->axis || NormalizesOneElement(match, x, core->axis)) {
      return;
    }
    size_t root = i;
    std::string result = norm.outputs[0];
    std::string scale = AbsorbNormParameter(match, "Mul", x, core->axis, &result, &root);
    std::string bias;
    if (!scale.empty()) bias = AbsorbNormParameter(match, "Add", x, core->axis, &result, &root);
    if (!match.Contained(result)) return;
    if (scale.empty()) scale = AddOnesScale(match, x, core->axis);
    if (scale.empty()) return;
    ir::Node fused;
    fused.op_type = "LayerNormalization";
    fused.inputs = {x, scale};
    if (!bias.empty()) fused.inputs.push_back(bias);
    fused.outputs = {result};
    fused.attributes = {ir::Attribute::Int("axis", core->axis),
                        ir::Attribute::Float("epsilon", static_cast<float>(core->epsilon))};
    match.Replace(root, std::move(fused), *mean);
  }
};

}  // namespace

std::unique_ptr<Pass> CreateLayerNormFusionPass(const PipelineOptions&) {
  return std::make_unique<LayerNormFusionPass>();
}

}  // namespace pt2onnx::passes
