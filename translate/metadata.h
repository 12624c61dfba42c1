// File: translate/metadata.h
// -----------------------------------------------------------------------------
// The metadata torch.onnx's exporter attaches, reproduced key for key so its
// users' tools (model-explorer-onnx, intermediate-value comparison) read our
// output unchanged:
//   node:  namespace, pkg.torch.onnx.class_hierarchy, pkg.torch.onnx.name_scopes,
//          pkg.torch.onnx.fx_node, pkg.torch.onnx.stack_trace
//   graph: pkg.torch.export.ExportedProgram.graph_signature, .range_constraints
#ifndef PT2ONNX_TRANSLATE_METADATA_H_
#define PT2ONNX_TRANSLATE_METADATA_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"

namespace pt2onnx::translate {

// metadata_props key of graph inputs and initializers: USER_INPUT, PARAMETER, ...
inline constexpr char kInputKindKey[] = "pkg.torch.export.graph_signature.InputSpec.kind";

struct NodeMetadata {
  std::string name_space;  // "h.0: __main__.Block/h.0.attn: ...Linear/linear_1: aten.linear.default"
  std::vector<std::string> class_hierarchy;
  std::vector<std::string> name_scopes;
  std::string fx_node;      // "%linear_1 : [num_users=1] = call_function[target=...](args = (...), kwargs = {})"
  std::string stack_trace;

  ir::Metadata AsProps() const;
};

// `users` counts the uses of each FX value (for fx_node's num_users).
NodeMetadata BuildNodeMetadata(const pt2::Node& node,
                               const absl::flat_hash_map<std::string, int>& users);

// Graph-level metadata_props: the graph signature and range constraints,
// printed the way torch prints them.
ir::Metadata GraphMetadata(const pt2::ExportedProgram& program);

// Python repr of a list of strings: ['', 'h.0'].
std::string PythonListRepr(const std::vector<std::string>& items);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_METADATA_H_
