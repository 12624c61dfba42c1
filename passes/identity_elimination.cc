// identity_elimination: bypasses Identity nodes.
//
// Rules: an Identity whose output is not a graph output is removed and its
// readers read its input instead.
// Non-rules: an Identity producing a graph output stays (the output needs a
// producer of its own, and its name is the model's interface); Identities in
// subgraphs are left alone (but their reads of a bypassed outer value are
// rewritten too).
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/passes.h"

namespace pt2onnx::passes {
namespace {

// Subgraphs read outer values by name (value names are unique across all
// scopes), so their references follow the replacements.
void RewriteSubgraphReads(ir::Node& node, const absl::flat_hash_map<std::string, std::string>& replace) {
  for (ir::Attribute& attr : node.attributes) {
    if (attr.type != ir::Attribute::Type::kGraph || attr.g == nullptr) continue;
    for (ir::Node& inner : attr.g->nodes) {
      for (std::string& in : inner.inputs) {
        auto it = replace.find(in);
        if (it != replace.end()) in = it->second;
      }
      RewriteSubgraphReads(inner, replace);
    }
  }
}

class IdentityEliminationPass : public Pass {
 public:
  std::string Name() const override { return "identity_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    absl::flat_hash_map<std::string, std::string> replace;
    absl::flat_hash_set<size_t> removed;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      ir::Node& node = graph.nodes[i];
      // Rewrite inputs first, so chains of Identities collapse in one walk.
      for (std::string& in : node.inputs) {
        auto it = replace.find(in);
        if (it != replace.end()) in = it->second;
      }
      if (!replace.empty()) RewriteSubgraphReads(node, replace);
      if (node.op_type != "Identity" || !node.domain.empty() || node.inputs.size() != 1 ||
          node.outputs.size() != 1 || graph.IsOutput(node.outputs[0])) {
        continue;
      }
      replace[node.outputs[0]] = node.inputs[0];
      removed.insert(i);
    }
    graph.RemoveNodes(removed);
    for (const auto& [name, unused] : replace) graph.value_info.erase(name);
    return !removed.empty();
  }
};

}  // namespace

std::unique_ptr<Pass> CreateIdentityEliminationPass() {
  return std::make_unique<IdentityEliminationPass>();
}

}  // namespace pt2onnx::passes
