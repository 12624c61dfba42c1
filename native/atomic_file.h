// File: native/atomic_file.h
// -----------------------------------------------------------------------------
// AtomicFile: an output file that appears only when complete. Bytes go to a
// temporary file beside the destination; Commit() flushes and renames it into
// place. Destroying an uncommitted AtomicFile deletes the temporary, so a
// failed conversion never leaves a half-written model behind.
#ifndef PT2ONNX_NATIVE_ATOMIC_FILE_H_
#define PT2ONNX_NATIVE_ATOMIC_FILE_H_

#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "core/onnx/model_writer.h"

namespace pt2onnx::native {

class AtomicFile : public onnx_writer::ByteSink {
 public:
  static absl::StatusOr<std::unique_ptr<AtomicFile>> Create(const std::string& path);
  ~AtomicFile() override;

  absl::Status Write(ByteSpan bytes) override;
  // Flushes, closes and renames into place.
  absl::Status Commit();
  uint64_t bytes_written() const { return written_; }

 private:
  AtomicFile(std::string path, std::string temp_path, std::FILE* file)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), file_(file) {}

  std::string path_;
  std::string temp_path_;
  std::FILE* file_;
  bool committed_ = false;
  uint64_t written_ = 0;
};

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_ATOMIC_FILE_H_
