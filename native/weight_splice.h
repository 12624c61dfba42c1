// File: native/weight_splice.h
// -----------------------------------------------------------------------------
// Weights moved by the kernel: the .pt2 is read with pread (FdInputFile), so
// only what core/ parses (zip directory, program JSON, pickles) is copied
// into the process, and an output sink splices each weight's byte range from
// the input file into the output with CopyFdRange: copy_file_range, else
// sendfile, else pread/write through a bounded buffer. No weight page is
// mapped by the process (the CRC check, when on, reads each piece back from
// the page cache right after it is copied: spliced_crc.h).
//
//   PT2ONNX_ASSIGN_OR_RETURN(auto input, FdInputFile::Open("model.pt2"));
//   PT2ONNX_ASSIGN_OR_RETURN(CopyMethod used, CopyFdRange(input->fd(), off, len, out_fd));
#ifndef PT2ONNX_NATIVE_WEIGHT_SPLICE_H_
#define PT2ONNX_NATIVE_WEIGHT_SPLICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/io/input_file.h"

namespace pt2onnx::native {

// In fallback order.
enum class CopyMethod { kCopyFileRange, kSendfile, kReadWrite };
const char* CopyMethodName(CopyMethod method);

// Copies `length` bytes at `offset` of `in_fd` to `out_fd` at its current
// position (which advances). Starts with `first` (tests force the later
// ones) and falls back when the kernel or file system cannot do a method
// (ENOSYS, EXDEV, EINVAL, EOPNOTSUPP ...), continuing where the previous one
// stopped. Returns the method that copied the last byte. DataLoss on a write
// error (disk full, file-size limit) or when the input ends early.
absl::StatusOr<CopyMethod> CopyFdRange(int in_fd, uint64_t offset, uint64_t length, int out_fd,
                                       CopyMethod first = CopyMethod::kCopyFileRange);

// An input file read by offset with pread; nothing is mapped.
class FdInputFile : public InputFile {
 public:
  // NotFound / PermissionDenied / InvalidArgument (not a regular file).
  static absl::StatusOr<std::shared_ptr<FdInputFile>> Open(const std::string& path);
  ~FdInputFile() override;

  uint64_t size() const override { return size_; }
  absl::Status ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const override;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  FdInputFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}

  std::string path_;
  int fd_;
  uint64_t size_;
};

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_WEIGHT_SPLICE_H_
