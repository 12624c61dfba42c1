#include "native/weight_splice.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::native {
namespace {

// The most one system call is asked to move (both calls cap near 2 GiB).
constexpr uint64_t kMaxChunk = uint64_t{1} << 30;
// The buffer of the last fallback.
constexpr size_t kBufferBytes = size_t{1} << 20;

// The method cannot work here (kernel, file system, file kinds): try the next.
bool Unsupported(int error) {
  return error == ENOSYS || error == EXDEV || error == EINVAL || error == EOPNOTSUPP ||
         error == ENOTSUP || error == EBADF || error == ESPIPE || error == EPERM;
}

absl::Status WriteError(int error) {
  return absl::DataLossError(absl::StrCat("copying weights into the output failed: ",
                                          std::strerror(error),
                                          error == EFBIG ? " (over the file-size limit)"
                                          : error == ENOSPC ? " (disk full)" : ""));
}

absl::Status EndedEarly(uint64_t offset) {
  return absl::DataLossError(absl::StrCat("the input file ended at offset ", offset,
                                          " while its weights were copied (was it truncated?)"));
}

// One in-kernel copy loop: `copy(file_offset, max_bytes)` makes the system
// call and returns its result (errno set on -1). Moves `done` up to `length`;
// sets `unsupported` and stops when the call cannot work for these files, so
// that the next method takes over at `done`.
template <typename CopyChunk>
absl::Status KernelCopy(uint64_t offset, uint64_t length, uint64_t& done, bool& unsupported,
                        CopyChunk copy) {
  while (done < length) {
    const ssize_t n = copy(offset + done, std::min(kMaxChunk, length - done));
    if (n > 0) {
      done += static_cast<uint64_t>(n);
      continue;
    }
    if (n == 0) return EndedEarly(offset + done);
    if (errno == EINTR) continue;
    if (!Unsupported(errno)) return WriteError(errno);
    unsupported = true;
    break;
  }
  return absl::OkStatus();
}

}  // namespace

const char* CopyMethodName(CopyMethod method) {
  switch (method) {
    case CopyMethod::kCopyFileRange: return "copy_file_range";
    case CopyMethod::kSendfile: return "sendfile";
    case CopyMethod::kReadWrite: return "pread/write";
  }
  return "?";
}

absl::StatusOr<CopyMethod> CopyFdRange(int in_fd, uint64_t offset, uint64_t length, int out_fd,
                                       CopyMethod first) {
  if (offset > static_cast<uint64_t>(std::numeric_limits<off_t>::max()) ||
      length > static_cast<uint64_t>(std::numeric_limits<off_t>::max()) - offset) {
    return absl::OutOfRangeError(absl::StrCat("weight range at ", offset, " is out of range"));
  }
  uint64_t done = 0;
  CopyMethod method = first;
  if (method == CopyMethod::kCopyFileRange) {
    bool unsupported = false;
    absl::Status copied = KernelCopy(offset, length, done, unsupported, [&](uint64_t at, uint64_t max_bytes) {
      loff_t in_offset = static_cast<loff_t>(at);
      return ::copy_file_range(in_fd, &in_offset, out_fd, nullptr, max_bytes, 0);
    });
    if (!copied.ok()) return copied;
    if (unsupported) method = CopyMethod::kSendfile;
  }
  if (method == CopyMethod::kSendfile) {
    bool unsupported = false;
    absl::Status copied = KernelCopy(offset, length, done, unsupported, [&](uint64_t at, uint64_t max_bytes) {
      off_t in_offset = static_cast<off_t>(at);
      return ::sendfile(out_fd, in_fd, &in_offset, max_bytes);
    });
    if (!copied.ok()) return copied;
    if (unsupported) method = CopyMethod::kReadWrite;
  }
  if (method == CopyMethod::kReadWrite && done < length) {
    std::vector<char> buffer(static_cast<size_t>(std::min<uint64_t>(kBufferBytes, length - done)));
    while (done < length) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), length - done));
      const ssize_t got = ::pread(in_fd, buffer.data(), want, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        return absl::DataLossError(
            absl::StrCat("reading the input's weights failed: ", std::strerror(errno)));
      }
      if (got == 0) return EndedEarly(offset + done);
      for (size_t written = 0; written < static_cast<size_t>(got);) {
        const ssize_t w = ::write(out_fd, buffer.data() + written, static_cast<size_t>(got) - written);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return WriteError(w < 0 ? errno : EIO);
        written += static_cast<size_t>(w);
      }
      done += static_cast<uint64_t>(got);
    }
  }
  return method;
}

absl::StatusOr<std::shared_ptr<FdInputFile>> FdInputFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    std::string message = absl::StrCat("cannot open '", path, "': ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a regular file"));
  }
  return std::shared_ptr<FdInputFile>(new FdInputFile(path, fd, static_cast<uint64_t>(st.st_size)));
}

FdInputFile::~FdInputFile() { ::close(fd_); }

absl::Status FdInputFile::ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const {
  if (absl::Status in_range = CheckRange({offset, dst.size()}, "read"); !in_range.ok()) {
    return in_range;
  }
  for (size_t done = 0; done < dst.size();) {
    const ssize_t got = ::pread(fd_, dst.data() + done, dst.size() - done,
                                static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return absl::UnavailableError(
          absl::StrCat("reading '", path_, "' failed: ", std::strerror(errno)));
    }
    if (got == 0) return EndedEarly(offset + done);
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::native
