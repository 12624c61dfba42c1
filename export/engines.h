// File: export/engines.h
// -----------------------------------------------------------------------------
// The two execution engines as the runner front ends use them: the ONNX
// executor (runtime/) for onnxrun and the JS run()/createSession(), the ATen
// reference interpreter (reference/) for refrun, and the .npz files their
// tensors travel in. Front ends reach the engines through here only
// (tests/layering/check_layers.py), so what they may use is this list.
//
//   PT2ONNX_ASSIGN_OR_RETURN(ir::Model model, ReadOnnxModel(bytes));
//   PT2ONNX_ASSIGN_OR_RETURN(auto session, CreateExecutorSession(std::move(model), {}));
//   PT2ONNX_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs, session->Run(inputs));
#ifndef PT2ONNX_EXPORT_ENGINES_H_
#define PT2ONNX_EXPORT_ENGINES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/bytes.h"
#include "core/ir/graph.h"
#include "core/pt2/pt2_reader.h"
#include "core/tensor/tensor.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "reference/interpreter.h"
#include "runtime/plan/session.h"

namespace pt2onnx {

// --- The ONNX executor -------------------------------------------------------

// An ONNX model (a .onnx file's bytes, or a stream over them) as the IR.
absl::StatusOr<ir::Model> ReadOnnxModel(ByteSpan bytes);
absl::StatusOr<ir::Model> ReadOnnxModel(google::protobuf::io::ZeroCopyInputStream& stream);
// The same for a model whose weights lie in external data files, read
// through `external` (the file as the model names it, offset, length).
using ExternalDataReader =
    std::function<absl::StatusOr<std::string>(const std::string& file, uint64_t offset, uint64_t length)>;
absl::StatusOr<ir::Model> ReadOnnxModel(google::protobuf::io::ZeroCopyInputStream& stream,
                                        const ExternalDataReader& external);

// Prepares `model` for execution; its weights move into the session (freed
// as they are packed). Unimplemented names an op or dtype it cannot run.
absl::StatusOr<std::unique_ptr<runtime::Session>> CreateExecutorSession(ir::Model&& model,
                                                                        const runtime::SessionOptions& options);

// The ONNX op types the executor runs, sorted.
std::vector<std::string> ExecutorOpTypes();

// --- The ATen reference interpreter -------------------------------------------

// The ATen overloads it runs, sorted.
std::vector<std::string> ReferenceKernels();

// The overloads `loaded` calls that it has no kernel for, sorted.
std::vector<std::string> MissingReferenceKernels(const pt2::LoadedProgram& loaded);

// Runs the program on `inputs` (by placeholder name).
absl::StatusOr<reference::Interpretation> RunReference(const pt2::LoadedProgram& loaded,
                                                       const std::vector<NamedTensor>& inputs);

// --- Tensors in .npz files ------------------------------------------------------

// numpy's savez format: arrays by name (runtime/npz/npz.h).
absl::StatusOr<std::vector<NamedTensor>> DecodeNpz(ByteSpan bytes);
absl::StatusOr<std::string> EncodeNpz(const std::vector<NamedTensor>& tensors);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_ENGINES_H_
