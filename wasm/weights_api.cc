#include "wasm/weights_api.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "export/apply_weights.h"
#include "export/exit_codes.h"
#include "wasm/api_values.h"
#include "wasm/js_input_file.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;

std::string StringOr(const val& object, const char* key, const char* fallback) {
  return Has(object, key) ? object[key].as<std::string>() : std::string(fallback);
}

class ReportLines : public ExportProgress {
 public:
  void Line(absl::string_view line) override { absl::StrAppend(&text, line, "\n"); }
  std::string text;
};

}  // namespace

val ApplyWeights(val model_reader, val weights_reader, val js) {
  // convert()'s options, translations included (the JS side allows only
  // those apply-weights takes).
  absl::StatusOr<ApiOptions> read_options = ReadExportOptions(js);
  if (!read_options.ok()) return ErrorValue(kExitUsage, read_options.status());
  ApplyWeightsOptions options;
  options.convert = read_options->exported.convert;
  options.opset_given = Has(js, "opset");
  options.external = ReadExternalData(js);
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
  result.set("model", sinks.model_parts().Value());
  result.set("data", applied.plan->external ? sinks.data_parts().Value() : val::null());
  result.set("onnxName", applied.plan->model_file_name);
  result.set("dataName", applied.plan->external ? val(applied.plan->data_file_name) : val::null());
  result.set("report", report.text);
  return result;
}

}  // namespace pt2onnx::wasm
