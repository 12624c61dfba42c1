#include "wasm/convert_api.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "export/catalog.h"
#include "export/converter.h"
#include "export/exit_codes.h"
#include "export/export.h"
#include "export/inspect.h"
#include "export/output_plan.h"
#include "export/report.h"
#include "export/translations.h"
#include "wasm/api_values.h"
#include "wasm/js_input_file.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;

// Report lines kept for the result's `report`; stages passed to the JS
// progress callback.
val ValueInfos(const std::vector<ir::ValueInfo>& values) {
  val list = val::array();
  for (const ir::ValueInfo& v : values) {
    val info = val::object();
    info.set("name", v.name);
    info.set("dtype", std::string(DataTypeName(v.dtype)));
    val shape = val::array();
    if (v.shape.has_value()) {
      for (const ir::Dim& d : *v.shape) {
        if (!d.param.empty()) {
          shape.call<void>("push", d.param);
        } else if (d.value >= 0) {
          shape.call<void>("push", static_cast<double>(d.value));
        } else {
          shape.call<void>("push", std::string("?"));
        }
      }
    }
    info.set("shape", shape);
    list.call<void>("push", info);
  }
  return list;
}

val Summary(const Conversion& c, int opset) {
  const ConversionSummary& s = c.summary;
  val summary = val::object();
  summary.set("inputs", ValueInfos(c.model.graph.inputs));
  summary.set("outputs", ValueInfos(c.model.graph.outputs));
  val histogram = val::object();
  for (const auto& [op, count] : s.op_histogram) histogram.set(op, static_cast<double>(count));
  summary.set("opHistogram", histogram);
  summary.set("parameters", static_cast<double>(s.parameters));
  summary.set("initializerBytes", static_cast<double>(s.initializer_bytes));
  summary.set("opset", opset);
  summary.set("fxNodes", static_cast<double>(s.fx_nodes));
  summary.set("onnxNodes", static_cast<double>(s.onnx_nodes));
  summary.set("onnxNodesTranslated", static_cast<double>(s.onnx_nodes_before_optimize));
  summary.set("layout", s.layout);
  summary.set("torchVersion", s.torch_version);
  summary.set("schemaVersion", absl::StrCat(s.schema_major, ".", s.schema_minor));
  // What each optimizer pass changed, so that a page can say why the result's counts differ from the
  // program's (nodes removed, weights merged or folded).
  val changed = val::array();
  for (const passes::PassStats& p : c.pass_stats) {
    if (p.changed_runs == 0) continue;
    val pass = val::object();
    pass.set("name", p.name);
    pass.set("nodesRemoved", static_cast<double>(p.nodes_removed));
    pass.set("nodesAdded", static_cast<double>(p.nodes_added));
    pass.set("weightBytesRemoved", static_cast<double>(p.initializer_bytes_removed));
    pass.set("weightBytesAdded", static_cast<double>(p.initializer_bytes_added));
    changed.call<void>("push", pass);
  }
  summary.set("passes", changed);
  return summary;
}

}  // namespace

val Convert(val reader, val js_options, val progress) {
  absl::StatusOr<ApiOptions> read_options = ReadExportOptions(js_options);
  if (!read_options.ok()) return ErrorValue(kExitUsage, read_options.status());
  // Export() checks every result as the CLI's does, so a hostile file is
  // refused alike.
  ExportOptions& options = read_options->exported;
  auto file = std::make_shared<JsInputFile>(reader);
  PartsSinks sinks(file.get());
  JsProgress report(progress);
  ExportResult result = Export(file, options, sinks, report);
  if (!result.status.ok()) return ErrorValue(result.exit_code, result.status);
  const Conversion& conversion = *result.conversion;
  const OutputPlan& plan = *result.plan;
  std::vector<std::string>& lines = report.lines();
  lines.push_back(OpsLine(conversion.summary));
  const uint64_t referenced =
      sinks.model_parts().sink().sliced_bytes() + sinks.data_parts().sink().sliced_bytes();
  const uint64_t weights = conversion.summary.initializer_bytes;
  lines.push_back(absl::StrCat(
      "read ", HumanBytes(file->bytes_read()), " of the ", HumanBytes(file->size()),
      " input into memory (", file->reads(), " reads); ",
      referenced >= weights
          ? "all weights referenced in place, none copied"
          : absl::StrCat(HumanBytes(referenced), " of weights referenced in place, ",
                         HumanBytes(weights - referenced), " re-laid out in memory")));

  val js_result = val::object();
  js_result.set("ok", true);
  js_result.set("model", sinks.model_parts().Value());
  js_result.set("data", plan.external ? sinks.data_parts().Value() : val::null());
  js_result.set("onnxName", plan.model_file_name);
  js_result.set("dataName", plan.external ? val(plan.data_file_name) : val::null());
  js_result.set("summary", Summary(conversion, options.convert.translate.opset));
  val warnings = val::array();
  for (const std::string& w : conversion.warnings) warnings.call<void>("push", w);
  js_result.set("warnings", warnings);
  std::string text;
  for (const std::string& line : lines) absl::StrAppend(&text, line, "\n");
  js_result.set("report", text);
  js_result.set("bytesRead", static_cast<double>(file->bytes_read()));
  return js_result;
}

val Inspect(val reader, val js_options) {
  absl::StatusOr<ApiOptions> read_options = ReadExportOptions(js_options);
  if (!read_options.ok()) return ErrorValue(kExitUsage, read_options.status());
  const ExportOptions& options = read_options->exported;
  InspectOptions inspect;
  inspect.opset = options.convert.translate.opset;
  inspect.model_name = options.convert.model_name;
  inspect.registry = options.convert.registry;
  absl::StatusOr<Inspection> inspection = InspectPt2(std::make_shared<JsInputFile>(reader), inspect);
  if (!inspection.ok()) {
    const bool io = inspection.status().code() == absl::StatusCode::kUnavailable;  // as Convert
    return ErrorValue(io ? kExitIo : ExitCodeForConversion(inspection.status()), inspection.status());
  }
  val result = val::object();
  result.set("ok", true);
  result.set("json", InspectionJson(*inspection));
  result.set("text", InspectionText(*inspection, options.input_name));  // what --inspect prints
  return result;
}

val SupportedOps() {
  val list = val::array();
  for (const std::string& key : pt2onnx::SupportedOps()) list.call<void>("push", key);
  return list;
}

val RefusedOps() {
  val list = val::array();
  for (const std::string& line : pt2onnx::RefusedOps()) {
    const size_t tab = line.find('\t');
    val entry = val::object();
    entry.set("op", line.substr(0, tab));
    entry.set("reason", tab == std::string::npos ? std::string() : line.substr(tab + 1));
    list.call<void>("push", entry);
  }
  return list;
}

val Version() { return val(std::string(pt2onnx::Version())); }

}  // namespace pt2onnx::wasm
