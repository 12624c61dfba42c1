// File: passes/pass_util.h
// -----------------------------------------------------------------------------
// What passes ask of a graph: constant values, known types and shapes, op
// tests and small constant readers.
#ifndef PT2ONNX_PASSES_PASS_UTIL_H_
#define PT2ONNX_PASSES_PASS_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ir/graph.h"
#include "core/ir/rewrite.h"

namespace pt2onnx::passes {

// True for an ai.onnx node of type `op_type`.
bool IsOp(const ir::Node& node, const char* op_type);
// True if the node has a graph-valued attribute (If, Loop, Scan).
bool HasSubgraph(const ir::Node& node);
int64_t IntAttribute(const ir::Node& node, const char* name, int64_t fallback);

// Types, shapes and constant values of a graph's values, indexed once.
class ValueIndex {
 public:
  explicit ValueIndex(const ir::Graph& graph);
  // Initializer value (not overridable by a graph input of the same name).
  const ir::Tensor* Constant(const std::string& name) const;
  // dtype/shape from inputs, outputs, value_info or the initializer.
  const ir::ValueInfo* Info(const std::string& name) const;
  DataType DType(const std::string& name) const;
  // The shape when every dim is static.
  std::optional<std::vector<int64_t>> StaticShape(const std::string& name) const;
  std::optional<size_t> Rank(const std::string& name) const;

 private:
  absl::flat_hash_map<std::string, const ir::Tensor*> constants_;
  absl::flat_hash_map<std::string, ir::ValueInfo> infos_;
};

// The integer values of a constant of an integer dtype (at most `limit` elements).
std::optional<std::vector<int64_t>> ConstantInts(const ir::Tensor* tensor, int64_t limit = 64);
// The single value of a one-element constant, as double.
std::optional<double> ConstantScalar(const ir::Tensor* tensor);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_PASS_UTIL_H_
