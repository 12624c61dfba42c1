#include "export/export.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "export/exit_codes.h"
#include "export/report.h"

namespace pt2onnx {
namespace {

using ExternalData = onnx_writer::WriteOptions::ExternalData;

ExportResult Failed(ExportResult result, int exit_code, absl::Status status) {
  result.exit_code = exit_code;
  result.status = std::move(status);
  return result;
}

}  // namespace

ExportResult Export(std::shared_ptr<const InputFile> input, const ExportOptions& options,
                    ExportSinks& sinks, ExportProgress& progress) {
  ExportResult result;
  progress.Line(absl::StrCat("reading ", options.input_name, " (", HumanBytes(input->size()), ")"));
  ProgressFn on_stage = [&](absl::string_view stage, double fraction) {
    progress.Stage(stage, fraction);
  };
  absl::StatusOr<Conversion> conversion = ConvertPt2(std::move(input), options.convert, on_stage);
  if (!conversion.ok()) {
    // A file that could not be read (a browser File gone) is an I/O problem.
    const bool io = conversion.status().code() == absl::StatusCode::kUnavailable;
    return Failed(std::move(result), io ? kExitIo : ExitCodeForConversion(conversion.status()),
                  conversion.status());
  }
  result.conversion = *std::move(conversion);
  if (options.on_converted) options.on_converted(*result.conversion);
  const Conversion& converted = *result.conversion;
  for (const std::string& warning : converted.warnings) progress.Line(absl::StrCat("warning: ", warning));
  progress.Line(TranslatedLine(converted.summary));
  if (!converted.summary.symbolic_dims.empty()) progress.Line(SymbolicDimsLine(converted.summary));
  for (const ModelCheck& check : options.checks) {
    if (absl::Status checked = check.run(converted.model); !checked.ok()) {
      return Failed(std::move(result), check.exit_code, std::move(checked));
    }
  }

  ConversionSummary planned = converted.summary;
  if (!options.include_weights) planned.initializer_bytes = 0;  // nothing to place
  absl::StatusOr<OutputPlan> plan = PlanOutput(
      planned, options.include_weights ? options.external : ExternalData::kNever, options.output_name);
  // kNever with weights over 2 GiB: an option that cannot be honoured.
  if (!plan.ok()) return Failed(std::move(result), kExitUsage, plan.status());
  plan->write.include_initializers = options.include_weights;
  plan->write.initializers_as_inputs = options.weights_as_inputs;
  result.plan = *plan;
  progress.Stage("write", 0);
  if (absl::Status opened = sinks.Open(*plan, converted.summary); !opened.ok()) {
    return Failed(std::move(result), kExitIo, std::move(opened));
  }
  absl::StatusOr<onnx_writer::WriteSummary> written = onnx_writer::WriteModel(
      converted.model, plan->write, sinks.model(), plan->external ? &sinks.data() : nullptr);
  if (!written.ok()) return Failed(std::move(result), kExitIo, written.status());
  if (absl::Status committed = sinks.Commit(); !committed.ok()) {
    return Failed(std::move(result), kExitIo, std::move(committed));
  }
  result.written = *written;
  progress.Stage("write", 1);
  progress.Line(WroteLine(options.output_name, *written, options.convert.translate.opset,
                          converted.summary));
  return result;
}

}  // namespace pt2onnx
