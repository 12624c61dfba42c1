// File: core/onnx/model_reader.h
// -----------------------------------------------------------------------------
// ONNX ModelProto bytes -> ir::Model, for the executor (runtime). Reads
// what pt2onnx and common exporters write: tensor-typed inputs/outputs,
// initializers (raw_data or the typed repeated fields), attributes including
// subgraphs, opset imports. External data is read through the caller's
// ExternalDataReader (this layer has no file access); without one it is
// refused with a clear error, as are sparse initializers.
#ifndef PT2ONNX_CORE_ONNX_MODEL_READER_H_
#define PT2ONNX_CORE_ONNX_MODEL_READER_H_

#include <cstdint>
#include <functional>
#include <string>
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

// ExternalDataReader: the `length` bytes at `offset` of the external data
// file `location` (as the model names it, relative to the model file).
// NotFound / OutOfRange errors are reported with the tensor's name.
using ExternalDataReader =
    std::function<absl::StatusOr<std::string>(const std::string& location, uint64_t offset, uint64_t length)>;

// The same, with the main graph's external initializers read through
// `external` (one export's components share one data file).
absl::StatusOr<ir::Model> ReadModel(google::protobuf::io::ZeroCopyInputStream& input,
                                    const ExternalDataReader& external);

// The model-local functions of a ModelProto (its graph may be empty).
// Functions with attribute parameters are refused (Unimplemented).
absl::StatusOr<std::vector<ir::Function>> ReadFunctionLibrary(ByteSpan bytes);

}  // namespace pt2onnx::onnx_reader

#endif  // PT2ONNX_CORE_ONNX_MODEL_READER_H_
