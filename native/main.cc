// pt2onnx command-line tool: opens the .pt2 and its output files and hands
// the run to export/ (VerifyPt2: Export(), then --verify, with the report),
// as the wasm module does; adds what only the CLI has: files, the --json
// record, the --report file, timestamps on stderr, pass statistics.
// See --help (cli_flags.cc) for flags and exit codes.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "export/catalog.h"
#include "export/exit_codes.h"
#include "export/export.h"
#include "export/report.h"
#include "export/translations.h"
#include "export/verify_pt2.h"
#include "native/apply_weights_command.h"
#include "native/atomic_file.h"
#include "native/cli_flags.h"
#include "native/file_sinks.h"
#include "native/folder_command.h"
#include "native/inspect_command.h"
#include "native/json_record.h"
#include "native/test_hooks.h"
#include "native/translation_files.h"
#include "native/user_path.h"
#include "native/verify_command.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {
namespace {

using ExternalData = onnx_writer::WriteOptions::ExternalData;
using Log = std::function<void(const std::string&)>;

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

// Export's report lines on stderr, with the start of each conversion stage.
class LogProgress : public ExportProgress {
 public:
  explicit LogProgress(Log log) : log_(std::move(log)) {}
  void Line(absl::string_view line) override { log_(std::string(line)); }
  // FileSinks says "writing ..." itself.
  void Stage(absl::string_view stage, double fraction) override {
    if (fraction == 0 && stage != "read" && stage != "write") log_(absl::StrCat(stage, "..."));
  }

 private:
  Log log_;
};

// What a conversion writes besides the model: timestamped progress, the
// --report file, the --json record, the error line.
class RunOutput {
 public:
  RunOutput(const CliFlags& flags, const Clock& clock) : flags_(flags), clock_(clock) {}

  Log log() const {
    return [this](const std::string& line) {
      if (!flags_.quiet) std::fprintf(stderr, "[%6.2fs] %s\n", clock_.Seconds(), line.c_str());
    };
  }

  // --report: written at the end, or on failure.
  void WriteReport(VerifyPt2Result& run) const {
    if (!flags_.report) return;
    absl::Status written = WriteTextFile(ResolvePath(flags_.report_path), run.RenderReport());
    if (!written.ok()) {
      std::fprintf(stderr, "pt2onnx: error: cannot write the report: %s\n", std::string(written.message()).c_str());
    } else if (!flags_.quiet) {
      std::fprintf(stderr, "[%6.2fs] wrote report %s\n", clock_.Seconds(), flags_.report_path.c_str());
    }
  }

  // A run that failed before or during the export: the --json record, the
  // report (holding the error), then the error line.
  int Failed(int code, const absl::Status& status, VerifyPt2Result& run) const {
    if (flags_.json) std::fputs(FailureRecord(flags_.input, code, status, clock_.Seconds()).c_str(), stdout);
    WriteReport(run);
    return Fail(code, status);
  }

  // A failure before the export started (no input, no translations).
  int FailedBeforeExport(int code, const absl::Status& status, const VerifyPt2Options& options) const {
    VerifyPt2Result run = VerifyPt2NotStarted(options, code, status);
    return Failed(code, status, run);
  }

  // --json on success.
  void Succeeded(const VerifyPt2Result& run) const {
    if (!flags_.json) return;
    const ExportResult& result = run.exported;
    const bool external = result.plan->external;
    WrittenFiles files{flags_.output, external ? absl::StrCat(flags_.output, ".data") : "",
                       result.written.model_bytes, result.written.external_bytes};
    std::fputs(SuccessRecord(flags_.input, files, flags_.opset, result.conversion->summary,
                             result.conversion->warnings, clock_.Seconds()).c_str(), stdout);
  }

