// File: core/runtime/plan/fuse_matmul_bias.cc
// -----------------------------------------------------------------------------
// Session::FuseMatMulBias: Linear layers arrive as MatMul(x, W) followed by
// Add(y, b). With W [K, N] and b [N] constant float32 and y read by that Add
// alone, XNNPACK's fully connected operator computes both in one pass (its
// accumulators start from the bias, as ONNX Runtime's MatMul+Add -> Gemm
// fusion does), which saves a step and a pass over the output.
#include <algorithm>
#include <utility>
#include <vector>

#include "core/runtime/kernels/accelerated.h"
#include "core/runtime/plan/session.h"

namespace pt2onnx::runtime {

absl::Status Session::FuseMatMulBias(const std::map<int, Tensor>& constants) {
  std::vector<int> readers(num_slots_, 0);
  for (const Step& step : steps_) {
    for (int id : step.inputs) if (id >= 0) ++readers[id];
  }
  for (int id : output_slots_) ++readers[id];
  auto constant = [&](int id) -> const Tensor* {
    auto it = id >= 0 ? constants.find(id) : constants.end();
    return it == constants.end() ? nullptr : &it->second;
  };
  std::vector<bool> fused_away(steps_.size(), false);
  for (size_t i = 0; i < steps_.size(); ++i) {
    Step& mm = steps_[i];
    if (mm.op_type != "MatMul" || !mm.accelerated || mm.inputs.size() != 2 || mm.outputs.size() != 1 ||
        mm.outputs[0] < 0 || readers[mm.outputs[0]] != 1) {
      continue;
    }
    const Tensor* w = constant(mm.inputs[1]);
    if (w == nullptr || w->dtype() != DataType::kFloat || w->rank() != 2) continue;
    // The one reader: the first later step that reads the product.
    size_t j = i + 1;
    while (j < steps_.size() &&
           std::find(steps_[j].inputs.begin(), steps_[j].inputs.end(), mm.outputs[0]) == steps_[j].inputs.end()) {
      ++j;
    }
    if (j == steps_.size()) continue;
    Step& add = steps_[j];
    if (add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1 || add.outputs[0] < 0) continue;
    const int other = add.inputs[0] == mm.outputs[0] ? add.inputs[1] : add.inputs[0];
    const Tensor* bias = constant(other);
    if (bias == nullptr || bias->dtype() != DataType::kFloat || bias->rank() != 1 || bias->numel() != w->dim(1)) continue;
    auto kernel = CreateFullyConnectedWithBias(*w, *bias);
    if (!kernel.ok()) return kernel.status();
    if (*kernel == nullptr) continue;
    mm.kernel = std::move(*kernel);
    mm.op_type = "MatMul+Add";
    mm.inputs.push_back(other);  // packed, like the weights (PackedInput)
    mm.outputs[0] = add.outputs[0];
    fused_away[j] = true;
  }
  std::vector<Step> kept;
  kept.reserve(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (!fused_away[i]) kept.push_back(std::move(steps_[i]));
  }
  steps_ = std::move(kept);
  return absl::OkStatus();
}

}  // namespace pt2onnx::runtime
