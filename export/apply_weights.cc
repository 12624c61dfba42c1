#include "export/apply_weights.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/onnx/model_writer.h"
#include "core/onnx/weight_apply.h"
#include "export/exit_codes.h"
#include "export/output_plan.h"

namespace pt2onnx {

ExportResult ApplyWeights(const InputFile& model, std::shared_ptr<const InputFile> weights,
                          const ApplyWeightsOptions& options, ExportSinks& sinks,
                          ExportProgress& progress) {
  ExportResult result;
  auto fail = [&](int code, absl::Status status) {
    result.exit_code = code;
    result.status = std::move(status);
    return std::move(result);
  };
  absl::StatusOr<onnx_writer::ModelForWeights> target = onnx_writer::ReadModelForWeights(model);
  if (!target.ok()) {
    return fail(kExitInvalidInput,
                absl::Status(target.status().code(),
                             absl::StrCat(options.model_name, ": ", target.status().message())));
  }

  ConvertOptions convert = options.convert;
  if (!options.opset_given && target->opset != 0) {
    convert.translate.opset = static_cast<int>(target->opset);
  }
  progress.Line(absl::StrCat("converting ", options.weights_name, " at opset ",
                             convert.translate.opset, " for its weights"));
  absl::StatusOr<Conversion> source = ConvertPt2(std::move(weights), convert);
  if (!source.ok()) {
    // A file that could not be read is an I/O problem, as in Export.
    const bool io = source.status().code() == absl::StatusCode::kUnavailable;
    return fail(io ? kExitIo : ExitCodeForConversion(source.status()), source.status());
  }

  onnx_writer::WriteOptions as_target;  // framed as a model without weights declared
  const std::string source_graph = onnx_writer::FrameModel(source->model, as_target).graph_fields;
  if (absl::Status fits = onnx_writer::CheckWeightsFit(*target, source->model, source_graph);
      !fits.ok()) {
    return fail(kExitInvalidInput,
                absl::InvalidArgumentError(absl::StrCat("the weights of ", options.weights_name,
                                                        " do not fit ", options.model_name, ": ",
                                                        fits.message())));
  }

  absl::StatusOr<OutputPlan> plan =
      PlanOutput(source->summary, options.external, options.output_name);
  if (!plan.ok()) return fail(kExitUsage, plan.status());
  if (absl::Status opened = sinks.Open(*plan, source->summary); !opened.ok()) {
    return fail(kExitIo, opened);
  }
  absl::StatusOr<onnx_writer::WriteSummary> written = onnx_writer::WriteFramedModel(
      target->framing, source->model.graph.initializers, plan->write, sinks.model(),
      plan->external ? &sinks.data() : nullptr);
  if (!written.ok()) return fail(kExitIo, written.status());
  if (absl::Status committed = sinks.Commit(); !committed.ok()) return fail(kExitIo, committed);
  progress.Line(absl::StrCat("wrote ", options.output_name, " with ",
                             source->model.graph.initializers.size(), " weights (",
                             HumanBytes(written->initializer_bytes), ") from ",
                             options.weights_name,
                             written->external ? " in external data" : ""));
  result.written = *written;
  result.plan = *std::move(plan);
  result.conversion = *std::move(source);
  return result;
}

}  // namespace pt2onnx
