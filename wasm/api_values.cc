#include "wasm/api_values.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "export/catalog.h"
#include "export/exit_codes.h"

namespace pt2onnx::wasm {

using emscripten::val;

bool Has(const val& object, const char* key) {
  return object.hasOwnProperty(key) && !object[key].isUndefined() && !object[key].isNull();
}

void ReadConvertOptions(const val& js, ConvertOptions& o) {
  if (Has(js, "opset")) o.translate.opset = js["opset"].as<int>();
  if (Has(js, "inputNames")) o.translate.input_names = emscripten::vecFromJSArray<std::string>(js["inputNames"]);
  if (Has(js, "outputNames")) o.translate.output_names = emscripten::vecFromJSArray<std::string>(js["outputNames"]);
  if (Has(js, "dimNames")) {
    const val dims = js["dimNames"];
    const val keys = val::global("Object").call<val>("keys", dims);
    for (const std::string& key : emscripten::vecFromJSArray<std::string>(keys)) {
      o.translate.dim_names[key] = dims[key].as<std::string>();
    }
  }
  if (Has(js, "modelName")) o.model_name = js["modelName"].as<std::string>();
  if (Has(js, "optimize")) o.optimize = js["optimize"].as<bool>();
  // pt2onnx.mjs checked the value and the opset.
  if (Has(js, "kvCache") && js["kvCache"].as<std::string>() == "static") o.kv_cache = KvCacheForm::kStatic;
}

onnx_writer::WriteOptions::ExternalData ReadExternalData(const val& js) {
  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  const std::string mode = Has(js, "externalData") ? js["externalData"].as<std::string>() : "auto";
  return mode == "always" ? ExternalData::kAlways : mode == "never" ? ExternalData::kNever : ExternalData::kAuto;
}

namespace {

// translations: Uint8Array[] of ONNX function libraries, as --translations
// (overrideBuiltins = --override, translationsAsFunctions =
// --translations-as-functions), loaded by export/translations.h as the CLI's.
absl::Status ReadTranslations(const val& js, ApiOptions& api) {
  const bool override_builtins = Has(js, "overrideBuiltins") && js["overrideBuiltins"].as<bool>();
  const bool as_functions = Has(js, "translationsAsFunctions") && js["translationsAsFunctions"].as<bool>();
  if (!Has(js, "translations")) {
    if (as_functions) {
      return absl::InvalidArgumentError("translationsAsFunctions needs a library (options.translations)");
    }
    return absl::OkStatus();
  }
  const val libraries = js["translations"];
  const int count = libraries["length"].as<int>();
  std::vector<std::vector<uint8_t>> bytes;  // alive while the libraries load
  std::vector<TranslationLibrary> named;
  bytes.reserve(count);
  for (int i = 0; i < count; ++i) {
    bytes.push_back(emscripten::convertJSArrayToNumberVector<uint8_t>(libraries[i]));
    named.push_back({absl::StrCat("translations[", i, "]"), ByteSpan(bytes.back().data(), bytes.back().size())});
  }
  PT2ONNX_ASSIGN_OR_RETURN(api.translations, Translations::Load(named, override_builtins));
  api.translations->ApplyTo(api.exported.convert, as_functions);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ApiOptions> ReadExportOptions(const val& js) {
  ApiOptions api;
  ExportOptions& o = api.exported;
  o.convert.registry = &SharedDefaultRegistry();
  ReadConvertOptions(js, o.convert);
  o.external = ReadExternalData(js);
  if (Has(js, "includeWeights")) o.include_weights = js["includeWeights"].as<bool>();
  if (Has(js, "weightsAsInputs")) o.weights_as_inputs = js["weightsAsInputs"].as<bool>();
  if (Has(js, "outputName")) o.output_name = js["outputName"].as<std::string>();
  if (Has(js, "inputName")) o.input_name = js["inputName"].as<std::string>();
  PT2ONNX_RETURN_IF_ERROR(ReadTranslations(js, api));
  return api;
}

val ErrorValue(int exit_code, const absl::Status& status) {
  val error = val::object();
  error.set("ok", false);
  error.set("exitCode", exit_code);
  error.set("code", std::string(ExitCodeName(exit_code)));
  error.set("message", std::string(status.message()));
  val ops = val::array();
  for (const std::string& op : UnsupportedOpsOf(status)) ops.call<void>("push", op);
  error.set("unsupportedOps", ops);
  return error;
}

namespace {

// A copy in JavaScript memory (slice() copies out of wasm memory).
val CopyOut(const std::string& bytes) {
  return val(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())))
      .call<val>("slice");
}

}  // namespace

JsParts::JsParts(const InputFile* input) : sink_(input), chunks_(val::array()) {
  // A full chunk (only big outputs fill one) goes straight into a Blob, which
  // copies it into the browser's blob store: no JavaScript copy to hold.
  sink_.SetChunkDone([this](size_t, std::string& chunk) {
    val bytes(emscripten::typed_memory_view(chunk.size(), reinterpret_cast<const uint8_t*>(chunk.data())));
    val list = val::array();
    list.call<void>("push", bytes);
    chunks_.call<void>("push", val::global("Blob").new_(list));
    std::string().swap(chunk);  // frees the wasm copy
  });
}

val JsParts::Value() {
  const std::vector<std::string>& chunks = sink_.chunks();
  for (size_t i = chunks_["length"].as<size_t>(); i < chunks.size(); ++i) {
    chunks_.call<void>("push", CopyOut(chunks[i]));
  }
  std::vector<double> triples;
  triples.reserve(sink_.parts().size() * 3);
  for (const OutputPart& part : sink_.parts()) {
    triples.push_back(part.is_slice ? -1 : static_cast<double>(part.chunk));
    triples.push_back(static_cast<double>(part.range.offset));
    triples.push_back(static_cast<double>(part.range.length));
  }
  val value = val::object();
  value.set("chunks", chunks_);
  value.set("parts", val(emscripten::typed_memory_view(triples.size(), triples.data())).call<val>("slice"));
  return value;
}

}  // namespace pt2onnx::wasm
