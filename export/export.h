// File: export/export.h
// -----------------------------------------------------------------------------
// Export: the one conversion entry every front end calls. It sequences
// read -> translate -> optimize -> check -> plan output -> write, reports the
// conversion as lines, and classifies any failure with an exit code
// (export/exit_codes.h). The checks every result passes before anything is
// written are here, not in the front ends, so the CLI and the browser refuse
// the same files. A front end supplies only what is its own: the input file,
// where the bytes go (ExportSinks) and where the report goes (ExportProgress).
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

// A check of the converted model before anything is written, beyond the
// built-in ones (a test's, an embedder's); a failure ends the export with
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
  // The full ONNX checker and its shape inference too (--check; JS
  // check: true), after the two checks every result passes (operator arity
  // per the ONNX schemas, strict shape inference). Skipped, with a report
  // line, above the opsets the bundled checker knows.
  bool onnx_checker = false;
  // false: stop after the checks (verify() in the browser runs the model
  // without writing it); the sinks are never opened.
  bool write = true;
  // Called once the conversion succeeded, before the report lines and the
  // checks: a front end notes the time, a test seam may alter the model.
  std::function<void(Conversion&)> on_converted;
  // Run in order after the built-in checks.
  std::vector<ModelCheck> checks;
};

// Where an export stopped (ExportResult::failed_at).
enum class ExportStep {
  kNone,         // it did not: the export succeeded
  kRead,         // the .pt2 could not be read
  kTranslate,    // translation or optimization failed
  kArityCheck,   // an operator's inputs/outputs do not match its ONNX schema
  kShapeCheck,   // declared shapes or dtypes differ from what the operators compute
  kOnnxChecker,  // the ONNX checker refused the model (onnx_checker)
  kOtherCheck,   // one of ExportOptions::checks
  kPlan,         // the output plan cannot be honoured (weights too large for --no-external-data)
  kWrite,        // the sinks failed
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

// Sinks for an export that writes no model (ExportOptions with write off:
// verify(), an export folder that writes its components itself); Open is an
// internal error, as Export() never reaches it then.
class NoExportSinks : public ExportSinks {
 public:
  absl::Status Open(const OutputPlan&, const ConversionSummary&) override {
    return absl::InternalError("this export writes no model");
  }
  ByteSink& model() override { return unused_; }
  ByteSink& data() override { return unused_; }

 private:
  StringSink unused_;
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
  ExportStep failed_at = ExportStep::kNone;
  // Set once the .pt2 was read (also when its translation failed: a report
  // lists the operators it lacks).
  std::shared_ptr<const pt2::LoadedProgram> program;
  // Set once the conversion succeeded (also when a later step failed).
  std::optional<Conversion> conversion;
  // Whether the full ONNX checker ran (onnx_checker, at an opset it knows).
  bool onnx_checker_ran = false;
  std::optional<OutputPlan> plan;
  onnx_writer::WriteSummary written;  // valid when status is ok
};

// `input` is shared by the result's program and model (weights and
// initializers are slices of it).
ExportResult Export(std::shared_ptr<const InputFile> input, const ExportOptions& options,
                    ExportSinks& sinks, ExportProgress& progress);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_EXPORT_H_
