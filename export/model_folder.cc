#include "export/model_folder.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/onnx/shared_external_data.h"
#include "core/pt2/sym_expr.h"
#include "core/pt2/treespec.h"
#include "core/status_macros.h"
#include "export/exit_codes.h"
#include "export/folder_manifest_json.h"
#include "passes/static_kv_cache.h"

namespace pt2onnx {
namespace {

// transformers' rule (exporters/utils.py, disambiguate_io_names): a path
// both taken and returned (a cache updated in place) is "input.<path>" and
// "output.<path>".
void Disambiguate(std::vector<std::string>& inputs, std::vector<std::string>& outputs) {
  std::set<std::string> in(inputs.begin(), inputs.end());
  for (std::string& out : outputs) {
    if (!in.count(out)) continue;
    for (std::string& name : inputs) {
      if (name == out) name = "input." + name;
    }
    out = "output." + out;
  }
}

// The flat names of a spec: dotted leaf paths, as transformers'
// get_leaf_tensors writes them. The input spec is (args, kwargs): its names
// drop that first level.
absl::StatusOr<std::vector<std::string>> LeafNames(absl::string_view spec, bool args_kwargs) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<pt2::LeafPath> leaves, pt2::TreeSpecLeafPaths(spec));
  std::vector<std::string> names;
  for (pt2::LeafPath& path : leaves) {
    if (args_kwargs && !path.empty()) path.erase(path.begin());
    names.push_back(path.empty() ? "output" : absl::StrJoin(path, "."));
  }
  return names;
}

bool IsTokenInput(absl::string_view name) {
  return name == "input_ids" || name == "position_ids" || name == "attention_mask" || name == "inputs_embeds" ||
         name == "token_type_ids" || name == "cache_position";
}

bool IsCacheTensor(absl::string_view name) {
  return absl::StrContains(name, "past_key_values.") &&
         (absl::EndsWith(name, ".keys") || absl::EndsWith(name, ".values"));
}

// Names for the symbolic dims of the inputs, by role: a dim 0 is the batch,
// dim 1 of token inputs the sequence (of decoder_input_ids the decoder's),
// dim 1 of the encoder's output and dim 2 of a cross-attention cache the
// encoder's sequence, dim 2 of another cache tensor the past sequence. A symbol keeps its first name; a second symbol in the same role
// (a sliding layer's past beside a full one's) gets "_2", then "_3".
std::map<std::string, std::string> DimNames(const pt2::ExportedProgram& program,
                                            const std::vector<std::string>& input_names) {
  std::map<std::string, std::string> names;
  std::map<std::string, int> taken;  // role -> symbols named for it
  size_t i = 0;
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    if (spec.kind != pt2::InputSpec::Kind::kUserInput) continue;
    const size_t index = i++;
    if (index >= input_names.size() || spec.arg.kind != pt2::Argument::Kind::kTensor) continue;
    auto meta = program.graph.tensor_values.find(spec.arg.name);
    if (meta == program.graph.tensor_values.end()) continue;
    const std::string& input = input_names[index];
    for (size_t d = 0; d < meta->second.sizes.size(); ++d) {
      const pt2::SymInt& size = meta->second.sizes[d];
      if (!size.is_symbolic) continue;
      std::string role;
      if (d == 0) {
        role = "batch_size";
      } else if (d == 1 && IsTokenInput(input)) {
        role = "sequence_length";
      } else if (d == 1 && input == "decoder_input_ids") {
        role = "decoder_sequence_length";
      } else if ((d == 1 && absl::StartsWith(input, "encoder_outputs.")) ||
                 (d == 2 && IsCacheTensor(input) && absl::StrContains(input, "cross_attention_cache."))) {
        role = "encoder_sequence_length";  // cross-attention keys/values span the encoder's output
      } else if (d == 2 && IsCacheTensor(input)) {
        role = "past_sequence_length";
      }
      const std::string symbol = pt2::SymExprToString(size.expr);
      const std::vector<std::string> parts = pt2::SymExprSymbols(size.expr);
      const bool bare = parts.size() == 1 && parts[0] == symbol;
      if (role.empty() || !bare || names.count(symbol)) continue;
      const int n = ++taken[role];
      names[symbol] = n == 1 ? role : absl::StrCat(role, "_", n);
    }
  }
  return names;
}

size_t CountUserInputs(const pt2::ExportedProgram& program) {
  size_t n = 0;
  for (const pt2::InputSpec& spec : program.signature.input_specs) n += spec.kind == pt2::InputSpec::Kind::kUserInput;
  return n;
}

size_t CountUserOutputs(const pt2::ExportedProgram& program) {
  size_t n = 0;
  for (const pt2::OutputSpec& spec : program.signature.output_specs) {
    n += spec.kind == pt2::OutputSpec::Kind::kUserOutput;
  }
  return n;
}

FolderExportResult Failed(FolderExportResult result, int code, const std::string& file, const absl::Status& status) {
  result.exit_code = code;
  result.failed_file = file;
  result.status = absl::Status(status.code(), absl::StrCat(file, ": ", status.message()));
  return result;
}

