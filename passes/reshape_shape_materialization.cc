// reshape_shape_materialization: a Reshape whose target shape is computed at
// run time gets a constant target when its output's known shape allows one.
//
// Rules: for Reshape(x, s) with s not constant and the output's shape known
// (from the program's types), each output dim becomes
//   - its size, when static and not 0;
//   - 0 (copy x's dim), when it is the same symbol as x's dim at that index;
//   - -1, for the one remaining symbolic dim, when every other entry is a
//     static size (then -1 is always inferable: the others' product is not 0).
// A target with a copy gets allowzero=0 (it has no literal 0). The Shape /
// Gather / Concat chain that computed s is then left to dead-code removal.
// Non-rules: two unknown dims, an unknown dim beside copies (a copied dim of
// size 0 would make -1 ambiguous), a static 0 dim, or an output of unknown
// rank leave the node as it is.
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

// The constant target for `out` (reshaped from `in`), and whether it copies
// dims; nullopt when the rules above give none.
std::optional<std::pair<std::vector<int64_t>, bool>> ConstantTarget(const ir::ValueInfo* in,
                                                                     const ir::ValueInfo& out) {
  std::vector<int64_t> target;
  bool copies = false;
  int unknown = -1;  // index of the one dim left to -1
  for (size_t k = 0; k < out.shape->size(); ++k) {
    const ir::Dim& d = (*out.shape)[k];
    if (d.is_static()) {
      if (d.value == 0) return std::nullopt;
      target.push_back(d.value);
      continue;
    }
    const bool same_as_input = in != nullptr && in->shape.has_value() && k < in->shape->size() &&
                               !d.param.empty() && (*in->shape)[k].param == d.param;
    if (same_as_input) {
      copies = true;
      target.push_back(0);
    } else if (unknown < 0) {
      unknown = static_cast<int>(k);
      target.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  // A copied dim of size 0 at run time would leave -1 ambiguous.
  if (unknown >= 0 && copies) return std::nullopt;
  return std::make_pair(std::move(target), copies);
}

class ReshapeShapeMaterializationPass : public Pass {
 public:
  std::string Name() const override { return "reshape_shape_materialization"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    bool changed = false;
    for (ir::Node& node : graph.nodes) {
      if (!IsOp(node, "Reshape") || node.inputs.size() != 2 || node.outputs.size() != 1) continue;
      if (index.Constant(node.inputs[1]) != nullptr) continue;
      const ir::ValueInfo* out = index.Info(node.outputs[0]);
      if (out == nullptr || !out->shape.has_value()) continue;
      std::optional<std::pair<std::vector<int64_t>, bool>> target = ConstantTarget(index.Info(node.inputs[0]), *out);
      if (!target) continue;
      const int64_t rank = static_cast<int64_t>(target->first.size());
      const std::string name = editor.FreshName(absl::StrCat(node.outputs[0], "_shape"));
      editor.AddInitializer({name, ir::Tensor::Int64s({rank}, target->first), {}});
      node.inputs[1] = name;
      if (target->second) {
        for (ir::Attribute& attr : node.attributes) {
          if (attr.name == "allowzero" && attr.type() == ir::Attribute::Type::kInt) attr.set_i(0);
        }
      }
      changed = true;
    }
    if (!changed) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateReshapeShapeMaterializationPass(const PipelineOptions&) {
  return std::make_unique<ReshapeShapeMaterializationPass>();
}

}  // namespace pt2onnx::passes
