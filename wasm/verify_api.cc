#include "wasm/verify_api.h"

#include <memory>
#include <string>
#include <vector>

#include <emscripten/emscripten.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/npz/npz.h"
#include "verify/node_data.h"
#include "verify/report.h"
#include "core/version.h"
#include "export/converter.h"
#include "export/exit_codes.h"
#include "export/output_plan.h"
#include "export/verify_run.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "wasm/api_values.h"
#include "wasm/run_api.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;

// Exit codes beyond export/exit_codes.h: 7 = an engine cannot run the model.
val Error(int exit_code, const std::string& message, const absl::Status& status = absl::OkStatus()) {
  val error = ErrorValue(exit_code, status);
  error.set("message", message);
  if (exit_code == verify::kExitVerificationUnavailable) error.set("code", std::string("verify_unavailable"));
  return error;
}

ConvertOptions ConvertOptionsOf(const val& js) {
  ConvertOptions o;
  o.registry = &DefaultRegistry();
  ReadConvertOptions(js, o);
  return o;
}

std::vector<uint8_t> CopyIn(const val& bytes) {
  std::vector<uint8_t> out(bytes["length"].as<size_t>());
  if (!out.empty()) val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", bytes);
  return out;
}

// The inputs option, read into `options` (an error message, or "").
std::string ReadInputs(const val& js, VerifyRunOptions& options) {
  if (!Has(js, "inputs")) return "";
  const val inputs = js["inputs"];
  if (inputs.isString()) {
    options.inputs = VerifyInputs::kSeeded;
    return "";
  }
  options.inputs = VerifyInputs::kGiven;
  if (Has(inputs, "npz")) {
    options.given_source = Has(inputs, "name") ? inputs["name"].as<std::string>() : "inputs.npz";
    const std::vector<uint8_t> npz = CopyIn(inputs["npz"]);
    absl::StatusOr<std::vector<NamedTensor>> arrays = runtime::ReadNpz(ByteSpan(npz.data(), npz.size()));
    if (!arrays.ok()) return absl::StrCat(options.given_source, ": ", arrays.status().message());
    options.given = *std::move(arrays);
    return "";
  }
  options.given_source = "the inputs option";
  const val list = inputs["tensors"];
  const int count = list["length"].as<int>();
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<NamedTensor> tensor = TensorFromJs(list[i]);
    if (!tensor.ok()) return std::string(tensor.status().message());
    options.given.push_back(*std::move(tensor));
  }
  return "";
}

val Histogram(const std::array<int64_t, 9>& counts) {
  val list = val::array();
  for (int64_t c : counts) list.call<void>("push", static_cast<double>(c));
  return list;
}

// torch.onnx's VerificationInfo fields, plus where the value comes from.
val Check(const verify::ValueCheck& c) {
  val o = val::object();
  o.set("name", c.info.name);
  o.set("max_abs_diff", c.info.max_abs_diff);
  o.set("max_rel_diff", c.info.max_rel_diff);
  o.set("abs_diff_hist", Histogram(c.info.abs_diff_hist));
  o.set("rel_diff_hist", Histogram(c.info.rel_diff_hist));
  o.set("expected_dtype", std::string(DataTypeName(c.info.expected_dtype)));
  o.set("actual_dtype", std::string(DataTypeName(c.info.actual_dtype)));
  o.set("mismatch", c.info.mismatch);
  o.set("notCompared", c.info.not_compared);
  o.set("passed", !c.info.FailsOutputThresholds());
  // The rule this value was judged by (verify/thresholds.h).
  val t = val::object();
  t.set("dtype", std::string(DataTypeName(c.info.expected_dtype)));
  t.set("maxAbsDiff", c.info.thresholds.max_abs);
  t.set("maxRelDiff", c.info.thresholds.max_rel);
  t.set("relFloor", c.info.rel_floor);
  t.set("text", c.info.thresholds.Text());
  o.set("thresholds", t);
  o.set("isOutput", c.is_output);
  o.set("fxNode", c.origin.node_name);
  o.set("target", c.origin.target);
  o.set("onnxNode", c.origin.onnx_node);
  o.set("onnxOp", c.origin.onnx_op);
  o.set("stackTrace", c.origin.stack_trace);
  return o;
}

val Checks(const std::vector<verify::ValueCheck>& checks) {
  val list = val::array();
  for (const verify::ValueCheck& c : checks) list.call<void>("push", Check(c));
  return list;
}

double Seconds() { return emscripten_get_now() / 1000.0; }

}  // namespace

