// dead_code_elimination: removes nodes none of whose outputs is used.
//
// Rules: a node is live if one of its outputs is a graph output or an input
// of a live node; liveness flows backwards from the graph outputs in one
// reverse walk (nodes are topologically ordered). Initializers that no live
// node reads are removed too.
// Non-rules: nodes in subgraph attributes are left alone (their outer uses
// keep the attribute's node alive, and what they read at any depth stays
// live); graph inputs are never removed, even if unused, since they are the
// model's interface.
#include "absl/container/flat_hash_set.h"
#include "passes/passes.h"

namespace pt2onnx::passes {
namespace {

// Subgraphs (and theirs) may read outer values by name.
void MarkSubgraphReads(const ir::Node& node, absl::flat_hash_set<std::string>& live) {
  for (const ir::Attribute& attr : node.attributes) {
    if (attr.type != ir::Attribute::Type::kGraph || attr.g == nullptr) continue;
    for (const ir::Node& inner : attr.g->nodes) {
      for (const std::string& in : inner.inputs) live.insert(in);
      MarkSubgraphReads(inner, live);
    }
  }
}

class DeadCodeEliminationPass : public Pass {
 public:
  std::string Name() const override { return "dead_code_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    absl::flat_hash_set<std::string> live;
    for (const ir::ValueInfo& out : graph.outputs) live.insert(out.name);
    absl::flat_hash_set<size_t> dead;
    for (size_t i = graph.nodes.size(); i-- > 0;) {
      const ir::Node& node = graph.nodes[i];
      bool used = false;
      for (const std::string& out : node.outputs) used = used || live.contains(out);
      if (!used) {
        dead.insert(i);
        continue;
      }
      for (const std::string& in : node.inputs) live.insert(in);
      MarkSubgraphReads(node, live);
    }
    graph.RemoveNodes(dead);
    size_t before = graph.initializers.size();
    std::vector<ir::Initializer> kept;
    for (ir::Initializer& init : graph.initializers) {
      if (live.contains(init.name)) kept.push_back(std::move(init));
    }
    graph.initializers = std::move(kept);
    for (auto it = graph.value_info.begin(); it != graph.value_info.end();) {
      it = live.contains(it->first) ? std::next(it) : graph.value_info.erase(it);
    }
    return !dead.empty() || before != graph.initializers.size();
  }
};

}  // namespace

std::unique_ptr<Pass> CreateDeadCodeEliminationPass() {
  return std::make_unique<DeadCodeEliminationPass>();
}

}  // namespace pt2onnx::passes
