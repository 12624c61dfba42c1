#include "core/ir/rewrite.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace pt2onnx::ir {
namespace {

void RenameReads(Graph& graph, const absl::flat_hash_map<std::string, std::string>& renames) {
  ForEachGraph(graph, [&](Graph& g) {
    for (Node& node : g.nodes) {
      for (std::string& in : node.inputs) {
        auto it = renames.find(in);
        if (it != renames.end()) in = it->second;
      }
    }
  });
}

void CollectNames(const Graph& graph, absl::flat_hash_set<std::string>& names) {
  for (const ValueInfo& in : graph.inputs) names.insert(in.name);
  for (const Initializer& init : graph.initializers) names.insert(init.name);
  for (const Node& node : graph.nodes) {
    for (const std::string& out : node.outputs) names.insert(out);
    for (const Attribute& attr : node.attributes) {
      if (attr.type() == Attribute::Type::kGraph) CollectNames(attr.g(), names);
    }
  }
}

void CollectSubgraphReads(const Graph& graph, bool inside, absl::flat_hash_set<std::string>& reads) {
  for (const Node& node : graph.nodes) {
    if (inside) reads.insert(node.inputs.begin(), node.inputs.end());
    for (const Attribute& attr : node.attributes) {
      if (attr.type() == Attribute::Type::kGraph) {
        CollectSubgraphReads(attr.g(), true, reads);
        for (const ValueInfo& out : attr.g().outputs) reads.insert(out.name);
      }
    }
  }
}

}  // namespace

void CopyMissingMetadata(const Metadata& from, Metadata& to) {
  for (const auto& [key, value] : from) {
    bool present = false;
    for (const auto& entry : to) present = present || entry.first == key;
    if (!present) to.emplace_back(key, value);
  }
}

size_t ReplaceAllUses(Graph& graph, const std::string& from, const std::string& to) {
  size_t count = 0;
  ForEachGraph(graph, [&](Graph& g) {
    for (Node& node : g.nodes) {
      for (std::string& in : node.inputs) {
        if (in == from) {
          in = to;
          ++count;
        }
      }
    }
  });
  return count;
}

void RenameValue(Graph& graph, const std::string& from, const std::string& to) {
  for (ValueInfo& in : graph.inputs) {
    if (in.name == from) in.name = to;
  }
  for (Initializer& init : graph.initializers) {
    if (init.name == from) init.name = to;
  }
  for (Node& node : graph.nodes) {
    for (std::string& out : node.outputs) {
      if (out == from) out = to;
    }
  }
  for (ValueInfo& out : graph.outputs) {
    if (out.name == from) out.name = to;
  }
  auto info = graph.value_info.find(from);
  if (info != graph.value_info.end()) {
    ValueInfo moved = std::move(info->second);
    graph.value_info.erase(info);
    moved.name = to;
    graph.value_info[to] = std::move(moved);
  }
  ReplaceAllUses(graph, from, to);
}

absl::flat_hash_set<std::string> ReadValues(const Graph& graph) {
  absl::flat_hash_set<std::string> reads;
  for (const Node& node : graph.nodes) reads.insert(node.inputs.begin(), node.inputs.end());
  CollectSubgraphReads(graph, false, reads);
  reads.erase("");
  return reads;
}

GraphEditor::GraphEditor(Graph& graph) : graph_(graph), uses_(BuildUseMap(graph)) {
  names_.reserve(graph.inputs.size() + graph.initializers.size() + uses_.producer.size());
  CollectNames(graph, names_);
  CollectSubgraphReads(graph, false, subgraph_reads_);
}

const Node* GraphEditor::Producer(const std::string& value) const {
  auto it = uses_.producer.find(value);
  return it == uses_.producer.end() ? nullptr : &graph_.nodes[it->second];
}

size_t GraphEditor::ConsumerCount(const std::string& value) const {
  auto it = uses_.consumers.find(value);
  return it == uses_.consumers.end() ? 0 : it->second.size();
}

bool GraphEditor::HasOpaqueUse(const std::string& value) const {
  return graph_.IsOutput(value) || subgraph_reads_.contains(value);
}

void GraphEditor::Remove(size_t index) { removed_.insert(index); }

void GraphEditor::InsertBefore(size_t anchor, Node node, const Node* origin) {
  if (origin != nullptr) CopyMissingMetadata(origin->metadata, node.metadata);
  for (const std::string& out : node.outputs) names_.insert(out);
  before_[anchor].push_back(std::move(node));
  ++inserted_count_;
}

void GraphEditor::InsertAfter(size_t anchor, Node node, const Node* origin) {
  if (origin != nullptr) CopyMissingMetadata(origin->metadata, node.metadata);
  for (const std::string& out : node.outputs) names_.insert(out);
  after_[anchor].push_back(std::move(node));
  ++inserted_count_;
}

void GraphEditor::ReplaceAllUses(const std::string& from, const std::string& to) {
  if (from != to) replace_[from] = to;
}

void GraphEditor::AddInitializer(Initializer init) {
  names_.insert(init.name);
  new_initializers_.push_back(std::move(init));
}

