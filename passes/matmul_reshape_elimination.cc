// matmul_reshape_elimination: a batched MatMul computed on batch dims merged
// into one runs on the unmerged operands instead.
//
// Rules: Y = Reshape(MatMul(A', B'), s), where A' is [P, M, K], B' is
// [P, K, N] and Y is [b1, ..., bn, M, N] with b1·...·bn = P (all static), is
// MatMul(A, B) with A, B the operands as [b1, ..., bn, M, K] / [.., K, N]:
// an operand that is Reshape(X) of an X already of that shape reads X; any
// other operand gets a Reshape to it. A Reshape of a [P, M, K] operand to
// [b..., M, K] keeps the element order, so each batch matrix is the same.
// The rewrite happens when it saves nodes: the Reshape of Y goes, each
// operand reshape read only by the MatMul goes, each new operand reshape
// costs one. The new MatMul keeps Y's name.
// Non-rules: symbolic or unknown shapes, broadcast batch dims (P differing
// between operands), a MatMul result read elsewhere or as a graph output.
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

class MatMulReshapeEliminationPass : public Pass {
 public:
  std::string Name() const override { return "matmul_reshape_elimination"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& reshape = graph.nodes[i];
      if (!IsOp(reshape, "Reshape") || reshape.inputs.size() != 2 || reshape.outputs.size() != 1) continue;
      auto producer = editor.uses().producer.find(reshape.inputs[0]);
      if (producer == editor.uses().producer.end() || editor.IsRemoved(producer->second)) continue;
      const ir::Node& matmul = graph.nodes[producer->second];
      if (!IsOp(matmul, "MatMul") || matmul.inputs.size() != 2) continue;
      if (editor.ConsumerCount(matmul.outputs[0]) != 1 || editor.HasOpaqueUse(matmul.outputs[0])) continue;
      std::optional<std::vector<int64_t>> a = index.StaticShape(matmul.inputs[0]);
      std::optional<std::vector<int64_t>> b = index.StaticShape(matmul.inputs[1]);
      std::optional<std::vector<int64_t>> y = index.StaticShape(reshape.outputs[0]);
      if (!a || !b || !y || a->size() != 3 || b->size() != 3 || y->size() < 3) continue;
      const int64_t p = (*a)[0], m = (*a)[1], k = (*a)[2], n = (*b)[2];
      if ((*b)[0] != p || (*b)[1] != k || (*y)[y->size() - 2] != m || (*y)[y->size() - 1] != n) continue;
      std::vector<int64_t> batch(y->begin(), y->end() - 2);
      int64_t product = 1;
      bool fits = true;
      for (int64_t d : batch) fits = fits && d >= 0 && !__builtin_mul_overflow(product, d, &product);
      if (!fits || product != p) continue;

      // Per operand: the value to read as [batch..., rows, cols], or a new reshape.
      struct Operand {
        std::string source;
        bool needs_reshape = false;
        bool frees_reshape = false;
      };
      auto resolve = [&](const std::string& value, int64_t rows, int64_t cols) {
        std::vector<int64_t> want = batch;
        want.push_back(rows);
        want.push_back(cols);
        Operand op{value, true, false};
        const ir::Node* inner = editor.Producer(value);
        if (inner != nullptr && IsOp(*inner, "Reshape") && inner->inputs.size() == 2 &&
            index.StaticShape(inner->inputs[0]) == want) {
          op.source = inner->inputs[0];
          op.needs_reshape = false;
          op.frees_reshape = editor.ConsumerCount(value) == 1 && !editor.HasOpaqueUse(value);
        }
        return std::make_pair(op, want);
      };
      auto [lhs, lhs_shape] = resolve(matmul.inputs[0], m, k);
      auto [rhs, rhs_shape] = resolve(matmul.inputs[1], k, n);
      const int saved = 1 + lhs.frees_reshape + rhs.frees_reshape - lhs.needs_reshape - rhs.needs_reshape;
      if (saved <= 0) continue;

      auto reshaped = [&](const Operand& op, const std::vector<int64_t>& shape) {
        if (!op.needs_reshape) return op.source;
        const std::string target = editor.FreshName(absl::StrCat(op.source, "_batched_shape"));
        editor.AddInitializer({target, ir::Tensor::Int64s({static_cast<int64_t>(shape.size())}, shape), {}});
        ir::Node node;
        node.name = editor.FreshName(absl::StrCat("node_", op.source, "_batched"));
        node.op_type = "Reshape";
        node.inputs = {op.source, target};
        node.outputs = {editor.FreshName(absl::StrCat(op.source, "_batched"))};
        ir::ValueInfo info = *index.Info(reshape.outputs[0]);
        info.name = node.outputs[0];
        info.shape = std::vector<ir::Dim>();
        for (int64_t d : shape) info.shape->push_back(ir::Dim::Static(d));
        graph.value_info[info.name] = info;
        std::string out = node.outputs[0];
        editor.InsertBefore(producer->second, std::move(node), &matmul);
        return out;
      };
      ir::Node fused;
      fused.name = matmul.name;
      fused.op_type = "MatMul";
      fused.inputs = {reshaped(lhs, lhs_shape), reshaped(rhs, rhs_shape)};
      fused.outputs = {reshape.outputs[0]};
      fused.metadata = matmul.metadata;
      editor.Remove(producer->second);
      editor.Remove(i);
      editor.InsertBefore(i, std::move(fused), &reshape);
    }
    if (editor.empty()) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateMatMulReshapeEliminationPass(const PipelineOptions&) {
  return std::make_unique<MatMulReshapeEliminationPass>();
}

}  // namespace pt2onnx::passes
