// dead_code_elimination: removes nodes none of whose outputs is used.
//
// Rules: a node is live if one of its outputs is a graph output or an input
// of a live node; liveness flows backwards from the graph outputs in one
// reverse walk (nodes are topologically ordered). Subgraphs of live nodes are
// cleaned the same way first (their outputs are their roots), then every
// outer value they still read keeps its producer alive. Initializers that
// nothing reads are removed, in subgraphs too.
// Non-rules: graph inputs are never removed, even if unused, since they are
// the model's (or the subgraph's) interface.
#include "absl/container/flat_hash_set.h"
#include "core/ir/rewrite.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool EliminateDeadCode(ir::Graph& graph) {
  bool changed = false;
  absl::flat_hash_set<std::string> live;
  for (const ir::ValueInfo& out : graph.outputs) live.insert(out.name);
  absl::flat_hash_set<size_t> dead;
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    ir::Node& node = graph.nodes[i];
    bool used = false;
    for (const std::string& out : node.outputs) used = used || live.contains(out);
    if (!used) {
      dead.insert(i);
      continue;
    }
    for (const std::string& in : node.inputs) live.insert(in);
    for (ir::Attribute& attr : node.attributes) {
      if (attr.type() != ir::Attribute::Type::kGraph) continue;
      changed = EliminateDeadCode(attr.mutable_g()) || changed;
      for (const std::string& read : ir::ReadValues(attr.mutable_g())) live.insert(read);
      for (const ir::ValueInfo& out : attr.g().outputs) live.insert(out.name);
    }
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
  return changed || !dead.empty() || before != graph.initializers.size();
}

class DeadCodeEliminationPass : public Pass {
 public:
  std::string Name() const override { return "dead_code_elimination"; }
  absl::StatusOr<bool> Run(ir::Model& model) const override { return EliminateDeadCode(model.graph); }
};

}  // namespace

std::unique_ptr<Pass> CreateDeadCodeEliminationPass(const PipelineOptions&) {
  return std::make_unique<DeadCodeEliminationPass>();
}

}  // namespace pt2onnx::passes
