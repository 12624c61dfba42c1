// File: export/verify_run.h
// -----------------------------------------------------------------------------
// --verify as one call, shared by the CLI (native/verify_command.cc) and the
// JavaScript verify() (wasm/verify_api.cc): picks the inputs (given, or the
// example inputs the archive stores, else seeded ones), runs verify,
// runs again with intermediates to name the first diverging node when an
// output differs, and fills the report. No OS calls: the front end reads the
// inputs file, supplies the clock and prints or returns the outcome.
//
//   VerifyRunOptions options;  options.inputs = VerifyInputs::kDefault;
//   VerifyOutcome outcome = RunVerification(file, loaded, model, options, report);
//   if (outcome.exit_code != 0) ... outcome.message ...
#ifndef PT2ONNX_EXPORT_VERIFY_RUN_H_
#define PT2ONNX_EXPORT_VERIFY_RUN_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/io/input_file.h"
#include "core/ir/graph.h"
#include "core/pt2/pt2_reader.h"
#include "translate/registry.h"
#include "verify/report.h"
#include "verify/verifier.h"

namespace pt2onnx {

enum class VerifyInputs {
  kDefault,  // the archive's example inputs, else seeded
  kSeeded,   // seeded from the input specs (seed 0), as --inputs seeded
  kGiven,    // `given` below (an npz's arrays, or tensors from JavaScript)
};

struct VerifyRunOptions {
  bool intermediates = false;
  VerifyInputs inputs = VerifyInputs::kDefault;
  std::vector<NamedTensor> given;  // by placeholder name, for kGiven
  // kGiven from an .npz instead of `given`: called when the inputs are
  // chosen (after the model is written, so an unreadable file fails the
  // verification, not the conversion). Its error is an I/O error (exit 3);
  // bytes that are not an .npz are exit 4, named after given_source.
  std::function<absl::StatusOr<std::string>()> given_npz;
  std::string given_source;                 // "x.npz", for messages and the report
  // Seconds since any fixed point, for the report's timings; null: none.
  std::function<double()> clock;
  // Progress lines ("verify: inputs seeded (seed 0)") and stages ("reference",
  // "onnx", "compare", "intermediates"); either may be null.
  std::function<void(const std::string&)> log;
  std::function<void(const std::string&)> stage;
};

struct VerifyOutcome {
  // 0, 4 (the inputs do not fit the program), 6 (values beyond torch's
  // thresholds), 7 (an engine cannot run the model).
  int exit_code = 0;
  // For exit code != 0: what went wrong; for 6 the diverging outputs and
  // the first diverging node with its stack trace.
  std::string message;
  // One line for a passing run: "passed: 2 outputs within torch's thresholds ...".
  std::string summary;
  std::optional<verify::Verification> verification;  // when both engines ran
};

// `file`: the .pt2 (for the example inputs it may store). Fills
// report.inputs_*, report.verification, report.timings ("verify: ..."), the
// two verification steps and, on failure, report.errors.
VerifyOutcome RunVerification(std::shared_ptr<const InputFile> file, const pt2::LoadedProgram& loaded,
                              const ir::Model& model, const VerifyRunOptions& options,
                              verify::ReportData& report);

// The report's analysis lists: ATen overloads the translator (`registry`;
// null: the built-in translations) and the reference interpreter lack for
// this program.
void FillReportCoverage(const pt2::LoadedProgram& loaded, const translate::OpRegistry* registry,
                        verify::ReportData& report);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_VERIFY_RUN_H_
