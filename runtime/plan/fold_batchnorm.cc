#include "runtime/plan/fold_batchnorm.h"

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "runtime/kernels/kernel_util.h"

namespace pt2onnx::runtime {
namespace {

// The float32 values of initializer `name` when it has `n` of them.
bool ReadFloats(const std::map<std::string, const ir::Initializer*>& inits, const std::string& name, int64_t n,
                std::vector<float>* out) {
  auto it = inits.find(name);
  if (it == inits.end() || it->second->tensor.dtype() != DataType::kFloat || it->second->tensor.numel() != n) return false;
  ByteSpan bytes = it->second->tensor.bytes();
  if (bytes.size() != static_cast<size_t>(n) * 4) return false;
  out->resize(n);
  if (n > 0) std::memcpy(out->data(), bytes.data(), bytes.size());
  return true;
}

}  // namespace

ir::Graph FoldConvBatchNorm(const ir::Graph& graph) {
  ir::Graph g = graph;
  std::map<std::string, const ir::Initializer*> inits;
  for (const ir::Initializer& init : graph.initializers) inits[init.name] = &init;
  ir::UseMap uses = ir::BuildUseMap(g);
  absl::flat_hash_set<size_t> removed;
  std::vector<ir::Initializer> added;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& bn = g.nodes[i];
    if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() != 5 || bn.outputs.size() != 1 ||
        AttrInt(bn, "training_mode", 0) != 0) {
      continue;
    }
    auto producer = uses.producer.find(bn.inputs[0]);
    if (producer == uses.producer.end()) continue;
    ir::Node& conv = g.nodes[producer->second];
    const auto& readers = uses.consumers[bn.inputs[0]];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 || readers.size() != 1 ||
        g.IsOutput(bn.inputs[0]) || conv.inputs.size() < 2) {
      continue;
    }
    auto w_it = inits.find(conv.inputs[1]);
    if (w_it == inits.end() || w_it->second->tensor.dtype() != DataType::kFloat || w_it->second->tensor.dims().empty()) {
      continue;
    }
    const ir::Tensor& w_tensor = w_it->second->tensor;
    const int64_t m = w_tensor.dims()[0];
    std::vector<float> w, bias(m, 0.0f), gamma, beta, mean, var;
    if (m <= 0 || !ReadFloats(inits, conv.inputs[1], w_tensor.numel(), &w)) continue;
    const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    if (has_bias && !ReadFloats(inits, conv.inputs[2], m, &bias)) continue;
    if (!ReadFloats(inits, bn.inputs[1], m, &gamma) || !ReadFloats(inits, bn.inputs[2], m, &beta) ||
        !ReadFloats(inits, bn.inputs[3], m, &mean) || !ReadFloats(inits, bn.inputs[4], m, &var)) {
      continue;
    }
    const double eps = AttrFloat(bn, "epsilon", 1e-5f);
    const int64_t per_channel = w_tensor.numel() / m;
    for (int64_t c = 0; c < m; ++c) {
      const double scale = gamma[c] / std::sqrt(static_cast<double>(var[c]) + eps);
      for (int64_t k = 0; k < per_channel; ++k) w[c * per_channel + k] = static_cast<float>(w[c * per_channel + k] * scale);
      bias[c] = static_cast<float>((bias[c] - mean[c]) * scale + beta[c]);
    }
    const std::string base = bn.outputs[0];
    std::string w_bytes(reinterpret_cast<const char*>(w.data()), w.size() * 4);
    std::string b_bytes(reinterpret_cast<const char*>(bias.data()), bias.size() * 4);
    added.push_back({base + "::folded_weight", ir::Tensor::Owned(DataType::kFloat, w_tensor.dims(), w_bytes), {}});
    added.push_back({base + "::folded_bias", ir::Tensor::Owned(DataType::kFloat, {m}, b_bytes), {}});
    conv.inputs.resize(3);
    conv.inputs[1] = base + "::folded_weight";
    conv.inputs[2] = base + "::folded_bias";
    conv.outputs[0] = bn.outputs[0];
    removed.insert(i);
  }
  if (removed.empty()) return g;
  g.RemoveNodes(removed);
  for (ir::Initializer& init : added) g.initializers.push_back(std::move(init));
  return g;
}

}  // namespace pt2onnx::runtime
