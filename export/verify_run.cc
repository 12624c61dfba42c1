#include "export/verify_run.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ops/all_ops.h"
#include "reference/interpreter.h"
#include "reference/registry.h"
#include "verify/inputs.h"
#include "verify/sample_inputs.h"
#include "export/exit_codes.h"
#include "export/report_steps.h"
#include "runtime/npz/npz.h"
#include "translate/registry.h"

namespace pt2onnx {
namespace {

using report_steps::kAccuracy;
using report_steps::kRunEngines;

absl::StatusOr<verify::ChosenInputs> ChooseInputs(const std::shared_ptr<const InputFile>& file,
                                                  const pt2::LoadedProgram& loaded,
                                                  const VerifyRunOptions& options,
                                                  const std::vector<NamedTensor>& from_npz) {
  switch (options.inputs) {
    case VerifyInputs::kSeeded: return verify::SeededInputs(loaded.program);
    case VerifyInputs::kGiven:
      return verify::GivenInputs(loaded.program, options.given_npz ? from_npz : options.given,
                                 options.given_source);
    case VerifyInputs::kDefault: break;
  }
  absl::StatusOr<std::optional<verify::ChosenInputs>> sample = verify::ArchiveSampleInputs(file, loaded);
  if (!sample.ok() && options.log) {
    options.log(absl::StrCat("verify: not using the archive's example inputs: ", sample.status().message()));
  }
  if (sample.ok() && sample->has_value()) return **std::move(sample);
  return verify::SeededInputs(loaded.program);
}

VerifyOutcome Failed(int code, std::string message, verify::ReportData& report) {
  report.errors.push_back(message);
  report.steps.push_back({kRunEngines, code == verify::kExitVerificationFailed ? verify::StepStatus::kOk
                                                                                : verify::StepStatus::kFailed});
  report.steps.push_back({kAccuracy, verify::StepStatus::kFailed});
  VerifyOutcome outcome;
  outcome.exit_code = code;
  outcome.message = std::move(message);
  return outcome;
}

}  // namespace

VerifyOutcome RunVerification(std::shared_ptr<const InputFile> file, const pt2::LoadedProgram& loaded,
                              const ir::Model& model, const VerifyRunOptions& options,
                              verify::ReportData& report) {
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  std::vector<NamedTensor> from_npz;
  if (options.inputs == VerifyInputs::kGiven && options.given_npz) {
    absl::StatusOr<std::string> npz = options.given_npz();
    if (!npz.ok()) return Failed(kExitIo, std::string(npz.status().message()), report);
    absl::StatusOr<std::vector<NamedTensor>> arrays = runtime::ReadNpz(AsBytes(*npz));
    if (!arrays.ok()) {
      return Failed(kExitInvalidInput, absl::StrCat(options.given_source, ": ", arrays.status().message()), report);
    }
    from_npz = *std::move(arrays);
  }
  absl::StatusOr<verify::ChosenInputs> inputs = ChooseInputs(file, loaded, options, from_npz);
  if (!inputs.ok()) return Failed(kExitInvalidInput, std::string(inputs.status().message()), report);
  log(absl::StrCat("verify: inputs ", inputs->source));
  for (const std::string& line : inputs->lines) log(absl::StrCat("  ", line));
  report.inputs_source = inputs->source;
  report.inputs_lines = inputs->lines;

  verify::VerifyOptions verify_options;
  verify_options.intermediates = options.intermediates;
  std::string current;
  double started = 0;
  auto close_stage = [&] {
    if (current.empty() || !options.clock) return;
    const double s = options.clock() - started;
    report.timings.push_back({absl::StrCat("verify: ", current), s});
    if (current != "compare") {
      log(absl::StrFormat("verify: %s %.3f s", current == "reference" ? "reference interpreter" : "executor", s));
    }
  };
  verify_options.stage = [&](const std::string& stage) {
    close_stage();
    current = stage;
    if (options.clock) started = options.clock();
    if (options.stage) options.stage(stage);
  };
  absl::StatusOr<verify::Verification> v = verify::Verify(loaded, model, inputs->tensors, verify_options);
  close_stage();
  if (!v.ok()) {
    return Failed(verify::kExitVerificationUnavailable, absl::StrCat("cannot verify: ", v.status().message()), report);
  }
  // A failing run without intermediates runs again keeping them, to name
  // the first diverging node.
  if (!v->passed && !options.intermediates) {
    log("verify: outputs differ; comparing intermediates to find the first diverging node");
    if (options.stage) options.stage("intermediates");
    verify_options.intermediates = true;
    verify_options.stage = nullptr;
    absl::StatusOr<verify::Verification> again = verify::Verify(loaded, model, inputs->tensors, verify_options);
    if (again.ok()) v = std::move(again);
  }
  report.verification = *v;
  VerifyOutcome outcome;
  outcome.verification = *v;
  if (v->passed) {
    size_t flagged = 0, random_outputs = 0, random_values = 0;
    for (const verify::ValueCheck& c : v->intermediates) {
      flagged += c.info.FailsOutputThresholds();
      random_values += !c.info.not_compared.empty();
    }
    for (const verify::ValueCheck& c : v->outputs) random_outputs += !c.info.not_compared.empty();
    outcome.summary = absl::StrCat(
        "passed: ", v->outputs.size() - random_outputs, " outputs within their dtype's thresholds (",
        verify::ThresholdsSummary(v->outputs), ")",
        options.intermediates
            ? absl::StrCat(", ", v->intermediates.size() - flagged - random_values, " of ",
                           v->intermediates.size() - random_values, " intermediate values too")
            : "",
        random_outputs + random_values > 0
            ? absl::StrCat("; not compared (derived from random numbers): ", random_outputs, " outputs",
                           options.intermediates ? absl::StrCat(", ", random_values, " intermediate values") : "")
            : "");
    report.steps.push_back({kRunEngines, verify::StepStatus::kOk});
    report.steps.push_back({kAccuracy, verify::StepStatus::kOk});
    return outcome;
  }
  std::string message = "verification failed: ";
  for (const verify::ValueCheck& c : v->outputs) {
    if (c.info.FailsOutputThresholds()) absl::StrAppend(&message, "output ", verify::DescribeDivergence(c), "; ");
  }
  if (v->first_divergence) {
    absl::StrAppend(&message, "first diverging node: ", verify::DescribeDivergence(*v->first_divergence));
    if (!v->first_divergence->origin.stack_trace.empty()) {
      absl::StrAppend(&message, "\n  stack trace of FX node '", v->first_divergence->origin.node_name, "':\n",
                      v->first_divergence->origin.stack_trace);
    }
  }
  VerifyOutcome failed = Failed(verify::kExitVerificationFailed, std::move(message), report);
  failed.verification = std::move(outcome.verification);
  return failed;
}

void FillReportCoverage(const pt2::LoadedProgram& loaded, const translate::OpRegistry* registry,
                        verify::ReportData& report) {
  std::optional<translate::OpRegistry> built_in;
  if (registry == nullptr) registry = &built_in.emplace(ops::CreateDefaultRegistry());
  std::set<std::string> unsupported;
  for (const pt2::Node& node : loaded.program.graph.nodes) {
    std::string key = translate::TargetToKey(node.target);
    if (!registry->Contains(key)) unsupported.insert(key);
  }
  report.unsupported.assign(unsupported.begin(), unsupported.end());
  report.reference_missing = reference::MissingKernels(loaded.program, reference::CreateReferenceRegistry());
}

}  // namespace pt2onnx
