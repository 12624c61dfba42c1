#include "wasm/convert_api.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "export/converter.h"
#include "export/exit_codes.h"
#include "export/inspect.h"
#include "export/output_plan.h"
#include "export/report.h"
#include "core/onnx/model_reader.h"
#include "core/onnx/model_writer.h"
#include "core/status_macros.h"
#include "core/version.h"
#include "translate/custom_translations.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "wasm/js_input_file.h"
#include "wasm/parts_sink.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;
using ExternalData = onnx_writer::WriteOptions::ExternalData;

// Built on first use and kept for the module's life: a page or hub converts
// many models, and the table does not change.
const ops::OpRegistry& Registry() {
  static const ops::OpRegistry* const registry = new ops::OpRegistry(ops::CreateDefaultRegistry());
  return *registry;
}

// The JS-side options, already type-checked by js/pt2onnx.mjs.
struct ApiOptions {
  ConvertOptions convert;
  // With `translations`: the built-in registry plus the libraries' functions
  // (heap-held: `convert` points at them and ApiOptions moves).
  std::unique_ptr<ops::OpRegistry> registry;
  std::unique_ptr<ops::CustomFunctionTable> functions;
  ExternalData external = ExternalData::kAuto;
  bool include_weights = true;    // includeWeights: false = --no-weights
  bool weights_as_inputs = false;  // weightsAsInputs = --weights-as-inputs
  std::string output_name = "model.onnx";
  std::string input_name = "model.pt2";
};

bool Has(const val& object, const char* key) {
  return object.hasOwnProperty(key) && !object[key].isUndefined() && !object[key].isNull();
}

std::vector<std::string> Strings(const val& array) {
  return emscripten::vecFromJSArray<std::string>(array);
}

// translations: Uint8Array[] of ONNX function libraries, as --translations
// (overrideBuiltins = --override, translationsAsFunctions =
// --translations-as-functions).
absl::Status ReadTranslations(const val& js, ApiOptions& o) {
  const bool override_builtins = Has(js, "overrideBuiltins") && js["overrideBuiltins"].as<bool>();
  o.convert.translate.custom_functions_as_local =
      Has(js, "translationsAsFunctions") && js["translationsAsFunctions"].as<bool>();
  if (!Has(js, "translations")) {
    if (o.convert.translate.custom_functions_as_local) {
      return absl::InvalidArgumentError("translationsAsFunctions needs a library (options.translations)");
    }
    return absl::OkStatus();
  }
  o.registry = std::make_unique<ops::OpRegistry>(ops::CreateDefaultRegistry());
  o.functions = std::make_unique<ops::CustomFunctionTable>();
  const val libraries = js["translations"];
  const int count = libraries["length"].as<int>();
  for (int i = 0; i < count; ++i) {
    const std::vector<uint8_t> bytes = emscripten::convertJSArrayToNumberVector<uint8_t>(libraries[i]);
    absl::StatusOr<std::vector<ir::Function>> library =
        onnx_reader::ReadFunctionLibrary(ByteSpan(bytes.data(), bytes.size()));
    absl::Status added = library.ok()
                             ? ops::AddCustomTranslations(*library, override_builtins, *o.registry, *o.functions)
                             : library.status();
    if (!added.ok()) {
      return absl::Status(added.code(), absl::StrCat("translations[", i, "]: ", added.message()));
    }
  }
  o.convert.registry = o.registry.get();
  o.convert.translate.custom_functions = o.functions.get();
  return absl::OkStatus();
}

absl::StatusOr<ApiOptions> ReadOptions(const val& js) {
  ApiOptions o;
  o.convert.registry = &Registry();
  PT2ONNX_RETURN_IF_ERROR(ReadTranslations(js, o));
  if (Has(js, "opset")) o.convert.translate.opset = js["opset"].as<int>();
  if (Has(js, "externalData")) {
    const std::string mode = js["externalData"].as<std::string>();
    o.external = mode == "always" ? ExternalData::kAlways
                 : mode == "never" ? ExternalData::kNever
                                   : ExternalData::kAuto;
  }
  if (Has(js, "inputNames")) o.convert.translate.input_names = Strings(js["inputNames"]);
  if (Has(js, "outputNames")) o.convert.translate.output_names = Strings(js["outputNames"]);
  if (Has(js, "dimNames")) {
    const val dims = js["dimNames"];
    for (const std::string& key : Strings(val::global("Object").call<val>("keys", dims))) {
      o.convert.translate.dim_names[key] = dims[key].as<std::string>();
    }
  }
  if (Has(js, "modelName")) o.convert.model_name = js["modelName"].as<std::string>();
  if (Has(js, "optimize")) o.convert.optimize = js["optimize"].as<bool>();
  if (Has(js, "includeWeights")) o.include_weights = js["includeWeights"].as<bool>();
  if (Has(js, "weightsAsInputs")) o.weights_as_inputs = js["weightsAsInputs"].as<bool>();
  if (Has(js, "outputName")) o.output_name = js["outputName"].as<std::string>();
  if (Has(js, "inputName")) o.input_name = js["inputName"].as<std::string>();
  return std::move(o);
}

