// lift_constants: Constant nodes become initializers named after their output.
//
// Rules: a Constant with a `value` tensor or `value_float(s)`/`value_int(s)`
// becomes an initializer of the same name, so readers are unchanged; torch.onnx
// lifts every constant the same way (LiftConstantsToInitializers).
// Non-rules: a Constant that is itself a graph output stays (an output needs
// a producer); sparse and string constants stay; Constants inside subgraphs
// stay in their subgraph.
#include "absl/container/flat_hash_set.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

std::optional<ir::Tensor> ConstantValue(const ir::Node& node) {
  if (node.attributes.size() != 1) return std::nullopt;
  const ir::Attribute& a = node.attributes[0];
  if (a.name == "value" && a.type() == ir::Attribute::Type::kTensor) return a.t();
  if (a.name == "value_int" && a.type() == ir::Attribute::Type::kInt) return ir::Tensor::Int64Scalar(a.i());
  if (a.name == "value_float" && a.type() == ir::Attribute::Type::kFloat) return ir::Tensor::Float32Scalar(a.f());
  if (a.name == "value_ints" && a.type() == ir::Attribute::Type::kInts) {
    return ir::Tensor::Int64s({static_cast<int64_t>(a.ints().size())}, a.ints());
  }
  if (a.name == "value_floats" && a.type() == ir::Attribute::Type::kFloats) {
    std::string bytes(reinterpret_cast<const char*>(a.floats().data()), a.floats().size() * sizeof(float));
    return ir::Tensor::Owned(DataType::kFloat, {static_cast<int64_t>(a.floats().size())}, std::move(bytes));
  }
  return std::nullopt;
}

class LiftConstantsPass : public Pass {
 public:
  std::string Name() const override { return "lift_constants"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    absl::flat_hash_set<size_t> lifted;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& node = graph.nodes[i];
      if (!IsOp(node, "Constant") || node.outputs.size() != 1 || graph.IsOutput(node.outputs[0])) continue;
      std::optional<ir::Tensor> value = ConstantValue(node);
      if (!value.has_value() || value->dtype() == DataType::kString) continue;
      graph.initializers.push_back({node.outputs[0], std::move(*value), {}});
      lifted.insert(i);
    }
    graph.RemoveNodes(lifted);
    return !lifted.empty();
  }
};

}  // namespace

std::unique_ptr<Pass> CreateLiftConstantsPass(const PipelineOptions&) {
  return std::make_unique<LiftConstantsPass>();
}

}  // namespace pt2onnx::passes
