// cast_elimination: removes Casts that do not change values.
//
// Rules: Cast(x, to=T) where x is already T is bypassed; Cast(Cast(x, T1), T0)
// where x is T0 and T0 -> T1 is exact (every T0 value is a T1 value: float16
// -> float32, int32 -> int64, bool -> any number...) is bypassed to x.
// From opset 20 (ReduceMin/ReduceMax take bool, False < True),
// Cast<bool>(ReduceMin/Max(Cast<number>(b))) of a bool b becomes
// ReduceMin/Max(b): the min/max of 0s and 1s is nonzero exactly when the
// bool one is true (an empty reduction gives true/false both ways). torch's
// fully-masked-row guard (every score -inf) is written this way.
// Non-rules: a narrowing round trip (float32 -> float16 -> float32 rounds,
// int64 -> int32 -> int64 wraps) stays; so does a Cast whose input dtype is
// unknown, and a Cast producing a graph output from a graph input; the bool
// reduction needs both inner values read only in the chain.
#include <optional>
#include <utility>

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

// The sole reader in the chain: `value` read once, and not as a graph output.
bool ReadOnlyOnce(const ir::GraphEditor& editor, const std::string& value) {
  return editor.ConsumerCount(value) == 1 && !editor.HasOpaqueUse(value);
}

// True if `value` is bool: declared so, or the output of an op whose output
// is always bool (value_info is often missing on intermediates).
bool IsBool(const ir::GraphEditor& editor, const ValueIndex& index, const std::string& value) {
  if (index.DType(value) == DataType::kBool) return true;
  const ir::Node* producer = editor.Producer(value);
  if (producer == nullptr) return false;
  for (const char* op : {"IsInf", "IsNaN", "Not", "And", "Or", "Xor", "Equal", "Less", "LessOrEqual", "Greater",
                         "GreaterOrEqual"}) {
    if (IsOp(*producer, op)) return true;
  }
  return false;
}

// `cast` is Cast<bool>(ReduceMin/Max(Cast<number>(b))) with b bool: that
// reduction reading b directly, producing the Cast's output; nullopt otherwise.
std::optional<ir::Node> BoolReduction(const ir::GraphEditor& editor, const ValueIndex& index, const ir::Node& cast) {
  if (CastTarget(cast) != DataType::kBool) return std::nullopt;
  const ir::Node* reduce = editor.Producer(cast.inputs[0]);
  if (reduce == nullptr || !(IsOp(*reduce, "ReduceMin") || IsOp(*reduce, "ReduceMax")) || reduce->inputs.empty() ||
      reduce->outputs.size() != 1 || !ReadOnlyOnce(editor, reduce->outputs[0])) {
    return std::nullopt;
  }
  const ir::Node* widen = editor.Producer(reduce->inputs[0]);
  if (widen == nullptr || !IsOp(*widen, "Cast") || widen->inputs.size() != 1 || widen->outputs.size() != 1 ||
      !ReadOnlyOnce(editor, widen->outputs[0]) || !IsBool(editor, index, widen->inputs[0])) {
    return std::nullopt;
  }
  const DataType number = CastTarget(*widen);
  if (number == DataType::kBool || !IsExactWidening(DataType::kBool, number)) return std::nullopt;
  ir::Node fused = *reduce;
  fused.inputs[0] = widen->inputs[0];
  fused.outputs = cast.outputs;
  return fused;
}

class CastEliminationPass : public Pass {
 public:
  std::string Name() const override { return "cast_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    const bool bool_reductions = model.OnnxOpset() >= 20;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& node = graph.nodes[i];
      if (!IsOp(node, "Cast") || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
      if (std::optional<ir::Node> reduction;
          bool_reductions && (reduction = BoolReduction(editor, index, node))) {
        const auto& producer = editor.uses().producer;
        const size_t reduce_at = producer.at(node.inputs[0]);
        const size_t widen_at = producer.at(graph.nodes[reduce_at].inputs[0]);
        if (editor.IsRemoved(reduce_at) || editor.IsRemoved(widen_at)) continue;
        editor.InsertBefore(i, std::move(*reduction), &graph.nodes[reduce_at]);
        editor.Remove(i);
        editor.Remove(reduce_at);
        editor.Remove(widen_at);
        continue;
      }
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
