#include "wasm/verify_api.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <emscripten/emscripten.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/io/input_file.h"
#include "export/exit_codes.h"
#include "export/output_plan.h"
#include "export/verify_pt2.h"
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
    // Decoded by the verification, as the CLI's --inputs file is.
    std::vector<uint8_t> npz = CopyIn(inputs["npz"]);
    options.given_npz = [npz = std::move(npz)]() -> absl::StatusOr<std::string> {
      return std::string(npz.begin(), npz.end());
    };
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
  t.set("relMinAbs", c.info.thresholds.rel_min_abs);
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

// The conversion stages, for the progress callback.
class StageProgress : public ExportProgress {
 public:
  explicit StageProgress(std::function<void(const std::string&, double)> on_stage) : on_stage_(std::move(on_stage)) {}
  void Stage(absl::string_view stage, double fraction) override { on_stage_(std::string(stage), fraction); }

 private:
  std::function<void(const std::string&, double)> on_stage_;
};

// The verification as the JavaScript result (see pt2onnx.d.ts).
val ResultValue(VerifyPt2Result& run) {
  const VerifyOutcome& outcome = *run.verified;
  const verify::Verification& v = *outcome.verification;
  val result = val::object();
  result.set("ok", true);
  result.set("passed", v.passed);
  result.set("exitCode", outcome.exit_code);
  result.set("message", outcome.message);
  result.set("summary", outcome.summary);
  result.set("thresholds", verify::ThresholdsSummary(v.outputs));
  result.set("inputsSource", run.report.inputs_source);
  val lines = val::array();
  for (const std::string& line : run.report.inputs_lines) lines.call<void>("push", line);
  result.set("inputLines", lines);
  result.set("outputs", Checks(v.outputs));
  result.set("intermediates", Checks(v.intermediates));
  result.set("firstDivergence", v.first_divergence ? Check(*v.first_divergence) : val::null());
  val edges = val::array();
  for (double e : verify::kHistogramEdges) edges.call<void>("push", e);
  result.set("histogramEdges", edges);
  result.set("report", run.RenderReport());
  val node_data = val::object();
  node_data.set("max_abs_diff", run.node_data->max_abs_diff);
  node_data.set("max_rel_diff", run.node_data->max_rel_diff);
  result.set("nodeData", node_data);
  val timings = val::array();
  for (const auto& [stage, seconds] : run.report.timings) {
    val t = val::object();
    t.set("stage", stage);
    t.set("seconds", seconds);
    timings.call<void>("push", t);
  }
  result.set("timings", timings);
  return result;
}

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
  absl::StatusOr<ApiOptions> read_options = ReadExportOptions(js_options);
  if (!read_options.ok()) return Error(kExitUsage, std::string(read_options.status().message()));
  VerifyPt2Options options;
  options.exported = read_options->exported;  // its translations stay in read_options
  options.exported.write = false;
  if (!Has(js_options, "outputName")) options.exported.output_name = "";  // none in the report
  options.report = true;
  options.node_data = true;
  options.clock = Seconds;
  if (Has(js_options, "intermediates")) options.run.intermediates = js_options["intermediates"].as<bool>();
  options.run.stage = [&](const std::string& stage) { on_progress(stage, 0); };
  if (std::string bad = ReadInputs(js_options, options.run); !bad.empty()) return Error(kExitInvalidInput, bad);

  // One copy in wasm memory that the program, the model and both engines view.
  const std::vector<uint8_t> file_bytes = CopyIn(js_bytes);
  auto file = std::make_shared<MemoryFile>(ByteSpan(file_bytes.data(), file_bytes.size()));
  NoExportSinks sinks;  // verify() writes no model: Export() stops after its checks
  StageProgress stages(on_progress);
  VerifyPt2Result run = VerifyPt2(file, options, sinks, stages);
  if (!run.verified.has_value() || !run.verified->verification.has_value()) {
    // A failure still renders the report, as the CLI's --report writes it then.
    const absl::Status status = run.exported.status.ok() ? absl::InternalError(run.message) : run.exported.status;
    val error = Error(run.exit_code, run.message, status);
    error.set("report", run.RenderReport());
    return error;
  }
  on_progress("compare", 1);
  return ResultValue(run);
}

}  // namespace pt2onnx::wasm