val Error(int exit_code, const absl::Status& status) {
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

val Parts(const PartsSink& sink) {
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
  summary.set("layout", s.layout);
  summary.set("torchVersion", s.torch_version);
  summary.set("schemaVersion", absl::StrCat(s.schema_major, ".", s.schema_minor));
  return summary;
}

}  // namespace

val Convert(val reader, val js_options, val progress) {
  absl::StatusOr<ApiOptions> read_options = ReadOptions(js_options);
  if (!read_options.ok()) return Error(kExitUsage, read_options.status());
  const ApiOptions& options = *read_options;
  auto file = std::make_shared<JsInputFile>(reader);
  std::vector<std::string> report;
  report.push_back(absl::StrCat("reading ", options.input_name, " (", HumanBytes(file->size()), ")"));
  ProgressFn on_progress = [&](absl::string_view stage, double fraction) {
    if (!progress.isUndefined()) progress(std::string(stage), fraction);
  };

  absl::StatusOr<Conversion> conversion = ConvertPt2(file, options.convert, on_progress);
  if (!conversion.ok()) {
    // A File that could not be read is an I/O problem, as in the CLI.
    const bool io = conversion.status().code() == absl::StatusCode::kUnavailable;
    return Error(io ? kExitIo : ExitCodeForConversion(conversion.status()), conversion.status());
  }
  for (const std::string& warning : conversion->warnings) report.push_back("warning: " + warning);
  report.push_back(TranslatedLine(conversion->summary));
  if (!conversion->summary.symbolic_dims.empty()) report.push_back(SymbolicDimsLine(conversion->summary));

  ConversionSummary planned = conversion->summary;
  if (!options.include_weights) planned.initializer_bytes = 0;  // nothing to place
  absl::StatusOr<OutputPlan> plan = PlanOutput(
      planned, options.include_weights ? options.external : ExternalData::kNever, options.output_name);
  if (!plan.ok()) return Error(kExitUsage, plan.status());
  plan->write.include_initializers = options.include_weights;
  plan->write.initializers_as_inputs = options.weights_as_inputs;
  on_progress("write", 0);
  PartsSink model_sink(file.get());
  PartsSink data_sink(file.get());
  absl::StatusOr<onnx_writer::WriteSummary> written = onnx_writer::WriteModel(
      conversion->model, plan->write, model_sink, plan->external ? &data_sink : nullptr);
  if (!written.ok()) return Error(kExitIo, written.status());
  on_progress("write", 1);
  report.push_back(WroteLine(options.output_name, *written, options.convert.translate.opset,
                             conversion->summary));
  report.push_back(OpsLine(conversion->summary));
  const uint64_t referenced = model_sink.sliced_bytes() + data_sink.sliced_bytes();
  const uint64_t weights = conversion->summary.initializer_bytes;
  report.push_back(absl::StrCat(
      "read ", HumanBytes(file->bytes_read()), " of the ", HumanBytes(file->size()),
      " input into memory (", file->reads(), " reads); ",
      referenced >= weights
          ? "all weights referenced in place, none copied"
          : absl::StrCat(HumanBytes(referenced), " of weights referenced in place, ",
                         HumanBytes(weights - referenced), " re-laid out in memory")));

  val result = val::object();
  result.set("ok", true);
  result.set("model", Parts(model_sink));
  result.set("data", plan->external ? Parts(data_sink) : val::null());
  result.set("onnxName", plan->model_file_name);
  result.set("dataName", plan->external ? val(plan->data_file_name) : val::null());
  result.set("summary", Summary(*conversion, options.convert.translate.opset));
  val warnings = val::array();
  for (const std::string& w : conversion->warnings) warnings.call<void>("push", w);
  result.set("warnings", warnings);
  std::string text;
  for (const std::string& line : report) absl::StrAppend(&text, line, "\n");
  result.set("report", text);
  result.set("bytesRead", static_cast<double>(file->bytes_read()));
  return result;
}

val Inspect(val reader, val js_options) {
  absl::StatusOr<ApiOptions> read_options = ReadOptions(js_options);
  if (!read_options.ok()) return Error(kExitUsage, read_options.status());
  const ApiOptions& options = *read_options;
  InspectOptions inspect;
  inspect.opset = options.convert.translate.opset;
  inspect.model_name = options.convert.model_name;
  inspect.registry = options.convert.registry;
  absl::StatusOr<Inspection> inspection = InspectPt2(std::make_shared<JsInputFile>(reader), inspect);
  if (!inspection.ok()) {
    const bool io = inspection.status().code() == absl::StatusCode::kUnavailable;  // as Convert
    return Error(io ? kExitIo : ExitCodeForConversion(inspection.status()), inspection.status());
  }
  val result = val::object();
  result.set("ok", true);
  result.set("json", InspectionJson(*inspection));
  result.set("text", InspectionText(*inspection, options.input_name));  // what --inspect prints
  return result;
}

val SupportedOps() {
  val list = val::array();
  for (const std::string& key : Registry().Keys()) list.call<void>("push", key);
  return list;
}

val Version() { return val(std::string(kPt2OnnxVersion)); }

}  // namespace pt2onnx::wasm
