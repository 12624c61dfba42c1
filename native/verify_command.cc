#include "native/verify_command.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "export/exit_codes.h"
#include "core/runtime/npz/npz.h"
#include "core/verify/inputs.h"
#include "core/verify/node_data.h"
#include "core/verify/sample_inputs.h"
#include "core/verify/verifier.h"
#include "native/atomic_file.h"
#include "native/mapped_file.h"
#include "native/user_path.h"

namespace pt2onnx::native {
namespace {

int Fail(int code, const std::string& message, verify::ReportData& report) {
  std::fprintf(stderr, "pt2onnx: error: %s\n", message.c_str());
  report.errors.push_back(message);
  return code;
}

std::string CheckLine(const verify::ValueCheck& c) {
  return absl::StrFormat("%s %-24s max_abs_diff %-10.3g max_rel_diff %-10.3g %s", c.is_output ? "output" : "value ",
                         c.info.name, c.info.max_abs_diff, c.info.max_rel_diff,
                         c.info.FailsOutputThresholds() ? "FAIL" : "ok");
}

}  // namespace

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(ResolvePath(path));
  if (!file.ok()) return file.status();
  absl::Status s = (*file)->Write(AsBytes(text));
  if (s.ok()) s = (*file)->Commit();
  return s;
}

int RunVerify(const CliFlags& flags, ByteSpan file_bytes, const pt2::LoadedProgram& loaded, const ir::Model& model,
              const std::function<void(const std::string&)>& log, verify::ReportData& report) {
  using Clock = std::chrono::steady_clock;
  absl::StatusOr<verify::ChosenInputs> inputs;
  if (flags.verify_inputs == "seeded") {
    inputs = verify::SeededInputs(loaded.program);
  } else if (!flags.verify_inputs.empty()) {
    absl::StatusOr<MappedFile> file = MappedFile::Open(ResolvePath(flags.verify_inputs));
    if (!file.ok()) return Fail(kExitIo, std::string(file.status().message()), report);
    absl::StatusOr<std::vector<runtime::NamedTensor>> arrays = runtime::ReadNpz(file->bytes());
    if (!arrays.ok()) return Fail(kExitInvalidInput, absl::StrCat(flags.verify_inputs, ": ", arrays.status().message()), report);
    inputs = verify::GivenInputs(loaded.program, *std::move(arrays), flags.verify_inputs);
  } else {
    absl::StatusOr<std::optional<verify::ChosenInputs>> sample =
        verify::ArchiveSampleInputs(std::make_shared<MemoryFile>(file_bytes), loaded);
    if (!sample.ok()) log(absl::StrCat("verify: not using the archive's example inputs: ", sample.status().message()));
    if (sample.ok() && sample->has_value()) {
      inputs = **std::move(sample);
    } else {
      inputs = verify::SeededInputs(loaded.program);
    }
  }
  if (!inputs.ok()) return Fail(kExitInvalidInput, std::string(inputs.status().message()), report);
  log(absl::StrCat("verify: inputs ", inputs->source));
  for (const std::string& line : inputs->lines) log(absl::StrCat("  ", line));
  report.inputs_source = inputs->source;
  report.inputs_lines = inputs->lines;

  verify::VerifyOptions options;
  options.intermediates = flags.verify_intermediates;
  std::string current;
  Clock::time_point started = Clock::now();
  auto close_stage = [&] {
    if (current.empty()) return;
    const double s = std::chrono::duration<double>(Clock::now() - started).count();
    report.timings.push_back({absl::StrCat("verify: ", current), s});
    if (current != "compare") log(absl::StrFormat("verify: %s %.3f s", current == "reference" ? "reference interpreter" : "executor", s));
  };
  options.stage = [&](const std::string& stage) {
    close_stage();
    current = stage;
    started = Clock::now();
  };
  absl::StatusOr<verify::Verification> v = verify::Verify(loaded, model, inputs->tensors, options);
  close_stage();
  if (!v.ok()) {
    return Fail(verify::kExitVerificationUnavailable, absl::StrCat("cannot verify: ", v.status().message()), report);
  }
  // A failing run without intermediates runs again keeping them, to name
  // the first diverging node.
  if (!v->passed && !flags.verify_intermediates) {
    log("verify: outputs differ; comparing intermediates to find the first diverging node");
    options.intermediates = true;
    options.stage = nullptr;
    absl::StatusOr<verify::Verification> again = verify::Verify(loaded, model, inputs->tensors, options);
    if (again.ok()) v = std::move(again);
  }
  report.verification = *v;
  if (!flags.verify_node_data.empty()) {
    for (auto [field, suffix] : {std::pair{verify::NodeDataField::kMaxAbsDiff, "_max_abs_diff.json"},
                                 std::pair{verify::NodeDataField::kMaxRelDiff, "_max_rel_diff.json"}}) {
      const std::string path = absl::StrCat(flags.verify_node_data, suffix);
      absl::Status written = WriteTextFile(path, verify::NodeDataJson(*v, model, field));
      if (!written.ok()) return Fail(kExitIo, std::string(written.message()), report);
      log(absl::StrCat("verify: wrote ", path));
    }
  }
  if (!flags.quiet) {
    for (const verify::ValueCheck& c : v->outputs) std::fprintf(stderr, "         %s\n", CheckLine(c).c_str());
  }
  size_t flagged = 0;
  for (const verify::ValueCheck& c : v->intermediates) flagged += c.info.FailsOutputThresholds();
  if (v->passed) {
    log(absl::StrCat("verify: passed: ", v->outputs.size(), " outputs within torch's thresholds (abs < 5e-3, rel < 1e-1)",
                     flags.verify_intermediates ? absl::StrCat(", ", v->intermediates.size() - flagged, " of ",
                                                               v->intermediates.size(), " intermediate values too")
                                                : ""));
    return kExitOk;
  }
  std::string message = "verification failed: ";
  for (const verify::ValueCheck& c : v->outputs) {
    if (c.info.FailsOutputThresholds()) absl::StrAppend(&message, "output ", verify::DescribeDivergence(c), "; ");
  }
  if (v->first_divergence) {
    absl::StrAppend(&message, "first diverging node: ", verify::DescribeDivergence(*v->first_divergence));
    if (!v->first_divergence->origin.stack_trace.empty()) {
      absl::StrAppend(&message, "\n  stack trace of FX node '", v->first_divergence->origin.node_name, "':\n",
                      v->first_divergence->origin.stack_trace);
    }
  }
  return Fail(verify::kExitVerificationFailed, message, report);
}

}  // namespace pt2onnx::native
