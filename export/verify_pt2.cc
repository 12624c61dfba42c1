#include "export/verify_pt2.h"

#include <utility>

#include "export/exit_codes.h"
#include "export/report.h"
#include "export/report_steps.h"

namespace pt2onnx {
namespace {

using verify::StepStatus;

StepStatus StatusOf(bool ok) { return ok ? StepStatus::kOk : StepStatus::kFailed; }

// The checklist steps of the export, from where it stopped.
void AddExportSteps(const ExportOptions& options, const ExportResult& exported, verify::ReportData& report) {
  report.steps.push_back({report_steps::kRead, StatusOf(exported.program != nullptr)});
  report.steps.push_back({report_steps::kTranslate, StatusOf(exported.conversion.has_value())});
  if (!exported.conversion.has_value()) return;
  switch (exported.failed_at) {
    case ExportStep::kArityCheck: report.steps.push_back({report_steps::kChecks, StepStatus::kFailed}); return;
    case ExportStep::kShapeCheck:
      report.steps.push_back({report_steps::kShapeInference, StepStatus::kFailed});
      return;
    default: report.steps.push_back({report_steps::kChecks, StepStatus::kOk}); break;
  }
  if (exported.onnx_checker_ran) {
    report.steps.push_back({report_steps::kOnnxChecker, StatusOf(exported.failed_at != ExportStep::kOnnxChecker)});
  }
  if (exported.status.ok() && options.write) report.steps.push_back({report_steps::kWrite, StepStatus::kOk});
}

// The report's header: the files and the producer.
VerifyPt2Result Started(const VerifyPt2Options& options) {
  VerifyPt2Result result;
  result.report.model_path = options.exported.input_name;
  result.report.output_path = options.exported.output_name;
  result.report.producer = ProducerName();
  return result;
}

}  // namespace

VerifyPt2Result VerifyPt2NotStarted(const VerifyPt2Options& options, int exit_code, const absl::Status& status) {
  VerifyPt2Result result = Started(options);
  result.exit_code = exit_code;
  result.message = std::string(status.message());
  result.report.errors.push_back(result.message);
  return result;
}

std::string VerifyPt2Result::RenderReport() {
  // Set here, not in VerifyPt2: the result may have moved since.
  report.program = exported.program.get();
  report.model = exported.conversion.has_value() ? &exported.conversion->model : nullptr;
  return verify::RenderReport(report);
}

VerifyPt2Result VerifyPt2(std::shared_ptr<const InputFile> input, const VerifyPt2Options& options,
                          ExportSinks& sinks, ExportProgress& progress) {
  VerifyPt2Result result = Started(options);
  verify::ReportData& report = result.report;
  auto now = [&] { return options.clock ? options.clock() : 0.0; };

  const double started = now();
  bool timed = false;
  auto time_conversion = [&] {
    if (!timed && options.clock) report.timings.push_back({"read, translate, optimize", now() - started});
    timed = true;
  };
  ExportOptions exporting = options.exported;
  exporting.on_converted = [&](Conversion& conversion) {
    time_conversion();
    if (options.exported.on_converted) options.exported.on_converted(conversion);
  };
  result.exported = Export(input, exporting, sinks, progress);
  const ExportResult& exported = result.exported;
  time_conversion();
  AddExportSteps(options.exported, exported, report);
  if (options.report && exported.program != nullptr) {
    FillReportCoverage(*exported.program, options.exported.convert.registry, report);
  }
  if (!exported.status.ok()) {
    result.exit_code = exported.exit_code;
    result.message = std::string(exported.status.message());
    report.errors.push_back(result.message);
    return result;
  }
  if (options.on_exported) options.on_exported(exported);
  if (!options.verify) return result;

  VerifyRunOptions run = options.run;
  if (!run.clock) run.clock = options.clock;
  VerifyOutcome outcome =
      RunVerification(std::move(input), *exported.program, exported.conversion->model, run, report);
  result.exit_code = outcome.exit_code;
  result.message = outcome.message;
  if (options.node_data && outcome.verification.has_value()) {
    const ir::Model& model = exported.conversion->model;
    result.node_data = NodeData{
        verify::NodeDataJson(*outcome.verification, model, verify::NodeDataField::kMaxAbsDiff),
        verify::NodeDataJson(*outcome.verification, model, verify::NodeDataField::kMaxRelDiff)};
  }
  result.verified = std::move(outcome);
  return result;
}

}  // namespace pt2onnx
