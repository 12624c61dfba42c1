// cast_elimination: removes Casts that do not change values.
//
// Rules: Cast(x, to=T) where x is already T is bypassed; Cast(Cast(x, T1), T0)
// where x is T0 and T0 -> T1 is exact (every T0 value is a T1 value: float16
// -> float32, int32 -> int64, bool -> any number...) is bypassed to x.
// Non-rules: a narrowing round trip (float32 -> float16 -> float32 rounds,
// int64 -> int32 -> int64 wraps) stays; so does a Cast whose input dtype is
// unknown, and a Cast producing a graph output from a graph input.
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool IsExactWidening(DataType from, DataType to) {
  using D = DataType;
  switch (from) {
    case D::kBool:
      return to != D::kString && to != D::kUndefined;
    case D::kFloat16:
    case D::kBFloat16:
      return to == D::kFloat || to == D::kDouble;
    case D::kFloat:
      return to == D::kDouble;
    case D::kInt8:
      return to == D::kInt16 || to == D::kInt32 || to == D::kInt64 || to == D::kFloat || to == D::kDouble;
    case D::kUint8:
      return to == D::kInt16 || to == D::kInt32 || to == D::kInt64 || to == D::kUint16 || to == D::kUint32 ||
             to == D::kUint64 || to == D::kFloat || to == D::kDouble;
    case D::kInt16:
      return to == D::kInt32 || to == D::kInt64 || to == D::kFloat || to == D::kDouble;
    case D::kInt32:
      return to == D::kInt64 || to == D::kDouble;
    default:
      return false;
  }
}

DataType CastTarget(const ir::Node& node) {
  return static_cast<DataType>(IntAttribute(node, "to", 0));
}

class CastEliminationPass : public Pass {
 public:
  std::string Name() const override { return "cast_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& node = graph.nodes[i];
      if (!IsOp(node, "Cast") || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
      const DataType to = CastTarget(node);
      std::string source;
      if (index.DType(node.inputs[0]) == to) {
        source = node.inputs[0];
      } else if (const ir::Node* inner = editor.Producer(node.inputs[0]);
                 inner != nullptr && IsOp(*inner, "Cast") && inner->inputs.size() == 1) {
        const DataType original = index.DType(inner->inputs[0]);
        if (original == to && IsExactWidening(original, CastTarget(*inner))) source = inner->inputs[0];
      }
      if (source.empty() || to == DataType::kUndefined) continue;
      if (graph.IsOutput(node.outputs[0]) && graph.FindInitializer(source) == nullptr &&
          editor.Producer(source) == nullptr) {
        continue;  // a graph input copied to an output: the Cast is its producer
      }
      editor.ReplaceAllUses(node.outputs[0], source);
      editor.Remove(i);
    }
    if (editor.empty()) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCastEliminationPass(const PipelineOptions&) {
  return std::make_unique<CastEliminationPass>();
}

}  // namespace pt2onnx::passes
