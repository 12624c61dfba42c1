#include "native/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::native {
namespace {

absl::Status ErrnoStatus(int err, const std::string& path, const char* what) {
  std::string message = absl::StrCat("cannot ", what, " '", path, "': ", std::strerror(err));
  switch (err) {
    case ENOENT: return absl::NotFoundError(message);
    case EACCES:
    case EPERM: return absl::PermissionDeniedError(message);
    default: return absl::UnavailableError(message);
  }
}

}  // namespace

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, path, "open");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, path, "stat");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a regular file"));
  }
  MappedFile file;
  file.size_ = static_cast<size_t>(st.st_size);
  if (file.size_ > 0) {
    void* data = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus(err, path, "map");
    }
    file.data_ = data;
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace pt2onnx::native
