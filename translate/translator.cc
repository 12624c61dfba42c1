#include "translate/translator.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/pt2/sym_expr.h"
#include "core/pt2/symbol_order.h"
#include "core/status_macros.h"
#include "translate/context_wrappers.h"
#include "translate/custom_translations.h"
#include "translate/fx_values.h"
#include "translate/graph_builder.h"
#include "translate/metadata.h"
#include "translate/program_checks.h"
#include "translate/subgraph.h"
#include "translate/renames.h"
#include "core/aten/op_schema.h"
#include "translate/translate_context.h"
#include "translate/view_mutations.h"
#include "translate/weight_initializers.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

constexpr char kOutputKindKey[] = "pkg.torch.export.graph_signature.OutputSpec.kind";

// The model's IR version: 10 up to opset 22 (what every release since onnx
// 1.16 reads), then the IR each opset was released with (onnx/helper.py
// VERSION_TABLE: 23 -> 11, 24 -> 12, 25 and 26 -> 13).
int64_t IrVersionForOpset(int opset) {
  if (opset >= 25) return 13;
  if (opset == 24) return 12;
  if (opset == 23) return 11;
  return 10;
}

// Translator state for one program.
class ProgramTranslator {
 public:
  ProgramTranslator(const pt2::ExportedProgram& program, const pt2::WeightTable& weights,
                    const OpRegistry& registry, const TranslateOptions& options)
      : program_(program),
        weights_(weights),
        registry_(registry),
        options_(options),
        schema_table_(options.schema_table != nullptr ? *options.schema_table
                                                      : aten::SchemaTable::Default()),
        users_(CountUsers(program.graph)),
        builder_(program.graph, users_) {
    subgraph_env_.registry = &registry_;
    subgraph_env_.schema_table = &schema_table_;
    subgraph_env_.opset = options_.opset;
    subgraph_env_.dim_names = &options_.dim_names;
    subgraph_env_.domains = &domains_;
    subgraph_env_.functions = options_.custom_functions;
    subgraph_env_.functions_as_local = options_.custom_functions_as_local;
    subgraph_env_.called_functions = &called_functions_;
    builder_.set_environment(&subgraph_env_);
  }

  absl::StatusOr<ir::Model> Run() {
    for (const auto& [name, meta] : program_.graph.tensor_values) builder_.Take(name);
    PT2ONNX_RETURN_IF_ERROR(CheckDimNames(program_, options_.dim_names));
    PT2ONNX_RETURN_IF_ERROR(AddInputs());
    const size_t total = program_.graph.nodes.size();
    const size_t step = std::max<size_t>(1, total / 50);
    for (size_t i = 0; i < total; ++i) {
      PT2ONNX_RETURN_IF_ERROR(TranslateNode(program_.graph.nodes[i]));
      if (options_.on_progress && (i + 1) % step == 0 && i + 1 < total) {
        options_.on_progress(static_cast<double>(i + 1) / total);
      }
    }
    PT2ONNX_RETURN_IF_ERROR(AddOutputs());
    PT2ONNX_RETURN_IF_ERROR(CheckNameCount(options_.input_names, builder_.graph().inputs.size(), "input"));
    PT2ONNX_RETURN_IF_ERROR(CheckNameCount(options_.output_names, builder_.graph().outputs.size(), "output"));
    AddIntermediateValueInfo(builder_, options_);
    PT2ONNX_RETURN_IF_ERROR(ApplyRenames(renames_, builder_.graph()));

    ir::Model model;
    model.ir_version = IrVersionForOpset(options_.opset);
    model.opset_imports.push_back(ir::OpsetImport{"", options_.opset});
    if (options_.custom_functions != nullptr) {
      PT2ONNX_RETURN_IF_ERROR(AddLocalFunctions(*options_.custom_functions, called_functions_,
                                                options_.opset, domains_, model));
    }
    for (const auto& [domain, version] : domains_) model.opset_imports.push_back({domain, version});
    model.producer_name = "pt2onnx";
    model.producer_version = options_.producer_version;
    model.graph = std::move(builder_.graph());
    model.graph.metadata = GraphMetadata(program_);
    std::vector<std::string> complex_outputs;
    for (const ir::ValueInfo& out : model.graph.outputs) {
      for (const auto& [key, value] : out.metadata) {
        if (key == kComplexOutputKey) complex_outputs.push_back(out.name);
      }
    }
    if (!complex_outputs.empty()) {
      model.metadata.emplace_back(kComplexOutputsKey, absl::StrJoin(complex_outputs, ","));
    }
    return model;
  }

