// File: export/apply_weights.h
// -----------------------------------------------------------------------------
// ApplyWeights: an ONNX model (typically written with --no-weights) gets the
// weights of another .pt2 of the same program. The front ends (the CLI's
// `apply-weights`, the JS applyWeights()) call this with their own sinks, so
// both write the same bytes: the model's fields kept byte for byte, the
// .pt2's weights appended as a direct conversion writes them
// (core/onnx/weight_apply.h).
//
//   ApplyWeightsOptions options;   // opset 0: the model's own
//   ExportResult result = ApplyWeights(*model_file, pt2_file, options, sinks, progress);
//   if (!result.status.ok()) return result.exit_code;
#ifndef PT2ONNX_EXPORT_APPLY_WEIGHTS_H_
#define PT2ONNX_EXPORT_APPLY_WEIGHTS_H_

#include <memory>
#include <string>

#include "core/io/input_file.h"
#include "export/export.h"

namespace pt2onnx {

struct ApplyWeightsOptions {
  // convert.translate.opset is used only when opset_given (else the opset the
  // model imports; the default when it imports none).
  ConvertOptions convert;
  bool opset_given = false;
  onnx_writer::WriteOptions::ExternalData external = onnx_writer::WriteOptions::ExternalData::kAuto;
  // As the user named them, for messages and the report.
  std::string model_name = "model.onnx";
  std::string weights_name = "model.pt2";
  std::string output_name = "model.onnx";
};

// Exit codes: 4 when `model` is not an ONNX model or the weights do not fit
// it (missing, unused, other dtype or shape: the first names), the
// conversion's code when the .pt2 does not convert, 2 when the output plan
// cannot be honoured, 3 for the sinks' errors. `weights` must stay alive
// while the sinks' slices are used.
ExportResult ApplyWeights(const InputFile& model, std::shared_ptr<const InputFile> weights,
                          const ApplyWeightsOptions& options, ExportSinks& sinks,
                          ExportProgress& progress);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_APPLY_WEIGHTS_H_
