// File: core/ir/rewrite.h
// -----------------------------------------------------------------------------
// The IR's mutation API for passes. A pass walks the graph, decides its edits
// on a GraphEditor (remove these nodes, insert those before/after that one,
// read `to` wherever `from` was read) and commits them once at the end, so
// node indices stay valid during the walk and a pass costs one rebuild of the
// node list, not one per edit.
//
// Metadata: a node inserted on behalf of another (`origin`) gets the
// origin's metadata_props (namespace, pkg.torch.onnx.* stack trace, FX node,
// class hierarchy) unless it has its own, so tools that map ONNX nodes back to
// FX nodes (torch.onnx verification, model-explorer) still find the source
// of fused or folded nodes.
//
// Graph outputs are the model's interface: their names never change. When a
// rewrite replaces a graph output, the new producer's output is renamed to
// the output's name, or an Identity keeps it when the replacement is itself
// an input, an initializer or another output.
#ifndef PT2ONNX_CORE_IR_REWRITE_H_
#define PT2ONNX_CORE_IR_REWRITE_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "core/ir/graph.h"

namespace pt2onnx::ir {

// Copies every metadata entry of `from` that `to` does not have yet.
void CopyMissingMetadata(const Metadata& from, Metadata& to);

// Rewrites every read of `from` into `to` in the nodes of `graph` and in
// subgraphs that read it from the outer scope (not graph outputs: see
// GraphEditor). Returns how many inputs were rewritten.
size_t ReplaceAllUses(Graph& graph, const std::string& from, const std::string& to);

// Renames a value everywhere: its definition (input, initializer or node
// output), its readers (subgraphs included), graph outputs and value_info.
void RenameValue(Graph& graph, const std::string& from, const std::string& to);

// Every value name read by the nodes of `graph`, including names that
// subgraphs read from their enclosing scopes.
absl::flat_hash_set<std::string> ReadValues(const Graph& graph);

// Calls `fn(graph)` on `graph` and then on every subgraph, depth first.
template <typename Fn>
void ForEachGraph(Graph& graph, const Fn& fn) {
  fn(graph);
  for (Node& node : graph.nodes) {
    for (Attribute& attr : node.attributes) {
      if (attr.type() == Attribute::Type::kGraph) ForEachGraph(attr.mutable_g(), fn);
    }
  }
}

// Batches edits of one graph; see the file comment.
class GraphEditor {
 public:
  explicit GraphEditor(Graph& graph);

  Graph& graph() { return graph_; }
  // Producer/consumers as of construction (edits do not update it).
  const UseMap& uses() const { return uses_; }
  // The node producing `value` (null for inputs, initializers, unknown names).
  const Node* Producer(const std::string& value) const;
  // Readers of `value` in this graph's nodes, as of construction.
  size_t ConsumerCount(const std::string& value) const;
  // True if `value` is a graph output or read by a subgraph (uses the
  // rewriter cannot see node by node).
  bool HasOpaqueUse(const std::string& value) const;

  // Schedules node `index` for removal. Commit fails if one of its outputs
  // is still read afterwards (after replacements).
  void Remove(size_t index);
  bool IsRemoved(size_t index) const { return removed_.contains(index); }
  // Schedules `node` right before / after node `anchor` (which may itself be
  // removed); metadata missing on `node` comes from `origin` when given.
  void InsertBefore(size_t anchor, Node node, const Node* origin = nullptr);
  void InsertAfter(size_t anchor, Node node, const Node* origin = nullptr);
  // Every read of `from` becomes a read of `to` (chains resolve at Commit).
  void ReplaceAllUses(const std::string& from, const std::string& to);
  // Adds an initializer (its name must be new).
  void AddInitializer(Initializer init);
  // A value name not used in the graph yet, derived from `hint`.
  std::string FreshName(const std::string& hint);

  bool empty() const;
  size_t removed_count() const { return removed_.size(); }
  size_t inserted_count() const { return inserted_count_; }
  // Applies the edits. Internal error when a removed node's output is still
  // read; the graph is left unchanged then.
  absl::Status Commit();

 private:
  std::string Resolve(const std::string& value) const;

  Graph& graph_;
  UseMap uses_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_set<std::string> subgraph_reads_;
  absl::flat_hash_set<size_t> removed_;
  std::map<size_t, std::vector<Node>> before_, after_;
  absl::flat_hash_map<std::string, std::string> replace_;
  std::vector<Initializer> new_initializers_;
  size_t inserted_count_ = 0;
  size_t fresh_counter_ = 0;
};

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_REWRITE_H_
