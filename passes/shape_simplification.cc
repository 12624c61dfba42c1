// shape_simplification: shapes known at conversion time become constants.
//
// Rules: Shape(x) (with its start/end) and Size(x) whose dims are all static
// become int64 initializers named after the output; Gather(Shape(x), i) on
// axis 0 with constant indices becomes one when the dims it picks are static,
// even if other dims of x are symbolic. Constant folding then carries these
// through Unsqueeze/Concat/arithmetic chains.
// Non-rules: a symbolic dim stays computed at run time; nodes producing a
// graph output stay; an index outside x's rank leaves the node to fail at
// run time as it would in ONNX.
#include <utility>

#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

// Dims start..end of Shape(x) (ONNX's clamping of start/end), or nullopt.
std::optional<std::vector<ir::Dim>> ShapeDims(const ir::Node& shape, const ValueIndex& index) {
  const ir::ValueInfo* info = index.Info(shape.inputs[0]);
  if (info == nullptr || !info->shape.has_value()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(info->shape->size());
  auto clamp = [rank](int64_t v) {
    if (v < 0) v += rank;
    return v < 0 ? 0 : (v > rank ? rank : v);
  };
  int64_t start = clamp(IntAttribute(shape, "start", 0));
  int64_t end = clamp(IntAttribute(shape, "end", rank));
  std::vector<ir::Dim> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back((*info->shape)[static_cast<size_t>(d)]);
  return dims;
}

std::optional<std::vector<int64_t>> AllStatic(const std::vector<ir::Dim>& dims) {
  std::vector<int64_t> values;
  for (const ir::Dim& d : dims) {
    if (!d.is_static()) return std::nullopt;
    values.push_back(d.value);
  }
  return values;
}

class ShapeSimplificationPass : public Pass {
 public:
  std::string Name() const override { return "shape_simplification"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    auto replace_with = [&](size_t i, ir::Tensor value) {
      editor.AddInitializer({graph.nodes[i].outputs[0], std::move(value), {}});
      editor.Remove(i);
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& node = graph.nodes[i];
      if (node.inputs.empty() || node.outputs.size() != 1 || graph.IsOutput(node.outputs[0])) continue;
      if (IsOp(node, "Shape")) {
        std::optional<std::vector<ir::Dim>> dims = ShapeDims(node, index);
        std::optional<std::vector<int64_t>> values = dims ? AllStatic(*dims) : std::nullopt;
        if (values) replace_with(i, ir::Tensor::Int64s({static_cast<int64_t>(values->size())}, *values));
      } else if (IsOp(node, "Size")) {
        std::optional<std::vector<int64_t>> shape = index.StaticShape(node.inputs[0]);
        if (!shape) continue;
        int64_t numel = 1;
        bool fits = true;
        for (int64_t d : *shape) fits = fits && !__builtin_mul_overflow(numel, d, &numel);
        if (fits) replace_with(i, ir::Tensor::Int64Scalar(numel));
      } else if (IsOp(node, "Gather") && node.inputs.size() == 2 && IntAttribute(node, "axis", 0) == 0) {
        const ir::Node* producer = editor.Producer(node.inputs[0]);
        if (producer == nullptr || !IsOp(*producer, "Shape")) continue;
        std::optional<std::vector<ir::Dim>> dims = ShapeDims(*producer, index);
        const ir::Tensor* idx = index.Constant(node.inputs[1]);
        std::optional<std::vector<int64_t>> picks = ConstantInts(idx);
        if (!dims || !picks) continue;
        const int64_t n = static_cast<int64_t>(dims->size());
        std::vector<int64_t> values;
        for (int64_t p : *picks) {
          if (p < -n || p >= n) break;
          const ir::Dim& d = (*dims)[static_cast<size_t>(p < 0 ? p + n : p)];
          if (!d.is_static()) break;
          values.push_back(d.value);
        }
        if (values.size() != picks->size()) continue;
        replace_with(i, ir::Tensor::Int64s(idx->dims(), values));
      }
    }
    if (editor.empty()) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateShapeSimplificationPass(const PipelineOptions&) {
  return std::make_unique<ShapeSimplificationPass>();
}

}  // namespace pt2onnx::passes