 private:
  const CliFlags& flags_;
  const Clock& clock_;
};

// The conversion the flags ask for (translations apart).
ExportOptions ExportOptionsFor(const CliFlags& flags, const Clock& clock) {
  ExportOptions options;
  ConvertOptions& convert = options.convert;
  convert.translate.opset = flags.opset;
  convert.translate.input_names = flags.input_names;
  convert.translate.output_names = flags.output_names;
  convert.translate.dim_names = flags.dim_names;
  convert.kv_cache = flags.kv_cache_static ? KvCacheForm::kStatic : KvCacheForm::kDynamic;
  convert.optimize = flags.optimize;
  convert.passes.only = flags.passes;
  convert.passes.folding = {flags.fold_max_input_elements, flags.fold_max_output_elements};
  convert.passes.clock = [&clock] { return clock.Seconds(); };
  // The weights' CRC-32 is checked while they are written (spliced_crc.h).
  convert.verify_weight_crc = false;
  convert.model_name = flags.model_name;
  options.external = flags.external == CliFlags::External::kAlways ? ExternalData::kAlways
                     : flags.external == CliFlags::External::kNever ? ExternalData::kNever
                                                                    : ExternalData::kAuto;
  options.include_weights = !flags.no_weights;
  options.weights_as_inputs = flags.weights_as_inputs;
  options.onnx_checker = flags.check;
  options.input_name = flags.input;
  options.output_name = flags.output;
  options.on_converted = [](Conversion& conversion) { ApplyTestHooks(conversion.model); };
  return options;
}

// The operator counts and, with --print-pass-stats, the optimizer's work,
// printed once the model is written (before any verification).
void PrintConversion(const CliFlags& flags, const ExportResult& result) {
  const Conversion& conversion = *result.conversion;
  const ConversionSummary& summary = conversion.summary;
  if (!flags.quiet) std::fprintf(stderr, "         %s\n", OpsLine(summary).c_str());
  if (flags.print_pass_stats) std::fputs(PassStatsText(conversion).c_str(), stderr);
}

int Run(const CliFlags& flags) {
  Clock clock;
  const RunOutput output(flags, clock);
  VerifyPt2Options options;
  options.exported = ExportOptionsFor(flags, clock);
  options.verify = flags.verify;
  options.report = flags.report;
  options.node_data = !flags.verify_node_data.empty();
  options.run = VerifyRunOptionsFor(flags, output.log());
  options.clock = [&clock] { return clock.Seconds(); };
  options.on_exported = [&flags](const ExportResult& result) { PrintConversion(flags, result); };

  // Read with pread, not mapped: weights are spliced into the output by the
  // kernel and never enter this process (weight_splice.h); --verify reads
  // the ones it needs through the same file.
  absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(ResolvePath(flags.input));
  if (!file.ok()) return output.FailedBeforeExport(kExitIo, file.status(), options);
  int exit_code = kExitOk;
  absl::StatusOr<std::unique_ptr<Translations>> translations = LoadTranslationFiles(flags, exit_code);
  if (!translations.ok()) return output.FailedBeforeExport(exit_code, translations.status(), options);
  if (*translations != nullptr) {
    (*translations)->ApplyTo(options.exported.convert, flags.translations_as_functions);
  } else if (flags.translations_as_functions) {
    return output.FailedBeforeExport(
        kExitUsage,
        absl::InvalidArgumentError("--translations-as-functions needs a library (--translations FILE)"),
        options);
  }

  FileSinks sinks(ResolvePath(flags.output), flags.output, output.log(), !flags.quiet);
  if (flags.verify_crc) sinks.CheckCrcOf(*file);
  LogProgress progress(output.log());
  VerifyPt2Result run = VerifyPt2(*file, options, sinks, progress);
  if (!run.exported.status.ok()) {
    // A write that stopped on a CRC mismatch is a corrupt input, not an I/O error.
    return output.Failed(sinks.found_corrupt() ? kExitInvalidInput : run.exported.exit_code, run.exported.status,
                         run);
  }
  if (flags.verify) {
    if (int verified = PrintVerification(flags, run, output.log()); verified != kExitOk) {
      output.WriteReport(run);
      return verified;
    }
  }
  output.WriteReport(run);
  output.Succeeded(run);
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
    std::printf("%s\n", ProducerName().c_str());
    return kExitOk;
  }
  if (flags->list_ops) {
    for (const std::string& key : SupportedOps()) std::printf("%s\n", key.c_str());
    return kExitOk;
  }
  if (flags->list_refused) {
    for (const std::string& line : RefusedOps()) std::printf("%s\n", line.c_str());
    return kExitOk;
  }
  InstallOutputSignalHandlers();
  // The last line of defence: an allocation or a dependency that throws is
  // reported as an internal error (exit 1), never an abort. Temporaries are
  // deleted by the unwinding AtomicFile destructors.
  try {
    if (flags->apply_weights) {
      return RunApplyWeights(*flags, ResolvePath(flags->input), ResolvePath(flags->weights_from),
                             ResolvePath(flags->output));
    }
    if (flags->verify_generation) return RunVerifyGeneration(*flags);
    if (IsFolder(flags->input) && flags->inspect) return RunFolderInspect(*flags);
    if (IsFolder(flags->input)) {
      if (flags->json || flags->report || !flags->translations.empty() || !flags->verify_inputs.empty() ||
          !flags->verify_node_data.empty()) {
        std::fprintf(stderr,
                     "pt2onnx: --json, --report, --translations, --inputs and --verify-node-data do not apply to a "
                     "folder yet (--verify does; for the others, convert a component's .pt2 alone)\n");
        return kExitUsage;
      }
      // The folder names its components' inputs, outputs and dims itself.
      if (!flags->input_names.empty() || !flags->output_names.empty() || !flags->dim_names.empty() ||
          !flags->model_name.empty() || flags->external != CliFlags::External::kAuto) {
        std::fprintf(stderr,
                     "pt2onnx: --input-names, --output-names, --dim-name, --model and --(no-)external-data do not "
                     "apply to a folder: its export.json names each component's inputs and outputs, and the "
                     "weights always go to <component>.onnx.data\n");
        return kExitUsage;
      }
      return RunFolder(*flags, [](Conversion& conversion) { ApplyTestHooks(conversion.model); });
    }
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
