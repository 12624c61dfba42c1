// File: export/export.h
// -----------------------------------------------------------------------------
// Export: the one conversion entry every front end calls. It sequences
// read -> translate -> optimize -> check -> plan output -> write, reports the
// conversion as lines, and classifies any failure with an exit code
// (export/exit_codes.h). A front end supplies only what is its own: the input
// file, where the bytes go (ExportSinks) and where the report goes
// (ExportProgress).
//
//   ExportOptions options;
//   options.output_name = "model.onnx";
//   StringSinks sinks;            // or files (native/), Blob parts (wasm/)
//   ExportProgress progress;      // or one that logs each line
//   ExportResult result = Export(file, options, sinks, progress);
//   if (!result.status.ok()) return result.exit_code;
#ifndef PT2ONNX_EXPORT_EXPORT_H_
#define PT2ONNX_EXPORT_EXPORT_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"
#include "core/onnx/model_writer.h"
#include "export/converter.h"
#include "export/output_plan.h"

namespace pt2onnx {

// A check of the converted model before anything is written (the ONNX
// arity, shape inference, the full checker); a failure ends the export with
// `exit_code`.
struct ModelCheck {
  std::function<absl::Status(const ir::Model&)> run;
  int exit_code = 1;
};

struct ExportOptions {
  ConvertOptions convert;
  onnx_writer::WriteOptions::ExternalData external = onnx_writer::WriteOptions::ExternalData::kAuto;
  // false: the graph without its initializers (--no-weights, JS
  // includeWeights: false), never with external data.
  bool include_weights = true;
  // The initializers also listed as graph inputs, after the user inputs
  // (--weights-as-inputs, JS weightsAsInputs).
  bool weights_as_inputs = false;
  // As the user named them, for the report; the model's data file is named
  // after output_name's file part.
  std::string input_name = "model.pt2";
  std::string output_name = "model.onnx";
  // Called once the conversion succeeded, before the report lines and the
  // checks: a front end notes the time, a test seam may alter the model.
  std::function<void(Conversion&)> on_converted;
  // Run in order after the conversion succeeded.
  std::vector<ModelCheck> checks;
};

// Where the output goes. Open is called once the plan is known (so a front
// end creates no file for a conversion that fails); Commit only after every
// byte was written (a front end that writes temporaries renames them then).
// `summary` counts the weights even with include_weights false.
class ExportSinks {
 public:
  virtual ~ExportSinks() = default;
  // Errors are I/O errors (exit 3).
  virtual absl::Status Open(const OutputPlan& plan, const ConversionSummary& summary) = 0;
  virtual ByteSink& model() = 0;
  // Only called when plan.external.
  virtual ByteSink& data() = 0;
  virtual absl::Status Commit() { return absl::OkStatus(); }
};

// The report as it happens: Line for each report line ("reading ...",
// "translated ...", "wrote ..."), Stage with the fraction done of "read",
// "translate", "optimize", "write" ("write" 0 comes before ExportSinks::Open).
// Both default to doing nothing.
class ExportProgress {
 public:
  virtual ~ExportProgress() = default;
  virtual void Line(absl::string_view line) {}
  virtual void Stage(absl::string_view stage, double fraction) {}
};

struct ExportResult {
  absl::Status status;  // ok, or why the export stopped
  int exit_code = 0;    // export/exit_codes.h; kExitOk when status is ok
  // Set once the conversion succeeded (also when a later step failed).
  std::optional<Conversion> conversion;
  std::optional<OutputPlan> plan;
  onnx_writer::WriteSummary written;  // valid when status is ok
};

// `input` must stay alive while the result's model is used (initializers
// are slices of it).
ExportResult Export(std::shared_ptr<const InputFile> input, const ExportOptions& options,
                    ExportSinks& sinks, ExportProgress& progress);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_EXPORT_H_
