// transpose_elimination: removes or merges Transposes.
//
// Rules: a Transpose whose perm is the identity is bypassed;
// Transpose(Transpose(x, p1), p2) reads x with the composed perm
// (p1[p2[i]]), bypassed to x when that is the identity. The inner Transpose
// goes when nothing else reads it (dead_code_elimination).
// Non-rules: a Transpose without a perm attribute (reverse of an unknown
// rank) is left alone, as is an invalid perm.
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

std::optional<std::vector<int64_t>> Perm(const ir::Node& node) {
  const ir::Attribute* perm = node.FindAttribute("perm");
  if (perm == nullptr || perm->type() != ir::Attribute::Type::kInts) return std::nullopt;
  std::vector<bool> seen(perm->ints().size(), false);
  for (int64_t p : perm->ints()) {
    if (p < 0 || p >= static_cast<int64_t>(seen.size()) || seen[static_cast<size_t>(p)]) return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
  }
  return perm->ints();
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

class TransposeEliminationPass : public Pass {
 public:
  std::string Name() const override { return "transpose_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ir::GraphEditor editor(graph);
    bool changed = false;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      ir::Node& node = graph.nodes[i];
      if (!IsOp(node, "Transpose") || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
      std::optional<std::vector<int64_t>> perm = Perm(node);
      if (!perm) continue;
      const ir::Node* inner = editor.Producer(node.inputs[0]);
      if (inner != nullptr && IsOp(*inner, "Transpose") && inner->inputs.size() == 1) {
        std::optional<std::vector<int64_t>> first = Perm(*inner);
        if (first && first->size() == perm->size()) {
          std::vector<int64_t> composed;
          for (int64_t p : *perm) composed.push_back((*first)[static_cast<size_t>(p)]);
          node.inputs[0] = inner->inputs[0];
          for (ir::Attribute& attr : node.attributes) {
            if (attr.name == "perm" && attr.type() == ir::Attribute::Type::kInts) attr.mutable_ints() = composed;
          }
          perm = composed;
          changed = true;
        }
      }
      if (!IsIdentity(*perm)) continue;
      if (graph.IsOutput(node.outputs[0]) && editor.Producer(node.inputs[0]) == nullptr) continue;
      editor.ReplaceAllUses(node.outputs[0], node.inputs[0]);
      editor.Remove(i);
    }
    if (editor.empty()) return changed;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateTransposeEliminationPass(const PipelineOptions&) {
  return std::make_unique<TransposeEliminationPass>();
}

}  // namespace pt2onnx::passes
