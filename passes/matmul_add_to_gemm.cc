// matmul_add_to_gemm: MatMul(A, B) + C becomes Gemm(A, B, C).
//
// Rules: A and B are 2-D (known ranks), of a dtype Gemm takes (float16,
// bfloat16, float32, float64), the MatMul's only reader is the Add, and C is
// a constant that broadcasts to [M, N] one way (a scalar, [N], [1, N], [M, 1]
// or [M, N]) without changing the result's shape. Gemm's metadata is the
// MatMul's; its output keeps the Add's name.
// Non-rules: batched (rank > 2) or rank-unknown operands, a MatMul result
// read elsewhere or as a graph output, a C that would broadcast the result
// to a larger shape, integer MatMuls.
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool IsGemmFloat(DataType dt) {
  return dt == DataType::kFloat || dt == DataType::kFloat16 || dt == DataType::kBFloat16 ||
         dt == DataType::kDouble;
}

class MatMulAddToGemmPass : public Pass {
 public:
  std::string Name() const override { return "matmul_add_to_gemm"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    ir::GraphEditor editor(graph);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& add = graph.nodes[i];
      if (!IsOp(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
      for (int side = 0; side < 2; ++side) {
        const std::string& product = add.inputs[side];
        const std::string& bias = add.inputs[1 - side];
        auto producer = editor.uses().producer.find(product);
        if (producer == editor.uses().producer.end() || editor.IsRemoved(producer->second)) continue;
        const ir::Node& matmul = graph.nodes[producer->second];
        if (!IsOp(matmul, "MatMul") || matmul.inputs.size() != 2) continue;
        if (editor.ConsumerCount(product) != 1 || editor.HasOpaqueUse(product)) continue;
        if (index.Rank(matmul.inputs[0]) != 2u || index.Rank(matmul.inputs[1]) != 2u) continue;
        if (!IsGemmFloat(index.DType(product)) || index.DType(bias) != index.DType(product)) continue;
        const ir::Tensor* c = index.Constant(bias);
        std::optional<std::vector<int64_t>> out = index.StaticShape(product);
        if (c == nullptr || !out || out->size() != 2 || c->dims().size() > 2) continue;
        bool fits = true;
        const std::vector<int64_t>& cd = c->dims();
        for (size_t k = 0; k < cd.size(); ++k) {
          int64_t target = (*out)[2 - cd.size() + k];
          fits = fits && (cd[k] == 1 || cd[k] == target);
        }
        if (!fits) continue;
        ir::Node gemm;
        gemm.name = matmul.name;
        gemm.op_type = "Gemm";
        gemm.inputs = {matmul.inputs[0], matmul.inputs[1], bias};
        gemm.outputs = {add.outputs[0]};
        gemm.metadata = matmul.metadata;
        editor.Remove(producer->second);
        editor.Remove(i);
        editor.InsertBefore(i, std::move(gemm), &add);
        break;
      }
    }
    if (editor.empty()) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateMatMulAddToGemmPass(const PipelineOptions&) {
  return std::make_unique<MatMulAddToGemmPass>();
}

}  // namespace pt2onnx::passes
