#include "export/engines.h"

#include <utility>

#include "core/onnx/model_reader.h"
#include "core/status_macros.h"
#include "core/tensor/complex_as_real.h"
#include "reference/registry.h"
#include "runtime/kernels/registry.h"
#include "runtime/npz/npz.h"

namespace pt2onnx {

absl::StatusOr<ir::Model> ReadOnnxModel(ByteSpan bytes) { return onnx_reader::ReadModel(bytes); }

absl::StatusOr<ir::Model> ReadOnnxModel(google::protobuf::io::ZeroCopyInputStream& stream) {
  return onnx_reader::ReadModel(stream);
}

absl::StatusOr<ir::Model> ReadOnnxModel(google::protobuf::io::ZeroCopyInputStream& stream,
                                        const ExternalDataReader& external) {
  return onnx_reader::ReadModel(stream, external);
}

absl::StatusOr<std::unique_ptr<runtime::Session>> CreateExecutorSession(ir::Model&& model,
                                                                        const runtime::SessionOptions& options) {
  return runtime::Session::Create(std::move(model), options);
}

std::vector<std::string> ExecutorOpTypes() { return runtime::KernelOpTypes(); }

std::vector<std::string> ReferenceKernels() { return reference::CreateReferenceRegistry().Keys(); }

std::vector<std::string> MissingReferenceKernels(const pt2::LoadedProgram& loaded) {
  return reference::MissingKernels(loaded.program, reference::CreateReferenceRegistry());
}

absl::StatusOr<reference::Interpretation> RunReference(const pt2::LoadedProgram& loaded,
                                                       const std::vector<NamedTensor>& inputs) {
  const reference::RefRegistry registry = reference::CreateReferenceRegistry();
  reference::InterpretOptions options;
  options.registry = &registry;
  PT2ONNX_ASSIGN_OR_RETURN(reference::Interpretation run,
                           reference::Interpret(loaded.program, loaded.weights, inputs, options));
  // A complex output as the ONNX model writes it (and NumPy's .npy can hold).
  for (NamedTensor& out : run.outputs) {
    PT2ONNX_ASSIGN_OR_RETURN(out.tensor, ComplexAsReal(out.tensor));
  }
  return run;
}

absl::StatusOr<std::vector<NamedTensor>> DecodeNpz(ByteSpan bytes) { return runtime::ReadNpz(bytes); }

absl::StatusOr<std::string> EncodeNpz(const std::vector<NamedTensor>& tensors) {
  return runtime::WriteNpz(tensors);
}

}  // namespace pt2onnx
