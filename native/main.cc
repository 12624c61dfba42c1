// pt2onnx command-line tool: opens the .pt2 and its output files and hands
// the conversion to Export() (export/export.h), as the wasm module does; adds
// what only the CLI has (--check, --verify, --report, --json, pass stats).
// See --help (cli_flags.cc) for flags and exit codes.
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "export/converter.h"
#include "export/exit_codes.h"
#include "export/export.h"
#include "export/report.h"
#include "export/verify_run.h"
#include "core/pt2/pt2_reader.h"
#include "reference/interpreter.h"
#include "verify/report.h"
#include "core/version.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_reader.h"
#include "core/onnx/model_writer.h"
#include "core/status_util.h"
#include "native/atomic_file.h"
#include "native/cli_flags.h"
#include "native/file_sinks.h"
#include "native/apply_weights_command.h"
#include "native/inspect_command.h"
#include "native/json_record.h"
#include "native/mapped_file.h"
#include "native/test_hooks.h"
#include "native/verify_command.h"
#include "native/spliced_crc.h"
#include "native/weight_splice.h"
#include "native/user_path.h"
#include "passes/pass_manager.h"
#include "translate/custom_translations.h"
#include "translate/registry.h"

namespace pt2onnx::native {
namespace {

using ExternalData = onnx_writer::WriteOptions::ExternalData;

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
  explicit LogProgress(std::function<void(const std::string&)> log) : log_(std::move(log)) {}
  void Line(absl::string_view line) override { log_(std::string(line)); }
  // FileSinks says "writing ..." itself.
  void Stage(absl::string_view stage, double fraction) override {
    if (fraction == 0 && stage != "read" && stage != "write") log_(absl::StrCat(stage, "..."));
  }

