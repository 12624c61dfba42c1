#include "native/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::native {

absl::StatusOr<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  std::string temp = absl::StrCat(path, ".tmp.", ::getpid());
  std::FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create '", path, "': ",
                                                    std::strerror(errno),
                                                    " (check that the folder exists and is writable)"));
  }
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, temp, file));
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) std::remove(temp_path_.c_str());
}

absl::Status AtomicFile::Write(ByteSpan bytes) {
  if (bytes.empty()) return absl::OkStatus();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return absl::DataLossError(absl::StrCat("writing '", path_, "' failed: ", std::strerror(errno),
                                            " (disk full?)"));
  }
  written_ += bytes.size();
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fflush(file) != 0 || std::fclose(file) != 0) {
    return absl::DataLossError(absl::StrCat("writing '", path_, "' failed: ", std::strerror(errno)));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot move the output into place at '", path_,
                                                    "': ", std::strerror(errno)));
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace pt2onnx::native
