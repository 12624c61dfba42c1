// pt2onnx command-line tool: maps the .pt2 and runs Export (export/export.h)
// with atomic output files. See --help (cli_flags.cc) for flags and exit codes.
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "core/status_macros.h"
#include "export/exit_codes.h"
#include "export/export.h"
#include "export/report.h"
#include "core/version.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "native/atomic_file.h"
#include "native/cli_flags.h"
#include "native/inspect_command.h"
#include "native/json_record.h"
#include "native/mapped_file.h"
#include "translate/registry.h"

namespace pt2onnx::native {
namespace {

// Under `bazel run` the process starts in the runfiles tree; relative paths
// the user typed are relative to where they ran bazel.
std::string ResolvePath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd == nullptr || path.empty() || path[0] == '/') return path;
  return absl::StrCat(cwd, "/", path);
}

int Fail(int code, const absl::Status& status) {
  std::fprintf(stderr, "pt2onnx: error: %s\n", std::string(status.message()).c_str());
  return code;
}

class Clock {
 public:
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Forwards to `sink` and logs every 10% of `total` bytes, so writing a
// multi-GB model shows progress.
class ProgressSink : public ByteSink {
 public:
  ProgressSink(ByteSink& sink, uint64_t total, std::function<void(std::string)> log)
      : sink_(sink), total_(total), log_(std::move(log)) {}

  absl::Status Write(ByteSpan bytes) override {
    absl::Status status = sink_.Write(bytes);
    written_ += bytes.size();
    int decile = total_ == 0 ? 10 : static_cast<int>(std::min<uint64_t>(10, written_ * 10 / total_));
    if (decile > reported_ && decile < 10) {
      reported_ = decile;
      log_(absl::StrCat("  ", decile * 10, "% of the weights written"));
    }
    return status;
  }

 private:
  ByteSink& sink_;
  uint64_t total_;
  std::function<void(std::string)> log_;
  uint64_t written_ = 0;
  int reported_ = 0;
};

// Below this many weight bytes, writing is too quick to report progress.
constexpr uint64_t kProgressMinBytes = uint64_t{256} << 20;

// Atomic output files, created only once the plan is known; a conversion of
// more than kProgressMinBytes of weights logs every 10% written.
class FileSinks : public ExportSinks {
 public:
  FileSinks(std::string path, std::string display_name, bool report_progress,
            std::function<void(std::string)> log)
      : path_(std::move(path)), display_name_(std::move(display_name)),
        report_progress_(report_progress), log_(std::move(log)) {}

  absl::Status Open(const OutputPlan& plan, const ConversionSummary& summary) override {
    PT2ONNX_ASSIGN_OR_RETURN(model_file_, AtomicFile::Create(path_));
    if (plan.external) {
      PT2ONNX_ASSIGN_OR_RETURN(data_file_, AtomicFile::Create(absl::StrCat(path_, ".data")));
    }
    log_(absl::StrCat("writing ", display_name_, plan.external ? " (+ external data)" : ""));
    ByteSink& weights = data_file_ != nullptr ? static_cast<ByteSink&>(*data_file_) : *model_file_;
    if (report_progress_ && summary.initializer_bytes >= kProgressMinBytes) {
      progress_sink_ = std::make_unique<ProgressSink>(weights, summary.initializer_bytes, log_);
    }
    return absl::OkStatus();
  }
  ByteSink& model() override {
    if (progress_sink_ != nullptr && data_file_ == nullptr) return *progress_sink_;
    return *model_file_;
  }
  ByteSink& data() override {
    if (progress_sink_ != nullptr) return *progress_sink_;
    return *data_file_;
  }
  absl::Status Commit() override {
    if (data_file_ != nullptr) PT2ONNX_RETURN_IF_ERROR(data_file_->Commit());
    return model_file_->Commit();
  }

 private:
  std::string path_;
  std::string display_name_;
  bool report_progress_;
  std::function<void(std::string)> log_;
  std::unique_ptr<AtomicFile> model_file_;
  std::unique_ptr<AtomicFile> data_file_;
  std::unique_ptr<ProgressSink> progress_sink_;
};

// Report lines to stderr with timestamps; the start of each stage but
// reading and writing, which have their own lines.
class LogProgress : public ExportProgress {
 public:
  explicit LogProgress(std::function<void(std::string)> log) : log_(std::move(log)) {}
  void Line(absl::string_view line) override { log_(std::string(line)); }
  void Stage(absl::string_view stage, double fraction) override {
    if (fraction == 0 && stage != "read" && stage != "write") log_(absl::StrCat(stage, "..."));
  }

