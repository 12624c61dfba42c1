// The runner tools' command lines (native/runner_flags.h): every flag, and
// each usage error's message as onnxrun and refrun print it.
#include "native/runner_flags.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace pt2onnx::native {
namespace {

std::string ErrorOf(RunnerTool tool, const std::vector<std::string>& args) {
  absl::StatusOr<RunnerFlags> flags = ParseRunnerFlags(tool, args);
  EXPECT_FALSE(flags.ok());
  EXPECT_EQ(flags.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(flags.status().message());
}

TEST(RunnerFlagsTest, OnnxrunTakesItsFlags) {
  absl::StatusOr<RunnerFlags> flags = ParseRunnerFlags(
      RunnerTool::kOnnxrun, {"m.onnx", "--inputs", "x.npz", "--outputs", "y.npz", "--threads", "4", "--bench", "0",
                             "--portable", "-q"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->model_path, "m.onnx");
  EXPECT_EQ(flags->inputs_path, "x.npz");
  EXPECT_EQ(flags->outputs_path, "y.npz");
  EXPECT_EQ(flags->threads, 4);
  EXPECT_EQ(flags->bench, 0);
  EXPECT_TRUE(flags->portable);
  EXPECT_TRUE(flags->quiet);
}

TEST(RunnerFlagsTest, RefrunTakesItsFlags) {
  absl::StatusOr<RunnerFlags> flags =
      ParseRunnerFlags(RunnerTool::kRefrun, {"m.pt2", "--model", "other", "--missing"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->model_name, "other");
  EXPECT_TRUE(flags->missing);  // needs no --inputs
  // Each tool's own flags are unknown to the other.
  EXPECT_TRUE(absl::StartsWith(ErrorOf(RunnerTool::kRefrun, {"m.pt2", "--inputs", "x", "--threads", "2"}),
                               "unknown option --threads\nusage: refrun"));
  EXPECT_TRUE(absl::StartsWith(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx", "--inputs", "x", "--missing"}),
                               "unknown option --missing\nusage: onnxrun"));
}

TEST(RunnerFlagsTest, HelpAndListKernelsStopTheParsing) {
  absl::StatusOr<RunnerFlags> flags = ParseRunnerFlags(RunnerTool::kOnnxrun, {"--list-kernels", "--bogus"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_TRUE(flags->list_kernels);
  flags = ParseRunnerFlags(RunnerTool::kRefrun, {"-h"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_TRUE(flags->help);
  // An error before them still counts.
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"--threads", "0", "--help"}), "--threads needs a count (threads >= 1)");
}

TEST(RunnerFlagsTest, UsageErrorsSayWhat) {
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx", "--bench", "-1"}), "--bench needs a count (threads >= 1)");
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx", "--threads"}), "--threads needs a count (threads >= 1)");
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx", "--threads", "100001"}), "--threads needs a count (threads >= 1)");
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx", "--inputs"}), "--inputs needs a file");
  EXPECT_EQ(ErrorOf(RunnerTool::kRefrun, {"m.pt2", "--outputs"}), "--outputs needs a file");
  EXPECT_EQ(ErrorOf(RunnerTool::kRefrun, {"m.pt2", "--model"}), "--model needs a name");
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"a.onnx", "b.onnx"}), "more than one model given");
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx"}),
            std::string("a model and --inputs are required\n") + RunnerUsage(RunnerTool::kOnnxrun));
  EXPECT_EQ(ErrorOf(RunnerTool::kRefrun, {"--inputs", "x.npz"}),
            std::string("a model and --inputs are required\n") + RunnerUsage(RunnerTool::kRefrun));
  EXPECT_EQ(ErrorOf(RunnerTool::kOnnxrun, {"m.onnx", "-"}),
            std::string("unknown option -\n") + RunnerUsage(RunnerTool::kOnnxrun));
}

}  // namespace
}  // namespace pt2onnx::native
