#include "core/pt2/pt2_reader.h"

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"
#include "core/pt2/program_json.h"
#include "core/pt2/torch_save.h"
#include "core/status_macros.h"
#include "core/status_util.h"

namespace pt2onnx::pt2 {
namespace {

using archive::ZipArchive;
using archive::ZipEntry;

absl::StatusOr<ZipArchive> OpenZip(std::shared_ptr<const InputFile> file) {
  uint8_t magic[2] = {0, 0};
  if (file->size() >= 4) {
    // A file that cannot be read is an I/O problem, not a bad format.
    PT2ONNX_RETURN_IF_ERROR(file->ReadInto(0, absl::MakeSpan(magic)));
  }
  // An empty file is named as such: "no ZIP header" would send the user looking for a format problem
  // when the file was never written (an interrupted save, a failed download).
  if (file->size() == 0) {
    return absl::InvalidArgumentError(
        "not a .pt2 file: the file is empty (0 bytes). pt2onnx reads the archives written by "
        "torch.export.save(ep, 'model.pt2'); save or download the file again");
  }
  if (file->size() < 4 || magic[0] != 'P' || magic[1] != 'K') {
    return absl::InvalidArgumentError(
        "not a .pt2 file: it does not start with a ZIP header. pt2onnx reads the archives "
        "written by torch.export.save(ep, 'model.pt2')");
  }
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(std::move(file));
  if (!zip.ok() && zip.status().code() != absl::StatusCode::kUnavailable) {
    return AnnotateStatus(zip.status(), "not a readable .pt2 archive (is the file truncated?)");
  }
  return zip;
}

// Root folder of a PT2 archive ("model/"), or nullopt if this is not one.
std::optional<std::string> FindPt2Root(const ZipArchive& zip) {
  for (const ZipEntry& e : zip.entries()) {
    if (e.name == "archive_format" || absl::EndsWith(e.name, "/archive_format")) {
      return e.name.substr(0, e.name.size() - std::string("archive_format").size());
    }
  }
  return std::nullopt;
}

std::vector<std::string> ModelNames(const ZipArchive& zip, const std::string& root) {
  std::vector<std::string> names;
  std::string prefix = absl::StrCat(root, "models/");
  for (const ZipEntry& e : zip.entries()) {
    absl::string_view name = e.name;
    if (absl::ConsumePrefix(&name, prefix) && absl::ConsumeSuffix(&name, ".json") &&
        !absl::StrContains(name, '/')) {
      names.emplace_back(name);
    }
  }
  return names;
}

absl::Status AddPayloadWeights(const ZipArchive& zip, const std::string& dir,
                               absl::string_view config_json, absl::string_view config_name,
                               LoadedProgram& loaded) {
  absl::StatusOr<std::vector<std::pair<std::string, PayloadMeta>>> config =
      ParsePayloadConfig(config_json);
  if (!config.ok()) return AnnotateStatus(config.status(), config_name);
  for (const auto& [fqn, meta] : *config) {
    if (!meta.tensor_meta.has_value()) {
      // Custom (TorchScript) objects: kept out of the table; the translator
      // reports them if the graph uses them.
      loaded.warnings.push_back(absl::StrCat("skipped non-tensor constant '", fqn, "'"));
      continue;
    }
    std::string record = absl::StrCat(dir, meta.path_name);
    const ZipEntry* record_entry = zip.Find(record);
    if (record_entry == nullptr) {
      return absl::NotFoundError(absl::StrCat("weight '", fqn, "': its record '", record,
                                              "' is missing from the archive"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(FileRange range, zip.Locate(*record_entry));
    const FileSlice bytes{zip.file(), range};
    PayloadEntry entry;
    entry.fqn = fqn;
    entry.path_name = meta.path_name;
    entry.is_param = meta.is_param;
    entry.use_pickle = meta.use_pickle;
    entry.dtype = meta.tensor_meta->dtype;
    for (const SymInt& s : meta.tensor_meta->sizes) entry.sizes.push_back(s.value);
    for (const SymInt& s : meta.tensor_meta->strides) entry.strides.push_back(s.value);
    entry.storage_offset = meta.tensor_meta->storage_offset.value;
    absl::StatusOr<Weight> weight = WeightFromPayload(entry, bytes);
    if (!weight.ok()) return AnnotateStatus(weight.status(), absl::StrCat("weight '", fqn, "' (", record, ")"));
    PT2ONNX_RETURN_IF_ERROR(loaded.weights.Add(*std::move(weight)));
  }
  return absl::OkStatus();
}

// A torch.save state dict stored as one record of the archive.
absl::Status AddPickledWeights(const ZipArchive& zip, const ZipEntry& entry,
                               LoadedProgram& loaded) {
  const std::string& record = entry.name;
  PT2ONNX_ASSIGN_OR_RETURN(FileRange range, zip.Locate(entry));
  if (range.length == 0) return absl::OkStatus();
  absl::StatusOr<TorchSaveDict> dict = ReadTorchSaveDict(zip.file(), range);
  if (!dict.ok()) return AnnotateStatus(dict.status(), record);
  for (const auto& [fqn, tensor] : dict->tensors) {
    PT2ONNX_RETURN_IF_ERROR(loaded.weights.Add(WeightFromStored(fqn, tensor)));
  }
  for (const std::string& skipped : dict->skipped) {
    loaded.warnings.push_back(absl::StrCat("skipped non-tensor entry '", skipped, "' in ", record));
  }
  return absl::OkStatus();
}

absl::StatusOr<LoadedProgram> LoadArchive(const ZipArchive& zip, const std::string& root,
                                          absl::string_view requested) {
  LoadedProgram loaded;
  loaded.layout = Layout::kPt2Archive;
  loaded.root = root;
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan format, zip.Read(absl::StrCat(root, "archive_format")));
  if (!absl::StrContains(AsStringView(format), "pt2")) {
    return absl::InvalidArgumentError(absl::StrCat("archive_format is '", AsStringView(format),
                                                   "', expected 'pt2'"));
  }
  std::vector<std::string> models = ModelNames(zip, root);
  if (models.empty()) {
    bool aoti = false;
    for (const ZipEntry& e : zip.entries()) {
      aoti = aoti || absl::StrContains(e.name, "data/aotinductor/");
    }
    if (aoti) {
      return absl::InvalidArgumentError(
          "this .pt2 is an AOTInductor package (compiled code, no program graph); convert the "
          "file written by torch.export.save(ep, ...) instead");
    }
    return absl::InvalidArgumentError("the archive holds no exported program (no models/*.json)");
  }
  std::string name(requested);
  if (name.empty()) {
    name = models.size() == 1 ? models[0] : "model";
  }
  if (std::find(models.begin(), models.end(), name) == models.end()) {
    return absl::NotFoundError(absl::StrCat("no program named '", name, "' in the archive; it has: ",
                                            absl::StrJoin(models, ", ")));
  }
  loaded.model_name = name;
  std::string json_entry = absl::StrCat(root, "models/", name, ".json");
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan json, zip.Read(json_entry));
  absl::StatusOr<ExportedProgram> program = ParseExportedProgramJson(AsStringView(json));
  if (!program.ok()) return AnnotateStatus(program.status(), json_entry);
  loaded.program = *std::move(program);

  // Weights and constants: PayloadConfig (torch >= 2.9) or one pickle (2.8).
  struct Payload {
    const char* dir;
    const char* config_suffix;
  };
  for (const Payload& p : {Payload{"data/weights/", "_weights_config.json"},
                           Payload{"data/constants/", "_constants_config.json"}}) {
    std::string dir = absl::StrCat(root, p.dir);
    std::string config = absl::StrCat(dir, name, p.config_suffix);
    std::string pickled = absl::StrCat(dir, name, ".pt");
    if (zip.Find(config) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(ByteSpan bytes, zip.Read(config));
      PT2ONNX_RETURN_IF_ERROR(AddPayloadWeights(zip, dir, AsStringView(bytes), config, loaded));
    } else if (const ZipEntry* entry = zip.Find(pickled)) {
      PT2ONNX_RETURN_IF_ERROR(AddPickledWeights(zip, *entry, loaded));
    }
  }
  return loaded;
}

absl::StatusOr<LoadedProgram> LoadLegacy(const ZipArchive& zip) {
  LoadedProgram loaded;
  loaded.layout = Layout::kLegacyZip;
  loaded.model_name = "model";
  if (const ZipEntry* version = zip.Find("version")) {
    PT2ONNX_ASSIGN_OR_RETURN(ByteSpan bytes, zip.Read(*version));
    absl::string_view text = absl::StripAsciiWhitespace(AsStringView(bytes));
    int major = 0;
    if (!absl::SimpleAtoi(text.substr(0, text.find('.')), &major)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the archive's serialization version '", text, "' is not a version number"));
    }
    if (major < 8) {
      return absl::FailedPreconditionError(absl::StrCat(
          "this .pt2 was written by an older torch (serialization version '", text,
          "', torch <= 2.5), whose format pt2onnx does not read; re-export the model with "
          "torch >= 2.6 (torch.export.export + torch.export.save)"));
    }
  }
  const char* kJson = "serialized_exported_program.json";
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan json, zip.Read(kJson));
  absl::StatusOr<ExportedProgram> program = ParseExportedProgramJson(AsStringView(json));
  if (!program.ok()) return AnnotateStatus(program.status(), kJson);
  loaded.program = *std::move(program);
  for (const char* record : {"serialized_state_dict.pt", "serialized_state_dict.json",
                             "serialized_constants.pt", "serialized_constants.json"}) {
    const ZipEntry* entry = zip.Find(record);
    if (entry == nullptr) continue;
    PT2ONNX_RETURN_IF_ERROR(AddPickledWeights(zip, *entry, loaded));
  }
  return loaded;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ListPt2Models(ByteSpan file) {
  PT2ONNX_ASSIGN_OR_RETURN(ZipArchive zip, OpenZip(std::make_shared<MemoryFile>(file)));
  std::optional<std::string> root = FindPt2Root(zip);
  if (!root.has_value()) {
    if (zip.Find("serialized_exported_program.json") != nullptr) return std::vector<std::string>{"model"};
    return std::vector<std::string>{};
  }
  return ModelNames(zip, *root);
}

namespace {
absl::StatusOr<LoadedProgram> LoadFromZip(const ZipArchive& zip, absl::string_view model_name);
}  // namespace

absl::StatusOr<LoadedProgram> LoadPt2(ByteSpan file, absl::string_view model_name,
                                      bool verify_all_crc) {
  return LoadPt2(std::make_shared<MemoryFile>(file), model_name, verify_all_crc);
}

absl::StatusOr<LoadedProgram> LoadPt2(std::shared_ptr<const InputFile> file,
                                      absl::string_view model_name, bool verify_all_crc) {
  PT2ONNX_ASSIGN_OR_RETURN(ZipArchive zip, OpenZip(std::move(file)));
  absl::StatusOr<LoadedProgram> loaded = LoadFromZip(zip, model_name);
  if (!loaded.ok() || !verify_all_crc) return loaded;
  // Entries read into memory were checked as they were read; this covers the
  // located ones (weights), whose bytes the converter never reads itself.
  for (const ZipEntry& e : zip.entries()) {
    if (e.method != 0 || e.compressed_size == 0) continue;  // compressed: never used
    PT2ONNX_RETURN_IF_ERROR(zip.VerifyCrc32(e));
  }
  return loaded;
}

namespace {

absl::StatusOr<LoadedProgram> LoadFromZip(const ZipArchive& zip, absl::string_view model_name) {
  if (std::optional<std::string> root = FindPt2Root(zip)) {
    return LoadArchive(zip, *root, model_name);
  }
  if (zip.Find("serialized_exported_program.json") != nullptr) return LoadLegacy(zip);
  for (const ZipEntry& e : zip.entries()) {
    if (e.name == "data.pkl" || absl::EndsWith(e.name, "/data.pkl")) {
      return absl::InvalidArgumentError(
          "this file was written by torch.save, not torch.export.save: it holds tensors or a "
          "module, not an exported program. Export with ep = torch.export.export(model, args) "
          "and save with torch.export.save(ep, 'model.pt2')");
    }
  }
  return absl::InvalidArgumentError(
      "this ZIP archive is not a torch.export .pt2: it has neither an archive_format record "
      "(torch >= 2.8) nor serialized_exported_program.json (torch 2.6/2.7)");
}

}  // namespace

}  // namespace pt2onnx::pt2