 private:
  absl::Status AddInputs() {
    ir::Graph& graph = builder_.graph();
    size_t user_index = 0;
    for (const pt2::InputSpec& spec : program_.signature.input_specs) {
      const Argument& arg = spec.arg;
      switch (spec.kind) {
        case pt2::InputSpec::Kind::kUserInput: {
          if (arg.kind == Kind::kTensor) {
            const pt2::TensorMeta* meta = builder_.Meta(arg.name);
            if (meta == nullptr) {
              return absl::InvalidArgumentError(
                  absl::StrCat("user input '", arg.name, "' has no tensor metadata"));
            }
            std::string name = arg.name;
            PT2ONNX_RETURN_IF_ERROR(ClaimGraphName(name, "user input"));
            if (user_index < options_.input_names.size()) {
              renames_[name] = options_.input_names[user_index];
            }
            ir::ValueInfo info = ValueInfoFromMeta(name, *meta, options_);
            info.metadata.emplace_back(kInputKindKey, "USER_INPUT");
            graph.inputs.push_back(std::move(info));
            builder_.Bind(arg.name, name);
            builder_.MarkExternal(name);
            ++user_index;
          } else if ((arg.kind == Kind::kSymInt || arg.kind == Kind::kSymFloat ||
                      arg.kind == Kind::kSymBool) && arg.sym.is_name) {
            DataType dtype = arg.kind == Kind::kSymInt    ? DataType::kInt64
                             : arg.kind == Kind::kSymBool ? DataType::kBool
                                                          : DataType::kFloat;
            // Symbolic scalars are graph inputs too, so --input-names counts
            // them, in graph order (as torch.onnx's input_names does).
            if (user_index < options_.input_names.size()) {
              renames_[arg.sym.name] = options_.input_names[user_index];
            }
            PT2ONNX_RETURN_IF_ERROR(ClaimGraphName(arg.sym.name, "user input"));
            ir::ValueInfo info = ScalarInfo(arg.sym.name, dtype);
            info.metadata.emplace_back(kInputKindKey, "USER_INPUT");
            graph.inputs.push_back(std::move(info));
            builder_.Bind(arg.sym.name, arg.sym.name);
            builder_.MarkExternal(arg.sym.name);
            ++user_index;
          }
          // Other user inputs (ints, strings, None) were specialised into the
          // graph at export time: nothing reads them.
          break;
        }
        case pt2::InputSpec::Kind::kParameter:
        case pt2::InputSpec::Kind::kBuffer:
        case pt2::InputSpec::Kind::kTensorConstant:
          PT2ONNX_RETURN_IF_ERROR(AddWeight(spec));
          break;
        case pt2::InputSpec::Kind::kCustomObj:
          return absl::UnimplementedError(absl::StrCat(
              "the program uses the TorchScript object '", spec.target,
              "' (custom class); ONNX has no equivalent. Export the model without torchbind objects."));
        case pt2::InputSpec::Kind::kToken:
          // Effect tokens order side effects; ONNX graphs have none.
          break;
        case pt2::InputSpec::Kind::kConstantInput:
          break;
      }
    }
    return absl::OkStatus();
  }

