// pt2onnx command-line tool: maps the .pt2, converts it, writes the model
// atomically. See --help (cli_flags.cc) for flags and exit codes.
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "export/converter.h"
#include "export/output_plan.h"
#include "export/report.h"
#include "core/pt2/pt2_reader.h"
#include "core/reference/interpreter.h"
#include "core/verify/report.h"
#include "core/version.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_reader.h"
#include "core/onnx/model_writer.h"
#include "core/status_util.h"
#include "native/atomic_file.h"
#include "native/cli_flags.h"
#include "native/apply_weights_command.h"
#include "native/inspect_command.h"
#include "native/json_record.h"
#include "native/mapped_file.h"
#include "native/test_hooks.h"
#include "native/verify_command.h"
#include "native/weight_splice.h"
#include "native/user_path.h"
#include "passes/pass_manager.h"
#include "translate/custom_translations.h"
#include "translate/registry.h"

namespace pt2onnx::native {
namespace {

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
    Advance(bytes.size());
    return status;
  }
  // Weights spliced from the input (weight_splice.h) pass through unread.
  absl::Status WriteSlice(const FileSlice& slice) override {
    absl::Status status = sink_.WriteSlice(slice);
    Advance(slice.size());
    return status;
  }

 private:
  onnx_writer::ByteSink& sink_;
  uint64_t total_;
  std::function<void(std::string)> log_;
  uint64_t written_ = 0;
  int reported_ = 0;

  void Advance(uint64_t bytes) {
    written_ += bytes;
    int decile = total_ == 0 ? 10 : static_cast<int>(std::min<uint64_t>(10, written_ * 10 / total_));
    if (decile > reported_ && decile < 10) {
      reported_ = decile;
      log_(absl::StrCat("  ", decile * 10, "% of the weights written"));
    }
  }
};

