// reshape_elimination: removes or shortens chains of shape-only ops.
//
// Rules: Reshape(y, s) where y comes from Reshape/Flatten/Squeeze/Unsqueeze
// of x reads x directly when s is a constant without 0 entries (a 0 copies a
// dim of its input, which the chain changes; with allowzero=1 a 0 is a size)
// — a Reshape depends only on its input's element order, which those ops keep.
// A Reshape to a constant shape equal to its input's static shape, an Expand
// to a shape the input already has, and
// Squeeze(Unsqueeze(x, a), a) with the same constant axes, are bypassed.
// A Reshape or Expand whose known output shape equals its input's, dim for
// dim (same sizes, same symbols), is bypassed too.
// Non-rules: shapes known only at run time are left alone.
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool IsShapeOnly(const ir::Node& node) {
  return IsOp(node, "Reshape") || IsOp(node, "Flatten") || IsOp(node, "Squeeze") || IsOp(node, "Unsqueeze");
}

// True when input and output have the same known shape, dim for dim (equal
// sizes or the same symbol): the shape-only op returns its input unchanged.
bool SameKnownShape(const ValueIndex& index, const std::string& in, const std::string& out) {
  const ir::ValueInfo* a = index.Info(in);
  const ir::ValueInfo* b = index.Info(out);
  if (a == nullptr || b == nullptr || !a->shape || !b->shape || a->shape->size() != b->shape->size()) return false;
  if (a->dtype != b->dtype || a->dtype == DataType::kUndefined) return false;
  for (size_t k = 0; k < a->shape->size(); ++k) {
    const ir::Dim& x = (*a->shape)[k];
    const ir::Dim& y = (*b->shape)[k];
    const bool same = x.is_static() ? (y.is_static() && x.value == y.value) : (!x.param.empty() && x.param == y.param);
    if (!same) return false;
  }
  return true;
}

class ReshapeEliminationPass : public Pass {
 public:
  std::string Name() const override { return "reshape_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    bool changed = false;
    auto bypass = [&](size_t i, const std::string& source) {
      const ir::Node& node = graph.nodes[i];
      if (graph.IsOutput(node.outputs[0]) && editor.Producer(source) == nullptr) return;
      editor.ReplaceAllUses(node.outputs[0], source);
      editor.Remove(i);
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      ir::Node& node = graph.nodes[i];
      if (node.outputs.size() != 1 || node.inputs.empty()) continue;
      if ((IsOp(node, "Reshape") || IsOp(node, "Expand")) && node.inputs.size() == 2 &&
          SameKnownShape(index, node.inputs[0], node.outputs[0])) {
        bypass(i, node.inputs[0]);
        continue;
      }
      if (IsOp(node, "Reshape") && node.inputs.size() == 2) {
        std::optional<std::vector<int64_t>> shape = ConstantInts(index.Constant(node.inputs[1]));
        if (!shape) continue;
        bool has_zero = false;
        for (int64_t d : *shape) has_zero = has_zero || d == 0;
        const bool zero_is_size = IntAttribute(node, "allowzero", 0) == 1;
        const ir::Node* inner = editor.Producer(node.inputs[0]);
        if (inner != nullptr && IsShapeOnly(*inner) && (!has_zero || zero_is_size)) {
          node.inputs[0] = inner->inputs[0];
          changed = true;
        }
        std::optional<std::vector<int64_t>> in_shape = index.StaticShape(node.inputs[0]);
        if (in_shape && *in_shape == *shape) bypass(i, node.inputs[0]);
      } else if (IsOp(node, "Expand") && node.inputs.size() == 2) {
        // Expand to a shape the input already has (every target dim 1 or
        // equal, no new leading dims) copies it unchanged.
        std::optional<std::vector<int64_t>> target = ConstantInts(index.Constant(node.inputs[1]));
        std::optional<std::vector<int64_t>> in_shape = index.StaticShape(node.inputs[0]);
        if (!target || !in_shape || target->size() > in_shape->size()) continue;
        bool no_op = true;
        const size_t offset = in_shape->size() - target->size();
        for (size_t k = 0; k < target->size(); ++k) {
          no_op = no_op && ((*target)[k] == 1 || (*target)[k] == (*in_shape)[offset + k]);
        }
        if (no_op) bypass(i, node.inputs[0]);
      } else if (IsOp(node, "Squeeze") && node.inputs.size() == 2) {
        const ir::Node* inner = editor.Producer(node.inputs[0]);
        if (inner == nullptr || !IsOp(*inner, "Unsqueeze") || inner->inputs.size() != 2) continue;
        std::optional<std::vector<int64_t>> axes = ConstantInts(index.Constant(node.inputs[1]));
        std::optional<std::vector<int64_t>> inner_axes = ConstantInts(index.Constant(inner->inputs[1]));
        // Negative axes count from different ranks on the two sides: compare
        // only non-negative ones.
        bool nonneg = axes.has_value();
        if (axes) {
          for (int64_t a : *axes) nonneg = nonneg && a >= 0;
        }
        if (nonneg && inner_axes && *axes == *inner_axes) bypass(i, inner->inputs[0]);
      }
    }
    if (editor.empty()) return changed;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateReshapeEliminationPass(const PipelineOptions&) {
  return std::make_unique<ReshapeEliminationPass>();
}

}  // namespace pt2onnx::passes
