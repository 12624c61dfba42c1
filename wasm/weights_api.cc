#include "wasm/weights_api.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "export/apply_weights.h"
#include "export/exit_codes.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "wasm/js_input_file.h"
#include "wasm/parts_sink.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;
using ExternalData = onnx_writer::WriteOptions::ExternalData;

bool Has(const val& object, const char* key) {
  return object.hasOwnProperty(key) && !object[key].isUndefined() && !object[key].isNull();
}

std::string StringOr(const val& object, const char* key, const char* fallback) {
  return Has(object, key) ? object[key].as<std::string>() : std::string(fallback);
}

class PartsSinks : public ExportSinks {
 public:
  explicit PartsSinks(const InputFile* weights) : model_(weights), data_(weights) {}
  absl::Status Open(const OutputPlan&, const ConversionSummary&) override {
    return absl::OkStatus();
  }
  ByteSink& model() override { return model_; }
  ByteSink& data() override { return data_; }
  const PartsSink& model_parts() const { return model_; }
  const PartsSink& data_parts() const { return data_; }

 private:
  PartsSink model_;
  PartsSink data_;
};

class ReportLines : public ExportProgress {
 public:
  void Line(absl::string_view line) override { absl::StrAppend(&text, line, "\n"); }
  std::string text;
};

val PartsArray(const PartsSink& sink) {
  val parts = val::array();
  for (const OutputPart& part : sink.parts()) {
    if (part.is_slice) {
      val slice = val::object();
      slice.set("offset", static_cast<double>(part.slice.offset));
      slice.set("length", static_cast<double>(part.slice.length));
      parts.call<void>("push", slice);
    } else {
      // slice() copies out of wasm memory, which the next call may reuse.
      val view(emscripten::typed_memory_view(part.bytes.size(),
                                             reinterpret_cast<const uint8_t*>(part.bytes.data())));
      parts.call<void>("push", view.call<val>("slice"));
    }
  }
  return parts;
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

}  // namespace

val ApplyWeights(val model_reader, val weights_reader, val js) {
  static const ops::OpRegistry* const registry = new ops::OpRegistry(ops::CreateDefaultRegistry());
  ApplyWeightsOptions options;
  options.convert.registry = registry;
  if (Has(js, "opset")) {
    options.convert.translate.opset = js["opset"].as<int>();
    options.opset_given = true;
  }
  if (Has(js, "inputNames")) {
    options.convert.translate.input_names = emscripten::vecFromJSArray<std::string>(js["inputNames"]);
  }
  if (Has(js, "outputNames")) {
    options.convert.translate.output_names = emscripten::vecFromJSArray<std::string>(js["outputNames"]);
  }
  if (Has(js, "dimNames")) {
    const val dims = js["dimNames"];
    const val keys = val::global("Object").call<val>("keys", dims);
    for (const std::string& key : emscripten::vecFromJSArray<std::string>(keys)) {
      options.convert.translate.dim_names[key] = dims[key].as<std::string>();
    }
  }
  if (Has(js, "modelName")) options.convert.model_name = js["modelName"].as<std::string>();
  if (Has(js, "optimize")) options.convert.optimize = js["optimize"].as<bool>();
  const std::string external = StringOr(js, "externalData", "auto");
  options.external = external == "always" ? ExternalData::kAlways
                     : external == "never" ? ExternalData::kNever
                                           : ExternalData::kAuto;
  options.model_name = StringOr(js, "targetName", "model.onnx");
  options.weights_name = StringOr(js, "weightsName", "model.pt2");
  options.output_name = StringOr(js, "outputName", "model.onnx");

  JsInputFile model(model_reader);
  auto weights = std::make_shared<JsInputFile>(weights_reader);
  PartsSinks sinks(weights.get());
  ReportLines report;
  ExportResult applied = ApplyWeights(model, weights, options, sinks, report);
  if (!applied.status.ok()) return ErrorValue(applied.exit_code, applied.status);

  val result = val::object();
  result.set("ok", true);
  result.set("model", PartsArray(sinks.model_parts()));
  result.set("data", applied.plan->external ? PartsArray(sinks.data_parts()) : val::null());
  result.set("onnxName", applied.plan->model_file_name);
  result.set("dataName", applied.plan->external ? val(applied.plan->data_file_name) : val::null());
  result.set("report", report.text);
  return result;
}

}  // namespace pt2onnx::wasm