// Below this many weight bytes, writing is too quick to report progress.
constexpr uint64_t kProgressMinBytes = uint64_t{256} << 20;

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
    if (loaded.has_value()) {
      const ops::OpRegistry registry = ops::CreateDefaultRegistry();
      std::set<std::string> unsupported;
      for (const pt2::Node& node : loaded->program.graph.nodes) {
        std::string key = ops::TargetToKey(node.target);
        if (!registry.Contains(key)) unsupported.insert(key);
      }
      run_report.unsupported.assign(unsupported.begin(), unsupported.end());
      run_report.reference_missing = reference::MissingKernels(loaded->program, reference::CreateReferenceRegistry());
    }
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
  std::string output = ResolvePath(flags.output);

  // Read with pread, not mapped: weights are spliced into the output by the
  // kernel and never enter this process (weight_splice.h).
  absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(input);
  if (!file.ok()) return fail(kExitIo, file.status());
  log(absl::StrCat("reading ", flags.input, " (", HumanBytes((*file)->size()), ")"));

  ConvertOptions options;
  // --translations: user functions join a copy of the built-in registry.
  ops::OpRegistry registry;
  ops::CustomFunctionTable custom_functions;
  if (!flags.translations.empty()) {
    registry = ops::CreateDefaultRegistry();
    for (const std::string& path : flags.translations) {
      absl::StatusOr<MappedFile> library_file = MappedFile::Open(ResolvePath(path));
      if (!library_file.ok()) return fail(kExitIo, library_file.status());
      absl::StatusOr<std::vector<ir::Function>> library =
          onnx_reader::ReadFunctionLibrary(library_file->bytes());
      if (!library.ok()) return fail(kExitUsage, AnnotateStatus(library.status(), path));
      absl::Status added = ops::AddCustomTranslations(*library, flags.override_builtins, registry,
                                                      custom_functions);
      if (!added.ok()) return fail(kExitUsage, AnnotateStatus(added, path));
    }
    options.registry = &registry;
    options.translate.custom_functions = &custom_functions;
    options.translate.custom_functions_as_local = flags.translations_as_functions;
  } else if (flags.translations_as_functions) {
    return fail(kExitUsage, absl::InvalidArgumentError(
                                "--translations-as-functions needs a library (--translations FILE)"));
  }
  options.translate.opset = flags.opset;
  options.translate.input_names = flags.input_names;
  options.translate.output_names = flags.output_names;
  options.translate.dim_names = flags.dim_names;
  options.optimize = flags.optimize;
  options.passes.only = flags.passes;
  options.passes.folding = {flags.fold_max_input_elements, flags.fold_max_output_elements};
  options.passes.clock = [&clock] { return clock.Seconds(); };
  options.verify_weight_crc = flags.verify_crc;
  options.model_name = flags.model_name;
  ProgressFn progress = [&](absl::string_view stage, double fraction) {
    if (fraction == 0 && stage != "read") log(absl::StrCat(stage, "..."));
  };
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
  absl::StatusOr<Conversion> conversion = ConvertPt2(*file, options, progress);
  run_report.timings.push_back({"read, translate, optimize", clock.Seconds() - convert_start});
  step("Read the .pt2", conversion.ok() || loaded.has_value());
  step("Translate to ONNX (and optimize)", conversion.ok());
  if (!conversion.ok()) return fail(ExitCodeForConversion(conversion.status()), conversion.status());
  ApplyTestHooks(conversion->model);
  run_report.model = &conversion->model;
  for (const std::string& warning : conversion->warnings) log(absl::StrCat("warning: ", warning));
  const ConversionSummary& summary = conversion->summary;
  log(TranslatedLine(summary));
  if (!summary.symbolic_dims.empty()) log(SymbolicDimsLine(summary));
  // Always on (cheap): operator names and input/output counts per ONNX schema.
  if (absl::Status arity = onnx_writer::CheckArity(conversion->model); !arity.ok()) {
    return Fail(kExitInternal, arity);
  }
  // Shapes and dtypes declared from the file's metadata must match what the
  // operators compute; a hostile file can make them disagree.
  if (absl::Status shapes = onnx_writer::CheckInferredShapes(conversion->model); !shapes.ok()) {
    step("ONNX shape inference", false);
    run_report.errors.push_back(std::string(shapes.message()));
    write_report();
    return Fail(kExitInvalidInput, shapes);
  }
  step("ONNX operator and shape checks", true);

  if (flags.check) {
    if (flags.opset > onnx_writer::CheckerMaxOpset()) {
      log(absl::StrCat("skipping --check: the bundled ONNX checker knows opsets up to ",
                       onnx_writer::CheckerMaxOpset()));
    } else {
      ::onnx::ModelProto proto = onnx_writer::ToModelProto(conversion->model);
      absl::Status checked = onnx_writer::CheckModel(proto);
      step("onnx.checker", checked.ok());
      if (!checked.ok()) return fail(kExitInternal, checked);
      log("ONNX checker and shape inference: ok");
    }
  }

  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  ConversionSummary planned = summary;
  if (flags.no_weights) planned.initializer_bytes = 0;  // nothing to place
  absl::StatusOr<OutputPlan> plan = PlanOutput(
      planned,
      flags.no_weights                                 ? ExternalData::kNever
      : flags.external == CliFlags::External::kAlways  ? ExternalData::kAlways
      : flags.external == CliFlags::External::kNever ? ExternalData::kNever
                                                      : ExternalData::kAuto,
      output);
  if (!plan.ok()) return fail(kExitUsage, plan.status());  // --no-external-data cannot be honoured
  plan->write.include_initializers = !flags.no_weights;
  plan->write.initializers_as_inputs = flags.weights_as_inputs;
  const bool external = plan->external;

  absl::StatusOr<std::unique_ptr<AtomicFile>> model_file = AtomicFile::Create(output);
  if (!model_file.ok()) return fail(kExitIo, model_file.status());
  std::unique_ptr<AtomicFile> data_file;
  if (external) {
    absl::StatusOr<std::unique_ptr<AtomicFile>> created =
        AtomicFile::Create(absl::StrCat(output, ".data"));
    if (!created.ok()) return fail(kExitIo, created.status());
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
      onnx_writer::WriteModel(conversion->model, plan->write, *model_sink, data_sink);
  if (!written.ok()) return fail(kExitIo, written.status());
  if (data_file != nullptr) {
    absl::Status committed = data_file->Commit();
    if (!committed.ok()) return fail(kExitIo, committed);
  }
  absl::Status committed = (*model_file)->Commit();
  if (!committed.ok()) return fail(kExitIo, committed);

  log(WroteLine(flags.output, *written, flags.opset, summary));
  if (!flags.quiet) std::fprintf(stderr, "         %s\n", OpsLine(summary).c_str());
  if (flags.print_pass_stats) {
    std::fprintf(stderr, "%snodes: %lld translated, %lld after optimization\n",
                 passes::FormatPassStats(conversion->pass_stats).c_str(),
                 static_cast<long long>(summary.onnx_nodes_before_optimize),
                 static_cast<long long>(summary.onnx_nodes));
  }
  step("Write the ONNX model", true);
  if (flags.verify) {
    int verified = kExitInvalidInput;
    if (!loaded.has_value()) {
      run_report.errors.push_back("cannot verify: the program could not be read again");
    } else {
      verified = RunVerify(flags, mapped->bytes(), *loaded, conversion->model, log, run_report);
    }
    const bool ran = verified == kExitOk || verified == verify::kExitVerificationFailed;
    step("Run in the ATen reference interpreter and the executor", ran);
    step("Output accuracy (torch's thresholds)", verified == kExitOk);
    if (verified != kExitOk) {
      write_report();
      return verified;
    }
  }
  write_report();
  if (flags.json) {
    WrittenFiles files{flags.output, external ? absl::StrCat(flags.output, ".data") : "",
                       written->model_bytes, written->external_bytes};
    std::fputs(SuccessRecord(flags.input, files, flags.opset, summary, conversion->warnings,
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
