#include "core/ir/graph.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace pt2onnx::ir {

const Attribute* Node::FindAttribute(const std::string& attr_name) const {
  for (const Attribute& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

void Graph::RemoveNodes(const absl::flat_hash_set<size_t>& indices) {
  if (indices.empty()) return;
  std::vector<Node> kept;
  kept.reserve(nodes.size() - indices.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!indices.contains(i)) kept.push_back(std::move(nodes[i]));
  }
  nodes = std::move(kept);
}

const Initializer* Graph::FindInitializer(const std::string& value_name) const {
  for (const Initializer& init : initializers) {
    if (init.name == value_name) return &init;
  }
  return nullptr;
}

bool Graph::IsOutput(const std::string& value_name) const {
  for (const ValueInfo& out : outputs) {
    if (out.name == value_name) return true;
  }
  return false;
}

int64_t Model::OnnxOpset() const {
  for (const OpsetImport& op : opset_imports) {
    if (op.domain.empty() || op.domain == "ai.onnx") return op.version;
  }
  return 0;
}

UseMap BuildUseMap(const Graph& graph) {
  UseMap uses;
  // Sized once: each growth of a table hashes every name in it again (passes build this map per run).
  size_t outputs = 0;
  for (const Node& node : graph.nodes) outputs += node.outputs.size();
  uses.producer.reserve(outputs);
  uses.consumers.reserve(outputs + graph.inputs.size() + graph.initializers.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    for (const std::string& in : node.inputs) {
      if (!in.empty()) uses.consumers[in].push_back(i);
    }
    for (const std::string& out : node.outputs) {
      if (!out.empty()) uses.producer[out] = i;
    }
  }
  return uses;
}

namespace {

// The names visible in a graph: its own and, through `outer`, those its
// enclosing graphs define before the node holding it.
struct Scope {
  const Scope* outer = nullptr;
  absl::flat_hash_set<std::string> defined;

  bool Sees(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->outer) {
      if (s->defined.contains(name)) return true;
    }
    return false;
  }
};

absl::Status VerifyGraph(const Graph& graph, const Scope* outer) {
  Scope scope{outer, {}};
  auto define = [&](const std::string& name,
                    absl::string_view what) -> absl::Status {
    if (!scope.defined.insert(name).second) {
      return absl::InternalError(
          absl::StrCat("value '", name, "' (", what, ") is defined twice"));
    }
    return absl::OkStatus();
  };
  for (const ValueInfo& in : graph.inputs) {
    absl::Status s = define(in.name, "graph input");
    if (!s.ok()) return s;
  }
  for (const Initializer& init : graph.initializers) {
    absl::Status s = define(init.name, "initializer");
    if (!s.ok()) return s;
  }
  for (const Node& node : graph.nodes) {
    for (const std::string& in : node.inputs) {
      if (!in.empty() && !scope.Sees(in)) {
        return absl::InternalError(
            absl::StrCat("node '", node.name, "' (", node.op_type,
                         ") uses value '", in, "' before it is defined"));
      }
    }
    // A subgraph reads the values defined before its node, in this graph
    // and the graphs around it.
    for (const Attribute& attr : node.attributes) {
      if (attr.type() != Attribute::Type::kGraph) continue;
      absl::Status s = VerifyGraph(attr.g(), &scope);
      if (!s.ok()) {
        return absl::InternalError(absl::StrCat("in subgraph '", attr.name, "' of node '", node.name,
                                                "': ", s.message()));
      }
    }
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      absl::Status s = define(out, absl::StrCat("output of node '", node.name, "'"));
      if (!s.ok()) return s;
    }
  }
  absl::flat_hash_set<std::string> outputs;
  for (const ValueInfo& out : graph.outputs) {
    if (!scope.Sees(out.name)) {
      return absl::InternalError(
          absl::StrCat("graph output '", out.name, "' is never produced"));
    }
    if (!outputs.insert(out.name).second) {
      return absl::InternalError(absl::StrCat("graph output '", out.name, "' is listed twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Verify(const Graph& graph) { return VerifyGraph(graph, nullptr); }

}  // namespace pt2onnx::ir
