#include "native/apply_weights_command.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "export/apply_weights.h"
#include "export/exit_codes.h"
#include "export/output_plan.h"
#include "native/atomic_file.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {
namespace {

// The output (and its .data) as temporaries renamed once complete.
class AtomicSinks : public ExportSinks {
 public:
  explicit AtomicSinks(std::string path) : path_(std::move(path)) {}

  absl::Status Open(const OutputPlan& plan, const ConversionSummary&) override {
    PT2ONNX_ASSIGN_OR_RETURN(model_, AtomicFile::Create(path_));
    if (plan.external) {
      PT2ONNX_ASSIGN_OR_RETURN(data_, AtomicFile::Create(absl::StrCat(path_, ".data")));
    }
    return absl::OkStatus();
  }
  ByteSink& model() override { return *model_; }
  ByteSink& data() override { return *data_; }
  absl::Status Commit() override {
    if (data_ != nullptr) PT2ONNX_RETURN_IF_ERROR(data_->Commit());
    return model_->Commit();
  }

 private:
  std::string path_;
  std::unique_ptr<AtomicFile> model_;
  std::unique_ptr<AtomicFile> data_;
};

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
  options.convert.verify_weight_crc = flags.verify_crc;
  options.convert.model_name = flags.model_name;
  options.external = flags.external == CliFlags::External::kAlways  ? ExternalData::kAlways
                     : flags.external == CliFlags::External::kNever ? ExternalData::kNever
                                                                     : ExternalData::kAuto;
  options.model_name = flags.input;
  options.weights_name = flags.weights_from;
  options.output_name = flags.output;
  AtomicSinks sinks(output_path);
  LogProgress progress(flags.quiet);
  ExportResult result = ApplyWeights(**model_file, *weights_file, options, sinks, progress);
  if (!result.status.ok()) return fail(result.exit_code, result.status);
  return kExitOk;
}

}  // namespace pt2onnx::native