// Prefixes each report line with the component.
class ComponentProgress : public ExportProgress {
 public:
  ComponentProgress(ExportProgress& base, std::string name) : base_(base), name_(std::move(name)) {}
  void Line(absl::string_view line) override { base_.Line(absl::StrCat(name_, ": ", line)); }
  void Stage(absl::string_view stage, double fraction) override { base_.Stage(stage, fraction); }

 private:
  ExportProgress& base_;
  std::string name_;
};

}  // namespace

absl::StatusOr<FolderManifest> ParseFolderManifest(absl::string_view json) {
  PT2ONNX_ASSIGN_OR_RETURN(FolderManifestFields fields, ReadFolderManifestFields(json));
  FolderManifest manifest;
  manifest.schema_version = fields.schema_version;
  manifest.export_format = fields.export_format;
  manifest.text = std::string(json);
  if (manifest.schema_version > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "export.json has schema_version ", manifest.schema_version,
        "; this build reads version 1 (re-save the export with transformers 5.23, or update pt2onnx)"));
  }
  if (manifest.export_format != "dynamo") {
    return absl::InvalidArgumentError(absl::StrCat(
        "export.json's export_format is '", manifest.export_format,
        "'; pt2onnx converts folders of .pt2 programs, \"dynamo\" (DynamoExporter().export_for_generation(...)"
        ".save_pretrained(dir))"));
  }
  std::set<std::string> names, files;
  for (const FolderManifestFields::Component& c : fields.components) {
    if (!names.insert(c.name).second || !files.insert(c.file).second) {
      return absl::InvalidArgumentError(absl::StrCat("export.json lists component '", c.name, "' (file '", c.file,
                                                     "') twice"));
    }
    FolderComponent component;
    component.name = c.name;
    component.file = c.file;
    if (c.file.empty() || absl::StrContains(c.file, "/") || absl::StrContains(c.file, "\\") || c.file == "." ||
        c.file == ".." || c.name.empty() || absl::StrContains(c.name, "/") || c.name == "." || c.name == "..") {
      return absl::InvalidArgumentError(absl::StrCat("export.json: component '", c.name, "' has file '", c.file,
                                                     "': a component must be a file of the folder itself"));
    }
    absl::StatusOr<std::vector<std::string>> inputs = LeafNames(c.in_spec, /*args_kwargs=*/true);
    absl::StatusOr<std::vector<std::string>> outputs = LeafNames(c.out_spec, /*args_kwargs=*/false);
    if (!inputs.ok() || !outputs.ok()) {
      const absl::Status& bad = inputs.ok() ? outputs.status() : inputs.status();
      return absl::InvalidArgumentError(absl::StrCat("export.json: component '", c.name, "': ", bad.message()));
    }
    component.input_names = *std::move(inputs);
    component.output_names = *std::move(outputs);
    Disambiguate(component.input_names, component.output_names);
    manifest.components.push_back(std::move(component));
  }
  if (manifest.components.empty()) return absl::InvalidArgumentError("export.json lists no components");
  return manifest;
}

