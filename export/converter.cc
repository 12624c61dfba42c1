#include "export/converter.h"

#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/onnx/model_writer.h"
#include "core/pt2/pt2_reader.h"
#include "core/pt2/sym_expr.h"
#include "core/status_macros.h"
#include "core/version.h"
#include "ops/all_ops.h"
#include "translate/fx_values.h"
#include "translate/registry.h"
#include "passes/pass_manager.h"
#include "passes/static_kv_cache.h"

namespace pt2onnx {
namespace {

std::vector<SymbolicDimSummary> SymbolicDims(const pt2::ExportedProgram& program,
                                             const translate::TranslateOptions& options) {
  std::vector<SymbolicDimSummary> dims;
  std::set<std::string> seen;
  auto add = [&](const pt2::Argument& arg) {
    if (arg.kind != pt2::Argument::Kind::kTensor) return;
    auto meta = program.graph.tensor_values.find(arg.name);
    if (meta == program.graph.tensor_values.end()) return;
    for (const pt2::SymInt& size : meta->second.sizes) {
      if (!size.is_symbolic) continue;
      std::string symbol = pt2::SymExprToString(size.expr);
      if (!seen.insert(symbol).second) continue;
      auto range = program.range_constraints.find(symbol);
      // As the graph writes it (an expression renamed with its symbols).
      dims.push_back(SymbolicDimSummary{
          symbol, translate::ToDim(size, options).param,
          range == program.range_constraints.end() ? std::nullopt
                                                   : std::optional<pt2::RangeConstraint>(range->second)});
    }
  };
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    if (spec.kind == pt2::InputSpec::Kind::kUserInput) add(spec.arg);
  }
  for (const pt2::OutputSpec& spec : program.signature.output_specs) {
    if (spec.kind == pt2::OutputSpec::Kind::kUserOutput) add(spec.arg);
  }
  return dims;
}

}  // namespace

absl::StatusOr<Conversion> ConvertPt2(ByteSpan file, const ConvertOptions& options,
                                      const ProgressFn& progress) {
  return ConvertPt2(std::make_shared<MemoryFile>(file), options, progress);
}

absl::StatusOr<Conversion> ConvertPt2(std::shared_ptr<const InputFile> file,
                                      const ConvertOptions& options, const ProgressFn& progress) {
  const uint64_t file_size = file->size();
  PT2ONNX_ASSIGN_OR_RETURN(std::shared_ptr<const pt2::LoadedProgram> loaded,
                           ReadPt2(std::move(file), options, progress));
  return ConvertProgram(std::move(loaded), file_size, options, progress);
}

absl::StatusOr<std::shared_ptr<const pt2::LoadedProgram>> ReadPt2(std::shared_ptr<const InputFile> file,
                                                                   const ConvertOptions& options,
                                                                   const ProgressFn& progress) {
  if (progress) progress("read", 0);
  PT2ONNX_ASSIGN_OR_RETURN(pt2::LoadedProgram loaded, pt2::LoadPt2(std::move(file), options.model_name,
                                                                options.verify_weight_crc));
  if (progress) progress("read", 1);
  return std::make_shared<const pt2::LoadedProgram>(std::move(loaded));
}

namespace {

// --kv-cache static after the optimizations: attention fusion decides which
// Attention nodes read the buffers whole.
absl::StatusOr<passes::StaticKvCacheLayout> ApplyKvCacheForm(ir::Model& model, const ConvertOptions& options) {
  PT2ONNX_ASSIGN_OR_RETURN(passes::StaticKvCacheLayout layout, passes::MakeKvCacheStatic(model));
  if (!layout.groups.empty() || options.kv_cache == KvCacheForm::kStaticIfPresent) return layout;
  return absl::UnimplementedError(
      "--kv-cache static: the program has no growing key/value cache (a graph input concatenated with new "
      "entries along a symbolic sequence dim and returned as an output); convert a decode-step program, or "
      "leave out --kv-cache");
}

}  // namespace

absl::StatusOr<Conversion> ConvertProgram(std::shared_ptr<const pt2::LoadedProgram> program, uint64_t file_size,
                                          const ConvertOptions& options, const ProgressFn& progress) {
  auto report = [&](absl::string_view stage, double fraction) {
    if (progress) progress(stage, fraction);
  };
  const pt2::LoadedProgram& loaded = *program;
  report("translate", 0);
  std::optional<translate::OpRegistry> own_registry;
  if (options.registry == nullptr) own_registry = ops::CreateDefaultRegistry();
  const translate::OpRegistry& registry = options.registry != nullptr ? *options.registry : *own_registry;
  translate::TranslateOptions translate = options.translate;
  translate.max_materialized_bytes = file_size + translate::kMaterializeSlackBytes;
  if (progress) translate.on_progress = [&](double fraction) { progress("translate", fraction); };
  if (translate.producer_version.empty()) translate.producer_version = kPt2OnnxVersion;
  PT2ONNX_ASSIGN_OR_RETURN(ir::Model model,
                           translate::TranslateProgram(loaded.program, loaded.weights, registry, translate));
  report("translate", 1);

  const int64_t translated_nodes = static_cast<int64_t>(model.graph.nodes.size());
  std::vector<passes::PassStats> pass_stats;
  if (options.optimize) {
    report("optimize", 0);
    PT2ONNX_ASSIGN_OR_RETURN(passes::Pipeline pipeline, passes::BuildPipeline(options.passes));
    PT2ONNX_RETURN_IF_ERROR(passes::RunPipeline(pipeline, model, options.passes, &pass_stats));
    report("optimize", 1);
  }
  passes::StaticKvCacheLayout kv_cache;
  if (options.kv_cache != KvCacheForm::kDynamic) {
    PT2ONNX_ASSIGN_OR_RETURN(kv_cache, ApplyKvCacheForm(model, options));
  }

  // Structural check of every result before a front end writes it: a graph
  // that breaks the IR invariants is the converter's bug, never exit 0.
  if (absl::Status verified = ir::Verify(model.graph); !verified.ok()) {
    return absl::InternalError(absl::StrCat("the converted graph failed the structural check: ",
                                            verified.message(), " (please report this file)"));
  }

  Conversion result;
  ConversionSummary& s = result.summary;
  s.layout = loaded.layout == pt2::Layout::kPt2Archive ? "PT2 archive" : "legacy zip (torch 2.6/2.7)";
  s.torch_version = loaded.program.torch_version;
  s.schema_major = loaded.program.schema_major;
  s.schema_minor = loaded.program.schema_minor;
  s.fx_nodes = static_cast<int64_t>(loaded.program.graph.nodes.size());
  s.onnx_nodes = static_cast<int64_t>(model.graph.nodes.size());
  s.onnx_nodes_before_optimize = translated_nodes;
  for (const ir::Node& node : model.graph.nodes) ++s.op_histogram[node.op_type];
  for (const ir::Initializer& init : model.graph.initializers) s.parameters += init.tensor.numel();
  s.initializer_bytes = onnx_writer::InitializerBytes(model);
  s.symbolic_dims = SymbolicDims(loaded.program, options.translate);
  s.kv_cache = std::move(kv_cache);
  result.model = std::move(model);
  result.warnings = loaded.warnings;
  result.pass_stats = std::move(pass_stats);
  result.program = std::move(program);
  return result;
}

}  // namespace pt2onnx