  // The payload config (or pickle) and the graph's placeholder metadata must
  // agree on dtype and static sizes: the model is typed from the graph and
  // filled from the weights.
  // Graph inputs and initializers share one namespace in ONNX: each name once.
  absl::Status ClaimGraphName(const std::string& name, absl::string_view what) {
    auto [it, inserted] = graph_names_.emplace(name, std::string(what));
    if (inserted) return absl::OkStatus();
    if (it->second == what) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", what, " '", name, "' appears twice in the program's input specs"));
    }
    return absl::UnimplementedError(absl::StrCat(
        "a user input and a stored tensor are both named '", name,
        "'; rename the forward() argument and export again"));
  }

  absl::Status AddWeight(const pt2::InputSpec& spec) {
    const pt2::Weight* weight = weights_.Find(spec.target);
    if (weight == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "the program's ", pt2::InputKindName(spec.kind), " '", spec.target,
          "' has no stored tensor in the archive; the .pt2 is incomplete (was it saved with "
          "torch.export.save?)"));
    }
    PT2ONNX_RETURN_IF_ERROR(CheckWeightAgainstGraph(spec, *weight, builder_.Meta(spec.arg.name)));
    PT2ONNX_RETURN_IF_ERROR(ClaimGraphName(spec.target, "stored tensor"));
    return AddWeightInitializer(spec, *weight, options_.max_materialized_bytes,
                                materialized_bytes_, builder_);
  }

  absl::Status TranslateNode(const pt2::Node& fx_node) {
    std::string key = TargetToKey(fx_node.target);
    const OpEntry* entry = registry_.Find(key, options_.opset);
    if (entry == nullptr) {
      return absl::InternalError(absl::StrCat("no translation for ", key));  // checked earlier
    }
    // Older files (schema < 8.17) carry no node name: use the first output's.
    pt2::Node named;
    const pt2::Node* node = &fx_node;
    if (fx_node.name.empty()) {
      named = fx_node;
      std::vector<std::string> names = DefinedNames(fx_node);
      named.name = names.empty() ? absl::StrCat("node_", node_counter_) : names[0];
      node = &named;
    }
    ++node_counter_;
    size_t first_node = builder_.graph().nodes.size();
    const OpSchema* schema = schema_table_.Find(key);
    PT2ONNX_RETURN_IF_ERROR(CheckNodeArguments(*node, key, schema));
    TranslateContext ctx(builder_, *node, schema, options_.opset);
    absl::Status status = entry->fn(ctx);
    if (status.ok()) status = ctx.Commit();
    if (!status.ok()) return status;
    StampNodes(*node, first_node);
    return absl::OkStatus();
  }

  // Names (node_<first output>) and torch.onnx metadata for the nodes one
  // FX node produced.
  void StampNodes(const pt2::Node& node, size_t first_node) {
    ir::Graph& graph = builder_.graph();
    if (first_node == graph.nodes.size()) return;
    NodeMetadata meta = BuildNodeMetadata(node, users_);
    for (size_t i = first_node; i < graph.nodes.size(); ++i) {
      ir::Node& n = graph.nodes[i];
      n.name = absl::StrCat("node_", n.outputs.empty() ? node.name : n.outputs[0]);
      n.metadata = meta.AsProps();
    }
  }

  absl::Status AddOutputs() {
    // The FX graph's own output list must name values that exist, even where
    // the signature (which the ONNX outputs follow) does not read them.
    for (const Argument& out : program_.graph.outputs) {
      std::vector<std::string> names;
      if (out.kind == Kind::kTensor) names.push_back(out.name);
      if (out.kind == Kind::kTensors) names = out.names;
      if ((out.kind == Kind::kSymInt || out.kind == Kind::kSymFloat ||
           out.kind == Kind::kSymBool) && out.sym.is_name) {
        names.push_back(out.sym.name);
      }
      for (const std::string& name : names) {
        if (!builder_.IsBound(name)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the graph's output '", name, "' names no input or node output"));
        }
      }
    }
    ir::Graph& graph = builder_.graph();
    absl::flat_hash_set<std::string> used;
    size_t user_index = 0;
    for (size_t i = 0; i < program_.signature.output_specs.size(); ++i) {
      const pt2::OutputSpec& spec = program_.signature.output_specs[i];
      if (spec.kind != pt2::OutputSpec::Kind::kUserOutput) continue;  // mutations, tokens
      const Argument& arg = spec.arg;
      std::string fx_name;
      DataType dtype = DataType::kUndefined;
      if (arg.kind == Kind::kTensor) {
        fx_name = arg.name;
      } else if ((arg.kind == Kind::kSymInt || arg.kind == Kind::kSymFloat ||
                  arg.kind == Kind::kSymBool) && arg.sym.is_name) {
        fx_name = arg.sym.name;
        dtype = arg.kind == Kind::kSymInt ? DataType::kInt64
                : arg.kind == Kind::kSymBool ? DataType::kBool : DataType::kFloat;
      } else {
        return absl::UnimplementedError(absl::StrCat(
            "user output ", user_index, " is a constant (not a tensor); ONNX graphs can only "
            "return tensors. Return a tensor from forward()."));
      }
      PT2ONNX_ASSIGN_OR_RETURN(std::string value, builder_.Lookup(fx_name));
      std::string name = value;
      // An output must be produced by a node of its own: inputs, weights and
      // repeated outputs get an Identity.
      if (builder_.IsExternal(value) || used.contains(value)) {
        name = used.contains(value) ? absl::StrCat(fx_name, "__", i) : fx_name;
        if (name == value) name = absl::StrCat(fx_name, "_output");
        ir::Node identity;
        identity.op_type = "Identity";
        identity.name = absl::StrCat("node_", name);
        identity.inputs = {value};
        identity.outputs = {name};
        graph.nodes.push_back(std::move(identity));
      }
      used.insert(name);
      ir::ValueInfo info;
      const pt2::TensorMeta* meta = builder_.Meta(fx_name);
      if (meta != nullptr) {
        info = ValueInfoFromMeta(name, *meta, options_);
      } else {
        info = ScalarInfo(name, dtype);
      }
      info = ComplexOutputAsReal(std::move(info));
      info.metadata.emplace_back(kOutputKindKey, "USER_OUTPUT");
      if (user_index < options_.output_names.size()) {
        renames_[name] = options_.output_names[user_index];
      }
      graph.outputs.push_back(std::move(info));
      ++user_index;
    }
    if (graph.outputs.empty()) {
      return absl::InvalidArgumentError(
          "the program returns no tensor; an ONNX model needs at least one output");
    }
    return absl::OkStatus();
  }

  const pt2::ExportedProgram& program_;
  const pt2::WeightTable& weights_;
  const OpRegistry& registry_;
  const TranslateOptions& options_;
  const aten::SchemaTable& schema_table_;
  const GraphBuilder::UseCounts users_;  // before builder_, which keeps a reference
  GraphBuilder builder_;
  SubgraphEnvironment subgraph_env_;
  std::map<std::string, int64_t> domains_;  // custom-domain opset imports
  std::set<std::string> called_functions_;   // custom functions kept as local functions
  std::map<std::string, std::string> renames_;
  std::map<std::string, std::string> graph_names_;  // name -> what it is
  uint64_t materialized_bytes_ = 0;
  int64_t node_counter_ = 0;
};

}  // namespace

