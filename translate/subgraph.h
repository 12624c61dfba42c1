// File: translate/subgraph.h
// -----------------------------------------------------------------------------
// Nested graphs of higher-order ops (torch.cond branches, while_loop and scan
// bodies): an FX subgraph is translated into a self-contained ONNX graph
// that an If / Loop / Scan node carries as an attribute.
//
// Scoping: each FX input of the subgraph is either captured (it reads an
// ONNX value of the enclosing graph by name, as If branches and loop-invariant
// operands do) or becomes an input of the ONNX subgraph (loop-carried state,
// scan slices). Every value the subgraph defines is prefixed with its scope
// path ("cond__true_graph_0__add"), so names stay unique across all nested
// graphs, as ONNX requires. Nodes carry the same metadata as the main graph's.
//
//   // higher_order::cond: both branches read the operands from outside.
//   SubgraphSpec spec{"true_graph_0", captured_inputs};
//   PT2ONNX_ASSIGN_OR_RETURN(ir::Graph then_graph, TranslateSubgraph(ctx, fx_branch, spec));
#ifndef PT2ONNX_TRANSLATE_SUBGRAPH_H_
#define PT2ONNX_TRANSLATE_SUBGRAPH_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aten/op_schema.h"
#include "core/dtype.h"
#include "core/ir/function.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::translate {

// Deepest nesting of higher-order ops accepted (a hostile file could nest
// without end).
inline constexpr int kMaxSubgraphDepth = 16;

// What every nested translation needs from the program's translation.
struct SubgraphEnvironment {
  const OpRegistry* registry = nullptr;
  const aten::SchemaTable* schema_table = nullptr;  // null: the generated table
  int opset = kDefaultOpset;
  const std::map<std::string, std::string>* dim_names = nullptr;  // --dim-name
  // Custom-domain opset versions the nodes need (torch.onnx.ops.symbolic),
  // collected for the model's opset imports.
  std::map<std::string, int64_t>* domains = nullptr;
  // Bodies of user translations (translate/custom_translations.h), by registry key.
  const std::map<std::string, ir::Function>* functions = nullptr;
  // With functions_as_local, the keys of the functions called, collected for
  // the model's local functions.
  bool functions_as_local = false;
  std::set<std::string>* called_functions = nullptr;
  std::string prefix;  // scope path of the graph being built ("" for main)
  int depth = 0;
};

// One FX input of a subgraph: captured (reads `outer_value` of the enclosing
// graph) or an input of the ONNX subgraph, of `dtype`.
struct SubgraphInput {
  std::optional<std::string> outer_value;
  DataType dtype = DataType::kUndefined;
};

struct SubgraphSpec {
  std::string scope;  // unique among the node's subgraphs: "true_graph_0"
  std::vector<SubgraphInput> inputs;  // one per FX input, in order
  // ONNX inputs before those of the FX inputs (Loop's iteration number and
  // condition), named here and prefixed like the rest.
  std::vector<ir::ValueInfo> leading_inputs;
};

// Translates `fx` into an ONNX graph whose outputs are the FX graph's, in
// order (typed from the program, shapes left to ONNX inference).
absl::StatusOr<ir::Graph> TranslateSubgraph(TranslateContext& ctx, const pt2::Graph& fx,
                                            const SubgraphSpec& spec);

// Appends the nodes of a translated subgraph (all of whose inputs were
// captured) to the graph `ctx` builds; returns its output values.
std::vector<std::string> InlineSubgraph(TranslateContext& ctx, ir::Graph graph);

// The FX value names a subgraph's inputs / outputs bind (tensors and symbolic
// scalars); InvalidArgument for other kinds.
absl::StatusOr<std::vector<std::string>> SubgraphValueNames(const std::vector<pt2::Argument>& args);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_SUBGRAPH_H_
