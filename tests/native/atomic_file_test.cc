// AtomicFile: refuses non-regular destinations, never writes through a planted
// link, and leaves no temporary behind on a file-size limit or SIGTERM.
#include "native/atomic_file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_files.h"

namespace pt2onnx::native {
namespace {

using ::pt2onnx::testing::TestTempDir;

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

TEST(AtomicFile, RefusesACharacterDevice) {
  absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create("/dev/null");
  EXPECT_TRUE(pt2onnx::testing::HasStatus(file, absl::StatusCode::kPermissionDenied, "a device"));
}

TEST(AtomicFile, RefusesASymbolicLink) {
  std::string target = TestTempDir() + "/link_target.txt", link = TestTempDir() + "/link.onnx";
  std::ofstream(target) << "keep";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_TRUE(pt2onnx::testing::HasStatus(AtomicFile::Create(link),
                                          absl::StatusCode::kPermissionDenied, "symbolic link"));
}

TEST(AtomicFile, NeverWritesThroughAPlantedTemporary) {
  std::string victim = TestTempDir() + "/victim.txt", out = TestTempDir() + "/planted.onnx";
  std::ofstream(victim) << "keep";
  std::string temp = absl::StrCat(out, ".tmp.", ::getpid());
  ::unlink(temp.c_str());
  ASSERT_EQ(::symlink(victim.c_str(), temp.c_str()), 0);
  EXPECT_FALSE(AtomicFile::Create(out).ok());
  std::ifstream in(victim);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "keep");
  ::unlink(temp.c_str());
}

TEST(AtomicFile, CommitRenamesIntoPlace) {
  std::string out = TestTempDir() + "/ok.onnx";
  absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(out);
  ASSERT_TRUE(file.ok()) << file.status();
  std::string bytes = "abc";
  ASSERT_TRUE((*file)->Write(ByteSpan(reinterpret_cast<const uint8_t*>(bytes.data()), 3)).ok());
  ASSERT_TRUE((*file)->Commit().ok());
  EXPECT_TRUE(Exists(out));
  EXPECT_FALSE(Exists((*file)->temp_path()));
}

// Runs `body` in a child process and returns its wait status.
template <typename Fn>
int InChild(Fn body, pid_t* child = nullptr) {
  pid_t pid = ::fork();
  if (child != nullptr) *child = pid;
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(AtomicFile, FileSizeLimitIsAWriteErrorAndLeavesNoTemporary) {
  std::string out = TestTempDir() + "/fsize.onnx";
  int status = InChild([&] {
    InstallOutputSignalHandlers();
    struct rlimit limit = {100, 100};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    absl::Status written;
    {
      absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(out);
      if (!file.ok()) ::_exit(2);
      std::string bytes(1 << 16, 'x');
      written =
          (*file)->Write(ByteSpan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
      if (written.ok()) written = (*file)->Commit();
    }  // destroyed here: an uncommitted temporary is deleted
    ::_exit(written.ok() ? 3 : 0);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(Exists(out));
}

TEST(AtomicFile, SigtermRemovesTheTemporary) {
  std::string out = TestTempDir() + "/term.onnx";
  pid_t child = 0;
  int status = InChild([&] {
    InstallOutputSignalHandlers();
    absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(out);
    if (!file.ok()) ::_exit(2);
    if (!Exists((*file)->temp_path())) ::_exit(4);
    std::raise(SIGTERM);
    ::_exit(3);
  }, &child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(Exists(out));
  EXPECT_FALSE(Exists(absl::StrCat(out, ".tmp.", child)));
}

}  // namespace
}  // namespace pt2onnx::native