FolderExportResult ExportFolder(const FolderManifest& manifest, FolderInput& input, const ExportOptions& options,
                                FolderSinks& sinks, ExportProgress& progress) {
  FolderExportResult result;
  std::vector<ExportResult> exported;
  std::vector<std::shared_ptr<const InputFile>> component_files;
  for (const FolderComponent& component : manifest.components) {
    absl::StatusOr<std::shared_ptr<const InputFile>> file = input.Open(component.file);
    if (!file.ok()) {
      absl::Status status = file.status();
      if (absl::IsNotFound(status)) {
        status = absl::NotFoundError(absl::StrCat(
            "export.json lists component '", component.name,
            "' in this file but the folder has no such file; copy the whole folder save_pretrained wrote"));
      }
      return Failed(std::move(result), kExitIo, component.file, status);
    }
    // Read once to count the program's inputs and outputs and find its dims.
    absl::StatusOr<std::shared_ptr<const pt2::LoadedProgram>> program = ReadPt2(*file, options.convert);
    if (!program.ok()) {
      return Failed(std::move(result), ExitCodeForConversion(program.status()), component.file, program.status());
    }
    const pt2::ExportedProgram& ep = (*program)->program;
    const size_t inputs = CountUserInputs(ep), outputs = CountUserOutputs(ep);
    if (inputs != component.input_names.size() || outputs != component.output_names.size()) {
      return Failed(std::move(result), kExitInvalidInput, component.file,
                    absl::InvalidArgumentError(absl::StrCat(
                        "export.json's specs give component '", component.name, "' ",
                        component.input_names.size(), " inputs and ", component.output_names.size(),
                        " outputs, the program has ", inputs, " and ", outputs,
                        "; the manifest does not belong to this file (re-save the export)")));
    }
    ExportOptions one = options;
    one.write = false;
    one.convert.translate.input_names = component.input_names;
    one.convert.translate.output_names = component.output_names;
    one.convert.translate.dim_names = DimNames(ep, component.input_names);
    one.input_name = component.file;
    one.output_name = component.name + ".onnx";
    NoExportSinks none;
    ComponentProgress lines(progress, component.name);
    ExportResult done = Export(*file, one, none, lines);
    if (!done.status.ok()) return Failed(std::move(result), done.exit_code, component.file, done.status);
    exported.push_back(std::move(done));
    component_files.push_back(*std::move(file));
  }
  if (options.convert.kv_cache == KvCacheForm::kStaticIfPresent) {
    bool any = false;
    for (const ExportResult& done : exported) {
      for (const auto& [key, value] : done.conversion->model.metadata) any |= key == passes::kKvCacheMetadataKey;
    }
    if (!any) {
      return Failed(std::move(result), kExitUnsupported, "export.json",
                    absl::UnimplementedError("--kv-cache static: no component of the folder has a growing key/value "
                                             "cache (export a decode component, or leave out --kv-cache)"));
    }
  }

  // The model's configs travel with it: transformers' loader reads them.
  std::vector<std::pair<std::string, std::string>> copies;
  for (const char* name : {"config.json", "generation_config.json"}) {
    absl::StatusOr<std::shared_ptr<const InputFile>> file = input.Open(name);
    if (!file.ok()) {
      if (absl::IsNotFound(file.status())) continue;
      return Failed(std::move(result), kExitIo, name, file.status());
    }
    absl::StatusOr<ByteSpan> bytes = (*file)->Read(FileRange{0, (*file)->size()});
    if (!bytes.ok()) return Failed(std::move(result), kExitIo, name, bytes.status());
    copies.emplace_back(name, std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  }

  std::vector<std::string> files;
  for (const auto& [name, bytes] : copies) files.push_back(name);
  for (const FolderComponent& component : manifest.components) {
    FolderComponentResult r;
    r.name = component.name;
    r.onnx_file = component.name + ".onnx";
    r.data_file = r.onnx_file + ".data";
    files.push_back(r.onnx_file);
    files.push_back(r.data_file);
    result.components.push_back(std::move(r));
  }
  files.push_back(kFolderManifestFile);
  progress.Stage("write", 0);
  if (absl::Status opened = sinks.Open(files); !opened.ok()) {
    return Failed(std::move(result), kExitIo, "output folder", opened);
  }
  onnx_writer::SharedExternalData shared;
  for (size_t i = 0; i < exported.size(); ++i) {
    FolderComponentResult& r = result.components[i];
    onnx_writer::WriteOptions write;
    // Always apart: transformers' loader expects <component>.onnx.data.
    write.external_data = onnx_writer::WriteOptions::ExternalData::kAlways;
    write.external_data_location = r.data_file;
    write.shared_data = &shared;
    write.include_initializers = options.include_weights;
    write.initializers_as_inputs = options.weights_as_inputs;
    absl::StatusOr<onnx_writer::WriteSummary> written =
        onnx_writer::WriteModel(exported[i].conversion->model, write, sinks.File(r.onnx_file), &sinks.File(r.data_file));
    if (!written.ok()) return Failed(std::move(result), kExitIo, r.onnx_file, written.status());
    r.written = *written;
    r.summary = exported[i].conversion->summary;
    progress.Line(absl::StrCat("wrote ", r.onnx_file, " (", HumanBytes(written->model_bytes), ") + ", r.data_file,
                               " (", HumanBytes(written->external_bytes), ")"));
  }
  result.shared_bytes = shared.reused_bytes();
  result.shared_tensors = shared.reused_tensors();
  absl::StatusOr<std::string> text = RenderOnnxFolderManifest(manifest);
  if (!text.ok()) return Failed(std::move(result), kExitInternal, kFolderManifestFile, text.status());
  if (absl::Status w = sinks.File(kFolderManifestFile).Write(AsBytes(*text)); !w.ok()) {
    return Failed(std::move(result), kExitIo, kFolderManifestFile, w);
  }
  for (const auto& [name, bytes] : copies) {
    if (absl::Status w = sinks.File(name).Write(AsBytes(bytes)); !w.ok()) return Failed(std::move(result), kExitIo, name, w);
  }
  if (absl::Status committed = sinks.Commit(); !committed.ok()) {
    return Failed(std::move(result), kExitIo, "output folder", committed);
  }
  // Moved only now: the shared-weights table may point into earlier components' models while writing.
  for (size_t i = 0; i < exported.size(); ++i) {
    FolderComponentResult& r = result.components[i];
    r.file = manifest.components[i].file;
    r.input = component_files[i];
    r.exported = std::move(exported[i]);
  }
  progress.Line(absl::StrCat("weights shared by the components, written once: ", result.shared_tensors,
                             " tensors, ", HumanBytes(result.shared_bytes)));
  return result;
}

}  // namespace pt2onnx
