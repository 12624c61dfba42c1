// identity_elimination: bypasses Identity nodes, in subgraphs too.
//
// Rules: an Identity is removed and its readers (subgraphs included) read
// its input instead. When its output is a graph output, the producer of its
// input is renamed to the output's name instead (GraphEditor's rule).
// Non-rules: an Identity that copies a graph input, an initializer or another
// output to a graph output stays (an output needs a producer of its own).
#include "absl/container/flat_hash_set.h"
#include "core/ir/rewrite.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

absl::StatusOr<bool> EliminateIdentities(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node& node : graph.nodes) {
    for (ir::Attribute& attr : node.attributes) {
      if (attr.type() != ir::Attribute::Type::kGraph) continue;
      absl::StatusOr<bool> inner = EliminateIdentities(attr.mutable_g());
      if (!inner.ok()) return inner.status();
      changed = changed || *inner;
    }
  }
  absl::flat_hash_set<std::string> interface;
  for (const ir::ValueInfo& v : graph.inputs) interface.insert(v.name);
  for (const ir::Initializer& v : graph.initializers) interface.insert(v.name);
  for (const ir::ValueInfo& v : graph.outputs) interface.insert(v.name);
  ir::GraphEditor editor(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& node = graph.nodes[i];
    if (!IsOp(node, "Identity") || node.inputs.size() != 1 || node.outputs.size() != 1 ||
        node.inputs[0].empty()) {
      continue;
    }
    // Copying an interface value to an output: nothing else can produce it.
    if (graph.IsOutput(node.outputs[0]) && interface.contains(node.inputs[0])) continue;
    if (graph.IsOutput(node.outputs[0])) interface.insert(node.inputs[0]);
    editor.ReplaceAllUses(node.outputs[0], node.inputs[0]);
    editor.Remove(i);
  }
  if (editor.empty()) return changed;
  absl::Status status = editor.Commit();
  if (!status.ok()) return status;
  return true;
}

class IdentityEliminationPass : public Pass {
 public:
  std::string Name() const override { return "identity_elimination"; }
  absl::StatusOr<bool> Run(ir::Model& model) const override { return EliminateIdentities(model.graph); }
};

}  // namespace

std::unique_ptr<Pass> CreateIdentityEliminationPass(const PipelineOptions&) {
  return std::make_unique<IdentityEliminationPass>();
}

}  // namespace pt2onnx::passes
