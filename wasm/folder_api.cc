#include "wasm/folder_api.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "export/exit_codes.h"
#include "export/model_folder.h"
#include "wasm/api_values.h"
#include "wasm/js_input_file.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;

// A manifest is a few KiB; a larger one is not transformers'.
constexpr uint64_t kMaxManifestBytes = uint64_t{16} << 20;

class JsFolderInput : public FolderInput {
 public:
  explicit JsFolderInput(val files) : files_(std::move(files)) {}
  absl::StatusOr<std::shared_ptr<const InputFile>> Open(const std::string& file) override {
    if (!Has(files_, file.c_str())) {
      return absl::NotFoundError(absl::StrCat("the folder has no file ", file));
    }
    return std::shared_ptr<const InputFile>(std::make_shared<JsInputFile>(files_[file]));
  }

 private:
  val files_;
};

// Every output file as Blob parts. Weights are copied in, not referenced:
// a slice could come from any component's .pt2, and a part names one input.
class JsFolderSinks : public FolderSinks {
 public:
  absl::Status Open(const std::vector<std::string>& names) override {
    for (const std::string& name : names) {
      order_.push_back(name);
      files_[name] = std::make_unique<JsParts>(nullptr);
    }
    return absl::OkStatus();
  }
  ByteSink& File(const std::string& name) override { return files_.at(name)->sink(); }
  absl::Status Commit() override { return absl::OkStatus(); }

  val Value() {
    val list = val::array();
    for (const std::string& name : order_) {
      val file = val::object();
      file.set("name", name);
      file.set("output", files_[name]->Value());
      list.call<void>("push", file);
    }
    return list;
  }

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::unique_ptr<JsParts>> files_;
};

val FolderError(int exit_code, const absl::Status& status, const std::string& file) {
  val error = ErrorValue(exit_code, status);
  error.set("file", file);
  return error;
}

}  // namespace

val ConvertFolder(val files, val js_options, val progress) {
  absl::StatusOr<ApiOptions> read_options = ReadExportOptions(js_options);
  if (!read_options.ok()) return ErrorValue(kExitUsage, read_options.status());
  // A folder's prefill has no cache: static where a component has one.
  ConvertOptions& convert = read_options->exported.convert;
  if (convert.kv_cache == KvCacheForm::kStatic) convert.kv_cache = KvCacheForm::kStaticIfPresent;
  JsFolderInput input(files);
  absl::StatusOr<std::shared_ptr<const InputFile>> manifest_file = input.Open(kFolderManifestFile);
  if (!manifest_file.ok()) {
    return FolderError(kExitIo,
                       absl::NotFoundError(absl::StrCat(
                           "the folder has no ", kFolderManifestFile,
                           " (an export folder holds the export.json that transformers' save_pretrained "
                           "writes; convert a single .pt2 with convert())")),
                       kFolderManifestFile);
  }
  const uint64_t size = (*manifest_file)->size();
  if (size > kMaxManifestBytes) {
    return FolderError(kExitInvalidInput,
                       absl::InvalidArgumentError(absl::StrCat(kFolderManifestFile, " is ", size,
                                                               " bytes: not a model library's manifest")),
                       kFolderManifestFile);
  }
  std::string text(size, '\0');
  if (absl::Status read = (*manifest_file)->ReadInto(0, absl::Span<uint8_t>(
                               reinterpret_cast<uint8_t*>(text.data()), text.size()));
      !read.ok()) {
    return FolderError(kExitIo, read, kFolderManifestFile);
  }
  absl::StatusOr<FolderManifest> manifest = ParseFolderManifest(text);
  if (!manifest.ok()) {
    return FolderError(kExitInvalidInput,
                       absl::InvalidArgumentError(absl::StrCat(kFolderManifestFile, ": ",
                                                               manifest.status().message())),
                       kFolderManifestFile);
  }
  JsFolderSinks sinks;
  JsProgress report(progress);
  FolderExportResult result = ExportFolder(*manifest, input, read_options->exported, sinks, report);
  if (!result.status.ok()) return FolderError(result.exit_code, result.status, result.failed_file);

  val components = val::array();
  for (const FolderComponentResult& c : result.components) {
    val component = val::object();
    component.set("name", c.name);
    component.set("onnxName", c.onnx_file);
    component.set("dataName", c.data_file);
    component.set("parameters", c.summary.has_value() ? static_cast<double>(c.summary->parameters) : 0.0);
    components.call<void>("push", component);
  }
  val js_result = val::object();
  js_result.set("ok", true);
  js_result.set("files", sinks.Value());
  js_result.set("components", components);
  js_result.set("sharedBytes", static_cast<double>(result.shared_bytes));
  js_result.set("sharedTensors", static_cast<double>(result.shared_tensors));
  std::string report_text;
  for (const std::string& line : report.lines()) absl::StrAppend(&report_text, line, "\n");
  js_result.set("report", report_text);
  return js_result;
}

}  // namespace pt2onnx::wasm
