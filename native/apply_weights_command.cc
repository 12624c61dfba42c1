#include "native/apply_weights_command.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "export/apply_weights.h"
#include "export/exit_codes.h"
#include "export/output_plan.h"
#include "native/file_sinks.h"
#include "native/translation_files.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {
namespace {

class LogProgress : public ExportProgress {
 public:
  explicit LogProgress(bool quiet) : quiet_(quiet) {}
  void Line(absl::string_view line) override {
    if (!quiet_) std::fprintf(stderr, "%s\n", std::string(line).c_str());
  }

 private:
  bool quiet_;
};

}  // namespace

int RunApplyWeights(const CliFlags& flags, const std::string& model_path,
                    const std::string& weights_path, const std::string& output_path) {
  auto fail = [](int code, const absl::Status& status) {
    std::fprintf(stderr, "pt2onnx: error: %s\n", std::string(status.message()).c_str());
    return code;
  };
  absl::StatusOr<std::shared_ptr<FdInputFile>> model_file = FdInputFile::Open(model_path);
  if (!model_file.ok()) return fail(kExitIo, model_file.status());
  absl::StatusOr<std::shared_ptr<FdInputFile>> weights_file = FdInputFile::Open(weights_path);
  if (!weights_file.ok()) return fail(kExitIo, weights_file.status());

  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  ApplyWeightsOptions options;
  options.convert.translate.opset = flags.opset;
  options.opset_given = flags.opset_given;
  options.convert.translate.input_names = flags.input_names;
  options.convert.translate.output_names = flags.output_names;
  options.convert.translate.dim_names = flags.dim_names;
  options.convert.optimize = flags.optimize;
  // The weights' CRC-32 is checked while they are copied, as a conversion
  // does (spliced_crc.h), not in a pass of its own before.
  options.convert.verify_weight_crc = false;
  options.convert.model_name = flags.model_name;
  options.external = flags.external == CliFlags::External::kAlways  ? ExternalData::kAlways
                     : flags.external == CliFlags::External::kNever ? ExternalData::kNever
                                                                     : ExternalData::kAuto;
  options.model_name = flags.input;
  options.weights_name = flags.weights_from;
  options.output_name = flags.output;
  // A model with operators a library translates gets its weights the same way.
  int exit_code = kExitOk;
  absl::StatusOr<std::unique_ptr<Translations>> translations = LoadTranslationFiles(flags, exit_code);
  if (!translations.ok()) return fail(exit_code, translations.status());
  if (*translations != nullptr) (*translations)->ApplyTo(options.convert, flags.translations_as_functions);
  LogProgress progress(flags.quiet);
  FileSinks sinks(output_path, flags.output, [&](const std::string& line) { progress.Line(line); },
                  !flags.quiet);
  if (flags.verify_crc) sinks.CheckCrcOf(*weights_file);
  ExportResult result = ApplyWeights(**model_file, *weights_file, options, sinks, progress);
  // A write that stopped on a CRC mismatch is a corrupt input, not an I/O error.
  if (sinks.found_corrupt()) result.exit_code = kExitInvalidInput;
  if (!result.status.ok()) return fail(result.exit_code, result.status);
  return kExitOk;
}

}  // namespace pt2onnx::native
