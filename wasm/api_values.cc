#include "wasm/api_values.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "export/exit_codes.h"
#include "translate/translator.h"

namespace pt2onnx::wasm {

using emscripten::val;

bool Has(const val& object, const char* key) {
  return object.hasOwnProperty(key) && !object[key].isUndefined() && !object[key].isNull();
}

const ops::OpRegistry& DefaultRegistry() {
  static const ops::OpRegistry* const registry = new ops::OpRegistry(ops::CreateDefaultRegistry());
  return *registry;
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
}

onnx_writer::WriteOptions::ExternalData ReadExternalData(const val& js) {
  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  const std::string mode = Has(js, "externalData") ? js["externalData"].as<std::string>() : "auto";
  return mode == "always" ? ExternalData::kAlways : mode == "never" ? ExternalData::kNever : ExternalData::kAuto;
}

val ErrorValue(int exit_code, const absl::Status& status) {
  val error = val::object();
  error.set("ok", false);
  error.set("exitCode", exit_code);
  error.set("code", std::string(ExitCodeName(exit_code)));
  error.set("message", std::string(status.message()));
  val ops = val::array();
  if (std::optional<absl::Cord> listed = status.GetPayload(ops::kUnsupportedOpsPayload)) {
    for (absl::string_view line : absl::StrSplit(std::string(*listed), '\n', absl::SkipEmpty())) {
      ops.call<void>("push", std::string(line));
    }
  }
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
