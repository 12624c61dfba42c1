// File: core/onnx/model_reader.h
// -----------------------------------------------------------------------------
// ONNX ModelProto bytes -> ir::Model, for the executor (runtime). Reads
// what pt2onnx and common exporters write: tensor-typed inputs/outputs,
// initializers (raw_data or the typed repeated fields), attributes including
// subgraphs, opset imports. External data is refused with a clear error (the
// caller has no file access here); so are sparse initializers.
#ifndef PT2ONNX_CORE_ONNX_MODEL_READER_H_
#define PT2ONNX_CORE_ONNX_MODEL_READER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/bytes.h"
#include "core/ir/function.h"
#include "core/ir/graph.h"

namespace google::protobuf::io {
class ZeroCopyInputStream;
}  // namespace google::protobuf::io

namespace pt2onnx::onnx_reader {

// InvalidArgument when the bytes are not a ModelProto or break its rules.
// Model-local functions are inlined at their calls (ir/inline_functions.h):
// the model comes back as a plain graph, for the executor.
absl::StatusOr<ir::Model> ReadModel(ByteSpan bytes);
// The same from a stream (a file read in blocks): the weights are held once,
// in the model, never also as the file's bytes.
absl::StatusOr<ir::Model> ReadModel(google::protobuf::io::ZeroCopyInputStream& input);

// The model-local functions of a ModelProto (its graph may be empty).
// Functions with attribute parameters are refused (Unimplemented).
absl::StatusOr<std::vector<ir::Function>> ReadFunctionLibrary(ByteSpan bytes);

}  // namespace pt2onnx::onnx_reader

#endif  // PT2ONNX_CORE_ONNX_MODEL_READER_H_
