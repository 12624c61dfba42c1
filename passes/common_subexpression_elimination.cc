// common_subexpression_elimination: nodes computing the same thing become one.
//
// Rules: two nodes with the same domain, op type, inputs (after earlier
// merges in the same walk), attributes and output count are the same
// computation; readers of the later one read the first. Runs in subgraphs
// too, within each graph.
// Non-rules: random ops (each draw differs), nodes with subgraph or tensor
// attributes (compared by identity would be wrong, by value costly) and
// nodes outside ai.onnx (their semantics are unknown) are never merged.
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool IsRandom(const ir::Node& node) {
  return node.op_type.rfind("Random", 0) == 0 || node.op_type == "Multinomial" ||
         node.op_type == "Bernoulli" || node.op_type == "Dropout";
}

std::string FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return absl::StrCat(bits);
}

// Key of the computation, or "" when the node must not be merged.
std::string Key(const ir::Node& node, const absl::flat_hash_map<std::string, std::string>& merged) {
  if (!node.domain.empty() || IsRandom(node) || node.outputs.empty()) return "";
  std::string key = absl::StrCat(node.op_type, "#", node.outputs.size(), "(");
  for (const std::string& in : node.inputs) {
    auto it = merged.find(in);
    absl::StrAppend(&key, it == merged.end() ? in : it->second, ",");
  }
  key += ")";
  for (const ir::Attribute& a : node.attributes) {
    absl::StrAppend(&key, a.name, ":", static_cast<int>(a.type()), "=");
    switch (a.type()) {
      case ir::Attribute::Type::kFloat: key += FloatBits(a.f()); break;
      case ir::Attribute::Type::kInt: absl::StrAppend(&key, a.i()); break;
      case ir::Attribute::Type::kString: absl::StrAppend(&key, a.s().size(), ":", a.s()); break;
      case ir::Attribute::Type::kInts: key += absl::StrJoin(a.ints(), ","); break;
      case ir::Attribute::Type::kFloats:
        for (float f : a.floats()) absl::StrAppend(&key, FloatBits(f), ",");
        break;
      case ir::Attribute::Type::kStrings:
        for (const std::string& s : a.strings()) absl::StrAppend(&key, s.size(), ":", s, ",");
        break;
      case ir::Attribute::Type::kTensor:
      case ir::Attribute::Type::kGraph: return "";
    }
    key += ";";
  }
  return key;
}

absl::StatusOr<bool> Eliminate(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node& node : graph.nodes) {
    for (ir::Attribute& attr : node.attributes) {
      if (attr.type() != ir::Attribute::Type::kGraph) continue;
      absl::StatusOr<bool> inner = Eliminate(attr.mutable_g());
      if (!inner.ok()) return inner.status();
      changed = changed || *inner;
    }
  }
  ir::GraphEditor editor(graph);
  absl::flat_hash_map<std::string, size_t> first;
  absl::flat_hash_map<std::string, std::string> merged;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& node = graph.nodes[i];
    std::string key = Key(node, merged);
    if (key.empty()) continue;
    auto [it, inserted] = first.try_emplace(std::move(key), i);
    if (inserted) continue;
    const ir::Node& kept = graph.nodes[it->second];
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o].empty()) continue;
      if (kept.outputs[o].empty()) {
        it = first.end();
        break;
      }
    }
    if (it == first.end()) continue;  // the first drops an output this one needs
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o].empty()) continue;
      editor.ReplaceAllUses(node.outputs[o], kept.outputs[o]);
      merged[node.outputs[o]] = kept.outputs[o];
    }
    editor.Remove(i);
  }
  if (editor.empty()) return changed;
  absl::Status status = editor.Commit();
  if (!status.ok()) return status;
  return true;
}

class CommonSubexpressionEliminationPass : public Pass {
 public:
  std::string Name() const override { return "common_subexpression_elimination"; }
  absl::StatusOr<bool> Run(ir::Model& model) const override { return Eliminate(model.graph); }
};

}  // namespace

std::unique_ptr<Pass> CreateCommonSubexpressionEliminationPass(const PipelineOptions&) {
  return std::make_unique<CommonSubexpressionEliminationPass>();
}

}  // namespace pt2onnx::passes
