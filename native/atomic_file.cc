#include "native/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {
namespace {

// Temporaries the signal handler deletes: fixed slots of NUL-terminated
// paths, so the handler only reads memory and calls unlink (async-signal-safe).
constexpr int kSlots = 4;
constexpr size_t kMaxPath = 4096;
char g_temp_paths[kSlots][kMaxPath];
std::atomic<bool> g_slot_live[kSlots];

int RegisterTemp(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_live[i].load()) continue;
    std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
    g_slot_live[i].store(true);
    return i;
  }
  return -1;
}

void UnregisterTemp(int slot) {
  if (slot >= 0) g_slot_live[slot].store(false);
}

void RemoveTempsAndDie(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_live[i].load()) ::unlink(g_temp_paths[i]);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// What the destination is, for the refusal message; empty for a regular file.
const char* NonRegularKind(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

void InstallOutputSignalHandlers() {
  ::signal(SIGXFSZ, SIG_IGN);  // a file-size limit becomes EFBIG from write()
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = RemoveTempsAndDie;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

absl::StatusOr<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot write '", path, "': it is ", NonRegularKind(st),
        "; pt2onnx writes only regular files (give a new or regular file path)"));
  }
  std::string temp = absl::StrCat(path, ".tmp.", ::getpid());
  // Registered before it exists: a signal right after open() still finds it.
  int slot = RegisterTemp(temp);
  // O_EXCL | O_NOFOLLOW: never write through a link or file planted there.
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "wb");
  if (file == nullptr) {
    int error = errno;
    if (fd >= 0) {  // ours (fdopen failed); otherwise it was never created by us
      ::close(fd);
      ::unlink(temp.c_str());
    }
    UnregisterTemp(slot);
    return absl::PermissionDeniedError(absl::StrCat("cannot create '", path, "': ",
                                                    std::strerror(error),
                                                    " (check that the folder exists and is writable)"));
  }
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, temp, file, slot));
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) std::remove(temp_path_.c_str());
  UnregisterTemp(slot_);
}

namespace {

// Buffered bytes reach the file at fwrite, fflush or fclose: each names the
// cause the same way.
absl::Status WriteFailed(const std::string& path, int error) {
  return absl::DataLossError(absl::StrCat("writing '", path, "' failed: ", std::strerror(error),
                                          error == EFBIG ? " (over the file-size limit)"
                                                         : " (disk full?)"));
}

}  // namespace

absl::Status AtomicFile::Write(ByteSpan bytes) {
  if (bytes.empty()) return absl::OkStatus();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) return WriteFailed(path_, errno);
  written_ += bytes.size();
  return absl::OkStatus();
}

absl::Status AtomicFile::WriteSlice(const FileSlice& slice) {
  const auto* input = dynamic_cast<const FdInputFile*>(slice.file.get());
  if (input == nullptr) return ByteSink::WriteSlice(slice);
  if (absl::Status in_range = input->CheckRange(slice.range, "weight"); !in_range.ok()) {
    return in_range;
  }
  if (slice.range.length == 0) return absl::OkStatus();
  if (std::fflush(file_) != 0) return WriteFailed(path_, errno);  // buffered bytes go first
  absl::StatusOr<CopyMethod> copied =
      CopyFdRange(input->fd(), slice.range.offset, slice.range.length, ::fileno(file_));
  if (!copied.ok()) {
    return absl::Status(copied.status().code(),
                        absl::StrCat("writing '", path_, "': ", copied.status().message()));
  }
  written_ += slice.range.length;
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fflush(file) != 0) {
    int error = errno;
    std::fclose(file);
    return WriteFailed(path_, error);
  }
  if (std::fclose(file) != 0) return WriteFailed(path_, errno);
  // The destination may have changed since Create (a link planted meanwhile).
  struct stat st;
  if (::lstat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat("cannot write '", path_, "': it is now ",
                                                    NonRegularKind(st)));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot move the output into place at '", path_,
                                                    "': ", std::strerror(errno)));
  }
  committed_ = true;
  UnregisterTemp(slot_);
  slot_ = -1;
  return absl::OkStatus();
}

}  // namespace pt2onnx::native
