#include "core/ir/inline_functions.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace pt2onnx::ir {
namespace {

constexpr int kMaxCallDepth = 16;

class Inliner {
 public:
  explicit Inliner(const std::vector<Function>& functions) {
    for (const Function& f : functions) by_id_[{f.domain, f.name}] = &f;
  }

  absl::Status InlineGraph(Graph& graph, int depth) {
    std::vector<Node> nodes;
    nodes.reserve(graph.nodes.size());
    for (Node& node : graph.nodes) {
      for (Attribute& attr : node.attributes) {
        if (attr.type() != Attribute::Type::kGraph) continue;
        absl::Status status = InlineGraph(attr.mutable_g(), depth);
        if (!status.ok()) return status;
      }
      auto found = by_id_.find({node.domain, node.op_type});
      if (found == by_id_.end()) {
        nodes.push_back(std::move(node));
        continue;
      }
      absl::Status status = Expand(node, *found->second, depth, nodes);
      if (!status.ok()) return status;
    }
    graph.nodes = std::move(nodes);
    return absl::OkStatus();
  }

 private:
  absl::Status Expand(const Node& call, const Function& function, int depth, std::vector<Node>& out) {
    const std::string id = absl::StrCat(function.domain, "::", function.name);
    if (depth >= kMaxCallDepth) {
      return absl::InvalidArgumentError(absl::StrCat("local function ", id, " is called ", kMaxCallDepth,
                                                     " levels deep (recursive?)"));
    }
    if (call.inputs.size() > function.inputs.size() || call.outputs.size() > function.outputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", call.name, "' calls ", id, " with ", call.inputs.size(), " inputs and ", call.outputs.size(),
          " outputs; it declares ", function.inputs.size(), " and ", function.outputs.size()));
    }
    const std::string prefix = absl::StrCat("_fn", calls_++, "_");
    std::map<std::string, std::string> names;
    for (size_t i = 0; i < function.inputs.size(); ++i) {
      names[function.inputs[i]] = i < call.inputs.size() ? call.inputs[i] : "";
    }
    for (size_t i = 0; i < function.outputs.size(); ++i) {
      const bool bound = i < call.outputs.size() && !call.outputs[i].empty();
      names[function.outputs[i]] = bound ? call.outputs[i] : prefix + function.outputs[i];
    }
    auto rename = [&](const std::string& name) -> std::string {
      if (name.empty()) return name;
      auto it = names.find(name);
      return it != names.end() ? it->second : prefix + name;
    };
    Graph body;
    for (const Node& inner : function.nodes) {
      for (const Attribute& attr : inner.attributes) {
        if (attr.type() == Attribute::Type::kGraph) {
          return absl::UnimplementedError(absl::StrCat("local function ", id, " has a subgraph in its body"));
        }
      }
      Node node = inner;
      node.name = prefix + (inner.name.empty() ? inner.op_type : inner.name);
      for (std::string& in : node.inputs) in = rename(in);
      for (std::string& o : node.outputs) o = rename(o);
      body.nodes.push_back(std::move(node));
    }
    absl::Status status = InlineGraph(body, depth + 1);  // functions calling functions
    if (!status.ok()) return status;
    for (Node& node : body.nodes) out.push_back(std::move(node));
    return absl::OkStatus();
  }

  std::map<std::pair<std::string, std::string>, const Function*> by_id_;
  int64_t calls_ = 0;
};

}  // namespace

absl::Status InlineLocalFunctions(Model& model) {
  if (model.functions.empty()) return absl::OkStatus();
  Inliner inliner(model.functions);
  absl::Status status = inliner.InlineGraph(model.graph, 0);
  if (!status.ok()) return status;
  model.functions.clear();
  return absl::OkStatus();
}

}  // namespace pt2onnx::ir
