// File: native/mapped_file.h
// -----------------------------------------------------------------------------
// A read-only memory map of an input file: the converter reads the .pt2
// through a ByteSpan over it, so weights are never copied on the way in.
#ifndef PT2ONNX_NATIVE_MAPPED_FILE_H_
#define PT2ONNX_NATIVE_MAPPED_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "core/bytes.h"

namespace pt2onnx::native {

class MappedFile {
 public:
  // NotFound / PermissionDenied / InvalidArgument (a directory) with the path.
  static absl::StatusOr<MappedFile> Open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Valid until this object is destroyed.
  ByteSpan bytes() const { return ByteSpan(static_cast<const uint8_t*>(data_), size_); }

 private:
  MappedFile() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_MAPPED_FILE_H_
