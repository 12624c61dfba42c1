#include "translate/custom_translations.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "translate/graph_builder.h"
#include "translate/subgraph.h"
#include "translate/translate_context.h"

namespace pt2onnx::translate {
namespace {

using Kind = pt2::Argument::Kind;

// Every value the body reads is a formal input or defined earlier, once;
// every output is defined; no node carries a subgraph.
absl::Status CheckBody(TranslateContext& ctx, const ir::Function& function) {
  absl::flat_hash_set<std::string> defined(function.inputs.begin(), function.inputs.end());
  for (const ir::Node& node : function.nodes) {
    for (const std::string& in : node.inputs) {
      if (!in.empty() && !defined.contains(in)) {
        return ctx.Invalid(absl::StrCat("its translation function reads '", in, "' before defining it"));
      }
    }
    for (const ir::Attribute& attr : node.attributes) {
      if (attr.type() == ir::Attribute::Type::kGraph) {
        return ctx.Unsupported("translation functions with subgraphs (If/Loop/Scan bodies)");
      }
    }
    for (const std::string& out : node.outputs) {
      if (!out.empty() && !defined.insert(out).second) {
        return ctx.Invalid(absl::StrCat("its translation function defines '", out, "' twice"));
      }
    }
  }
  for (const std::string& out : function.outputs) {
    if (!defined.contains(out)) {
      return ctx.Invalid(absl::StrCat("its translation function never defines its output '", out, "'"));
    }
  }
  return absl::OkStatus();
}

// One node calling the function, which the translator adds to the model's
// local functions (domain and name as in the library).
absl::Status CallLocalFunction(TranslateContext& ctx, const ir::Function& function,
                               std::vector<std::string> actuals) {
  const SubgraphEnvironment* env = ctx.builder().environment();
  if (env->called_functions == nullptr) return absl::InternalError("no table of called functions");
  env->called_functions->insert(ctx.key());
  while (!actuals.empty() && actuals.back().empty()) actuals.pop_back();  // omitted trailing inputs
  std::vector<std::string> outputs = ctx.AddNode(function.name, std::move(actuals), {},
                                                 static_cast<int>(function.outputs.size()), function.domain);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (ctx.node().outputs[i].kind == Kind::kNone) continue;
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(static_cast<int>(i), outputs[i]));
  }
  return absl::OkStatus();
}

