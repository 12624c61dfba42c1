// File: native/atomic_file.h
// -----------------------------------------------------------------------------
// AtomicFile: an output file that appears only when complete. Bytes go to a
// temporary file beside the destination; Commit() flushes and renames it into
// place. Destroying an uncommitted AtomicFile deletes the temporary, so a
// failed conversion never leaves a half-written model behind.
//
// The destination must be absent or a regular file: a device (/dev/full), a
// FIFO, a folder or a symbolic link is refused (renaming over it would
// replace the node or the link, not write through it). The temporary is
// created exclusively and never through a symbolic link. With
// InstallOutputSignalHandlers() called once at start-up, SIGTERM, SIGINT and
// SIGHUP delete the live temporaries before the process dies, and SIGXFSZ is
// ignored, so a file-size limit is a write error like a full disk.
#ifndef PT2ONNX_NATIVE_ATOMIC_FILE_H_
#define PT2ONNX_NATIVE_ATOMIC_FILE_H_

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/io/byte_sink.h"

namespace pt2onnx::native {

// See the file comment. Safe to call more than once.
void InstallOutputSignalHandlers();

class AtomicFile : public ByteSink {
 public:
  // PermissionDenied (an I/O error for the CLI) when `path` is not a regular
  // file or the temporary cannot be created.
  static absl::StatusOr<std::unique_ptr<AtomicFile>> Create(const std::string& path);
  ~AtomicFile() override;

  absl::Status Write(ByteSpan bytes) override;
  // A slice of an FdInputFile is spliced by the kernel (weight_splice.h);
  // other slices are written as ByteSink does.
  absl::Status WriteSlice(const FileSlice& slice) override;
  // Flushes, closes and renames into place.
  absl::Status Commit();
  uint64_t bytes_written() const { return written_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFile(std::string path, std::string temp_path, std::FILE* file, int slot)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), file_(file), slot_(slot) {}

  std::string path_;
  std::string temp_path_;
  std::FILE* file_;
  int slot_;  // in the signal handler's list of temporaries; -1 if none
  bool committed_ = false;
  uint64_t written_ = 0;
};

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_ATOMIC_FILE_H_
