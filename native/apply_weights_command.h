// File: native/apply_weights_command.h
// -----------------------------------------------------------------------------
// `pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx`: MODEL.onnx
// (typically written with --no-weights) with the weights of OTHER.pt2, a .pt2
// of the same program (core/onnx/weight_apply.h). OTHER.pt2 is converted
// with the given options at MODEL.onnx's opset (unless --opset), its weights
// are checked against MODEL.onnx and spliced into OUT.onnx as a conversion
// does (external data by the same rules).
#ifndef PT2ONNX_NATIVE_APPLY_WEIGHTS_COMMAND_H_
#define PT2ONNX_NATIVE_APPLY_WEIGHTS_COMMAND_H_

#include <string>

#include "native/cli_flags.h"

namespace pt2onnx::native {

// Returns the process exit code: 3 for files that cannot be read or written,
// 4 for a MODEL.onnx that is not ONNX, a .pt2 that is not valid, or weights
// that do not fit (names, dtypes, shapes), 5 for unsupported operators.
int RunApplyWeights(const CliFlags& flags, const std::string& model_path,
                    const std::string& weights_path, const std::string& output_path);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_APPLY_WEIGHTS_COMMAND_H_
