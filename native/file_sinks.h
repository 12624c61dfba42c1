// File: native/file_sinks.h
// -----------------------------------------------------------------------------
// FileSinks: where Export() (export/export.h) writes for the CLI. The model,
// and "<model>.data" when the plan puts the weights apart, go to temporaries
// beside them (AtomicFile) that Commit renames into place, so a failed export
// leaves no file behind; weights read from an FdInputFile are spliced by the
// kernel (weight_splice.h). Open logs "writing ..." and, for weights of
// 256 MiB or more, every 10% of them written.
//
//   FileSinks sinks(ResolvePath(flags.output), flags.output, log, !flags.quiet);
//   ExportResult result = Export(input, options, sinks, progress);
#ifndef PT2ONNX_NATIVE_FILE_SINKS_H_
#define PT2ONNX_NATIVE_FILE_SINKS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "core/io/byte_sink.h"
#include "export/export.h"
#include "native/atomic_file.h"
#include "native/spliced_crc.h"

namespace pt2onnx::native {

class FileSinks : public ExportSinks {
 public:
  using Log = std::function<void(const std::string&)>;
  // `path`: where the model goes; `shown_path`: as the user named it, for
  // the log. Weight progress is logged only with `weights_progress`.
  FileSinks(std::string path, std::string shown_path, Log log, bool weights_progress);
  ~FileSinks() override;

  // I/O errors: the destination is not a regular file, the temporary cannot
  // be created.
  absl::Status Open(const OutputPlan& plan, const ConversionSummary& summary) override;
  ByteSink& model() override { return *model_sink_; }
  ByteSink& data() override { return *data_sink_; }
  // The data file first, then the model; with a CRC check, the entries it
  // has not seen while copying are checked before anything is committed.
  absl::Status Commit() override;

  // Checks the weights' CRC-32 of `input` as they are spliced
  // (spliced_crc.h); call before Export(). The check reads the archive's
  // directory in Open, once the conversion has accepted the file.
  void CheckCrcOf(std::shared_ptr<const FdInputFile> input) { crc_input_ = std::move(input); }
  // Whether a weight's CRC-32 mismatched (the export's error is then a
  // corrupt input, not an I/O error).
  bool found_corrupt() const { return crc_check_ != nullptr && crc_check_->found_corrupt(); }

 private:
  class ProgressSink;

  std::string path_;
  std::string shown_path_;
  Log log_;
  bool weights_progress_;
  std::unique_ptr<AtomicFile> model_file_;
  std::unique_ptr<AtomicFile> data_file_;  // when the plan is external
  std::unique_ptr<ProgressSink> progress_;
  ByteSink* model_sink_ = nullptr;
  ByteSink* data_sink_ = nullptr;
  std::shared_ptr<const FdInputFile> crc_input_;
  std::unique_ptr<SplicedCrcCheck> crc_check_;
  std::optional<SplicedCrcCheck::Sink> checked_model_, checked_data_;
};

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_FILE_SINKS_H_
