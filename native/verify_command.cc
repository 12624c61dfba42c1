#include "native/verify_command.h"

#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "export/exit_codes.h"
#include "native/atomic_file.h"
#include "native/mapped_file.h"
#include "native/user_path.h"

namespace pt2onnx::native {
namespace {

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "pt2onnx: error: %s\n", message.c_str());
  return code;
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

VerifyRunOptions VerifyRunOptionsFor(const CliFlags& flags, std::function<void(const std::string&)> log) {
  VerifyRunOptions options;
  options.intermediates = flags.verify_intermediates;
  options.log = std::move(log);
  if (flags.verify_inputs == "seeded") {
    options.inputs = VerifyInputs::kSeeded;
  } else if (!flags.verify_inputs.empty()) {
    options.inputs = VerifyInputs::kGiven;
    options.given_source = flags.verify_inputs;
    options.given_npz = [path = flags.verify_inputs]() -> absl::StatusOr<std::string> {
      absl::StatusOr<MappedFile> file = MappedFile::Open(ResolvePath(path));
      if (!file.ok()) return file.status();
      ByteSpan bytes = file->bytes();
      return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    };
  }
  return options;
}

int PrintVerification(const CliFlags& flags, VerifyPt2Result& run,
                      const std::function<void(const std::string&)>& log) {
  const VerifyOutcome& outcome = *run.verified;
  if (!outcome.verification.has_value()) return Fail(outcome.exit_code, outcome.message);
  if (run.node_data.has_value()) {
    for (auto [json, suffix] : {std::pair{&run.node_data->max_abs_diff, "_max_abs_diff.json"},
                                std::pair{&run.node_data->max_rel_diff, "_max_rel_diff.json"}}) {
      const std::string path = absl::StrCat(flags.verify_node_data, suffix);
      absl::Status written = WriteTextFile(path, *json);
      if (!written.ok()) {
        run.report.errors.push_back(std::string(written.message()));
        return Fail(kExitIo, std::string(written.message()));
      }
      log(absl::StrCat("verify: wrote ", path));
    }
  }
  if (!flags.quiet) {
    for (const verify::ValueCheck& c : outcome.verification->outputs) {
      std::fprintf(stderr, "         %s\n", CheckLine(c).c_str());
    }
  }
  if (outcome.exit_code == kExitOk) {
    log(absl::StrCat("verify: ", outcome.summary));
    return kExitOk;
  }
  return Fail(outcome.exit_code, outcome.message);
}

}  // namespace pt2onnx::native
