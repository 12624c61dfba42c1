#include "native/verify_command.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "export/exit_codes.h"
#include "runtime/npz/npz.h"
#include "verify/node_data.h"
#include "verify/verifier.h"
#include "export/verify_run.h"
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

// Before the engines ran: both verification steps fail in the report.
int FailBeforeRun(int code, const std::string& message, verify::ReportData& report) {
  report.steps.push_back({"Run in the ATen reference interpreter and the executor", verify::StepStatus::kFailed});
  report.steps.push_back({"Output accuracy (torch's thresholds)", verify::StepStatus::kFailed});
  return Fail(code, message, report);
}

std::string CheckLine(const verify::ValueCheck& c) {
  if (!c.info.not_compared.empty()) {
    return absl::StrFormat("%s %-24s not compared: %s", c.is_output ? "output" : "value ", c.info.name,
                           c.info.not_compared);
  }
  return absl::StrFormat("%s %-24s max_abs_diff %-10.3g max_rel_diff %-10.3g %-4s %s: %s",
                         c.is_output ? "output" : "value ", c.info.name, c.info.max_abs_diff, c.info.max_rel_diff,
                         c.info.FailsOutputThresholds() ? "FAIL" : "ok", DataTypeName(c.info.expected_dtype),
                         c.info.thresholds.Text());
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
  const Clock::time_point origin = Clock::now();
  VerifyRunOptions options;
  options.intermediates = flags.verify_intermediates;
  options.log = log;
  options.clock = [origin] { return std::chrono::duration<double>(Clock::now() - origin).count(); };
  if (flags.verify_inputs == "seeded") {
    options.inputs = VerifyInputs::kSeeded;
  } else if (!flags.verify_inputs.empty()) {
    absl::StatusOr<MappedFile> file = MappedFile::Open(ResolvePath(flags.verify_inputs));
    if (!file.ok()) return FailBeforeRun(kExitIo, std::string(file.status().message()), report);
    absl::StatusOr<std::vector<NamedTensor>> arrays = runtime::ReadNpz(file->bytes());
    if (!arrays.ok()) return FailBeforeRun(kExitInvalidInput, absl::StrCat(flags.verify_inputs, ": ", arrays.status().message()), report);
    options.inputs = VerifyInputs::kGiven;
    options.given = *std::move(arrays);
    options.given_source = flags.verify_inputs;
  }
  VerifyOutcome outcome = RunVerification(std::make_shared<MemoryFile>(file_bytes), loaded, model, options, report);
  if (outcome.exit_code != kExitOk && !outcome.verification) {
    std::fprintf(stderr, "pt2onnx: error: %s\n", outcome.message.c_str());
    return outcome.exit_code;
  }
  const verify::Verification& v = *outcome.verification;
  if (!flags.verify_node_data.empty()) {
    for (auto [field, suffix] : {std::pair{verify::NodeDataField::kMaxAbsDiff, "_max_abs_diff.json"},
                                 std::pair{verify::NodeDataField::kMaxRelDiff, "_max_rel_diff.json"}}) {
      const std::string path = absl::StrCat(flags.verify_node_data, suffix);
      absl::Status written = WriteTextFile(path, verify::NodeDataJson(v, model, field));
      if (!written.ok()) return Fail(kExitIo, std::string(written.message()), report);
      log(absl::StrCat("verify: wrote ", path));
    }
  }
  if (!flags.quiet) {
    for (const verify::ValueCheck& c : v.outputs) std::fprintf(stderr, "         %s\n", CheckLine(c).c_str());
  }
  if (outcome.exit_code == kExitOk) {
    log(absl::StrCat("verify: ", outcome.summary));
    return kExitOk;
  }
  std::fprintf(stderr, "pt2onnx: error: %s\n", outcome.message.c_str());
  return outcome.exit_code;
}

}  // namespace pt2onnx::native
