// Test seam for --verify (native/test_hooks.h): corrupts one translation of
// the converted model, as a bug in ops/ would, chosen by PT2ONNX_BREAK:
//   transpose_perm  the first Transpose whose output keeps an FX name and has
//                   two equal dims: their perm entries swapped (same shape,
//                   wrong values)
//   epsilon         the first LayerNormalization/BatchNormalization/
//                   InstanceNormalization: epsilon set to 0.5
//   drop_bias       the first Conv/Gemm with a bias: the bias dropped
// Prints "PT2ONNX_BREAK: <what> <onnx node> -> '<value>'" on stderr.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "native/test_hooks.h"

namespace pt2onnx::native {
namespace {

// ONNX nodes translated from an FX node are named node_<fx value>.
bool KeepsFxName(const ir::Node& node) {
  return !node.outputs.empty() && node.name == "node_" + node.outputs[0];
}

const std::vector<ir::Dim>* ShapeOf(const ir::Model& model, const std::string& value) {
  auto it = model.graph.value_info.find(value);
  if (it != model.graph.value_info.end() && it->second.shape) return &*it->second.shape;
  for (const ir::ValueInfo& v : model.graph.outputs) {
    if (v.name == value && v.shape) return &*v.shape;
  }
  return nullptr;
}

void Report(const char* what, const ir::Node& node) {
  std::fprintf(stderr, "PT2ONNX_BREAK: %s %s -> '%s'\n", what, node.name.c_str(), node.outputs[0].c_str());
}

bool BreakPerm(ir::Model& model) {
  for (ir::Node& node : model.graph.nodes) {
    if (node.op_type != "Transpose" || !KeepsFxName(node)) continue;
    const std::vector<ir::Dim>* shape = ShapeOf(model, node.outputs[0]);
    for (ir::Attribute& a : node.attributes) {
      if (a.name != "perm" || shape == nullptr || shape->size() != a.ints().size()) continue;
      for (size_t i = 0; i < a.ints().size(); ++i) {
        for (size_t j = i + 1; j < a.ints().size(); ++j) {
          const ir::Dim& di = (*shape)[i];
          const ir::Dim& dj = (*shape)[j];
          if (di.is_static() && dj.is_static() && di.value == dj.value && di.value > 1) {
            std::swap(a.mutable_ints()[i], a.mutable_ints()[j]);
            Report("swapped perm of", node);
            return true;
          }
        }
      }
    }
  }
  return false;
}

bool BreakEpsilon(ir::Model& model) {
  for (ir::Node& node : model.graph.nodes) {
    if (node.op_type != "LayerNormalization" && node.op_type != "BatchNormalization" &&
        node.op_type != "InstanceNormalization") {
      continue;
    }
    bool found = false;
    for (ir::Attribute& a : node.attributes) {
      if (a.name == "epsilon") {
        a.set_f(0.5f);
        found = true;
      }
    }
    if (!found) node.attributes.push_back(ir::Attribute::Float("epsilon", 0.5f));
    Report("epsilon 0.5 in", node);
    return true;
  }
  return false;
}

bool DropBias(ir::Model& model) {
  for (ir::Node& node : model.graph.nodes) {
    if ((node.op_type == "Conv" || node.op_type == "Gemm") && node.inputs.size() == 3 && !node.inputs[2].empty()) {
      node.inputs.pop_back();
      Report("dropped the bias of", node);
      return true;
    }
  }
  return false;
}

}  // namespace

void ApplyTestHooks(ir::Model& model) {
  const char* what = std::getenv("PT2ONNX_BREAK");
  if (what == nullptr) return;
  const std::string mode = what;
  bool done = mode == "transpose_perm" ? BreakPerm(model)
              : mode == "epsilon"      ? BreakEpsilon(model)
              : mode == "drop_bias"    ? DropBias(model)
                                       : false;
  if (!done) std::fprintf(stderr, "PT2ONNX_BREAK: nothing to break for '%s'\n", what);
}

}  // namespace pt2onnx::native
