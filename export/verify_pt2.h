// File: export/verify_pt2.h
// -----------------------------------------------------------------------------
// VerifyPt2: a conversion checked end to end, for every front end (the CLI's
// --verify and --report, the JavaScript verify()). It runs Export()
// (export/export.h: the same checks, so a file the CLI refuses is refused in
// the browser too), then, with `verify`, both engines on the program Export
// read (the .pt2 is parsed once), and fills the run report: every checklist
// step (export/report_steps.h), the errors, the timings, the coverage lists.
// The front end only reads files, prints and returns what comes back.
//
//   VerifyPt2Options options;
//   options.exported = ...;  options.verify = true;  options.clock = ...;
//   VerifyPt2Result result = VerifyPt2(input, options, sinks, progress);
//   if (result.exit_code != kExitOk) ... result.message ...;
//   std::string markdown = result.RenderReport();
#ifndef PT2ONNX_EXPORT_VERIFY_PT2_H_
#define PT2ONNX_EXPORT_VERIFY_PT2_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/io/input_file.h"
#include "export/export.h"
#include "export/verify_run.h"
#include "verify/node_data.h"
#include "verify/report.h"

namespace pt2onnx {

struct VerifyPt2Options {
  // The conversion; `exported.write` false converts and checks without
  // writing (verify() in the browser).
  ExportOptions exported;
  // false: Export and the report only (--report without --verify).
  bool verify = true;
  // The inputs and intermediates; its clock, log and stage are used as they
  // are (clock below is used when run.clock is null).
  VerifyRunOptions run;
  // Seconds since any fixed point, for the report's timings; null: none.
  std::function<double()> clock;
  // The report's coverage lists (a translation registry walk) are filled.
  bool report = false;
  // Model Explorer node data for the verification (NodeData below).
  bool node_data = false;
  // Called after a successful export, before the engines run (the CLI
  // prints the operator counts there).
  std::function<void(const ExportResult&)> on_exported;
};

struct NodeData {
  std::string max_abs_diff;  // the _max_abs_diff.json file
  std::string max_rel_diff;
};

struct VerifyPt2Result {
  ExportResult exported;
  // The run's outcome: Export's exit code when it failed, else the
  // verification's (0, 3/4 for the inputs, 6, 7), 0 without `verify`.
  int exit_code = 0;
  std::string message;  // why, when exit_code != 0
  std::optional<VerifyOutcome> verified;  // when the verification ran
  std::optional<NodeData> node_data;      // with node_data, when both engines ran
  verify::ReportData report;              // see RenderReport

  // The report as markdown (verify/report.h); the front end may add errors
  // of its own to report.errors first (a node-data file it could not write).
  std::string RenderReport();
};

// `input` is shared by the result (the program's weights are slices of it).
VerifyPt2Result VerifyPt2(std::shared_ptr<const InputFile> input, const VerifyPt2Options& options,
                          ExportSinks& sinks, ExportProgress& progress);

// The result of a run that could not start (the front end could not open
// the input): `status` as its outcome and the report's only error.
VerifyPt2Result VerifyPt2NotStarted(const VerifyPt2Options& options, int exit_code, const absl::Status& status);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_VERIFY_PT2_H_