 private:
  std::function<void(std::string)> log_;
};

// Checks the CLI runs before writing: operator arity (always; cheap), the
// declared shapes against ONNX shape inference (a hostile file can make them
// disagree), and the full ONNX checker with --check.
std::vector<ModelCheck> CliChecks(const CliFlags& flags, const std::function<void(std::string)>& log) {
  std::vector<ModelCheck> checks;
  checks.push_back({[](const ir::Model& model) { return onnx_writer::CheckArity(model); },
                    kExitInternal});
  checks.push_back({[](const ir::Model& model) { return onnx_writer::CheckInferredShapes(model); },
                    kExitInvalidInput});
  if (!flags.check) return checks;
  checks.push_back({[&flags, log](const ir::Model& model) -> absl::Status {
                      if (flags.opset > onnx_writer::CheckerMaxOpset()) {
                        log(absl::StrCat("skipping --check: the bundled ONNX checker knows opsets up to ",
                                         onnx_writer::CheckerMaxOpset()));
                        return absl::OkStatus();
                      }
                      ::onnx::ModelProto proto = onnx_writer::ToModelProto(model);
                      PT2ONNX_RETURN_IF_ERROR(onnx_writer::CheckModel(proto));
                      log("ONNX checker and shape inference: ok");
                      return absl::OkStatus();
                    },
                    kExitInternal});
  return checks;
}

int Run(const CliFlags& flags) {
  Clock clock;
  std::function<void(std::string)> log = [&](std::string line) {
    if (!flags.quiet) std::fprintf(stderr, "[%6.2fs] %s\n", clock.Seconds(), line.c_str());
  };
  // --json: one record on stdout for the run, success or failure (json_record.h).
  auto fail = [&](int code, const absl::Status& status) {
    if (flags.json) std::fputs(FailureRecord(flags.input, code, status, clock.Seconds()).c_str(), stdout);
    return Fail(code, status);
  };
  absl::StatusOr<MappedFile> file = MappedFile::Open(ResolvePath(flags.input));
  if (!file.ok()) return fail(kExitIo, file.status());

  ExportOptions options;
  options.convert.translate.opset = flags.opset;
  options.convert.translate.input_names = flags.input_names;
  options.convert.translate.output_names = flags.output_names;
  options.convert.translate.dim_names = flags.dim_names;
  options.convert.optimize = flags.optimize;
  options.convert.verify_weight_crc = flags.verify_crc;
  options.convert.model_name = flags.model_name;
  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  options.external = flags.external == CliFlags::External::kAlways  ? ExternalData::kAlways
                     : flags.external == CliFlags::External::kNever ? ExternalData::kNever
                                                                     : ExternalData::kAuto;
  options.input_name = flags.input;
  options.output_name = flags.output;
  options.checks = CliChecks(flags, log);
  FileSinks sinks(ResolvePath(flags.output), flags.output, !flags.quiet, log);
  LogProgress progress(log);
  ExportResult result =
      Export(std::make_shared<MemoryFile>(file->bytes()), options, sinks, progress);
  if (!result.status.ok()) return fail(result.exit_code, result.status);

  const Conversion& conversion = *result.conversion;
  if (!flags.quiet) std::fprintf(stderr, "         %s\n", OpsLine(conversion.summary).c_str());
  if (flags.json) {
    WrittenFiles files{flags.output, result.plan->external ? absl::StrCat(flags.output, ".data") : "",
                       result.written.model_bytes, result.written.external_bytes};
    std::fputs(SuccessRecord(flags.input, files, flags.opset, conversion.summary,
                             conversion.warnings, clock.Seconds()).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace
}  // namespace pt2onnx::native

int main(int argc, char** argv) {
  using namespace pt2onnx;
  using namespace pt2onnx::native;
  std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<CliFlags> flags = ParseCliFlags(args);
  if (!flags.ok()) {
    std::fprintf(stderr, "pt2onnx: %s\n", std::string(flags.status().message()).c_str());
    return kExitUsage;
  }
  if (flags->help) {
    std::fputs(UsageText().c_str(), stdout);
    return kExitOk;
  }
  if (flags->version) {
    std::printf("pt2onnx %s\n", pt2onnx::kPt2OnnxVersion);
    return kExitOk;
  }
  if (flags->list_ops) {
    for (const std::string& key : pt2onnx::ops::CreateDefaultRegistry().Keys()) {
      std::printf("%s\n", key.c_str());
    }
    return kExitOk;
  }
  InstallOutputSignalHandlers();
  // The last line of defence: an allocation or a dependency that throws is
  // reported as an internal error (exit 1), never an abort. Temporaries are
  // deleted by the unwinding AtomicFile destructors.
  try {
    if (flags->inspect) return RunInspect(*flags, ResolvePath(flags->input));
    return Run(*flags);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "pt2onnx: error: out of memory while converting '%s'\n",
                 flags->input.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pt2onnx: error: internal error: %s\n", e.what());
  }
  return kExitInternal;
}
