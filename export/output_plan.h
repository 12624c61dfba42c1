// File: export/output_plan.h
// -----------------------------------------------------------------------------
// PlanOutput: where a converted model's weights go (inside the .onnx or in a
// "<name>.data" file beside it) and under which file name the model refers to
// them. Shared by the CLI and the WebAssembly API so both write the same
// bytes for the same options.
//
//   PT2ONNX_ASSIGN_OR_RETURN(OutputPlan plan,
//       PlanOutput(conversion.summary, ExternalData::kAuto, "model.onnx"));
#ifndef PT2ONNX_EXPORT_OUTPUT_PLAN_H_
#define PT2ONNX_EXPORT_OUTPUT_PLAN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "export/converter.h"
#include "core/onnx/model_writer.h"

namespace pt2onnx {

struct OutputPlan {
  onnx_writer::WriteOptions write;
  std::string model_file_name;  // the base name ("model.onnx")
  bool external = false;
  std::string data_file_name;  // "<model file name>.data" when external
};

// `model_file_name` is the model's base name ("model.onnx"); a path's
// folders are dropped, since the model names its data file relative to
// itself. FailedPrecondition when the weights must be external (over
// protobuf's 2 GiB limit) but kNever was asked for (front ends report it as
// a usage error: the option cannot be honoured), InvalidArgument when the
// name has no file part.
absl::StatusOr<OutputPlan> PlanOutput(const ConversionSummary& summary,
                                      onnx_writer::WriteOptions::ExternalData external,
                                      absl::string_view model_file_name);

// "12.3 MiB", "1.50 GiB", "512 B".
std::string HumanBytes(uint64_t bytes);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_OUTPUT_PLAN_H_
