#include "translate/subgraph.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "translate/fx_values.h"
#include "translate/graph_builder.h"
#include "translate/metadata.h"
#include "core/aten/op_schema.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

bool IsSymScalar(const Argument& a) {
  return (a.kind == Kind::kSymInt || a.kind == Kind::kSymFloat || a.kind == Kind::kSymBool) &&
         a.sym.is_name;
}

DataType SymDtype(const Argument& a) {
  return a.kind == Kind::kSymInt ? DataType::kInt64
         : a.kind == Kind::kSymBool ? DataType::kBool : DataType::kFloat;
}

// The node's arguments must be its schema's: none unknown, none twice (HOP
// positionals are all named ""), every argument without a default present.
absl::Status CheckArguments(const pt2::Node& node, const std::string& key, const OpSchema* schema) {
  absl::flat_hash_set<std::string> seen;
  for (const pt2::NamedArgument& a : node.inputs) {
    if (!a.name.empty() && !seen.insert(a.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name, "' (", key,
                                                     "): argument '", a.name, "' is given twice"));
    }
    if (schema != nullptr && schema->FindArgument(a.name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name, "' (", key, "): unknown argument '", a.name, "'"));
    }
  }
  if (schema == nullptr) return absl::OkStatus();
  for (const SchemaArgument& s : schema->arguments) {
    const bool optional = !s.type.empty() && s.type.back() == '?';
    if (!s.default_value.has_value() && !optional && !seen.contains(s.name)) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name, "' (", key,
                                                     "): required argument '", s.name,
                                                     "' is missing"));
    }
  }
  return absl::OkStatus();
}

// Renames every reference in `graph` and in the graphs nested in it.
void RenameAll(ir::Graph& graph, const absl::flat_hash_map<std::string, std::string>& names) {
  auto rename = [&](std::string& name) {
    auto it = names.find(name);
    if (it != names.end()) name = it->second;
  };
  for (ir::ValueInfo& v : graph.inputs) rename(v.name);
  for (ir::ValueInfo& v : graph.outputs) rename(v.name);
  for (ir::Node& node : graph.nodes) {
    for (std::string& in : node.inputs) rename(in);
    for (std::string& out : node.outputs) rename(out);
    for (ir::Attribute& attr : node.attributes) {
      if (attr.type() == ir::Attribute::Type::kGraph) RenameAll(attr.mutable_g(), names);
    }
  }
}

class SubgraphTranslator {
 public:
  SubgraphTranslator(TranslateContext& ctx, const pt2::Graph& fx, const SubgraphSpec& spec,
                     const SubgraphEnvironment& outer)
      : ctx_(ctx), fx_(fx), spec_(spec), users_(CountUsers(fx)), builder_(fx, users_) {
    env_ = outer;
    env_.prefix = absl::StrCat(outer.prefix, ctx.node().name, "__", spec.scope, "__");
    env_.depth = outer.depth + 1;
    builder_.set_environment(&env_);
  }

