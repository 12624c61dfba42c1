// Golden pass tests: each file in tests/passes/golden/ holds cases
//
//   === case name
//   passes: a, b            (run as one stage to a fixed point)
//   --- input
//   <IR text, core/ir/text.h>
//   --- expected
//   <IR text>               (for a negative case: the input again)
//
// and every case must print exactly as expected after the passes, pass
// ir::Verify after each pass, and be a fixed point (a second run changes nothing).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/ir/text.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

struct GoldenCase {
  std::string name, passes, input, expected;
};

std::vector<GoldenCase> ReadCases(const std::string& file) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::ifstream in(absl::StrCat(srcdir != nullptr ? srcdir : ".", "/pt2onnx/tests/passes/golden/", file));
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<GoldenCase> cases;
  std::string* section = nullptr;
  for (absl::string_view line : absl::StrSplit(text.str(), '\n')) {
    absl::string_view rest = line;
    if (absl::ConsumePrefix(&rest, "=== ")) {
      cases.push_back(GoldenCase{std::string(absl::StripAsciiWhitespace(rest))});
      section = nullptr;
    } else if (cases.empty()) {
      continue;
    } else if (absl::ConsumePrefix(&rest, "passes:")) {
      cases.back().passes = std::string(absl::StripAsciiWhitespace(rest));
    } else if (line == "--- input") {
      section = &cases.back().input;
    } else if (line == "--- expected") {
      section = &cases.back().expected;
    } else if (section != nullptr) {
      absl::StrAppend(section, line, "\n");
    }
  }
  return cases;
}

class GoldenTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenTest, EveryCaseMatches) {
  std::vector<GoldenCase> cases = ReadCases(GetParam());
  ASSERT_FALSE(cases.empty()) << "no cases in " << GetParam();
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(GetParam(), ": ", c.name));
    absl::StatusOr<ir::Model> model = ir::ParseModel(c.input);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<ir::Model> expected = ir::ParseModel(c.expected);
    ASSERT_TRUE(expected.ok()) << expected.status();
    PipelineOptions options;
    options.verify = true;
    for (absl::string_view name : absl::StrSplit(c.passes, ',', absl::SkipEmpty())) {
      options.only.emplace_back(absl::StripAsciiWhitespace(name));
    }
    absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    absl::Status status = RunPipeline(*pipeline, *model, options);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(ir::PrintModel(*model), ir::PrintModel(*expected));
    std::vector<PassStats> stats;
    ASSERT_TRUE(RunPipeline(*pipeline, *model, options, &stats).ok());
    for (const PassStats& s : stats) EXPECT_EQ(s.changed_runs, 0) << s.name << " is not at a fixed point";
  }
}

INSTANTIATE_TEST_SUITE_P(Passes, GoldenTest,
                         ::testing::Values("cleanups.txt", "constant_folding.txt", "cse_dedup.txt",
                                           "shapes.txt", "gemm.txt", "reshape_materialization.txt", "matmul_reshape.txt",
                                           "conv_batchnorm.txt", "layer_norm.txt", "rms_norm.txt", "gelu.txt",
                                           "attention.txt", "rotary_embedding.txt", "softmax_guard.txt"));

}  // namespace
}  // namespace pt2onnx::passes
