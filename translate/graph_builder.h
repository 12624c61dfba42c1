// File: translate/graph_builder.h
// -----------------------------------------------------------------------------
// GraphBuilder: the translator's state while it walks one FX graph — the ONNX
// graph under construction, the map from FX value names to ONNX value names,
// the FX tensor metadata, how often each FX value is read, and the counter
// that makes fresh names. Translations reach it only through TranslateContext.
#ifndef PT2ONNX_TRANSLATE_GRAPH_BUILDER_H_
#define PT2ONNX_TRANSLATE_GRAPH_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"

namespace pt2onnx::translate {

struct SubgraphEnvironment;  // translate/subgraph.h

class GraphBuilder {
 public:
  // FX value name -> number of reads (node inputs and graph outputs).
  using UseCounts = absl::flat_hash_map<std::string, int>;

  // `fx_graph` and `use_counts` must outlive the builder (it keeps
  // references to both).
  GraphBuilder(const pt2::Graph& fx_graph, const UseCounts& use_counts);

  ir::Graph& graph() { return graph_; }
  const pt2::Graph& fx_graph() const { return fx_graph_; }

  // A fresh value name: "val_<n>".
  std::string FreshName();
  // Appends a node; its name is set later by the translator.
  std::vector<std::string> AddNode(absl::string_view op_type,
                                   std::vector<std::string> inputs,
                                   std::vector<ir::Attribute> attributes,
                                   int num_outputs, absl::string_view domain);

  // FX value name -> ONNX value name.
  void Bind(const std::string& fx_name, const std::string& onnx_name);
  absl::StatusOr<std::string> Lookup(absl::string_view fx_name) const;
  bool IsBound(absl::string_view fx_name) const;

  // How many node inputs and graph outputs read FX value `fx_name` (0 for a
  // value nothing reads, e.g. torch.export's "<node>_unused_<i>" outputs).
  int UseCount(absl::string_view fx_name) const;

  // FX metadata of a tensor value (nullptr if unknown).
  const pt2::TensorMeta* Meta(absl::string_view fx_name) const;

  // Values that are graph inputs or initializers (never renamed).
  void MarkExternal(const std::string& onnx_name) { external_.insert(onnx_name); }
  bool IsExternal(const std::string& onnx_name) const { return external_.contains(onnx_name); }

  // Renames a value produced by a node at index >= `first_node` (and its uses
  // in those nodes). Used to give a translation's result its FX name; the
  // caller rebinds FX names that pointed at `from` (only its own pending
  // bindings can), so this stays proportional to one translation's nodes.
  void RenameProduced(size_t first_node, const std::string& from, const std::string& to);

  // Moves the nodes added since index `first_node` into `body` (a Loop or If
  // body being built in place), each named "node_" + its first output (or
  // the body's name), so a body's names stay unique in the whole model.
  void MoveNodesInto(size_t first_node, ir::Graph& body);

  // What nested graphs of higher-order ops are translated with (translate/subgraph.h);
  // null where they cannot be (unit tests).
  void set_environment(const SubgraphEnvironment* env) { env_ = env; }
  const SubgraphEnvironment* environment() const { return env_; }

  // Names already taken in the ONNX graph (inputs, initializers, outputs).
  bool IsTaken(const std::string& onnx_name) const { return taken_.contains(onnx_name); }
  void Take(const std::string& onnx_name) { taken_.insert(onnx_name); }

 private:
  const pt2::Graph& fx_graph_;
  const UseCounts& use_counts_;
  ir::Graph graph_;
  absl::flat_hash_map<std::string, std::string> values_;
  absl::flat_hash_set<std::string> external_;
  absl::flat_hash_set<std::string> taken_;
  int64_t counter_ = 0;
  const SubgraphEnvironment* env_ = nullptr;
};

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_GRAPH_BUILDER_H_
