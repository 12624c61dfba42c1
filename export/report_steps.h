// File: export/report_steps.h
// -----------------------------------------------------------------------------
// The names of the run report's checklist steps (verify/report.h renders
// them) and the producer line, written once for every front end: the CLI's
// --report and the JavaScript verify() report name the same steps.
#ifndef PT2ONNX_EXPORT_REPORT_STEPS_H_
#define PT2ONNX_EXPORT_REPORT_STEPS_H_

namespace pt2onnx::report_steps {

inline constexpr char kRead[] = "Read the .pt2";
inline constexpr char kTranslate[] = "Translate to ONNX (and optimize)";
// The arity and shape checks every result passes (export/export.h); a shape
// check failure names shape inference, the usual cause.
inline constexpr char kChecks[] = "ONNX operator and shape checks";
inline constexpr char kShapeInference[] = "ONNX shape inference";
inline constexpr char kOnnxChecker[] = "onnx.checker";
inline constexpr char kWrite[] = "Write the ONNX model";
inline constexpr char kRunEngines[] = "Run in the ATen reference interpreter and the executor";
inline constexpr char kAccuracy[] = "Output accuracy (torch's thresholds)";

}  // namespace pt2onnx::report_steps

#endif  // PT2ONNX_EXPORT_REPORT_STEPS_H_