val Verify(val js_bytes, val js_options, val progress) {
  const double size = js_bytes["length"].as<double>();
  if (size > static_cast<double>(kMaxVerifyBytes)) {
    return Error(kExitUnsupported,
                 absl::StrCat("verify() needs the whole .pt2 in WebAssembly memory and this one is ",
                              HumanBytes(static_cast<uint64_t>(size)), ", over the ",
                              HumanBytes(kMaxVerifyBytes),
                              " limit of the browser build; verify it with the CLI (pt2onnx model.pt2 --verify)"));
  }
  auto on_progress = [&](const std::string& stage, double fraction) {
    if (!progress.isUndefined()) progress(stage, fraction);
  };
  const std::string input_name = Has(js_options, "inputName") ? js_options["inputName"].as<std::string>() : "model.pt2";
  verify::ReportData report;
  report.model_path = input_name;
  report.output_path = Has(js_options, "outputName") ? js_options["outputName"].as<std::string>() : "";
  report.producer = absl::StrCat("pt2onnx ", kPt2OnnxVersion);

  VerifyRunOptions options;
  if (Has(js_options, "intermediates")) options.intermediates = js_options["intermediates"].as<bool>();
  options.clock = Seconds;
  options.stage = [&](const std::string& stage) { on_progress(stage, 0); };
  if (std::string bad = ReadInputs(js_options, options); !bad.empty()) return Error(kExitInvalidInput, bad);

  // One copy in wasm memory that the program, the model and both engines view.
  const std::vector<uint8_t> file_bytes = CopyIn(js_bytes);
  const ByteSpan file(file_bytes.data(), file_bytes.size());
  const double started = Seconds();
  ProgressFn convert_progress = [&](absl::string_view stage, double fraction) {
    on_progress(std::string(stage), fraction);
  };
  absl::StatusOr<Conversion> conversion = ConvertPt2(file, ConvertOptionsOf(js_options), convert_progress);
  absl::StatusOr<pt2::LoadedProgram> loaded = pt2::LoadPt2(file, Has(js_options, "modelName")
                                                                      ? js_options["modelName"].as<std::string>()
                                                                      : "");
  report.timings.push_back({"read, translate, optimize", Seconds() - started});
  report.steps.push_back({"Read the .pt2", loaded.ok() ? verify::StepStatus::kOk : verify::StepStatus::kFailed});
  report.steps.push_back({"Translate to ONNX (and optimize)",
                          conversion.ok() ? verify::StepStatus::kOk : verify::StepStatus::kFailed});
  if (loaded.ok()) report.program = &*loaded;
  // A failure still renders the report, as the CLI's --report writes it then.
  auto fail_with_report = [&](int exit_code, const absl::Status& status) {
    if (report.errors.empty() || report.errors.back() != status.message()) report.errors.push_back(std::string(status.message()));
    if (loaded.ok()) FillReportCoverage(*loaded, report);
    val error = Error(exit_code, std::string(status.message()), status);
    error.set("report", verify::RenderReport(report));
    return error;
  };
  if (!conversion.ok()) return fail_with_report(ExitCodeForConversion(conversion.status()), conversion.status());
  if (!loaded.ok()) return fail_with_report(kExitInvalidInput, loaded.status());
  report.model = &conversion->model;
  FillReportCoverage(*loaded, report);

  VerifyOutcome outcome =
      RunVerification(std::make_shared<MemoryFile>(file), *loaded, conversion->model, options, report);
  if (!outcome.verification) return fail_with_report(outcome.exit_code, absl::InternalError(outcome.message));
  on_progress("compare", 1);
  const verify::Verification& v = *outcome.verification;
  val result = val::object();
  result.set("ok", true);
  result.set("passed", v.passed);
  result.set("exitCode", outcome.exit_code);
  result.set("message", outcome.message);
  result.set("summary", outcome.summary);
  result.set("thresholds", verify::ThresholdsSummary(v.outputs));
  result.set("inputsSource", report.inputs_source);
  val lines = val::array();
  for (const std::string& line : report.inputs_lines) lines.call<void>("push", line);
  result.set("inputLines", lines);
  result.set("outputs", Checks(v.outputs));
  result.set("intermediates", Checks(v.intermediates));
  result.set("firstDivergence", v.first_divergence ? Check(*v.first_divergence) : val::null());
  val edges = val::array();
  for (double e : verify::kHistogramEdges) edges.call<void>("push", e);
  result.set("histogramEdges", edges);
  result.set("report", verify::RenderReport(report));
  val node_data = val::object();
  node_data.set("max_abs_diff", verify::NodeDataJson(v, conversion->model, verify::NodeDataField::kMaxAbsDiff));
  node_data.set("max_rel_diff", verify::NodeDataJson(v, conversion->model, verify::NodeDataField::kMaxRelDiff));
  result.set("nodeData", node_data);
  val timings = val::array();
  for (const auto& [stage, seconds] : report.timings) {
    val t = val::object();
    t.set("stage", stage);
    t.set("seconds", seconds);
    timings.call<void>("push", t);
  }
  result.set("timings", timings);
  return result;
}

}  // namespace pt2onnx::wasm
