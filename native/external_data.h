// File: native/external_data.h
// -----------------------------------------------------------------------------
// ExternalDataFiles: the external-data files an ONNX model names (its
// TensorProto `location`s), read by range from the model's folder. Each file
// is opened once and read with pread, never mapped, so a weight is held once:
// in the model that asked for it. A location naming another folder is
// refused: a model file decides which bytes are read, not which files.
//
//   ExternalDataFiles data("/models/llm");
//   ReadOnnxModel(stream, [&](const std::string& file, uint64_t offset, uint64_t length) {
//     return data.Read(file, offset, length);
//   });
#ifndef PT2ONNX_NATIVE_EXTERNAL_DATA_H_
#define PT2ONNX_NATIVE_EXTERNAL_DATA_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {

class ExternalDataFiles {
 public:
  // `folder`: resolved, the model file's folder ("" for the working one).
  explicit ExternalDataFiles(std::string folder) : folder_(std::move(folder)) {}

  // The `length` bytes at `offset` of `file`. InvalidArgument for a file
  // outside the folder; NotFound / PermissionDenied from opening it;
  // OutOfRange when the file is shorter than the model says.
  absl::StatusOr<std::string> Read(const std::string& file, uint64_t offset, uint64_t length);

 private:
  std::string folder_;
  std::map<std::string, std::shared_ptr<FdInputFile>> opened_;
};

// The folder part of `path` ("" when it has none): where a model's external
// data files lie.
std::string FolderOf(const std::string& path);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_EXTERNAL_DATA_H_
