#include "wasm/generation_api.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "export/engines.h"
#include "export/exit_codes.h"
#include "export/folder_manifest_json.h"
#include "core/status_macros.h"
#include "export/generation.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "wasm/api_values.h"
#include "wasm/js_input_file.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;

// A .onnx read whole (its weights are in the data files, read by range);
// protobuf refuses larger messages anyway.
constexpr uint64_t kMaxModelBytes = uint64_t{2} << 30;
constexpr uint64_t kMaxConfigBytes = uint64_t{16} << 20;

// A stream over bytes it owns.
class OwnedStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  explicit OwnedStream(std::string bytes)
      : bytes_(std::move(bytes)), stream_(bytes_.data(), static_cast<int>(bytes_.size())) {}
  bool Next(const void** data, int* size) override { return stream_.Next(data, size); }
  void BackUp(int count) override { stream_.BackUp(count); }
  bool Skip(int count) override { return stream_.Skip(count); }
  int64_t ByteCount() const override { return stream_.ByteCount(); }

 private:
  std::string bytes_;
  google::protobuf::io::ArrayInputStream stream_;
};

class JsFolderFiles {
 public:
  explicit JsFolderFiles(val files) : files_(std::move(files)) {}

  absl::StatusOr<std::string> Read(const std::string& file, uint64_t offset, uint64_t length) const {
    if (!Has(files_, file.c_str())) return absl::NotFoundError(absl::StrCat("the folder has no file ", file));
    JsInputFile input(files_[file.c_str()]);
    if (offset > input.size() || length > input.size() - offset) {
      return absl::InvalidArgumentError(absl::StrCat(file, " holds ", input.size(), " bytes; the model reads ",
                                                     length, " at ", offset));
    }
    std::string bytes(length, '\0');
    PT2ONNX_RETURN_IF_ERROR(input.ReadInto(offset, absl::MakeSpan(reinterpret_cast<uint8_t*>(bytes.data()), length)));
    return bytes;
  }

  absl::StatusOr<std::string> ReadWhole(const std::string& file, uint64_t limit) const {
    if (!Has(files_, file.c_str())) return absl::NotFoundError(absl::StrCat("the folder has no file ", file));
    const uint64_t size = JsInputFile(files_[file.c_str()]).size();
    if (size > limit) return absl::InvalidArgumentError(absl::StrCat(file, " is larger than ", limit, " bytes"));
    return Read(file, 0, size);
  }

 private:
  val files_;
};

val GenerationError(const absl::Status& status) {
  const int code = absl::IsNotFound(status)        ? kExitIo
                   : absl::IsUnimplemented(status) ? kExitGenerationUnavailable
                                                   : kExitInvalidInput;
  val error = ErrorValue(code, status);
  if (code == kExitGenerationUnavailable) error.set("code", std::string("verify_unavailable"));
  return error;
}

}  // namespace

val Generate(val files, val options) {
  const JsFolderFiles folder(files);
  absl::StatusOr<std::string> manifest = folder.ReadWhole(kFolderManifestFile, kMaxConfigBytes);
  if (!manifest.ok()) return GenerationError(manifest.status());
  absl::StatusOr<std::string> config = folder.ReadWhole("config.json", kMaxConfigBytes);
  FolderFiles reader;
  reader.open_stream = [&](const std::string& file)
      -> absl::StatusOr<std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>> {
    PT2ONNX_ASSIGN_OR_RETURN(std::string bytes, folder.ReadWhole(file, kMaxModelBytes));
    return std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>(std::make_unique<OwnedStream>(std::move(bytes)));
  };
  reader.read_range = [&](const std::string& file, uint64_t offset, uint64_t length) {
    return folder.Read(file, offset, length);
  };
  absl::StatusOr<GenerationModels> models = ReadGenerationFolder(*manifest, config.ok() ? *config : "", reader);
  if (!models.ok()) return GenerationError(models.status());
  // inputs: an .npz's bytes (a Uint8Array), arrays every step takes by name.
  std::map<std::string, Tensor> fixed;
  if (Has(options, "inputs")) {
    const std::string bytes = options["inputs"].as<std::string>();
    absl::StatusOr<std::vector<NamedTensor>> arrays = DecodeNpz(AsBytes(bytes));
    if (!arrays.ok()) {
      return GenerationError(absl::InvalidArgumentError(absl::StrCat("inputs: ", arrays.status().message())));
    }
    for (NamedTensor& a : *arrays) fixed[a.name] = std::move(a.tensor);
  }
  std::vector<int64_t> prompt;  // safe integers, checked by js/pt2onnx-generate.mjs
  for (double id : emscripten::vecFromJSArray<double>(options["prompt"])) prompt.push_back(static_cast<int64_t>(id));
  absl::StatusOr<Generation> generation =
      GenerateGreedy(*std::move(models), prompt, options["tokens"].as<int>(), runtime::SessionOptions{}, fixed);
  if (!generation.ok()) return GenerationError(generation.status());
  val result = val::object();
  result.set("ok", true);
  val tokens = val::array();
  for (int64_t t : generation->tokens) tokens.call<void>("push", static_cast<double>(t));
  result.set("tokens", tokens);
  const Tensor& logits = generation->last_logits;
  result.set("lastLogits", val(emscripten::typed_memory_view(logits.numel(), logits.data<float>())).call<val>("slice"));
  return result;
}

}  // namespace pt2onnx::wasm
