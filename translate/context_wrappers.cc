// File: translate/context_wrappers.cc
// -----------------------------------------------------------------------------
// Inlining of the context-manager wrappers (see context_wrappers.h).
//
// The body is a closed FX graph (its own names, operands passed as inputs),
// so inlining maps each body input to the node's operand, renames every value
// the body defines to a name the enclosing graph does not use, and gives the
// body's results the names of the node's outputs. A result that is a body
// input, or a value returned twice, gets an aten::alias node so that every
// output name is defined once.
#include "translate/context_wrappers.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "translate/registry.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

constexpr absl::string_view kSetGradEnabled = "higher_order::wrap_with_set_grad_enabled";
constexpr absl::string_view kAutocast = "higher_order::wrap_with_autocast";

// The value a tensor / symbolic argument names, or "" for constants.
std::string ValueName(const Argument& a) {
  if (a.kind == Kind::kTensor) return a.name;
  if ((a.kind == Kind::kSymInt || a.kind == Kind::kSymFloat || a.kind == Kind::kSymBool) &&
      a.sym.is_name) {
    return a.sym.name;
  }
  return "";
}


// Every value name `graph` defines or reads at its top level.
void CollectNames(const pt2::Graph& graph, absl::flat_hash_set<std::string>& names) {
  for (const auto& [name, meta] : graph.tensor_values) names.insert(name);
  for (const auto& [name, v] : graph.sym_int_values) names.insert(name);
  for (const auto& [name, v] : graph.sym_bool_values) names.insert(name);
  for (const auto& [name, v] : graph.sym_float_values) names.insert(name);
  for (const pt2::Node& node : graph.nodes) {
    names.insert(node.name);
    for (Argument out : node.outputs) {
      pt2::ForEachValueName(out, [&](std::string& n) { names.insert(n); });
    }
  }
}

bool HasWrapper(const pt2::Graph& graph) {
  for (const pt2::Node& node : graph.nodes) {
    if (IsContextWrapper(TargetToKey(node.target))) return true;
  }
  return false;
}

class Inliner {
 public:
  explicit Inliner(pt2::Graph& graph) : graph_(graph) { CollectNames(graph, taken_); }

  absl::Status Run() {
    std::vector<pt2::Node> nodes = std::move(graph_.nodes);
    graph_.nodes.clear();
    for (pt2::Node& node : nodes) {
      std::string key = TargetToKey(node.target);
      if (IsContextWrapper(key)) {
        PT2ONNX_RETURN_IF_ERROR(Inline(node, key));
      } else {
        graph_.nodes.push_back(std::move(node));
      }
    }
    return absl::OkStatus();
  }

 private:
  std::string Fresh(const std::string& prefix, const std::string& name) {
    std::string candidate = absl::StrCat(prefix, "__", name);
    for (int i = 1; taken_.contains(candidate); ++i) {
      candidate = absl::StrCat(prefix, "__", name, "_", i);
    }
    taken_.insert(candidate);
    return candidate;
  }

