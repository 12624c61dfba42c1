// File: runtime/plan/fuse_matmul_bias.cc
// -----------------------------------------------------------------------------
// Session::FuseBiasAdd: Linear layers arrive as MatMul(x, W) followed by
// Add(y, b). With W [K, N] and b [N] constant float32 and y read by that Add
// alone, XNNPACK's fully connected operator computes both in one pass (its
// accumulators start from the bias, as ONNX Runtime's MatMul+Add -> Gemm
// fusion does), which saves a step and a pass over the output. Decided as the
// MatMul's step is created, so W is packed while its source is still held
// once (the session frees it right after).
#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/control_flow.h"
#include "runtime/plan/session.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {

absl::StatusOr<int> Session::FuseBiasAdd(const ir::Graph& graph, size_t matmul,
                                         const std::map<std::string, int>& reads,
                                         const std::map<std::string, int>& slots,
                                         const std::map<int, Tensor>& constants, Step& step) {
  const ir::Node& mm = graph.nodes[matmul];
  if (step.inputs.size() != 2 || mm.outputs.size() != 1 || mm.outputs[0].empty()) return -1;
  const std::string& product = mm.outputs[0];
  auto count = reads.find(product);
  if (count == reads.end() || count->second != 1) return -1;
  auto constant = [&](int id) -> const Tensor* {
    auto it = id >= 0 ? constants.find(id) : constants.end();
    return it == constants.end() ? nullptr : &it->second;
  };
  const Tensor* w = constant(step.inputs[1]);
  if (w == nullptr || w->dtype() != DataType::kFloat || w->rank() != 2) return -1;
  // The one reader: the first later node that reads the product.
  size_t j = matmul + 1;
  while (j < graph.nodes.size()) {
    const std::vector<std::string> r = NodeReads(graph.nodes[j]);
    if (std::find(r.begin(), r.end(), product) != r.end()) break;
    ++j;
  }
  if (j == graph.nodes.size()) return -1;
  const ir::Node& add = graph.nodes[j];
  if (add.op_type != "Add" || !add.domain.empty() || add.inputs.size() != 2 || add.outputs.size() != 1 ||
      add.outputs[0].empty()) {
    return -1;
  }
  const std::string& other = add.inputs[0] == product ? add.inputs[1] : add.inputs[0];
  auto other_slot = slots.find(other);
  if (other == product || other_slot == slots.end()) return -1;
  const Tensor* bias = constant(other_slot->second);
  if (bias == nullptr || bias->dtype() != DataType::kFloat || bias->rank() != 1 || bias->numel() != w->dim(1)) return -1;
  PT2ONNX_ASSIGN_OR_RETURN(auto kernel, CreateFullyConnectedWithBias(*w, *bias));
  if (kernel == nullptr) return -1;
  step.kernel = std::move(kernel);
  step.op_type = "MatMul+Add";
  step.inputs.push_back(other_slot->second);  // packed, like the weights (PackedInput)
  return static_cast<int>(j);
}

}  // namespace pt2onnx::runtime