  absl::StatusOr<ir::Graph> Run() {
    if (env_.depth > kMaxSubgraphDepth) {
      return ctx_.Invalid(absl::StrCat("higher-order ops are nested more than ", kMaxSubgraphDepth,
                                       " deep"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> input_names, SubgraphValueNames(fx_.inputs));
    if (input_names.size() != spec_.inputs.size()) {
      return ctx_.Invalid(absl::StrCat("subgraph '", spec_.scope, "' takes ", input_names.size(),
                                       " inputs but the node passes ", spec_.inputs.size()));
    }
    for (const auto& [name, meta] : fx_.tensor_values) builder_.Take(name);
    ir::Graph& graph = builder_.graph();
    for (const ir::ValueInfo& info : spec_.leading_inputs) {
      PT2ONNX_RETURN_IF_ERROR(Define(info.name));
      graph.inputs.push_back(info);
      builder_.MarkExternal(info.name);
    }
    for (size_t i = 0; i < input_names.size(); ++i) {
      const std::string& name = input_names[i];
      if (!bound_.insert(name).second) {
        return ctx_.Invalid(absl::StrCat("subgraph '", spec_.scope, "' has two inputs named '",
                                         name, "'"));
      }
      builder_.Take(name);
      builder_.Bind(name, name);
      builder_.MarkExternal(name);
      if (spec_.inputs[i].outer_value.has_value()) {
        renames_[name] = *spec_.inputs[i].outer_value;
        continue;
      }
      PT2ONNX_RETURN_IF_ERROR(Define(name));
      ir::ValueInfo info;
      info.name = name;
      info.dtype = spec_.inputs[i].dtype;
      graph.inputs.push_back(std::move(info));
    }
    for (const pt2::Node& node : fx_.nodes) PT2ONNX_RETURN_IF_ERROR(TranslateNode(node));
    PT2ONNX_RETURN_IF_ERROR(AddOutputs());
    for (const ir::Node& node : graph.nodes) {
      for (const std::string& out : node.outputs) {
        if (!out.empty()) PT2ONNX_RETURN_IF_ERROR(Define(out));
      }
    }
    for (ir::Node& node : graph.nodes) node.name = env_.prefix + node.name;
    RenameAll(graph, renames_);
    graph.name = env_.prefix.substr(0, env_.prefix.size() - 2);
    return std::move(graph);
  }

 private:
  // A value this graph defines: prefixed with the scope path.
  absl::Status Define(const std::string& name) {
    auto [it, inserted] = renames_.emplace(name, env_.prefix + name);
    if (!inserted) {
      return ctx_.Invalid(absl::StrCat("subgraph '", spec_.scope, "' defines '", name, "' twice"));
    }
    return absl::OkStatus();
  }

  absl::Status TranslateNode(const pt2::Node& fx_node) {
    const std::string key = TargetToKey(fx_node.target);
    const OpEntry* entry = env_.registry->Find(key, env_.opset);
    if (entry == nullptr) {
      return absl::UnimplementedError(absl::StrCat("no translation for ", key, " (in subgraph '",
                                                   spec_.scope, "' of node '", ctx_.node().name,
                                                   "')"));
    }
    pt2::Node named;
    const pt2::Node* node = &fx_node;
    if (fx_node.name.empty()) {  // files before schema 8.17 name nodes by their outputs
      named = fx_node;
      std::vector<std::string> names;
      for (const Argument& out : fx_node.outputs) {
        if (out.kind == Kind::kTensor) names.push_back(out.name);
        if (IsSymScalar(out)) names.push_back(out.sym.name);
      }
      named.name = names.empty() ? absl::StrCat("node_", node_counter_) : names[0];
      node = &named;
    }
    ++node_counter_;
    const size_t first_node = builder_.graph().nodes.size();
    const OpSchema* schema = (env_.schema_table != nullptr ? *env_.schema_table
                                                           : aten::SchemaTable::Default())
                                 .Find(key);
    PT2ONNX_RETURN_IF_ERROR(CheckArguments(*node, key, schema));
    TranslateContext ctx(builder_, *node, schema, env_.opset);
    PT2ONNX_RETURN_IF_ERROR(entry->fn(ctx));
    PT2ONNX_RETURN_IF_ERROR(ctx.Commit());
    ir::Graph& graph = builder_.graph();
    const ir::Metadata props = BuildNodeMetadata(*node, users_).AsProps();
    for (size_t i = first_node; i < graph.nodes.size(); ++i) {
      ir::Node& n = graph.nodes[i];
      n.name = absl::StrCat("node_", n.outputs.empty() ? node->name : n.outputs[0]);
      n.metadata = props;
    }
    return absl::OkStatus();
  }

  // Outputs in FX order; each needs a producer of its own in this graph, so
  // inputs, captured values and repeats get an Identity.
  absl::Status AddOutputs() {
    ir::Graph& graph = builder_.graph();
    absl::flat_hash_set<std::string> used;
    for (size_t i = 0; i < fx_.outputs.size(); ++i) {
      const Argument& out = fx_.outputs[i];
      std::string fx_name;
      DataType dtype = DataType::kUndefined;
      if (out.kind == Kind::kTensor) {
        fx_name = out.name;
        const pt2::TensorMeta* meta = builder_.Meta(fx_name);
        if (meta != nullptr) dtype = meta->dtype;
      } else if (IsSymScalar(out)) {
        fx_name = out.sym.name;
        dtype = SymDtype(out);
      } else {
        return ctx_.Unsupported(absl::StrCat("output ", i, " of subgraph '", spec_.scope,
                                             "' is not a tensor or a symbolic scalar"));
      }
      PT2ONNX_ASSIGN_OR_RETURN(std::string value, builder_.Lookup(fx_name));
      if (builder_.IsExternal(value) || used.contains(value)) {
        std::string copy = builder_.FreshName();
        ir::Node identity;
        identity.op_type = "Identity";
        identity.name = absl::StrCat("node_", copy);
        identity.inputs = {value};
        identity.outputs = {copy};
        graph.nodes.push_back(std::move(identity));
        value = copy;
      }
      used.insert(value);
      ir::ValueInfo info;
      info.name = value;
      info.dtype = dtype;
      graph.outputs.push_back(std::move(info));
    }
    return absl::OkStatus();
  }

  TranslateContext& ctx_;
  const pt2::Graph& fx_;
  const SubgraphSpec& spec_;
  const GraphBuilder::UseCounts users_;  // before builder_, which keeps a reference
  GraphBuilder builder_;
  SubgraphEnvironment env_;
  absl::flat_hash_set<std::string> bound_;
  absl::flat_hash_map<std::string, std::string> renames_;
  int64_t node_counter_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<std::string>> SubgraphValueNames(const std::vector<Argument>& args) {
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == Kind::kTensor) {
      names.push_back(args[i].name);
    } else if (IsSymScalar(args[i])) {
      names.push_back(args[i].sym.name);
    } else {
      return absl::UnimplementedError(absl::StrCat(
          "a subgraph input or output (position ", i, ") is neither a tensor nor a symbolic scalar"));
    }
  }
  return names;
}

absl::StatusOr<ir::Graph> TranslateSubgraph(TranslateContext& ctx, const pt2::Graph& fx,
                                            const SubgraphSpec& spec) {
  const SubgraphEnvironment* env = ctx.builder().environment();
  if (env == nullptr || env->registry == nullptr) {
    return ctx.Unsupported("nested graphs cannot be translated here (no translation environment)");
  }
  return SubgraphTranslator(ctx, fx, spec, *env).Run();
}

std::vector<std::string> InlineSubgraph(TranslateContext& ctx, ir::Graph graph) {
  std::vector<ir::Node>& nodes = ctx.builder().graph().nodes;
  for (ir::Node& node : graph.nodes) nodes.push_back(std::move(node));
  std::vector<std::string> outputs;
  for (const ir::ValueInfo& out : graph.outputs) outputs.push_back(out.name);
  return outputs;
}

}  // namespace pt2onnx::translate