std::string GraphEditor::FreshName(const std::string& hint) {
  std::string name = hint;
  while (names_.contains(name)) name = absl::StrCat(hint, "_", ++fresh_counter_);
  names_.insert(name);
  return name;
}

bool GraphEditor::empty() const {
  return removed_.empty() && inserted_count_ == 0 && replace_.empty() && new_initializers_.empty();
}

std::string GraphEditor::Resolve(const std::string& value) const {
  std::string current = value;
  for (size_t hops = 0; hops <= replace_.size(); ++hops) {
    auto it = replace_.find(current);
    if (it == replace_.end()) return current;
    current = it->second;
  }
  return current;  // a cycle: Commit reports the reads it leaves dangling
}

absl::Status GraphEditor::Commit() {
  if (empty()) return absl::OkStatus();
  std::vector<Node> nodes;
  nodes.reserve(graph_.nodes.size() + inserted_count_);
  auto take = [&](std::map<size_t, std::vector<Node>>& slot, size_t i) {
    auto it = slot.find(i);
    if (it == slot.end()) return;
    for (Node& n : it->second) nodes.push_back(std::move(n));
    slot.erase(it);
  };
  std::vector<Node> old_nodes = graph_.nodes;  // restored if the edits are invalid
  absl::flat_hash_set<std::string> removed_values;
  absl::flat_hash_map<std::string, const Node*> removed_producer;
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    take(before_, i);
    if (removed_.contains(i)) {
      for (const std::string& out : graph_.nodes[i].outputs) {
        removed_values.insert(out);
        removed_producer[out] = &old_nodes[i];
      }
    } else {
      nodes.push_back(std::move(graph_.nodes[i]));
    }
    take(after_, i);
  }
  // A removed node's output may live on, produced by an inserted node
  // (fusion) or as a new initializer (folding).
  for (const Initializer& init : new_initializers_) removed_values.erase(init.name);
  for (const Node& node : nodes) {
    for (const std::string& out : node.outputs) removed_values.erase(out);
  }
  absl::flat_hash_map<std::string, std::string> resolved;
  for (const auto& [from, unused] : replace_) resolved[from] = Resolve(from);
  Graph staged;
  staged.nodes = std::move(nodes);
  RenameReads(staged, resolved);

  // Graph outputs whose producer is gone take the replacement's name.
  absl::flat_hash_set<std::string> interface;
  for (const ValueInfo& v : graph_.inputs) interface.insert(v.name);
  for (const Initializer& v : graph_.initializers) interface.insert(v.name);
  for (const Initializer& v : new_initializers_) interface.insert(v.name);
  for (const ValueInfo& v : graph_.outputs) interface.insert(v.name);
  absl::flat_hash_map<std::string, size_t> producer;
  for (size_t i = 0; i < staged.nodes.size(); ++i) {
    for (const std::string& out : staged.nodes[i].outputs) producer[out] = i;
  }
  std::vector<std::string> dropped_info;
  absl::flat_hash_map<std::string, std::string> output_renames;
  for (const ValueInfo& out : graph_.outputs) {
    auto it = resolved.find(out.name);
    if (it == resolved.end() || !removed_values.contains(out.name)) continue;
    auto renamed = output_renames.find(it->second);
    const std::string replacement = renamed == output_renames.end() ? it->second : renamed->second;
    removed_values.erase(out.name);
    auto prod = producer.find(replacement);
    if (prod != producer.end() && !interface.contains(replacement)) {
      for (std::string& o : staged.nodes[prod->second].outputs) {
        if (o == replacement) o = out.name;
      }
      RenameReads(staged, {{replacement, out.name}});
      output_renames[replacement] = out.name;  // a second output copies the first
      interface.insert(out.name);
      producer.erase(prod);
      dropped_info.push_back(replacement);
      continue;
    }
    Node identity;
    identity.name = FreshName(absl::StrCat("node_", out.name));
    identity.op_type = "Identity";
    identity.inputs = {replacement};
    identity.outputs = {out.name};
    identity.metadata = removed_producer[out.name]->metadata;
    staged.nodes.push_back(std::move(identity));
  }

  absl::flat_hash_set<std::string> reads = ReadValues(staged);
  for (const std::string& value : removed_values) {
    if (reads.contains(value) || graph_.IsOutput(value)) {
      graph_.nodes = std::move(old_nodes);
      return absl::InternalError(absl::StrCat("a removed node's output '", value,
                                              "' is still read after the rewrite"));
    }
  }
  graph_.nodes = std::move(staged.nodes);
  for (Initializer& init : new_initializers_) graph_.initializers.push_back(std::move(init));
  for (const std::string& value : removed_values) graph_.value_info.erase(value);
  for (const std::string& value : dropped_info) graph_.value_info.erase(value);
  uses_ = BuildUseMap(graph_);
  removed_.clear();
  before_.clear();
  after_.clear();
  replace_.clear();
  new_initializers_.clear();
  inserted_count_ = 0;
  return absl::OkStatus();
}

}  // namespace pt2onnx::ir