  absl::Status Inline(const pt2::Node& node, absl::string_view key) {
    auto where = [&] { return absl::StrCat("node '", node.name, "' (", key, ")"); };
    // The body is the first graph argument; the operands follow it.
    size_t body_index = node.inputs.size();
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].arg.kind == Kind::kGraph && node.inputs[i].arg.graph != nullptr) {
        body_index = i;
        break;
      }
    }
    if (body_index == node.inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(where(), ": no body subgraph"));
    }
    if (key == kAutocast) {
      // (device_type, dtype, enabled, cache_enabled, body, *operands)
      if (body_index < 3 || node.inputs[2].arg.kind != Kind::kBool) {
        return absl::InvalidArgumentError(absl::StrCat(where(), ": no 'enabled' flag"));
      }
      if (node.inputs[2].arg.b) {
        return absl::UnimplementedError(absl::StrCat(
            where(), ": an enabled torch.autocast region changes the dtypes of the ops inside it; "
            "re-export with ep.run_decompositions(), which writes its casts as explicit nodes, or "
            "export with autocast disabled"));
      }
    }
    // Nested wrappers first, so the body holds only ordinary nodes.
    pt2::Graph body = *node.inputs[body_index].arg.graph;
    if (HasWrapper(body)) PT2ONNX_RETURN_IF_ERROR(Inliner(body).Run());

    size_t num_operands = node.inputs.size() - body_index - 1;
    if (body.inputs.size() != num_operands || body.outputs.size() != node.outputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where(), ": the body takes ", body.inputs.size(), " inputs and returns ",
          body.outputs.size(), " values, but the node passes ", num_operands, " and defines ",
          node.outputs.size()));
    }
    absl::flat_hash_map<std::string, std::string> rename;
    absl::flat_hash_set<std::string> body_inputs;
    for (size_t i = 0; i < num_operands; ++i) {
      std::string inner = ValueName(body.inputs[i]);
      std::string outer = ValueName(node.inputs[body_index + 1 + i].arg);
      if (inner.empty()) continue;  // a constant input the body does not read by name
      if (outer.empty()) {
        return absl::UnimplementedError(absl::StrCat(
            where(), ": operand ", i, " is a constant where the body expects a value"));
      }
      rename[inner] = outer;
      body_inputs.insert(inner);
    }
    // Body results take the node's output names, unless they are inputs or
    // repeated (those get an alias below).
    absl::flat_hash_set<std::string> claimed;
    std::vector<std::pair<std::string, std::string>> aliases;  // (inner, outer output)
    for (size_t j = 0; j < body.outputs.size(); ++j) {
      std::string inner = ValueName(body.outputs[j]);
      std::string outer = ValueName(node.outputs[j]);
      if (inner.empty() || outer.empty() || body.outputs[j].kind != Kind::kTensor) {
        if (outer.empty()) continue;  // a None / constant result nothing reads
        return absl::UnimplementedError(
            absl::StrCat(where(), ": result ", j, " is not a tensor"));
      }
      if (body_inputs.contains(inner) || claimed.contains(inner)) {
        aliases.emplace_back(inner, outer);
      } else {
        rename[inner] = outer;
        claimed.insert(inner);
      }
    }
    std::string prefix =
        node.name.empty() ? std::string(key.substr(key.find("::") + 2)) : node.name;
    auto map_name = [&](std::string& n) {
      auto it = rename.find(n);
      if (it == rename.end()) it = rename.emplace(n, Fresh(prefix, n)).first;
      n = it->second;
    };
    for (pt2::Node& inner : body.nodes) {
      for (pt2::NamedArgument& a : inner.inputs) pt2::ForEachValueName(a.arg, map_name);
      for (Argument& out : inner.outputs) pt2::ForEachValueName(out, map_name);
      if (!inner.name.empty()) inner.name = Fresh(prefix, inner.name);
      graph_.nodes.push_back(std::move(inner));
    }
    for (auto& [inner, outer] : aliases) {
      std::string source = inner;
      map_name(source);
      pt2::Node alias;
      alias.target = "torch.ops.aten.alias.default";
      alias.name = Fresh(prefix, outer);
      alias.metadata = node.metadata;
      pt2::NamedArgument self;
      self.name = "self";
      self.arg.kind = Kind::kTensor;
      self.arg.name = source;
      alias.inputs.push_back(std::move(self));
      Argument out;
      out.kind = Kind::kTensor;
      out.name = outer;
      alias.outputs.push_back(std::move(out));
      graph_.nodes.push_back(std::move(alias));
    }
    // Metadata of the body's own values, under their new names (the
    // enclosing graph already describes the operands and the outputs).
    for (auto& [name, meta] : body.tensor_values) {
      if (body_inputs.contains(name)) continue;
      auto it = rename.find(name);
      if (it != rename.end()) graph_.tensor_values.emplace(it->second, meta);
    }
    auto copy_syms = [&](const std::map<std::string, pt2::SymInt>& from,
                         std::map<std::string, pt2::SymInt>& to) {
      for (const auto& [name, value] : from) {
        if (body_inputs.contains(name)) continue;
        auto it = rename.find(name);
        if (it != rename.end()) to.emplace(it->second, value);
      }
    };
    copy_syms(body.sym_int_values, graph_.sym_int_values);
    copy_syms(body.sym_bool_values, graph_.sym_bool_values);
    copy_syms(body.sym_float_values, graph_.sym_float_values);
    return absl::OkStatus();
  }

  pt2::Graph& graph_;
  absl::flat_hash_set<std::string> taken_;
};

}  // namespace

bool IsContextWrapper(absl::string_view key) { return key == kSetGradEnabled || key == kAutocast; }

absl::StatusOr<std::optional<pt2::Graph>> InlineContextWrappers(const pt2::Graph& graph) {
  if (!HasWrapper(graph)) return std::optional<pt2::Graph>();
  pt2::Graph flat = graph;
  PT2ONNX_RETURN_IF_ERROR(Inliner(flat).Run());
  return std::optional<pt2::Graph>(std::move(flat));
}

}  // namespace pt2onnx::translate
