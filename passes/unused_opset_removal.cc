// unused_opset_removal: drops opset imports of domains no node uses.
//
// Rules: a domain is used when a node of the graph, of a subgraph or of a
// local function has it.
// Non-rules: the default domain (ai.onnx) is always kept: the model's opset
// is read from it.
#include "absl/container/flat_hash_set.h"
#include "core/ir/rewrite.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

class UnusedOpsetRemovalPass : public Pass {
 public:
  std::string Name() const override { return "unused_opset_removal"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    absl::flat_hash_set<std::string> used;
    ir::ForEachGraph(model.graph, [&](ir::Graph& g) {
      for (const ir::Node& node : g.nodes) used.insert(node.domain);
    });
    for (const ir::Function& function : model.functions) {
      for (const ir::Node& node : function.nodes) used.insert(node.domain);
    }
    std::vector<ir::OpsetImport> kept;
    for (const ir::OpsetImport& op : model.opset_imports) {
      if (op.domain.empty() || op.domain == "ai.onnx" || used.contains(op.domain)) kept.push_back(op);
    }
    bool changed = kept.size() != model.opset_imports.size();
    model.opset_imports = std::move(kept);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateUnusedOpsetRemovalPass(const PipelineOptions&) {
  return std::make_unique<UnusedOpsetRemovalPass>();
}

}  // namespace pt2onnx::passes