absl::StatusOr<ir::Model> TranslateProgram(const pt2::ExportedProgram& program,
                                           const pt2::WeightTable& weights,
                                           const OpRegistry& registry,
                                           const TranslateOptions& options) {
  if (options.opset < kMinOpset || options.opset > kMaxOpset) {
    return absl::InvalidArgumentError(absl::StrCat("opset ", options.opset,
                                                   " is not supported; choose ", kMinOpset,
                                                   "..", kMaxOpset, " (default ", kDefaultOpset, ")"));
  }
  std::vector<UnsupportedOp> unsupported = FindUnsupportedOps(program.graph, registry, options.opset);
  if (!unsupported.empty()) return UnsupportedOpsError(unsupported, registry, options.opset);
  // no_grad / autocast regions are inlined into a flat copy of the program,
  // then writes through slice/select views are made explicit.
  const pt2::ExportedProgram* to_translate = &program;
  std::optional<pt2::ExportedProgram> flat;
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<pt2::Graph> flat_graph,
                           InlineContextWrappers(program.graph));
  if (flat_graph.has_value()) {
    flat = program;
    flat->graph = *std::move(flat_graph);
    to_translate = &*flat;
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<pt2::ExportedProgram> written,
                           WriteBackViewMutations(*to_translate));
  if (written.has_value()) to_translate = &*written;
  return ProgramTranslator(*to_translate, weights, registry, options).Run();
}

}  // namespace pt2onnx::translate
