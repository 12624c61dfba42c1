// CopyFdRange: every method of the fallback chain gives the same bytes, a
// method the output cannot take (a pipe for copy_file_range) falls back, and
// an input that ends early is an error. AtomicFile splices FdInputFile
// slices between buffered writes in order.
#include "native/weight_splice.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "native/atomic_file.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_files.h"

namespace pt2onnx::native {
namespace {

using ::pt2onnx::testing::ReadWholeFile;
using ::pt2onnx::testing::TestTempDir;

std::string Pattern(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131 + i / 977) & 0xFF);
  return bytes;
}

std::string WriteFile(const std::string& name, const std::string& bytes) {
  std::string path = TestTempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

class CopyFdRangeTest : public ::testing::TestWithParam<CopyMethod> {};

TEST_P(CopyFdRangeTest, CopiesTheRangeAfterWhatIsAlreadyThere) {
  const std::string input = Pattern(3 << 20);  // several buffers of the last fallback
  const std::string in_path = WriteFile("splice_in.bin", input);
  const std::string out_path = TestTempDir() + "/splice_out.bin";
  int in_fd = ::open(in_path.c_str(), O_RDONLY);
  int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(in_fd, 0);
  ASSERT_GE(out_fd, 0);
  ASSERT_EQ(::write(out_fd, "head", 4), 4);
  const uint64_t offset = 12345, length = input.size() - offset - 77;  // unaligned both ends
  absl::StatusOr<CopyMethod> used = CopyFdRange(in_fd, offset, length, out_fd, GetParam());
  ASSERT_TRUE(used.ok()) << used.status();
  EXPECT_EQ(*used, GetParam());
  ASSERT_EQ(::write(out_fd, "tail", 4), 4);
  ::close(in_fd);
  ::close(out_fd);
  EXPECT_EQ(ReadWholeFile(out_path), "head" + input.substr(offset, length) + "tail");
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, CopyFdRangeTest,
                         ::testing::Values(CopyMethod::kCopyFileRange, CopyMethod::kSendfile,
                                           CopyMethod::kReadWrite),
                         [](const auto& info) {
                           return std::string(info.param == CopyMethod::kCopyFileRange ? "CopyFileRange"
                                              : info.param == CopyMethod::kSendfile ? "Sendfile"
                                                                                    : "ReadWrite");
                         });

TEST(CopyFdRange, FallsBackWhenTheOutputIsAPipe) {
  const std::string input = Pattern(100000);
  const std::string in_path = WriteFile("splice_pipe_in.bin", input);
  int in_fd = ::open(in_path.c_str(), O_RDONLY);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  std::string received;
  std::thread reader([&] {
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) received.append(buffer, n);
  });
  absl::StatusOr<CopyMethod> used = CopyFdRange(in_fd, 10, input.size() - 10, pipe_fds[1]);
  ::close(pipe_fds[1]);
  reader.join();
  ::close(pipe_fds[0]);
  ::close(in_fd);
  ASSERT_TRUE(used.ok()) << used.status();
  EXPECT_NE(*used, CopyMethod::kCopyFileRange);  // copy_file_range takes regular files only
  EXPECT_EQ(received, input.substr(10));
}

TEST(CopyFdRange, AnInputThatEndsEarlyIsDataLoss) {
  const std::string in_path = WriteFile("splice_short.bin", Pattern(1000));
  for (CopyMethod method : {CopyMethod::kCopyFileRange, CopyMethod::kSendfile, CopyMethod::kReadWrite}) {
    int in_fd = ::open(in_path.c_str(), O_RDONLY);
    std::string out_path = TestTempDir() + "/splice_short_out.bin";
    int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    absl::StatusOr<CopyMethod> used = CopyFdRange(in_fd, 500, 1000, out_fd, method);
    EXPECT_TRUE(pt2onnx::testing::HasStatus(used, absl::StatusCode::kDataLoss, "truncated"))
        << CopyMethodName(method);
    ::close(in_fd);
    ::close(out_fd);
  }
}

TEST(FdInputFile, ReadsByOffsetAndRefusesPastTheEnd) {
  const std::string input = Pattern(5000);
  absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(WriteFile("fd_in.bin", input));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->size(), 5000u);
  EXPECT_FALSE((*file)->InMemory().has_value());
  std::string got(100, '\0');
  ASSERT_TRUE((*file)->ReadInto(4900, absl::MakeSpan(reinterpret_cast<uint8_t*>(got.data()), 100)).ok());
  EXPECT_EQ(got, input.substr(4900));
  EXPECT_TRUE(pt2onnx::testing::HasStatus(
      (*file)->ReadInto(4901, absl::MakeSpan(reinterpret_cast<uint8_t*>(got.data()), 100)),
      absl::StatusCode::kOutOfRange, "past the end"));
  EXPECT_TRUE(pt2onnx::testing::HasStatus(FdInputFile::Open(TestTempDir() + "/no_such_file.pt2"),
                                          absl::StatusCode::kNotFound, "no_such_file"));
  EXPECT_TRUE(pt2onnx::testing::HasStatus(FdInputFile::Open(TestTempDir()),
                                          absl::StatusCode::kInvalidArgument, "not a regular file"));
}

TEST(AtomicFile, SplicesInputSlicesBetweenBufferedWrites) {
  const std::string input = Pattern(200000);
  absl::StatusOr<std::shared_ptr<FdInputFile>> file =
      FdInputFile::Open(WriteFile("atomic_splice_in.bin", input));
  ASSERT_TRUE(file.ok());
  const std::string out_path = TestTempDir() + "/atomic_splice.onnx";
  absl::StatusOr<std::unique_ptr<AtomicFile>> out = AtomicFile::Create(out_path);
  ASSERT_TRUE(out.ok());
  std::shared_ptr<const InputFile> shared = *file;
  ASSERT_TRUE((*out)->Write(AsBytes("a")).ok());
  ASSERT_TRUE((*out)->WriteSlice(FileSlice{shared, FileRange{3, 70000}}).ok());
  ASSERT_TRUE((*out)->Write(AsBytes("bc")).ok());
  ASSERT_TRUE((*out)->WriteSlice(FileSlice{shared, FileRange{150000, 50000}}).ok());
  EXPECT_TRUE(pt2onnx::testing::HasStatus((*out)->WriteSlice(FileSlice{shared, FileRange{150000, 50001}}),
                                          absl::StatusCode::kOutOfRange, "past the end"));
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_EQ((*out)->bytes_written(), 1u + 70000 + 2 + 50000);
  EXPECT_EQ(ReadWholeFile(out_path), "a" + input.substr(3, 70000) + "bc" + input.substr(150000));
}

}  // namespace
}  // namespace pt2onnx::native
