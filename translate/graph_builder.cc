#include "translate/graph_builder.h"

#include <cstddef>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::translate {

GraphBuilder::GraphBuilder(const pt2::Graph& fx_graph, const UseCounts& use_counts)
    : fx_graph_(fx_graph), use_counts_(use_counts) {}

std::string GraphBuilder::FreshName() {
  std::string name;
  do {
    name = absl::StrCat("val_", counter_++);
  } while (taken_.contains(name));
  taken_.insert(name);
  return name;
}

std::vector<std::string> GraphBuilder::AddNode(absl::string_view op_type,
                                               std::vector<std::string> inputs,
                                               std::vector<ir::Attribute> attributes,
                                               int num_outputs,
                                               absl::string_view domain) {
  ir::Node node;
  node.op_type = std::string(op_type);
  node.domain = std::string(domain);
  node.inputs = std::move(inputs);
  node.attributes = std::move(attributes);
  for (int i = 0; i < num_outputs; ++i) node.outputs.push_back(FreshName());
  std::vector<std::string> outputs = node.outputs;
  graph_.nodes.push_back(std::move(node));
  return outputs;
}

void GraphBuilder::Bind(const std::string& fx_name, const std::string& onnx_name) {
  values_[fx_name] = onnx_name;
}

absl::StatusOr<std::string> GraphBuilder::Lookup(absl::string_view fx_name) const {
  auto it = values_.find(fx_name);
  if (it == values_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "value '", fx_name, "' is used before any node or input defines it"));
  }
  return it->second;
}

bool GraphBuilder::IsBound(absl::string_view fx_name) const {
  return values_.contains(fx_name);
}

int GraphBuilder::UseCount(absl::string_view fx_name) const {
  auto it = use_counts_.find(fx_name);
  return it == use_counts_.end() ? 0 : it->second;
}

const pt2::TensorMeta* GraphBuilder::Meta(absl::string_view fx_name) const {
  auto it = fx_graph_.tensor_values.find(std::string(fx_name));
  return it == fx_graph_.tensor_values.end() ? nullptr : &it->second;
}

void GraphBuilder::RenameProduced(size_t first_node, const std::string& from,
                                  const std::string& to) {
  for (size_t i = first_node; i < graph_.nodes.size(); ++i) {
    ir::Node& node = graph_.nodes[i];
    for (std::string& in : node.inputs) {
      if (in == from) in = to;
    }
    for (std::string& out : node.outputs) {
      if (out == from) out = to;
    }
  }
  taken_.insert(to);
}

void GraphBuilder::MoveNodesInto(size_t first_node, ir::Graph& body) {
  std::vector<ir::Node>& nodes = graph_.nodes;
  for (size_t j = first_node; j < nodes.size(); ++j) {
    ir::Node& node = nodes[j];
    node.name = absl::StrCat("node_", node.outputs.empty() ? body.name : node.outputs[0]);
    body.nodes.push_back(std::move(node));
  }
  nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(first_node), nodes.end());
}

}  // namespace pt2onnx::translate
