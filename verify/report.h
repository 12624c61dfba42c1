// File: verify/report.h
// -----------------------------------------------------------------------------
// The markdown report of a run (--report), with torch.onnx's sections
// (torch/onnx/_internal/exporter/_reporting.py): status checklist, error
// messages, exported program, ONNX model, analysis (parameters per dtype,
// inputs/outputs, FX node counts per target, unsupported operators),
// verification table with histograms and per-stage timings; and what
// torch's lacks: the reference interpreter's coverage of this program and
// the first diverging node. Rendered from what the run collected, so it is
// written on failure too.
#ifndef PT2ONNX_VERIFY_REPORT_H_
#define PT2ONNX_VERIFY_REPORT_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "core/pt2/pt2_reader.h"
#include "verify/verifier.h"

namespace pt2onnx::verify {

enum class StepStatus { kNotRun, kOk, kFailed };

struct ReportData {
  std::string model_path;
  std::string output_path;
  std::string producer;  // "pt2onnx 0.x"
  // Status checklist, in order: (step, status).
  std::vector<std::pair<std::string, StepStatus>> steps;
  std::vector<std::string> errors;
  const pt2::LoadedProgram* program = nullptr;  // null when reading failed
  const ir::Model* model = nullptr;             // null when converting failed
  std::vector<std::string> unsupported;         // translator: overloads it lacks
  std::vector<std::string> reference_missing;   // interpreter: overloads it lacks
  std::optional<Verification> verification;
  std::string inputs_source;
  std::vector<std::string> inputs_lines;
  std::vector<std::pair<std::string, double>> timings;  // stage -> seconds
};

std::string RenderReport(const ReportData& data);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_REPORT_H_