// The translation of every library function: inlines its body.
absl::Status TranslateWithFunction(TranslateContext& ctx) {
  const SubgraphEnvironment* env = ctx.builder().environment();
  const CustomFunctionTable* table = env == nullptr ? nullptr : env->functions;
  auto found = table == nullptr ? CustomFunctionTable::const_iterator() : table->find(ctx.key());
  if (table == nullptr || found == table->end()) {
    return ctx.Unsupported("its translation function is not loaded (pass the library with --translations)");
  }
  const ir::Function& function = found->second;
  std::vector<std::string> actuals;
  for (const pt2::NamedArgument& a : ctx.node().inputs) {
    if (a.arg.kind == Kind::kTensor) {
      PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.ValueOf(a.arg.name));
      actuals.push_back(value);
    } else if (a.arg.kind == Kind::kOptionalTensor || a.arg.kind == Kind::kNone) {
      std::string value;
      if (a.arg.kind == Kind::kOptionalTensor && a.arg.b) {
        PT2ONNX_ASSIGN_OR_RETURN(value, ctx.ValueOf(a.arg.name));
      }
      actuals.push_back(value);
    } else {
      return ctx.Unsupported(absl::StrCat("argument '", a.name, "' is not a tensor; translation functions "
                                          "take tensors only (no attributes)"));
    }
  }
  if (actuals.size() != function.inputs.size()) {
    return ctx.Invalid(absl::StrCat("its translation function takes ", function.inputs.size(),
                                    " inputs but the node passes ", actuals.size(), " tensors"));
  }
  if (static_cast<size_t>(ctx.num_outputs()) != function.outputs.size()) {
    return ctx.Invalid(absl::StrCat("its translation function returns ", function.outputs.size(),
                                    " values but the node has ", ctx.num_outputs(), " outputs"));
  }
  int64_t onnx_version = 0;
  for (const ir::OpsetImport& import : function.opset_imports) {
    if (import.domain.empty() || import.domain == "ai.onnx") {
      onnx_version = import.version;
    } else if (env->domains != nullptr) {
      auto [it, inserted] = env->domains->emplace(import.domain, import.version);
      if (!inserted && it->second != import.version) {
        return ctx.Invalid(absl::StrCat("domain '", import.domain, "' is imported at versions ", it->second,
                                        " and ", import.version));
      }
    }
  }
  if (onnx_version > ctx.opset()) {
    return ctx.Unsupported(absl::StrCat("its translation function needs ONNX opset ", onnx_version,
                                        "; convert with --opset ", onnx_version, " or above"));
  }
  PT2ONNX_RETURN_IF_ERROR(CheckBody(ctx, function));
  if (env->functions_as_local) return CallLocalFunction(ctx, function, std::move(actuals));
  absl::flat_hash_map<std::string, std::string> names;
  for (size_t i = 0; i < actuals.size(); ++i) names[function.inputs[i]] = actuals[i];
  for (const ir::Node& node : function.nodes) {
    std::vector<std::string> inputs;
    for (const std::string& in : node.inputs) inputs.push_back(in.empty() ? "" : names.at(in));
    std::vector<std::string> outputs = ctx.AddNode(node.op_type, std::move(inputs), node.attributes,
                                                   static_cast<int>(node.outputs.size()), node.domain);
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!node.outputs[i].empty()) names.emplace(node.outputs[i], outputs[i]);
    }
  }
  for (size_t i = 0; i < function.outputs.size(); ++i) {
    if (ctx.node().outputs[i].kind == Kind::kNone) continue;
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(static_cast<int>(i), names.at(function.outputs[i])));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddCustomTranslations(const std::vector<ir::Function>& library, bool override_builtins,
                                   OpRegistry& registry, CustomFunctionTable& table) {
  for (const ir::Function& function : library) {
    if (function.domain.empty() || function.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "translation function '", function.name, "' has no domain; the domain is the operator's "
          "namespace (e.g. domain 'mylib', name 'fused_gelu.default')"));
    }
    if (function.name.find('.') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "translation function '", function.domain, "::", function.name,
          "': the name must be '<op>.<overload>' (e.g. 'fused_gelu.default')"));
    }
    const std::string key = absl::StrCat(function.domain, "::", function.name);
    if (table.count(key) > 0) {
      return absl::InvalidArgumentError(absl::StrCat("translation function '", key, "' is defined twice"));
    }
    if (registry.Contains(key)) {
      if (!override_builtins) {
        return absl::AlreadyExistsError(absl::StrCat(
            "translation function '", key, "' conflicts with pt2onnx's own translation of that "
            "operator; pass --override to use the library's"));
      }
      registry.Remove(key);
    }
    registry.Add(key, TranslateWithFunction);
    table.emplace(key, function);
  }
  return absl::OkStatus();
}

absl::Status AddLocalFunctions(const CustomFunctionTable& table, const std::set<std::string>& called,
                               int64_t opset, std::map<std::string, int64_t>& domains, ir::Model& model) {
  for (const std::string& key : called) {
    auto found = table.find(key);
    if (found == table.end()) continue;
    ir::Function function = found->second;
    bool has_onnx = false;
    for (ir::OpsetImport& import : function.opset_imports) {
      if (import.domain.empty() || import.domain == "ai.onnx") {
        import.version = opset;
        has_onnx = true;
      }
    }
    if (!has_onnx) function.opset_imports.push_back({"", opset});
    auto [it, inserted] = domains.emplace(function.domain, 1);
    if (!inserted && it->second != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "translation function '", key, "': its domain '", function.domain, "' is also imported at "
          "version ", it->second, "; local functions are called at version 1 (inline it instead: drop "
          "--translations-as-functions)"));
    }
    model.functions.push_back(std::move(function));
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::translate
