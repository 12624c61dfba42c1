// File: tests/passes/ir_builders.h
// -----------------------------------------------------------------------------
// Small IR builders the pass tests share: a node from its parts, and a graph's
// node names (what most pass tests assert on).
#ifndef PT2ONNX_TESTS_PASSES_IR_BUILDERS_H_
#define PT2ONNX_TESTS_PASSES_IR_BUILDERS_H_

#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.h"

namespace pt2onnx::passes::testing {

inline ir::Node MakeNode(std::string name, std::string op, std::vector<std::string> inputs,
                         std::vector<std::string> outputs) {
  ir::Node n;
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

inline std::vector<std::string> NodeNames(const ir::Graph& g) {
  std::vector<std::string> names;
  for (const ir::Node& n : g.nodes) names.push_back(n.name);
  return names;
}

}  // namespace pt2onnx::passes::testing

#endif  // PT2ONNX_TESTS_PASSES_IR_BUILDERS_H_
