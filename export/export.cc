#include "export/export.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "export/exit_codes.h"
#include "export/report.h"

namespace pt2onnx {
namespace {

using ExternalData = onnx_writer::WriteOptions::ExternalData;

ExportResult Failed(ExportResult result, ExportStep step, int exit_code, absl::Status status) {
  result.failed_at = step;
  result.exit_code = exit_code;
  result.status = std::move(status);
  return result;
}

// A read or conversion failure: a file that could not be read (a browser
// File gone) is an I/O problem, anything else is the input's.
int ConversionExitCode(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ? kExitIo : ExitCodeForConversion(status);
}

// The checks every result passes before anything is written, in order;
// `result.failed_at` says which one failed.
absl::Status CheckModel(const ExportOptions& options, ExportProgress& progress, ExportResult& result) {
  const ir::Model& model = result.conversion->model;
  auto fail = [&](ExportStep step, int exit_code, absl::Status status) {
    result.failed_at = step;
    result.exit_code = exit_code;
    return status;
  };
  // Cheap: operator names and input/output counts per ONNX schema (a
  // translation that breaks them is our bug).
  if (absl::Status arity = onnx_writer::CheckArity(model); !arity.ok()) {
    return fail(ExportStep::kArityCheck, kExitInternal, std::move(arity));
  }
  // Shapes and dtypes declared from the file's metadata must match what the
  // operators compute; a hostile file can make them disagree.
  if (absl::Status shapes = onnx_writer::CheckInferredShapes(model); !shapes.ok()) {
    return fail(ExportStep::kShapeCheck, kExitInvalidInput, std::move(shapes));
  }
  if (options.onnx_checker) {
    const int opset = options.convert.translate.opset;
    if (opset > onnx_writer::CheckerMaxOpset()) {
      progress.Line(absl::StrCat("skipping --check: the bundled ONNX checker knows opsets up to ",
                                 onnx_writer::CheckerMaxOpset()));
    } else {
      result.onnx_checker_ran = true;
      ::onnx::ModelProto proto = onnx_writer::ToModelProto(model);
      if (absl::Status checked = onnx_writer::CheckModel(proto); !checked.ok()) {
        return fail(ExportStep::kOnnxChecker, kExitInternal, std::move(checked));
      }
      progress.Line("ONNX checker and shape inference: ok");
    }
  }
  for (const ModelCheck& check : options.checks) {
    if (absl::Status checked = check.run(model); !checked.ok()) {
      return fail(ExportStep::kOtherCheck, check.exit_code, std::move(checked));
    }
  }
  return absl::OkStatus();
}

}  // namespace

ExportResult Export(std::shared_ptr<const InputFile> input, const ExportOptions& options,
                    ExportSinks& sinks, ExportProgress& progress) {
  ExportResult result;
  progress.Line(absl::StrCat("reading ", options.input_name, " (", HumanBytes(input->size()), ")"));
  ProgressFn on_stage = [&](absl::string_view stage, double fraction) {
    progress.Stage(stage, fraction);
  };
  const uint64_t input_size = input->size();
  absl::StatusOr<std::shared_ptr<const pt2::LoadedProgram>> program =
      ReadPt2(std::move(input), options.convert, on_stage);
  if (!program.ok()) {
    return Failed(std::move(result), ExportStep::kRead, ConversionExitCode(program.status()), program.status());
  }
  result.program = *program;
  absl::StatusOr<Conversion> conversion = ConvertProgram(*std::move(program), input_size, options.convert, on_stage);
  if (!conversion.ok()) {
    return Failed(std::move(result), ExportStep::kTranslate, ConversionExitCode(conversion.status()),
                  conversion.status());
  }
  result.conversion = *std::move(conversion);
  if (options.on_converted) options.on_converted(*result.conversion);
  const Conversion& converted = *result.conversion;
  for (const std::string& warning : converted.warnings) progress.Line(absl::StrCat("warning: ", warning));
  progress.Line(TranslatedLine(converted.summary));
  if (!converted.summary.symbolic_dims.empty()) progress.Line(SymbolicDimsLine(converted.summary));
  if (!converted.summary.kv_cache.groups.empty()) progress.Line(KvCacheLine(converted.summary));
  if (absl::Status checked = CheckModel(options, progress, result); !checked.ok()) {
    result.status = std::move(checked);
    return result;
  }
  if (!options.write) return result;

  ConversionSummary planned = converted.summary;
  if (!options.include_weights) planned.initializer_bytes = 0;  // nothing to place
  absl::StatusOr<OutputPlan> plan = PlanOutput(
      planned, options.include_weights ? options.external : ExternalData::kNever, options.output_name);
  // kNever with weights over 2 GiB: an option that cannot be honoured.
  if (!plan.ok()) return Failed(std::move(result), ExportStep::kPlan, kExitUsage, plan.status());
  plan->write.include_initializers = options.include_weights;
  plan->write.initializers_as_inputs = options.weights_as_inputs;
  result.plan = *plan;
  progress.Stage("write", 0);
  if (absl::Status opened = sinks.Open(*plan, converted.summary); !opened.ok()) {
    return Failed(std::move(result), ExportStep::kWrite, kExitIo, std::move(opened));
  }
  absl::StatusOr<onnx_writer::WriteSummary> written = onnx_writer::WriteModel(
      converted.model, plan->write, sinks.model(), plan->external ? &sinks.data() : nullptr);
  if (!written.ok()) return Failed(std::move(result), ExportStep::kWrite, kExitIo, written.status());
  if (absl::Status committed = sinks.Commit(); !committed.ok()) {
    return Failed(std::move(result), ExportStep::kWrite, kExitIo, std::move(committed));
  }
  result.written = *written;
  progress.Stage("write", 1);
  progress.Line(WroteLine(options.output_name, *written, options.convert.translate.opset,
                          converted.summary));
  return result;
}

}  // namespace pt2onnx
