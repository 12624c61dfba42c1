// File: core/ir/graph.h
// -----------------------------------------------------------------------------
// The ONNX-level IR shared by the translator (ops/), the passes (passes/) and
// the ONNX writer (core/onnx/). It mirrors ONNX's own model: nodes refer to
// values by name, so a rename or a removal never leaves dangling pointers,
// and a pass that needs producers/consumers builds a use map (see
// ir::BuildUseMap) for the duration of its run.
//
// Mutation rules: value names are unique within a graph (inputs,
// initializers and node outputs together); nodes are kept in topological
// order; passes collect the nodes to remove and erase them after their walk
// (Graph::RemoveNodes), never while iterating.
#ifndef PT2ONNX_CORE_IR_GRAPH_H_
#define PT2ONNX_CORE_IR_GRAPH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/attribute.h"
#include "core/ir/tensor.h"

namespace pt2onnx::ir {

// One dimension: a static size, a named symbolic size ("s0", "batch"), or
// unknown (neither).
struct Dim {
  int64_t value = -1;
  std::string param;
  static Dim Static(int64_t v) { return Dim{v, ""}; }
  static Dim Symbolic(std::string name) { return Dim{-1, std::move(name)}; }
  bool is_static() const { return param.empty() && value >= 0; }
};

using Metadata = std::vector<std::pair<std::string, std::string>>;

struct ValueInfo {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::optional<std::vector<Dim>> shape;  // nullopt: rank unknown
  Metadata metadata;                      // metadata_props on the value
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" = ai.onnx
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
  Metadata metadata;  // metadata_props (namespace, pkg.torch.onnx.*)

  const Attribute* FindAttribute(const std::string& attr_name) const;
};

struct Initializer {
  std::string name;
  Tensor tensor;
  Metadata metadata;
};

struct Graph {
  std::string name = "main_graph";
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<Initializer> initializers;
  std::vector<Node> nodes;
  // Types/shapes of intermediate values, keyed by name (written as
  // value_info; absent entries are left to ONNX shape inference).
  std::map<std::string, ValueInfo> value_info;
  Metadata metadata;

  // Removes the nodes whose indices are in `indices` (any order),
  // preserving the order of the rest.
  void RemoveNodes(const absl::flat_hash_set<size_t>& indices);
  const Initializer* FindInitializer(const std::string& value_name) const;
  // True if `value_name` is a graph output.
  bool IsOutput(const std::string& value_name) const;
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

// An ONNX function (FunctionProto) as plain data: the body of a user-supplied
// translation (translate/custom_translations.h), read by core/onnx/model_reader
// and written back as a model-local function with --translations-as-functions.
struct Function {
  std::string domain;
  std::string name;
  std::vector<std::string> inputs;   // formal parameter names, in order
  std::vector<std::string> outputs;
  std::vector<Node> nodes;           // topologically ordered body
  std::vector<OpsetImport> opset_imports;
};

struct Model {
  int64_t ir_version = 10;
  std::vector<OpsetImport> opset_imports;
  std::vector<Function> functions;  // model-local functions the graph calls
  std::string producer_name = "pt2onnx";
  std::string producer_version;
  Graph graph;
  Metadata metadata;

  // The ai.onnx opset version (0 if none is imported).
  int64_t OnnxOpset() const;
};

// Producer and consumers of every value of `graph` (not of subgraphs).
struct UseMap {
  absl::flat_hash_map<std::string, size_t> producer;  // value -> node index
  absl::flat_hash_map<std::string, std::vector<size_t>> consumers;
};
UseMap BuildUseMap(const Graph& graph);

// Checks the IR invariants (unique value names, every input defined before
// use, outputs produced and listed once), in subgraphs too: a subgraph may
// read what its enclosing graphs define before the node that holds it. Internal error naming the first violation; the pass
// manager runs it after each pass in tests and debug builds.
absl::Status Verify(const Graph& graph);

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_GRAPH_H_