 private:
  std::function<void(const std::string&)> log_;
};

// --translations: user functions join a copy of the built-in registry.
// Exit code and status on failure.
std::optional<std::pair<int, absl::Status>> LoadTranslations(const CliFlags& flags,
                                                              ops::OpRegistry& registry,
                                                              ops::CustomFunctionTable& functions) {
  registry = ops::CreateDefaultRegistry();
  for (const std::string& path : flags.translations) {
    absl::StatusOr<MappedFile> library_file = MappedFile::Open(ResolvePath(path));
    if (!library_file.ok()) return std::make_pair(kExitIo, library_file.status());
    absl::StatusOr<std::vector<ir::Function>> library =
        onnx_reader::ReadFunctionLibrary(library_file->bytes());
    if (!library.ok()) return std::make_pair(kExitUsage, AnnotateStatus(library.status(), path));
    absl::Status added =
        ops::AddCustomTranslations(*library, flags.override_builtins, registry, functions);
    if (!added.ok()) return std::make_pair(kExitUsage, AnnotateStatus(added, path));
  }
  return std::nullopt;
}

int Run(const CliFlags& flags) {
  Clock clock;
  auto log = [&](const std::string& line) {
    if (!flags.quiet) std::fprintf(stderr, "[%6.2fs] %s\n", clock.Seconds(), line.c_str());
  };
  // --report: filled as the run goes, written at the end or on failure.
  verify::ReportData run_report;
  run_report.model_path = flags.input;
  run_report.output_path = flags.output;
  run_report.producer = absl::StrCat("pt2onnx ", kPt2OnnxVersion);
  std::optional<pt2::LoadedProgram> loaded;  // for --verify and --report
  auto write_report = [&]() {
    if (!flags.report) return;
    if (loaded.has_value()) FillReportCoverage(*loaded, run_report);
    absl::Status written = WriteTextFile(ResolvePath(flags.report_path), verify::RenderReport(run_report));
    if (!written.ok()) {
      std::fprintf(stderr, "pt2onnx: error: cannot write the report: %s\n", std::string(written.message()).c_str());
    } else if (!flags.quiet) {
      std::fprintf(stderr, "[%6.2fs] wrote report %s\n", clock.Seconds(), flags.report_path.c_str());
    }
  };
  auto step = [&](const std::string& name, bool ok) {
    run_report.steps.push_back({name, ok ? verify::StepStatus::kOk : verify::StepStatus::kFailed});
  };
  // --json: one record on stdout for the run, success or failure (json_record.h).
  auto fail = [&](int code, const absl::Status& status) {
    if (flags.json) std::fputs(FailureRecord(flags.input, code, status, clock.Seconds()).c_str(), stdout);
    run_report.errors.push_back(std::string(status.message()));
    write_report();
    return Fail(code, status);
  };
  std::string input = ResolvePath(flags.input);

  // Read with pread, not mapped: weights are spliced into the output by the
  // kernel and never enter this process (weight_splice.h).
  absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(input);
  if (!file.ok()) return fail(kExitIo, file.status());

  ExportOptions options;
  ConvertOptions& convert = options.convert;
  ops::OpRegistry registry;
  ops::CustomFunctionTable custom_functions;
  if (!flags.translations.empty()) {
    if (auto failed = LoadTranslations(flags, registry, custom_functions)) {
      return fail(failed->first, failed->second);
    }
    convert.registry = &registry;
    convert.translate.custom_functions = &custom_functions;
    convert.translate.custom_functions_as_local = flags.translations_as_functions;
  } else if (flags.translations_as_functions) {
    return fail(kExitUsage, absl::InvalidArgumentError(
                                "--translations-as-functions needs a library (--translations FILE)"));
  }
  convert.translate.opset = flags.opset;
  convert.translate.input_names = flags.input_names;
  convert.translate.output_names = flags.output_names;
  convert.translate.dim_names = flags.dim_names;
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
  options.input_name = flags.input;
  options.output_name = flags.output;

  // --verify and --report read the program again, weights included, so they
  // map the whole input; a plain conversion never does.
  std::optional<MappedFile> mapped;
  if (flags.verify || flags.report) {
    absl::StatusOr<MappedFile> whole = MappedFile::Open(input);
    if (!whole.ok()) return fail(kExitIo, whole.status());
    mapped = *std::move(whole);
    absl::StatusOr<pt2::LoadedProgram> read = pt2::LoadPt2(mapped->bytes(), flags.model_name);
    if (read.ok()) {
      loaded = *std::move(read);
      run_report.program = &*loaded;
    }
  }

  const double convert_start = clock.Seconds();
  auto conversion_done = [&](bool ok) {
    run_report.timings.push_back({"read, translate, optimize", clock.Seconds() - convert_start});
    step("Read the .pt2", ok || loaded.has_value());
    step("Translate to ONNX (and optimize)", ok);
  };
  options.on_converted = [&](Conversion& conversion) {
    conversion_done(true);
    ApplyTestHooks(conversion.model);
  };
  // A failed arity or shape check ends with its message alone (no --json
  // record); the shape check writes the report itself.
  bool message_only = false;
  // Always on (cheap): operator names and input/output counts per ONNX schema.
  options.checks.push_back({[&](const ir::Model& model) {
                              absl::Status arity = onnx_writer::CheckArity(model);
                              message_only = !arity.ok();
                              return arity;
                            },
                            kExitInternal});
  // Shapes and dtypes declared from the file's metadata must match what the
  // operators compute; a hostile file can make them disagree.
  options.checks.push_back({[&](const ir::Model& model) {
                              absl::Status shapes = onnx_writer::CheckInferredShapes(model);
                              if (shapes.ok()) {
                                step("ONNX operator and shape checks", true);
                                return shapes;
                              }
                              step("ONNX shape inference", false);
                              run_report.model = &model;
                              run_report.errors.push_back(std::string(shapes.message()));
                              write_report();
                              message_only = true;
                              return shapes;
                            },
                            kExitInvalidInput});
  if (flags.check) {
    options.checks.push_back({[&](const ir::Model& model) {
                                if (flags.opset > onnx_writer::CheckerMaxOpset()) {
                                  log(absl::StrCat("skipping --check: the bundled ONNX checker knows opsets up to ",
                                                   onnx_writer::CheckerMaxOpset()));
                                  return absl::OkStatus();
                                }
                                ::onnx::ModelProto proto = onnx_writer::ToModelProto(model);
                                absl::Status checked = onnx_writer::CheckModel(proto);
                                step("onnx.checker", checked.ok());
                                if (checked.ok()) log("ONNX checker and shape inference: ok");
                                return checked;
                              },
                              kExitInternal});
  }

  FileSinks sinks(ResolvePath(flags.output), flags.output, log, !flags.quiet);
  if (flags.verify_crc) sinks.CheckCrcOf(*file);
  LogProgress progress(log);
  ExportResult result = Export(*file, options, sinks, progress);
  if (!result.conversion.has_value()) conversion_done(false);
  else run_report.model = &result.conversion->model;
  // A write that stopped on a CRC mismatch is a corrupt input, not an I/O error.
  if (sinks.found_corrupt()) result.exit_code = kExitInvalidInput;
  if (!result.status.ok()) {
    if (message_only) return Fail(result.exit_code, result.status);
    return fail(result.exit_code, result.status);
  }
  const Conversion& conversion = *result.conversion;
  const ConversionSummary& summary = conversion.summary;
  if (!flags.quiet) std::fprintf(stderr, "         %s\n", OpsLine(summary).c_str());
  if (flags.print_pass_stats) {
    std::fprintf(stderr, "%snodes: %lld translated, %lld after optimization\n",
                 passes::FormatPassStats(conversion.pass_stats).c_str(),
                 static_cast<long long>(summary.onnx_nodes_before_optimize),
                 static_cast<long long>(summary.onnx_nodes));
  }
  step("Write the ONNX model", true);
  if (flags.verify) {
    int verified = kExitInvalidInput;
    if (!loaded.has_value()) {
      run_report.errors.push_back("cannot verify: the program could not be read again");
      step("Run in the ATen reference interpreter and the executor", false);
      step("Output accuracy (torch's thresholds)", false);
    } else {
      // Fills the two verification steps of the report (export/verify_run.h).
      verified = RunVerify(flags, mapped->bytes(), *loaded, conversion.model, log, run_report);
    }
    if (verified != kExitOk) {
      write_report();
      return verified;
    }
  }
  write_report();
  if (flags.json) {
    const bool external = result.plan->external;
    WrittenFiles files{flags.output, external ? absl::StrCat(flags.output, ".data") : "",
                       result.written.model_bytes, result.written.external_bytes};
    std::fputs(SuccessRecord(flags.input, files, flags.opset, summary, conversion.warnings,
                             clock.Seconds()).c_str(), stdout);
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
    if (flags->apply_weights) {
      return RunApplyWeights(*flags, ResolvePath(flags->input), ResolvePath(flags->weights_from),
                             ResolvePath(flags->output));
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
