#include "native/apply_weights_command.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "export/converter.h"
#include "export/exit_codes.h"
#include "export/output_plan.h"
#include "core/onnx/model_writer.h"
#include "core/onnx/weight_apply.h"
#include "native/atomic_file.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {

int RunApplyWeights(const CliFlags& flags, const std::string& model_path,
                    const std::string& weights_path, const std::string& output_path) {
  auto fail = [](int code, const absl::Status& status) {
    std::fprintf(stderr, "pt2onnx: error: %s\n", std::string(status.message()).c_str());
    return code;
  };
  auto log = [&](const std::string& line) {
    if (!flags.quiet) std::fprintf(stderr, "%s\n", line.c_str());
  };
  absl::StatusOr<std::shared_ptr<FdInputFile>> model_file = FdInputFile::Open(model_path);
  if (!model_file.ok()) return fail(kExitIo, model_file.status());
  absl::StatusOr<onnx_writer::ModelForWeights> target =
      onnx_writer::ReadModelForWeights(**model_file);
  if (!target.ok()) {
    return fail(kExitInvalidInput, absl::Status(target.status().code(),
                                                absl::StrCat(flags.input, ": ", target.status().message())));
  }

  absl::StatusOr<std::shared_ptr<FdInputFile>> weights_file = FdInputFile::Open(weights_path);
  if (!weights_file.ok()) return fail(kExitIo, weights_file.status());
  ConvertOptions options;
  options.translate.opset = flags.opset_given || target->opset == 0 ? flags.opset
                                                                    : static_cast<int>(target->opset);
  options.translate.input_names = flags.input_names;
  options.translate.output_names = flags.output_names;
  options.translate.dim_names = flags.dim_names;
  options.optimize = flags.optimize;
  options.verify_weight_crc = flags.verify_crc;
  options.model_name = flags.model_name;
  log(absl::StrCat("converting ", flags.weights_from, " at opset ", options.translate.opset,
                   " for its weights"));
  absl::StatusOr<Conversion> source = ConvertPt2(*weights_file, options);
  if (!source.ok()) return fail(ExitCodeForConversion(source.status()), source.status());

  onnx_writer::WriteOptions as_target;  // framed as a model without weights declared
  const std::string source_graph = onnx_writer::FrameModel(source->model, as_target).graph_fields;
  if (absl::Status fits = onnx_writer::CheckWeightsFit(*target, source->model, source_graph);
      !fits.ok()) {
    return fail(kExitInvalidInput,
                absl::InvalidArgumentError(absl::StrCat("the weights of ", flags.weights_from,
                                                        " do not fit ", flags.input, ": ",
                                                        fits.message())));
  }

  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  absl::StatusOr<OutputPlan> plan = PlanOutput(
      source->summary,
      flags.external == CliFlags::External::kAlways  ? ExternalData::kAlways
      : flags.external == CliFlags::External::kNever ? ExternalData::kNever
                                                      : ExternalData::kAuto,
      output_path);
  if (!plan.ok()) return fail(kExitUsage, plan.status());
  absl::StatusOr<std::unique_ptr<AtomicFile>> out = AtomicFile::Create(output_path);
  if (!out.ok()) return fail(kExitIo, out.status());
  std::unique_ptr<AtomicFile> data;
  if (plan->external) {
    absl::StatusOr<std::unique_ptr<AtomicFile>> created =
        AtomicFile::Create(absl::StrCat(output_path, ".data"));
    if (!created.ok()) return fail(kExitIo, created.status());
    data = *std::move(created);
  }
  absl::StatusOr<onnx_writer::WriteSummary> written = onnx_writer::WriteFramedModel(
      target->framing, source->model.graph.initializers, plan->write, **out, data.get());
  if (!written.ok()) return fail(kExitIo, written.status());
  if (data != nullptr) {
    if (absl::Status committed = data->Commit(); !committed.ok()) return fail(kExitIo, committed);
  }
  if (absl::Status committed = (*out)->Commit(); !committed.ok()) return fail(kExitIo, committed);
  log(absl::StrCat("wrote ", flags.output, " with ", source->model.graph.initializers.size(),
                   " weights (", HumanBytes(written->initializer_bytes), ") from ", flags.weights_from,
                   written->external ? " in external data" : ""));
  return kExitOk;
}

}  // namespace pt2onnx::native
