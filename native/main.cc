// pt2onnx command-line tool: maps the .pt2, converts it, writes the model
// atomically. See --help (cli_flags.cc) for flags and exit codes.
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "core/export/converter.h"
#include "core/version.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "native/atomic_file.h"
#include "native/cli_flags.h"
#include "native/mapped_file.h"
#include "ops/registry.h"

namespace pt2onnx::native {
namespace {

// Under `bazel run` the process starts in the runfiles tree; relative paths
// the user typed are relative to where they ran bazel.
std::string ResolvePath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd == nullptr || path.empty() || path[0] == '/') return path;
  return absl::StrCat(cwd, "/", path);
}

std::string HumanBytes(uint64_t n) {
  if (n >= (uint64_t{1} << 30)) return absl::StrFormat("%.2f GiB", n / double(uint64_t{1} << 30));
  if (n >= (uint64_t{1} << 20)) return absl::StrFormat("%.1f MiB", n / double(uint64_t{1} << 20));
  if (n >= 1024) return absl::StrFormat("%.1f KiB", n / 1024.0);
  return absl::StrCat(n, " B");
}

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnimplemented: return kExitUnsupported;
    case absl::StatusCode::kInternal: return kExitInternal;
    default: return kExitInvalidInput;
  }
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
class ProgressSink : public onnx_writer::ByteSink {
 public:
  ProgressSink(onnx_writer::ByteSink& sink, uint64_t total, std::function<void(std::string)> log)
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
  onnx_writer::ByteSink& sink_;
  uint64_t total_;
  std::function<void(std::string)> log_;
  uint64_t written_ = 0;
  int reported_ = 0;
};

// Below this many weight bytes, writing is too quick to report progress.
constexpr uint64_t kProgressMinBytes = uint64_t{256} << 20;

int Run(const CliFlags& flags) {
  Clock clock;
  auto log = [&](const std::string& line) {
    if (!flags.quiet) std::fprintf(stderr, "[%6.2fs] %s\n", clock.Seconds(), line.c_str());
  };
  std::string input = ResolvePath(flags.input);
  std::string output = ResolvePath(flags.output);

  absl::StatusOr<MappedFile> file = MappedFile::Open(input);
  if (!file.ok()) return Fail(kExitIo, file.status());
  log(absl::StrCat("reading ", flags.input, " (", HumanBytes(file->bytes().size()), ")"));

  ConvertOptions options;
  options.translate.opset = flags.opset;
  options.translate.input_names = flags.input_names;
  options.translate.output_names = flags.output_names;
  options.translate.dim_names = flags.dim_names;
  options.optimize = flags.optimize;
  options.model_name = flags.model_name;
  ProgressFn progress = [&](absl::string_view stage, double fraction) {
    if (fraction == 0 && stage != "read") log(absl::StrCat(stage, "..."));
  };
  absl::StatusOr<Conversion> conversion = ConvertPt2(file->bytes(), options, progress);
  if (!conversion.ok()) return Fail(ExitCodeFor(conversion.status()), conversion.status());
  for (const std::string& warning : conversion->warnings) log(absl::StrCat("warning: ", warning));
  const ConversionSummary& summary = conversion->summary;
  log(absl::StrCat("translated ", summary.fx_nodes, " FX nodes (", summary.layout, ", torch ",
                   summary.torch_version.empty() ? "?" : summary.torch_version, ", schema ",
                   summary.schema_major, ".", summary.schema_minor, ") into ", summary.onnx_nodes,
                   " ONNX nodes"));

  if (flags.check) {
    if (flags.opset > onnx_writer::CheckerMaxOpset()) {
      log(absl::StrCat("skipping --check: the bundled ONNX checker knows opsets up to ",
                       onnx_writer::CheckerMaxOpset()));
    } else {
      ::onnx::ModelProto proto = onnx_writer::ToModelProto(conversion->model);
      absl::Status checked = onnx_writer::CheckModel(proto);
      if (!checked.ok()) return Fail(kExitInternal, checked);
      log("ONNX checker and shape inference: ok");
    }
  }

  onnx_writer::WriteOptions write;
  write.external_data = flags.external == CliFlags::External::kAlways
                            ? onnx_writer::WriteOptions::ExternalData::kAlways
                        : flags.external == CliFlags::External::kNever
                            ? onnx_writer::WriteOptions::ExternalData::kNever
                            : onnx_writer::WriteOptions::ExternalData::kAuto;
  std::string base = output.substr(output.find_last_of('/') + 1);
  write.external_data_location = absl::StrCat(base, ".data");
  bool external = onnx_writer::UsesExternalData(summary.initializer_bytes, write);
  if (!external && summary.initializer_bytes > (uint64_t{2000} << 20)) {
    return Fail(kExitUnsupported,
                absl::FailedPreconditionError(absl::StrCat(
                    "the weights (", HumanBytes(summary.initializer_bytes),
                    ") exceed protobuf's 2 GiB limit; drop --no-external-data")));
  }

  absl::StatusOr<std::unique_ptr<AtomicFile>> model_file = AtomicFile::Create(output);
  if (!model_file.ok()) return Fail(kExitIo, model_file.status());
  std::unique_ptr<AtomicFile> data_file;
  if (external) {
    absl::StatusOr<std::unique_ptr<AtomicFile>> created =
        AtomicFile::Create(absl::StrCat(output, ".data"));
    if (!created.ok()) return Fail(kExitIo, created.status());
    data_file = *std::move(created);
  }
  log(absl::StrCat("writing ", flags.output, external ? " (+ external data)" : ""));
  std::function<void(std::string)> log_line = [&](std::string line) { log(line); };
  bool report = !flags.quiet && summary.initializer_bytes >= kProgressMinBytes;
  onnx_writer::ByteSink& weights_sink =
      data_file != nullptr ? static_cast<onnx_writer::ByteSink&>(*data_file) : **model_file;
  ProgressSink progress_sink(weights_sink, summary.initializer_bytes, log_line);
  onnx_writer::ByteSink* model_sink = model_file->get();
  onnx_writer::ByteSink* data_sink = data_file.get();
  if (report && data_file != nullptr) data_sink = &progress_sink;
  if (report && data_file == nullptr) model_sink = &progress_sink;
  absl::StatusOr<onnx_writer::WriteSummary> written =
      onnx_writer::WriteModel(conversion->model, write, *model_sink, data_sink);
  if (!written.ok()) return Fail(kExitIo, written.status());
  if (data_file != nullptr) {
    absl::Status committed = data_file->Commit();
    if (!committed.ok()) return Fail(kExitIo, committed);
  }
  absl::Status committed = (*model_file)->Commit();
  if (!committed.ok()) return Fail(kExitIo, committed);

  std::vector<std::string> top;
  for (const auto& [op, count] : summary.op_histogram) top.push_back(absl::StrCat(op, " ", count));
  log(absl::StrCat("wrote ", flags.output, " (", HumanBytes(written->model_bytes),
                   written->external ? absl::StrCat(" + ", HumanBytes(written->external_bytes), " data")
                                     : "",
                   "): opset ", flags.opset, ", ", summary.onnx_nodes, " nodes, ",
                   summary.parameters, " parameters"));
  if (!flags.quiet) std::fprintf(stderr, "         ops: %s\n", absl::StrJoin(top, ", ").c_str());
  return kExitOk;
}

}  // namespace
}  // namespace pt2onnx::native

int main(int argc, char** argv) {
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
  return Run(*flags);
}
